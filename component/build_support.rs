//! What the component's and the sandbox's build scripts share (`#[path]`-included by
//! both): where a long step says what it is doing, and how an artifact is embedded.

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

/// `bytes` deflated at `level` into `dest`, which the crate embeds (`include_bytes!`)
/// and inflates when it needs them.
pub fn write_deflated(bytes: &[u8], dest: &std::path::Path, level: flate2::Compression) {
    use std::io::Write;
    let mut z = flate2::write::DeflateEncoder::new(Vec::new(), level);
    z.write_all(bytes).expect("deflating in memory");
    let deflated = z.finish().expect("deflating in memory");
    std::fs::write(dest, deflated).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}
