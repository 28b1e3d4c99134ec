//! The answer of a command: its output cut to what a model should see, with a marker
//! saying so, and the text rendered for a model.

use super::limits::MAX_INLINE_BYTES;
use super::request::ExecuteResult;

/// `bytes` as text (non-UTF-8 bytes become U+FFFD), cut at `max` bytes on a
/// character boundary. Returns the text and whether it was cut.
pub(crate) fn inline(bytes: &[u8], max: usize) -> (String, bool) {
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= max {
        return (text.into_owned(), false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_string(), true)
}

/// The marker line appended to a cut stream.
pub(crate) fn marker(stream: &str, total: usize, captured: bool, stored: Option<&str>) -> String {
    let whole = match stored {
        Some(p) => format!("; the whole {stream} is stored at {p}"),
        None => String::new(),
    };
    let dropped = if captured {
        String::new()
    } else {
        format!(" (output past {} bytes was not kept)", super::limits::MAX_CAPTURE_BYTES)
    };
    format!(
        "\n[{stream} truncated: the first {MAX_INLINE_BYTES} of {total} bytes are shown{dropped}{whole}]\n"
    )
}

/// The text a model sees: stdout, then stderr under a heading, then the exit code
/// when it is not 0.
pub(crate) fn render(r: &ExecuteResult) -> String {
    let mut text = r.stdout.clone();
    if !r.stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&r.stderr);
    }
    if r.exit_code != 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[exit code {}]\n", r.exit_code));
    }
    for a in &r.activations {
        text.push_str(&crate::skills::active::render_activation(a));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_cuts_on_a_character_boundary() {
        let (t, cut) = inline("aé".as_bytes(), 2);
        assert_eq!((t.as_str(), cut), ("a", true));
        let (t, cut) = inline(b"ab\xff", 10);
        assert_eq!((t.as_str(), cut), ("ab\u{fffd}", false));
    }

    #[test]
    fn render_shows_stderr_and_a_failing_status() {
        let r = ExecuteResult {
            stdout: "out".into(),
            stderr: "oops\n".into(),
            exit_code: 2,
            ..Default::default()
        };
        assert_eq!(render(&r), "out\n[stderr]\noops\n[exit code 2]\n");
        let ok = ExecuteResult { stdout: "hi\n".into(), ..Default::default() };
        assert_eq!(render(&ok), "hi\n");
    }
}
