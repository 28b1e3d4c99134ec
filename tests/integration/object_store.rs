//! Object-storage volumes against a real S3 server (SeaweedFS on loopback, see
//! `s3_server`), through the real component: hostile keys, two sessions (two
//! clients, as two replicas would be) racing to create one file, one paginated LIST
//! per walk and grep's read-ahead (request counts taken on the wire), the server
//! stopped in the middle of a grep, `/tool_calls` on S3, and `filestore call` /
//! `filestore serve` mounting `s3://` from the command line. The model-based suite
//! (`model`) runs the same random mutation sequences on S3 as on memory and dir
//! volumes.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};

use filestore::tools::{InvokeContext, InvokeStatus, ToolRegistry};
use filestore::volumes::object::ObjectVolume;
use filestore::volumes::{PrefetchFile, Volume, Walk, WriteOptions};
use filestore::{MountSpec, Session, SessionOptions};
use filestore_guest::vfs::entry::Entry;
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt, PutPayload};
use serde_json::{Value, json};

use crate::common::{engine, err, mem, ok};
use crate::s3_server::{S3Server, prefix, shared};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// Puts `files` (key, content) straight into the bucket, 32 at a time, the way
/// another tool would (not through a volume).
fn plant(server: &S3Server, files: Vec<(String, Vec<u8>)>) {
    let client = Arc::new(server.client());
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        use futures::StreamExt;
        futures::stream::iter(files)
            .for_each_concurrent(32, |(k, v)| {
                let c = client.clone();
                async move {
                    c.put(&Key::parse(&k).unwrap(), PutPayload::from(v)).await.unwrap();
                }
            })
            .await;
    });
}

/// Whether `key` exists in the bucket.
fn exists(server: &S3Server, key: &str) -> bool {
    let client = server.client();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async { client.head(&Key::parse(key).unwrap()).await.is_ok() })
}

fn session_over(point: &str, vol: Arc<ObjectVolume>) -> Session {
    engine().session(vec![MountSpec::new(point, vol)]).expect("session")
}

