//! MCP roots as the workspace: when `filestore serve` has no `--mount /workspace`,
//! a client that offers roots (`roots/list`) decides what `/workspace` is, as the
//! official filesystem server lets roots decide its allowed directories — within the
//! rule of [`RootsPolicy`]: over stdio any directory (the client is the local user's
//! own), over HTTP none unless the operator allowed directories
//! (`--http-roots-within`), and then only roots that resolve within them.
//!
//! One root is mounted at `/workspace`; several at `/workspace/NAME` each (the
//! root's name, else its directory's, made unique). Roots are read-only, like the
//! default workspace: writes go to `/scratch` or to a writable `--mount`. A root
//! that is not a `file://` URI of an existing directory (or, over HTTP, not within an
//! allowed directory) is skipped and said so on stderr and to the client. The session
//! is rebuilt over the new mounts at `notifications/initialized` and at every
//! `notifications/roots/list_changed`, keeping its in-memory volumes; requests that
//! reach the sandbox wait meanwhile (see [`Gate`]), so none runs against a
//! `/workspace` the client did not choose.

// Roots are deprecated by SEP-2577 for a future protocol version; the versions this
// server negotiates (<= 2025-11-25) have them, and desktop clients rely on them.
#![allow(deprecated)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use rmcp::model::Root;

use filestore_volumes::IDENTITY_PLACEHOLDER;
use filestore_volumes::dir::DirVolume;

/// How long the server waits for the client's answer to `roots/list`; past it,
/// `/workspace` is not mounted (what the client wants there is unknown).
pub const ROOTS_LIST_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request waits for the client's roots to be applied before it fails
/// (beyond [`ROOTS_LIST_TIMEOUT`]: a client that never sends `initialized`).
pub const ROOTS_WAIT: Duration = Duration::from_secs(30);

/// Most roots of one client mounted: each is a directory held open and a mount the
/// session is built over, and a client offering thousands (3,000 took the session
/// past [`ROOTS_WAIT`] and held 3,000 descriptors of the process's) must not take
/// the server's descriptors or time. Roots past it are skipped and said.
pub const MAX_ROOTS: usize = 32;

/// Which of a client's MCP roots may become `/workspace`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RootsPolicy {
    /// Roots never change `/workspace` (the user mounted one, or a single
    /// workspace at `/`).
    #[default]
    Off,
    /// Any local directory a root names: the client is the local user's own
    /// (stdio). Never over HTTP ([`RootsPolicy::for_remote`]).
    Any,
    /// Only roots whose resolved path (`..` and symbolic links resolved) is one of
    /// these directories or beneath one; `{sub}` in a directory is the caller's
    /// identity ([`RootsPolicy::for_caller`]). With none, roots are ignored: the
    /// default over HTTP, where a remote client must never choose host directories.
    Within(Vec<PathBuf>),
}

impl RootsPolicy {
    /// The policy for clients over the network: `Any` becomes `Within([])`.
    pub fn for_remote(self) -> RootsPolicy {
        match self {
            RootsPolicy::Any => RootsPolicy::Within(Vec::new()),
            other => other,
        }
    }

    /// The policy for the caller whose identity's path segment is `segment`:
    /// `{sub}` becomes it; a directory with `{sub}` and no caller is left out.
    pub fn for_caller(&self, segment: Option<&str>) -> RootsPolicy {
        let RootsPolicy::Within(dirs) = self else { return self.clone() };
        let fill = |d: &PathBuf| {
            let text = d.to_string_lossy();
            match (text.contains(IDENTITY_PLACEHOLDER), segment) {
                (false, _) => Some(d.clone()),
                (true, Some(seg)) => Some(PathBuf::from(text.replace(IDENTITY_PLACEHOLDER, seg))),
                (true, None) => None,
            }
        };
        RootsPolicy::Within(dirs.iter().filter_map(fill).collect())
    }

