//! Hostile cases (a table run against a real directory, each asserting the error
//! kind and that nothing outside the root was read, created or changed) and
//! functional tests of every operation.
//!
//! It stays above 800 lines because the hostile cases are one table run against one
//! hostile tree, and the functional tests share its fixtures.

use super::names::{is_temp_name, temp_name};
use super::*;
use filestore_guest::vfs::volume::has_content;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use tempfile::TempDir;

use super::super::hostile_tree::{EVIL_SECRET, SECRET, SECRET_X, snapshot};

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    super::super::hostile_tree::temp_files(dir, TEMP_MARKER)
}
/// Names that exist only outside the root: no listing may ever report them.
const OUTSIDE_NAMES: [&str; 4] = ["secret.txt", "deep.txt", "evil_secret.txt", "hostname"];

/// A temp dir holding `root/` (the volume), a `root_evil/` sibling sharing the
/// root's prefix, and `outside/`, with links from the root to all of them.
struct Fx {
    _tmp: TempDir,
    top: PathBuf,
    root: PathBuf,
    outside: PathBuf,
    vol: DirVolume,
}

fn fixture() -> Fx {
    fixture_with(false)
}

fn fixture_with(read_only: bool) -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().to_path_buf();
    let (root, outside) = super::super::hostile_tree::build(&top);
    let vol = DirVolume::open(&root, read_only).unwrap();
    Fx { _tmp: tmp, top, root, outside, vol }
}

#[derive(Debug)]
enum Out {
    Unit,
    Bytes(Vec<u8>),
    Entry(Entry),
    Entries(Vec<Entry>),
}

impl Out {
    fn entries(&self) -> Vec<&Entry> {
        match self {
            Out::Entry(e) => vec![e],
            Out::Entries(v) => v.iter().collect(),
            _ => Vec::new(),
        }
    }
}

type Run = Box<dyn Fn(&Fx) -> Result<Out>>;
type Post = Box<dyn Fn(&Fx, &Out)>;

struct Case {
    name: &'static str,
    run: Run,
    /// `None`: must succeed.
    expect: Option<ErrorKind>,
    post: Option<Post>,
}

fn stat(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.stat(&p).map(Out::Entry))
}
fn list(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.list(&p).map(Out::Entries))
}
fn walk(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.walk(&p, 10_000).map(|w| Out::Entries(w.entries)))
}
fn read(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.read(&p, 0, 1 << 20).map(Out::Bytes))
}
fn write(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.write(&p, b"PWNED", &WriteOptions::default()).map(Out::Entry))
}
fn append(p: impl Into<String>) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.append(&p, b"PWNED").map(Out::Entry))
}
fn create(p: impl Into<String>) -> Run {
    let p = p.into();
    let o = WriteOptions { create_only: true, ..Default::default() };
    Box::new(move |fx| fx.vol.write(&p, b"PWNED", &o).map(Out::Entry))
}
fn delete(p: impl Into<String>, recursive: bool) -> Run {
    let p = p.into();
    Box::new(move |fx| fx.vol.delete(&p, recursive).map(|()| Out::Unit))
}
fn rename(from: impl Into<String>, to: impl Into<String>, overwrite: bool) -> Run {
    let (from, to) = (from.into(), to.into());
    Box::new(move |fx| fx.vol.rename(&from, &to, overwrite).map(|()| Out::Unit))
}

/// Replaces `root/d` by a link to `outside/` (which holds `x.txt`), after `first`
/// succeeded on `/d`: the "directory swapped between two calls" attack.
fn swapped(first: Run, then: Run) -> Run {
    Box::new(move |fx| {
        first(fx).expect("first call, before the swap");
        std::fs::remove_dir_all(fx.root.join("d")).unwrap();
        symlink(&fx.outside, fx.root.join("d")).unwrap();
        then(fx)
    })
}

fn ok(name: &'static str, run: Run) -> Case {
    Case { name, run, expect: None, post: None }
}
fn with_post(mut c: Case, post: impl Fn(&Fx, &Out) + 'static) -> Case {
    c.post = Some(Box::new(post));
    c
}

fn is_link(fx: &Fx, name: &str) -> bool {
    std::fs::symlink_metadata(fx.root.join(name)).is_ok_and(|m| m.file_type().is_symlink())
}

/// One row per case: `"name" => ExpectedErrorKind (or Ok): operation`.
macro_rules! hostile {
    ($($name:literal => $kind:ident : $run:expr),* $(,)?) => {
        vec![$(Case { name: $name, run: $run, expect: hostile!(@kind $kind), post: None }),*]
    };
    (@kind Ok) => { None };
    (@kind $k:ident) => { Some(ErrorKind::$k) };
}

