//! Decoding tool arguments (JSON) into typed requests, with errors that name the
//! parameter and the tool.

use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind, Result};

/// Decodes `args` (a JSON object; `null` means no arguments) into `T`.
///
/// Unknown fields are rejected by the request types (`deny_unknown_fields`): a
/// misspelt `offest` silently ignored would page from the wrong line.
pub fn decode<T: DeserializeOwned>(tool: &str, args: &serde_json::Value) -> Result<T> {
    let empty = serde_json::Value::Object(Default::default());
    let args = if args.is_null() { &empty } else { args };
    if !args.is_object() {
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("{tool}: arguments must be a JSON object, got {}", type_name(args)),
        ));
    }
    serde_path_to_error::deserialize(args).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let msg = if path == "." || path.is_empty() {
            format!("{tool}: {inner}")
        } else {
            format!("{tool}: parameter '{path}': {inner}")
        };
        Error::new(ErrorKind::InvalidArgument, msg)
    })
}

/// Parses a JSON text of arguments for `tool` (empty text means `{}`); invalid JSON
/// is an `invalid-argument` error naming the tool.
pub fn parse_args(tool: &str, args: &str) -> Result<serde_json::Value> {
    if args.trim().is_empty() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_json::from_str(args).map_err(|e| {
        Error::new(ErrorKind::InvalidArgument, format!("{tool}: arguments are not valid JSON: {e}"))
    })
}

/// Decodes a JSON text of arguments (empty text means `{}`).
pub fn decode_str<T: DeserializeOwned>(tool: &str, args: &str) -> Result<T> {
    decode(tool, &parse_args(tool, args)?)
}

/// A JSON value's type name for messages.
pub fn type_name(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
    }
}

/// Serde default for path parameters.
pub fn default_root() -> String {
    "/".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct R {
        path: String,
        #[serde(default)]
        depth: u32,
    }

    #[test]
    fn errors_name_the_parameter() {
        let e = decode_str::<R>("filestore_ls", r#"{"path":"/","depth":"x"}"#).unwrap_err();
        assert!(e.to_string().contains("parameter 'depth'"), "{e}");
        let e = decode_str::<R>("filestore_ls", r#"{"path":"/","dpeth":1}"#).unwrap_err();
        assert!(e.to_string().contains("dpeth"), "{e}");
        let e = decode_str::<R>("filestore_ls", r#"[1]"#).unwrap_err();
        assert!(e.to_string().contains("JSON object"), "{e}");
        let e = decode_str::<R>("filestore_ls", r#"{}"#).unwrap_err();
        assert!(e.to_string().contains("path"), "{e}");
    }
}