    /// Whether the client's roots are asked for at all.
    pub fn reads_roots(&self) -> bool {
        match self {
            RootsPolicy::Off => false,
            RootsPolicy::Any => true,
            RootsPolicy::Within(dirs) => !dirs.is_empty(),
        }
    }
}

/// A client's root, checked and opened: what [`mount_args`] hands on to be mounted.
///
/// The directory is opened when the root is checked, and the volume is built on that
/// handle ([`DirVolume::from_dir`]): the session is rebuilt later (after a call holding
/// the sandbox ends), and a root swapped for a link in between must not be followed
/// then.
#[derive(Debug)]
pub struct RootMount {
    /// Where it is mounted (`/workspace`, or `/workspace/NAME` for one of several).
    pub point: String,
    /// The host path it was resolved to when checked (for messages on stderr).
    pub path: PathBuf,
    /// The directory itself, opened when it was checked.
    pub dir: cap_std::fs::Dir,
}

impl RootMount {
    /// The read-only mount of this root.
    pub fn mount(self) -> filestore_runtime::MountSpec {
        let volume = DirVolume::from_dir(self.dir, &self.path, true);
        filestore_runtime::MountSpec::new(self.point, std::sync::Arc::new(volume)).read_only()
    }
}

/// The roots under `workspace` (`/workspace`) that `policy` allows, each checked and
/// its directory opened in one step ([`RootMount`]), and a message for each root left
/// out.
pub fn mount_args(
    roots: &[Root],
    workspace: &str,
    policy: &RootsPolicy,
) -> (Vec<RootMount>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut dirs: Vec<(String, PathBuf, cap_std::fs::Dir)> = Vec::new();
    if roots.len() > MAX_ROOTS {
        skipped.push(format!(
            "{} roots: only the first {MAX_ROOTS} are considered",
            roots.len() - MAX_ROOTS
        ));
    }
    for r in roots.iter().take(MAX_ROOTS) {
        let Some(path) = file_path(&r.uri) else {
            skipped.push(format!("root '{}' is not a file:// URI of a local path", r.uri));
            continue;
        };
        let (path, dir) = match policy {
            RootsPolicy::Off => continue,
            RootsPolicy::Any => match local_dir(&path) {
                Ok(opened) => opened,
                Err(why) => {
                    skipped.push(format!("root '{}' {why}", r.uri));
                    continue;
                }
            },
            // One message whatever the reason: a remote client learns nothing about
            // the host's directories outside those allowed.
            RootsPolicy::Within(allowed) => match within(&path, allowed) {
                Some(opened) => opened,
                None => {
                    skipped.push(format!(
                        "root '{}' is not a directory within those this server allows roots in",
                        r.uri
                    ));
                    continue;
                }
            },
        };
        let name = unique_name(r, &path, &dirs);
        dirs.push((name, path, dir));
    }
    let single = dirs.len() == 1;
    let args = dirs
        .into_iter()
        .map(|(name, path, dir)| RootMount {
            point: if single { workspace.to_string() } else { format!("{workspace}/{name}") },
            path,
            dir,
        })
        .collect();
    (args, skipped)
}

/// `path` (the local user's own choice: a link is followed, once) resolved and opened,
/// when it is an existing directory; else why not.
fn local_dir(path: &Path) -> Result<(PathBuf, cap_std::fs::Dir), String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err("is not a directory".into()),
        Err(e) => return Err(format!("cannot be used: {e}")),
    }
    let dir = cap_std::fs::Dir::open_ambient_dir(path, cap_std::ambient_authority())
        .map_err(|e| format!("cannot be opened: {e}"))?;
    let real = filestore_volumes::dir::real_path(&dir)
        .or_else(|| path.canonicalize().ok())
        .unwrap_or_else(|| path.to_path_buf());
    Ok((real, dir))
}

