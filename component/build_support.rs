//! What the component's and the sandbox's build scripts share (`#[path]`-included by
//! both): where a long step says what it is doing. It uses nothing but `std`: the
//! component's build script has no dependencies (build.rs says why).

use std::env;

/// The controlling terminal, since cargo keeps a build script's own output until it
/// fails. Nothing without a terminal (CI logs) or with `FILESTORE_BUILD_QUIET` set.
pub struct Progress(Option<std::fs::File>);

impl Progress {
    pub fn open() -> Progress {
        println!("cargo:rerun-if-env-changed=FILESTORE_BUILD_QUIET");
        if env::var_os("FILESTORE_BUILD_QUIET").is_some() {
            return Progress(None);
        }
        Progress(std::fs::OpenOptions::new().write(true).open("/dev/tty").ok())
    }

    pub fn say(&mut self, line: &str) {
        use std::io::Write;
        if let Some(tty) = &mut self.0 {
            // Cargo's progress bar may hold the line: start a fresh one.
            let _ = writeln!(tty, "\r{line}");
        }
    }

    /// The terminal as a child's stderr (the nested cargo's `Compiling ...` lines).
    #[allow(dead_code)] // the sandbox's script runs no child
    pub fn stderr(&self) -> Option<std::fs::File> {
        self.0.as_ref()?.try_clone().ok()
    }
}
