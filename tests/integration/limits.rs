//! Sandbox limits hold (docs/architecture.md#engine-and-sessions): guest-side limits
//! (regex size, read page, grep records, path length) return typed errors and leave the
//! session usable; host-side limits (deadline, memory cap, fuel) stop the call with
//! `limit-exceeded`, poison only that session, and the next session works while other
//! live sessions are untouched. Also: the on-disk component cache is rebuilt, never
//! trusted, when it is corrupt or stale. No assertion here depends on timing.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use filestore::engine::EngineConfig;
use filestore::{Engine, Error, MountSpec, SandboxLimit, Session, SessionOptions};
use filestore_guest::vfs::limits::Limits;
use serde_json::json;

use crate::common::*;

/// A session over one memory volume at `/w` with `options`.
fn session_opts(engine: &Engine, files: &[(&str, &str)], options: SessionOptions) -> Session {
    engine.session_with(vec![MountSpec::new("/w", mem(files))], options).expect("session")
}

/// Asserts a session still answers a read of its own file.
fn still_works(s: &mut Session, path: &str, content: &str) {
    let j = ok(s, "filestore_read", json!({"path": path, "raw": true}));
    assert_eq!(j["text"], content);
}

// ---- guest-side limits: typed errors, the session goes on ------------------------

#[test]
fn pathological_regex_hits_the_compiled_size_limit() {
    let mut s = session_with("/w", mem(&[("/a.txt", "aaaa\n")]));
    // A counted repetition that expands to millions of states.
    for pattern in [r"(\w{1000}){1000}", r"(?:a{1000}){1000}", r"\pL{100000}"] {
        let (kind, msg) = err(
            &mut s,
            "filestore_grep",
            json!({"pattern": pattern, "path": "/w", "output_mode": "content"}),
        );
        assert_eq!(kind, "limit-exceeded", "{pattern}: {msg}");
        assert!(msg.contains("too large") && msg.contains("regex_bytes"), "{pattern}: {msg}");
    }
    // The same session keeps working.
    let j = ok(&mut s, "filestore_grep", json!({"pattern": "a+", "path": "/w"}));
    assert_eq!(j["files"], json!(["/w/a.txt"]));
    // A smaller per-session regex limit rejects a pattern the default admits.
    let limits = Limits { regex_bytes: 10_000, ..Limits::default() };
    let mut small = session_opts(
        engine(),
        &[("/a.txt", "x\n")],
        SessionOptions { limits, ..SessionOptions::default() },
    );
    assert!(s.call("filestore_grep", &json!({"pattern": r"\w{200}", "path": "/w"})).is_ok());
    let (kind, msg) =
        err(&mut small, "filestore_grep", json!({"pattern": r"\w{200}", "path": "/w"}));
    assert_eq!(kind, "limit-exceeded", "{msg}");
    assert!(msg.contains("10000"), "the message names the configured limit: {msg}");
}

#[test]
fn a_huge_read_page_is_bounded() {
    // 200,000 lines of 80 characters: 16 MiB.
    let line = format!("{}\n", "x".repeat(79));
    let big = line.repeat(200_000);
    let mut s = session_with("/w", mem(&[("/big.txt", &big)]));
    let j = ok(&mut s, "filestore_read", json!({"path": "/w/big.txt", "limit": u32::MAX}));
    assert_eq!(j["truncated"], true, "a page of u32::MAX lines must be cut");
    let text = j["text"].as_str().unwrap();
    // The token safeguard (10,000 tokens ≈ 40,000 characters) bounds the page.
    assert!(text.len() < 60_000, "page of {} bytes", text.len());
    let next = j["next_offset"].as_u64().expect("next_offset");
    assert!(next > 1 && next < 200_000, "{next}");
    // And the next page continues where this one stopped.
    let j2 = ok(&mut s, "filestore_read", json!({"path": "/w/big.txt", "offset": next}));
    assert_eq!(j2["start_line"], next);
}

#[test]
fn grep_result_set_is_capped_per_session() {
    let many: String = (0..500).map(|i| format!("match {i}\n")).collect();
    let limits = Limits { grep_records: 20, ..Limits::default() };
    let mut s = session_opts(
        engine(),
        &[("/m.txt", &many)],
        SessionOptions { limits, ..SessionOptions::default() },
    );
    // A page size past the session's record limit is held to it.
    let j = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "match", "path": "/w", "output_mode": "content", "head_limit": 500}),
    );
    assert_eq!(j["lines"].as_array().unwrap().len(), 20);
    assert_eq!(j["truncated"], true);
}

