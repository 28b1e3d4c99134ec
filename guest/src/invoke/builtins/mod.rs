//! The built-in `filestore_*` tools: ONE list ([`BUILTINS`]), an entry per tool with
//! everything about it — its name, title, kind (what decides when it is offered),
//! description, input and output schemas, annotations, and how a call of it runs.
//! Adding a tool is an entry in [`table`] plus its operation module.
//!
//! Everything else reads this list: what a session offers ([`specs`]), whether a
//! name is a built-in ([`is_builtin`]), a call's dispatch ([`run`]) and the error
//! naming the tools when a name is none of them. A call runs on a [`BuiltinHost`]
//! (the session, which sits above this layer), through the operation modules of
//! [`crate::ops`] and [`crate::shell`].

mod table;
#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::ToolOutput;
use crate::ops::builtin::ToolSpec;
use crate::ops::mutate::{DeleteRequest, MoveRequest, MutationResult};
use crate::ops::read::{ReadRequest, ReadResult};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;

pub use table::BUILTINS;

/// The shell tool (crate::shell): offered only where a session enables it.
pub const SHELL_TOOL: &str = crate::shell::TOOL;

/// The diff tool (crate::ops::diff): offered only where a copy-on-write mount is.
pub const DIFF_TOOL: &str = "filestore_diff";

/// What decides whether a session offers a built-in tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Reads: always offered.
    Read,
    /// Changes files: offered only with a writable mount.
    Write,
    /// The shell: offered only where the session enables it.
    Shell,
    /// A copy-on-write mount's changes: offered only where such a mount is.
    Diff,
}

impl Kind {
    /// The order of the kinds in a tool list: reads, writes, the diff, the shell.
    const LISTED: [Kind; 4] = [Kind::Read, Kind::Write, Kind::Diff, Kind::Shell];

    fn offered(self, writable: bool, shell: bool, cow: bool) -> bool {
        match self {
            Kind::Read => true,
            Kind::Write => writable,
            Kind::Shell => shell,
            Kind::Diff => cow,
        }
    }
}

/// How a built-in call runs: on the session, with the tool's name and its JSON
/// arguments.
pub type Run = fn(&dyn BuiltinHost, &str, &Value) -> Result<ToolOutput>;

/// One built-in tool.
pub struct Builtin {
    /// The name an agent calls it by (`filestore_read`...).
    pub name: &'static str,
    /// A short human-readable name (MCP `title`).
    pub title: &'static str,
    /// What decides whether a session offers it.
    pub kind: Kind,
    /// What it does and when to use it, for the model.
    pub description: fn() -> String,
    /// JSON Schema of its arguments (they decode into its request type).
    pub input_schema: fn() -> Value,
    /// JSON Schema of its structured result: the keys every answer has, typed, and
    /// the optional ones typed where present (a client checks results against it).
    pub output_schema: fn() -> Value,
    /// Its MCP annotations, given whether the session has a writable mount.
    pub annotations: fn(writable: bool) -> Value,
    /// How a call of it runs.
    pub run: Run,
}

impl Builtin {
    /// Its advertised spec in a session with (or without) a writable mount.
    pub fn spec(&self, writable: bool) -> ToolSpec {
        let mut annotations = (self.annotations)(writable);
        annotations["title"] = json!(self.title);
        ToolSpec {
            name: self.name.to_string(),
            description: (self.description)(),
            input_schema: (self.input_schema)(),
            annotations,
            title: self.title.to_string(),
            output_schema: (self.output_schema)(),
        }
    }
}

/// What a built-in call needs of its session beyond the operation modules: the
/// mounts and limits, and the operations that touch the session's own state (a
/// read that activates a skill, the shell's permission bits, the shell itself).
pub trait BuiltinHost {
    /// The session's mount table.
    fn mounts(&self) -> &MountTable;
    /// The session's limits.
    fn limits(&self) -> &Limits;
    /// One file read as `filestore_read` reads it, with the skill it activates.
    fn read_tool(
        &self,
        req: &ReadRequest,
    ) -> Result<(ReadResult, Option<crate::skills::active::Activation>)>;
    /// `filestore_read` with `paths`.
    fn read_many(&self, args: &Value) -> Result<ToolOutput>;
    /// `filestore_delete`.
    fn delete(&self, req: &DeleteRequest) -> Result<MutationResult>;
    /// `filestore_move`.
    fn move_entry(&self, req: &MoveRequest) -> Result<MutationResult>;
    /// `filestore_execute`.
    fn execute(&self, req: &crate::shell::ExecuteRequest) -> Result<crate::shell::ExecuteResult>;
}

/// The built-in tool named `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Whether `name` is a built-in filestore tool.
pub fn is_builtin(name: &str) -> bool {
    find(name).is_some()
}

/// The kind of the built-in tool `name` (`None`: not a built-in).
pub fn kind(name: &str) -> Option<Kind> {
    find(name).map(|b| b.kind)
}

/// The specs of the built-in tools a session offers: the reads; the writes when
/// `writable`; the diff when `cow` (a copy-on-write mount is there); the shell when
/// `shell`.
pub fn specs(writable: bool, shell: bool, cow: bool) -> Vec<ToolSpec> {
    Kind::LISTED
        .into_iter()
        .filter(|k| k.offered(writable, shell, cow))
        .flat_map(|k| BUILTINS.iter().filter(move |b| b.kind == k))
        .map(|b| b.spec(writable))
        .collect()
}

/// Runs the built-in tool `tool` on `host`; a name that is none of them is
/// `not-found`, naming the tools.
pub fn run(host: &dyn BuiltinHost, tool: &str, args: &Value) -> Result<ToolOutput> {
    match find(tool) {
        Some(b) => (b.run)(host, tool, args),
        None => Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "unknown tool '{tool}'; the filestore tools are {}",
                BUILTINS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// A result that does not serialise (a bug, but an error rather than a panic).
pub fn serialising(e: serde_json::Error) -> Error {
    Error::new(ErrorKind::Backend, format!("serialising the result: {e}"))
}

/// A tool's output: `value` as its JSON, `text` for the model.
fn output<T: Serialize>(value: &T, text: String) -> Result<ToolOutput> {
    let json = serde_json::to_value(value).map_err(serialising)?;
    Ok(ToolOutput { json, text })
}
