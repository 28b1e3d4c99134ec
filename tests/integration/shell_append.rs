//! The shell's `>>` through the real component and the WIT `volume.append`: an
//! append loop gives bash's file on the same tree while the volume receives only the
//! new bytes (the file keeps its inode, as with bash), and every rule a write has
//! holds for an append: read-only mounts refuse it with a write's words, a
//! copy-on-write mount copies a lower file up before appending, a quota refuses an
//! append past it with the old content intact, links in a directory volume (the file
//! or a parent) are refused as a write refuses them, and the per-command
//! written-bytes budget counts appended bytes.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use filestore::volumes::quota::QuotaVolume;
use filestore::volumes::{MemoryVolume, SharedVolume, Volume, Walk, WriteOptions};
use filestore::{MountSpec, Session};
use filestore_guest::error::Result;
use filestore_guest::vfs::entry::Entry;
use serde_json::{Value, json};

use crate::common::*;
use crate::support::bash::{Locale, bash};

/// A real volume that counts the bytes handed to its `write` and its `append`.
struct Counting {
    inner: SharedVolume,
    written: AtomicU64,
    appended: AtomicU64,
}

impl Counting {
    fn new(inner: SharedVolume) -> Arc<Counting> {
        Arc::new(Counting { inner, written: AtomicU64::new(0), appended: AtomicU64::new(0) })
    }
}

impl Volume for Counting {
    fn stat(&self, path: &str) -> Result<Entry> {
        self.inner.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        self.inner.list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        self.inner.walk(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.inner.read(path, offset, len)
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        self.inner.stat_read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        self.written.fetch_add(content.len() as u64, Ordering::SeqCst);
        self.inner.write(path, content, options)
    }
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        self.appended.fetch_add(content.len() as u64, Ordering::SeqCst);
        self.inner.append(path, content)
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.inner.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.inner.rename(from, to, overwrite)
    }
    fn create_dir(&self, path: &str) -> Result<Entry> {
        self.inner.create_dir(path)
    }
}

/// A session over `mounts` with the shell on.
fn shell_session(mounts: Vec<MountSpec>) -> Session {
    let mut s = engine().session(mounts).expect("session");
    s.enable_shell(true).expect("enable the shell");
    s
}

/// `command` through `filestore_execute` in `cwd`: its JSON answer.
fn run(s: &mut Session, command: &str, cwd: &str) -> Value {
    ok(s, "filestore_execute", json!({"command": command, "cwd": cwd}))
}

/// Every file under `root` with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const LOOP: &str = "for i in $(seq 200); do echo $i >> log; done; echo new >> fresh.txt; \
                    echo x >> nodir/f; echo status $?; wc -l < log; tail -n 1 log";

/// The append loop gives bash's tree, stdout and status on the same starting
/// directory; the volume is handed each appended byte once and no whole write, and
/// the file keeps its inode, as bash's does (a whole write replaces it).
#[test]
fn an_append_loop_matches_bash_and_hands_the_volume_only_the_new_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (b, f) = (tmp.path().join("bash"), tmp.path().join("fs"));
    for d in [&b, &f] {
        std::fs::create_dir(d).unwrap();
        std::fs::write(d.join("log"), "start\n").unwrap();
    }
    let inode = |d: &Path| std::fs::metadata(d.join("log")).unwrap().ino();
    let (bash_ino, fs_ino) = (inode(&b), inode(&f));
    let want = bash(&b, LOOP, Locale::Utf8);
    let counting = Counting::new(dir(&f, false));
    let mut s = shell_session(vec![MountSpec::new("/w", counting.clone())]);
    let got = run(&mut s, LOOP, "/w");
    assert_eq!(
        (got["stdout"].as_str().unwrap(), got["exit_code"].as_i64().unwrap()),
        (want.0.as_str(), i64::from(want.1))
    );
    assert_eq!(files(&f), files(&b), "the trees after the loop");
    assert_eq!(inode(&b), bash_ino, "bash appends in place");
    assert_eq!(inode(&f), fs_ino, "the shell appends in place too");
    let appended: usize = (1..=200).map(|i: u32| i.to_string().len() + 1).sum::<usize>() + 4;
    assert_eq!(counting.appended.load(Ordering::SeqCst), appended as u64);
    assert_eq!(counting.written.load(Ordering::SeqCst), 0, "no whole-file write");
}

