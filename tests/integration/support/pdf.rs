//! PDFs written byte by byte for the PDF-read tests: the objects given, a correct
//! cross-reference table and trailer. Hand-written rather than made by a PDF library
//! so that the hostile ones (a page tree that contains itself, a flate bomb, nesting
//! thousands deep) are exactly what they say.

/// A PDF whose objects are `objects` (object `i + 1` is `objects[i]`, its body
/// without `obj`/`endobj`), with object 1 as the catalog.
pub fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// A stream object's body: `dict` (without `/Length`) and its bytes.
pub fn stream(dict: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dict} /Length {} >>\nstream\n", bytes.len()).into_bytes();
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\nendstream");
    out
}

/// Objects 1 to 3 of a document of `n` pages: the catalog, the page tree (its kids
/// objects `first`, `first + 2`, ...: each page followed by its content) and
/// Helvetica.
fn head(n: usize, first: usize) -> Vec<Vec<u8>> {
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", first + 2 * i)).collect();
    vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    ]
}

/// A plain PDF with one page per entry of `pages`, each page showing its text (one
/// line per `\n`) in Helvetica. Pages without text (`""`) have an empty content.
pub fn text_pdf(pages: &[&str]) -> Vec<u8> {
    // 1 catalog, 2 pages, 3 font, then per page: the page and its content.
    let mut objects = head(pages.len(), 4);
    for (i, text) in pages.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                5 + 2 * i
            )
            .into_bytes(),
        );
        let mut content = String::new();
        if !text.is_empty() {
            content.push_str("BT /F1 12 Tf 72 720 Td 14 TL\n");
            for line in text.lines() {
                let escaped = line.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
                content.push_str(&format!("({escaped}) Tj T*\n"));
            }
            content.push_str("ET");
        }
        objects.push(stream("", content.as_bytes()));
    }
    pdf(&objects)
}

/// One page of [`scan_pdf`].
pub enum Page<'a> {
    /// A page with this text in Helvetica (a text layer).
    Text(&'a str),
    /// A page that is only an image (a scan): [`SCAN_W`]×[`SCAN_H`] gray pixels,
    /// black in its top-left quarter, white elsewhere, drawn over the whole page.
    Scan,
}

/// Pixels across the image of a [`Page::Scan`].
pub const SCAN_W: usize = 200;
/// Pixels down the image of a [`Page::Scan`].
pub const SCAN_H: usize = 260;

/// The gray pixels of a [`Page::Scan`], flate-compressed as a PDF image stream holds
/// them: 0 (black) where `x < W/2 && y < H/2`, 255 elsewhere.
pub fn scan_pixels() -> Vec<u8> {
    use std::io::Write;
    let mut raw = Vec::with_capacity(SCAN_W * SCAN_H);
    for y in 0..SCAN_H {
        for x in 0..SCAN_W {
            raw.push(if x < SCAN_W / 2 && y < SCAN_H / 2 { 0 } else { 255 });
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).unwrap();
    z.finish().unwrap()
}

/// A US Letter PDF of `pages`, text pages and scanned ones (an image XObject and
/// nothing else: no text layer), as a scanner's PDF is made.
pub fn scan_pdf(pages: &[Page<'_>]) -> Vec<u8> {
    // 1 catalog, 2 pages, 3 font, 4 the scan's image, then per page: page, content.
    let mut objects = head(pages.len(), 5);
    objects.push(
        stream(
            &format!(
                "/Type /XObject /Subtype /Image /Width {SCAN_W} /Height {SCAN_H} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode"
            ),
            &scan_pixels(),
        ),
    );
    for (i, page) in pages.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> /Contents {} 0 R >>",
                6 + 2 * i
            )
            .into_bytes(),
        );
        let content = match page {
            Page::Text(text) => {
                let escaped = text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
                format!("BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET")
            }
            Page::Scan => "q 612 0 0 792 0 0 cm /Im1 Do Q".to_string(),
        };
        objects.push(stream("", content.as_bytes()));
    }
    pdf(&objects)
}

/// A one-page PDF whose page has `resources` (the inside of its `/Resources`
/// dictionary), draws `content`, and is `media_box` big; `extra` objects follow as
/// objects 5, 6, ... (the catalog is 1, the pages 2, the page 3, its content 4).
pub fn one_page(media_box: &str, resources: &str, content: &[u8], extra: &[Vec<u8>]) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox {media_box} /Resources << {resources} >> /Contents 4 0 R >>"
        )
        .into_bytes(),
        stream("", content),
    ];
    objects.extend(extra.iter().cloned());
    pdf(&objects)
}

/// A one-page US Letter PDF whose page is a scan of `w`×`h` gray pixels, `bits` per
/// pixel, black in its top-left quarter, flate-compressed: a real scanner's size
/// (5100×6600 at 1 bit is a 600 dpi page).
pub fn big_scan_pdf(w: usize, h: usize, bits: usize) -> Vec<u8> {
    use std::io::Write;
    let row = (w * bits).div_ceil(8);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let (black, white) = (vec![0u8; row / 2], vec![0xffu8; row - row / 2]);
    let all_white = vec![0xffu8; row];
    for y in 0..h {
        if y < h / 2 {
            z.write_all(&black).unwrap();
            z.write_all(&white).unwrap();
        } else {
            z.write_all(&all_white).unwrap();
        }
    }
    let image = stream(
        &format!(
            "/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent {bits} /Filter /FlateDecode"
        ),
        &z.finish().unwrap(),
    );
    one_page(
        "[0 0 612 792]",
        "/XObject << /Im1 5 0 R >>",
        b"q 612 0 0 792 0 0 cm /Im1 Do Q",
        &[image],
    )
}
