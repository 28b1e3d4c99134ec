//! The rasteriser of [`super`]: a PDF opened with hayro, its pages checked by
//! [`preflight`] and drawn as PNG.

use std::sync::Arc;

use hayro::hayro_syntax::object::{Dict, MaybeRef, Name, ObjRef, Object, Stream};
use hayro::hayro_syntax::page::Page;
use hayro::hayro_syntax::xref::XRef;
use hayro::hayro_syntax::{Filter, LoadPdfError, Pdf};

use super::*;
use crate::error::{Error, ErrorKind, Result};

/// A PDF opened for drawing its pages (the same bytes the text came from, shared).
pub struct Renderer {
    pdf: Pdf,
}

impl Renderer {
    /// Opens the PDF `bytes` at `path` (its errors name the file).
    pub fn open(path: &str, bytes: Arc<Vec<u8>>) -> Result<Renderer> {
        match Pdf::new(bytes) {
            Ok(pdf) => Ok(Renderer { pdf }),
            Err(LoadPdfError::Decryption(e)) => Err(Error::at(
                ErrorKind::Unsupported,
                path,
                format!(
                    "the PDF is encrypted ({e:?}); filestore renders no password-protected PDF"
                ),
            )),
            Err(LoadPdfError::Invalid) => Err(Error::at(
                ErrorKind::InvalidArgument,
                path,
                "not a readable PDF: the renderer found no page tree",
            )),
        }
    }

    /// Page `n` (from 1) drawn within the bounds above; `path` names it in errors.
    pub fn render(&self, path: &str, n: u32) -> Result<PageImage> {
        let at = format!("{path} (page {n})");
        let pages = self.pdf.pages();
        let page = pages.get(n as usize - 1).ok_or_else(|| {
            Error::at(
                ErrorKind::InvalidArgument,
                &at,
                format!("the renderer finds {} pages in this PDF, not {n}", pages.len()),
            )
        })?;
        preflight(page).map_err(|why| Error::at(ErrorKind::TooLarge, &at, why))?;
        let (w, h) = page.render_dimensions();
        let mut scale = fit_scale(w, h).ok_or_else(|| {
            Error::at(
                ErrorKind::InvalidArgument,
                &at,
                format!("the page is {w}×{h} points: nothing to draw"),
            )
        })?;
        for _ in 0..=SHRINK_TRIES {
            // A page far longer than wide (or the reverse) fits 1600 pixels only
            // with its short side under one: there is nothing to see.
            if w.min(h) * scale < 1.0 {
                return Err(Error::at(
                    ErrorKind::InvalidArgument,
                    &at,
                    format!(
                        "the page is {w}×{h} points: within {MAX_SIDE_PX} pixels a side its short side is under one pixel, nothing to draw (render \"none\" reads its text)"
                    ),
                ));
            }
            let image = draw(page, scale).map_err(|e| e.with_path(at.as_str()))?;
            if image.data.len() <= MAX_PNG_BYTES {
                return Ok(image);
            }
            scale /= 2.0;
        }
        Err(Error::at(
            ErrorKind::TooLarge,
            &at,
            format!("its PNG stays over {MAX_PNG_BYTES} bytes even at a quarter of the size"),
        ))
    }
}

/// The scale that fits a `w`×`h`-point page within [`MAX_SIDE_PX`] and
/// [`MAX_PIXELS`], at most [`SCALE`]; none for a page without area (or whose size
/// is not a number).
pub fn fit_scale(w: f32, h: f32) -> Option<f32> {
    if !(w.is_finite() && h.is_finite() && w >= 1.0 && h >= 1.0) {
        return None;
    }
    let side = MAX_SIDE_PX as f32 / w.max(h);
    let area = (MAX_PIXELS as f32 / (w * h)).sqrt();
    Some(SCALE.min(side).min(area))
}

/// `page` drawn at `scale` on white, encoded as PNG.
fn draw(page: &Page<'_>, scale: f32) -> Result<PageImage> {
    use hayro::vello_cpu::color::palette::css::WHITE;
    let cache = hayro::RenderCache::new();
    let settings = hayro::hayro_interpret::InterpreterSettings::default();
    let pixmap = hayro::render(
        page,
        &cache,
        &settings,
        &hayro::RenderSettings::default(),
        &hayro::PixmapSettings { x_scale: scale, y_scale: scale, bg_color: WHITE },
    );
    let (width, height) = (u32::from(pixmap.width()), u32::from(pixmap.height()));
    let data = encode_png(pixmap.data_as_u8_slice(), width, height)?;
    Ok(PageImage { mime_type: "image/png".into(), width, height, bytes: data.len() as u64, data })
}