/// `>>` on a read-only mount is refused with a write's words and changes nothing.
#[test]
fn a_read_only_mount_refuses_an_append_as_a_write() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("log"), "kept\n").unwrap();
    let mut s = shell_session(vec![
        MountSpec::new("/ro", dir(tmp.path(), true)),
        MountSpec::new("/w", mem(&[])),
    ]);
    let append = run(&mut s, "echo x >> /ro/log; echo $?; echo y >> /ro/new; echo $?", "/w");
    let write = run(&mut s, "echo x > /ro/log; echo $?; echo y > /ro/new; echo $?", "/w");
    assert_eq!(append["stdout"], "1\n1\n");
    let stderr = append["stderr"].as_str().unwrap();
    assert!(stderr.contains("/ro/log: Read-only file system"), "{stderr}");
    assert_eq!(append["stderr"], write["stderr"], "the same refusal as a write");
    assert_eq!(std::fs::read(tmp.path().join("log")).unwrap(), b"kept\n");
    assert!(!tmp.path().join("new").exists());
}

/// A copy-on-write mount whose file exists only in the lower directory: the upper
/// layer gets the old bytes and the new, the lower file is unchanged; a second
/// append goes to the upper copy.
#[test]
fn a_copy_on_write_mount_copies_the_lower_file_up_then_appends() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("log"), "lower\n").unwrap();
    let upper = Arc::new(MemoryVolume::new());
    let mut s = shell_session(vec![MountSpec::cow("/w", dir(tmp.path(), true), upper.clone())]);
    let out = run(&mut s, "echo one >> log; echo two >> log; cat log", "/w");
    assert_eq!(out["stdout"], "lower\none\ntwo\n");
    assert_eq!(upper.read("/files/log", 0, 100).unwrap(), b"lower\none\ntwo\n");
    assert_eq!(std::fs::read(tmp.path().join("log")).unwrap(), b"lower\n", "lower unchanged");
    let diff = ok(&mut s, "filestore_diff", json!({}));
    let changed: Vec<(&str, &str)> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["status"].as_str().unwrap()))
        .collect();
    assert_eq!(changed, [("/w/log", "modified")]);
}

/// A quota volume refuses an append past its quota before making it (the file keeps
/// its bytes) and takes one that fits.
#[test]
fn an_append_past_a_quota_fails_and_the_old_content_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let old: Vec<u8> = (0..900u32).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(tmp.path().join("log"), &old).unwrap();
    let quota: SharedVolume = Arc::new(QuotaVolume::new(
        filestore::volumes::dir::DirVolume::open(tmp.path(), false).unwrap(),
        1000,
    ));
    let mut s = shell_session(vec![MountSpec::new("/w", quota)]);
    let out = run(&mut s, "head -c 200 /dev/zero >> log; echo $?", "/w");
    assert_eq!(out["stdout"], "1\n");
    let stderr = out["stderr"].as_str().unwrap();
    assert!(stderr.contains("Disk quota exceeded") && stderr.contains("1000 bytes"), "{stderr}");
    assert_eq!(std::fs::read(tmp.path().join("log")).unwrap(), old, "the old content intact");
    let out = run(&mut s, "head -c 100 /dev/zero >> log; echo $?; wc -c < log", "/w");
    assert_eq!(out["stdout"], "0\n1000\n");
}

/// Links planted in a directory volume — the file itself, or a parent directory —
/// are refused for `>>` exactly as for `>`, and nothing outside changes.
#[test]
fn links_in_a_directory_volume_are_refused_as_for_a_write() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret"), "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret"), root.join("lf")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("ld")).unwrap();
    let mut s = shell_session(vec![MountSpec::new("/w", dir(&root, false))]);
    for target in ["lf", "ld/secret", "ld/new"] {
        let append = run(&mut s, &format!("echo x >> {target}; echo $?"), "/w");
        let write = run(&mut s, &format!("echo x > {target}; echo $?"), "/w");
        assert_eq!(append["stdout"], "1\n", "{target}");
        let stderr = append["stderr"].as_str().unwrap();
        assert!(stderr.contains("symbolic link"), "{target}: {stderr}");
        assert_eq!(append["stderr"], write["stderr"], "{target}: as a write is refused");
    }
    assert_eq!(std::fs::read(outside.join("secret")).unwrap(), b"secret\n");
    assert!(!outside.join("new").exists());
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
}

/// The per-command written-bytes budget (64 MiB) counts each append's bytes: the
/// append that would pass it is refused whole and the command ends with
/// `limit-exceeded`; the file holds exactly the appends before it.
#[test]
fn the_written_bytes_budget_counts_appended_bytes() {
    let vol = mem(&[]);
    let mut s = shell_session(vec![MountSpec::new("/w", vol.clone())]);
    // 1 MiB written, then 1 MiB appends: the 64th passes the 64 MiB budget.
    let command =
        "head -c 1048576 /dev/zero > chunk; for i in $(seq 70); do cat chunk >> big; done";
    let (kind, message) =
        err(&mut s, "filestore_execute", json!({"command": command, "cwd": "/w"}));
    assert_eq!(kind, "limit-exceeded", "{message}");
    assert!(message.contains("file bytes written per command"), "{message}");
    assert_eq!(vol.stat("/big").unwrap().size, 63 << 20, "63 appends made, the 64th refused");
}
