//! Sandbox benchmarks: every measurement is compared with a baseline measured in the
//! same run, and reported as a ratio (docs/architecture.md#engine-and-sessions,
//! `BENCHMARKS.md`).
//!
//! Run: `cargo bench -p filestore --bench sandbox` (all sections), or name sections:
//! `cargo bench -p filestore --bench sandbox -- session call grep glob memory`.
//! Environment: `FILESTORE_BENCH_TREE` (the grep tree, default the cargo registry
//! sources), `FILESTORE_BENCH_SIMD=0` (skip building the `+simd128` guest).
//! `sessions10k` (only when named) holds 10,000 live sessions
//! (`FILESTORE_BENCH_SESSIONS` for another count).
//!
//! A bench binary (`harness = false`) rather than criterion: each figure here is a
//! median over repeated runs next to its baseline, and several baselines are external
//! (ripgrep, a second component build); criterion's per-function statistics add
//! little to that and a long compile on a shared 2-core machine.
//!
//! The grep section runs the `rg` binary as its named baseline (`rg -j1 -uu -c`) and
//! is skipped when `rg` is not installed. Benches are not part of the test command;
//! the tests compare grep with ripgrep's library crates in-process and need no `rg`.

mod timing;

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use filestore::volumes::MemoryVolume;
use filestore::volumes::dir::DirVolume;
use filestore::wit::FilestoreComponent;
use filestore::{Engine, HostState, MountSpec, Session, SessionOptions};
use filestore::{EngineConfig, component};
use filestore_guest::vfs::limits::Limits;
use serde_json::{Value, json};
use timing::{median_us, us};
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Store, StoreLimitsBuilder};

/// One result row.
struct Row {
    section: &'static str,
    what: String,
    ours: String,
    baseline: String,
    ratio: String,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let want = |s: &str| args.is_empty() || args.iter().any(|a| a == s);
    let mut rows = Vec::new();
    eprintln!("machine: {}", machine());
    if want("session") {
        bench_session(&mut rows);
    }
    if want("call") {
        bench_call(&mut rows);
    }
    if want("glob") {
        bench_glob(&mut rows);
    }
    if want("grep") {
        bench_grep(&mut rows);
    }
    if want("memory") {
        bench_memory(&mut rows);
    }
    // Not in the default run (it holds 10,000 sessions); ask for it by name.
    if args.iter().any(|a| a == "sessions10k") {
        bench_many_sessions(&mut rows);
    }
    let mut out = String::new();
    let _ = writeln!(out, "| section | measurement | filestore | baseline | ratio |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for r in &rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.section, r.what, r.ours, r.baseline, r.ratio
        );
    }
    println!("\nmachine: {}\n\n{out}", machine());
}

/// `nproc` and the CPU model.
fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    format!("{n} CPUs, {cpu}")
}

fn ratio(ours: f64, base: f64) -> String {
    format!("{:.2}×", ours / base)
}

fn engine(pooling: bool, max_sessions: u32) -> Engine {
    filestore::new_engine_with(EngineConfig { pooling, max_sessions, ..EngineConfig::default() })
        .expect("engine")
}

fn small_volume() -> Arc<MemoryVolume> {
    let v = MemoryVolume::new();
    let text: String = (1..=20).map(|i| format!("line {i} of a small file\n")).collect();
    v.insert("/small.txt", text);
    Arc::new(v)
}

// ---- new session -------------------------------------------------------------------

