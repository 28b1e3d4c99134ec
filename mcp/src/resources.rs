//! Files as MCP resources: `resources/list` pages over a glob of every mount,
//! `resources/read` returns a file's text, or its bytes as a base64 blob.
//!
//! URIs are `filestore://` + the virtual path, each path segment percent-encoded
//! (RFC 3986 unreserved characters and `/` stay as they are):
//! `filestore:///workspace/src/main.rs`, `filestore:///scratch/a%20b.txt`.

use base64::Engine as _;
use filestore_guest::error::ErrorKind;
use filestore_guest::ops::read::{BINARY_SNIFF_BYTES, is_binary_prefix};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::ErrorData as McpError;
use rmcp::model::{ListResourcesResult, ReadResourceResult, Resource, ResourceContents};
use serde_json::{Value, json};

use super::reply::protocol_error;
use super::sandbox::Sandbox;

/// The URI scheme of file resources.
pub const URI_SCHEME: &str = "filestore";

/// Resources per `resources/list` page.
pub const RESOURCE_PAGE_SIZE: usize = 200;

/// Most files exposed as resources (the first ones the walk reaches: each directory's
/// entries before its subdirectories'). Every page walks the
/// mounts again, so this bounds what one `resources/list` costs on a huge tree;
/// files beyond it stay reachable through the tools.
pub const RESOURCE_WALK_LIMIT: usize = 10_000;

/// Largest file `resources/read` returns (text or blob). The bytes are held in memory
/// and a blob is base64-encoded (a third larger) in one message, so an unbounded read
/// of a multi-gigabyte file could exhaust the host's memory. Larger files page through
/// `filestore_read` with `encoding: base64`.
pub const RESOURCE_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// Bytes fetched from the component per page while `resources/read` assembles a file:
/// the component's largest page.
const RESOURCE_READ_PAGE: u64 = filestore_guest::vfs::limits::MAX_READ_PAGE_BYTES;

/// Characters escaped in a URI path: everything but unreserved characters and `/`.
const PATH_ESCAPES: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');

/// The URI of a virtual path.
pub(crate) fn uri_of(path: &str) -> String {
    format!("{URI_SCHEME}://{}", utf8_percent_encode(path, PATH_ESCAPES))
}

/// The virtual path of a URI; an error names what is wrong with it.
pub(crate) fn path_of(uri: &str) -> Result<String, McpError> {
    let bad = |why: &str| {
        McpError::invalid_params(
            format!("resource URI '{uri}': {why} (expected {URI_SCHEME}:///mount/path)"),
            None,
        )
    };
    let rest = uri
        .strip_prefix(URI_SCHEME)
        .and_then(|r| r.strip_prefix("://"))
        .ok_or_else(|| bad("not a filestore URI"))?;
    if !rest.starts_with('/') {
        return Err(bad("the path must be absolute (three slashes after the scheme)"));
    }
    if rest.contains(['?', '#']) {
        return Err(bad("queries and fragments are not supported"));
    }
    percent_decode_str(rest)
        .decode_utf8()
        .map(|p| p.into_owned())
        .map_err(|_| bad("the path is not UTF-8 once decoded"))
}

