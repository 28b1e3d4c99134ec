//! The client's MCP roots as `/workspace` (see [`crate::roots`]): listed when
//! the client offers them and the session's policy reads them, checked and mounted
//! in place of what was there, and what was skipped told to the operator and the
//! client.

use rmcp::RoleServer;
use rmcp::service::Peer;

use super::FilestoreServer;
use filestore_runtime::MountSpec;
#[allow(deprecated)]
use rmcp::model::LoggingLevel;

impl FilestoreServer {
    /// Mounts the client's roots at `/workspace` when it offers roots and the user
    /// left `/workspace` to them, as far as the session's [`RootsPolicy`] allows
    /// (see [`crate::roots`]).
    ///
    /// [`RootsPolicy`]: crate::roots::RootsPolicy
    #[allow(deprecated)] // roots: see crate::roots
    pub(super) async fn apply_roots(&self, peer: &Peer<RoleServer>) {
        if *self.roots == crate::roots::RootsPolicy::Off {
            return;
        }
        let offers_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            if let Some(reason) = &self.no_workspace_reason {
                let m = format!("no /workspace: {reason}; the client offers no MCP roots either");
                eprintln!("filestore serve: {m}");
                self.warn(peer, m).await;
            }
            return;
        }
        if !self.roots.reads_roots() {
            self.say_roots_ignored(peer).await;
            return;
        }
        let _turn = self.roots_gate.turn().await;
        let (args, mut skipped) = self.requested_mounts(peer).await;
        skipped.extend(self.mount_roots(args).await);
        for s in skipped {
            eprintln!("filestore serve: skipped {s}");
            self.warn(peer, format!("skipped {s}")).await;
        }
    }

    /// The mounts of the client's roots that the policy allows, and a message for
    /// each root left out. When the roots cannot be had, none: what the client wants
    /// at /workspace is unknown, and the directory the server was started in is not
    /// its choice.
    #[allow(deprecated)] // roots: see crate::roots
    async fn requested_mounts(
        &self,
        peer: &Peer<RoleServer>,
    ) -> (Vec<crate::roots::RootMount>, Vec<String>) {
        let timeout = crate::roots::ROOTS_LIST_TIMEOUT;
        match tokio::time::timeout(timeout, peer.list_roots()).await {
            Ok(Ok(r)) => {
                // Checked and opened off the async runtime (file system calls).
                let policy = self.roots.clone();
                let checked = tokio::task::spawn_blocking(move || {
                    crate::roots::mount_args(&r.roots, crate::config::DEFAULT_WORKSPACE, &policy)
                });
                checked.await.unwrap_or_else(|e| {
                    (Vec::new(), vec![format!("every root: checking them failed ({e})")])
                })
            }
            Ok(Err(e)) => (Vec::new(), vec![format!("every root: roots/list failed ({e})")]),
            Err(_) => (
                Vec::new(),
                vec![format!(
                    "every root: the client did not answer roots/list within {} s",
                    timeout.as_secs()
                )],
            ),
        }
    }

    /// Mounts `roots` at /workspace in place of what is there (nothing, for none);
    /// a message when they could not be mounted.
    async fn mount_roots(&self, roots: Vec<crate::roots::RootMount>) -> Vec<String> {
        let result = self
            .on_sandbox(move |s| -> filestore_runtime::Result<Vec<String>> {
                let specs: Vec<MountSpec> =
                    roots.into_iter().map(crate::roots::RootMount::mount).collect();
                let mut unopened = Vec::new();
                if specs.is_empty() {
                    s.replace_workspace(specs)?;
                } else if let Err(e) = s.replace_workspace(specs) {
                    // Roots the other mounts rule out (inside a writable mount, say):
                    // no /workspace rather than a session that serves nothing.
                    s.replace_workspace(Vec::new())?;
                    unopened.push(format!(
                        "every root: they cannot be mounted with the server's mounts ({e})"
                    ));
                }
                Ok(unopened)
            })
            .await;
        match result {
            Ok(Ok(unopened)) => unopened,
            Ok(Err(e)) => vec![format!("every root: the session could not be rebuilt ({e})")],
            Err(e) => vec![format!("every root: {}", e.message)],
        }
    }

    /// Tells the operator (once per process) and the client (once per session)
    /// that a remote client's roots do not choose `/workspace`.
    async fn say_roots_ignored(&self, peer: &Peer<RoleServer>) {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "filestore serve: a client offers MCP roots; over HTTP they are ignored unless --http-roots-within allows directories (said once)"
            );
        });
        let m = "the client's MCP roots are ignored: over HTTP a client does not choose the server's directories (the operator can allow some with --http-roots-within); /workspace is what the server mounted";
        self.warn(peer, m.to_string()).await;
    }

    /// A warning to the client as a log message (see [`crate::logging`]).
    #[allow(deprecated)] // logging: see crate::logging
    pub(super) async fn warn(&self, peer: &Peer<RoleServer>, message: String) {
        crate::logging::log(peer, &self.log_level, LoggingLevel::Warning, message).await;
    }
}
