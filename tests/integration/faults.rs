//! Fault injection: a volume wrapper that fails its Nth primitive operation,
//! mounted into a real session, shows that a failed write, edit or multi-edit leaves
//! the previous content intact and that the error names the cause, for every N over
//! the operations the call makes; and a directory volume whose final `rename` really
//! fails leaves neither a changed file nor a temporary file. A volume that breaks the
//! volume contract (lying listings, sizes, paths) gets a typed error per call.

use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use filestore::volumes::dir::TEMP_MARKER;
use filestore::volumes::{MemoryVolume, SharedVolume, Volume, Walk, WriteOptions};
use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::Entry;
use serde_json::{Value, json};

use crate::common::*;
use crate::support::immutable::Immutable;

/// Wraps a real volume and fails its `fail_at`-th primitive operation (1-based; 0:
/// never) with a `backend` error `injected fault at op N (OP)`. Every operation is
/// counted and logged, failed or not, so a run with `fail_at = 0` lists the operations
/// a call makes.
struct FaultyVolume {
    inner: SharedVolume,
    fail_at: usize,
    count: AtomicUsize,
    log: Mutex<Vec<&'static str>>,
}

impl FaultyVolume {
    fn new(inner: SharedVolume, fail_at: usize) -> FaultyVolume {
        FaultyVolume { inner, fail_at, count: AtomicUsize::new(0), log: Mutex::new(Vec::new()) }
    }

    fn tick(&self, op: &'static str) -> Result<()> {
        let n = self.count.fetch_add(1, Ordering::SeqCst) + 1;
        self.log.lock().unwrap().push(op);
        if n == self.fail_at {
            return Err(Error::new(ErrorKind::Backend, format!("injected fault at op {n} ({op})")));
        }
        Ok(())
    }

    fn ops(&self) -> Vec<&'static str> {
        self.log.lock().unwrap().clone()
    }
}

impl Volume for FaultyVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        self.tick("stat")?;
        self.inner.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        self.tick("list")?;
        self.inner.list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        self.tick("walk")?;
        self.inner.walk(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.tick("read")?;
        self.inner.read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        self.tick("write")?;
        self.inner.write(path, content, options)
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.tick("delete")?;
        self.inner.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.tick("rename")?;
        self.inner.rename(from, to, overwrite)
    }
}

const OLD: &str = "alpha\nbeta\ngamma\n";

/// The calls under test, each against `/w/f.txt` holding [`OLD`].
fn scenarios() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("write", "filestore_write", json!({"path": "/w/f.txt", "content": "replaced\n"})),
        (
            "edit",
            "filestore_edit",
            json!({"path": "/w/f.txt", "old_string": "beta", "new_string": "BETA"}),
        ),
        (
            "multi-edit",
            "filestore_edit",
            json!({"path": "/w/f.txt", "edits": [
                {"old_string": "alpha", "new_string": "ALPHA"},
                {"old_string": "ALPHA\nbeta", "new_string": "one line"},
                {"old_string": "gamma", "new_string": "GAMMA"}
            ]}),
        ),
        (
            "move over",
            "filestore_move",
            json!({"source": "/w/g.txt", "destination": "/w/f.txt", "overwrite": true}),
        ),
    ]
}

/// A fresh backend of each kind holding `f.txt` = [`OLD`] and `g.txt`, with a
/// host-side reader of `f.txt`. The temp dir guard is returned to keep it alive.
type Backend = (SharedVolume, Box<dyn Fn() -> String>, Option<tempfile::TempDir>);

fn backends() -> Vec<(&'static str, Backend)> {
    let m = MemoryVolume::new();
    m.insert("/f.txt", OLD).insert("/g.txt", "from g\n");
    let reader = m.clone();
    let mem_read: Box<dyn Fn() -> String> =
        Box::new(move || String::from_utf8(reader.read("/f.txt", 0, 1 << 20).unwrap()).unwrap());
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f.txt"), OLD).unwrap();
    std::fs::write(tmp.path().join("g.txt"), "from g\n").unwrap();
    let file = tmp.path().join("f.txt");
    let dir_read: Box<dyn Fn() -> String> =
        Box::new(move || std::fs::read_to_string(&file).unwrap());
    vec![
        ("memory", (Arc::new(m) as SharedVolume, mem_read, None)),
        ("dir", (dir(tmp.path(), false), dir_read, Some(tmp))),
    ]
}