fn hostile_table() -> Vec<Case> {
    let long_path = format!("/{}", "a/".repeat(2500));
    let long_comp = format!("/{}", "x".repeat(300));
    let mut cases = hostile! {
        // 2025 advisory 1: a sibling directory sharing the root's prefix.
        "prefix sibling via .." => InvalidPath: read("/../root_evil/evil_secret.txt"),
        "prefix sibling by concatenation" => InvalidPath: read("_evil/evil_secret.txt"),
        "prefix sibling write by concatenation" => InvalidPath: write("_evil/new.txt"),
        "prefix sibling list by concatenation" => InvalidPath: list("_evil"),
        "prefix sibling via link" => InvalidPath: read("/link_evil/evil_secret.txt"),
        "prefix sibling file link" => InvalidPath: read("/link_evil_rel"),
        // 2025 advisory 2: a symlink pointing outside.
        "absolute file link" => InvalidPath: read("/link_file_abs"),
        "relative file link" => InvalidPath: read("/link_file_rel"),
        "absolute dir link as parent" => InvalidPath: read("/link_out_abs/secret.txt"),
        "relative dir link as parent" => InvalidPath: read("/link_out_rel/secret.txt"),
        "stat through dir link" => InvalidPath: stat("/link_out_abs/secret.txt"),
        "list dir link" => InvalidPath: list("/link_out_abs"),
        "list through dir link" => InvalidPath: list("/link_out_rel/dir"),
        "walk dir link" => InvalidPath: walk("/link_out_abs"),
        "link loop leaf" => InvalidPath: read("/loop_a"),
        "link loop parent" => InvalidPath: read("/loop_a/x"),
        "link chain to outside file" => InvalidPath: read("/chain1"),
        "link chain to outside dir" => InvalidPath: read("/chain_dir1/secret.txt"),
        "link inside the root (never followed)" => InvalidPath: read("/link_in"),
        "dir link inside the root" => InvalidPath: read("/link_in_dir/x.txt"),
        "link to the parent of the root" => InvalidPath: read("/link_parent/outside/secret.txt"),
        "link to the root itself" => InvalidPath: read("/link_self/a.txt"),
        "magic link /proc/self/root" => InvalidPath: read("/magic/etc/hostname"),
        // Writes through links: never followed, never replaced.
        "write dangling absolute leaf" => InvalidPath: write("/dangling"),
        "write dangling relative leaf" => InvalidPath: write("/dangling_rel"),
        "create_only dangling leaf" => InvalidPath: create("/dangling"),
        "write onto file link" => InvalidPath: write("/link_file_abs"),
        "write into dir link" => InvalidPath: write("/link_out_abs/new.txt"),
        "write into relative dir link" => InvalidPath: write("/link_out_rel/dir/new.txt"),
        "write into sibling link" => InvalidPath: write("/link_evil/evil_secret.txt"),
        "write into dangling dir link" => InvalidPath: write("/dangling_dir/x.txt"),
        "write into link loop" => InvalidPath: write("/loop_a/x"),
        "write into self link" => InvalidPath: write("/link_self/new.txt"),
        // Appends through links: refused as writes are, nothing outside changed.
        "append dangling absolute leaf" => InvalidPath: append("/dangling"),
        "append dangling relative leaf" => InvalidPath: append("/dangling_rel"),
        "append onto file link" => InvalidPath: append("/link_file_abs"),
        "append onto relative file link" => InvalidPath: append("/link_file_rel"),
        "append to a file through dir link" => InvalidPath: append("/link_out_abs/secret.txt"),
        "append into relative dir link" => InvalidPath: append("/link_out_rel/dir/new.txt"),
        "append into sibling link" => InvalidPath: append("/link_evil/evil_secret.txt"),
        "append into link loop" => InvalidPath: append("/loop_a/x"),
        "append into self link" => InvalidPath: append("/link_self/a.txt"),
        "append outside via .." => InvalidPath: append("/../outside/secret.txt"),
        "append to a sibling by concatenation" => InvalidPath: append("_evil/evil_secret.txt"),
        "swap: stat then append" => InvalidPath: swapped(stat("/d/x.txt"), append("/d/x.txt")),
        // Deletes act on links, never on targets.
        "delete dangling link" => Ok: delete("/dangling", false),
        "delete through dir link" => InvalidPath: delete("/link_out_abs/secret.txt", false),
        "delete dir through link" => InvalidPath: delete("/link_out_rel/dir", true),
        // Moves onto and through links.
        "move into dir link" => InvalidPath: rename("/a.txt", "/link_out_abs/a.txt", false),
        "move into inside dir link" => InvalidPath: rename("/a.txt", "/link_in_dir/a.txt", false),
        "move out of dir link" => InvalidPath: rename("/link_out_abs/secret.txt", "/s.txt", false),
        "move onto file link" => InvalidPath: rename("/a.txt", "/link_file_abs", true),
        "move onto dangling link" => InvalidPath: rename("/a.txt", "/dangling", true),
        "move onto link without overwrite" => AlreadyExists: rename("/a.txt", "/dangling", false),
        "move outside via .." => InvalidPath: rename("/a.txt", "/../outside/a.txt", false),
        "move outside via nested .." => InvalidPath: rename("/a.txt", "/d/../../outside/a", false),
        "move to relative-looking name" => InvalidPath: rename("/a.txt", "../outside/a.txt", false),
        "move from relative-looking name" => InvalidPath: rename("../outside/secret.txt", "/s", false),
        // Malformed paths (defence in depth behind the guest normaliser).
        ".. climbing" => InvalidPath: read("/.."),
        "nested .. climbing" => InvalidPath: read("/d/../../outside/secret.txt"),
        "dot component" => InvalidPath: read("/./a.txt"),
        "NUL byte" => InvalidPath: read("/a.txt\0/../../outside/secret.txt"),
        "control character" => InvalidPath: read("/a\u{1}b"),
        "newline on write" => InvalidPath: write("/new\nline"),
        "backslash separators" => InvalidPath: read("/d\\..\\..\\outside\\secret.txt"),
        "5000-byte path read" => InvalidPath: read(long_path.clone()),
        "5000-byte path write" => InvalidPath: write(long_path),
        "300-byte component" => InvalidPath: write(long_comp),
        "no leading slash" => InvalidPath: read("a.txt"),
        "empty path" => InvalidPath: read(""),
        "repeated slash" => InvalidPath: read("//a.txt"),
        "trailing slash on link" => InvalidPath: list("/link_out_abs/"),
        "percent-encoded .. is a plain name" => NotFound: read("/%2e%2e/outside/secret.txt"),
        "lookalike slash is a plain name" => NotFound: read("/link_out_abs\u{2215}secret.txt"),
        // A directory swapped for a link between two calls.
        "swap: stat then read" => InvalidPath: swapped(stat("/d"), read("/d/x.txt")),
        "swap: read then write" => InvalidPath: swapped(read("/d/x.txt"), write("/d/x.txt")),
        "swap: list then list" => InvalidPath: swapped(list("/d"), list("/d")),
        "swap: walk then walk" => InvalidPath: swapped(walk("/d"), walk("/d")),
        "swap: stat then delete" => InvalidPath: swapped(stat("/d/x.txt"), delete("/d/x.txt", false)),
        "swap: stat then move out" => InvalidPath: swapped(stat("/d/x.txt"), rename("/d/x.txt", "/x", false)),
        // Listings never report what lies beyond a link.
        "list never crosses a link" => Ok: list("/"),
        "walk a directory holding a link" => Ok: walk("/linkdir"),
        "walk through a link" => InvalidPath: walk("/link_in_dir"),
    };
    // Cases with a check of their own after the common ones.
    cases.extend([
        with_post(ok("stat a link reports the link", stat("/link_file_abs")), |_, out| {
            let e = out.entries()[0];
            assert_eq!((e.entry_type.as_str(), e.size), (TYPE_SYMLINK, 0));
        }),
        with_post(ok("delete file link", delete("/link_file_abs", false)), |fx, _| {
            assert!(!is_link(fx, "link_file_abs"));
        }),
        with_post(ok("delete dir link recursively", delete("/link_out_abs", true)), |fx, _| {
            assert!(!is_link(fx, "link_out_abs"));
        }),
        with_post(ok("recursive delete containing links", delete("/linkdir", true)), |fx, _| {
            assert!(!fx.root.join("linkdir").exists());
        }),
        with_post(ok("recursive delete of the root", delete("/", true)), |fx, _| {
            assert_eq!(std::fs::read_dir(&fx.root).unwrap().count(), 0);
        }),
        with_post(ok("move a file link", rename("/link_file_abs", "/d/l", false)), |fx, _| {
            assert!(is_link(fx, "d/l"));
            let e = fx.vol.read("/d/l", 0, 100).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidPath);
        }),
        with_post(ok("move a dir link", rename("/link_out_rel", "/d/out", false)), |fx, _| {
            assert!(is_link(fx, "d/out"));
        }),
        with_post(
            ok("swap: delete removes the link", swapped(stat("/d"), delete("/d", true))),
            |fx, _| {
                assert!(std::fs::symlink_metadata(fx.root.join("d")).is_err());
            },
        ),
        with_post(ok("walk never crosses a link", walk("/")), |_, out| {
            let links: Vec<&str> = out
                .entries()
                .into_iter()
                .filter(|e| e.entry_type == TYPE_SYMLINK)
                .map(|e| e.path.as_str())
                .collect();
            for l in ["/link_out_abs", "/linkdir/out", "/link_self", "/loop_a", "/magic"] {
                assert!(links.contains(&l), "{l} not reported as a link");
            }
        }),
    ]);
    cases
}

#[test]
fn hostile_cases() {
    let cases = hostile_table();
    assert!(cases.len() >= 40, "only {} hostile cases", cases.len());
    for c in cases {
        let fx = fixture();
        let before = snapshot(&fx.top, &fx.root);
        let got = (c.run)(&fx);
        let after = snapshot(&fx.top, &fx.root);
        assert_eq!(before, after, "{}: something outside the root changed", c.name);
        match (&got, c.expect) {
            (Ok(_), None) => {}
            (Err(e), Some(k)) => {
                assert_eq!(e.kind(), k, "{}: wrong error {e}", c.name);
                let text = e.to_string();
                assert!(
                    !text.contains(fx.top.to_str().unwrap()),
                    "{}: host path in {text}",
                    c.name
                );
            }
            (got, want) => panic!("{}: expected {want:?}, got {got:?}", c.name),
        }
        if let Ok(out) = &got {
            if let Out::Bytes(b) = out {
                let s = String::from_utf8_lossy(b);
                assert!(
                    !s.contains(SECRET) && !s.contains(EVIL_SECRET) && !s.contains(SECRET_X),
                    "{}: read outside data",
                    c.name
                );
            }
            for e in out.entries() {
                assert!(
                    !e.path.split('/').any(|n| OUTSIDE_NAMES.contains(&n)),
                    "{}: reported {} beyond a link",
                    c.name,
                    e.path
                );
                if e.entry_type == TYPE_SYMLINK {
                    assert_eq!(e.size, 0, "{}: link size leaks its target", c.name);
                }
            }
            if let Some(post) = &c.post {
                post(&fx, out);
            }
        }
        assert!(temp_files(&fx.root).is_empty(), "{}: temporary file left", c.name);
    }
}

