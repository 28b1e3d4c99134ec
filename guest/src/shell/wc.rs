//! The shell's `wc`: line and byte counts without bashkit's whole-text pass, bashkit's
//! `wc` for the rest.
//!
//! bashkit's `wc` computes all five counts of every input whatever the flags ask (a
//! UTF-8 check, a word split, a character count per line), which made `wc -l FILE`,
//! the per-call figure of the shell's benchmark, cost a third more than `cat FILE`.
//! Agents ask for lines (`| wc -l`, `wc -l *.py`) and bytes; this command counts
//! only those, with `memchr`, and streams its stdin instead of holding all of it.
//! Any other line (`-w`, `-m`, `-L`, `-` or `--` operands, a missing or non-regular
//! file...) runs bashkit's `wc` unchanged in a nested interpreter
//! ([`super::nested`]), so its output and errors stay exactly bashkit's.
//!
//! The output follows bashkit's (GNU's) layout: counts in the order lines, bytes,
//! right-aligned to one width, then the name; a `total` line for several files.

use std::path::PathBuf;
use std::time::Duration;

use bashkit::{Command, CommandContext, CommandStatus, async_trait};

/// The `wc` command (see the module docs).
pub(crate) struct EngineWc {
    /// The command's wall time, for the nested interpreter of the fallback.
    pub(crate) timeout: Duration,
}

/// What a line the fast path runs asks for.
#[derive(Debug, Default, PartialEq)]
struct Plan {
    lines: bool,
    bytes: bool,
    files: Vec<String>,
}

impl Plan {
    fn active(&self) -> usize {
        usize::from(self.lines) + usize::from(self.bytes)
    }
}

/// The counts of one input.
#[derive(Clone, Copy, Default)]
struct Counts {
    lines: usize,
    bytes: usize,
}

impl Counts {
    fn add(&mut self, chunk: &[u8]) {
        self.lines += memchr::memchr_iter(b'\n', chunk).count();
        self.bytes += chunk.len();
    }
}

/// The plan for `args` when only `-l`/`-c` (and their long forms) are asked, or
/// `None` for bashkit's `wc`. Without flags `wc` prints words too: not ours.
fn plan(args: &[String]) -> Option<Plan> {
    let mut p = Plan::default();
    for a in args {
        match a.as_str() {
            "--lines" => p.lines = true,
            "--bytes" => p.bytes = true,
            // `-` (stdin among files), `--`, and every long option we do not run.
            "-" | "--" => return None,
            s if s.starts_with("--") => return None,
            s if s.starts_with('-') => {
                for c in s[1..].chars() {
                    match c {
                        'l' => p.lines = true,
                        'c' => p.bytes = true,
                        _ => return None,
                    }
                }
            }
            _ => p.files.push(a.clone()),
        }
    }
    (p.active() > 0).then_some(p)
}

#[async_trait]
impl Command for EngineWc {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let Some(plan) = plan(ctx.args) else {
            return super::nested::builtin(&ctx, self.timeout, |b| b).await;
        };
        let out = if plan.files.is_empty() {
            let mut c = Counts::default();
            while let Some(chunk) = ctx.stdin.read_chunk().await? {
                c.add(&chunk);
            }
            // bashkit's (and bash's) stdin layout: unpadded for one count, else 7 wide.
            let width = if plan.active() > 1 { 7 } else { 1 };
            format!("{}\n", line(&plan, c, width, None))
        } else {
            match files(&ctx, &plan).await? {
                Some(counted) => table(&plan, &counted),
                // A file the fast path does not count (missing, a directory, a
                // device): bashkit's `wc` says what is wrong, its way.
                None => return super::nested::builtin(&ctx, self.timeout, |b| b).await,
            }
        };
        ctx.stdout.write_all(out.as_bytes()).await?;
        Ok(CommandStatus::success())
    }
}

/// Each operand's counts, or `None` when one is not a regular file it can read.
/// Reads go through the interpreter's filesystem, as bashkit's `wc` reads (a
/// `SKILL.md` counted whole is a whole read there too).
async fn files(ctx: &CommandContext<'_>, plan: &Plan) -> bashkit::Result<Option<Vec<Counts>>> {
    let mut counted = Vec::with_capacity(plan.files.len());
    for f in &plan.files {
        let path = if f.starts_with('/') { PathBuf::from(f) } else { ctx.cwd.join(f) };
        if f.starts_with("/dev/") || !ctx.fs.stat(&path).await.is_ok_and(|m| m.file_type.is_file())
        {
            return Ok(None);
        }
        let Ok(data) = ctx.fs.read_file(&path).await else { return Ok(None) };
        let mut c = Counts::default();
        c.add(&data);
        counted.push(c);
    }
    Ok(Some(counted))
}

/// The output for counted files: one line each, a total for several. The width is
/// GNU's (bashkit's `number_width`): one file with one count is unpadded, otherwise
/// as wide as the files' total size.
fn table(plan: &Plan, counted: &[Counts]) -> String {
    let total = counted.iter().fold(Counts::default(), |mut t, c| {
        t.lines += c.lines;
        t.bytes += c.bytes;
        t
    });
    let width =
        if counted.len() == 1 && plan.active() == 1 { 1 } else { total.bytes.to_string().len() };
    let mut out = String::new();
    for (c, name) in counted.iter().zip(&plan.files) {
        out.push_str(&line(plan, *c, width, Some(name)));
        out.push('\n');
    }
    if counted.len() > 1 {
        out.push_str(&line(plan, total, width, Some("total")));
        out.push('\n');
    }
    out
}

fn line(plan: &Plan, c: Counts, width: usize, name: Option<&str>) -> String {
    let mut values = Vec::with_capacity(2);
    if plan.lines {
        values.push(format!("{:>width$}", c.lines));
    }
    if plan.bytes {
        values.push(format!("{:>width$}", c.bytes));
    }
    let counts = values.join(" ");
    match name {
        Some(n) => format!("{counts} {n}"),
        None => counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_lines_and_bytes_take_the_fast_path() {
        let p = plan(&args(&["-lc", "a", "b"])).unwrap();
        assert_eq!((p.lines, p.bytes, p.files), (true, true, args(&["a", "b"])));
        assert!(plan(&args(&["--lines"])).unwrap().files.is_empty());
        for other in [
            &["a"][..],
            &["-w", "a"],
            &["-lw", "a"],
            &["-l", "-"],
            &["-l", "--", "a"],
            &["--chars"],
        ] {
            assert_eq!(plan(&args(other)), None, "{other:?}");
        }
    }

    #[test]
    fn the_layout_is_gnus() {
        let p = plan(&args(&["-l", "x"])).unwrap();
        assert_eq!(table(&p, &[Counts { lines: 12, bytes: 300 }]), "12 x\n");
        let p = plan(&args(&["-lc", "x", "y"])).unwrap();
        let two = [Counts { lines: 2, bytes: 10 }, Counts { lines: 1, bytes: 5 }];
        assert_eq!(table(&p, &two), " 2 10 x\n 1  5 y\n 3 15 total\n");
    }
}