#[test]
fn every_injected_fault_leaves_the_previous_content() {
    let mut checked = 0;
    for (what, tool, args) in scenarios() {
        // Count the operations of a successful call first.
        let (_, (vol, _, _tmp)) = backends().remove(0);
        let counter = Arc::new(FaultyVolume::new(vol, 0));
        ok(&mut session_with("/w", counter.clone()), tool, args.clone());
        let ops = counter.ops();
        assert!(ops.len() >= 3, "{what}: only {ops:?}");
        let mutating = if what == "move over" { "rename" } else { "write" };
        let commit = ops.iter().position(|o| *o == mutating).expect("a mutation") + 1;
        assert_eq!(ops.iter().filter(|o| **o == mutating).count(), 1, "{what}: {ops:?}");
        for n in 1..=ops.len() {
            for (backend, (vol, read_f, _tmp)) in backends() {
                let faulty = Arc::new(FaultyVolume::new(vol, n));
                let mut s = session_with("/w", faulty.clone());
                let case = format!("{what} on {backend}, fault at op {n} of {ops:?}");
                if n > commit {
                    // After the commit point the change is made: a failure to describe
                    // it must not report a completed mutation as failed.
                    ok(&mut s, tool, args.clone());
                    assert_ne!(read_f(), OLD, "{case}");
                    continue;
                }
                let (kind, msg) = err(&mut s, tool, args.clone());
                assert_eq!(kind, "backend", "{case}: {msg}");
                let cause = format!("injected fault at op {n} ({})", ops[n - 1]);
                assert!(msg.contains(&cause), "{case}: the error does not name the cause: {msg}");
                assert!(msg.contains("/w/"), "{case}: the error does not name the path: {msg}");
                assert_eq!(read_f(), OLD, "{case}: previous content lost");
                assert_eq!(faulty.ops().len(), n, "{case}: went on after the fault");
                assert!(!s.is_poisoned(), "{case}: a volume error must not poison the session");
                // The same session works once the backend does.
                let j = ok(&mut s, "filestore_read", json!({"path": "/w/f.txt", "raw": true}));
                assert_eq!(j["text"], OLD, "{case}");
                checked += 1;
            }
        }
        eprintln!("{what}: {} operations {ops:?}, faults checked at each", ops.len());
    }
    assert!(checked >= 2 * 4 * 3, "only {checked} fault cases");
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(TEMP_MARKER))
        .collect()
}

/// The final `rename` of an atomic write really fails: the destination is immutable
/// (`chattr +i`), which refuses replacing its directory entry even to root, while the
/// directory itself stays writable (so the temporary file is created and written).
/// The old content stays and the temporary file is removed.
#[test]
fn dir_write_whose_rename_fails_leaves_no_temp_file() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("f.txt");
    std::fs::write(&f, OLD).unwrap();
    // Without chattr, CAP_LINUX_IMMUTABLE or a file system with the attribute there
    // is no way to make only the rename fail: the test fails saying what it needs,
    // rather than pass on something weaker.
    let guard = Immutable::set(&f);
    let mut s = session_with("/w", dir(tmp.path(), false));
    // The directory is writable: a write next to the immutable file succeeds, so the
    // failures below happen at the rename over `f.txt`, after the temp file was made.
    ok(&mut s, "filestore_write", json!({"path": "/w/other.txt", "content": "fine"}));
    for (tool, args) in [
        ("filestore_write", json!({"path": "/w/f.txt", "content": "new content"})),
        (
            "filestore_edit",
            json!({"path": "/w/f.txt", "edits": [{"old_string": "alpha", "new_string": "A"}, {"old_string": "beta", "new_string": "B"}]}),
        ),
    ] {
        let (kind, msg) = err(&mut s, tool, args);
        assert_eq!(kind, "backend", "{tool}: {msg}");
        assert!(msg.contains("/w/f.txt") && msg.contains("permission denied"), "{tool}: {msg}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), OLD, "{tool}");
        assert_eq!(temp_files(tmp.path()), Vec::<String>::new(), "{tool}: temp file left");
    }
    drop(guard);
    ok(&mut s, "filestore_write", json!({"path": "/w/f.txt", "content": "now it works"}));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "now it works");
    assert!(temp_files(tmp.path()).is_empty());
}