fn opts() -> WriteOptions {
    WriteOptions::default()
}

fn names(v: &[Entry]) -> Vec<&str> {
    v.iter().map(|e| e.path.as_str()).collect()
}

fn plain() -> (TempDir, DirVolume) {
    let tmp = tempfile::tempdir().unwrap();
    let vol = DirVolume::open(tmp.path(), false).unwrap();
    (tmp, vol)
}

#[test]
fn open_checks_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let e = DirVolume::open(&missing, false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert!(e.to_string().contains("missing"));
    std::fs::write(tmp.path().join("f"), "x").unwrap();
    let e = DirVolume::open(tmp.path().join("f"), false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotADirectory);
    let v = DirVolume::open(tmp.path(), true).unwrap();
    assert_eq!(v.root(), tmp.path());
    assert!(v.is_read_only());
    // Shareable as the host shares volumes.
    let _shared: crate::volumes::SharedVolume = Arc::new(v);
}

#[test]
fn write_read_stat() {
    let (tmp, v) = plain();
    let e = v.write("/a/b/c.txt", b"hello world", &opts()).unwrap();
    assert_eq!((e.path.as_str(), e.size, e.kind), ("/a/b/c.txt", 11, EntryKind::File));
    assert!(e.modified_ms.is_some_and(|ms| ms > 1_600_000_000_000));
    assert_eq!(std::fs::read(tmp.path().join("a/b/c.txt")).unwrap(), b"hello world");
    assert_eq!(v.read("/a/b/c.txt", 0, 100).unwrap(), b"hello world");
    assert!(v.stat("/a/b").unwrap().is_dir());
    assert!(v.stat("/").unwrap().is_dir());
    assert_eq!(v.stat("/a/b/c.txt").unwrap().size, 11);
    assert_eq!(v.stat("/nope").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(v.stat("/a/b/c.txt/x").unwrap_err().kind(), ErrorKind::NotFound);
    // Overwrite replaces the whole content.
    v.write("/a/b/c.txt", b"hi", &opts()).unwrap();
    assert_eq!(v.read("/a/b/c.txt", 0, 100).unwrap(), b"hi");
    assert_eq!(v.write("/", b"x", &opts()).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(v.write("/a", b"x", &opts()).unwrap_err().kind(), ErrorKind::NotAFile);
    assert!(temp_files(tmp.path()).is_empty());
}

#[test]
fn read_ranges() {
    let (_tmp, v) = plain();
    v.write("/f", b"0123456789", &opts()).unwrap();
    assert_eq!(v.read("/f", 2, 3).unwrap(), b"234");
    assert_eq!(v.read("/f", 8, 100).unwrap(), b"89");
    assert_eq!(v.read("/f", 10, 5).unwrap(), b"");
    assert_eq!(v.read("/f", u64::MAX, u64::MAX).unwrap(), b"");
    assert_eq!(v.read("/f", 0, 0).unwrap(), b"");
    assert_eq!(v.read("/f", 0, u64::MAX).unwrap(), b"0123456789");
    // A range deep inside a larger file.
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    v.write("/big", &big, &opts()).unwrap();
    assert_eq!(v.read("/big", 2_000_000, 7).unwrap(), &big[2_000_000..2_000_007]);
    assert_eq!(v.read("/", 0, 1).unwrap_err().kind(), ErrorKind::NotAFile);
    v.write("/d/x", b"x", &opts()).unwrap();
    assert_eq!(v.read("/d", 0, 1).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(v.read("/missing", 0, 1).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn create_only_and_atomic_failures() {
    let (tmp, v) = plain();
    let co = WriteOptions { create_only: true, ..Default::default() };
    v.write("/f.txt", b"old", &co).unwrap();
    let e = v.write("/f.txt", b"new", &co).unwrap_err();
    assert_eq!((e.kind(), e.path()), (ErrorKind::AlreadyExists, Some("/f.txt")));
    assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"old");
    // A write whose parent is a file fails and changes nothing.
    let e = v.write("/f.txt/child", b"x", &opts()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotADirectory);
    assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"old");
    assert!(temp_files(tmp.path()).is_empty());
    // Permission bits survive an overwrite.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path().join("f.txt"), std::fs::Permissions::from_mode(0o640))
        .unwrap();
    v.write("/f.txt", b"newer", &opts()).unwrap();
    let mode = std::fs::metadata(tmp.path().join("f.txt")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o640);
    assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"newer");
    // Setuid, setgid and sticky are cleared by an overwrite (the new inode is the
    // host user's), the other bits kept; a new file never has them.
    std::fs::set_permissions(tmp.path().join("f.txt"), std::fs::Permissions::from_mode(0o7755))
        .unwrap();
    v.write("/f.txt", b"agent content", &opts()).unwrap();
    let mode = std::fs::metadata(tmp.path().join("f.txt")).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o755, "mode {mode:o}");
    v.write("/fresh.txt", b"x", &opts()).unwrap();
    let mode = std::fs::metadata(tmp.path().join("fresh.txt")).unwrap().permissions().mode();
    assert_eq!(mode & 0o7000, 0, "mode {mode:o}");
}

/// An append adds the bytes in place (the same inode, as bash's `>>`), creates a
/// missing file and its parents, and refuses what a write refuses with the same
/// errors: the root, a directory, a special file, a link or a path through one.
#[test]
fn appends_are_in_place_and_refused_as_writes() {
    use std::os::unix::fs::MetadataExt;
    let (tmp, v) = plain();
    v.write("/log", b"one\n", &opts()).unwrap();
    let ino = std::fs::metadata(tmp.path().join("log")).unwrap().ino();
    let e = v.append("/log", b"two\n").unwrap();
    assert_eq!((e.path.as_str(), e.size, e.kind), ("/log", 8, EntryKind::File));
    assert_eq!(std::fs::read(tmp.path().join("log")).unwrap(), b"one\ntwo\n");
    assert_eq!(std::fs::metadata(tmp.path().join("log")).unwrap().ino(), ino, "in place");
    assert_eq!(v.append("/a/b/new", b"n").unwrap().size, 1);
    assert_eq!(std::fs::read(tmp.path().join("a/b/new")).unwrap(), b"n");
    assert_eq!(v.append("/log", b"").unwrap().size, 8, "nothing to add");
    assert_eq!(v.append("/", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(v.append("/a", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(v.append("/log/x", b"x").unwrap_err().kind(), ErrorKind::NotADirectory);
    let _sock = std::os::unix::net::UnixListener::bind(tmp.path().join("sock")).unwrap();
    assert_eq!(v.append("/sock", b"x").unwrap_err().kind(), ErrorKind::Unsupported);
    // A link, and a link as parent: the same refusal, word for word, as a write's.
    std::fs::create_dir(tmp.path().join("real")).unwrap();
    std::fs::write(tmp.path().join("real/f"), "kept").unwrap();
    symlink(tmp.path().join("real/f"), tmp.path().join("lf")).unwrap();
    symlink(tmp.path().join("real"), tmp.path().join("ld")).unwrap();
    for p in ["/lf", "/ld/f", "/ld/new"] {
        let a = v.append(p, b"x").unwrap_err();
        let w = v.write(p, b"x", &opts()).unwrap_err();
        assert_eq!((a.kind(), a.to_string()), (w.kind(), w.to_string()), "{p}");
        assert_eq!(a.kind(), ErrorKind::InvalidPath, "{p}");
    }
    assert_eq!(std::fs::read(tmp.path().join("real/f")).unwrap(), b"kept");
    assert!(!tmp.path().join("real/new").exists());
    let ro = DirVolume::open(tmp.path(), true).unwrap();
    assert_eq!(ro.append("/log", b"x").unwrap_err().kind(), ErrorKind::ReadOnly);
    assert!(temp_files(tmp.path()).is_empty());
}

/// A file with a second hard link (one placed beneath the root for a file outside,
/// say) is never changed in place: the append replaces it as a write does, and the
/// other name keeps the old content.
#[test]
fn an_append_to_a_hard_linked_file_never_changes_the_other_link() {
    let tmp = tempfile::tempdir().unwrap();
    let (root, outside) = (tmp.path().join("root"), tmp.path().join("outside.txt"));
    std::fs::create_dir(&root).unwrap();
    std::fs::write(&outside, "outside\n").unwrap();
    std::fs::hard_link(&outside, root.join("linked.txt")).unwrap();
    let v = DirVolume::open(&root, false).unwrap();
    assert_eq!(v.append("/linked.txt", b"agent\n").unwrap().size, 14);
    assert_eq!(std::fs::read(root.join("linked.txt")).unwrap(), b"outside\nagent\n");
    assert_eq!(std::fs::read(&outside).unwrap(), b"outside\n");
}

/// What the child process of [`a_failed_append_leaves_the_old_content`] runs:
/// appends that pass its file-size limit (`RLIMIT_FSIZE` of 4096 bytes, `SIGXFSZ`
/// ignored, so a write past it is short and the next one fails with `EFBIG`).
fn failing_appends_under_a_file_size_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let maximum = getrlimit(Resource::Fsize).maximum;
    setrlimit(Resource::Fsize, Rlimit { current: Some(4096), maximum }).unwrap();
    let (tmp, v) = plain();
    let old: Vec<u8> = (0..4000u32).map(|i| b'a' + (i % 26) as u8).collect();
    std::fs::write(tmp.path().join("log"), &old).unwrap();
    let e = v.append("/log", &[b'x'; 1000]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Backend, "{e}");
    assert_eq!(std::fs::read(tmp.path().join("log")).unwrap(), old, "old content intact");
    let e = v.append("/new.txt", &[b'y'; 5000]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Backend, "{e}");
    assert!(!tmp.path().join("new.txt").exists(), "a file the append created is removed");
    v.append("/log", &[b'z'; 96]).unwrap();
    assert_eq!(std::fs::metadata(tmp.path().join("log")).unwrap().len(), 4096);
    println!("FAILED-APPENDS-CHECKED");
}

/// A short write and a failed one (past the process's file-size limit) are undone:
/// the file holds its old content byte for byte. Runs in a child process of this
/// test binary, where the limit applies to nothing else.
#[test]
fn a_failed_append_leaves_the_old_content() {
    const CHILD: &str = "FILESTORE_TEST_FAILING_APPENDS";
    if std::env::var_os(CHILD).is_some() {
        return failing_appends_under_a_file_size_limit();
    }
    let me = std::env::current_exe().unwrap();
    // An ignored SIGXFSZ stays ignored across `exec` (the child sets its limit).
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg("trap '' XFSZ; exec \"$0\" \"$@\"")
        .arg(&me)
        .args(["--exact", "volumes::dir::tests::a_failed_append_leaves_the_old_content"])
        .args(["--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("running /bin/sh");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("FAILED-APPENDS-CHECKED"), "{text}");
}

#[test]
fn concurrent_writers_never_expose_partial_files() {
    let (tmp, v) = plain();
    let v = Arc::new(v);
    v.write("/f", &[b'a'; 100_000], &opts()).unwrap();
    let writers: Vec<_> = (0..4u8)
        .map(|i| {
            let v = Arc::clone(&v);
            std::thread::spawn(move || {
                for _ in 0..10 {
                    v.write("/f", &vec![b'b' + i; 100_000], &opts()).unwrap();
                }
            })
        })
        .collect();
    for _ in 0..50 {
        let got = v.read("/f", 0, u64::MAX).unwrap();
        assert_eq!(got.len(), 100_000);
        assert!(got.iter().all(|&b| b == got[0]), "a read saw a mixed file");
    }
    for w in writers {
        w.join().unwrap();
    }
    assert!(temp_files(tmp.path()).is_empty());
}

#[test]
fn list_and_walk() {
    let (tmp, v) = plain();
    for p in ["/b.txt", "/a/1.txt", "/a/2.txt", "/a/z/deep.txt", "/c/e.txt"] {
        v.write(p, b"x", &opts()).unwrap();
    }
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    // In flight: hidden. Names an agent cannot type: listed escaped (see
    // unusual_names_are_listed_escaped_and_reachable).
    std::fs::write(tmp.path().join(".b.txt.filestore-tmp-0123456789abcdef"), "tmp").unwrap();
    std::fs::write(tmp.path().join("bad\nname"), "x").unwrap();
    std::fs::write(tmp.path().join("back\\slash"), "x").unwrap();
    let l = v.list("/").unwrap();
    assert_eq!(
        names(&l),
        vec!["/a", "/b.txt", "/c", "/empty", "/~x~back%5Cslash", "/~x~bad%0Aname"]
    );
    assert!(l[0].is_dir() && !l[1].is_dir());
    assert_eq!(l[1].size, 1);
    assert_eq!(names(&v.list("/a").unwrap()), vec!["/a/1.txt", "/a/2.txt", "/a/z"]);
    assert_eq!(v.list("/b.txt").unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(v.list("/nope").unwrap_err().kind(), ErrorKind::NotFound);
    let w = v.walk("/", 100).unwrap();
    assert!(!w.truncated);
    assert_eq!(
        names(&w.entries),
        vec![
            "/a",
            "/b.txt",
            "/c",
            "/empty",
            "/~x~back%5Cslash",
            "/~x~bad%0Aname",
            "/a/1.txt",
            "/a/2.txt",
            "/a/z",
            "/a/z/deep.txt",
            "/c/e.txt"
        ]
    );
    let w = v.walk("/a", 100).unwrap();
    assert_eq!(names(&w.entries), vec!["/a/1.txt", "/a/2.txt", "/a/z", "/a/z/deep.txt"]);
    let w = v.walk("/", 3).unwrap();
    assert!(w.truncated);
    assert_eq!(w.entries.len(), 3);
    assert!(!v.walk("/", 11).unwrap().truncated);
    assert!(v.walk("/", 10).unwrap().truncated);
    assert_eq!(v.walk("/b.txt", 10).unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(v.walk("/nope", 10).unwrap_err().kind(), ErrorKind::NotFound);
}

/// A walk whose directories are listed on helper threads answers exactly what the
/// walk on one thread answers: the same entries in the same order, cut at the same
/// place, whatever the cap and the number of helpers; links are listed, never
/// descended, either way.
#[test]
fn walk_on_helper_threads_is_the_one_thread_walk() {
    let (tmp, v) = plain();
    for i in 0..6 {
        for j in 0..4 {
            v.write(&format!("/d{i}/s{j}/f.txt"), b"x", &opts()).unwrap();
            v.write(&format!("/d{i}/s{j}/deep/g{j}.rs"), b"xy", &opts()).unwrap();
        }
        v.write(&format!("/d{i}.txt"), b"x", &opts()).unwrap();
    }
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    symlink(tmp.path().join("d0"), tmp.path().join("d1/link")).unwrap();
    for dir in ["/", "/d2"] {
        for max in [1, 2, 7, 8, 30, 100, 10_000] {
            let walk = |helpers| {
                let comps = components(dir).unwrap();
                let top = v.open_listable(dir, &comps).unwrap();
                v.walk_from(top, dir, max, helpers).unwrap()
            };
            let one = walk(0);
            assert!(one.entries.len() <= max);
            for helpers in [1, 3] {
                assert_eq!(walk(helpers), one, "{dir} max {max} helpers {helpers}");
            }
        }
    }
    let all = v.walk("/", 10_000).unwrap().entries;
    assert!(all.iter().any(|e| e.path == "/d1/link" && e.entry_type == TYPE_SYMLINK));
    assert!(!all.iter().any(|e| e.path.starts_with("/d1/link/")));
}

#[test]
#[cfg(target_os = "linux")]
fn openat2_fast_path_opens_only_link_free_paths_beneath_the_root() {
    let (tmp, v) = plain();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/f.txt"), "inside").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "outside").unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("a/out")).unwrap();
    std::os::unix::fs::symlink("b", root.join("a/in")).unwrap();
    std::os::unix::fs::symlink("b/f.txt", root.join("a/leaf")).unwrap();
    std::os::unix::fs::symlink("/proc/self/root", root.join("magic")).unwrap();
    let Some(mut f) = open_beneath(&v.dir, &["a", "b", "f.txt"], false) else {
        eprintln!("openat2 is not available here: only the component-wise path runs");
        return;
    };
    let mut text = String::new();
    f.read_to_string(&mut text).unwrap();
    assert_eq!(text, "inside");
    assert!(open_beneath(&v.dir, &["a", "b"], true).is_some());
    // Every link, wherever it points, makes the fast path give up (the slow path
    // then refuses with its detailed error).
    for comps in [
        &["a", "out", "secret"][..],
        &["a", "in", "f.txt"],
        &["a", "leaf"],
        &["magic", "etc", "passwd"],
        &["a", "out"],
    ] {
        assert!(open_beneath(&v.dir, comps, false).is_none(), "{comps:?}");
        assert!(open_beneath(&v.dir, comps, true).is_none(), "{comps:?}");
    }
    assert!(open_beneath(&v.dir, &["a", "b", "f.txt"], true).is_none(), "not a directory");
    assert!(open_beneath(&v.dir, &["a", "nope"], false).is_none());
    assert_eq!(v.read("/a/out/secret", 0, 100).unwrap_err().kind(), ErrorKind::InvalidPath);
    assert_eq!(v.read("/a/b/f.txt", 2, 3).unwrap(), b"sid");
}

#[test]
#[cfg(target_os = "linux")]
fn rename_without_overwrite_never_replaces_a_late_destination() {
    let (tmp, v) = plain();
    std::fs::write(tmp.path().join("a"), "a").unwrap();
    std::fs::write(tmp.path().join("b"), "b").unwrap();
    let dir = &v.dir;
    // As if `b` appeared after `rename` checked it: the kernel refuses.
    let e = rename_noreplace(dir, OsStr::new("a"), dir, OsStr::new("b"), "/b").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert!(e.to_string().contains("overwrite=true"), "{e}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("b")).unwrap(), "b");
    assert_eq!(std::fs::read_to_string(tmp.path().join("a")).unwrap(), "a");
    // Where the destination is free it moves (or reports no support, never fails).
    if rename_noreplace(dir, OsStr::new("a"), dir, OsStr::new("c"), "/c").unwrap() {
        assert_eq!(std::fs::read_to_string(tmp.path().join("c")).unwrap(), "a");
    }
}

#[test]
fn special_files_are_listed_not_opened() {
    let (tmp, v) = plain();
    let _sock = std::os::unix::net::UnixListener::bind(tmp.path().join("sock")).unwrap();
    let e = v.stat("/sock").unwrap();
    assert_eq!((e.entry_type.as_str(), e.size), (TYPE_SPECIAL, 0));
    assert_eq!(v.read("/sock", 0, 10).unwrap_err().kind(), ErrorKind::Unsupported);
    assert_eq!(v.write("/sock", b"x", &opts()).unwrap_err().kind(), ErrorKind::Unsupported);
    v.delete("/sock", false).unwrap();
}

#[test]
fn delete_rules() {
    let (tmp, v) = plain();
    v.write("/f", b"x", &opts()).unwrap();
    v.write("/d/e/g", b"x", &opts()).unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    v.delete("/f", false).unwrap();
    assert_eq!(v.stat("/f").unwrap_err().kind(), ErrorKind::NotFound);
    v.delete("/empty", false).unwrap();
    let e = v.delete("/d", false).unwrap_err();
    assert_eq!((e.kind(), e.path()), (ErrorKind::Conflict, Some("/d")));
    assert_eq!(v.delete("/", false).unwrap_err().kind(), ErrorKind::Conflict);
    v.delete("/d", true).unwrap();
    assert_eq!(v.stat("/d").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(v.delete("/d", true).unwrap_err().kind(), ErrorKind::NotFound);
    v.write("/x/y", b"x", &opts()).unwrap();
    v.delete("/", true).unwrap();
    assert!(v.list("/").unwrap().is_empty());
    assert!(tmp.path().is_dir());
}

#[test]
fn rename_rules() {
    let (_tmp, v) = plain();
    v.write("/a.txt", b"A", &opts()).unwrap();
    v.write("/d/b.txt", b"B", &opts()).unwrap();
    v.write("/d/e/c.txt", b"C", &opts()).unwrap();
    v.rename("/d", "/z", false).unwrap();
    assert_eq!(v.read("/z/e/c.txt", 0, 9).unwrap(), b"C");
    let e = v.rename("/a.txt", "/z/b.txt", false).unwrap_err();
    assert_eq!((e.kind(), e.path()), (ErrorKind::AlreadyExists, Some("/z/b.txt")));
    v.rename("/a.txt", "/z/b.txt", true).unwrap();
    assert_eq!(v.read("/z/b.txt", 0, 9).unwrap(), b"A");
    assert_eq!(v.stat("/a.txt").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(v.rename("/z", "/z/q", false).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(v.rename("/missing", "/q", false).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(v.rename("/z/b.txt", "/z/e", true).unwrap_err().kind(), ErrorKind::AlreadyExists);
    v.write("/y", b"Y", &opts()).unwrap();
    assert_eq!(v.rename("/z", "/y", true).unwrap_err().kind(), ErrorKind::AlreadyExists);
    assert_eq!(v.rename("/", "/q", false).unwrap_err().kind(), ErrorKind::InvalidArgument);
    // Destination parents are created; renaming onto itself is a no-op.
    v.rename("/y", "/new/dir/y", false).unwrap();
    assert_eq!(v.read("/new/dir/y", 0, 9).unwrap(), b"Y");
    v.rename("/new/dir/y", "/new/dir/y", false).unwrap();
    assert_eq!(
        v.rename("/new/dir/y", "/z/b.txt/y", false).unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
}

#[test]
fn read_only_volume_refuses_every_mutation() {
    let fx = fixture_with(true);
    let before = snapshot(&fx.top, &fx.top.join("nothing"));
    let v = &fx.vol;
    let cases: Vec<(&str, Result<()>)> = vec![
        ("/a.txt", v.write("/a.txt", b"x", &opts()).map(drop)),
        ("/new.txt", v.write("/new.txt", b"x", &opts()).map(drop)),
        ("/a.txt", v.delete("/a.txt", false)),
        ("/", v.delete("/", true)),
        ("/link_file_abs", v.delete("/link_file_abs", false)),
        ("/a.txt", v.rename("/a.txt", "/b.txt", false)),
    ];
    for (path, r) in cases {
        let e = r.unwrap_err();
        assert_eq!((e.kind(), e.path()), (ErrorKind::ReadOnly, Some(path)));
    }
    assert_eq!(v.read("/a.txt", 0, 10).unwrap(), b"hello");
    assert!(v.list("/").unwrap().iter().all(|e| e.read_only));
    assert_eq!(before, snapshot(&fx.top, &fx.top.join("nothing")));
}

#[test]
fn temp_names_are_recognised_and_bounded() {
    let t = temp_name("file.txt");
    assert!(is_temp_name(&t), "{t}");
    assert!(!is_temp_name("file.txt") && !is_temp_name(".filestore-tmp-xyz"));
    let long = "é".repeat(127); // 254 bytes
    let t = temp_name(&long);
    assert!(t.len() <= MAX_COMPONENT_BYTES && is_temp_name(&t));
    let (_tmp, v) = plain();
    let e = v.write(&format!("/{long}"), b"x", &opts()).unwrap();
    assert_eq!(e.size, 1);
}

/// A crashed writer's temporary file is removed once it is older than
/// [`STALE_TEMP_SECS`] and its directory is listed (a fresh one, maybe an in-flight
/// write, stays), and no agent can create, read or address a name of that shape.
#[test]
fn stale_temp_files_are_cleaned_and_the_shape_is_reserved() {
    let (tmp, v) = plain();
    std::fs::create_dir_all(tmp.path().join("d")).unwrap();
    let stale = tmp.path().join("d").join(temp_name("big.bin"));
    let fresh = tmp.path().join("d").join(temp_name("other.bin"));
    std::fs::write(&stale, vec![7u8; 1024]).unwrap();
    std::fs::write(&fresh, b"in flight").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(STALE_TEMP_SECS + 60);
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
    assert!(v.list("/d").unwrap().is_empty(), "temporary files are never listed");
    assert!(!stale.exists(), "the stale temporary file was removed");
    assert!(fresh.exists(), "a fresh one may belong to a write in flight");
    // A read-only volume never removes anything.
    std::fs::write(&stale, b"x").unwrap();
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
    DirVolume::open(tmp.path(), true).unwrap().list("/d").unwrap();
    assert!(stale.exists());
    // The shape is reserved: writing, reading or stat'ing such a name is invalid-path.
    let name = fresh.file_name().unwrap().to_str().unwrap().to_string();
    let e = v.write(&format!("/d/{name}"), b"agent", &opts()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidPath, "{e}");
    assert!(e.to_string().contains("temporary files"), "{e}");
    assert_eq!(v.read(&format!("/d/{name}"), 0, 10).unwrap_err().kind(), ErrorKind::InvalidPath);
    assert_eq!(std::fs::read(&fresh).unwrap(), b"in flight");
}

/// Builds `depth` nested directories `d/d/d/...` under `root` (through handles: the
/// path would be longer than the OS allows), with a file and an empty side directory
/// every 50 levels.
fn deep_tree(root: &Path, depth: usize) {
    let mut dir = Dir::open_ambient_dir(root, cap_std::ambient_authority()).unwrap();
    for level in 0..depth {
        dir.create_dir("d").unwrap();
        if level % 50 == 0 {
            dir.write(format!("f{level}.txt"), b"x").unwrap();
            dir.create_dir(format!("side{level}")).unwrap();
        }
        dir = dir.open_dir("d").unwrap();
    }
    dir.write("bottom.txt", b"bottom").unwrap();
}

/// A recursive delete of a tree far deeper than the window of open handles removes
/// everything (each directory opened once from its parent, the window reopened from
/// the root as the walk climbs back).
#[test]
fn deep_trees_are_deleted_whole() {
    let (tmp, v) = plain();
    deep_tree(tmp.path(), MAX_DELETE_HANDLES * 5 + 7);
    v.delete("/d", true).unwrap();
    assert!(!tmp.path().join("d").exists());
    let mut left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["f0.txt", "side0"], "what was beside the tree stays");
}

/// Past the host-side deadline a recursive delete stops, says how much it removed,
/// and leaves the rest for a second call.
#[test]
fn recursive_delete_stops_at_the_work_deadline_and_says_so() {
    let (tmp, v) = plain();
    deep_tree(tmp.path(), 200);
    let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
    let e = crate::volumes::with_work_deadline(past, || v.delete("/d", true)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.to_string().contains("entries were removed"), "{e}");
    assert!(tmp.path().join("d").exists(), "the rest is still there");
    v.delete("/d", true).unwrap();
    assert!(!tmp.path().join("d").exists());
}

/// Names an agent cannot type as they are (not UTF-8, with a
/// control character or a backslash, or starting with the escape marker) are
/// listed escaped instead of hidden, and the escaped name reaches the same file for
/// read, write, rename and delete; a malformed escape is an invalid path, and the
/// escape cannot reach the volume's temporary files.
#[test]
fn unusual_names_are_listed_escaped_and_reachable() {
    use std::os::unix::ffi::OsStrExt;
    let (tmp, vol) = plain();
    let raw = |b: &[u8]| tmp.path().join(OsStr::from_bytes(b));
    std::fs::write(raw(b"caf\xe9.txt"), "latin-1 name\n").unwrap();
    std::fs::write(raw(b"tab\there"), "tab\n").unwrap();
    std::fs::write(raw(b"back\\slash"), "bs\n").unwrap();
    std::fs::write(raw(b"~x~looks-escaped"), "marker\n").unwrap();
    std::fs::write(raw(b"plain 100%.txt"), "plain\n").unwrap();
    let listed = vol.list("/").unwrap();
    assert_eq!(
        names(&listed),
        [
            "/plain 100%.txt",
            "/~x~back%5Cslash",
            "/~x~caf%E9.txt",
            "/~x~tab%09here",
            "/~x~~x~looks-escaped",
        ]
    );
    assert_eq!(vol.read("/~x~caf%E9.txt", 0, 100).unwrap(), b"latin-1 name\n");
    assert_eq!(vol.read("/~x~~x~looks-escaped", 0, 100).unwrap(), b"marker\n");
    assert_eq!(vol.read("/plain 100%.txt", 0, 100).unwrap(), b"plain\n");
    // The walk shows and reaches them too.
    let w = vol.walk("/", 100).unwrap();
    assert!(w.entries.iter().any(|e| e.path == "/~x~caf%E9.txt"));
    // Writes, moves and deletes by the escaped name act on the raw one.
    vol.write("/~x~new%FF.bin", b"x", &opts()).unwrap();
    assert_eq!(std::fs::read(raw(b"new\xff.bin")).unwrap(), b"x");
    vol.rename("/~x~new%FF.bin", "/~x~moved%FE", false).unwrap();
    assert!(raw(b"moved\xfe").exists() && !raw(b"new\xff.bin").exists());
    vol.delete("/~x~moved%FE", false).unwrap();
    assert!(!raw(b"moved\xfe").exists());
    // Malformed escapes, and escapes of what must stay unreachable.
    for bad in ["/~x~bad%G1", "/~x~trail%4", "/~x~a%2Fb", "/~x~%2E%2E", "/~x~nul%00"] {
        assert_eq!(vol.read(bad, 0, 10).unwrap_err().kind(), ErrorKind::InvalidPath, "{bad}");
    }
    let temp = format!("/~x~{}", super::names::temp_name("x"));
    assert_eq!(vol.stat(&temp).unwrap_err().kind(), ErrorKind::InvalidPath, "{temp}");
}

/// Serialises the tests that start read-aheads: they count read-aheads and reader
/// threads of the whole process.
static AHEAD_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn ahead_tests() -> std::sync::MutexGuard<'static, ()> {
    AHEAD_TESTS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn read_ahead_serves_current_bytes_and_never_follows_links() {
    let _serial = ahead_tests();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(tmp.path().join("secret.txt"), SECRET).unwrap();
    symlink(tmp.path().join("secret.txt"), root.join("d/link.txt")).unwrap();
    let names = ["/a.txt", "/d/b.txt", "/d/link.txt", "/d/c.txt", "/d/skipped.txt", "/e.txt"];
    for (i, n) in names.iter().enumerate() {
        if !n.contains("link") {
            std::fs::write(root.join(&n[1..]), format!("file {i}\n")).unwrap();
        }
    }
    let v = DirVolume::open(&root, false).unwrap();
    let link_error = v.read("/d/link.txt", 0, 100).unwrap_err().kind();
    let list: Vec<PrefetchFile> =
        names.iter().map(|n| PrefetchFile { path: n.to_string(), size: 7 }).collect();
    for round in 0..20 {
        v.prefetch(&list);
        if round % 2 == 1 {
            // Let the readers get ahead of the reads.
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(v.read("/a.txt", 0, 8).unwrap(), b"file 0\n");
        // Changed in place after (maybe) being read ahead: the new bytes.
        std::fs::write(root.join("d/b.txt"), format!("changed {round}\n")).unwrap();
        assert_eq!(v.read("/d/b.txt", 0, 100).unwrap(), format!("changed {round}\n").as_bytes());
        // A link is refused exactly as without the read-ahead.
        assert_eq!(v.read("/d/link.txt", 0, 100).unwrap_err().kind(), link_error);
        // A partial read of a file read ahead whole.
        assert_eq!(v.read("/d/c.txt", 0, 4).unwrap(), b"file");
        // Skipping a file, then one read ahead.
        assert_eq!(v.read("/e.txt", 0, 100).unwrap(), b"file 5\n");
        // A change through the volume drops the read-ahead.
        v.prefetch(&list);
        v.write("/a.txt", b"new\n", &opts()).unwrap();
        assert_eq!(v.read("/a.txt", 0, 100).unwrap(), b"new\n");
        std::fs::write(root.join("a.txt"), "file 0\n").unwrap();
    }
    v.ahead.clear();
    // Its readers exit at once, or when the read they are in ends.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while super::ahead::active_read_aheads() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(super::ahead::active_read_aheads(), 0, "a cleared read-ahead gives its place back");
}

#[test]
fn stat_read_answers_as_stat_then_read_on_the_hostile_tree() {
    let fx = fixture();
    let paths = [
        "/a.txt",
        "/d",
        "/",
        "/missing",
        "/../root_evil/evil_secret.txt",
        "/link_evil/evil_secret.txt",
        "/link_evil_rel",
        "/link_file_abs",
        "/link_file_rel",
        "/link_out_abs/secret.txt",
        "/link_out_rel/secret.txt",
        "/loop_a",
        "/loop_a/x",
        "/chain1",
        "/chain_dir1/secret.txt",
        "/link_in",
        "/link_in_dir/x.txt",
        "/link_parent/outside/secret.txt",
        "/link_self/a.txt",
        "/magic/etc/hostname",
        "/dangling",
        "/d/../../outside/secret.txt",
        "/a.txt\0/../../outside/secret.txt",
    ];
    for p in paths {
        let got = fx.vol.stat_read(p, 0, 1 << 20);
        let want = fx.vol.stat(p).and_then(|e| {
            let data = if e.kind == EntryKind::File && has_content(&e) {
                fx.vol.read(p, 0, 1 << 20)?
            } else {
                Vec::new()
            };
            Ok((e, data))
        });
        match (&got, &want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{p:?}"),
            (Err(g), Err(w)) => assert_eq!(g.kind(), w.kind(), "{p:?}: {g} vs {w}"),
            _ => panic!("{p:?}: stat-read {got:?}, stat then read {want:?}"),
        }
        if let Ok((_, data)) = &got {
            let text = String::from_utf8_lossy(data);
            assert!(!text.contains(SECRET) && !text.contains(EVIL_SECRET), "{p:?}");
        }
    }
    // A range, and a range past the end.
    let (e, data) = fx.vol.stat_read("/a.txt", 1, 2).unwrap();
    assert_eq!(data, fx.vol.read("/a.txt", 1, 2).unwrap());
    assert!(fx.vol.stat_read("/a.txt", e.size + 5, 10).unwrap().1.is_empty());
}

/// Threads of this process whose name starts with `prefix` (Linux: `/proc/self/task`).
fn threads_named(prefix: &str) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0 };
    tasks
        .filter_map(|t| t.ok())
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.starts_with(prefix))
        })
        .count()
}

/// A file replaced (renamed over: how every write through a directory volume stores
/// a file, in any session, and how most editors save) or deleted after the
/// read-ahead read it is not served from the read-ahead: a read that starts after the
/// change sees it, as it would without a read-ahead. Another session's write goes
/// through that session's own `DirVolume`, so it does not clear this one's
/// read-ahead; the read-ahead outlives the grep that asked for it (up to
/// `AHEAD_IDLE`), so the later read may be another tool call.
#[test]
fn read_ahead_never_serves_a_file_replaced_or_deleted_since() {
    let _serial = ahead_tests();
    let (tmp, a) = plain();
    let b = DirVolume::open(tmp.path(), false).unwrap();
    for n in ["f", "g", "h"] {
        std::fs::write(tmp.path().join(format!("{n}.txt")), "old\n").unwrap();
    }
    let list: Vec<PrefetchFile> = ["/f.txt", "/g.txt", "/h.txt"]
        .iter()
        .map(|p| PrefetchFile { path: p.to_string(), size: 4 })
        .collect();
    a.prefetch(&list);
    // The readers read all three; the grep that asked stopped before reading them.
    std::thread::sleep(std::time::Duration::from_millis(300));
    b.write("/f.txt", b"new\n", &opts()).unwrap();
    b.delete("/g.txt", false).unwrap();
    std::fs::write(tmp.path().join("h.new"), "new\n").unwrap();
    std::fs::rename(tmp.path().join("h.new"), tmp.path().join("h.txt")).unwrap();
    let got: Vec<std::result::Result<Vec<u8>, ErrorKind>> = ["/f.txt", "/g.txt", "/h.txt"]
        .iter()
        .map(|p| a.read(p, 0, 5).map_err(|e| e.kind()))
        .collect();
    assert_eq!(
        got,
        vec![Ok(b"new\n".to_vec()), Err(ErrorKind::NotFound), Ok(b"new\n".to_vec())],
        "reads after the change"
    );
}

/// `MAX_ACTIVE_READ_AHEADS` bounds the reader threads (and the bytes they hold) of
/// the process, not only the read-aheads that are current: a read-ahead replaced by
/// the next `prefetch` (the next grep) gives its place back at once, while its readers
/// are still reading a file of up to `AHEAD_BYTES`.
#[test]
fn read_ahead_threads_stay_bounded_when_prefetches_replace_each_other() {
    let _serial = ahead_tests();
    let (tmp, v) = plain();
    let big = vec![b'x'; 15 * 1024 * 1024];
    let mut list = Vec::new();
    for i in 0..4 {
        std::fs::write(tmp.path().join(format!("big{i}")), &big).unwrap();
        list.push(PrefetchFile { path: format!("/big{i}"), size: big.len() as u64 });
    }
    drop(big);
    // Readers inside their reading loop, sampled as the prefetches replace each
    // other. Counting the threads themselves would also count readers that finished
    // and are still exiting, which a loaded machine makes many of.
    let bound = AHEAD_THREADS * MAX_ACTIVE_READ_AHEADS;
    let mut peak = 0;
    for _ in 0..300 {
        v.prefetch(&list);
        peak = peak.max(super::ahead::readers_reading());
    }
    v.ahead.clear();
    assert!(peak <= bound, "{peak} read-ahead readers at once; the bound is {bound}");
    // And every reader thread ends once nothing is being read ahead (polled: exiting
    // threads take scheduler time, which a loaded machine is short of).
    let mut left = threads_named("filestore-ahead");
    for _ in 0..600 {
        if left == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        left = threads_named("filestore-ahead");
    }
    assert_eq!(left, 0, "read-ahead threads still alive after the read-aheads ended");
}

/// Walks on helper threads while another thread swaps directories of the tree for
/// links to a directory outside and moves directories out of the root and back:
/// nothing outside is ever listed, and no walk fails or hangs.
#[test]
fn walk_helpers_never_list_outside_while_directories_are_swapped() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("sub")).unwrap();
    std::fs::write(outside.join("SECRET_OUTSIDE"), "s").unwrap();
    std::fs::write(outside.join("sub/SECRET_OUTSIDE_2"), "s").unwrap();
    for i in 0..12 {
        for j in 0..6 {
            std::fs::create_dir_all(root.join(format!("d{i}/s{j}/t"))).unwrap();
            std::fs::write(root.join(format!("d{i}/s{j}/t/f")), "x").unwrap();
        }
    }
    let v = Arc::new(DirVolume::open(&root, false).unwrap());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (root, outside, stop) = (root.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let i = n % 12;
                let d = root.join(format!("d{i}/s3"));
                let aside = root.join(format!("d{i}/s3.aside"));
                let moved = tmp_name(&outside, n);
                // A directory swapped for a link to outside, then back.
                if std::fs::rename(&d, &aside).is_ok() {
                    let _ = symlink(&outside, &d);
                    std::thread::yield_now();
                    let _ = std::fs::remove_file(&d);
                    let _ = std::fs::rename(&aside, &d);
                }
                // A directory moved out of the root, then back.
                let d = root.join(format!("d{i}/s1"));
                if std::fs::rename(&d, &moved).is_ok() {
                    std::thread::yield_now();
                    let _ = std::fs::rename(&moved, &d);
                }
                n += 1;
            }
        })
    };
    fn tmp_name(outside: &Path, n: u64) -> PathBuf {
        outside.parent().unwrap().join(format!("moved{}", n % 4))
    }
    let walkers: Vec<_> = (0..4)
        .map(|_| {
            let v = v.clone();
            std::thread::spawn(move || {
                for _ in 0..60 {
                    for max in [50, 100_000] {
                        let comps = components("/").unwrap();
                        let top = v.open_listable("/", &comps).unwrap();
                        let w = v.walk_from(top, "/", max, 3).unwrap();
                        assert!(w.entries.len() <= max);
                        for e in &w.entries {
                            assert!(!e.path.contains("SECRET_OUTSIDE"), "{}", e.path);
                        }
                    }
                }
            })
        })
        .collect();
    for w in walkers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
}

/// Many walks at once never run more than `MAX_WALK_HELPERS` helper threads in the
/// process, and give every helper back.
#[test]
fn concurrent_walks_stay_within_the_helper_bound() {
    let (tmp, v) = plain();
    for i in 0..40 {
        for j in 0..10 {
            std::fs::create_dir_all(tmp.path().join(format!("d{i}/s{j}"))).unwrap();
            std::fs::write(tmp.path().join(format!("d{i}/s{j}/f")), "x").unwrap();
        }
    }
    let v = Arc::new(v);
    let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let walkers: Vec<_> = (0..12)
        .map(|_| {
            let (v, peak) = (v.clone(), peak.clone());
            std::thread::spawn(move || {
                for _ in 0..20 {
                    let comps = components("/").unwrap();
                    let top = v.open_listable("/", &comps).unwrap();
                    let w = v.walk_from(top, "/", 100_000, WALK_HELPERS).unwrap();
                    assert_eq!(w.entries.len(), 40 + 40 * 10 * 2);
                    peak.fetch_max(threads_named("filestore-walk"), Ordering::Relaxed);
                }
            })
        })
        .collect();
    for w in walkers {
        w.join().unwrap();
    }
    let peak = peak.load(Ordering::Relaxed);
    // Counted in /proc: a helper whose work is done has given its place back a
    // moment before its thread is gone, so a few more may show; without the bound
    // there would be up to 12 x WALK_HELPERS.
    assert!(peak <= 2 * MAX_WALK_HELPERS, "{peak} helper threads at once");
}

/// A panic while a directory is listed (a bug, an allocation failure) on one of a
/// walk's threads must reach the caller as a panic: the other threads must not wait
/// forever for the directory it claimed (the walk would hang, holding its helpers'
/// places in `MAX_WALK_HELPERS` for good).
#[test]
fn a_panic_while_listing_on_walk_threads_is_a_panic_not_a_hang() {
    let (tmp, v) = plain();
    for i in 0..20 {
        std::fs::create_dir_all(tmp.path().join(format!("d{i:02}/s"))).unwrap();
    }
    std::fs::create_dir_all(tmp.path().join(format!("zz{}", super::walk::PANIC_WHEN_LISTED)))
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _tmp = tmp;
        let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let comps = components("/").unwrap();
            let top = v.open_listable("/", &comps).unwrap();
            v.walk_from(top, "/", 100_000, WALK_HELPERS)
        }));
        let _ = tx.send(walked.is_err());
    });
    let panicked = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the walk hangs: its threads wait for the directory whose listing panicked");
    assert!(panicked);
}