/// Opaque RGBA pixels (drawn on white) as a PNG: grayscale when every pixel is
/// gray, RGB otherwise (no alpha channel: the page is opaque).
pub fn encode_png(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>> {
    let gray = rgba.chunks_exact(4).all(|p| p[0] == p[1] && p[1] == p[2]);
    let (color, samples): (png::ColorType, Vec<u8>) = if gray {
        (png::ColorType::Grayscale, rgba.chunks_exact(4).map(|p| p[0]).collect())
    } else {
        (png::ColorType::Rgb, rgba.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect())
    };
    let mut out = Vec::new();
    let failed = |e: png::EncodingError| {
        Error::new(ErrorKind::Backend, format!("encoding a rendered page as PNG failed: {e}"))
    };
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Balanced);
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(&samples).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

/// Why `page` may not be drawn within the bounds (see the module's doc), if it may
/// not: every dictionary, array and stream it reaches is visited once, each stream's
/// inflated size and each image's pixels counted, without decoding anything whole.
pub fn preflight(page: &Page<'_>) -> std::result::Result<(), String> {
    let mut walk = Walk {
        xref: page.xref(),
        seen: Default::default(),
        stack: Vec::new(),
        decoded: 0,
        visits: 0,
    };
    walk.push(MaybeRef::NotRef(Object::Dict(page.raw().clone())))?;
    let res = page.resources();
    for d in [
        &res.ext_g_states,
        &res.fonts,
        &res.properties,
        &res.color_spaces,
        &res.x_objects,
        &res.patterns,
        &res.shadings,
    ] {
        walk.push(MaybeRef::NotRef(Object::Dict(d.clone())))?;
    }
    if let Some(r) = drawing_cycle(page) {
        return Err(format!(
            "form or pattern {} draws itself (through its resources): the page never ends",
            object_name(r.obj_number, r.gen_number)
        ));
    }
    while let Some(obj) = walk.stack.pop() {
        match obj {
            Object::Dict(d) => walk.entries(&d)?,
            Object::Array(a) => {
                for value in a.raw_iter() {
                    walk.push(value)?;
                }
            }
            Object::Stream(s) => {
                walk.entries(s.dict())?;
                walk.stream(&s)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// An object as a PDF names it: `object 6 0 R`.
fn object_name(number: u32, generation: i32) -> String {
    format!("object {number} {generation} R")
}

/// A form XObject or pattern that draws itself through its resources, if the page has
/// one. hayro stops such a recursion at a depth of 50, but a form that draws itself
/// twice is 2^50 draws: such a page is refused before drawing. (Forms that are
/// distinct at every level but multiply alike are left to the call's deadline.)
fn drawing_cycle(page: &Page<'_>) -> Option<ObjRef> {
    let xref = page.xref();
    // What an object draws: the forms and patterns its resources name.
    let draws = |d: &Dict<'_>| -> Vec<ObjRef> {
        let Some(res) = d.get::<Dict<'_>>(b"Resources".as_slice()) else { return Vec::new() };
        [b"XObject".as_slice(), b"Pattern".as_slice()]
            .iter()
            .filter_map(|k| res.get::<Dict<'_>>(*k))
            .flat_map(|named| {
                named.entries().filter_map(|(_, v)| v.as_obj_ref()).collect::<Vec<_>>()
            })
            .collect()
    };
    let children = |r: ObjRef| -> Vec<ObjRef> {
        match xref.get::<Object<'_>>(r.into()) {
            Some(Object::Stream(s)) => draws(s.dict()),
            Some(Object::Dict(d)) => draws(&d),
            _ => Vec::new(),
        }
    };
    let res = page.resources();
    let roots: Vec<ObjRef> = [&res.x_objects, &res.patterns]
        .iter()
        .flat_map(|d| d.entries().filter_map(|(_, v)| v.as_obj_ref()).collect::<Vec<_>>())
        .collect();
    // Depth-first, without recursion (a chain of forms may be long): `open` holds the
    // objects on the current path, `done` those fully explored.
    let mut done = std::collections::HashSet::new();
    let mut open = std::collections::HashSet::new();
    for root in roots {
        let mut stack: Vec<(ObjRef, Vec<ObjRef>)> = Vec::new();
        if done.contains(&root) {
            continue;
        }
        open.insert(root);
        stack.push((root, children(root)));
        while let Some((node, pending)) = stack.last_mut() {
            let node = *node;
            match pending.pop() {
                Some(next) if open.contains(&next) => return Some(next),
                Some(next) if done.contains(&next) => {}
                Some(next) => {
                    if done.len() + open.len() > MAX_PAGE_OBJECTS {
                        return None;
                    }
                    open.insert(next);
                    let grand = children(next);
                    stack.push((next, grand));
                }
                None => {
                    open.remove(&node);
                    done.insert(node);
                    stack.pop();
                }
            }
        }
    }
    None
}

/// What [`preflight`] has seen so far, and what it has still to visit.
struct Walk<'a> {
    xref: &'a XRef,
    seen: std::collections::HashSet<ObjRef>,
    stack: Vec<Object<'a>>,
    decoded: u64,
    visits: usize,
}

impl<'a> Walk<'a> {
    /// Queues `value` (resolved, once per object) when it holds other objects.
    fn push(&mut self, value: MaybeRef<Object<'a>>) -> std::result::Result<(), String> {
        let obj = match value {
            MaybeRef::Ref(r) if self.seen.insert(r) => {
                match self.xref.get::<Object<'a>>(r.into()) {
                    Some(o) => o,
                    None => return Ok(()),
                }
            }
            MaybeRef::Ref(_) => return Ok(()),
            MaybeRef::NotRef(o) => o,
        };
        if matches!(obj, Object::Dict(_) | Object::Array(_) | Object::Stream(_)) {
            self.visits += 1;
            if self.visits > MAX_PAGE_OBJECTS {
                return Err(format!("the page reaches more than {MAX_PAGE_OBJECTS} objects"));
            }
            self.stack.push(obj);
        }
        Ok(())
    }

    /// Queues every value of `d` but its `/Parent` (the page tree above: other
    /// pages) and `/P` (an annotation's page).
    fn entries(&mut self, d: &Dict<'a>) -> std::result::Result<(), String> {
        for (key, value) in d.entries() {
            if key.as_ref() != b"Parent" && key.as_ref() != b"P" {
                self.push(value)?;
            }
        }
        Ok(())
    }

    /// Counts one stream: its pixels when it is an image, its inflated size.
    fn stream(&mut self, s: &Stream<'_>) -> std::result::Result<(), String> {
        let dict = s.dict();
        let id = s.obj_id();
        let is_image =
            dict.get::<Name<'_>>(b"Subtype".as_slice()).is_some_and(|n| n.as_ref() == b"Image");
        if is_image {
            let w = dict.get::<f32>(b"Width".as_slice()).unwrap_or(0.0).max(0.0) as u64;
            let h = dict.get::<f32>(b"Height".as_slice()).unwrap_or(0.0).max(0.0) as u64;
            if w.saturating_mul(h) > MAX_IMAGE_PIXELS {
                return Err(format!(
                    "image {} is {w}×{h} pixels; the limit is {MAX_IMAGE_PIXELS} pixels",
                    object_name(id.obj_number, id.gen_number)
                ));
            }
            // An image's decoded size is its pixels (hayro never decodes more than
            // Width×Height, whatever the JPEG header says); what is checked below is
            // the inflate before the image codec.
        }
        let size = inflated_size(s);
        if size > crate::ops::pdf::MAX_STREAM_BYTES as u64 {
            return Err(format!(
                "stream {} inflates past {} bytes (a decompression bomb?)",
                object_name(id.obj_number, id.gen_number),
                crate::ops::pdf::MAX_STREAM_BYTES
            ));
        }
        self.decoded += size;
        if self.decoded > MAX_PAGE_DECODED_BYTES {
            return Err(format!(
                "the page's streams inflate past {MAX_PAGE_DECODED_BYTES} bytes together"
            ));
        }
        Ok(())
    }
}

/// An upper bound of the bytes stream `s` decodes to before any image codec, never
/// more than one past the stream limit: the flate step counted by inflating into
/// nothing, the other general filters by their largest expansion.
fn inflated_size(s: &Stream<'_>) -> u64 {
    let cap = crate::ops::pdf::MAX_STREAM_BYTES as u64;
    let raw = s.raw_data();
    let mut size = raw.len() as u64;
    let mut first = true;
    for filter in s.filters() {
        size = match filter {
            // The first flate step is measured exactly: the common case, and the one
            // a bomb uses. A later one (after ASCII85, say) is bounded by deflate's
            // largest ratio.
            Filter::FlateDecode if first => flate_size(&raw, cap + 1),
            Filter::FlateDecode => size.saturating_mul(1032),
            // LZW emits at most a 4 KiB string per 9-bit code; run-length 128 bytes
            // per 2.
            Filter::LzwDecode => size.saturating_mul(4096 * 8 / 9),
            Filter::RunLengthDecode => size.saturating_mul(64),
            // The ASCII encodings shrink; image codecs are bounded by the pixels.
            _ => size,
        };
        first = matches!(filter, Filter::Crypt);
        if size > cap {
            break;
        }
    }
    size
}

/// The bytes `data` inflates to (zlib, else raw deflate, as hayro tries them),
/// counted up to `limit`; a stream that does not inflate counts as its own size (the
/// renderer then draws nothing of it).
pub(super) fn flate_size(data: &[u8], limit: u64) -> u64 {
    use std::io::Read;
    let count = |r: &mut dyn Read| -> Option<u64> {
        let n = std::io::copy(&mut r.take(limit), &mut std::io::sink()).ok()?;
        Some(n)
    };
    count(&mut flate2::read::ZlibDecoder::new(data))
        .or_else(|| count(&mut flate2::read::DeflateDecoder::new(data)))
        .unwrap_or(data.len() as u64)
}
