//! Memory of idle sandboxes against the budget (docs/security.md#memory,
//! BENCHMARKS.md "Memory"): N sessions, and N MCP 2026-07-28 requests, each read a
//! large file whole through the shell (`cat FILE | wc -c`: the pipeline holds it in
//! the sandbox's linear memory) and then idle; the server's resident memory (VmRSS
//! of `/proc/PID/status`) after them, against the configured budget
//! (`--sandbox-memory-mib`) and against the old behaviour, where each idle sandbox
//! kept what its call grew to.
//!
//! ```sh
//! cargo bench -p filestore --bench memory
//! ```
//!
//! Environment: `FILESTORE_BENCH_SESSIONS` (N, default 40, as in the attack this
//! answers), `FILESTORE_BENCH_BIG_MB` (the file, default 60 MB),
//! `FILESTORE_BENCH_BIN` (the `filestore` binary, default the one cargo built).
//!
//! Sections:
//! - **in process** (the same run's baseline): N sessions of one engine, kept as they
//!   grew (the old behaviour) vs replaced after the read as the server does
//!   (`Session::release`, then a new session); the replacement's time against the
//!   read's. The replaced side runs first, so whatever the host's allocator keeps from
//!   reading the file counts against it.
//! - **serve --http**: N 2025-11-25 sessions idle after a small call (what any
//!   idle session costs), then idle after the read.
//! - **serve --http --state mem:**: the same with N 2026-07-28 requests, each of its
//!   own conversation (so the sandbox cache keeps each).
//! - **the budget under load**: N sessions reading at once under a budget that holds
//!   a few of them: how many were refused (`limit-exceeded`), and the highest
//!   resident memory seen while they ran (sampled every 5 ms) against the budget.

#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;
mod timing;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use filestore::memory_budget::RECLAIM_ABOVE_BYTES;
use filestore::volumes::dir::DirVolume;
use filestore::{EngineConfig, MountSpec, Session, SessionOptions};
use serde_json::{Value, json};
use support::mcp_http::{McpHttp, Replica, stateless};
use timing::{median_us, us};

const MIB: usize = 1 << 20;
const READ_BIG: &str = "cat /workspace/big.txt | wc -c";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// VmRSS of process `pid` (`None`: this one), bytes.
fn rss(pid: Option<u32>) -> usize {
    let path = pid.map_or("/proc/self/status".to_string(), |p| format!("/proc/{p}/status"));
    let status = std::fs::read_to_string(&path).expect("VmRSS needs Linux's /proc");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("a VmRSS line");
    kib * 1024
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB as f64)
}

/// One row of the report.
struct Row {
    what: String,
    ours: String,
    baseline: String,
    ratio: String,
}

/// Writes `big.txt` of `bytes` (text lines) into `dir`.
fn big_file(dir: &Path, bytes: usize) {
    let line = format!("{}\n", "x".repeat(99));
    std::fs::write(dir.join("big.txt"), line.repeat(bytes / line.len())).unwrap();
}

fn main() {
    let n = env_usize("FILESTORE_BENCH_SESSIONS", 40);
    let big = env_usize("FILESTORE_BENCH_BIG_MB", 60) * 1_000_000;
    let bin = std::env::var("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_filestore").to_string());
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir(&ws).unwrap();
    big_file(&ws, big);
    eprintln!("{n} sessions, each reading a {big}-byte file whole; binary {bin}");
    let mut rows = Vec::new();
    in_process(&mut rows, &ws, n, big);
    let mount = format!("/workspace={}:ro", ws.display());
    let budget_mib = 1024;
    sessions(&mut rows, &bin, root.path(), &mount, n, big, budget_mib);
    requests(&mut rows, &bin, root.path(), &mount, n, big, budget_mib);
    under_load(&mut rows, &bin, root.path(), &mount, n, big, 512);
    println!("| measurement | filestore | baseline | ratio |");
    println!("|---|---|---|---|");
    for r in rows {
        println!("| {} | {} | {} | {} |", r.what, r.ours, r.baseline, r.ratio);
    }
}

