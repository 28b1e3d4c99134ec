//! Running a [`Plan`]: the files of the operands from the mount table (walked and
//! read as `filestore_grep` does, not through the interpreter's filesystem and its
//! input budget), each searched whole by the engine's line search, and the lines
//! printed as GNU grep prints them.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use memchr::{memchr, memchr_iter};
use regex::bytes::Regex;

use super::args::Plan;
use crate::error::{Error, ErrorKind, Result};
use crate::ops::grep::for_each_match_line;
use crate::vfs::entry::{TYPE_SPECIAL, TYPE_SYMLINK};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// One file to search: where it is and the name grep prints.
pub(crate) struct Target {
    pub(crate) path: String,
    pub(crate) size: Option<u64>,
    pub(crate) name: String,
    /// Found by recursing into a directory operand (GNU then prints names by default).
    pub(crate) recursed: bool,
    /// The entry type (`file`, a skill's `SKILL.md`...).
    pub(crate) entry_type: String,
}

/// The files of `plan`'s operands, in order, found as the search goes ([`Targets`]),
/// or `None` when bashkit's grep must run the command (an operand that is missing,
/// not a file or directory, or a directory without `-r`).
pub(crate) fn targets<'a>(
    plan: &'a Plan,
    mounts: &'a MountTable,
    limits: &'a Limits,
    cwd: &str,
) -> Option<Targets<'a>> {
    let mut queue = VecDeque::new();
    let implicit_dot = plan.operands.is_empty();
    let operands: Vec<&str> =
        if implicit_dot { vec!["."] } else { plan.operands.iter().map(String::as_str).collect() };
    for op in operands {
        if op == "-" || op.is_empty() {
            return None;
        }
        let path = paths::join(cwd, op).ok()?;
        let me = mounts.stat(&path).ok()?;
        if !me.is_dir() {
            if me.entry_type == TYPE_SYMLINK || me.entry_type == TYPE_SPECIAL {
                return None;
            }
            queue.push_back(Work::File(Target {
                path,
                size: None,
                name: op.to_string(),
                recursed: false,
                entry_type: me.entry_type.clone(),
            }));
            continue;
        }
        if !plan.recursive
            || plan.exclude_dirs.iter().any(|g| glob_match(g, paths::file_name(&path)))
        {
            return None;
        }
        // GNU prints `DIR/NAME`, one slash; no operand at all prints `NAME`.
        let prefix = if implicit_dot {
            String::new()
        } else if op.ends_with('/') {
            op.to_string()
        } else {
            format!("{op}/")
        };
        queue.push_back(Work::List(Tree { path, prefix, below: String::new() }));
    }
    Some(Targets { plan, mounts, limits, queue })
}

/// The files to search, produced as the search asks for them, in path order (the
/// order of a walk): an operand directory is listed, and each directory in it walked
/// when its turn comes (one volume call each; a walk cut at the session's entry
/// limit is listed and walked one level down instead). So `grep -rn X . | head` reads
/// and searches only the first directories' files before `head` has its lines,
/// instead of walking the whole tree first.
pub(crate) struct Targets<'a> {
    plan: &'a Plan,
    mounts: &'a MountTable,
    limits: &'a Limits,
    queue: VecDeque<Work>,
}

/// A directory below an operand: its path, the operand's printed prefix and the
/// path below the operand (`""` for the operand itself).
struct Tree {
    path: String,
    prefix: String,
    below: String,
}

impl Tree {
    /// The name grep prints for `rest` below this directory.
    fn name(&self, rest: &str) -> String {
        if self.below.is_empty() {
            format!("{}{rest}", self.prefix)
        } else {
            format!("{}{}/{rest}", self.prefix, self.below)
        }
    }

    /// The directory's own printed name (in grep's messages about it).
    fn display(&self) -> String {
        self.name("").trim_end_matches('/').to_string()
    }

    fn child(&self, path: String, name: &str) -> Tree {
        let below =
            if self.below.is_empty() { name.to_string() } else { format!("{}/{name}", self.below) };
        Tree { path, prefix: self.prefix.clone(), below }
    }
}

enum Work {
    File(Target),
    List(Tree),
    Walk(Tree),
}

