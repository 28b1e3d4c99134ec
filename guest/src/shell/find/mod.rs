//! The shell's `find`: the mount table's own walk (the one behind `filestore_glob`
//! and `filestore_grep`) for the expressions it runs exactly, bashkit's `find` for
//! the rest.
//!
//! bashkit's `find` lists one directory per filesystem call, each a volume call
//! (6.4× GNU find's time on a tree of 5,920 directories). This command asks the
//! volume for a starting point's whole tree in one call
//! ([`MountTable::walk_packed`]), visits it in the order bashkit's `find` does
//! (depth first, each directory's entries by name), evaluates the expression on each
//! entry and prints as GNU find does. Links are listed, never followed (`-P`, the
//! sandbox's rule). Output streams in pieces, so `find . | head` ends with the reader.
//!
//! [`args::plan`] decides before anything runs whether a line is one the walk
//! reproduces; any other (`-exec`, `-delete`, `-printf`, time tests, a malformed
//! expression...) runs bashkit's `find` unchanged in a nested interpreter
//! ([`super::nested`]), whose `-exec` commands include the engine's `grep`.

mod args;
mod expr;

use std::sync::Arc;
use std::time::Duration;

use bashkit::{Command, CommandContext, CommandOutput, CommandStatus, async_trait};

use self::args::Plan;
use self::expr::{Effects, Kind, Node};
use super::grep::EngineGrep;
use crate::error::{Error, ErrorKind};
use crate::vfs::entry::{Entry, TYPE_SPECIAL, TYPE_SYMLINK};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::{MountTable, is_absent};
use crate::vfs::paths;

/// Stdout is written in pieces of about this size (the pipe's capacity, as grep's).
const FLUSH_BYTES: usize = 4 * 1024;

/// The `find` command (see the module docs).
pub(crate) struct EngineFind {
    pub(crate) mounts: Arc<MountTable>,
    /// The interpreter's filesystem: directories `mkdir` made on a volume without
    /// directories exist only there, and bashkit's find lists them.
    pub(crate) fs: Arc<super::fs::MountFs>,
    pub(crate) limits: Limits,
    /// The command's wall time, for the nested interpreter of the fallback.
    pub(crate) timeout: Duration,
    /// The engine's grep, for `-exec grep` in the fallback.
    pub(crate) grep: EngineGrep,
}

/// A starting point: as given, its virtual path and its entry (`None`: missing).
struct Start {
    given: String,
    path: String,
    entry: Option<Entry>,
}

#[async_trait]
impl Command for EngineFind {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let cwd = ctx.cwd.to_string_lossy().into_owned();
        match args::plan(ctx.args).and_then(|p| self.starts(&p, &cwd).map(|s| (p, s))) {
            Some((plan, starts)) => {
                let mut f = Finder {
                    plan: &plan,
                    mounts: &self.mounts,
                    limits: &self.limits,
                    stdout: &ctx.stdout,
                    out: Vec::new(),
                    err: Vec::new(),
                    failed: false,
                    quit: false,
                    visited: 0,
                };
                for s in &starts {
                    f.start(s).await?;
                    if f.quit {
                        break;
                    }
                }
                f.flush().await?;
                let _ = ctx.stderr.write_all(&f.err).await;
                Ok(CommandStatus::with_code(i32::from(f.failed)))
            }
            None => {
                let grep = self.grep.clone();
                super::nested::builtin(&ctx, self.timeout, |b| b.command("grep", grep)).await
            }
        }
    }
}

impl EngineFind {
    /// The starting points of `plan`, or `None` when bashkit's find must run the line
    /// (a device path, a path the tools refuse, a directory `mkdir` made that the
    /// volume does not hold, a failure other than absence).
    fn starts(&self, plan: &Plan, cwd: &str) -> Option<Vec<Start>> {
        if self.fs.has_pending_dirs() {
            return None;
        }
        let mut out = Vec::new();
        for given in &plan.starts {
            if given.is_empty() || given.starts_with("/dev/") {
                return None;
            }
            let path = paths::join(cwd, given).ok()?;
            let entry = match self.mounts.stat(&path) {
                Ok(e) => Some(e),
                Err(e) if e.kind() == ErrorKind::NotFound => None,
                Err(_) => return None,
            };
            out.push(Start { given: given.clone(), path, entry });
        }
        Some(out)
    }
}

/// One run of the walk.
struct Finder<'a> {
    plan: &'a Plan,
    mounts: &'a MountTable,
    limits: &'a Limits,
    stdout: &'a CommandOutput,
    out: Vec<u8>,
    err: Vec<u8>,
    failed: bool,
    quit: bool,
    /// Entries visited since the last yield to the runtime.
    visited: usize,
}

fn kind_of(entry_type: &str, is_dir: bool) -> Kind {
    if is_dir {
        Kind::Dir
    } else if entry_type == TYPE_SYMLINK {
        Kind::Link
    } else if entry_type == TYPE_SPECIAL {
        Kind::Other
    } else {
        Kind::File
    }
}

/// `display` joined with `rest`, one slash between (`d/` + `f` is `d/f`).
fn child_display(buf: &mut String, display: &str, rest: &str) {
    buf.clear();
    buf.push_str(display);
    if !display.ends_with('/') {
        buf.push('/');
    }
    buf.push_str(rest);
}