#[cfg(target_os = "linux")]
/// A listing's entries (read from the handle's own stream, `lstat`ed through rustix)
/// are what `stat` (cap-std's metadata) says of each path: files, directories, links
/// and FIFOs alike, sizes and times included. The root lists the same every time,
/// also from several threads at once (its listing handle is its own, not a
/// duplicate sharing the stream's position).
#[test]
fn listed_entries_match_stat_and_the_root_lists_alike_every_time() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::write(root.join("file.txt"), "hello\n").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/inner.rs"), "fn main() {}\n").unwrap();
    symlink("file.txt", root.join("link")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        0,
    )
    .unwrap();
    // More names than one small `getdents64` buffer holds.
    for i in 0..300 {
        std::fs::write(root.join(format!("n{i:03}")), "x").unwrap();
    }
    let v = Arc::new(DirVolume::open(root, false).unwrap());
    for dir in ["/", "/sub"] {
        let listed = v.list(dir).unwrap();
        assert!(!listed.is_empty());
        for e in &listed {
            assert_eq!(e, &v.stat(&e.path).unwrap(), "{}", e.path);
        }
    }
    let kinds: Vec<(String, String)> = v
        .list("/")
        .unwrap()
        .into_iter()
        .filter(|e| !e.path.starts_with("/n"))
        .map(|e| (e.path, e.entry_type))
        .collect();
    let want =
        [("/fifo", "special"), ("/file.txt", "file"), ("/link", "symlink"), ("/sub", "directory")];
    let want: Vec<(String, String)> =
        want.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    assert_eq!(kinds, want);
    let first = v.list("/").unwrap();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let v = v.clone();
            std::thread::spawn(move || (0..50).map(|_| v.list("/").unwrap()).collect::<Vec<_>>())
        })
        .collect();
    for t in threads {
        for listing in t.join().unwrap() {
            assert_eq!(listing, first);
        }
    }
    assert_eq!(v.walk("/", 10_000).unwrap().entries.len(), first.len() + 1);
}

