//! Many sessions on one engine (docs/architecture.md#engine-and-sessions): 10,000 live
//! sessions at once and 100 concurrent callers on their own threads, each seeing only
//! its own mounts. Every session writes a marker through the component and must find
//! exactly its own marker — never another session's — by read, glob and grep.

use std::sync::{Arc, Barrier, OnceLock};

use filestore::engine::EngineConfig;
use filestore::volumes::MemoryVolume;
use filestore::{Engine, MountSpec, Session};
use serde_json::json;

use crate::common::*;

/// Sessions kept alive at once by the 10,000-session test (a server's worth of idle
/// conversations in one process).
const LIVE_SESSIONS: usize = 10_000;
/// Concurrent callers.
const THREADS: usize = 100;

/// An engine whose pool holds all the live sessions (the shared test engine's pool is
/// used by the other tests running in parallel). A smaller memory slot keeps the
/// reserved address space modest.
fn big_pool() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        filestore::new_engine_with(EngineConfig {
            max_sessions: LIVE_SESSIONS as u32 + 10,
            memory_bytes: 64 * 1024 * 1024,
            ..EngineConfig::default()
        })
        .expect("engine")
    })
}

/// A session over a fresh memory volume at `/home` holding `id`'s seed file.
fn own_session(engine: &Engine, id: usize) -> Session {
    let vol = MemoryVolume::new();
    vol.insert(&format!("/seed-{id}.txt"), format!("seed of {id}\n"));
    engine.session(vec![MountSpec::new("/home", Arc::new(vol))]).expect("session")
}

/// Writes `id`'s marker and checks the session sees exactly its own two files.
fn exercise(s: &mut Session, id: usize) {
    let marker = format!("marker of session {id}\n");
    ok(s, "filestore_write", json!({"path": format!("/home/marker-{id}.txt"), "content": marker}));
    check(s, id);
}

fn check(s: &mut Session, id: usize) {
    let j = ok(s, "filestore_read", json!({"path": format!("/home/marker-{id}.txt"), "raw": true}));
    assert_eq!(j["text"], format!("marker of session {id}\n"));
    let j = ok(s, "filestore_glob", json!({"pattern": "*.txt", "path": "/"}));
    let files: Vec<&str> =
        j["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        files,
        vec![format!("/home/marker-{id}.txt"), format!("/home/seed-{id}.txt")],
        "session {id} sees only its own files"
    );
    let j = ok(
        s,
        "filestore_grep",
        json!({"pattern": "of (session )?\\d+", "path": "/", "output_mode": "content"}),
    );
    let texts: Vec<&str> =
        j["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(texts, vec![format!("marker of session {id}"), format!("seed of {id}")]);
}

#[test]
fn ten_thousand_live_sessions_each_see_only_their_own_mounts() {
    let engine = big_pool();
    let mut sessions: Vec<Session> = (0..LIVE_SESSIONS).map(|i| own_session(engine, i)).collect();
    for (i, s) in sessions.iter_mut().enumerate() {
        exercise(s, i);
    }
    // Everything written is still there and still private after all the others wrote.
    for (i, s) in sessions.iter_mut().enumerate().step_by(7) {
        check(s, i);
    }
    // Dropping sessions returns their slots: a second generation fits in the pool.
    drop(sessions);
    let mut again: Vec<Session> =
        (0..LIVE_SESSIONS).map(|i| own_session(engine, i + LIVE_SESSIONS)).collect();
    for (i, s) in again.iter_mut().enumerate().step_by(50) {
        exercise(s, i + LIVE_SESSIONS);
    }
}

#[test]
fn a_hundred_concurrent_callers_share_one_engine_without_interference() {
    let engine = engine().clone();
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let engine = engine.clone();
            let start = start.clone();
            std::thread::spawn(move || {
                // Each thread runs several sessions in turn, all threads at once.
                start.wait();
                for round in 0..3 {
                    let id = t * 10 + round;
                    let mut s = own_session(&engine, id);
                    exercise(&mut s, id);
                    for _ in 0..3 {
                        check(&mut s, id);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("a caller thread panicked");
    }
}

#[test]
fn one_session_moved_between_threads_keeps_its_state() {
    let mut s = own_session(engine(), 4242);
    exercise(&mut s, 4242);
    let s = std::thread::spawn(move || {
        check(&mut s, 4242);
        s
    })
    .join()
    .unwrap();
    let mut s = s;
    check(&mut s, 4242);
}