/// A MIME type for well-known text extensions; `None` lets the client decide.
fn mime_of(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "js" | "mjs" => "text/javascript",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "txt" | "rs" | "py" | "ts" | "go" | "c" | "h" | "cpp" | "java" | "sh" | "wit" => {
            "text/plain"
        }
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// What a `resources/list` cursor starts with (then the last path of the previous
/// page): a cursor a client made up is refused instead of answered with an empty page.
pub const CURSOR_PREFIX: &str = "after:";

/// One page of resources after `cursor` (the last path of the previous page).
pub(crate) fn list(s: &mut Sandbox, cursor: Option<&str>) -> Result<ListResourcesResult, McpError> {
    let out = s
        .session()
        .and_then(|session| {
            session.call(
                "filestore_glob",
                // Hidden files too: a resource listing is the client's inventory
                // (it pages and filters), not an answer to an agent's pattern.
                &json!({"pattern": "**", "path": "/", "limit": RESOURCE_WALK_LIMIT, "hidden": true}),
            )
        })
        .map_err(|e| protocol_error(&e))?;
    let files = out.json.get("files").and_then(Value::as_array).cloned().unwrap_or_default();
    let path = |f: &Value| f.get("path").and_then(Value::as_str).unwrap_or_default().to_string();
    // Sorted by path (glob's contract), so the page starts after the cursor.
    let start = match cursor {
        None => 0,
        Some(c) => {
            let Some(after) = c.strip_prefix(CURSOR_PREFIX).filter(|p| p.starts_with('/')) else {
                return Err(McpError::invalid_params(
                    format!("unknown cursor '{c}': pass the nextCursor of a previous page"),
                    None,
                ));
            };
            files.partition_point(|f| path(f).as_str() <= after)
        }
    };
    let page: Vec<Resource> = files[start..]
        .iter()
        .take(RESOURCE_PAGE_SIZE)
        .map(|f| {
            let p = path(f);
            let name = p.rsplit('/').next().unwrap_or(&p).to_string();
            let mut r = Resource::new(uri_of(&p), p.clone()).with_title(name);
            if let Some(size) = f.get("size").and_then(Value::as_u64) {
                r = r.with_size(size);
            }
            if let Some(m) = mime_of(&p) {
                r = r.with_mime_type(m);
            }
            r
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(page);
    if start + RESOURCE_PAGE_SIZE < files.len() {
        result.next_cursor = result.resources.last().map(|r| format!("{CURSOR_PREFIX}{}", r.name));
    }
    Ok(result)
}

/// Reads one resource: text when the file is UTF-8, else a base64 blob.
///
/// A resource that does not exist (no such file, or a URI that is not one of ours)
/// is an error whose `data` is `{"uri": URI}` (SEP-2164), with code `-32602` under
/// MCP 2026-07-28 (`modern`) and `-32002` before, as each revision says.
pub(crate) fn read(
    s: &mut Sandbox,
    uri: &str,
    modern: bool,
) -> Result<ReadResourceResult, McpError> {
    let not_found = |mut e: McpError| {
        e.data = Some(json!({ "uri": uri }));
        if modern {
            e.code = rmcp::model::ErrorCode::INVALID_PARAMS;
        }
        e
    };
    let path = path_of(uri).map_err(not_found)?;
    let (path, bytes) = read_bytes(s, &path, RESOURCE_MAX_BYTES).map_err(|e| {
        if e.code == rmcp::model::ErrorCode::RESOURCE_NOT_FOUND { not_found(e) } else { e }
    })?;
    let uri = uri_of(&path);
    // Text when it is UTF-8 without a NUL near the start (the binary test of
    // docs/architecture.md#filestore_read).
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES as usize)];
    let binary = is_binary_prefix(head, bytes.len() == head.len());
    let contents = match binary {
        false if std::str::from_utf8(&bytes).is_ok() => {
            let text = String::from_utf8(bytes).unwrap_or_default();
            ResourceContents::text(text, uri).with_mime_type(mime_of(&path).unwrap_or("text/plain"))
        }
        _ => {
            let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
            ResourceContents::blob(blob, uri)
                .with_mime_type(mime_of(&path).unwrap_or("application/octet-stream"))
        }
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// A file's bytes, up to `max`, with its normalised path: read through the component
/// (`filestore_read` with `encoding: base64`, page by page), so routing, overlays,
/// confinement and errors are exactly the tools'.
///
/// A file that changes between pages (its size or modification time differs) is read
/// again from the start, up to [`READ_ATTEMPTS`] times, then refused with `conflict`:
/// the bytes returned are always one version of the file, never a mix.
pub(crate) fn read_bytes(
    s: &mut Sandbox,
    path: &str,
    max: u64,
) -> Result<(String, Vec<u8>), McpError> {
    for _ in 0..READ_ATTEMPTS {
        if let Some(read) = read_once(s, path, max)? {
            return Ok(read);
        }
    }
    Err(McpError::invalid_params(
        format!(
            "error[conflict]: {path} changed while it was being read ({READ_ATTEMPTS} attempts); try again"
        ),
        None,
    ))
}

/// Reads before a resource read gives up on a file that keeps changing.
const READ_ATTEMPTS: usize = 3;

/// One read of a whole file; `None` when it changed between pages.
fn read_once(s: &mut Sandbox, path: &str, max: u64) -> Result<Option<(String, Vec<u8>)>, McpError> {
    let mut bytes = Vec::new();
    let mut path = path.to_string();
    let mut version: Option<(u64, Option<u64>)> = None;
    let mut at = 0u64;
    loop {
        // A small first page learns the size, so a file past `max` costs no big read.
        let page_max = if version.is_none() { FIRST_PAGE } else { RESOURCE_READ_PAGE };
        let args =
            json!({"path": path, "encoding": "base64", "byte_offset": at, "max_bytes": page_max});
        let out = match s.session().and_then(|session| session.call("filestore_read", &args)) {
            Ok(out) => out,
            // The file shrank below our offset since the last page.
            Err(e) if version.is_some() && e.kind() == Some(ErrorKind::InvalidArgument) => {
                return Ok(None);
            }
            Err(e) => return Err(protocol_error(&e)),
        };
        if let Some(p) = out.json.pointer("/entry/path").and_then(Value::as_str) {
            path = p.to_string();
        }
        let size = out.json.pointer("/entry/size").and_then(Value::as_u64).unwrap_or(0);
        let modified = out.json.pointer("/entry/modified_ms").and_then(Value::as_u64);
        match version {
            None => {
                if size > max {
                    return Err(McpError::invalid_params(
                        format!(
                            "error[too-large]: {path} is {size} bytes; resources are limited to {max} \
                             bytes (page it with filestore_read, encoding: base64, byte_offset)"
                        ),
                        None,
                    ));
                }
                bytes.reserve_exact(size as usize);
                version = Some((size, modified));
            }
            Some(v) if v != (size, modified) => return Ok(None),
            Some(_) => {}
        }
        let page = out.json.get("text").and_then(Value::as_str).unwrap_or_default();
        let page = base64::engine::general_purpose::STANDARD.decode(page).map_err(|e| {
            McpError::internal_error(format!("error[backend]: {path}: bad page: {e}"), None)
        })?;
        bytes.extend_from_slice(&page);
        match out.json.get("next_byte_offset").and_then(Value::as_u64) {
            Some(next) if next > at && (bytes.len() as u64) < max => at = next,
            _ if bytes.len() as u64 == size => return Ok(Some((path, bytes))),
            // Fewer or more bytes than the size said: it changed under us.
            _ => return Ok(None),
        }
    }
}

/// The first page of a resource read: enough for most files in one call.
const FIRST_PAGE: u64 = 256 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_bad_ones_say_why() {
        for p in ["/workspace/src/main.rs", "/scratch/a b.txt", "/w/é%#?.md", "/"] {
            assert_eq!(path_of(&uri_of(p)).unwrap(), p, "{p}");
        }
        assert_eq!(uri_of("/scratch/a b.txt"), "filestore:///scratch/a%20b.txt");
        assert!(path_of("file:///etc/passwd").unwrap_err().message.contains("not a filestore URI"));
        assert!(path_of("filestore://host/x").unwrap_err().message.contains("absolute"));
        assert!(path_of("filestore:///x?y").unwrap_err().message.contains("queries"));
        assert!(path_of("filestore:///%FF").unwrap_err().message.contains("UTF-8"));
    }
}