/// The resolved path of `path` and the directory opened, when it is a directory at or
/// beneath one of `allowed` (each resolved too).
///
/// The directory is opened from the allowed directory's handle one component at a
/// time, never following a link (`O_NOFOLLOW | O_DIRECTORY`), along the path the check
/// resolved: a link inside that names a directory inside is mounted as its target, and
/// a component swapped for a link after the path was resolved makes the open fail
/// instead of leading elsewhere. The allowed directory's handle must be where its
/// path said (its real path, where the kernel reports one), for the same reason.
fn within(path: &Path, allowed: &[PathBuf]) -> Option<(PathBuf, cap_std::fs::Dir)> {
    use cap_fs_ext::DirExt;
    let real = path.canonicalize().ok()?;
    for base in allowed.iter().filter_map(|d| d.canonicalize().ok()) {
        // Path::starts_with compares whole components: /srv/a_evil is not in /srv/a.
        let Ok(rest) = real.strip_prefix(&base) else { continue };
        let Ok(top) = cap_std::fs::Dir::open_ambient_dir(&base, cap_std::ambient_authority())
        else {
            continue;
        };
        if filestore_volumes::dir::real_path(&top).is_some_and(|p| p != base) {
            continue;
        }
        let mut dir = top;
        for c in rest.components() {
            let std::path::Component::Normal(name) = c else { return None };
            dir = dir.open_dir_nofollow(name).ok()?;
        }
        return Some((real, dir));
    }
    None
}

/// The mount name of root `r` at `path`: its name, else its directory's, with
/// characters outside `[A-Za-z0-9._-]` replaced, distinct from those `taken`.
fn unique_name(r: &Root, path: &Path, taken: &[(String, PathBuf, cap_std::fs::Dir)]) -> String {
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
    while taken.iter().any(|(d, _, _)| *d == unique) {
        unique = format!("{name}-{n}");
        n += 1;
    }
    unique
}

/// The local path of a `file://` URI (host empty or `localhost`), percent-decoded.
fn file_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    Some(PathBuf::from(decoded.into_owned()))
}

/// Holds back requests that reach the sandbox while the client's roots are being
/// applied: from `initialize` (for a client whose roots are read) until
/// `notifications/initialized` applied them, and during each
/// `notifications/roots/list_changed`. A client without roots never waits.
pub(crate) struct Gate {
    /// Applications under way or expected; requests pass at 0.
    pending: tokio::sync::watch::Sender<u32>,
    /// The first application: 0 not expected, 1 expected ([`Gate::expect_first`]),
    /// 2 taken by `initialized` ([`Gate::take_first`]).
    first: AtomicU8,
    /// One application at a time, in the order the client's notifications came; it
    /// holds when the last one started.
    applying: tokio::sync::Mutex<Option<tokio::time::Instant>>,
    /// An application is waiting for the one under way: a further
    /// `roots/list_changed` adds nothing (the waiting one lists the roots when it
    /// starts, so it sees that change too).
    queued: std::sync::atomic::AtomicBool,
}

/// The shortest time between two applications of one session's roots: a client
/// flooding `notifications/roots/list_changed` gets at most one session rebuild per
/// interval (changes in between are taken together), not one per notification.
pub const ROOTS_MIN_INTERVAL: Duration = Duration::from_secs(1);

/// The turn of one application of roots ([`Gate::turn`]): held while it lists and
/// mounts them.
pub(crate) struct Turn<'a>(
    #[allow(dead_code)] tokio::sync::MutexGuard<'a, Option<tokio::time::Instant>>,
);

/// One application of roots under way: the gate stays closed until it is dropped.
pub(crate) struct Held<'a>(&'a Gate);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.pending.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl Gate {
    /// Whether requests pass now (no application of roots under way or expected).
    pub(crate) fn is_open(&self) -> bool {
        *self.pending.borrow() == 0
    }

