//! PDF pages rendered as PNG images inside the component
//! (docs/architecture.md#pdf-pages): what an agent gets for a page without a text
//! layer (a scan), or for any page when it asks (`render: "all"`, a diagram).
//!
//! The rasteriser is `hayro` (pure Rust, no unsafe, MIT/Apache-2.0): the most
//! complete pure-Rust PDF renderer, and it needs nothing of the host — no fonts
//! from the system (the 14 standard fonts are embedded), no threads, no clock — so
//! the component imports nothing new. Its PNG is encoded here with the `png` crate
//! (already in the tree through hayro's `vello_cpu`), as grayscale when the page is
//! gray (a scan usually is: a third of the bytes of RGB).
//!
//! Bounds, because a PDF is a program of sorts and hayro decodes what the page asks
//! for without limits of its own: before a page is drawn, [`preflight`] walks every
//! object the page reaches (its content, resources, fonts, images, forms, patterns,
//! annotations; not its parent) and refuses it as `too-large` when a stream inflates
//! past [`super::pdf::MAX_STREAM_BYTES`], the page's streams together past
//! [`MAX_PAGE_DECODED_BYTES`], an image has more than [`MAX_IMAGE_PIXELS`] pixels,
//! the page reaches more than [`MAX_PAGE_OBJECTS`] objects, or a form or pattern draws
//! itself. The output is at most
//! [`MAX_SIDE_PX`] on a side and [`MAX_PIXELS`] in all (a page of any size is scaled
//! down), and its PNG at most [`MAX_PNG_BYTES`] (a larger one is drawn again at half
//! the scale). CPU is the session's deadline and fuel; memory the session's cap.

use serde::{Deserialize, Serialize};

// The rasteriser itself: the component's runtime only (hayro and png are not built
// for a native host that shares these types).
#[cfg(feature = "runtime")]
mod draw;
#[cfg(feature = "runtime")]
pub use draw::*;

/// Pixels per PDF point at which a page is drawn (144 dpi: a US Letter page is
/// 1224×1584), unless the caps below make it smaller.
pub const SCALE: f32 = 2.0;
/// Longest side of a rendered page, pixels (what vision models take without
/// scaling it again).
pub const MAX_SIDE_PX: u32 = 1600;
/// Most pixels of a rendered page.
pub const MAX_PIXELS: u64 = 2_000_000;
/// Largest PNG of one page, bytes (base64 makes it a third larger).
pub const MAX_PNG_BYTES: usize = 3 * 1024 * 1024;
/// Most images in one read's answer; the pages after the last one that fits are
/// left to the next read (`next_page`).
pub const MAX_IMAGES_PER_READ: usize = 4;
/// Most pixels of one image a page draws (a 600 dpi US Letter scan is 33.7 M).
pub const MAX_IMAGE_PIXELS: u64 = 40_000_000;
/// Most bytes all the streams a page reaches may inflate to together.
pub const MAX_PAGE_DECODED_BYTES: u64 = 96 * 1024 * 1024;
/// Most objects one page may reach.
pub const MAX_PAGE_OBJECTS: usize = 50_000;
/// Times a PNG over [`MAX_PNG_BYTES`] is drawn again at half the scale.
const SHRINK_TRIES: u32 = 3;

/// One page drawn as a PNG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageImage {
    /// Always `image/png`.
    pub mime_type: String,
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// The PNG's size in bytes.
    pub bytes: u64,
    /// The PNG, as standard base64 in JSON.
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
}

/// Which pages of a PDF read are drawn as images.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RenderMode {
    /// The pages without text (a scan): the default.
    #[default]
    Auto,
    /// Every page read (its text too): diagrams, figures, layout.
    All,
    /// None: text only.
    None,
}

/// Bytes as standard base64 in JSON.
mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_of_any_size_fit_the_caps() {
        // US Letter at the full scale.
        assert_eq!(fit_scale(612.0, 792.0), Some(2.0));
        for (w, h) in
            [(612.0, 792.0), (14_400.0, 14_400.0), (1e9, 10.0), (3.0, 1e7), (2384.0, 3370.0)]
        {
            let s = fit_scale(w, h).unwrap();
            let (pw, ph) = ((w * s) as u64, (h * s) as u64);
            assert!(pw <= MAX_SIDE_PX as u64 && ph <= MAX_SIDE_PX as u64, "{w}×{h}: {pw}×{ph}");
            assert!(pw * ph <= MAX_PIXELS, "{w}×{h}: {pw}×{ph}");
        }
        for (w, h) in [(0.0, 792.0), (f32::NAN, 1.0), (f32::INFINITY, 1.0), (-5.0, 10.0)] {
            assert_eq!(fit_scale(w, h), None, "{w}×{h}");
        }
    }

    #[test]
    fn gray_pages_encode_as_grayscale() {
        let gray: Vec<u8> = [[0u8, 0, 0, 255], [255, 255, 255, 255]].repeat(8).concat();
        let png = encode_png(&gray, 4, 4).unwrap();
        let info = png::Decoder::new(std::io::Cursor::new(&png)).read_info().unwrap();
        assert_eq!(info.info().color_type, png::ColorType::Grayscale);
        let red: Vec<u8> = [[255u8, 0, 0, 255]].repeat(16).concat();
        let png = encode_png(&red, 4, 4).unwrap();
        let info = png::Decoder::new(std::io::Cursor::new(&png)).read_info().unwrap();
        assert_eq!(info.info().color_type, png::ColorType::Rgb);
    }

    #[test]
    fn a_flate_bomb_is_counted_not_inflated() {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![0u8; 8 << 20]).unwrap();
        let bomb = z.finish().unwrap();
        assert_eq!(draw::flate_size(&bomb, 1 << 20), 1 << 20, "stops at the limit");
        assert_eq!(draw::flate_size(&bomb, 16 << 20), 8 << 20);
        assert_eq!(draw::flate_size(b"not deflate", 100), 11);
    }
}
