//! The call the stdio fast path ([`crate::stdio::fast`]) runs on the reader thread, as the
//! server's sandbox work sees it: whether the current thread is that one
//! ([`on_fast_path`]: the work then runs in place, the thread's own to block, and
//! needs no cancellation watch), and a listing's JSON passed through to the answer
//! unparsed ([`pass_json_through`]). Below the server, which asks; the fast path
//! above it sets them.

use std::cell::{Cell, RefCell};

thread_local! {
    /// Set on the reader thread while it runs a call: the sandbox work runs in
    /// place there (it is the thread's own to block), see
    /// [`FilestoreServer::on_sandbox`](crate::server).
    static ON_FAST_PATH: Cell<bool> = const { Cell::new(false) };
}

/// Whether the current thread is the fast path's, running a call.
pub(crate) fn on_fast_path() -> bool {
    ON_FAST_PATH.with(Cell::get)
}

thread_local! {
    /// The structured content of the fast path's call, as JSON text, when the call
    /// passed it through ([`pass_json_through`]); taken when the answer is written.
    static PASSED_JSON: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `call` as the fast path's on this thread ([`on_fast_path`] holds meanwhile):
/// its result, and the JSON it passed through ([`pass_json_through`]), if any.
pub(crate) fn run<T>(call: impl FnOnce() -> T) -> (T, Option<String>) {
    take_passed_json();
    ON_FAST_PATH.with(|f| f.set(true));
    let result = call();
    ON_FAST_PATH.with(|f| f.set(false));
    (result, take_passed_json())
}

fn take_passed_json() -> Option<String> {
    PASSED_JSON.with(|p| p.borrow_mut().take())
}

/// Whether a successful call of `tool` should hand its JSON over unparsed: on the
/// fast path, for a listing (the largest JSON it answers; a read's result is looked
/// into for media, and is small).
pub(crate) fn passes_json_through(tool: &str) -> bool {
    on_fast_path() && tool == "filestore_ls"
}

/// Keeps `out`'s JSON object for the answer (the fast path writes it as the result's
/// `structuredContent`), and gives the call's result on with an empty object in its
/// place: nothing between here and the answer looks into a listing's JSON
/// (approvals and media concern other tools). JSON that is not an object (a
/// built-in's always is) is given on parsed, for `reply::success` to wrap as it
/// wraps any other.
pub(crate) fn pass_json_through(
    out: filestore_runtime::UnparsedCallOutput,
) -> filestore_runtime::CallOutput {
    let filestore_runtime::UnparsedCallOutput { json, text } = out;
    if !json.trim_start().starts_with('{') {
        let json = serde_json::from_str(&json).unwrap_or(serde_json::Value::Null);
        return filestore_runtime::CallOutput { json, text };
    }
    PASSED_JSON.with(|p| *p.borrow_mut() = Some(json));
    filestore_runtime::CallOutput { json: serde_json::Value::Object(Default::default()), text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// JSON that is not an object is not kept but wrapped as `reply::success` wraps
    /// any other; an object is kept for the answer, an empty object in its place.
    #[test]
    fn only_an_object_passes_through() {
        let out = pass_json_through(filestore_runtime::UnparsedCallOutput {
            json: "[1,2]".into(),
            text: String::new(),
        });
        assert_eq!(take_passed_json(), None);
        let written = serde_json::to_value(crate::reply::success(out)).unwrap();
        assert_eq!(written["structuredContent"], json!({"result": [1, 2]}));

        let listing = r#"{"path":"/w","entries":[]}"#;
        let ((), passed) = run(|| {
            let out = pass_json_through(filestore_runtime::UnparsedCallOutput {
                json: listing.into(),
                text: String::new(),
            });
            assert_eq!(out.json, json!({}));
            assert!(on_fast_path());
        });
        assert_eq!(passed.as_deref(), Some(listing));
        assert!(!on_fast_path());
    }
}