    pub(crate) fn new() -> Gate {
        Gate {
            pending: tokio::sync::watch::Sender::new(0),
            first: AtomicU8::new(0),
            applying: tokio::sync::Mutex::new(None),
            queued: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// For a `roots/list_changed`: `false` when an application is already waiting
    /// (it will see this change: drop the notification), else `true` and this one is
    /// the waiting one.
    pub(crate) fn queue(&self) -> bool {
        !self.queued.swap(true, Ordering::SeqCst)
    }

    /// Waits for this application's turn: after the one under way, and at least
    /// [`ROOTS_MIN_INTERVAL`] after the previous one started. From then on a new
    /// `roots/list_changed` queues another.
    pub(crate) async fn turn(&self) -> Turn<'_> {
        let mut last = self.applying.lock().await;
        if let Some(at) = *last {
            tokio::time::sleep_until(at + ROOTS_MIN_INTERVAL).await;
        }
        self.queued.store(false, Ordering::SeqCst);
        *last = Some(tokio::time::Instant::now());
        Turn(last)
    }

    /// Closes the gate until the returned hold is dropped.
    pub(crate) fn hold(&self) -> Held<'_> {
        self.pending.send_modify(|n| *n += 1);
        Held(self)
    }

    /// At `initialize`, for a client whose roots will be read: closed until
    /// `initialized` applied them (once per session, however often it initializes).
    pub(crate) fn expect_first(&self) {
        if self.first.compare_exchange(0, 1, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            std::mem::forget(self.hold());
        }
    }