fn bench_session(rows: &mut Vec<Row>) {
    eprintln!("session: building engines");
    let pooled = engine(true, 1000);
    let ondemand = engine(false, 1000);
    let vol = small_volume();
    let full = |e: &Engine| {
        let vol = vol.clone();
        let e = e.clone();
        median_us(200, 2000, move || {
            let s = e.session(vec![MountSpec::new("/w", vol.clone())]).expect("session");
            black_box(&s);
            drop(s);
        })
    };
    // Instantiation alone, from the shared InstancePre.
    let pre_only = |e: &Engine| {
        let e = e.clone();
        median_us(200, 2000, move || {
            let limits = StoreLimitsBuilder::new().build();
            let mut store = Store::new(
                e.wasmtime(),
                HostState::new(limits, Arc::new(filestore::tools::NoTools), "bench".into()),
            );
            store.set_epoch_deadline(1 << 30);
            let b = e.instance_pre().instantiate(&mut store).expect("instantiate");
            black_box(&b);
        })
    };
    // A plain instantiate: on-demand allocator, linker resolving imports every time.
    let plain = {
        let e = ondemand.clone();
        let component = Component::new(e.wasmtime(), component()).expect("compile");
        let mut linker: Linker<HostState> = Linker::new(e.wasmtime());
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).expect("wasi");
        FilestoreComponent::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |s| s)
            .expect("link");
        median_us(50, 500, move || {
            let limits = StoreLimitsBuilder::new().build();
            let mut store = Store::new(
                e.wasmtime(),
                HostState::new(limits, Arc::new(filestore::tools::NoTools), "bench".into()),
            );
            store.set_epoch_deadline(1 << 30);
            let b = FilestoreComponent::instantiate(&mut store, &component, &linker)
                .expect("instantiate");
            black_box(&b);
        })
    };
    let p_pre = pre_only(&pooled);
    let o_pre = pre_only(&ondemand);
    rows.push(Row {
        section: "new session",
        what: "instantiate (median): pooling + CoW + InstancePre vs plain `linker.instantiate`, on-demand allocator".into(),
        ours: us(p_pre),
        baseline: us(plain),
        ratio: ratio(p_pre, plain),
    });
    rows.push(Row {
        section: "new session",
        what: "instantiate (median): pooling vs on-demand, both from the InstancePre".into(),
        ours: us(p_pre),
        baseline: us(o_pre),
        ratio: ratio(p_pre, o_pre),
    });
    // What a store costs before the component runs (a new session's profile):
    // `HostState::new` (an empty `WasiCtx` and resource table) and the `Store`.
    let state_only = median_us(200, 2000, || {
        let limits = StoreLimitsBuilder::new().build();
        black_box(HostState::new(limits, Arc::new(filestore::tools::NoTools), "bench".into()));
    });
    let store_only = {
        let e = pooled.clone();
        median_us(200, 2000, move || {
            let limits = StoreLimitsBuilder::new().build();
            let store = Store::new(
                e.wasmtime(),
                HostState::new(limits, Arc::new(filestore::tools::NoTools), "bench".into()),
            );
            black_box(&store);
        })
    };
    rows.push(Row {
        section: "new session",
        what: "parts of a whole session (median): `HostState::new` (empty `WasiCtx`, resource table) / `Store::new` with it, vs instantiation from the InstancePre".into(),
        ours: format!("{} / {}", us(state_only), us(store_only)),
        baseline: us(p_pre),
        ratio: ratio(store_only, p_pre),
    });
    let p_full = full(&pooled);
    let o_full = full(&ondemand);
    rows.push(Row {
        section: "new session",
        what: "whole `Engine::session` (store + instantiate + `session.create` with one mount + drop), median: pooling vs on-demand".into(),
        ours: us(p_full),
        baseline: us(o_full),
        ratio: ratio(p_full, o_full),
    });
}

// ---- call overhead -----------------------------------------------------------------