fn paths_of(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

#[test]
fn hostile_keys_and_names_are_confined() {
    let srv = shared();
    let p = prefix("hostile");
    // Planted by other clients: siblings sharing the prefix's name. (Keys an agent
    // could not address are left out of listings: see the `keys` unit tests; this
    // server turns a backslash in a key into a `/` itself.)
    plant(
        srv,
        vec![
            (format!("{p}_evil/secret.txt"), b"EVIL-SIBLING-SECRET".to_vec()),
            (format!("{p}x/secret.txt"), b"EVIL-SIBLING-SECRET".to_vec()),
            (format!("{p}/ok.txt"), b"fine".to_vec()),
        ],
    );
    let vol = Arc::new(srv.volume(&p));
    let mut s = session_over("/w", vol.clone());

    // What the agent sends is normalised by the component, and checked again by the
    // volume: `..` above the root, empty components, the reserved name.
    assert_eq!(err(&mut s, "filestore_read", json!({"path": "/w/../../x"})).0, "invalid-path");
    for bad in ["/../x", "/a//b", "/a/./b", "/.filestore/meta/ok.txt", "no-slash"] {
        assert_eq!(vol.stat(bad).unwrap_err().kind().as_str(), "invalid-path", "{bad}");
        let e = vol.write(bad, b"x", &WriteOptions::default()).unwrap_err();
        assert_eq!(e.kind().as_str(), "invalid-path", "{bad}");
    }
    let (kind, msg) =
        err(&mut s, "filestore_write", json!({"path": "/w/.filestore/x", "content": "x"}));
    assert_eq!(kind, "invalid-path", "{msg}");
    ok(&mut s, "filestore_write", json!({"path": "/w/a//b.txt", "content": "ab"}));
    assert!(exists(srv, &format!("{p}/a/b.txt")), "'a//b' is the key a/b, as the path normalises");

    // `%2F` is three characters of a name, never a separator; unicode names (NFC and
    // NFD spellings are different names) round-trip byte for byte.
    for (name, content) in [
        ("/w/x%2Fy.txt", "percent"),
        ("/w/ünï/名前.txt", "unicode"),
        ("/w/\u{00fc}.txt", "nfc"),
        ("/w/u\u{0308}.txt", "nfd"),
    ] {
        ok(&mut s, "filestore_write", json!({"path": name, "content": content}));
        let r = ok(&mut s, "filestore_read", json!({"path": name, "raw": true}));
        assert_eq!(r["text"], content, "{name}");
    }
    assert!(exists(srv, &format!("{p}/x%2Fy.txt")));
    assert!(!exists(srv, &format!("{p}/x/y.txt")));

    // Very long keys: within the component's limits but over the store's 1,024-byte
    // key limit is refused before any request, naming the limit; at the limit works.
    let comp = "k".repeat(250);
    let long = format!("/w/{comp}/{comp}/{comp}/{comp}/{comp}");
    let (kind, msg) = err(&mut s, "filestore_write", json!({"path": long, "content": "x"}));
    assert_eq!(kind, "invalid-path", "{msg}");
    assert!(msg.contains("1024"), "{msg}");
    // A path whose key is exactly 1,024 bytes: components of at most 250 bytes.
    let mut rest = 1024 - p.len() - 1;
    let mut comps = Vec::new();
    while rest > 0 {
        let n = if rest > 255 { 250 } else { rest };
        comps.push("z".repeat(n));
        rest -= n;
        rest = rest.saturating_sub(1);
    }
    let at_limit = format!("/w/{}", comps.join("/"));
    assert_eq!(p.len() + at_limit.len() - 2, 1024);
    ok(&mut s, "filestore_write", json!({"path": at_limit, "content": "edge"}));
    assert_eq!(
        ok(&mut s, "filestore_read", json!({"path": at_limit, "raw": true}))["text"],
        "edge"
    );

    // Nothing planted outside the prefix, nor the unaddressable key, is ever seen.
    let g = ok(&mut s, "filestore_grep", json!({"pattern": "SECRET", "path": "/w"}));
    assert_eq!(g["files"], json!([]), "{g}");
    let all = ok(&mut s, "filestore_glob", json!({"pattern": "**", "path": "/w"}));
    let all: Vec<String> = all["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert!(all.iter().all(|f| !f.contains("evil") && !f.contains("secret")), "{all:?}");
    assert!(
        all.contains(&"/w/x%2Fy.txt".to_string()) && !all.iter().any(|f| f == "/w/x"),
        "{all:?}"
    );
    assert!(all.contains(&"/w/ok.txt".to_string()));
    let ls = ok(&mut s, "filestore_ls", json!({"details": true, "path": "/w"}));
    assert!(!ls.to_string().contains(".filestore"), "{ls}");
}

#[test]
fn two_sessions_racing_create_only_never_both_win() {
    let srv = shared();
    let p = prefix("race");
    // Two volumes, each with its own client: as two `filestore serve` replicas.
    let mut a = session_over("/w", Arc::new(srv.volume(&p)));
    let mut b = session_over("/w", Arc::new(srv.volume(&p)));
    for round in 0..25 {
        let path = format!("/w/claim-{round}.txt");
        let start = Arc::new(Barrier::new(2));
        let go = |s: &mut Session, who: &str, start: Arc<Barrier>| {
            start.wait();
            s.call("filestore_write", &json!({"path": path, "content": who, "create_only": true}))
                .map(|_| ())
                .map_err(|e| e.kind_name().to_string())
        };
        let (ra, rb) = std::thread::scope(|sc| {
            let (sa, sb) = (start.clone(), start.clone());
            let ha = sc.spawn(|| go(&mut a, "replica-a", sa));
            let hb = sc.spawn(|| go(&mut b, "replica-b", sb));
            (ha.join().unwrap(), hb.join().unwrap())
        });
        let winner = match (&ra, &rb) {
            (Ok(()), Err(k)) if k == "already-exists" => "replica-a",
            (Err(k), Ok(())) if k == "already-exists" => "replica-b",
            other => panic!("round {round}: exactly one create must win, got {other:?}"),
        };
        for s in [&mut a, &mut b] {
            let r = ok(s, "filestore_read", json!({"path": path, "raw": true}));
            assert_eq!(r["text"], winner, "round {round}: the winner's content stays");
        }
    }
}

#[test]
fn walk_is_one_paginated_list_and_grep_reads_ahead() {
    let srv = shared();
    let p = prefix("ahead");
    const DIRS: usize = 250;
    const FILES: usize = 2500;
    plant(
        srv,
        (0..FILES)
            .map(|i| {
                let body = format!("file {i}\n{}\n", if i % 10 == 0 { "needle" } else { "hay" });
                (format!("{p}/d{:03}/f{i:04}.txt", i % DIRS), body.into_bytes())
            })
            .collect(),
    );
    let vol = Arc::new(srv.volume(&p));
    let before = vol.requests();
    let w = vol.walk("/", 100_000).unwrap();
    let d = vol.requests() - before;
    assert_eq!(w.entries.len(), FILES + DIRS);
    assert!(!w.truncated);
    // One recursive LIST, paginated (1,000 keys a page): not one per directory.
    assert!(d.list >= 1 && d.list <= FILES.div_ceil(1000) as u64, "{d:?}");
    assert_eq!((d.get, d.head), (0, 0), "{d:?}");

    let mut s = session_over("/w", vol.clone());
    let before = vol.requests();
    let g = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "needle", "path": "/w", "output_mode": "count"}),
    );
    let d = vol.requests() - before;
    assert_eq!(g["files_searched"], FILES);
    assert_eq!(g["total_matches"], FILES / 10);
    // Every file came from the read-ahead (fetched concurrently, not one round trip
    // per read), each with exactly one GET.
    assert_eq!(d.read_ahead_hits, FILES as u64, "{d:?}");
    assert_eq!(d.get, FILES as u64, "{d:?}");
    assert!(d.peak_gets_in_flight > 1, "{d:?}");
}