    /// The hold [`Gate::expect_first`] took, for `initialized` to drop once the roots
    /// are applied.
    pub(crate) fn take_first(&self) -> Option<Held<'_>> {
        let taken = self.first.compare_exchange(1, 2, Ordering::SeqCst, Ordering::SeqCst);
        taken.ok().map(|_| Held(self))
    }

    /// Waits until no application is under way; an error after [`ROOTS_WAIT`].
    pub(crate) async fn wait(&self) -> Result<(), String> {
        let mut open = self.pending.subscribe();
        match tokio::time::timeout(ROOTS_WAIT, open.wait_for(|n| *n == 0)).await {
            Ok(_) => Ok(()),
            Err(_) => Err(format!(
                "/workspace is the client's MCP roots, which were not applied within {} s: a client that offers roots must send notifications/initialized and answer roots/list; nothing was done",
                ROOTS_WAIT.as_secs()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(p: &Path) -> String {
        format!("file://{}", p.display())
    }

    #[test]
    fn roots_become_workspace_mounts() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let one = [Root::new(uri(a.path()))];
        let (args, skipped) = mount_args(&one, "/workspace", &RootsPolicy::Any);
        assert!(skipped.is_empty());
        assert_eq!(args.len(), 1);
        assert_eq!(args[0].point, "/workspace");
        assert!(args.into_iter().next().unwrap().mount().read_only);
        let mut named = Root::new(uri(b.path()));
        named.name = Some("my project".into());
        let two = [
            Root::new(uri(a.path())),
            named,
            Root::new("https://example.com/x"),
            Root::new(format!("{}/missing", uri(a.path()))),
        ];
        let (args, skipped) = mount_args(&two, "/workspace", &RootsPolicy::Any);
        let points: Vec<&str> = args.iter().map(|a| a.point.as_str()).collect();
        let a_name = a.path().file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(points, [format!("/workspace/{a_name}").as_str(), "/workspace/my_project"]);
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert_eq!(file_path("file:///a%20b/c"), Some("/a b/c".into()));
        assert_eq!(file_path("file://localhost/x"), Some("/x".into()));
        assert_eq!(file_path("file://server/x"), None);
    }

    /// A root is mounted only when its resolved path lies within an allowed
    /// directory (a client's roots are its word, not the operator's); `..`, links,
    /// sibling prefixes and the host's own directories are refused, each with the
    /// same message.
    #[test]
    fn roots_within_allowed_directories_only() {
        let top = tempfile::tempdir().unwrap();
        let top = top.path().canonicalize().unwrap();
        let allowed = top.join("allowed");
        let inside = allowed.join("proj");
        let outside = top.join("outside");
        let sibling = top.join("allowed_evil");
        for d in [&inside, &outside, &sibling] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::os::unix::fs::symlink(&outside, allowed.join("link_out")).unwrap();
        std::os::unix::fs::symlink(&inside, allowed.join("link_in")).unwrap();
        std::fs::write(allowed.join("file.txt"), "x").unwrap();
        let policy = RootsPolicy::Within(vec![allowed.clone()]);
        let one = |u: String| mount_args(&[Root::new(u)], "/workspace", &policy);

        let (args, skipped) = one(uri(&inside));
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(args[0].path, inside);
        let (args, _) = one(uri(&allowed));
        assert_eq!(args[0].path, allowed, "the directory itself");
        // A link inside to a directory inside: mounted as its target.
        let (args, _) = one(uri(&allowed.join("link_in")));
        assert_eq!(args[0].path, inside);

        let hostile = [
            "file:///etc".to_string(),
            "file:///".to_string(),
            uri(&outside),
            uri(&sibling),
            uri(&allowed.join("link_out")),
            format!("{}/../outside", uri(&allowed)),
            format!("{}/%2E%2E/outside", uri(&allowed)),
            format!("{}/proj/../../outside", uri(&allowed)),
            uri(&allowed.join("file.txt")),
            uri(&allowed.join("missing")),
        ];
        for u in hostile {
            let (args, skipped) = one(u.clone());
            assert!(args.is_empty(), "{u} was mounted: {:?}", args[0].path);
            assert_eq!(
                skipped,
                [format!("root '{u}' is not a directory within those this server allows roots in")]
            );
        }
        // No allowed directory: no root at all.
        let none = RootsPolicy::Within(Vec::new());
        assert!(!none.reads_roots());
        assert!(mount_args(&[Root::new(uri(&inside))], "/workspace", &none).0.is_empty());
    }

    /// Hostile pass: a client offering thousands of roots gets at most
    /// [`MAX_ROOTS`] mounts (each holds a descriptor), and is told about the rest.
    #[test]
    fn roots_past_the_cap_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let many: Vec<Root> = (0..MAX_ROOTS * 3).map(|_| Root::new(uri(dir.path()))).collect();
        for policy in [RootsPolicy::Any, RootsPolicy::Within(vec![dir.path().to_path_buf()])] {
            let (args, skipped) = mount_args(&many, "/workspace", &policy);
            assert_eq!(args.len(), MAX_ROOTS);
            assert_eq!(
                skipped,
                [format!("{} roots: only the first {MAX_ROOTS} are considered", MAX_ROOTS * 2)]
            );
        }
    }

    #[test]
    fn policies_for_remote_clients_and_callers() {
        assert_eq!(RootsPolicy::Any.for_remote(), RootsPolicy::Within(Vec::new()));
        assert_eq!(RootsPolicy::Off.for_remote(), RootsPolicy::Off);
        let p = RootsPolicy::Within(vec!["/srv/shared".into(), "/srv/tenants/{sub}".into()]);
        assert_eq!(
            p.for_caller(Some("alice")),
            RootsPolicy::Within(vec!["/srv/shared".into(), "/srv/tenants/alice".into()])
        );
        assert_eq!(p.for_caller(None), RootsPolicy::Within(vec!["/srv/shared".into()]));
        assert!(RootsPolicy::Any.reads_roots());
        assert!(!RootsPolicy::Off.reads_roots());
    }

    #[tokio::test]
    async fn the_gate_holds_requests_until_the_roots_are_applied() {
        let gate = Gate::new();
        assert!(gate.take_first().is_none(), "nothing expected: nothing held");
        gate.wait().await.unwrap();
        gate.expect_first();
        gate.expect_first();
        let first = gate.take_first().expect("the first hold");
        assert!(gate.take_first().is_none());
        let changed = gate.hold();
        let mut open = gate.pending.subscribe();
        assert_eq!(*open.borrow_and_update(), 2);
        drop(first);
        assert_eq!(*open.borrow_and_update(), 1);
        drop(changed);
        gate.wait().await.unwrap();
        gate.expect_first();
        assert!(gate.take_first().is_none(), "a second initialize holds nothing");
    }
}
