//! Unit tests of `glob`.

use super::*;
use crate::vfs::memory::MemoryVolume;

fn table() -> MountTable {
    let v = MemoryVolume::new();
    for p in [
        "/package.json",
        "/a.txt",
        "/b.txt",
        "/ab.txt",
        "/c.md",
        "/src/main.rs",
        "/src/lib.rs",
        "/src/util/mod.rs",
        "/src/util/data.json",
        "/src/util/deep/x.json",
        "/docs/readme.md",
        "/docs/api.txt",
        "/tests/a.rs",
        "/json.d/not-a-json-file",
        "/.hidden.json",
    ] {
        v.insert(p, "content");
    }
    let other = MemoryVolume::new();
    other.insert("/o.json", "{}");
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    t.add("/other", Box::new(other), 0, false).unwrap();
    t
}

fn run(pattern: &str, path: &str, limit: usize) -> Result<GlobResult> {
    glob(
        &table(),
        &Limits::default(),
        &GlobRequest {
            pattern: pattern.into(),
            path: path.into(),
            limit,
            exclude: Vec::new(),
            hidden: false,
        },
    )
}

fn paths_of(pattern: &str, path: &str) -> Vec<String> {
    run(pattern, path, 1000).unwrap().files.into_iter().map(|f| f.path).collect()
}

#[test]
fn pattern_table() {
    let cases: &[(&str, &str, &[&str])] = &[
        // A pattern without '/' matches names at every depth (hidden names only
        // when the pattern names them: `*` does not match a leading `.`).
        ("*.json", "/w", &["/w/package.json", "/w/src/util/data.json", "/w/src/util/deep/x.json"]),
        (".*", "/w", &["/w/.hidden.json"]),
        ("**/.hidden.json", "/w", &["/w/.hidden.json"]),
        ("*.json", "/w/src", &["/w/src/util/data.json", "/w/src/util/deep/x.json"]),
        ("main.rs", "/w", &["/w/src/main.rs"]),
        // Alternation.
        ("*.{md,txt}", "/w/docs", &["/w/docs/api.txt", "/w/docs/readme.md"]),
        ("{a,b}.txt", "/w", &["/w/a.txt", "/w/b.txt"]),
        // `?` is exactly one character, classes one of a set.
        ("?.txt", "/w", &["/w/a.txt", "/w/b.txt"]),
        ("[ab].txt", "/w", &["/w/a.txt", "/w/b.txt"]),
        ("[!a].txt", "/w", &["/w/b.txt"]),
        ("??.txt", "/w", &["/w/ab.txt"]),
        // Anchored: `*` does not cross '/'.
        ("src/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs"]),
        ("*/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/tests/a.rs"]),
        // `**` crosses directories, including none.
        ("src/**/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/util/mod.rs"]),
        (
            "**/*.rs",
            "/w",
            &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/util/mod.rs", "/w/tests/a.rs"],
        ),
        ("**/util/*", "/w", &["/w/src/util/data.json", "/w/src/util/mod.rs"]),
        ("{src,tests}/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/tests/a.rs"]),
        (
            "src/util/**",
            "/w",
            &["/w/src/util/data.json", "/w/src/util/deep/x.json", "/w/src/util/mod.rs"],
        ),
        // Relative to `path`, with `./` and `..` in the literal prefix.
        ("util/*.rs", "/w/src", &["/w/src/util/mod.rs"]),
        ("./util/*.rs", "/w/src", &["/w/src/util/mod.rs"]),
        ("../docs/*.md", "/w/src", &["/w/docs/readme.md"]),
        ("src/main.rs", "/w", &["/w/src/main.rs"]),
        // Absolute patterns ignore `path`.
        ("/w/src/*.rs", "/other", &["/w/src/lib.rs", "/w/src/main.rs"]),
        ("/*/*.json", "/w", &["/other/o.json", "/w/package.json"]),
        // Every mount below the root.
        (
            "*.json",
            "/",
            &[
                "/other/o.json",
                "/w/package.json",
                "/w/src/util/data.json",
                "/w/src/util/deep/x.json",
            ],
        ),
        // Directories never match, even when their name does.
        ("json.d", "/w", &[]),
        ("util", "/w", &[]),
        ("src", "/w", &[]),
        // Missing literal directory: no matches, no error.
        ("nope/**/*.rs", "/w", &[]),
        ("/nowhere/*.rs", "/w", &[]),
        ("src/main.rs/*", "/w", &[]),
        ("*.zig", "/w", &[]),
    ];
    for (pattern, path, want) in cases {
        assert_eq!(paths_of(pattern, path), *want, "pattern {pattern} under {path}");
    }
}