impl Finder<'_> {
    /// Evaluates `n` (from `-mindepth` on); whether to descend into it.
    async fn visit(&mut self, n: &Node<'_>) -> bashkit::Result<bool> {
        let mut fx = Effects::default();
        if n.depth >= self.plan.min_depth
            && self.plan.expr.eval(n, &mut self.out, &mut fx).is_none()
        {
            self.quit = true;
        }
        if self.out.len() >= FLUSH_BYTES {
            // A reader that has gone (`| head`) fails this write: find ends there.
            self.stdout.write_all(&std::mem::take(&mut self.out)).await?;
        }
        self.visited += 1;
        if self.visited >= 1024 {
            self.visited = 0;
            // Lets the interpreter's timeout and cancellation reach a long walk.
            tokio::task::yield_now().await;
        }
        Ok(n.kind == Kind::Dir
            && !fx.prune
            && !self.quit
            && self.plan.max_depth.is_none_or(|m| n.depth < m))
    }

    async fn flush(&mut self) -> bashkit::Result<()> {
        if !self.out.is_empty() {
            self.stdout.write_all(&std::mem::take(&mut self.out)).await?;
        }
        Ok(())
    }

    fn failed(&mut self, display: &str, e: &Error) {
        self.failed = true;
        let why = match e.kind() {
            ErrorKind::NotFound => "No such file or directory".to_string(),
            ErrorKind::NotADirectory => "Not a directory".to_string(),
            _ => e.message().to_string(),
        };
        self.err.extend_from_slice(format!("find: '{display}': {why}\n").as_bytes());
    }

    /// Whether the directory at `path` has no entries (a listing; only asked when
    /// `-empty` is tested).
    fn is_empty_dir(&self, path: &str) -> bool {
        self.plan.tests_empty && self.mounts.list(path).is_ok_and(|v| v.is_empty())
    }

    async fn start(&mut self, s: &Start) -> bashkit::Result<()> {
        let Some(e) = &s.entry else {
            self.failed(&s.given, &Error::not_found(&s.path));
            return Ok(());
        };
        let kind = kind_of(&e.entry_type, e.is_dir());
        let empty = kind == Kind::Dir && self.is_empty_dir(&s.path);
        let n = Node { display: &s.given, depth: 0, kind, size: e.size, empty };
        if self.visit(&n).await? {
            self.below(&s.path, &s.given, 0).await?;
        }
        Ok(())
    }

    /// Visits what is below the directory `path` (printed `display`, at `depth`):
    /// the whole tree from one walk, or its listing when only its entries can be
    /// visited (`-maxdepth`) or the walk would pass the session's entry limit.
    fn below<'s>(
        &'s mut self,
        path: &'s str,
        display: &'s str,
        depth: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bashkit::Result<()>> + Send + 's>> {
        Box::pin(async move {
            if self.plan.max_depth.is_some_and(|m| m <= depth + 1) {
                return self.listed(path, display, depth).await;
            }
            let walk = match self.mounts.walk_packed(path, self.limits.walk_entries) {
                Ok(w) => w,
                Err(e) => {
                    self.failed(display, &e);
                    return Ok(());
                }
            };
            if walk.truncated {
                return self.listed(path, display, depth).await;
            }
            let mut order: Vec<_> = walk.iter().collect();
            // The walk is in path order; find's is depth first, by name.
            order.sort_by(|a, b| paths::cmp_components(a.below().as_bytes(), b.below().as_bytes()));
            let mut buf = String::new();
            // The directory whose tree is skipped (pruned, or at -maxdepth).
            let mut skip: Option<&str> = None;
            for (k, e) in order.iter().enumerate() {
                let below = e.below();
                if let Some(s) = skip {
                    if below.len() > s.len()
                        && below.starts_with(s)
                        && below.as_bytes()[s.len()] == b'/'
                    {
                        continue;
                    }
                    skip = None;
                }
                let kind = kind_of(e.entry_type(), e.is_dir());
                // In this order a directory's first entry follows it.
                let empty = kind == Kind::Dir
                    && !order.get(k + 1).is_some_and(|next| {
                        let nb = next.below();
                        nb.len() > below.len()
                            && nb.starts_with(below)
                            && nb.as_bytes()[below.len()] == b'/'
                    });
                child_display(&mut buf, display, below);
                let n = Node {
                    display: &buf,
                    depth: depth + 1 + below.bytes().filter(|&b| b == b'/').count(),
                    kind,
                    size: e.size(),
                    empty,
                };
                let descend = self.visit(&n).await?;
                if self.quit {
                    return Ok(());
                }
                if kind == Kind::Dir && !descend {
                    skip = Some(below);
                }
            }
            Ok(())
        })
    }

    /// Visits the entries of the directory `path` by name, walking each
    /// subdirectory in its turn.
    async fn listed(&mut self, path: &str, display: &str, depth: usize) -> bashkit::Result<()> {
        let entries = match self.mounts.list(path) {
            Ok(v) => v,
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => {
                self.failed(display, &e);
                return Ok(());
            }
        };
        let mut buf = String::new();
        for e in &entries {
            let kind = kind_of(&e.entry_type, e.is_dir());
            let empty = kind == Kind::Dir && self.is_empty_dir(&e.path);
            child_display(&mut buf, display, paths::file_name(&e.path));
            let n = Node { display: &buf, depth: depth + 1, kind, size: e.size, empty };
            let descend = self.visit(&n).await?;
            if self.quit {
                return Ok(());
            }
            if descend {
                let shown = buf.clone();
                self.below(&e.path, &shown, depth + 1).await?;
                if self.quit {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}
