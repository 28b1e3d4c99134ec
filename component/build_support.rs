//! What the component's and the sandbox's build scripts share (`#[path]`-included by
//! both): where a long step says what it is doing, and how an artifact is embedded (compressed).

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

/// `bytes` compressed with Brotli into `dest`, which the crate embeds (`include_bytes!`)
/// and decompresses with [`filestore_component::decompress`] when it needs them.
///
/// Brotli rather than deflate: on the precompiled component (59 MB of machine code)
/// quality 5 gives 19 MB where deflate gave 29 MB at its fast level and 22 MB at its
/// best (ten times slower), and it decodes at ~150 MB/s; the crate is in the binary
/// already (the PDF reader's fonts). Quality 5 takes ~3 s on that artifact; 9 saves a
/// further 8% for nine times the time.
pub fn write_brotli(bytes: &[u8], dest: &std::path::Path) {
    use std::io::Write;
    let mut packed = Vec::with_capacity(bytes.len() / 3);
    {
        let mut w =
            brotli::CompressorWriter::new(&mut packed, 1 << 16, BROTLI_QUALITY, BROTLI_WINDOW);
        w.write_all(bytes).expect("compressing in memory");
    }
    std::fs::write(dest, packed).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}

/// Brotli's quality (0–11) for the embedded artifacts; see [`write_brotli`].
const BROTLI_QUALITY: u32 = 5;
/// Brotli's window, log2 bytes: its largest (16 MiB), which the decoder allocates once.
const BROTLI_WINDOW: u32 = 24;
