//! Running a command so that a failure shows everything needed to reproduce it:
//! the command line, its directory, its status and both outputs.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A command that ran to its end.
pub struct Ran {
    /// The command line, as `Command`'s debug form prints it (program and quoted
    /// arguments, with the environment it was given).
    pub command: String,
    /// Where it ran.
    pub dir: PathBuf,
    /// What it returned and printed.
    pub output: Output,
}

impl Ran {
    /// Its stdout, lossily decoded.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Its stderr, lossily decoded.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Everything about the run, for a failure message.
    pub fn describe(&self) -> String {
        format!(
            "command: {}\ndirectory: {}\nstatus: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.command,
            self.dir.display(),
            self.output.status,
            self.stdout(),
            self.stderr()
        )
    }

    /// Itself, when it exited 0; otherwise the test fails with [`Ran::describe`].
    #[track_caller]
    pub fn success(self) -> Ran {
        assert!(self.output.status.success(), "the command failed:\n{}", self.describe());
        self
    }
}

/// Runs `command` to its end (stdin closed unless the command set it). A command
/// that cannot start fails the test naming the program, with `hint` (what to
/// install) when given.
#[track_caller]
pub fn run_with_hint(command: &mut Command, hint: &str) -> Ran {
    let dir = command
        .get_current_dir()
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
    let line = format!("{command:?}");
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "cannot run {line} in {}: {e}{}",
            dir.display(),
            if hint.is_empty() { String::new() } else { format!(" ({hint})") }
        )
    });
    Ran { command: line, dir, output }
}

/// [`run_with_hint`] without a hint.
#[track_caller]
pub fn run(command: &mut Command) -> Ran {
    run_with_hint(command, "")
}
