//! `python3` as an agent meets it: `filestore_execute` of a python3 line over ONE MCP
//! stdio session of the real `filestore serve --shell` binary, against spawning the
//! machine's own `python3` for the same line, in the same run (`BENCHMARKS.md`,
//! "python3 over MCP").
//!
//! ```sh
//! cargo bench --locked -p filestore --bench python_mcp
//! ```
//!
//! `$FILESTORE_BENCH_BIN` names another `filestore` binary (default: the one cargo
//! built with the bench); `$FILESTORE_BENCH_RUNS` the timed runs per case (default
//! 15; the median counts).
//!
//! - The baseline: `bash -c LINE` with the host's CPython (`python3 -c 'print(1)'`
//!   first: the start-up an agent's every line pays), spawned and waited for.
//! - Ours: one `tools/call` of `filestore_execute` with the same line (request
//!   written until the answer is read back): the shell, a fresh CPython instance in
//!   the host, its filesystem requests answered by the component.
//! - Each case's stdout is compared with the host CPython's; a differing case is
//!   marked and still timed. The report is each ratio and their geometric mean.
//! - Memory per run: the host process's peak resident set after the cases, against
//!   its value before the first python3 line.

mod mcp_stdio;
#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;
mod timing;

use std::path::Path;
use std::process::Command;

use mcp_stdio::Server;
use serde_json::json;
use timing::{median_us, us};

/// The cases: (name, command line).
const CASES: &[(&str, &str)] = &[
    ("start-up: print(1)", "python3 -c 'print(1)'"),
    ("import json, csv, re", "python3 -c 'import json, csv, re; print(json.dumps([1]))'"),
    (
        "csv summary (2,000 rows)",
        "python3 -c 'import csv; r = list(csv.DictReader(open(\"rows.csv\"))); print(len(r), sum(int(x[\"n\"]) for x in r))'",
    ),
    (
        "json round trip",
        "python3 -c 'import json; d = json.load(open(\"data.json\")); json.dump(d, open(\"copy.json\", \"w\")); print(len(d))'",
    ),
    (
        "regex over a log",
        "python3 -c 'import re; print(len(re.findall(r\"ERROR \\w+\", open(\"app.log\").read())))'",
    ),
    (
        "pathlib walk",
        "python3 -c 'import pathlib; print(len(list(pathlib.Path(\"tree\").rglob(\"*.txt\"))))'",
    ),
    (
        "pipe in and out",
        "cat rows.csv | python3 -c 'import sys; print(sum(1 for _ in sys.stdin))' | head -1",
    ),
    ("loop of 10^6", "python3 -c 'print(sum(i * i for i in range(10**6)))'"),
];

fn fixture(dir: &Path) {
    let rows: String = std::iter::once("id,n\n".to_string())
        .chain((0..2000).map(|i| format!("{i},{}\n", i % 7)))
        .collect();
    std::fs::write(dir.join("rows.csv"), rows).unwrap();
    let data: Vec<_> =
        (0..500).map(|i| json!({"id": i, "name": format!("n{i}"), "tags": ["a", "b"]})).collect();
    std::fs::write(dir.join("data.json"), serde_json::to_string(&data).unwrap()).unwrap();
    let log: String = (0..5000)
        .map(|i| format!("2024-01-01 {} item{i}\n", ["INFO", "ERROR", "WARN"][i % 3]))
        .collect();
    std::fs::write(dir.join("app.log"), log).unwrap();
    for d in 0..10 {
        let sub = dir.join(format!("tree/d{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..20 {
            std::fs::write(sub.join(format!("f{f}.txt")), "x\n").unwrap();
        }
    }
}

fn execute(s: &mut Server, command: &str) -> String {
    let r = s.call("filestore_execute", &json!({"command": command, "cwd": "/w"}));
    r["structuredContent"]["stdout"].as_str().unwrap_or_default().to_string()
}

/// `VmHWM` (peak resident set) of process `pid`, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    support::bash::require_programs(
        &[("bash", "bash"), ("python3", "python3")],
        "the python3 baseline",
    );
    let bin = std::env::var("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_filestore").to_string());
    let runs: usize =
        std::env::var("FILESTORE_BENCH_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(15);
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    let mut server = Server::start({
        let mut c = Command::new(&bin);
        c.args(["serve", "--shell", "--mount"]).arg(format!("/w={}", dir.path().display()));
        c
    });
    execute(&mut server, "true");
    let before = peak_kib(server.pid());

    println!("| case | filestore (MCP call) | host python3 (bash -c) | ratio |");
    println!("|---|---|---|---|");
    let mut ratios = Vec::new();
    let mut differ = Vec::new();
    for (name, line) in CASES {
        let ours_out = execute(&mut server, line);
        let (theirs_out, _) = support::bash::bash(dir.path(), line, support::bash::Locale::Utf8);
        let same = ours_out == theirs_out;
        if !same {
            differ.push(format!("{name}: ours {ours_out:?}, python3 {theirs_out:?}"));
        }
        let ours = median_us(1, runs, || {
            execute(&mut server, line);
        });
        let base = median_us(1, runs, || {
            support::bash::bash(dir.path(), line, support::bash::Locale::Utf8);
        });
        let ratio = ours / base;
        ratios.push(ratio);
        let mark = if same { "" } else { " (output differs)" };
        println!("| {name}{mark} | {} | {} | {ratio:.2}× |", us(ours), us(base));
    }
    let geomean = (ratios.iter().map(|x| x.ln()).sum::<f64>() / ratios.len() as f64).exp();
    println!("| **geometric mean** | | | **{geomean:.2}×** |");
    let after = peak_kib(server.pid());
    println!(
        "\nserver peak resident set: {} MiB before the first python3 line, {} MiB after {} runs",
        before / 1024,
        after / 1024,
        CASES.len() * (runs + 2)
    );
    if !differ.is_empty() {
        println!("\noutput differs:\n{}", differ.join("\n"));
    }
    println!("\nbinary: {bin}");
}