#[test]
fn overlong_paths_are_refused_by_name() {
    let mut s = session_with("/w", mem(&[]));
    let long = format!("/w/{}", "d/".repeat(2100));
    let (kind, msg) = err(&mut s, "filestore_write", json!({"path": long, "content": "x"}));
    assert_eq!(kind, "invalid-path", "{msg}");
    assert!(msg.contains("4096"), "names the limit: {msg}");
    let (kind, _) =
        err(&mut s, "filestore_read", json!({"path": format!("/w/{}", "c".repeat(300))}));
    assert_eq!(kind, "invalid-path");
}

// ---- host-side limits: the call stops, only that session is poisoned -------------

#[test]
fn an_infinite_loop_hits_the_deadline_and_poisons_only_its_session() {
    let mut bystander = session_with("/w", mem(&[("/b.txt", "bystander")]));
    let mut s = session_opts(
        engine(),
        &[("/a.txt", "a")],
        SessionOptions { deadline: Duration::from_millis(200), ..SessionOptions::default() },
    );
    // A bounded spin finishes and the session is fine.
    assert!(s.diagnostics_spin(1000).is_ok());
    let e = s.diagnostics_spin(u64::MAX).expect_err("an endless loop must be stopped");
    assert_eq!(e.sandbox_limit(), Some(SandboxLimit::Deadline), "{e}");
    assert_eq!(e.kind_name(), "limit-exceeded");
    assert!(e.to_string().contains("deadline of 200ms"), "{e}");
    assert!(s.is_poisoned());
    match s.call("filestore_read", &json!({"path": "/w/a.txt"})) {
        Err(Error::Poisoned(why)) => assert!(why.contains("deadline"), "{why}"),
        other => panic!("a poisoned session must refuse calls, got {other:?}"),
    }
    // The other session and a replacement both work.
    still_works(&mut bystander, "/w/b.txt", "bystander");
    let mut replacement = session_with("/w", mem(&[("/a.txt", "a")]));
    still_works(&mut replacement, "/w/a.txt", "a");
}

/// A call cancelled from another thread (as the MCP server does on
/// `notifications/cancelled`) is interrupted at the next epoch tick with
/// `Error::Cancelled`, long before its deadline; only that session is poisoned, and
/// the flag does not leak into the next session's calls.
#[test]
fn a_cancelled_call_is_interrupted_before_its_deadline() {
    let mut s = session_opts(
        engine(),
        &[("/a.txt", "a")],
        SessionOptions { deadline: Duration::from_secs(600), ..SessionOptions::default() },
    );
    let cancel = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    // An endless loop: only the cancellation can end it (the deadline is 10 minutes).
    let e = s.diagnostics_spin(u64::MAX).expect_err("the cancellation stops it");
    canceller.join().unwrap();
    assert!(matches!(e, Error::Cancelled(_)), "{e:?}");
    assert_eq!(e.kind_name(), "cancelled");
    assert!(e.poisons_session() && s.is_poisoned());
    // A flag set before a call is cleared when the call starts: it was for another.
    let mut fresh = session_with("/w", mem(&[("/a.txt", "a")]));
    fresh.cancel_handle().store(true, std::sync::atomic::Ordering::SeqCst);
    still_works(&mut fresh, "/w/a.txt", "a");
}

#[test]
fn memory_growth_past_the_cap_traps_cleanly() {
    const CAP: usize = 48 * 1024 * 1024;
    let mut bystander = session_with("/w", mem(&[("/b.txt", "bystander")]));
    let mut s = session_opts(
        engine(),
        &[("/a.txt", "a")],
        SessionOptions { memory_bytes: Some(CAP), ..SessionOptions::default() },
    );
    // Under the cap: fine, and released again.
    assert_eq!(s.diagnostics_allocate(8 * 1024 * 1024).unwrap(), 8 * 1024 * 1024);
    s.diagnostics_release().unwrap();
    assert!(s.memory_bytes() <= CAP);
    let e = s.diagnostics_allocate(CAP as u64).expect_err("growth past the cap must fail");
    assert_eq!(e.sandbox_limit(), Some(SandboxLimit::Memory), "{e}");
    assert!(e.to_string().contains(&CAP.to_string()), "names the cap: {e}");
    assert!(!e.to_string().contains("wasm backtrace"), "no backtrace for the model: {e}");
    assert!(s.is_poisoned());
    assert!(e.poisons_session());
    still_works(&mut bystander, "/w/b.txt", "bystander");
    let mut replacement = session_with("/w", mem(&[("/a.txt", "a")]));
    still_works(&mut replacement, "/w/a.txt", "a");
}