/// Delegates to an object volume and stops the S3 server at the `at`-th read.
struct StopsServer {
    inner: ObjectVolume,
    reads: AtomicUsize,
    at: usize,
    server: Mutex<S3Server>,
}

impl Volume for StopsServer {
    fn stat(&self, path: &str) -> filestore_guest::error::Result<Entry> {
        self.inner.stat(path)
    }
    fn list(&self, path: &str) -> filestore_guest::error::Result<Vec<Entry>> {
        self.inner.list(path)
    }
    fn walk(&self, path: &str, max: usize) -> filestore_guest::error::Result<Walk> {
        self.inner.walk(path, max)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> filestore_guest::error::Result<Vec<u8>> {
        if self.reads.fetch_add(1, Ordering::SeqCst) + 1 == self.at {
            self.server.lock().unwrap().stop();
        }
        self.inner.read(path, offset, len)
    }
    fn write(
        &self,
        path: &str,
        c: &[u8],
        o: &WriteOptions,
    ) -> filestore_guest::error::Result<Entry> {
        self.inner.write(path, c, o)
    }
    fn delete(&self, path: &str, recursive: bool) -> filestore_guest::error::Result<()> {
        self.inner.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> filestore_guest::error::Result<()> {
        self.inner.rename(from, to, overwrite)
    }
    fn prefetch(&self, files: &[PrefetchFile]) {
        self.inner.prefetch(files)
    }
}

#[test]
fn server_stopped_mid_grep_is_a_typed_error_and_the_host_goes_on() {
    let server = S3Server::start();
    const FILES: usize = 400;
    plant(
        &server,
        (0..FILES)
            .map(|i| (format!("stop/f{i:04}.txt"), format!("line {i}\n").into_bytes()))
            .collect(),
    );
    let inner = server.volume("stop");
    let vol = Arc::new(StopsServer {
        inner,
        reads: AtomicUsize::new(0),
        at: 100,
        server: Mutex::new(server),
    });
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", vol.clone()),
            MountSpec::new("/m", mem(&[("/a.txt", "alive")])),
        ])
        .unwrap();
    let e = s
        .call("filestore_grep", &json!({"pattern": "line", "path": "/w", "output_mode": "count"}))
        .expect_err("the store went away in the middle");
    assert_eq!(e.kind_name(), "backend", "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("/w/f0") && msg.contains("object store"),
        "names the file and the store: {msg}"
    );
    assert!(vol.reads.load(Ordering::SeqCst) >= 100, "the grep got as far as the stop");
    // Not a trap: the session is not poisoned and answers its other mounts; the
    // host and other sessions go on.
    assert!(!s.is_poisoned());
    assert_eq!(
        ok(&mut s, "filestore_read", json!({"path": "/m/a.txt", "raw": true}))["text"],
        "alive"
    );
    let mut other = engine().session(vec![MountSpec::new("/m", mem(&[("/b.txt", "b")]))]).unwrap();
    assert_eq!(
        ok(&mut other, "filestore_ls", json!({"details": true, "path": "/m"}))["entries"][0]["path"],
        "/m/b.txt"
    );
    // The same mount after the stop: a typed error again, not a hang.
    assert_eq!(err(&mut s, "filestore_ls", json!({"details": true, "path": "/w"})).0, "backend");
}

