//! `filestore_execute` while it runs (docs/shell.md#streaming-progress-and-cancellation): output streamed
//! through [`Session::execute_streaming`] in order, stdout and stderr apart, equal to
//! the result; bounded for a flood; and a command that waits (`sleep`) ended promptly
//! by a cancellation or by the call's deadline.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use filestore::shell_output::{OutputChunk, OutputStream};
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::*;

/// A session with the shell, a writable `/w` and `/tool_calls`.
fn session(options: SessionOptions) -> Session {
    let mut s = engine()
        .session_with(
            vec![
                MountSpec::new("/w", Arc::new(filestore::volumes::MemoryVolume::new())),
                filestore::tools::results_mount(),
            ],
            SessionOptions { shell: true, ..options },
        )
        .expect("session");
    s.enable_shell(true).expect("shell");
    s
}

type Chunks = Arc<Mutex<Vec<(OutputStream, Vec<u8>)>>>;

fn recorder() -> (Chunks, impl FnMut(OutputChunk<'_>) + Send + 'static) {
    let chunks: Chunks = Default::default();
    let to = chunks.clone();
    (chunks, move |c: OutputChunk<'_>| to.lock().unwrap().push((c.stream, c.bytes.to_vec())))
}

/// Consecutive chunks of one stream joined: the interleaving as printed.
fn runs(chunks: &[(OutputStream, Vec<u8>)]) -> Vec<(OutputStream, String)> {
    let mut out: Vec<(OutputStream, String)> = Vec::new();
    for (s, b) in chunks {
        let text = String::from_utf8(b.clone()).expect("utf-8");
        match out.last_mut() {
            Some((last, t)) if last == s => t.push_str(&text),
            _ => out.push((*s, text)),
        }
    }
    out
}

fn joined(chunks: &[(OutputStream, Vec<u8>)], stream: OutputStream) -> Vec<u8> {
    chunks.iter().filter(|(s, _)| *s == stream).flat_map(|(_, b)| b.clone()).collect()
}

#[test]
fn streamed_output_is_in_order_and_equals_the_result() {
    let mut s = session(SessionOptions::default());
    let (chunks, sink) = recorder();
    let command = "for i in 1 2 3; do echo $i; echo e$i >&2; done; printf 'é'; echo end";
    let out = s.execute_streaming(&json!({"command": command}), sink).expect("runs");
    let chunks = chunks.lock().unwrap().clone();
    use OutputStream::{Stderr as E, Stdout as O};
    let want: Vec<(OutputStream, String)> = vec![
        (O, "1\n".into()),
        (E, "e1\n".into()),
        (O, "2\n".into()),
        (E, "e2\n".into()),
        (O, "3\n".into()),
        (E, "e3\n".into()),
        (O, "éend\n".into()),
    ];
    assert_eq!(runs(&chunks), want);
    assert_eq!(joined(&chunks, O), out.json["stdout"].as_str().unwrap().as_bytes());
    assert_eq!(joined(&chunks, E), out.json["stderr"].as_str().unwrap().as_bytes());
    // The same command without a sink answers the same (but its duration).
    let plain = s.call("filestore_execute", &json!({"command": command})).unwrap();
    let strip = |mut v: Value| {
        v.as_object_mut().unwrap().remove("duration_ms");
        v
    };
    assert_eq!(strip(plain.json), strip(out.json));
}

#[test]
fn a_flood_is_streamed_in_bounded_chunks_and_the_result_is_unchanged() {
    let mut s = session(SessionOptions::default());
    let (chunks, sink) = recorder();
    // 1.8 MB (bashkit's `yes` stops at 10,000 lines, its `seq` at 100,000).
    let command = "seq 1 100000; seq 1 100000; seq 1 100000";
    let out = s.execute_streaming(&json!({"command": command}), sink).expect("runs");
    let chunks = chunks.lock().unwrap().clone();
    assert!(chunks.iter().all(|(_, b)| !b.is_empty() && b.len() <= 4096));
    let streamed = joined(&chunks, OutputStream::Stdout);
    assert_eq!(streamed.len(), 1024 * 1024, "the streamed bytes are capped at 1 MiB");
    let result = out.json["stdout"].as_str().unwrap().as_bytes();
    assert_eq!(streamed[..20_000], result[..20_000], "the stream begins as the output");
    // The result is cut and stored as without streaming.
    assert_eq!(out.json["truncated"], true, "{}", out.json);
    assert!(out.json["output_path"].as_str().is_some_and(|p| p.starts_with("/tool_calls/")));
    let plain = s.call("filestore_execute", &json!({"command": command})).unwrap();
    // Equal up to the marker line, which names each call's own stored result.
    let shown = |v: &Value| {
        v["stdout"].as_str().unwrap().split("\n[stdout truncated").next().unwrap().to_string()
    };
    assert_eq!(shown(&plain.json), shown(&out.json));
    assert_eq!(plain.json["truncated"], true);
}

/// Cancels each command once it printed `start`: the
/// chunk arrives while the command runs, and the cancellation ends its `sleep`.
#[test]
fn a_cancellation_ends_a_sleeping_command() {
    for command in ["echo start; sleep 100; echo never", "echo start; while true; do sleep 1; done"]
    {
        let mut s =
            session(SessionOptions { deadline: Duration::from_secs(3600), ..Default::default() });
        let cancel = s.cancel_handle();
        let started = Instant::now();
        let seen: Chunks = Default::default();
        let to = seen.clone();
        let r = s.execute_streaming(
            &json!({"command": command, "timeout_ms": 25_000}),
            move |c: OutputChunk<'_>| {
                to.lock().unwrap().push((c.stream, c.bytes.to_vec()));
                if c.bytes.starts_with(b"start") {
                    cancel.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            },
        );
        let took = started.elapsed();
        assert!(matches!(r, Err(filestore::Error::Cancelled(_))), "{command}: {r:?}");
        assert_eq!(joined(&seen.lock().unwrap(), OutputStream::Stdout), b"start\n");
        // Bounded far from the command's own 25 s timeout, which is what ended it
        // before waits observed a cancellation.
        assert!(took < Duration::from_secs(10), "{command}: took {took:?}");
        // The session is replaced, as after any cancellation.
        assert!(s.is_poisoned());
    }
}

/// The call's deadline ends a command that waits, though the guest spends it in a
/// host clock poll.
#[test]
fn the_call_deadline_ends_a_sleeping_command() {
    let mut s = session(SessionOptions { deadline: Duration::from_secs(1), ..Default::default() });
    let started = Instant::now();
    let r = s.call("filestore_execute", &json!({"command": "sleep 100", "timeout_ms": 25_000}));
    let took = started.elapsed();
    assert!(
        matches!(
            r,
            Err(filestore::Error::LimitExceeded { limit: filestore::SandboxLimit::Deadline, .. })
        ),
        "{r:?}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