#[test]
fn a_memory_cap_above_the_pool_slot_is_clamped() {
    // Asking for more than the engine's slot gets the engine's cap, not more.
    let mut s = session_opts(
        engine(),
        &[("/a.txt", "a")],
        SessionOptions { memory_bytes: Some(usize::MAX), ..SessionOptions::default() },
    );
    let cap = engine().config().memory_bytes as u64;
    let e = s.diagnostics_allocate(cap).expect_err("the engine cap holds");
    assert_eq!(e.sandbox_limit(), Some(SandboxLimit::Memory), "{e}");
}

/// The configuration of [`fuel_engine`].
fn fuel_config() -> EngineConfig {
    EngineConfig { fuel: true, max_sessions: 8, ..EngineConfig::default() }
}

/// An engine with fuel metering. The build's precompiled artifact is not for it, so
/// Cranelift compiles the component, once for the default cache directory: a later
/// start (or test run) loads it from there.
fn fuel_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| filestore::new_engine_with(fuel_config()).expect("fuel engine"))
}

#[test]
fn fuel_runs_out_and_the_next_session_works() {
    let engine = fuel_engine();
    let opts = || SessionOptions { fuel: Some(50_000_000), ..SessionOptions::default() };
    let mut s = session_opts(engine, &[("/a.txt", "a")], opts());
    // Fuel is per call: many small calls each get the full budget.
    for _ in 0..5 {
        still_works(&mut s, "/w/a.txt", "a");
    }
    let e = s.diagnostics_spin(u64::MAX).expect_err("out of fuel");
    assert_eq!(e.sandbox_limit(), Some(SandboxLimit::Fuel), "{e}");
    assert!(s.is_poisoned());
    let mut next = session_opts(engine, &[("/a.txt", "a")], opts());
    still_works(&mut next, "/w/a.txt", "a");
}

// ---- the compiled-component cache -----------------------------------------------
//
// How the cache treats its files (a truncated, corrupt, unsummed or stale artifact is
// recompiled and rewritten; an unwritable directory is a warning) is tested in
// runtime/src/engine.rs on a small component: a compilation of this one takes about a
// minute of CPU in the test build. Here the embedded component goes through both of
// its paths once each: the build's precompiled artifact, and a compilation cached.

/// The single cached artifact in `dir`.
fn artifact(dir: &std::path::Path) -> std::path::PathBuf {
    let arts: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cwasm"))
        .collect();
    assert_eq!(arts.len(), 1, "{arts:?}");
    arts[0].clone()
}

fn works(engine: &Engine) {
    let mut s = engine.session(vec![MountSpec::new("/w", mem(&[("/a.txt", "a")]))]).unwrap();
    still_works(&mut s, "/w/a.txt", "a");
}

/// The default engine of the embedded component.
fn default_engine(cache_dir: Option<std::path::PathBuf>) -> Engine {
    filestore::new_engine_with(EngineConfig {
        pooling: false,
        cache_dir,
        ..EngineConfig::default()
    })
    .expect("engine")
}

