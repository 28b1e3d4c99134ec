//! The filestore component as its build made it: the guest crate (`guest/`) built for
//! `wasm32-wasip2` by this crate's build script, and the WIT package version
//! `filestore --version` prints.
//!
//! A host runs it through `filestore-sandbox`, whose build script precompiles it and
//! embeds both, compressed (Brotli) and decompressed here: a start deserialises the
//! precompiled form; the component itself serves a fallback compilation,
//! `filestore component` and the tests.

/// The WIT package the component implements, `name@version`
/// (`filestore:component@0.11.0`), from the `package` line of `wit/filestore.wit`.
pub const WIT_PACKAGE_VERSION: &str = env!("FILESTORE_WIT_PACKAGE");

/// Bytes the sandbox's build script embedded with its `write_brotli` (the component
/// and its precompiled artifact), decompressed;
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
    fn compressed(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut packed = Vec::new();
        let mut w = brotli::CompressorWriter::new(&mut packed, 1 << 16, 5, 24);
        w.write_all(bytes).unwrap();
        drop(w);
        packed
    }

    #[test]
    fn a_length_other_than_the_recorded_one_is_refused() {
        let bytes: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let packed = compressed(&bytes);
        let len = bytes.len();
        for wrong in [len - 1, len + 1, 0] {
            let e = super::decompress(&packed, wrong).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{wrong}: {e}");
            assert!(e.to_string().contains(&format!("recorded {wrong}")), "{e}");
        }
        assert_eq!(super::decompress(&packed, len).unwrap(), bytes);
    }

    #[test]
    fn the_component_this_build_made_is_a_component() {
        // What the sandbox's build script receives as `DEP_FILESTORE_COMPONENT_WASM`.
        let bytes = std::fs::read(concat!(env!("OUT_DIR"), "/filestore.wasm")).unwrap();
        // A component's preamble: the wasm magic, then version 0x0d and layer 1.
        assert_eq!(&bytes[..8], b"\0asm\x0d\0\x01\0");
    }
}
