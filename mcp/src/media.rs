//! Images and audio read through `filestore_read` reach an MCP client as image or
//! audio content (base64 with its MIME type), as the official filesystem server's
//! `read_media_file` does, so a multimodal model can look at them. The component
//! reads text; it reports other files as binary, and this layer then fetches the
//! bytes from the host side of the mount (the same confined volume) when the file
//! is an image or audio type by its extension and within [`MAX_MEDIA_BYTES`]. Other
//! binaries keep the component's message.
//!
//! A PDF's pages the component drew (docs/architecture.md#pdf-pages) arrive the
//! same way: each PNG as image content after the text that names it, its base64
//! taken out of the structured content so it does not travel twice.

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use super::sandbox::Sandbox;

/// Largest image or audio file returned inline (base64 makes it a third larger).
pub const MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;

/// The MIME type of an image or audio file, by extension.
pub fn media_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        _ => return None,
    })
}

/// The MCP result of a PDF read: its text, then each page image the component drew
/// as `image/png` content, in page order; the structured content keeps each image's
/// size but not its data.
pub(crate) fn pdf_pages(mut out: filestore_runtime::session::CallOutput) -> CallToolResult {
    let mut images = Vec::new();
    if let Some(pages) = out.json.pointer_mut("/pdf/pages").and_then(Value::as_array_mut) {
        for image in pages.iter_mut().filter_map(|p| p.get_mut("image")) {
            let data = image.as_object_mut().and_then(|i| i.remove("data"));
            let mime = image["mime_type"].as_str().unwrap_or("image/png").to_string();
            if let Some(Value::String(data)) = data {
                images.push(ContentBlock::image(data, mime));
            }
        }
    }
    let mut result = super::reply::success(out);
    result.content.extend(images);
    result
}

/// Adds the image or audio content of a `filestore_read` result that the component
/// found binary; returns `result` unchanged otherwise. A file too large or that
/// cannot be read gets a sentence instead of its bytes.
pub(crate) fn attach(
    s: &mut Sandbox,
    out_json: &Value,
    mut result: CallToolResult,
) -> CallToolResult {
    if out_json.get("content").and_then(Value::as_str) != Some("binary") {
        return result;
    }
    let Some(path) = out_json.pointer("/entry/path").and_then(Value::as_str) else { return result };
    let Some(mime) = media_type(path) else { return result };
    let size = out_json.pointer("/entry/size").and_then(Value::as_u64).unwrap_or(0);
    let note = if size > MAX_MEDIA_BYTES {
        format!(
            "{path} is {mime}, {size} bytes: larger than the {MAX_MEDIA_BYTES}-byte limit for inline media"
        )
    } else {
        match super::resources::read_bytes(s, path, MAX_MEDIA_BYTES) {
            Ok((_, bytes)) => {
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                result.content.push(if mime.starts_with("audio/") {
                    ContentBlock::audio(data, mime)
                } else {
                    ContentBlock::image(data, mime)
                });
                format!("{path} is {mime}, {} bytes; its content follows", bytes.len())
            }
            Err(e) => format!("{path} is {mime} but could not be read as media: {}", e.message),
        }
    };
    // The note replaces the component's "binary file" text.
    result.content[0] = ContentBlock::text(note);
    result
}