impl Targets<'_> {
    /// The next file, or a directory that could not be listed or walked (its printed
    /// name and the error, which grep reports and goes on).
    pub(crate) fn next(&mut self) -> Option<std::result::Result<Target, (String, Error)>> {
        loop {
            match self.queue.pop_front()? {
                Work::File(t) => return Some(Ok(t)),
                Work::List(tree) => {
                    if let Err(e) = self.list(&tree) {
                        return Some(Err((tree.display(), e)));
                    }
                }
                Work::Walk(tree) => {
                    if let Err(e) = self.walk(tree) {
                        return Some(Err(e));
                    }
                }
            }
        }
    }

    /// Queues `tree`'s children, in path order, ahead of what was queued.
    fn list(&mut self, tree: &Tree) -> Result<()> {
        let mut children: Vec<(String, Work)> = Vec::new();
        for e in self.mounts.list(&tree.path)? {
            let name = paths::file_name(&e.path).to_string();
            if e.is_dir() {
                if !self.plan.exclude_dirs.iter().any(|g| glob_match(g, &name)) {
                    // Path order: everything below `d` sorts as `d/`.
                    children
                        .push((format!("{name}/"), Work::Walk(tree.child(e.path.clone(), &name))));
                }
            } else if !matches!(e.entry_type.as_str(), TYPE_SYMLINK | TYPE_SPECIAL)
                && included(self.plan, &name)
            {
                let target = Target {
                    name: tree.name(&name),
                    path: e.path.clone(),
                    size: Some(e.size),
                    recursed: true,
                    entry_type: e.entry_type.clone(),
                };
                children.push((name, Work::File(target)));
            }
        }
        children.sort_by(|a, b| a.0.cmp(&b.0));
        for (_, w) in children.into_iter().rev() {
            self.queue.push_front(w);
        }
        Ok(())
    }

    /// Queues the files of `tree`'s walk ahead of what was queued; a walk cut at the
    /// entry limit becomes a listing (its subdirectories walked in their turn).
    fn walk(&mut self, tree: Tree) -> std::result::Result<(), (String, Error)> {
        let walk = match self.mounts.walk_packed(&tree.path, self.limits.walk_entries) {
            Ok(w) => w,
            Err(e) => return Err((tree.display(), e)),
        };
        if walk.truncated {
            self.queue.push_front(Work::List(tree));
            return Ok(());
        }
        let mut files = Vec::new();
        let mut excluded_dirs: Vec<String> = Vec::new();
        for e in walk.iter() {
            let below = e.below();
            if excluded_dirs.iter().any(|d| below.starts_with(d.as_str())) {
                continue;
            }
            if e.is_dir() {
                if self.plan.exclude_dirs.iter().any(|g| glob_match(g, paths::file_name(below))) {
                    excluded_dirs.push(format!("{below}/"));
                }
                continue;
            }
            // `-r` skips links and devices met while recursing.
            if matches!(e.entry_type(), TYPE_SYMLINK | TYPE_SPECIAL)
                || !included(self.plan, paths::file_name(below))
            {
                continue;
            }
            files.push(Work::File(Target {
                path: e.path(),
                size: Some(e.size()),
                name: tree.name(below),
                recursed: true,
                entry_type: e.entry_type().to_string(),
            }));
        }
        for w in files.into_iter().rev() {
            self.queue.push_front(w);
        }
        Ok(())
    }
}

/// GNU's rule: the last `--include`/`--exclude` that matches decides; when none
/// does, a file is searched unless the first of them was an `--include`.
fn included(plan: &Plan, name: &str) -> bool {
    match plan.filters.iter().rev().find(|(_, g)| glob_match(g, name)) {
        Some((include, _)) => *include,
        None => plan.filters.first().is_none_or(|(include, _)| !include),
    }
}

/// `fnmatch` for globs of `*`, `?` and literal characters.
pub(crate) fn glob_match(glob: &str, name: &str) -> bool {
    let (g, n): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    let (mut gi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match g.get(gi) {
            Some('*') => {
                star = Some((gi, ni));
                gi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                gi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sg, sn)) => {
                    gi = sg + 1;
                    ni = sn + 1;
                    star = Some((sg, sn + 1));
                }
                None => return false,
            },
        }
    }
    g[gi..].iter().all(|&c| c == '*')
}

/// What searching produced so far, across files.
pub(crate) struct Searcher<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) re: &'a Regex,
    /// Bytes for stdout, flushed by the caller between files.
    pub(crate) out: Vec<u8>,
    /// Diagnostics for stderr.
    pub(crate) err: Vec<u8>,
    pub(crate) selected_any: bool,
    pub(crate) error: bool,
    /// Whether a group of lines was printed (GNU's `--` goes between groups).
    printed_group: bool,
}

impl<'a> Searcher<'a> {
    pub(crate) fn new(plan: &'a Plan, re: &'a Regex) -> Self {
        Searcher {
            plan,
            re,
            out: Vec::new(),
            err: Vec::new(),
            selected_any: false,
            error: false,
            printed_group: false,
        }
    }

    /// Reports a file that could not be read (`-s` keeps quiet, the status stays 2).
    pub(crate) fn failed(&mut self, name: &str, e: &crate::error::Error) {
        self.error = true;
        if !self.plan.suppress_errors {
            let why = match e.kind() {
                ErrorKind::NotFound => "No such file or directory".to_string(),
                ErrorKind::TooLarge => "File too large".to_string(),
                _ => e.message().to_string(),
            };
            self.err.extend_from_slice(format!("grep: {name}: {why}\n").as_bytes());
        }
    }

