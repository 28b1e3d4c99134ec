//! MCP roots as the workspace: when `filestore serve` has no `--mount /workspace`,
//! a client that offers roots (`roots/list`) decides what `/workspace` is, as the
//! official filesystem server lets roots decide its allowed directories.
//!
//! One root is mounted at `/workspace`; several at `/workspace/NAME` each (the
//! root's name, else its directory's, made unique). Roots are read-only, like the
//! default workspace: writes go to `/scratch` or to a writable `--mount`. A root
//! that is not a `file://` URI of an existing directory is skipped and said so on
//! stderr. The session is rebuilt over the new mounts at `notifications/initialized`
//! and at every `notifications/roots/list_changed`, keeping its in-memory volumes.

// Roots are deprecated by SEP-2577 for a future protocol version; the versions this
// server negotiates (<= 2025-11-25) have them, and desktop clients rely on them.
#![allow(deprecated)]

use rmcp::model::Root;

use crate::volumes::{MountArg, MountSource};

/// The mount arguments for `roots` under `workspace` (`/workspace`), and a message
/// for each root left out.
pub fn mount_args(roots: &[Root], workspace: &str) -> (Vec<MountArg>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut dirs: Vec<(String, std::path::PathBuf)> = Vec::new();
    for r in roots {
        let Some(path) = file_path(&r.uri) else {
            skipped.push(format!("root '{}' is not a file:// URI of a local path", r.uri));
            continue;
        };
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                skipped.push(format!("root '{}' is not a directory", r.uri));
                continue;
            }
            Err(e) => {
                skipped.push(format!("root '{}': {e}", r.uri));
                continue;
            }
        }
        let base = r
            .name
            .clone()
            .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "root".to_string());
        let mut name: String = base
            .chars()
            .map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
            .collect();
        if name.is_empty() || name.chars().all(|c| c == '.') {
            name = "root".to_string();
        }
        let mut unique = name.clone();
        let mut n = 2;
        while dirs.iter().any(|(d, _)| *d == unique) {
            unique = format!("{name}-{n}");
            n += 1;
        }
        dirs.push((unique, path));
    }
    let single = dirs.len() == 1;
    let args = dirs
        .into_iter()
        .map(|(name, path)| MountArg {
            point: if single { workspace.to_string() } else { format!("{workspace}/{name}") },
            source: MountSource::Dir(path),
            read_only: true,
        })
        .collect();
    (args, skipped)
}

/// The local path of a `file://` URI (host empty or `localhost`), percent-decoded.
fn file_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    Some(std::path::PathBuf::from(decoded.into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_become_workspace_mounts() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let uri = |p: &std::path::Path| format!("file://{}", p.display());
        let one = [Root::new(uri(a.path()))];
        let (args, skipped) = mount_args(&one, "/workspace");
        assert!(skipped.is_empty());
        assert_eq!(args.len(), 1);
        assert_eq!(args[0].point, "/workspace");
        assert!(args[0].read_only);
        let mut named = Root::new(uri(b.path()));
        named.name = Some("my project".into());
        let two = [
            Root::new(uri(a.path())),
            named,
            Root::new("https://example.com/x"),
            Root::new(format!("{}/missing", uri(a.path()))),
        ];
        let (args, skipped) = mount_args(&two, "/workspace");
        let points: Vec<&str> = args.iter().map(|a| a.point.as_str()).collect();
        let a_name = a.path().file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(points, [format!("/workspace/{a_name}").as_str(), "/workspace/my_project"]);
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert_eq!(file_path("file:///a%20b/c"), Some("/a b/c".into()));
        assert_eq!(file_path("file://localhost/x"), Some("/x".into()));
        assert_eq!(file_path("file://server/x"), None);
    }
}