#[test]
fn the_embedded_component_starts_precompiled_and_is_mapped_from_the_cache_after() {
    // Built for this host: the default engine takes the build's artifact and never
    // compiles. The binary carries it compressed; the first start decompresses it into the
    // cache directory, later starts map that file.
    assert!(
        filestore::has_precompiled(),
        "the build did not precompile the component for this host (cross-compiled, or \
         precompiling failed: see the build script's warning)"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    let first = default_engine(Some(dir.clone()));
    assert!(first.precompiled() && first.cache_hit() && first.cache_warning().is_none());
    works(&first);
    let art = artifact(&dir);
    let good = std::fs::read(&art).unwrap();
    let modified = std::fs::metadata(&art).unwrap().modified().unwrap();
    let second = default_engine(Some(dir.clone()));
    assert!(second.precompiled());
    works(&second);
    assert_eq!(
        std::fs::metadata(&art).unwrap().modified().unwrap(),
        modified,
        "the second start maps the file the first wrote, without rewriting it"
    );

    // A truncated file (its size is checked) is replaced by the embedded artifact.
    // Planted by a rename, as the engine writes it: the engines above map the old
    // file, and a file shrunk in place under a mapping faults its reader (the cache
    // directory is the user's own, written only by renames: docs/performance.md).
    let planted = dir.join("planted");
    std::fs::write(&planted, &good[..good.len() / 2]).unwrap();
    std::fs::rename(&planted, &art).unwrap();
    let e = default_engine(Some(dir.clone()));
    assert!(e.precompiled());
    works(&e);
    assert_eq!(std::fs::read(&art).unwrap(), good, "and rewritten whole");

    // Without a cache directory, or with one that cannot be written, it still starts
    // precompiled (decompressing at every start, which the warning says).
    assert!(default_engine(None).precompiled());
    let blocker = tmp.path().join("a-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let e = default_engine(Some(blocker.join("cache")));
    assert!(e.precompiled());
    works(&e);
    let why = e.cache_warning().expect("a warning for an unwritable cache");
    assert!(
        why.contains("cannot keep the precompiled component")
            && why.contains("FILESTORE_CACHE_DIR"),
        "{why}"
    );

    // Another configuration (fuel) cannot use it: Cranelift compiles the component
    // and the compiled-component cache keeps it for the next start with that
    // configuration. The fuel tests' engine is that first start (whether it compiled
    // depends on earlier runs: the cache is the default one), this the next.
    assert!(!fuel_engine().precompiled() && fuel_engine().cache_warning().is_none());
    let again = filestore::new_engine_with(fuel_config()).expect("fuel engine");
    assert!(!again.precompiled() && again.cache_hit(), "the compiled component is reused");
    let fuel = SessionOptions { fuel: Some(50_000_000), ..SessionOptions::default() };
    still_works(&mut session_opts(&again, &[("/a.txt", "a")], fuel), "/w/a.txt", "a");
}

/// The command line says once, on stderr, that its cache directory cannot be written
/// (each start then pays again what the cache saves), and still answers.
#[test]
fn the_command_line_reports_an_unusable_cache_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["call", "--mount", "/w=mem:", "filestore_ls", "{}"])
        .env("FILESTORE_CACHE_DIR", file.join("cache"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("cannot keep the precompiled component").count(), 1, "{stderr}");
}

#[test]
fn a_session_is_replaced_after_a_trap_while_others_keep_their_state() {
    // Ten live sessions, each with state written through the component.
    let mut sessions: Vec<Session> = (0..10)
        .map(|i| {
            let mut s = session_opts(
                engine(),
                &[],
                SessionOptions {
                    deadline: Duration::from_millis(100),
                    ..SessionOptions::default()
                },
            );
            ok(&mut s, "filestore_write", json!({"path": "/w/me.txt", "content": format!("{i}")}));
            s
        })
        .collect();
    // Session 3 traps and is replaced in place.
    assert!(sessions[3].diagnostics_spin(u64::MAX).is_err());
    assert!(sessions[3].is_poisoned());
    sessions[3] = session_with("/w", Arc::new(filestore::volumes::MemoryVolume::new()));
    ok(&mut sessions[3], "filestore_write", json!({"path": "/w/me.txt", "content": "3"}));
    for (i, s) in sessions.iter_mut().enumerate() {
        still_works(s, "/w/me.txt", &i.to_string());
    }
}

/// A memory volume's quota bounds what a session can store: a write past it is
/// `limit-exceeded` naming the quota, changes nothing, and leaves the session usable;
/// deleting gives the room back. The CLI's `--volume-quota-mib` sets it.
#[test]
fn memory_volume_quota_refuses_without_poisoning() {
    use filestore::volumes::{ByteBudget, MemoryVolume};
    let budget = ByteBudget::new("the test quota", 1000);
    let vol = std::sync::Arc::new(MemoryVolume::with_budgets(vec![budget.clone()]));
    let mut s = session_with("/s", vol);
    ok(&mut s, "filestore_write", json!({"path": "/s/a.txt", "content": "a".repeat(800)}));
    let (kind, msg) =
        err(&mut s, "filestore_write", json!({"path": "/s/b.txt", "content": "b".repeat(400)}));
    assert_eq!(kind, "limit-exceeded", "{msg}");
    assert!(msg.contains("the test quota of 1000 bytes") && msg.contains("/s/b.txt"), "{msg}");
    assert!(!s.is_poisoned(), "a quota is an ordinary error");
    // Content, name and the entry's own cost (MemoryVolume::charge_of).
    assert_eq!(budget.used(), MemoryVolume::charge_of("/a.txt", 800));
    ok(&mut s, "filestore_delete", json!({"path": "/s/a.txt"}));
    ok(&mut s, "filestore_write", json!({"path": "/s/b.txt", "content": "b".repeat(400)}));
    assert_eq!(budget.used(), MemoryVolume::charge_of("/b.txt", 400));
    drop(s);
    assert_eq!(budget.used(), 0, "a dropped session gives its memory back");

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args([
            "call",
            "filestore_write",
            &json!({"path": "/m/big", "content": "x".repeat(100)}).to_string(),
        ])
        .args(["--mount", "/m=mem:", "--volume-quota-mib", "0"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("error[limit-exceeded]") && stderr.contains("memory-volume quota"),
        "{stderr}"
    );
}
