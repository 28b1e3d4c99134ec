//! `filestore diff` and `filestore apply` (docs/cow.md): the changes of a
//! copy-on-write mount, kept in an upper directory or in a conversation of a state
//! store, shown as a patch or written onto the lower directory.

use std::process::ExitCode;

use filestore::cow::{self, CowVolume};
use filestore::volumes::{CowUpper, MountArg, MountSource};
use filestore_guest::error::ErrorKind;

use super::output::{emit, fail, fail_with};

/// The lower and upper directories of a `/POINT=DIR:cow=UPPER` argument.
fn dirs(m: &MountArg) -> Result<(&std::path::Path, &std::path::Path), ExitCode> {
    match (&m.source, &m.cow) {
        (MountSource::Dir(lower), Some(CowUpper::Dir(upper))) => Ok((lower, upper)),
        _ => Err(fail(
            ErrorKind::InvalidArgument,
            format!(
                "mount {}: give the copy-on-write mount with its upper directory, /POINT=DIR:cow=UPPER (an in-memory upper layer ends with its session)",
                m.point
            ),
        )),
    }
}

/// Where a `/POINT=DIR:cow` mount's upper layer is: the conversation a
/// `serve --state` server kept it in (docs/cow.md#under-serve---state).
#[derive(clap::Args)]
pub(super) struct ConversationArgs {
    /// The state store of the server (as `serve --state`): the upper layer of a
    /// /POINT=DIR:cow mount is the conversation's there.
    #[arg(long, value_name = "SPEC", requires = "conversation")]
    state: Option<String>,
    /// The conversation's key, as its client names it.
    #[arg(long, value_name = "KEY", requires = "state")]
    conversation: Option<String>,
    /// The verified principal the conversation belongs to (none unauthenticated).
    #[arg(long, value_name = "SUB", default_value = "", requires = "state")]
    identity: String,
    /// Endpoint of an S3-compatible server for an s3:// store.
    #[arg(long, value_name = "URL", requires = "state")]
    s3_endpoint: Option<String>,
}

/// The conversation's upper layer of the mount `m` (`/POINT=DIR:cow`), and the
/// conversation's audit timeline (where an apply is recorded by default).
fn conversation_upper(
    m: &MountArg,
    c: &ConversationArgs,
    state: &str,
) -> Result<(filestore::volumes::SharedVolume, filestore::volumes::SharedVolume), ExitCode> {
    use filestore::conversation::{ConversationKey, StateSpec, StateStore};
    if m.cow != Some(CowUpper::Memory) {
        return Err(fail(
            ErrorKind::InvalidArgument,
            format!(
                "mount {}: with --state, give the mount as the server had it, /POINT=DIR:cow (its upper layer is the conversation's)",
                m.point
            ),
        ));
    }
    let bad = |e: filestore::conversation::StateError| fail(ErrorKind::InvalidArgument, e);
    let mut spec: StateSpec = state.parse().map_err(bad)?;
    if let StateSpec::Object(o) = &mut spec {
        o.endpoint = c.s3_endpoint.clone().or(o.endpoint.take());
    }
    let store = std::sync::Arc::new(StateStore::open(&spec).map_err(bad)?);
    let key = ConversationKey::scoped(&c.identity, c.conversation.as_deref().unwrap_or(""))
        .map_err(bad)?;
    if store.load(&key).map_err(bad)?.is_none() {
        return Err(fail(
            ErrorKind::NotFound,
            format!("no conversation '{}' in the store", c.conversation.as_deref().unwrap_or("")),
        ));
    }
    // A mount the conversation never changed has nothing to show or apply; one
    // named wrong would otherwise be made in the store, empty.
    let points = store.cow_points(&key).map_err(bad)?;
    if !points.contains(&m.point) {
        return Err(fail(
            ErrorKind::NotFound,
            format!(
                "mount {}: conversation '{}' has no copy-on-write changes there; it has them at: {}",
                m.point,
                c.conversation.as_deref().unwrap_or(""),
                if points.is_empty() { "(none)".to_string() } else { points.join(", ") }
            ),
        ));
    }
    let audit = store.volumes(&key).map_err(bad)?.audit;
    Ok((store.cow_upper(&key, &m.point, Default::default()).map_err(bad)?, audit))
}

/// The mount's cow view, its lower directory, and (with `--state`) the
/// conversation's audit timeline.
fn open<'m>(
    m: &'m MountArg,
    c: &ConversationArgs,
) -> Result<(CowVolume, &'m std::path::Path, Option<filestore::volumes::SharedVolume>), ExitCode> {
    if let (Some(state), MountSource::Dir(lower)) = (&c.state, &m.source) {
        let (upper, audit) = conversation_upper(m, c, state)?;
        let v = cow::open(lower, upper).map_err(|e| fail_with(&e))?;
        return Ok((v, lower, Some(audit)));
    }
    let (lower, upper) = dirs(m)?;
    let v = cow::open_dirs(lower, upper).map_err(|e| fail_with(&e))?;
    Ok((v, lower, None))
}