    /// Searches one file's bytes. `Break` once `-q` has its answer.
    pub(crate) fn file(&mut self, buf: &[u8], name: &str, show_name: bool) -> ControlFlow<()> {
        let plan = self.plan;
        // Matching lines: (number, start), in order.
        let mut matches: Vec<(u64, usize)> = Vec::new();
        let stop_at_first = (plan.quiet || plan.files_with_matches) && !plan.invert;
        let _ = for_each_match_line(self.re, buf, false, |n, s| {
            matches.push((n, s));
            if stop_at_first { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        });
        if matches.is_empty() && !plan.invert {
            if plan.count {
                self.count_line(name, show_name, 0);
            }
            return ControlFlow::Continue(());
        }
        // Line starts, only for files that print something.
        let mut starts: Vec<usize> = Vec::with_capacity(64);
        starts.push(0);
        starts.extend(memchr_iter(b'\n', buf).map(|i| i + 1));
        if starts.last() == Some(&buf.len()) {
            starts.pop();
        }
        let lines = starts.len();
        let mut is_match = vec![false; lines];
        for &(n, _) in &matches {
            is_match[(n - 1) as usize] = true;
        }
        let selected: Vec<bool> = is_match.iter().map(|&m| m != plan.invert).collect();
        let count = selected.iter().filter(|&&s| s).count();
        if count > 0 {
            self.selected_any = true;
        }
        if plan.quiet {
            return if count > 0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) };
        }
        if plan.count {
            self.count_line(name, show_name, count);
            return ControlFlow::Continue(());
        }
        if plan.files_with_matches {
            if count > 0 {
                self.out.extend_from_slice(name.as_bytes());
                self.out.push(b'\n');
            }
            return ControlFlow::Continue(());
        }
        if count == 0 {
            return ControlFlow::Continue(());
        }
        // A file with a NUL byte is binary: its lines are not printed (grep >= 3.5).
        if memchr(0, buf).is_some() {
            self.binary(name);
            return ControlFlow::Continue(());
        }
        let line = |i: usize| {
            // A line ends before its newline; the last one before the file's final
            // newline, if it has one.
            let end =
                starts.get(i + 1).map_or(buf.len() - usize::from(buf.ends_with(b"\n")), |&s| s - 1);
            &buf[starts[i]..end]
        };
        // Lines to print: selected ones and their context, in order.
        let mut last: Option<usize> = None;
        for i in (0..lines).filter(|&i| selected[i]) {
            let from = i.saturating_sub(plan.before).max(last.map_or(0, |l| l + 1));
            if plan.context_given && self.printed_group && last.is_none_or(|l| from > l + 1) {
                self.out.extend_from_slice(b"--\n");
            }
            let to = (i + plan.after).min(lines - 1);
            // Trailing context stops at the next selected line, which prints itself.
            for (k, &sel) in selected.iter().enumerate().take(i + 1).skip(from) {
                if self.print(line(k), name, show_name, k, sel).is_break() {
                    self.binary(name);
                    return ControlFlow::Continue(());
                }
            }
            last = Some(i);
            self.printed_group = true;
            let mut k = i + 1;
            while k <= to && !selected[k] {
                if self.print(line(k), name, show_name, k, false).is_break() {
                    self.binary(name);
                    return ControlFlow::Continue(());
                }
                last = Some(k);
                k += 1;
            }
        }
        ControlFlow::Continue(())
    }

    fn count_line(&mut self, name: &str, show_name: bool, n: usize) {
        if show_name {
            self.out.extend_from_slice(name.as_bytes());
            self.out.push(b':');
        }
        self.out.extend_from_slice(format!("{n}\n").as_bytes());
    }

    fn binary(&mut self, name: &str) {
        self.err.extend_from_slice(format!("grep: {name}: binary file matches\n").as_bytes());
    }

    /// Prints line `k` (0-based). `Break` for a line that is not valid UTF-8: GNU
    /// stops printing the file there and reports it as a binary file.
    fn print(
        &mut self,
        text: &[u8],
        name: &str,
        show_name: bool,
        k: usize,
        selected: bool,
    ) -> ControlFlow<()> {
        if std::str::from_utf8(text).is_err() {
            return ControlFlow::Break(());
        }
        let sep = if selected { b':' } else { b'-' };
        let head = |out: &mut Vec<u8>| {
            if show_name {
                out.extend_from_slice(name.as_bytes());
                out.push(sep);
            }
            if self.plan.line_numbers {
                out.extend_from_slice(format!("{}", k + 1).as_bytes());
                out.push(sep);
            }
        };
        if self.plan.only_matching {
            for m in self.re.find_iter(text).filter(|m| !m.is_empty()) {
                head(&mut self.out);
                self.out.extend_from_slice(m.as_bytes());
                self.out.push(b'\n');
            }
        } else {
            head(&mut self.out);
            self.out.extend_from_slice(text);
            self.out.push(b'\n');
        }
        ControlFlow::Continue(())
    }
}

/// Reads a target whole, bounded by the session's file limit.
pub(crate) fn read(mounts: &MountTable, limits: &Limits, t: &Target) -> Result<Vec<u8>> {
    match t.size {
        Some(size) => mounts.read_listed(&t.path, size, limits.file_bytes),
        None => mounts.read_all(&t.path, limits.file_bytes).map(|(_, b)| b),
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_as_fnmatch() {
        assert!(glob_match("*.rs", "main.rs"));
        assert!(!glob_match("*.rs", "main.rsx"));
        assert!(glob_match("a?c*", "abcdef"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("?", ""));
        assert!(glob_match("*a*b", "xxaxxb"));
    }
}