/// Hidden files and directories (a `.` name beneath the search root) are left
/// out unless the pattern names them or `hidden` is set, as in a shell and
/// ripgrep; a search rooted in a hidden directory searches it.
#[test]
fn hidden_entries_only_when_asked_for() {
    let v = MemoryVolume::new();
    for p in
        ["/a.txt", "/.env", "/.git/config", "/.github/ci.yml", "/src/.cache/x.txt", "/src/b.txt"]
    {
        v.insert(p, "x");
    }
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    let go = |pattern: &str, path: &str, hidden: bool| -> Vec<String> {
        let req = GlobRequest {
            pattern: pattern.into(),
            path: path.into(),
            limit: 100,
            exclude: vec![],
            hidden,
        };
        glob(&t, &Limits::default(), &req).unwrap().files.into_iter().map(|f| f.path).collect()
    };
    assert_eq!(go("**", "/w", false), ["/w/a.txt", "/w/src/b.txt"]);
    assert_eq!(go("*.txt", "/w", false), ["/w/a.txt", "/w/src/b.txt"]);
    assert_eq!(go("**", "/w", true).len(), 6);
    assert_eq!(go(".github/**", "/w", false), ["/w/.github/ci.yml"]);
    assert_eq!(go("**/.env", "/w", false), ["/w/.env"]);
    assert_eq!(go("*", "/w/.git", false), ["/w/.git/config"]);
    assert!(is_hidden_below("/w/src/.cache/x.txt", "/w"));
    assert!(!is_hidden_below("/w/.git/config", "/w/.git"));
    assert!(names_hidden(".*") && names_hidden("a/.b/**") && !names_hidden("../x/*.rs"));
    assert_eq!(go("{.env,a.txt}", "/w", false), ["/w/.env", "/w/a.txt"]);
    assert_eq!(go("{src,.github}/**", "/w", false).len(), 3);
    // An empty answer says hidden files matched.
    let req = GlobRequest {
        pattern: "**/*.yml".into(),
        path: "/w".into(),
        limit: 100,
        exclude: vec![],
        hidden: false,
    };
    let r = glob(&t, &Limits::default(), &req).unwrap();
    assert_eq!(r.hidden_skipped, 1);
    assert!(render(&r).contains("1 hidden file(s) matched and were left out"), "{}", render(&r));
}

/// A link a directory volume lists is marked as one, not shown as an empty file.
#[test]
fn links_are_marked_not_listed_as_empty_files() {
    use crate::vfs::volume::{Volume, WriteOptions};
    let v = MemoryVolume::new();
    v.insert("/a.txt", "text");
    let link = WriteOptions { entry_type: Some("symlink".into()), ..Default::default() };
    v.write("/l.txt", b"", &link).unwrap();
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    let req = GlobRequest {
        pattern: "*.txt".into(),
        path: "/w".into(),
        limit: 10,
        exclude: vec![],
        hidden: false,
    };
    let r = glob(&t, &Limits::default(), &req).unwrap();
    let kinds: Vec<_> = r.files.iter().map(|f| f.kind.as_deref()).collect();
    assert_eq!(kinds, [None, Some("symlink")]);
    assert_eq!(render(&r), "/w/a.txt\n/w/l.txt (symlink, not followed)\n");
}

/// The shortcut answers what globset answers, for the shapes it takes and for
/// near misses it must leave to globset.
#[test]
fn shortcuts_agree_with_globset() {
    let patterns = [
        "*.rs",
        "**/*.rs",
        "*",
        "**",
        "**/*",
        "*.tar.gz",
        "*rs",
        "**/*.RS",
        "*.",
        "*.é",
        "src/**/*.rs",
        "*/*.rs",
        "**/*.r?",
        "**/*.{rs,md}",
        "**/x*.rs",
        "*.rs/x",
        "**/**",
        "a*",
        "**/a",
        ".*",
        "**/.*",
    ];
    let subjects = [
        "a.rs",
        "src/a.rs",
        "src/deep/er/a.rs",
        ".rs",
        "a.rsx",
        "a.RS",
        "x.tar.gz",
        "tar.gz",
        "a.r",
        "rs",
        "d.rs/x",
        "é",
        "a.é",
        "b/.hidden",
        ".git/config",
        "a",
        "xrs",
        "src/.rs",
    ];
    let mut shortcuts = 0;
    for p in patterns {
        let m = GlobMatcher::new(p, "/w").unwrap();
        shortcuts += usize::from(m.shortcut.is_some());
        for s in subjects {
            assert_eq!(m.is_match_below(s), m.globset_match_below(s), "{p} on {s}");
        }
    }
    assert_eq!(shortcuts, 11, "the shortcut is taken where it applies");
}