/// A host volume that breaks the volume contract in one way per instance: the
/// component refuses the broken answer, whichever host language sent it.
struct LyingVolume {
    inner: MemoryVolume,
    lie: &'static str,
}

impl Volume for LyingVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        let mut e = self.inner.stat(path)?;
        if self.lie == "stat-other-path" {
            e.path = "/elsewhere.txt".into();
        }
        Ok(e)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let mut v = self.inner.list(path)?;
        if self.lie == "list-outside" {
            v.push(Entry::file("/../../etc/passwd", 10, None));
        }
        Ok(v)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let mut w = self.inner.walk(path, max_entries)?;
        if self.lie == "walk-outside" {
            w.entries.push(Entry::file("/elsewhere/secret.txt", 10, None));
        }
        Ok(w)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut d = self.inner.read(path, offset, len)?;
        if self.lie == "read-too-much" {
            d.extend(std::iter::repeat_n(b'x', 1 << 20));
        }
        Ok(d)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        let mut e = self.inner.write(path, content, options)?;
        if self.lie == "write-wrong-size" {
            e.size = 1 << 40;
        }
        Ok(e)
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.inner.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.inner.rename(from, to, overwrite)
    }
}

/// Every broken answer of a host's volume is a `backend` error of that call naming the
/// broken contract; the session is not poisoned and its honest mount keeps working.
#[test]
fn a_volume_that_breaks_the_contract_gets_a_typed_error_per_call() {
    let cases = [
        (
            "stat-other-path",
            "filestore_read",
            json!({"path": "/bad/d/a.txt"}),
            "returned an entry for '/elsewhere.txt'",
        ),
        (
            "list-outside",
            "filestore_ls",
            json!({"path": "/bad/d"}),
            "\"/../../etc/passwd\" is not absolute and normalised",
        ),
        (
            "walk-outside",
            "filestore_grep",
            json!({"pattern": "alpha", "path": "/bad/d"}),
            "'/elsewhere/secret.txt', which is not beneath '/d'",
        ),
        ("read-too-much", "filestore_read", json!({"path": "/bad/d/a.txt"}), "when at most"),
        (
            "write-wrong-size",
            "filestore_write",
            json!({"path": "/bad/n.txt", "content": "abc"}),
            "a size of 1099511627776 bytes after writing 3 bytes",
        ),
    ];
    for (lie, tool, args, says) in cases {
        let inner = MemoryVolume::new();
        inner.insert("/d/a.txt", "alpha\n");
        let good = mem(&[("/ok.txt", "fine\n")]);
        let mut s = engine()
            .session(vec![
                filestore::MountSpec::new("/bad", Arc::new(LyingVolume { inner, lie })),
                filestore::MountSpec::new("/good", good),
            ])
            .unwrap();
        let (kind, msg) = err(&mut s, tool, args);
        assert_eq!(kind, "backend", "{lie}: {msg}");
        assert!(
            msg.contains("the volume broke its contract") && msg.contains(says),
            "{lie}: {msg}"
        );
        assert!(msg.starts_with("/bad"), "{lie}: names the virtual path: {msg}");
        assert!(!s.is_poisoned(), "{lie}");
        let j = ok(&mut s, "filestore_read", json!({"path": "/good/ok.txt"}));
        assert_eq!(j["text"], "     1\tfine\n", "{lie}");
    }
}
