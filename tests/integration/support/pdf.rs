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

/// A plain PDF with one page per entry of `pages`, each page showing its text (one
/// line per `\n`) in Helvetica. Pages without text (`""`) have an empty content.
pub fn text_pdf(pages: &[&str]) -> Vec<u8> {
    // 1 catalog, 2 pages, 3 font, then per page: the page and its content.
    let n = pages.len();
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
            .to_vec(),
    ];
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
