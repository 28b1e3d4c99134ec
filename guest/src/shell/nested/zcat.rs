//! `zcat`: gzip's `-dc`, as GNU's zcat is (`gzip -dc FILE...`, stdin without a
//! file). bashkit has `gzip` and `gunzip` but no `zcat`; this runs its `gzip -dc`
//! on the same arguments in a nested interpreter ([`super`]), so the
//! output and errors are gzip's own.

use std::time::Duration;

use bashkit::{Command, CommandContext, CommandStatus, async_trait};

/// The `zcat` command (see the module docs).
pub(crate) struct Zcat {
    /// The command's wall time, for the nested interpreter.
    pub(crate) timeout: Duration,
}

#[async_trait]
impl Command for Zcat {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        super::program(&ctx, &["gzip", "-dc"], self.timeout, |b| b).await
    }
}
