//! Reads on a copy-on-write mount with an empty upper layer against the same reads on
//! the plain directory volume (docs/cow.md), in one run: an unchanged cow mount should
//! cost no more than 1.1x the plain one. Both sessions come from one engine, over one
//! directory (this repository's `guest/src` and `host/src`, copied), and their calls
//! alternate. A third session has one file written, so that its calls take the merged
//! path.
//!
//! ```sh
//! cargo bench -p filestore --bench cow
//! ```

use std::hint::black_box;
use std::path::Path;
use std::process::Command;

use filestore::volumes::MountArg;
use filestore::{Engine, Session};
use serde_json::{Value, json};

#[path = "timing/mod.rs"]
mod timing;

use timing::{median_us, us};

fn session(engine: &Engine, spec: &str) -> Session {
    let m: MountArg = spec.parse().expect("mount spec");
    engine.session(vec![m.open().expect("mount")]).expect("session")
}

fn call(s: &mut Session, tool: &str, args: &Value) {
    black_box(s.call(tool, args).expect("call"));
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for src in ["guest/src", "host/src"] {
        let to = tree.join(src.replace('/', "-"));
        let ok = Command::new("cp").arg("-a").arg(repo.join(src)).arg(&to).status().unwrap();
        assert!(ok.success());
    }
    let engine = filestore::new_engine().expect("engine");
    let root = tree.display();
    let mut plain = session(&engine, &format!("/w={root}:ro"));
    let mut cow = session(&engine, &format!("/w={root}:cow"));
    // One file changed: every call takes the merged path (whiteouts, upper layer).
    let mut changed = session(&engine, &format!("/w={root}:cow"));
    call(&mut changed, "filestore_write", &json!({"path": "/w/new.txt", "content": "x\n"}));
    let cases: [(&str, &str, Value, usize); 4] = [
        ("small read", "filestore_read", json!({"path": "/w/guest-src/lib.rs", "limit": 20}), 2000),
        ("list", "filestore_ls", json!({"path": "/w/guest-src/vfs"}), 2000),
        ("glob", "filestore_glob", json!({"pattern": "**/*.rs", "path": "/w"}), 100),
        (
            "grep",
            "filestore_grep",
            json!({"pattern": "fn [a-z_]+\\(&self", "path": "/w", "output_mode": "count"}),
            50,
        ),
    ];
    println!(
        "| measurement | cow, empty upper | plain dir volume | ratio | cow, one file changed | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (what, tool, args, n) in cases {
        // Alternate the two sides in rounds so that drift hits both alike.
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..5 {
            a.push(median_us(n / 10, n / 5, || call(&mut cow, tool, &args)));
            b.push(median_us(n / 10, n / 5, || call(&mut plain, tool, &args)));
            c.push(median_us(n / 10, n / 5, || call(&mut changed, tool, &args)));
        }
        for v in [&mut a, &mut b, &mut c] {
            v.sort_by(f64::total_cmp);
        }
        let (a, b, c) = (a[2], b[2], c[2]);
        println!(
            "| {what} (`{tool}`) | {} | {} | {:.2}× | {} | {:.2}× |",
            us(a),
            us(b),
            a / b,
            us(c),
            c / b
        );
    }
}