fn bench_call(rows: &mut Vec<Row>) {
    eprintln!("call: small read through the component vs native");
    let e = engine(true, 16);
    let mut s = e.session(vec![MountSpec::new("/w", small_volume())]).expect("session");
    let mut native = filestore_guest::session::Session::new(Limits::default());
    native.mount("/w", Box::new(small_volume()), 0, false).expect("mount");
    let args = json!({"path": "/w/small.txt", "limit": 5});
    let a = s.call("filestore_read", &args).expect("read");
    let b = native.call("filestore_read", &args).expect("read");
    assert_eq!(a.text, b.text, "the component and the native build must agree");
    let wasm = median_us(2000, 20_000, || {
        black_box(s.call("filestore_read", &args).expect("read"));
    });
    let nat = median_us(2000, 20_000, || {
        black_box(native.call("filestore_read", &args).expect("read"));
    });
    rows.push(Row {
        section: "call overhead",
        what: "`filestore_read` of 5 lines of a 20-line memory file (median): component vs the same guest code compiled natively".into(),
        ours: us(wasm),
        baseline: us(nat),
        ratio: ratio(wasm, nat),
    });
    // The typed export: the same read with no JSON either way, against
    // the native typed call.
    use filestore::wit::exports::filestore::component::filestore as fs;
    let typed_req = || fs::ReadRequest {
        path: "/w/small.txt".into(),
        offset: None,
        limit: Some(5),
        raw: None,
        tail: None,
    };
    let native_req = filestore_guest::ops::read::ReadRequest {
        path: "/w/small.txt".into(),
        offset: 1,
        limit: 5,
        raw: false,
        tail: None,
        encoding: Default::default(),
        byte_offset: 0,
        max_bytes: None,
        pages: None,
        render: None,
    };
    let t = s.with_typed(|st, api, h| api.call_read(st, h, &typed_req())).expect("typed read");
    assert_eq!(t.text, native.read(&native_req).expect("read").text);
    let typed = median_us(2000, 20_000, || {
        black_box(s.with_typed(|st, api, h| api.call_read(st, h, &typed_req())).expect("read"));
    });
    let ntyped = median_us(2000, 20_000, || {
        black_box(native.read(&native_req).expect("read"));
    });
    rows.push(Row {
        section: "call overhead",
        what: "typed `session.read` (no JSON) of the same 5 lines (median): component vs the native `Session::read`".into(),
        ours: us(typed),
        baseline: us(ntyped),
        ratio: ratio(typed, ntyped),
    });
    rows.push(Row {
        section: "call overhead",
        what: "typed `session.read` through the component vs the JSON `filestore_read` through the native build (what a host that needs no JSON saves against the native JSON call)".into(),
        ours: us(typed),
        baseline: us(nat),
        ratio: ratio(typed, nat),
    });
    let st = median_us(2000, 20_000, || {
        black_box(s.stat("/w/small.txt").expect("stat"));
    });
    let nst = median_us(2000, 20_000, || {
        black_box(native.stat("/w/small.txt").expect("stat"));
    });
    rows.push(Row {
        section: "call overhead",
        what: "`stat` (typed export, no JSON) (median): component vs native".into(),
        ours: us(st),
        baseline: us(nst),
        ratio: ratio(st, nst),
    });
    // The boundary alone (a small read's profile): an export that does nothing
    // (`diagnostics.spin(0)`), through the session (deadline, budget, trap handling)
    // and as a bare typed call on a store of its own.
    let spin = median_us(2000, 20_000, || {
        black_box(s.diagnostics_spin(0).expect("spin"));
    });
    let bare = {
        let mut store = Store::new(
            e.wasmtime(),
            HostState::new(
                StoreLimitsBuilder::new().build(),
                Arc::new(filestore::tools::NoTools),
                "bench".into(),
            ),
        );
        store.set_epoch_deadline(1 << 30);
        let b = e.instance_pre().instantiate(&mut store).expect("instantiate");
        median_us(2000, 20_000, || {
            black_box(b.filestore_component_diagnostics().call_spin(&mut store, 0).expect("spin"));
        })
    };
    rows.push(Row {
        section: "call overhead",
        what: "one empty crossing (`diagnostics.spin(0)`, median): through `Session` (deadline, budget, trap handling) vs a bare typed call".into(),
        ours: us(spin),
        baseline: us(bare),
        ratio: ratio(spin, bare),
    });
}

// ---- glob --------------------------------------------------------------------------

