//! The filestore component as its build made it: the guest crate (`guest/`) built for
//! `wasm32-wasip2` by this crate's build script, embedded compressed (Brotli), with the
//! versions `filestore --version` prints.
//!
//! A host runs it through `filestore-sandbox`, whose engine deserialises the
//! precompiled form its own build script makes from these bytes; the bytes
//! themselves serve a fallback compilation, `filestore component` and the tests.

/// The component compressed: a start deserialises the precompiled artifact and never
/// needs the component itself, so the binary carries it in a quarter of its size.
static COMPONENT_COMPRESSED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/filestore.wasm.br"));

/// The component's length in bytes, decompressed.
pub const COMPONENT_LEN: &str = env!("FILESTORE_COMPONENT_LEN");

/// The first 12 hex digits of the SHA-256 of [`component`]: tells two builds of one
/// version apart.
pub const COMPONENT_SHA256: &str = env!("FILESTORE_COMPONENT_SHA256");

/// The WIT package the component implements, `name@version`
/// (`filestore:component@0.11.0`), from the `package` line of `wit/filestore.wit`.
pub const WIT_PACKAGE_VERSION: &str = env!("FILESTORE_WIT_PACKAGE");

/// What this build carries, for `filestore --version` and embedders: the crates'
/// version (one for the workspace), the component's (its crate version and the start
/// of the SHA-256 of [`component`]) and the WIT package it implements, one per line
/// after the first.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\ncomponent: filestore-guest ",
    env!("CARGO_PKG_VERSION"),
    " (sha256 ",
    env!("FILESTORE_COMPONENT_SHA256"),
    ")\nwit: ",
    env!("FILESTORE_WIT_PACKAGE"),
);

/// The component's bytes (what `filestore component` writes), decompressed on first
/// use and kept.
pub fn component() -> &'static [u8] {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES.get_or_init(|| {
        let len: usize = COMPONENT_LEN.parse().expect("a length");
        decompress(COMPONENT_COMPRESSED, len)
            .expect("the build script compressed the embedded component")
    })
}

/// Bytes a build script embedded with its `write_brotli` (`build_support.rs`: the
/// component here, the precompiled artifact in `filestore-sandbox`), decompressed;
/// `len`, their known length, sizes the buffer once and is checked: bytes of another
/// length (a truncated or mismatched embedding) are an `InvalidData` error, never a
/// shorter artifact handed on.
pub fn decompress(compressed: &[u8], len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::with_capacity(len);
    // One byte past `len` is enough to tell a longer stream; the rest is not read.
    brotli::Decompressor::new(compressed, 1 << 16).take(len as u64 + 1).read_to_end(&mut out)?;
    if out.len() != len {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "the embedded bytes decompress to {}{} bytes where the build recorded {len}",
                if out.len() > len { "more than " } else { "" },
                out.len().min(len)
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_component_decompresses_to_its_length_and_is_a_component() {
        let bytes = super::component();
        assert_eq!(bytes.len().to_string(), super::COMPONENT_LEN);
        // A component's preamble: the wasm magic, then version 0x0d and layer 1.
        assert_eq!(&bytes[..8], b"\0asm\x0d\0\x01\0");
    }

    #[test]
    fn a_length_other_than_the_recorded_one_is_refused() {
        let len = super::component().len();
        for wrong in [len - 1, len + 1, 0] {
            let e = super::decompress(super::COMPONENT_COMPRESSED, wrong).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{wrong}: {e}");
            assert!(e.to_string().contains(&format!("recorded {wrong}")), "{e}");
        }
        assert_eq!(super::decompress(super::COMPONENT_COMPRESSED, len).unwrap().len(), len);
    }
}