#[test]
fn walk_starts_at_literal_prefix() {
    let cases = [
        ("src/**/*.rs", "/w", "/w/src"),
        ("/w/src/**/*.rs", "/", "/w/src"),
        ("src/util/*.rs", "/w", "/w/src/util"),
        ("src/u*/x/*.rs", "/w", "/w/src"),
        ("**/*.rs", "/w", "/w"),
        ("*.rs", "/w", "/w"),
        ("{a,b}/c", "/w", "/w"),
        ("/*.rs", "/w", "/"),
        ("../x/*", "/w/src", "/w/x"),
    ];
    for (pattern, base, root) in cases {
        assert_eq!(GlobMatcher::new(pattern, base).unwrap().walk_root(), root, "{pattern}");
    }
    assert!(GlobMatcher::new("*.rs", "/").unwrap().is_name_only());
    assert!(!GlobMatcher::new("a/*.rs", "/").unwrap().is_name_only());
}

#[test]
fn results_sorted_with_metadata() {
    let r = run("*", "/w", 1000).unwrap();
    let p: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
    let mut sorted = p.clone();
    sorted.sort();
    assert_eq!(p, sorted);
    assert_eq!(r.files.len(), 14, "every file but the hidden one");
    assert_eq!(r.total_matches, 14);
    assert!(!r.truncated);
    let f = &r.files[0];
    assert_eq!((f.size, f.tokens), (7, 2));
}