/// N sessions of one engine kept as they grew vs replaced after the read.
fn in_process(rows: &mut Vec<Row>, ws: &Path, n: usize, big: usize) {
    let engine = filestore::new_engine_with(EngineConfig {
        max_sessions: (2 * n + 8) as u32,
        ..EngineConfig::default()
    })
    .expect("engine");
    let volume = Arc::new(DirVolume::open(ws, true).expect("dir volume"));
    let options = SessionOptions { shell: true, ..SessionOptions::default() };
    let make = || -> Session {
        let mount = MountSpec::new("/workspace", volume.clone()).read_only();
        engine.session_with(vec![mount], options.clone()).expect("session")
    };
    let read = |s: &mut Session| {
        let out = s.call("filestore_execute", &json!({"command": READ_BIG})).expect("read");
        assert_eq!(out.json["stdout"].as_str().map(str::trim), Some(big.to_string().as_str()));
    };
    let fresh = make().memory_bytes();
    // Replaced, as the server does: the read, then the instance released and a new one made.
    let before = rss(None);
    let mut replaced = Vec::new();
    let mut grown_to = 0;
    let mut read_us = Vec::new();
    for _ in 0..n {
        let mut s = make();
        let t = std::time::Instant::now();
        read(&mut s);
        read_us.push(t.elapsed().as_secs_f64() * 1e6);
        grown_to = grown_to.max(s.memory_bytes());
        s.release();
        replaced.push(make());
    }
    let replaced_growth = rss(None).saturating_sub(before);
    drop(replaced);
    // Kept as they grew: the old behaviour.
    let before = rss(None);
    let mut kept = Vec::new();
    for _ in 0..n {
        let mut s = make();
        read(&mut s);
        kept.push(s);
    }
    let kept_growth = rss(None).saturating_sub(before);
    drop(kept);
    let replace_us = median_us(5, 50, || {
        let mut s = make();
        s.release();
        drop(make());
    });
    read_us.sort_by(f64::total_cmp);
    let read_median = read_us[read_us.len() / 2];
    rows.push(Row {
        what: format!(
            "in process: {n} idle sessions after the read, RSS growth: replaced (what `serve` does) vs kept as grown (the old behaviour); a sandbox starts at {} and the read grew it to {}",
            mib(fresh),
            mib(grown_to)
        ),
        ours: format!("{} ({} each)", mib(replaced_growth), mib(replaced_growth / n)),
        baseline: format!("{} ({} each)", mib(kept_growth), mib(kept_growth / n)),
        ratio: format!("{:.3}×", replaced_growth as f64 / kept_growth as f64),
    });
    rows.push(Row {
        what: "in process: replacing a sandbox (release, new session; median of 50) vs the read that grew it (median)".into(),
        ours: us(replace_us),
        baseline: us(read_median),
        ratio: format!("{:.4}×", replace_us / read_median),
    });
}

/// A server over the big file with `extra` arguments; its RSS after one warm-up call.
fn server(bin: &str, root: &Path, mount: &str, extra: &[&str]) -> (Replica, usize) {
    let mut args = vec!["--shell", "--mount", mount];
    args.extend_from_slice(extra);
    let server = Replica::start(bin, root, &args);
    let mut warm = server.session(None, None).expect("a session");
    warm.call_ok("filestore_execute", json!({"command": "echo warm"}));
    let baseline = rss(Some(server.pid()));
    (server, baseline)
}

fn check_read(out: &str, big: usize) {
    assert_eq!(out.trim(), big.to_string(), "{out}");
}

/// N idle 2025-11-25 sessions after the read.
fn sessions(
    rows: &mut Vec<Row>,
    bin: &str,
    root: &Path,
    mount: &str,
    n: usize,
    big: usize,
    budget_mib: usize,
) {
    let budget = budget_mib.to_string();
    let (server, before) = server(bin, root, mount, &["--sandbox-memory-mib", &budget]);
    // First idle sessions that made a small call: what any idle session costs.
    let mut open: Vec<McpHttp> = Vec::new();
    for _ in 0..n {
        let mut s = server.session(None, None).expect("a session");
        s.call_ok("filestore_execute", json!({"command": "echo small"}));
        open.push(s);
    }
    let idle = rss(Some(server.pid()));
    for s in &mut open {
        check_read(&s.call_ok("filestore_execute", json!({"command": READ_BIG})), big);
    }
    let after = rss(Some(server.pid()));
    let what = "serve --http: {n} idle sessions after the read";
    server_rows(rows, what, n, [before, idle, after], budget_mib);
}