fn bench_glob(rows: &mut Vec<Row>) {
    eprintln!("glob: 100,000 entries");
    const N: usize = 100_000;
    let exts = ["rs", "txt", "md", "json"];
    let paths: Vec<String> = (0..N)
        .map(|i| format!("/d{}/s{}/file{i}.{}", i % 100, (i / 100) % 10, exts[i % exts.len()]))
        .collect();
    let vol = MemoryVolume::new();
    for p in &paths {
        vol.insert(p, "x");
    }
    let vol = Arc::new(vol);
    let e = engine(true, 16);
    let mut s = e
        .session_with(
            vec![MountSpec::new("/w", vol.clone())],
            SessionOptions { deadline: Duration::from_secs(300), ..SessionOptions::default() },
        )
        .expect("session");
    let args = json!({"pattern": "**/*.rs", "path": "/w"});
    let j = s.call("filestore_glob", &args).expect("glob").json;
    assert_eq!(j["total_matches"], N / 4);
    let wasm = median_us(2, 15, || {
        black_box(s.call("filestore_glob", &args).expect("glob"));
    });
    let mut native = filestore_guest::session::Session::new(Limits::default());
    native.mount("/w", Box::new(vol.clone()), 0, false).expect("mount");
    let nat = median_us(2, 15, || {
        black_box(native.call("filestore_glob", &args).expect("glob"));
    });
    let full_paths: Vec<String> = paths.iter().map(|p| format!("/w{p}")).collect();
    let gs = median_us(2, 15, || {
        let m = globset::Glob::new("/w/**/*.rs").unwrap().compile_matcher();
        let n = full_paths.iter().filter(|p| m.is_match(p.as_str())).count();
        assert_eq!(n, N / 4);
    });
    rows.push(Row {
        section: "glob",
        what: "`**/*.rs` over 100,000 memory-volume files (25,000 match; first 1,000 returned), median: component vs `globset` matching the same path list".into(),
        ours: us(wasm),
        baseline: us(gs),
        ratio: ratio(wasm, gs),
    });
    rows.push(Row {
        section: "glob",
        what: "the same: component vs the same guest code compiled natively (walk + match + sort)"
            .into(),
        ours: us(wasm),
        baseline: us(nat),
        ratio: ratio(wasm, nat),
    });

    // The same files in a directory volume (page cache warm): the walk is the host's
    // directory reads and one `statx` per entry, the same for both.
    eprintln!("glob: 100,000 files in a directory");
    let tmp = tempfile::tempdir().expect("temp dir");
    for p in &paths {
        let f = tmp.path().join(&p[1..]);
        std::fs::create_dir_all(f.parent().unwrap()).expect("mkdir");
        std::fs::write(&f, "x").expect("write");
    }
    let dir = Arc::new(DirVolume::open(tmp.path(), true).expect("dir volume"));
    let mut s = e
        .session_with(
            vec![MountSpec::new("/w", dir.clone())],
            SessionOptions { deadline: Duration::from_secs(300), ..SessionOptions::default() },
        )
        .expect("session");
    let j = s.call("filestore_glob", &args).expect("glob").json;
    assert_eq!(j["total_matches"], N / 4);
    let mut native = filestore_guest::session::Session::new(Limits::default());
    native.mount("/w", Box::new(dir), 0, false).expect("mount");
    assert_eq!(native.call("filestore_glob", &args).expect("glob").json, j);
    let wasm = median_us(2, 9, || {
        black_box(s.call("filestore_glob", &args).expect("glob"));
    });
    let nat = median_us(2, 9, || {
        black_box(native.call("filestore_glob", &args).expect("glob"));
    });
    rows.push(Row {
        section: "glob",
        what: "the same 100,000 files in a directory volume (page cache warm): component vs the same guest code compiled natively".into(),
        ours: us(wasm),
        baseline: us(nat),
        ratio: ratio(wasm, nat),
    });
}

// ---- grep --------------------------------------------------------------------------

/// The grep corpus: `$FILESTORE_BENCH_TREE`, else the cargo registry sources.
fn grep_tree() -> Option<PathBuf> {
    if let Some(t) = std::env::var_os("FILESTORE_BENCH_TREE") {
        return Some(PathBuf::from(t));
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry").join("src");
    // One index directory (e.g. index.crates.io-...), the largest.
    std::fs::read_dir(&src).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.is_dir())
}

/// Every regular file beneath `root` (symlinks not followed), as (relative path, bytes).
fn load_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                if let Ok(data) = std::fs::read(&p) {
                    out.push((format!("/{rel}"), data));
                }
            }
        }
    }
    out
}

