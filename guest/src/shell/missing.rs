//! What the shell says when a program is missing: bash's `NAME: command not found`
//! (status 127), followed by one sentence that is true of this sandbox.
//!
//! The interpreter adds its own hint to that line, written for its embedders
//! (`SSH requires the 'ssh' feature. Enable with: features = ["ssh"]`), wrong here
//! (`rsync`: "Network access is limited to curl/wget", when this sandbox has no
//! network at all) or misleading (`perl` → "Did you mean: curl, pr?", `pytest` →
//! `test`, `uv` → `mv`). It has no hook for that hint, so the line is rewritten on
//! its way out, in the streamed output and in the result alike: on a line exactly
//! as the interpreter writes it (its own hint or guess, or none, after `command
//! not found`), that tail is replaced by ours, or dropped when we have nothing
//! better than bash's plain message. A command's own output that merely looks like
//! such a line (`cat build.log >&2`) keeps its words.

use std::borrow::Cow;

/// The end of the interpreter's message, before its hint.
const NOT_FOUND: &str = ": command not found";

/// Rewrites every `command not found` line of `stderr` (see the module's doc); text
/// without one is returned as it is.
pub(crate) fn explain(stderr: &str) -> Cow<'_, str> {
    if !stderr.contains(NOT_FOUND) {
        return Cow::Borrowed(stderr);
    }
    let mut out = String::with_capacity(stderr.len());
    for line in stderr.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        match not_found_line(body) {
            Some((head, name)) => {
                out.push_str(head);
                if let Some(hint) = hint(name) {
                    out.push_str(". ");
                    out.push_str(hint);
                }
                out.push_str(end);
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// The hints bashkit 0.20 writes after `command not found` (its
/// `unavailable_command_hint`), each after `. `.
const INTERPRETER_HINTS: &[&str] = &[
    "Package managers are not available in the sandbox.",
    "All commands run without privilege restrictions.",
    "SSH requires the 'ssh' feature. Enable with: features = [\"ssh\"]",
    "Network access is limited to curl/wget.",
    "Container and service management is not available in the sandbox.",
    "Compilers and build tools are not available in the sandbox.",
    "Interactive editors are not available. Use echo/printf/cat to write files.",
    "Info pages are not available; try `man CMD` or `CMD --help`.",
];

/// Whether `tail`, what follows `command not found` on a line, is what the
/// interpreter writes there: nothing, a look-alike guess or one of its hints. Any
/// other line is a command's own output (`cat build.log >&2`) and is left as it is.
fn interpreters_tail(tail: &str) -> bool {
    if tail.is_empty() {
        return true;
    }
    let Some(hint) = tail.strip_prefix(". ") else { return false };
    (hint.starts_with("Did you mean: ") && hint.ends_with('?')) || INTERPRETER_HINTS.contains(&hint)
}

/// For a line `bash: [line N: ]NAME: command not found[TAIL]` as the interpreter
/// writes it: the line up to and with `command not found`, and NAME.
fn not_found_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("bash: ")?;
    let at = rest.find(NOT_FOUND)?;
    if !interpreters_tail(&rest[at + NOT_FOUND.len()..]) {
        return None;
    }
    let who = &rest[..at];
    let name = match who.strip_prefix("line ") {
        Some(numbered) => {
            let (number, name) = numbered.split_once(": ")?;
            number.bytes().all(|b| b.is_ascii_digit()).then_some(name)?
        }
        None => who,
    };
    let head_len = "bash: ".len() + at + NOT_FOUND.len();
    Some((&line[..head_len], name))
}

/// What to tell an agent that ran `name`, a program this sandbox does not have.
fn hint(name: &str) -> Option<&'static str> {
    Some(match name {
        "python2" => "python3 is here (CPython 3.14 with its standard library)",
        "pip" | "pip3" | "pipx" | "uv" | "uvx" | "poetry" | "conda" => {
            "Nothing can be installed in this sandbox; python3 has its standard library"
        }
        "pytest" | "ipython" | "jupyter" => {
            "python3 is here with its standard library only (unittest, doctest)"
        }
        "node" | "nodejs" | "npm" | "npx" | "yarn" | "pnpm" | "bun" | "deno" | "tsc" => {
            "No JavaScript runtime in this sandbox; jq, awk and sed are here for data and text"
        }
        "perl" | "ruby" | "php" | "lua" | "Rscript" => {
            "No such interpreter in this sandbox; awk, sed and jq are here for text and data"
        }
        "git" => {
            "No git in this sandbox: the files are in its mounts (ls /), and diff compares two files"
        }
        "gcc" | "g++" | "cc" | "c++" | "clang" | "cmake" | "rustc" | "cargo" | "go" | "javac"
        | "java" | "mvn" | "gradle" | "dotnet" => {
            "Nothing can be compiled or built in this sandbox"
        }
        "sqlite3" | "psql" | "mysql" | "mariadb" | "redis-cli" | "mongosh" => {
            "No database client in this sandbox; the databases an operator configured are offered as tools of their own"
        }
        "ssh" | "scp" | "sftp" | "rsync" | "nc" | "ncat" | "telnet" | "ftp" | "ping" | "dig"
        | "nslookup" => "This sandbox has no network",
        "apt" | "apt-get" | "dpkg" | "yum" | "dnf" | "rpm" | "pacman" | "brew" | "apk" | "snap" => {
            "Nothing can be installed in this sandbox"
        }
        "sudo" | "su" | "doas" => {
            "There are no users to switch to: commands run with what the mounts allow (read-only mounts stay read-only)"
        }
        "docker" | "podman" | "kubectl" | "systemctl" | "service" => {
            "No containers or services in this sandbox"
        }
        "vi" | "vim" | "nvim" | "nano" | "emacs" | "less" | "more" | "man" | "top" | "htop" => {
            "Nothing interactive runs here: write files with printf, cat > FILE or sed -i, and read them with cat, head or sed -n"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::explain;

    #[test]
    fn the_interpreters_hints_are_replaced_by_true_ones() {
        let cases = [
            (
                "bash: line 1: ssh: command not found. SSH requires the 'ssh' feature. Enable with: features = [\"ssh\"]\n",
                "bash: line 1: ssh: command not found. This sandbox has no network\n",
            ),
            (
                "bash: line 3: rsync: command not found. Network access is limited to curl/wget.\n",
                "bash: line 3: rsync: command not found. This sandbox has no network\n",
            ),
            (
                "bash: line 1: perl: command not found. Did you mean: curl, pr?\n",
                "bash: line 1: perl: command not found. No such interpreter in this sandbox; awk, sed and jq are here for text and data\n",
            ),
            // Nothing better to say than bash: its plain message, no guesses.
            (
                "bash: line 1: frobnicate: command not found. Did you mean: x?\n",
                "bash: line 1: frobnicate: command not found\n",
            ),
            ("bash: foo: command not found\n", "bash: foo: command not found\n"),
        ];
        for (given, want) in cases {
            assert_eq!(explain(given), want, "{given}");
        }
    }

    #[test]
    fn other_lines_are_left_alone() {
        let text = "grep: x: No such file or directory\nsaid: command not found. really\nbash: line x: y: command not found. z\n";
        assert_eq!(explain(text), text);
        // A command's own output that looks like the interpreter's line keeps its
        // words (`cat build.log >&2`).
        let logged = "bash: line 7: mydata: command not found, keep THIS payload\nbash: git: command not found -- user data\nbash: git: command not found. Did you mean: gut\n";
        assert_eq!(explain(logged), logged);
        let mixed = "a\nbash: line 2: uv: command not found. Did you mean: mv?\nb";
        assert_eq!(
            explain(mixed),
            "a\nbash: line 2: uv: command not found. Nothing can be installed in this sandbox; python3 has its standard library\nb"
        );
    }
}