/// N 2026-07-28 requests, each of its own conversation, after the read.
fn requests(
    rows: &mut Vec<Row>,
    bin: &str,
    root: &Path,
    mount: &str,
    n: usize,
    big: usize,
    budget_mib: usize,
) {
    let budget = budget_mib.to_string();
    let extra = ["--state", "mem:", "--sandbox-memory-mib", &budget];
    let (server, before) = server(bin, root, mount, &extra);
    let call = |i: usize, command: &str| {
        let args = json!({"name": "filestore_execute", "arguments": {"command": command}});
        let m = stateless(server.port, Some(&format!("bench-{i}")), "tools/call", args);
        m["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    };
    // First each conversation's sandbox cached after a small call.
    for i in 0..n {
        assert_eq!(call(i, "echo small").trim(), "small");
    }
    let idle = rss(Some(server.pid()));
    for i in 0..n {
        check_read(&call(i, READ_BIG), big);
    }
    let after = rss(Some(server.pid()));
    let what = "serve --http --state mem: {n} 2026-07-28 requests after the read (each conversation's sandbox cached)";
    server_rows(rows, what, n, [before, idle, after], budget_mib);
}

/// The rows of a server's growth (RSS before the sessions, with them idle after a
/// small call, and after each read the file): the whole against the budget, and what
/// the read added per session against the reclaim threshold an idle sandbox may keep
/// (the old behaviour kept what the read grew it to).
fn server_rows(
    rows: &mut Vec<Row>,
    what: &str,
    n: usize,
    [before, idle, after]: [usize; 3],
    budget_mib: usize,
) {
    let grown = after.saturating_sub(before);
    let read = after.saturating_sub(idle);
    let what = what.replace("{n}", &n.to_string());
    rows.push(Row {
        what: format!(
            "{what}: RSS {} → {} (idle after a small call) → {}, growth vs `--sandbox-memory-mib {budget_mib}`",
            mib(before),
            mib(idle),
            mib(after)
        ),
        ours: mib(grown),
        baseline: mib(budget_mib * MIB),
        ratio: format!("{:.3}×", grown as f64 / (budget_mib * MIB) as f64),
    });
    rows.push(Row {
        what: format!(
            "{what}: what the read added per session vs the reclaim threshold an idle sandbox may keep"
        ),
        ours: mib(read / n),
        baseline: mib(RECLAIM_ABOVE_BYTES),
        ratio: format!("{:.3}×", (read / n) as f64 / RECLAIM_ABOVE_BYTES as f64),
    });
}

/// N sessions reading at once under a budget of `budget_mib`.
fn under_load(
    rows: &mut Vec<Row>,
    bin: &str,
    root: &Path,
    mount: &str,
    n: usize,
    big: usize,
    budget_mib: usize,
) {
    let budget = budget_mib.to_string();
    let (server, before) = server(bin, root, mount, &["--sandbox-memory-mib", &budget]);
    let pid = server.pid();
    let sessions: Vec<McpHttp> = (0..n).map(|_| server.session(None, None).unwrap()).collect();
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicUsize::new(0));
    let sampler = {
        let (done, peak) = (done.clone(), peak.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss(Some(pid)), Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    let outcomes: Vec<Value> = std::thread::scope(|scope| {
        let running: Vec<_> = sessions
            .into_iter()
            .map(|mut s| {
                scope.spawn(move || s.call("filestore_execute", json!({"command": READ_BIG})))
            })
            .collect();
        running.into_iter().map(|t| t.join().unwrap()).collect()
    });
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let text = |r: &Value| r["content"][0]["text"].as_str().unwrap_or_default().to_string();
    let ok = outcomes.iter().filter(|r| r["isError"] != true).count();
    for r in outcomes.iter().filter(|r| r["isError"] != true) {
        check_read(&text(r), big);
    }
    let refused = outcomes
        .iter()
        .filter(|r| r["isError"] == true && text(r).contains("--sandbox-memory-mib"))
        .count();
    assert_eq!(ok + refused, n, "every call read the file or was refused by the budget");
    let grown = peak.load(Ordering::Relaxed).saturating_sub(before);
    rows.push(Row {
        what: format!(
            "the budget under load: {n} sessions reading at once under `--sandbox-memory-mib {budget_mib}` ({ok} read, {refused} refused with limit-exceeded): highest RSS growth seen vs the budget"
        ),
        ours: mib(grown),
        baseline: mib(budget_mib * MIB),
        ratio: format!("{:.3}×", grown as f64 / (budget_mib * MIB) as f64),
    });
}