/// Builds the guest with `+simd128` into its own target directory; the component bytes.
fn simd_component() -> Option<Vec<u8>> {
    if std::env::var("FILESTORE_BENCH_SIMD").is_ok_and(|v| v == "0") {
        return None;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.to_path_buf();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("guest-wasm-simd128");
    eprintln!("grep: building the guest with +simd128 into {}", target.display());
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .args(["build", "--release", "--lib", "-p", "filestore-guest", "--target", "wasm32-wasip2"])
        .arg("--target-dir")
        .arg(&target)
        .env("RUSTFLAGS", "-C target-feature=+simd128")
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .ok()?;
    if !status.success() {
        eprintln!("grep: the +simd128 build failed; skipping that variant");
        return None;
    }
    std::fs::read(target.join("wasm32-wasip2/release/filestore_guest.wasm")).ok()
}

fn bench_grep(rows: &mut Vec<Row>) {
    let Some(tree) = grep_tree() else {
        eprintln!("grep: no source tree found; set FILESTORE_BENCH_TREE");
        return;
    };
    if Command::new("rg").arg("--version").output().is_err() {
        eprintln!("grep: `rg` (ripgrep) is not installed; skipping");
        return;
    }
    eprintln!("grep: loading {}", tree.display());
    let files = load_tree(&tree);
    let bytes: u64 = files.iter().map(|(_, d)| d.len() as u64).sum();
    let mb = bytes as f64 / 1e6;
    eprintln!("grep: {} files, {mb:.0} MB", files.len());
    let mem = MemoryVolume::new();
    for (p, d) in &files {
        mem.insert(p, d);
    }
    drop(files);
    let mem: Arc<MemoryVolume> = Arc::new(mem);
    let dir = Arc::new(DirVolume::open(&tree, true).expect("dir volume"));
    // The same directory without the host read-ahead (what the read-ahead buys).
    let dir_plain =
        Arc::new(DirVolume::open(&tree, true).expect("dir volume").with_read_ahead(false));
    let opts =
        || SessionOptions { deadline: Duration::from_secs(600), ..SessionOptions::default() };
    let patterns = [
        ("literal", r"unsafe fn", r"unsafe fn"),
        ("regex", r"fn [a-z_]+\(&mut self", r"fn [a-z_]+\(&mut self"),
    ];
    let default = engine(true, 16);
    let simd = simd_component().map(|c| {
        filestore::new_engine_with(EngineConfig {
            max_sessions: 16,
            component: Some(c),
            ..EngineConfig::default()
        })
        .expect("simd engine")
    });
    for (label, ours_pat, rg_pat) in patterns {
        // ripgrep, one thread, every file (no ignore files, hidden files included).
        let mut rg_total = 0u64;
        let rg = median_us(1, 5, || {
            let out = Command::new("rg")
                .args(["-j1", "-uu", "-c", "--no-filename", "--no-config", "--", rg_pat])
                .arg(&tree)
                .output()
                .expect("rg");
            rg_total = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.trim().parse::<u64>().ok())
                .sum();
        });
        // ripgrep with all its threads (on this machine's cores).
        let rg_all = median_us(1, 5, || {
            let out = Command::new("rg")
                .args(["-uu", "-c", "--no-filename", "--no-config", "--", rg_pat])
                .arg(&tree)
                .output()
                .expect("rg");
            black_box(out);
        });
        let mut variants: Vec<(&str, &Engine)> = vec![("", &default)];
        if let Some(e) = &simd {
            variants.push((" +simd128", e));
        }
        for (vname, eng) in variants {
            for (volname, vol) in [
                ("memory", mem.clone() as filestore::volumes::SharedVolume),
                ("dir", dir.clone() as filestore::volumes::SharedVolume),
                ("dir (no read-ahead)", dir_plain.clone() as filestore::volumes::SharedVolume),
            ] {
                let mut s: Session =
                    eng.session_with(vec![MountSpec::new("/t", vol)], opts()).expect("session");
                let args = json!({"pattern": ours_pat, "path": "/t", "output_mode": "count", "head_limit": 1});
                let mut total = 0u64;
                let t = median_us(1, 5, || {
                    let j: Value = s.call("filestore_grep", &args).expect("grep").json;
                    total = j["total_matches"].as_u64().unwrap_or(0);
                });
                eprintln!(
                    "grep {label}{vname} {volname}: {total} matching lines (rg: {rg_total}), {}",
                    us(t)
                );
                rows.push(Row {
                    section: "grep",
                    what: format!(
                        "{label} `{ours_pat}`, count mode, {mb:.0} MB in {volname} volume{vname} ({total} lines; rg {rg_total}): MB/s vs `rg -j1 -uu -c`"
                    ),
                    ours: format!("{} ({:.0} MB/s)", us(t), mb / (t / 1e6)),
                    baseline: format!("{} ({:.0} MB/s)", us(rg), mb / (rg / 1e6)),
                    ratio: ratio(t, rg),
                });
                if volname == "dir" {
                    rows.push(Row {
                        section: "grep",
                        what: format!(
                            "{label} `{ours_pat}`, count mode, {mb:.0} MB in dir volume{vname} (host read-ahead): vs plain `rg -uu -c` (all threads)"
                        ),
                        ours: format!("{} ({:.0} MB/s)", us(t), mb / (t / 1e6)),
                        baseline: format!("{} ({:.0} MB/s)", us(rg_all), mb / (rg_all / 1e6)),
                        ratio: ratio(t, rg_all),
                    });
                }
            }
        }
    }
}