#[test]
fn tool_results_on_s3_stay_read_only_with_their_attributes() {
    let srv = shared();
    let p = prefix("results");
    let tmp = tempfile::tempdir().unwrap();
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\nkind: tool\nname: answer\ntype: sqlite-sql\nsource: db\ndescription: The answer.\nstatement: SELECT 42 AS answer\n",
        tmp.path().join("a.db").display()
    );
    let options = SessionOptions {
        tools: Arc::new(ToolRegistry::with_builtin_handlers()),
        ..Default::default()
    };
    let results = Arc::new(srv.volume(&p));
    let mut s = engine()
        .session_with(
            vec![MountSpec::new("/tool_calls", results.clone()).read_only()],
            options.clone(),
        )
        .expect("an object volume keeps entry metadata, so it may hold /tool_calls");
    match s.load_config(&[("tools.yaml".to_string(), yaml)]) {
        Ok(Ok(_)) => {}
        other => panic!("config: {other:?}"),
    }
    let ctx = InvokeContext { tool_call_id: Some("call-1".into()), ..Default::default() };
    let out = s.invoke("answer", &json!({}), &ctx).unwrap();
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let path = out.result_path.clone().unwrap();
    let check = |e: &Entry| {
        assert!(e.read_only, "{e:?}");
        assert_eq!(e.entry_type, "tool_result");
        let a = e.attributes.as_ref().unwrap();
        assert_eq!(
            (a["tool_id"].as_str(), a["tool_call_id"].as_str()),
            (Some("answer"), Some("call-1"))
        );
    };
    check(&s.stat(&path).unwrap());
    let ls =
        ok(&mut s, "filestore_ls", json!({"details": true, "path": "/tool_calls", "depth": 5}));
    assert!(ls.to_string().contains("tool_result"), "{ls}");
    let g = ok(&mut s, "filestore_grep", json!({"pattern": "42", "path": "/tool_calls"}));
    assert_eq!(paths_of(&g["files"]), std::slice::from_ref(&path));
    assert_eq!(
        err(&mut s, "filestore_write", json!({"path": path, "content": "x"})).0,
        "read-only"
    );
    assert_eq!(err(&mut s, "filestore_delete", json!({"path": path})).0, "read-only");
    // Another replica (its own client, a new session, a writable mount even) sees
    // the result read-only with its attributes, and cannot change it either.
    let replica = Arc::new(srv.volume(&p));
    let rel = path.strip_prefix("/tool_calls").unwrap();
    check(&replica.stat(rel).unwrap());
    check(replica.walk("/", 100).unwrap().entries.iter().find(|e| !e.is_dir()).unwrap());
    let mut r = engine().session(vec![MountSpec::new("/t", replica.clone())]).unwrap();
    let (kind, _) =
        err(&mut r, "filestore_delete", json!({"path": "/t/answer", "recursive": true}));
    assert_eq!(kind, "read-only");
    assert!(replica.stat(rel).is_ok(), "a refused delete deletes nothing");
}