#[test]
fn limit_truncates() {
    let r = run("*.json", "/w", 2).unwrap();
    assert_eq!(r.files.len(), 2);
    assert_eq!(r.total_matches, 3);
    assert!(r.truncated && !r.walk_truncated);
    assert_eq!(r.files[0].path, "/w/package.json");
    let text = render(&r);
    assert_eq!(
        text,
        "/w/package.json\n/w/src/util/data.json\n[truncated: showing the first 2 of 3 matching files; \
             narrow the pattern or path, or raise 'limit']\n"
    );
    let exact = run("*.json", "/w", 3).unwrap();
    assert!(!exact.truncated);
    assert_eq!(run("*", "/w", 0).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(run("*", "/w", MAX_LIST_LIMIT + 1).unwrap_err().kind(), ErrorKind::InvalidArgument);
}

#[test]
fn walk_limit_marks_truncated() {
    let limits = Limits { walk_entries: 3, ..Limits::default() };
    let req = GlobRequest {
        pattern: "*".into(),
        path: "/w".into(),
        limit: 1000,
        exclude: Vec::new(),
        hidden: false,
    };
    let r = glob(&table(), &limits, &req).unwrap();
    assert!(r.walk_truncated && r.truncated);
    assert!(render(&r).contains("entry limit"));
}

#[test]
fn invalid_patterns() {
    let cases = [
        ("{a,b", "unclosed alternate group"),
        ("[ab", "unclosed character class"),
        ("a/[z-a]", "invalid range"),
        ("x\\", "dangling"),
        ("", "empty"),
        ("src/", "ending in '/'"),
    ];
    for (pattern, reason) in cases {
        let e = run(pattern, "/w", 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidPattern, "{pattern}");
        assert!(e.message().contains(reason), "{pattern}: {e}");
        if !pattern.is_empty() {
            assert!(e.message().contains(&format!("'{pattern}")), "{pattern}: {e}");
        }
    }
    let long = "a".repeat(MAX_PATTERN_BYTES + 1);
    let e = run(&long, "/w", 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    assert!(e.message().contains("limit"), "{e}");
    assert_eq!(run("../../../*.rs", "/w", 10).unwrap_err().kind(), ErrorKind::InvalidPath);
}

#[test]
fn path_errors() {
    let e = run("*.rs", "/w/nope", 10).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.path(), Some("/w/nope"));
    assert_eq!(run("*.rs", "/nowhere", 10).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(run("*.rs", "/w/src/main.rs", 10).unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(run("*.rs", "/w/../..", 10).unwrap_err().kind(), ErrorKind::InvalidPath);
    // A path with a trailing slash or `.` is normalised.
    assert_eq!(run("*.rs", "w/src/./", 10).unwrap().path, "/w/src");
}

#[test]
fn render_empty_and_listing() {
    let r = run("*.zig", "/w", 10).unwrap();
    assert_eq!(render(&r), "No files matched the pattern '*.zig' under /w\n");
    let r = run("src/*.rs", "/w", 10).unwrap();
    assert_eq!(render(&r), "/w/src/lib.rs\n/w/src/main.rs\n");
}

#[test]
fn request_json_contract() {
    let r: GlobRequest =
        crate::ops::request::decode("filestore_glob", &serde_json::json!({"pattern": "*.rs"}))
            .unwrap();
    assert_eq!((r.path.as_str(), r.limit), ("/", 1000));
    let e = crate::ops::request::decode::<GlobRequest>(
        "filestore_glob",
        &serde_json::json!({"pattern": "*", "limt": 3}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("limt"), "{e}");
    let res = run("src/*.rs", "/w", 1).unwrap();
    let j = serde_json::to_value(&res).unwrap();
    assert_eq!(j["files"][0]["path"], "/w/src/lib.rs");
    assert_eq!(j["truncated"], true);
    assert_eq!(j["total_matches"], 2);
}

/// `**` with a limit (what resources/list asks) walks a window, not the
/// whole tree: the first files come back, `truncated` says more exist, and a
/// window too full of directories is widened until it holds enough files.
#[test]
fn match_all_stops_past_its_limit() {
    use crate::vfs::memory::MemoryVolume;
    let v = MemoryVolume::new();
    for d in 0..3000 {
        v.insert(&format!("/empty{d:04}/.keep/x/y"), "");
    }
    for f in 0..5000 {
        v.insert(&format!("/z/f{f:04}"), "x");
    }
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    let l = Limits { walk_entries: 200_000, ..Limits::default() };
    let req = GlobRequest {
        pattern: "**".into(),
        path: "/w".into(),
        limit: 10,
        exclude: vec![],
        hidden: false,
    };
    let r = glob(&t, &l, &req).unwrap();
    assert_eq!(r.files.len(), 10);
    assert!(r.truncated && !r.walk_truncated);
    assert!(r.total_matches < 8000, "stopped early: {}", r.total_matches);
    // Any other pattern still counts every match.
    let req = GlobRequest { pattern: "**/f*".into(), ..req };
    let r = glob(&t, &l, &req).unwrap();
    assert_eq!((r.files.len(), r.total_matches), (10, 5000));
}

/// `exclude` leaves out matching files and whole directories (a name pattern
/// matches a directory at any depth), in glob, grep and tree alike; a bad pattern
/// names the parameter.
#[test]
fn excludes_leave_out_files_and_trees() {
    use crate::vfs::memory::MemoryVolume;
    let v = MemoryVolume::new();
    v.insert("/src/a.rs", "fn a() {}\n")
        .insert("/src/gen/b.rs", "fn b() {}\n")
        .insert("/node_modules/x/c.js", "fn c\n")
        .insert("/web/node_modules/d.js", "fn d\n")
        .insert("/web/app.min.js", "fn e\n")
        .insert("/web/app.js", "fn f\n");
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    let l = Limits::default();
    let ex = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let req = GlobRequest {
        pattern: "*".into(),
        path: "/w".into(),
        limit: 1000,
        exclude: ex(&["node_modules", "*.min.js", "src/gen/**"]),
        hidden: false,
    };
    let files: Vec<String> =
        glob(&t, &l, &req).unwrap().files.into_iter().map(|f| f.path).collect();
    assert_eq!(files, ["/w/src/a.rs", "/w/web/app.js"]);
    let g = crate::ops::grep::GrepRequest {
        exclude: ex(&["node_modules", "gen"]),
        ..crate::ops::grep::GrepRequest::new("fn", "/w")
    };
    let found = crate::ops::grep::grep(&t, &l, &g).unwrap().files.unwrap();
    assert_eq!(found, ["/w/src/a.rs", "/w/web/app.js", "/w/web/app.min.js"]);
    let tr = crate::ops::tree::TreeRequest {
        path: "/w".into(),
        exclude: ex(&["node_modules", "web"]),
        ..Default::default()
    };
    let shown = crate::ops::tree::tree(&t, &l, &tr).unwrap().tree;
    assert!(!shown.contains("node_modules") && !shown.contains("web"), "{shown}");
    assert!(shown.contains("a.rs"), "{shown}");
    let bad = GlobRequest { exclude: ex(&["[unclosed"]), ..req };
    let e = glob(&t, &l, &bad).unwrap_err();
    assert!(e.to_string().contains("parameter 'exclude'"), "{e}");
}