pub(super) fn diff(m: &MountArg, json: bool, c: &ConversationArgs) -> ExitCode {
    let (v, _, _) = match open(m, c) {
        Ok(x) => x,
        Err(code) => return code,
    };
    match cow::diff(v, &m.point) {
        Ok(r) if json => {
            emit(&format!("{}\n", serde_json::to_string_pretty(&r).unwrap_or_default()));
            ExitCode::SUCCESS
        }
        Ok(r) => {
            // The patch alone on stdout (for `git apply`); the list on stderr.
            for f in &r.files {
                eprintln!(
                    "{:?} {}{}",
                    f.status,
                    f.path,
                    if f.binary { " (binary, not in the patch)" } else { "" }
                );
            }
            emit(&r.patch);
            ExitCode::SUCCESS
        }
        Err(e) => fail_with(&e),
    }
}

pub(super) fn apply(
    m: &MountArg,
    check: bool,
    audit: Option<&MountArg>,
    c: &ConversationArgs,
) -> ExitCode {
    let audit = match audit.map(MountArg::open).transpose() {
        Ok(a) => a.map(|m| filestore::audit::AuditLog::new(m.volume, None)),
        Err(e) => return fail_with(&e),
    };
    // Not while a session writes the upper layer (diff may look, apply may not).
    // (A missing upper directory is said by `open`.) A conversation's upper layer
    // has no lock: its state changes by compare-and-swap; apply while no request
    // of it runs (docs/cow.md).
    let _lock = if c.state.is_some() {
        None
    } else {
        match dirs(m) {
            Ok((_, upper)) if upper.is_dir() => match cow::lock_for_apply(&m.point, upper) {
                Ok(l) => Some(l),
                Err(e) => return fail_with(&e),
            },
            Ok(_) => None,
            Err(code) => return code,
        }
    };
    let (v, lower, timeline) = match open(m, c) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // With --state the apply goes on the conversation's own timeline, unless
    // --audit names another.
    let audit = audit.or_else(|| timeline.map(|t| filestore::audit::AuditLog::new(t, None)));
    if check {
        let conflicts = match cow::conflicts(&v) {
            Ok(c) => c,
            Err(e) => return fail_with(&e),
        };
        // Paths as the mount shows them (as the diff names them).
        let under = |p: &str| filestore_guest::vfs::paths::under(&m.point, p);
        let paths: Vec<String> = conflicts.iter().map(|c| under(&c.path)).collect();
        let refused: Vec<String> = match v.changes("/") {
            Ok(changes) => filestore_guest::vfs::cow::apply::refused_paths(&v, &changes)
                .iter()
                .map(|p| under(p))
                .collect(),
            Err(e) => return fail_with(&filestore::Error::Filestore(e)),
        };
        let clean = paths.is_empty() && refused.is_empty();
        emit(&format!("{}\n", serde_json::json!({"conflicts": paths, "refused": refused})));
        return if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE };
    }
    let applied = cow::apply(&v, lower);
    if let Some(log) = &audit {
        record_apply(log, m, &applied);
    }
    match applied {
        Ok(r) => {
            let out = serde_json::json!({
                "written": r.written, "deleted": r.deleted, "directories": r.directories
            });
            emit(&format!("{out}\n"));
            ExitCode::SUCCESS
        }
        Err(e) => fail_with(&e),
    }
}

/// Records an apply of `m` on its audit timeline: the paths it wrote, deleted
/// and removed or made (as the mount shows them), or the error's kind. A record
/// that cannot be written is said on stderr; the apply stands.
fn record_apply(
    log: &filestore::audit::AuditLog,
    m: &MountArg,
    applied: &filestore::Result<cow::ApplyReport>,
) {
    use filestore::audit::{APPLY_TOOL, Attempt};
    let args = serde_json::json!({"mount": m.point});
    let attempt = Attempt::new(APPLY_TOOL, &args, None);
    let (touched, error) = match applied {
        Ok(r) => {
            let all = r.written.iter().chain(&r.deleted).chain(&r.directories);
            (all.map(|p| filestore_guest::vfs::paths::under(&m.point, p)).collect(), None)
        }
        Err(e) => (Vec::new(), Some(e.kind_name())),
    };
    if let Err(e) = log.record(&attempt, error, touched) {
        eprintln!("filestore apply: audit: recording the apply failed: {e}");
    }
}
