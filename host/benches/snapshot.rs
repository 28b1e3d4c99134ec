//! A snapshot of a 10,000-file workspace with 10 files changed, against the first
//! (full) snapshot of the same workspace in the same run (docs/snapshots.md): time,
//! files read, objects and bytes written, and the store's growth on disk. The workspace
//! and the store are directories (dir volumes); files are 1 KiB in 100 directories of
//! 100.
//!
//! ```sh
//! cargo bench -p filestore --bench snapshot
//! ```
//!
//! Between rounds the bench waits 2.1 s (untimed): a file changed within 2 s of
//! the snapshot before is read again by the next one (its time cannot prove it
//! unchanged), and agents do not snapshot many times a second.

use std::path::Path;
use std::time::{Duration, Instant};

use filestore::snapshot::{CaptureStats, Snapshots};
use filestore::volumes::Volume;
use filestore::volumes::dir::DirVolume;

#[path = "timing/mod.rs"]
#[allow(dead_code)] // only `us`: this bench times whole snapshots itself
mod timing;

use timing::us;

const DIRS: usize = 100;
const PER_DIR: usize = 100;
const CHANGED: usize = 10;
const ROUNDS: usize = 5;

/// Bytes of every file beneath `dir`.
fn disk_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                total += m.len();
            }
        }
    }
    total
}

fn workspace(root: &Path) {
    for d in 0..DIRS {
        let dir = root.join(format!("pkg{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..PER_DIR {
            let line = format!("// pkg {d} file {f}\n");
            std::fs::write(dir.join(format!("m{f:03}.rs")), line.repeat(1024 / line.len() + 1))
                .unwrap();
        }
    }
}

/// One snapshot: its time (µs), stats and the store's growth (bytes).
fn take(
    snaps: &Snapshots<'_>,
    store: &Path,
    name: &str,
    w: &DirVolume,
) -> (f64, CaptureStats, u64) {
    let before = disk_bytes(store);
    let t = Instant::now();
    let r = snaps.create(name, &[("workspace", w as &dyn Volume)], None).expect("snapshot");
    let took = t.elapsed().as_secs_f64() * 1e6;
    (took, r.stats, disk_bytes(store) - before)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    workspace(&work);
    std::thread::sleep(Duration::from_millis(2100));
    let w = DirVolume::open(&work, false).unwrap();
    // The first (full) snapshot, each into an empty store: three stores, the median.
    let mut firsts = Vec::new();
    let mut first = None;
    for i in 0..3 {
        let store_dir = tmp.path().join(format!("store{i}"));
        std::fs::create_dir(&store_dir).unwrap();
        let store = DirVolume::open(&store_dir, false).unwrap();
        let snaps = Snapshots::new(&store, "/mounts/workspace");
        let (t, stats, bytes) = take(&snaps, &store_dir, "full", &w);
        firsts.push(t);
        first = Some((stats, bytes));
    }
    let (first_stats, first_bytes) = first.unwrap();
    let first_t = median(firsts);
    // Then rounds of 10 changed files and a snapshot, in the last store.
    let store_dir = tmp.path().join("store2");
    let store = DirVolume::open(&store_dir, false).unwrap();
    let snaps = Snapshots::new(&store, "/mounts/workspace");
    let (mut times, mut last) = (Vec::new(), None);
    for round in 0..ROUNDS {
        std::thread::sleep(Duration::from_millis(2100));
        for i in 0..CHANGED {
            let p = work.join(format!("pkg{:03}/m{:03}.rs", (i * 7 + round) % DIRS, i));
            std::fs::write(&p, format!("// changed in round {round}\n").repeat(40)).unwrap();
        }
        let (t, stats, bytes) = take(&snaps, &store_dir, &format!("round{round}"), &w);
        times.push(t);
        last = Some((stats, bytes));
    }
    let (stats, bytes) = last.unwrap();
    let t = median(times);
    println!(
        "| snapshot | time | files | files read | objects written | bytes written | store growth on disk |"
    );
    println!("|---|---|---|---|---|---|---|");
    let row = |what: &str, t: f64, s: &CaptureStats, disk: u64| {
        println!(
            "| {what} | {} | {} | {} | {} | {} | {} |",
            us(t),
            s.files,
            s.files_read,
            s.objects_written,
            s.bytes_written,
            disk
        );
    };
    row("first (full), median of 3", first_t, &first_stats, first_bytes);
    row(&format!("{CHANGED} files changed, median of {ROUNDS}"), t, &stats, bytes);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    println!(
        "| ratio (changed ÷ first) | {:.3}× | | {:.4}× | {:.4}× | {:.4}× | {:.4}× |",
        ratio(t, first_t),
        ratio(stats.files_read as f64, first_stats.files_read as f64),
        ratio(stats.objects_written as f64, first_stats.objects_written as f64),
        ratio(stats.bytes_written as f64, first_stats.bytes_written as f64),
        ratio(bytes as f64, first_bytes as f64),
    );
}
