//! Object-store volume benchmark (BENCHMARKS.md, "Object storage"): grep over ~1,000
//! objects / ~50 MB on a local S3 server (SeaweedFS, installed and started as the
//! integration tests do) against the same tree in a `dir` volume, in the same run,
//! with the requests each grep made (counted on the wire), and the same S3 grep
//! without the read-ahead (one GET per read, waited for in turn) to show what it buys.
//!
//! Run: `cargo bench -p filestore --bench object_store`. Environment:
//! `FILESTORE_BENCH_OBJECTS` (default 1000), `FILESTORE_BENCH_OBJECT_KB` (default 50).

// The integration tests' harness: its S3 server (installed and started as there).
#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;

use support::s3_server;

use std::sync::Arc;
use std::time::Instant;

use filestore::volumes::object::{ObjectVolume, RequestStats};
use filestore::volumes::{PrefetchFile, SharedVolume, Volume, Walk, WriteOptions};
use filestore::{Engine, MountSpec};
use filestore_guest::error::Result;
use filestore_guest::vfs::entry::Entry;
use serde_json::json;

/// An object volume without the read-ahead: what grep costs one round trip a file.
struct NoReadAhead(Arc<ObjectVolume>);

impl Volume for NoReadAhead {
    fn stat(&self, p: &str) -> Result<Entry> {
        self.0.stat(p)
    }
    fn list(&self, p: &str) -> Result<Vec<Entry>> {
        self.0.list(p)
    }
    fn walk(&self, p: &str, max: usize) -> Result<Walk> {
        self.0.walk(p, max)
    }
    fn read(&self, p: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.0.read(p, offset, len)
    }
    fn write(&self, p: &str, c: &[u8], o: &WriteOptions) -> Result<Entry> {
        self.0.write(p, c, o)
    }
    fn delete(&self, p: &str, r: bool) -> Result<()> {
        self.0.delete(p, r)
    }
    fn rename(&self, a: &str, b: &str, o: bool) -> Result<()> {
        self.0.rename(a, b, o)
    }
    fn prefetch(&self, _files: &[PrefetchFile]) {}
}

fn env_usize(k: &str, d: usize) -> usize {
    std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

/// Median milliseconds of `runs` grep calls (after one warm-up) and the answer.
fn grep_ms(engine: &Engine, vol: SharedVolume, runs: usize) -> (f64, serde_json::Value) {
    let mut s = engine.session(vec![MountSpec::new("/w", vol)]).expect("session");
    let args = json!({"pattern": "needle [0-9]+", "path": "/w", "output_mode": "count"});
    let first = s.call("filestore_grep", &args).expect("grep").json;
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let out = s.call("filestore_grep", &args).expect("grep").json;
            let ms = start.elapsed().as_secs_f64() * 1000.0;
            assert_eq!(out["total_matches"], first["total_matches"]);
            ms
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], first)
}

fn requests(d: RequestStats) -> String {
    format!(
        "{} requests: {} LIST, {} GET, {} HEAD; {} reads from the read-ahead; at most {} GETs in flight",
        d.total(),
        d.list,
        d.get,
        d.head,
        d.read_ahead_hits,
        d.peak_gets_in_flight
    )
}

fn main() {
    let objects = env_usize("FILESTORE_BENCH_OBJECTS", 1000);
    let kb = env_usize("FILESTORE_BENCH_OBJECT_KB", 50);
    let runs = 5;
    eprintln!("starting the S3 server (installed on first use)...");
    let server = s3_server::S3Server::start();
    let tmp = tempfile::tempdir().unwrap();
    let mut total = 0usize;
    let mut planted = Vec::with_capacity(objects);
    for i in 0..objects {
        let mut body = String::with_capacity(kb * 1024);
        let mut line = 0;
        while body.len() < kb * 1024 {
            if line % 97 == 13 {
                body.push_str(&format!(
                    "needle {i} {line} the quick brown fox jumps over the lazy dog\n"
                ));
            } else {
                body.push_str(&format!(
                    "line {line} of object {i}: lorem ipsum dolor sit amet, consectetur\n"
                ));
            }
            line += 1;
        }
        total += body.len();
        let rel = format!("d{:02}/o{i:04}.txt", i % 20);
        std::fs::create_dir_all(tmp.path().join(format!("d{:02}", i % 20))).unwrap();
        std::fs::write(tmp.path().join(&rel), &body).unwrap();
        planted.push((format!("bench/{rel}"), body.into_bytes()));
    }
    let client = Arc::new(server.client());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        use futures::StreamExt;
        use object_store::ObjectStoreExt;
        futures::stream::iter(planted)
            .for_each_concurrent(32, |(k, v)| {
                let c = client.clone();
                async move {
                    c.put(&object_store::path::Path::parse(&k).unwrap(), v.into()).await.unwrap();
                }
            })
            .await;
    });
    let mb = total as f64 / 1e6;
    let engine = filestore::new_engine().expect("engine");

    let dir: SharedVolume =
        Arc::new(filestore::volumes::dir::DirVolume::open(tmp.path(), true).unwrap());
    let (dir_ms, dir_out) = grep_ms(&engine, dir, runs);

    let s3 = Arc::new(server.volume("bench"));
    let before = s3.requests();
    let (s3_ms, s3_out) = grep_ms(&engine, s3.clone(), runs);
    let per_grep = {
        let d = s3.requests() - before;
        let n = (runs + 1) as u64;
        RequestStats {
            list: d.list / n,
            get: d.get / n,
            head: d.head / n,
            put: d.put / n,
            copy: d.copy / n,
            delete: d.delete / n,
            other: d.other / n,
            peak_gets_in_flight: d.peak_gets_in_flight,
            read_ahead_hits: d.read_ahead_hits / n,
        }
    };
    assert_eq!(s3_out["total_matches"], dir_out["total_matches"]);

    let plain = Arc::new(server.volume("bench"));
    let before = plain.requests();
    let (plain_ms, _) = grep_ms(&engine, Arc::new(NoReadAhead(plain.clone())), runs);
    let plain_d = {
        let d = plain.requests() - before;
        let n = (runs + 1) as u64;
        RequestStats { list: d.list / n, get: d.get / n, head: d.head / n, ..d }
    };

    let files = s3_out["files_searched"].as_u64().unwrap_or(0);
    let lines = s3_out["total_matches"].as_u64().unwrap_or(0);
    println!(
        "\n{objects} objects, {mb:.1} MB, {files} searched, {lines} matching lines; median of {runs} greps after a warm-up\n"
    );
    println!("| measurement | filestore | baseline | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| grep, count mode, {objects} objects / {mb:.0} MB: S3 volume (local SeaweedFS) vs the same tree in a dir volume | {s3_ms:.0} ms ({:.0} MB/s) | {dir_ms:.0} ms ({:.0} MB/s) | {:.2}× |",
        mb / (s3_ms / 1000.0),
        mb / (dir_ms / 1000.0),
        s3_ms / dir_ms
    );
    println!(
        "| the same S3 grep: with the read-ahead vs without (one GET per read, in turn) | {s3_ms:.0} ms | {plain_ms:.0} ms | {:.2}× |",
        s3_ms / plain_ms
    );
    println!("| requests of one S3 grep, with the read-ahead | {} | — | — |", requests(per_grep));
    println!("| requests of one S3 grep, without | {} | — | — |", requests(plain_d));
}