/// Without the `openat2` fast path (an old kernel, a seccomp filter, a race), a
/// listing and a walk take the component-wise walk, whose handles cap-std opens
/// `O_PATH`: they are reopened for reading, and answer as the fast path does.
#[cfg(target_os = "linux")]
#[test]
fn listings_without_openat2_answer_as_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a/b/c")).unwrap();
    std::fs::write(tmp.path().join("a/one.txt"), "1").unwrap();
    std::fs::write(tmp.path().join("a/b/two.txt"), "22").unwrap();
    let v = DirVolume::open(tmp.path(), false).unwrap();
    let fast: Vec<_> = ["/a", "/a/b", "/"].iter().map(|p| v.list(p).unwrap()).collect();
    let walked = v.walk("/a", 100).unwrap();
    // No helper threads: every directory of the walk is listed on this thread.
    let walk_here = || {
        let comps = components("/a").unwrap();
        v.walk_from(v.open_listable("/a", &comps)?, "/a", 100, 0)
    };
    super::resolve::WITHOUT_OPENAT2.with(|w| w.set(true));
    let slow: Vec<_> = ["/a", "/a/b", "/"].iter().map(|p| v.list(p)).collect();
    let slow_walk = walk_here();
    super::resolve::WITHOUT_OPENAT2.with(|w| w.set(false));
    let slow: Vec<_> = slow.into_iter().map(|l| l.expect("listed without openat2")).collect();
    assert_eq!(slow, fast);
    assert_eq!(slow_walk.expect("walked without openat2").entries, walked.entries);
}