/// `filestore` with the server's credentials in its environment (as a user would
/// export them) and `--s3-endpoint`.
fn filestore(srv: &S3Server) -> Command {
    let mut c = Command::new(BIN);
    c.envs(srv.env()).env_remove("AWS_ENDPOINT_URL").env_remove("AWS_ENDPOINT");
    c
}

#[test]
fn call_and_serve_mount_s3_from_the_command_line() {
    let srv = shared();
    let p = prefix("cli");
    let mount = format!("/workspace=s3://{}/{p}", crate::s3_server::BUCKET);
    let out = filestore(srv)
        .args([
            "call",
            "filestore_write",
            r#"{"path":"/workspace/src/hello.txt","content":"hello from s3\n"}"#,
        ])
        .args(["--mount", &mount, "--s3-endpoint", &srv.endpoint])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(exists(srv, &format!("{p}/src/hello.txt")));

    // `filestore serve --mount /workspace=s3://bucket/prefix` over stdio.
    use std::io::{BufRead, BufReader, Write};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = filestore(srv)
        .args(["serve", "--mount", &mount, "--s3-endpoint", &srv.endpoint])
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .unwrap();
    let grep = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "filestore_grep",
        "arguments": {"pattern": "from s3", "path": "/workspace", "output_mode": "content"}}});
    writeln!(stdin, "{grep}").unwrap();
    stdin.flush().unwrap();
    let answer = loop {
        // Not a timing assertion: a guard so a regression fails instead of hanging.
        let v = rx.recv_timeout(std::time::Duration::from_secs(120)).expect("an answer");
        if v["id"] == 2 {
            break v;
        }
    };
    drop(stdin);
    let _ = child.wait();
    let lines = &answer["result"]["structuredContent"]["lines"];
    assert_eq!(lines[0]["path"], "/workspace/src/hello.txt", "{answer}");
    assert_eq!(lines[0]["text"], "hello from s3");

    // Wrong credentials fail at start, naming the mount and the store's reason.
    let out = filestore(srv)
        .env("AWS_SECRET_ACCESS_KEY", "wrong")
        .args(["serve", "--mount", &mount, "--s3-endpoint", &srv.endpoint])
        .current_dir(tmp.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/workspace") && stderr.contains(&format!("s3://filestore/{p}")),
        "{stderr}"
    );
}

/// File-system-backed servers (this one) keep an empty folder where the last key
/// beneath a directory was deleted, list it, and refuse a create of a file of that
/// name: the volume removes such folders, so the directory is gone as it is on S3
/// and in memory volumes (found by the model suite).
#[test]
fn a_deleted_directory_leaves_nothing_behind() {
    let srv = shared();
    let v = srv.volume(&prefix("emptied"));
    let once = WriteOptions { create_only: true, ..Default::default() };
    v.write("/b/a", b"x", &WriteOptions::default()).unwrap();
    v.delete("/b", true).unwrap();
    v.write("/b", b"file now", &once).expect("a file where the directory was");
    v.write("/d/a/b", b"x", &WriteOptions::default()).unwrap();
    v.write("/keep", b"x", &WriteOptions::default()).unwrap();
    v.delete("/d/a/b", false).unwrap();
    let root: Vec<String> = v.list("/").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(root.len(), 2, "{root:?}");
    assert!(root.contains(&"/b".to_string()) && root.contains(&"/keep".to_string()), "{root:?}");
    v.write("/d", b"x", &once).expect("a file where the emptied directory was");
    v.write("/m/n/o", b"x", &WriteOptions::default()).unwrap();
    v.rename("/m", "/moved", false).unwrap();
    v.write("/m", b"x", &once).expect("a file where the moved directory was");
    // Object stores hold no empty directories: creating one says so, changes nothing.
    let e = v.create_dir("/empty").unwrap_err();
    assert_eq!(e.kind(), filestore_guest::error::ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("cannot create empty directories"), "{e}");
}
