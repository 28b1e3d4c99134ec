//! `filestore snapshot`: a conversation's snapshots in a state store, from the host
//! (docs/snapshots.md): create, list, restore, delete, and fork into a new
//! conversation (which agents cannot do).

use std::process::ExitCode;

use filestore::conversation::{ConversationKey, StateSpec, StateStore};
use filestore_guest::error::ErrorKind;

use super::output::{emit, fail};
use super::serve::args::ObjectArgs;

/// What to do with a conversation's snapshots.
#[derive(clap::Subcommand)]
pub(super) enum Action {
    /// Snapshot the conversation (its /scratch, stored tool results, skills) as NAME.
    Create {
        /// The snapshot's name (ASCII letters, digits, . _ -).
        name: String,
    },
    /// List the conversation's snapshots, oldest first (JSON).
    List,
    /// Put the conversation back to the snapshot NAME.
    Restore {
        /// The snapshot.
        name: String,
    },
    /// Remove the snapshot NAME (what it shares with others stays).
    Delete {
        /// The snapshot.
        name: String,
    },
    /// Make the new conversation INTO from the snapshot NAME.
    Fork {
        /// The snapshot.
        name: String,
        /// The new conversation's key (as a client names it).
        #[arg(long, value_name = "KEY")]
        into: String,
    },
    /// Remove the snapshot objects (file contents, directories) no snapshot of any
    /// conversation of the store needs any more, once older than the grace period;
    /// deleted snapshots count for that long too (docs/snapshots.md). Store-wide:
    /// takes no --conversation. Prints what it removed (JSON).
    Gc {
        /// How long an unneeded object, or a deleted snapshot, is kept, seconds
        /// (at least 60): longer than the longest snapshot takes.
        #[arg(long, value_name = "SECS", default_value_t = 3600)]
        grace: u64,
    },
}

/// The shortest grace `gc` takes: longer than a snapshot of a large tree takes.
const MIN_GRACE_SECS: u64 = 60;

/// Options of `filestore snapshot`.
#[derive(clap::Args)]
pub(super) struct SnapshotArgs {
    /// The state store (as `serve --state`): DIR, s3://bucket/prefix, gs://, az://.
    #[arg(long, value_name = "SPEC")]
    state: String,
    /// The conversation's key, as its client names it (every action but gc).
    #[arg(long, value_name = "KEY")]
    conversation: Option<String>,
    /// The verified principal (token subject) the conversation belongs to on a
    /// server with authentication; none for an unauthenticated one.
    #[arg(long, value_name = "SUB", default_value = "")]
    identity: String,
    #[command(subcommand)]
    action: Action,
    #[command(flatten)]
    objects: ObjectArgs,
}

fn failed(e: filestore::conversation::StateError) -> ExitCode {
    fail(e.kind.error_kind(), e)
}

fn print(value: &impl serde::Serialize) -> ExitCode {
    emit(&format!("{}\n", serde_json::to_string_pretty(value).unwrap_or_default()));
    ExitCode::SUCCESS
}

pub(super) fn run(args: SnapshotArgs) -> ExitCode {
    let mut spec: StateSpec = match args.state.parse() {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if let StateSpec::Object(o) = &mut spec {
        o.endpoint = args.objects.s3_endpoint.clone().or(o.endpoint.take());
        o.region = args.objects.s3_region.clone().or(o.region.take());
    }
    let store = match StateStore::open(&spec) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if let Action::Gc { grace } = args.action {
        if grace < MIN_GRACE_SECS {
            return fail(
                ErrorKind::InvalidArgument,
                format!(
                    "--grace {grace}: at least {MIN_GRACE_SECS} s; a snapshot being taken meanwhile names objects no record names yet, and a shorter grace could remove them (docs/snapshots.md#garbage-collection)"
                ),
            );
        }
        let grace = std::time::Duration::from_secs(grace);
        return store.collect_snapshot_objects(grace).map(|s| print(&s)).unwrap_or_else(failed);
    }
    let Some(conversation) = &args.conversation else {
        return fail(
            ErrorKind::InvalidArgument,
            "--conversation KEY is needed: the snapshots are the conversation's (only gc takes none)",
        );
    };
    let key = match ConversationKey::scoped(&args.identity, conversation) {
        Ok(k) => k,
        Err(e) => return failed(e),
    };
    let done = match args.action {
        Action::Create { name } => store.snapshot(&key, &name).map(|r| print(&r)),
        Action::List => store.snapshots(&key).map(|l| print(&l)),
        Action::Restore { name } => store.restore_snapshot(&key, &name).map(|s| print(&s)),
        Action::Delete { name } => store
            .delete_snapshot(&key, &name)
            .map(|()| print(&serde_json::json!({"deleted": name}))),
        Action::Fork { name, into } => match ConversationKey::scoped(&args.identity, &into) {
            Ok(to) => store.fork(&key, &name, &to).map(|r| print(&r)),
            Err(e) => Err(e),
        },
        Action::Gc { .. } => unreachable!("handled above"),
    };
    done.unwrap_or_else(failed)
}