// ---- memory ------------------------------------------------------------------------

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn bench_memory(rows: &mut Vec<Row>) {
    const LIVE: usize = 1000;
    eprintln!("memory: {LIVE} live sessions");
    let e = engine(true, LIVE as u32 + 8);
    // Warm: one session created and used, so lazily built engine state is counted once.
    {
        let mut s = e.session(vec![MountSpec::new("/w", small_volume())]).expect("session");
        s.call("filestore_read", &json!({"path": "/w/small.txt"})).expect("read");
    }
    let before = rss_kib();
    let mut live: Vec<Session> = Vec::with_capacity(LIVE);
    for _ in 0..LIVE {
        let mut s = e.session(vec![MountSpec::new("/w", small_volume())]).expect("session");
        s.call("filestore_read", &json!({"path": "/w/small.txt"})).expect("read");
        live.push(s);
    }
    let after = rss_kib();
    let linear: usize = live.iter().map(|s| s.memory_bytes()).sum::<usize>() / LIVE;
    let per = (after.saturating_sub(before)) as f64 / LIVE as f64;
    rows.push(Row {
        section: "memory",
        what: format!("resident memory per idle session (RSS delta over {LIVE} live sessions, each after one read) vs the 2 MiB target"),
        ours: format!("{:.0} KiB", per),
        baseline: "2048 KiB".into(),
        ratio: ratio(per, 2048.0),
    });
    rows.push(Row {
        section: "memory",
        what: format!("process RSS with {LIVE} live sessions (before them: {} MiB); linear memory per session (virtual, mostly untouched CoW)", before / 1024),
        ours: format!("{} MiB", after / 1024),
        baseline: format!("{:.1} MiB linear", linear as f64 / 1048576.0),
        ratio: "—".into(),
    });
    drop(live);
}

// ---- 10,000 live sessions ----------------------------------------------------------

/// 10,000 live sessions in one process (one engine, pooling
/// allocator), each after a read; RSS per session, and the latency of a small read on
/// sessions picked across all of them against the same read with one live session.
fn bench_many_sessions(rows: &mut Vec<Row>) {
    let live_n: usize = std::env::var("FILESTORE_BENCH_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    eprintln!("sessions10k: {live_n} live sessions");
    let e = engine(true, live_n as u32 + 8);
    let read = json!({"path": "/w/small.txt"});
    // Baseline: the same read with a single live session.
    let mut one = e.session(vec![MountSpec::new("/w", small_volume())]).expect("session");
    let alone = median_us(200, 2000, || {
        one.call("filestore_read", &read).expect("read");
    });
    drop(one);
    let before = rss_kib();
    let started = Instant::now();
    let mut live: Vec<Session> = Vec::with_capacity(live_n);
    for i in 0..live_n {
        let mut s = match e.session(vec![MountSpec::new("/w", small_volume())]) {
            Ok(s) => s,
            Err(err) => panic!("session {i} of {live_n}: {err}"),
        };
        s.call("filestore_read", &read).expect("read");
        live.push(s);
    }
    let create = started.elapsed();
    let after = rss_kib();
    // Reads spread over all the sessions (a stride coprime with the count), so each
    // call touches a session that has been idle while thousands of others ran.
    let mut k = 0usize;
    let crowded = median_us(200, 2000, || {
        k = (k + 7919) % live_n;
        live[k].call("filestore_read", &read).expect("read");
    });
    let per = after.saturating_sub(before) as f64 / live_n as f64;
    rows.push(Row {
        section: "sessions",
        what: format!("resident memory per live session ({live_n} live, each after one read; RSS {} MiB → {} MiB) vs the 2 MiB target", before / 1024, after / 1024),
        ours: format!("{per:.0} KiB"),
        baseline: "2048 KiB".into(),
        ratio: ratio(per, 2048.0),
    });
    rows.push(Row {
        section: "sessions",
        what: format!("small read on a session picked across {live_n} live ones vs with one live session (median)"),
        ours: us(crowded),
        baseline: us(alone),
        ratio: ratio(crowded, alone),
    });
    rows.push(Row {
        section: "sessions",
        what: format!("creating {live_n} sessions, each with one read (mean per session)"),
        ours: us(create.as_secs_f64() * 1e6 / live_n as f64),
        baseline: "—".into(),
        ratio: "—".into(),
    });
    drop(live);
}
