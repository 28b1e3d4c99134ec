//! Unit tests of grep: semantics against ripgrep's, paging, modes, rendering.

use super::*;
use crate::error::Error;
use crate::vfs::limits::{MAX_LINE_CHARS, MAX_PATTERN_BYTES};
use crate::vfs::memory::MemoryVolume;

const MAIN_RS: &str = "fn main() {\n    let foo = bar();\n    println!(\"foo.*bar\");\n}\n";

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("l{i}\n")).collect()
}

fn table() -> MountTable {
    let v = MemoryVolume::new();
    v.insert("/src/main.rs", MAIN_RS)
        .insert("/src/lib.rs", "pub fn foo() {}\n// FOO in caps\n")
        .insert("/src/nested/deep.rs", "const FOO: u8 = 1;\n")
        .insert("/docs/readme.md", "# Foo\nfoo and bar\n")
        .insert("/docs/notes.txt", "nothing here\n")
        .insert("/ctx.txt", numbered(20))
        .insert("/bin.dat", b"foo\0bar\n".as_slice())
        .insert("/latin1.txt", b"caf\xe9 foo\nplain\n".as_slice())
        .insert("/crlf.txt", "foo\r\nbar\r\nfoo$\r\n")
        .insert("/empty.txt", "")
        .insert("/no-newline.txt", "a\nfoo");
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    t
}

fn req(pattern: &str, path: &str) -> GrepRequest {
    GrepRequest::new(pattern, path)
}

fn content(pattern: &str, path: &str) -> GrepRequest {
    GrepRequest { output_mode: OutputMode::Content, ..req(pattern, path) }
}

fn run(r: &GrepRequest) -> GrepResult {
    grep(&table(), &Limits::default(), r).unwrap()
}

fn run_err(r: &GrepRequest) -> Error {
    grep(&table(), &Limits::default(), r).unwrap_err()
}

fn files(r: &GrepRequest) -> Vec<String> {
    run(r).files.unwrap()
}

/// `(line, is_context)` of a content result.
fn lines(r: &GrepRequest) -> Vec<(u64, bool)> {
    run(r).lines.unwrap().iter().map(|l| (l.line, l.is_context)).collect()
}

#[test]
fn files_with_matches_table() {
    let cases: &[(GrepRequest, &[&str])] = &[
        (req("foo", "/w/src"), &["/w/src/lib.rs", "/w/src/main.rs"]),
        (req("foo.*bar", "/w"), &["/w/docs/readme.md", "/w/src/main.rs"]),
        (GrepRequest { fixed: true, ..req("foo.*bar", "/w") }, &["/w/src/main.rs"]),
        (
            GrepRequest { case_insensitive: true, ..req("foo", "/w/src") },
            &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"],
        ),
        (req("(?i)^# foo$", "/w"), &["/w/docs/readme.md"]),
        (req(r"\bfn\b", "/w"), &["/w/src/lib.rs", "/w/src/main.rs"]),
        (req("zzz", "/w"), &[]),
        // Invalid UTF-8 (not binary) is searched; the NUL file is not.
        (req("caf", "/w"), &["/w/latin1.txt"]),
        // As in ripgrep, `.` matches a UTF-8 character, never an invalid byte.
        (req("caf.", "/w"), &[]),
        (req("bar", "/w"), &["/w/crlf.txt", "/w/docs/readme.md", "/w/src/main.rs"]),
        // A file path searches that file only.
        (req("foo", "/w/src/lib.rs"), &["/w/src/lib.rs"]),
        (req("nope", "/w/src/lib.rs"), &[]),
        // Last line without a newline; empty files never match, even `^`.
        (req("^foo$", "/w/no-newline.txt"), &["/w/no-newline.txt"]),
        (req("", "/w/empty.txt"), &[]),
        (req("^", "/w/empty.txt"), &[]),
    ];
    for (r, want) in cases {
        assert_eq!(files(r), *want, "{r:?}");
    }
}

#[test]
fn regex_versus_fixed_in_content() {
    let regex = run(&content("foo.*bar", "/w/src/main.rs")).lines.unwrap();
    let fixed =
        run(&GrepRequest { fixed: true, ..content("foo.*bar", "/w/src/main.rs") }).lines.unwrap();
    assert_eq!(regex.iter().map(|l| l.line).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(fixed.iter().map(|l| l.line).collect::<Vec<_>>(), vec![3]);
    assert_eq!(fixed[0].text, "    println!(\"foo.*bar\");");
    assert!(!fixed[0].is_context);
}

#[test]
fn line_semantics_like_ripgrep() {
    // `\s` and negated classes do not cross lines; `$` before "\r\n" does not match.
    let cases: &[(&str, &str, &[u64])] = &[
        (r"and\s*bar", "/w/docs/readme.md", &[2]),
        (r"foo\s*bar", "/w/docs/readme.md", &[]),
        (r"[^x]+", "/w/docs/readme.md", &[1, 2]),
        (r"let.*\s*println", "/w/src/main.rs", &[]),
        ("foo$", "/w/crlf.txt", &[]),
        (r"foo\$", "/w/crlf.txt", &[3]),
        ("foo\r$", "/w/crlf.txt", &[1]),
        ("^bar", "/w/crlf.txt", &[2]),
        ("", "/w/ctx.txt", &(1..=20).collect::<Vec<_>>()),
        ("x*", "/w/no-newline.txt", &[1, 2]),
        ("^", "/w/no-newline.txt", &[1, 2]),
        ("$", "/w/docs/readme.md", &[1, 2]),
        ("^$", "/w/docs/readme.md", &[]),
        (r"l1\d", "/w/ctx.txt", &(10..=19).collect::<Vec<_>>()),
    ];
    for (pattern, path, want) in cases {
        let got: Vec<u64> = lines(&content(pattern, path)).into_iter().map(|(n, _)| n).collect();
        assert_eq!(got, *want, "{pattern:?} in {path}");
    }
    // Text drops the "\r".
    let r = run(&content("^foo", "/w/crlf.txt")).lines.unwrap();
    assert_eq!(r.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), vec!["foo", "foo$"]);
}

#[test]
fn literal_newline_needs_multiline() {
    let e = run_err(&req("bar\\nfoo", "/w"));
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    assert!(e.message().contains("multiline=true"), "{e}");
    let e = run_err(&GrepRequest { fixed: true, ..req("a\nb", "/w") });
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
}

#[test]
fn multiline_reports_every_touched_line() {
    let m = |p: &str, path: &str| lines(&GrepRequest { multiline: true, ..content(p, path) });
    assert_eq!(m(r"let foo.*\n.*println", "/w/src/main.rs"), vec![(2, false), (3, false)]);
    // `.` crosses lines too: greedy up to the last "bar" of the file.
    assert_eq!(m(r"main.*bar", "/w/src/main.rs"), vec![(1, false), (2, false), (3, false)]);
    assert_eq!(m(r"l3\nl4\nl5", "/w/ctx.txt"), vec![(3, false), (4, false), (5, false)]);
    // A match ending with the '\n' of its line touches that line only.
    assert_eq!(m(r"^l7\n", "/w/ctx.txt"), vec![(7, false)]);
    // A match starting at a line's '\n' touches that line and the next.
    assert_eq!(m(r"\nl9", "/w/ctx.txt"), vec![(8, false), (9, false)]);
    // Two matches on one line report it once; per-line anchors still work.
    assert_eq!(m(r"o", "/w/docs/readme.md"), vec![(1, false), (2, false)]);
    assert_eq!(m(r"^l2$", "/w/ctx.txt"), vec![(2, false)]);
    assert_eq!(m(r"", "/w/empty.txt"), vec![]);
    // Multiline context and counting.
    let r = run(&GrepRequest { multiline: true, context: 1, ..content(r"^l3\nl4", "/w/ctx.txt") });
    assert_eq!(render(&r), "/w/ctx.txt-2-l2\n/w/ctx.txt:3:l3\n/w/ctx.txt:4:l4\n/w/ctx.txt-5-l5\n");
    let c = run(&GrepRequest {
        multiline: true,
        output_mode: OutputMode::Count,
        ..req(r"\d\nl1", "/w/ctx.txt")
    });
    // "l9\nl10", "l10\nl11", ... "l18\nl19": lines 9 to 19.
    assert_eq!(c.total_matches, Some(11));
    assert!(
        run(&GrepRequest { multiline: true, ..req("foo\\n\\}", "/w/src") })
            .files
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        run(&GrepRequest { multiline: true, ..req("\\);\\n\\}", "/w/src") }).files.unwrap(),
        vec!["/w/src/main.rs"]
    );
}

#[test]
fn context_clipping_and_merging() {
    let ctx = |p: &str, before: usize, after: usize, context: usize| {
        run(&GrepRequest { before, after, context, ..content(p, "/w/ctx.txt") })
    };
    // Clipped at the start and the end of the file.
    let r = ctx("^l(1|20)$", 2, 2, 0);
    assert_eq!(
        render(&r),
        "/w/ctx.txt:1:l1\n/w/ctx.txt-2-l2\n/w/ctx.txt-3-l3\n--\n\
         /w/ctx.txt-18-l18\n/w/ctx.txt-19-l19\n/w/ctx.txt:20:l20\n"
    );
    // Overlapping groups merge; distant ones get a separator.
    let r = ctx("^l(5|7|15)$", 0, 0, 2);
    assert_eq!(
        render(&r),
        "/w/ctx.txt-3-l3\n/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n/w/ctx.txt:7:l7\n\
         /w/ctx.txt-8-l8\n/w/ctx.txt-9-l9\n--\n\
         /w/ctx.txt-13-l13\n/w/ctx.txt-14-l14\n/w/ctx.txt:15:l15\n/w/ctx.txt-16-l16\n/w/ctx.txt-17-l17\n"
    );
    // Adjacent (touching) groups merge without a separator.
    let r = ctx("^l(2|5)$", 0, 2, 0);
    assert_eq!(
        render(&r),
        "/w/ctx.txt:2:l2\n/w/ctx.txt-3-l3\n/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n/w/ctx.txt-7-l7\n"
    );
    // before only / after only; explicit values win over `context`.
    assert_eq!(
        lines(&GrepRequest { before: 1, ..content("^l10$", "/w/ctx.txt") }),
        vec![(9, true), (10, false)]
    );
    assert_eq!(
        lines(&GrepRequest { after: 1, ..content("^l10$", "/w/ctx.txt") }),
        vec![(10, false), (11, true)]
    );
    assert_eq!(
        lines(&GrepRequest { before: 1, context: 3, ..content("^l10$", "/w/ctx.txt") }),
        vec![(9, true), (10, false), (11, true), (12, true), (13, true)]
    );
    // Consecutive matches are all match lines; huge context is clipped.
    let all = lines(&GrepRequest { context: usize::MAX, ..content("^l[23]$", "/w/ctx.txt") });
    assert_eq!(all.len(), 20);
    assert_eq!(&all[..4], &[(1, true), (2, false), (3, false), (4, true)]);
    assert_eq!(
        lines(&GrepRequest { context: 1000, ..content("^foo$", "/w/no-newline.txt") }),
        vec![(1, true), (2, false)]
    );
    // Context does not produce an extra empty line after a final newline.
    assert_eq!(
        lines(&GrepRequest { after: 5, ..content("^l20$", "/w/ctx.txt") }),
        vec![(20, false)]
    );
    // No context: no separators even between distant lines.
    assert_eq!(render(&ctx("^l(1|9)$", 0, 0, 0)), "/w/ctx.txt:1:l1\n/w/ctx.txt:9:l9\n");
}

#[test]
fn separators_between_files_with_context() {
    let r = run(&GrepRequest { context: 1, ..content("^fn|^# Foo", "/w") });
    assert_eq!(
        render(&r),
        "/w/docs/readme.md:1:# Foo\n/w/docs/readme.md-2-foo and bar\n--\n\
         /w/src/main.rs:1:fn main() {\n/w/src/main.rs-2-    let foo = bar();\n"
    );
}

#[test]
fn count_mode() {
    let r = run(&GrepRequest {
        output_mode: OutputMode::Count,
        case_insensitive: true,
        ..req("foo", "/w")
    });
    let counts: Vec<(String, u64)> =
        r.counts.clone().unwrap().into_iter().map(|c| (c.path, c.count)).collect();
    assert_eq!(
        counts,
        vec![
            ("/w/crlf.txt".to_string(), 2),
            ("/w/docs/readme.md".to_string(), 2),
            ("/w/latin1.txt".to_string(), 1),
            ("/w/no-newline.txt".to_string(), 1),
            ("/w/src/lib.rs".to_string(), 2),
            ("/w/src/main.rs".to_string(), 2),
            ("/w/src/nested/deep.rs".to_string(), 1),
        ]
    );
    assert_eq!(r.total_matches, Some(11));
    assert_eq!(r.files_matched, 7);
    assert_eq!(r.files_skipped_binary, 1);
    assert_eq!(r.total_records, Some(7));
    assert!(r.files.is_none() && r.lines.is_none());
    let text = render(&r);
    assert!(text.starts_with("/w/crlf.txt:2\n/w/docs/readme.md:2\n"), "{text}");
    assert!(text.ends_with("[total: 11 matching lines in 7 files]\n"), "{text}");
    // Counting lines, not matches: four matches on two lines count 2.
    let r = run(&GrepRequest { output_mode: OutputMode::Count, ..req("o", "/w/docs/readme.md") });
    assert_eq!(r.counts.unwrap()[0].count, 2);
    // Totals cover every file even when the page is cut.
    let r = run(&GrepRequest {
        output_mode: OutputMode::Count,
        case_insensitive: true,
        head_limit: 2,
        offset: 1,
        ..req("foo", "/w")
    });
    assert_eq!(r.counts.as_ref().unwrap().len(), 2);
    assert_eq!(r.counts.as_ref().unwrap()[0].path, "/w/docs/readme.md");
    assert_eq!(
        (r.total_matches, r.truncated, r.next_offset, r.complete),
        (Some(11), true, Some(3), true)
    );
}

#[test]
fn paging_files_and_lines() {
    // Files: 7 match "(?i)foo"; pages of 3.
    let all = files(&GrepRequest { case_insensitive: true, ..req("foo", "/w") });
    assert_eq!(all.len(), 7);
    let mut got = Vec::new();
    let mut offset = 0;
    loop {
        let r =
            run(&GrepRequest { case_insensitive: true, head_limit: 3, offset, ..req("foo", "/w") });
        got.extend(r.files.clone().unwrap());
        if !r.truncated {
            assert_eq!(r.next_offset, None);
            assert!(r.complete);
            break;
        }
        assert!(!r.complete);
        assert_eq!(r.next_offset, Some(offset + 3));
        assert!(render(&r).contains(&format!("offset={}", offset + 3)), "{}", render(&r));
        offset = r.next_offset.unwrap();
    }
    assert_eq!(got, all);

    // Lines: paging cuts through context groups, records are lines.
    let base = GrepRequest { context: 1, ..content("^l(5|15)$", "/w/ctx.txt") };
    let r = run(&GrepRequest { head_limit: 4, ..base.clone() });
    assert_eq!(
        r.lines.as_ref().unwrap().iter().map(|l| l.line).collect::<Vec<_>>(),
        vec![4, 5, 6, 14]
    );
    assert_eq!((r.truncated, r.next_offset), (true, Some(4)));
    assert_eq!(
        render(&r),
        "/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n--\n/w/ctx.txt-14-l14\n\
         [more results: showing 4 lines from offset 0; call again with offset=4 for the next page]\n"
    );
    let r = run(&GrepRequest { head_limit: 4, offset: 4, ..base.clone() });
    assert_eq!(r.lines.as_ref().unwrap().iter().map(|l| l.line).collect::<Vec<_>>(), vec![15, 16]);
    assert_eq!((r.truncated, r.next_offset, r.total_records), (false, None, Some(6)));
    // Past the end: an error naming the parameter and the count, as a read's
    // `offset` past the last line is; a search that found nothing is no error.
    for offset in [6, 50] {
        let e = run_err(&GrepRequest { offset, ..base.clone() });
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            e.to_string(),
            format!(
                "parameter 'offset': the search under /w/ctx.txt has 6 lines in all; offset {offset} is past the end"
            )
        );
    }
    let r = run(&GrepRequest { offset: 50, ..content("no such line", "/w") });
    assert!(r.lines.unwrap().is_empty());
    // head_limit 0 is refused, naming the parameter (the schema's minimum is 1).
    let e = run_err(&GrepRequest { head_limit: 0, ..content("", "/w/ctx.txt") });
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().starts_with("parameter 'head_limit': must be at least 1, got 0"), "{e}");
    // The session's record cap bounds every page.
    let limits = Limits { grep_records: 5, ..Limits::default() };
    let r = grep(&table(), &limits, &GrepRequest { head_limit: 100, ..content("", "/w/ctx.txt") })
        .unwrap();
    assert_eq!((r.lines.unwrap().len(), r.truncated, r.next_offset), (5, true, Some(5)));
}

#[test]
fn glob_and_type_filters() {
    let cases: &[(Option<&str>, Option<&str>, &[&str])] = &[
        (Some("*.rs"), None, &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"]),
        (Some("src/*.rs"), None, &["/w/src/lib.rs", "/w/src/main.rs"]),
        (
            Some("*.{md,txt}"),
            None,
            &["/w/crlf.txt", "/w/docs/readme.md", "/w/latin1.txt", "/w/no-newline.txt"],
        ),
        (Some("/w/docs/*"), None, &["/w/docs/readme.md"]),
        (None, Some("rust"), &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"]),
        (None, Some("md"), &["/w/docs/readme.md"]),
        (
            None,
            Some("rust,md"),
            &["/w/docs/readme.md", "/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"],
        ),
        (Some("nested/**"), Some("rust"), &[]),
        (Some("src/nested/**"), Some("rust"), &["/w/src/nested/deep.rs"]),
    ];
    for (glob, ty, want) in cases {
        let r = GrepRequest {
            glob: glob.map(String::from),
            file_type: ty.map(String::from),
            case_insensitive: true,
            ..req("foo", "/w")
        };
        assert_eq!(files(&r), *want, "glob {glob:?} type {ty:?}");
    }
    let e = run_err(&GrepRequest { file_type: Some("klingon".into()), ..req("foo", "/w") });
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.message().contains("known types:") && e.message().contains("rust"), "{e}");
    let e = run_err(&GrepRequest { glob: Some("{a".into()), ..req("foo", "/w") });
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    assert!(e.message().contains("'{a'"), "{e}");
}

#[test]
fn no_files_versus_no_lines() {
    // Nothing passes the glob.
    let r = run(&GrepRequest { glob: Some("*.zig".into()), ..req("foo", "/w") });
    assert_eq!((r.files_considered, r.files_searched, r.files_matched), (0, 0, 0));
    assert_eq!(render(&r), "No files matched the glob '*.zig' under /w\n");
    let r = run(&GrepRequest { file_type: Some("py".into()), ..req("foo", "/w") });
    assert_eq!(render(&r), "No files matched the type 'py' under /w\n");
    let r = run(&GrepRequest {
        glob: Some("nope/**".into()),
        file_type: Some("py".into()),
        ..req("foo", "/w")
    });
    assert_eq!(render(&r), "No files matched the glob 'nope/**' and type 'py' under /w\n");
    // Files searched, no line matched.
    let r = run(&GrepRequest { glob: Some("*.rs".into()), ..req("zzz", "/w") });
    assert_eq!((r.files_considered, r.files_searched, r.files_matched), (3, 3, 0));
    assert_eq!(
        render(&r),
        "No matches for pattern 'zzz' in 3 files matching the glob '*.rs' under /w\n"
    );
    let r = run(&req("zzz", "/w/docs"));
    assert_eq!(render(&r), "No matches for pattern 'zzz' in 2 files under /w/docs\n");
    let r = run(&req("zzz", "/w"));
    assert_eq!(r.files_skipped_binary, 1);
    assert_eq!(
        render(&r),
        "No matches for pattern 'zzz' in 10 files under /w (1 file skipped as binary)\n"
    );
    // Only a binary file.
    let r = run(&req("foo", "/w/bin.dat"));
    assert_eq!((r.files_considered, r.files_searched, r.files_skipped_binary), (1, 0, 1));
    assert_eq!(render(&r), "No files searched under /w/bin.dat: 1 file skipped as binary\n");
    // Same in JSON.
    let j =
        serde_json::to_value(run(&GrepRequest { glob: Some("*.zig".into()), ..req("foo", "/w") }))
            .unwrap();
    assert_eq!(j["files_considered"], 0);
    assert_eq!(j["files"], serde_json::json!([]));
}

#[test]
fn binary_and_invalid_utf8() {
    let r = run(&content("foo", "/w"));
    let paths: Vec<&str> = r.lines.as_ref().unwrap().iter().map(|l| l.path.as_str()).collect();
    assert!(!paths.contains(&"/w/bin.dat"));
    let latin = r.lines.as_ref().unwrap().iter().find(|l| l.path == "/w/latin1.txt").unwrap();
    assert_eq!(latin.text, "caf\u{FFFD} foo");
    assert_eq!(latin.line, 1);
    // A byte pattern can match the invalid byte itself.
    assert_eq!(files(&req(r"(?-u:\xE9)", "/w")), vec!["/w/latin1.txt"]);
}

#[test]
fn too_large_files_are_skipped_and_counted() {
    let limits = Limits { file_bytes: 40, ..Limits::default() };
    let r =
        grep(&table(), &limits, &GrepRequest { case_insensitive: true, ..req("foo", "/w/src") })
            .unwrap();
    assert_eq!(r.files.as_deref().unwrap(), &["/w/src/lib.rs", "/w/src/nested/deep.rs"]);
    assert_eq!(r.files_skipped_too_large, 1);
    assert!(render(&r).ends_with("[1 file was too large to search]\n"), "{}", render(&r));
    let r = grep(&table(), &limits, &req("zzz", "/w/src")).unwrap();
    assert_eq!(
        render(&r),
        "No matches for pattern 'zzz' in 2 files under /w/src (1 file skipped as too large)\n"
    );
}

#[test]
fn long_lines_are_cut() {
    let v = MemoryVolume::new();
    v.insert("/long.txt", format!("{}needle{}\n", "a".repeat(3000), "é".repeat(10)));
    let mut t = MountTable::new();
    t.add("/", Box::new(v), 0, false).unwrap();
    let r = grep(&t, &Limits::default(), &content("needle", "/")).unwrap();
    let text = &r.lines.unwrap()[0].text;
    assert!(text.starts_with(&"a".repeat(MAX_LINE_CHARS)));
    assert!(text.ends_with(" … [line cut: 3016 characters]"), "{}", &text[text.len() - 40..]);
}

#[test]
fn pattern_errors() {
    let e = run_err(&req("foo(", "/w"));
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    assert!(e.message().contains("unclosed group"), "{e}");
    let e = run_err(&req("a{2,1}", "/w"));
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    // Too large for the compiled-size limit, at the default and at a small limit.
    let e = run_err(&req(r"\w{10000}", "/w"));
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(
        e.message().contains("too large")
            && e.message().contains(&crate::vfs::limits::MAX_REGEX_BYTES.to_string()),
        "{e}"
    );
    let small = Limits { regex_bytes: 1000, ..Limits::default() };
    let e = grep(&table(), &small, &req(r"\w{50}", "/w")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.message().contains("regex_bytes limit of 1000 bytes"), "{e}");
    // Over the pattern length limit.
    let e = run_err(&req(&"a".repeat(MAX_PATTERN_BYTES + 1), "/w"));
    assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    // `fixed` makes any text valid.
    assert!(files(&GrepRequest { fixed: true, ..req("foo((", "/w") }).is_empty());
}

#[test]
fn path_handling() {
    assert_eq!(run_err(&req("foo", "/w/nope")).kind(), ErrorKind::NotFound);
    assert_eq!(run_err(&req("foo", "/nowhere")).kind(), ErrorKind::NotFound);
    assert_eq!(run_err(&req("foo", "/..")).kind(), ErrorKind::InvalidPath);
    assert_eq!(run(&req("foo", "w/src/")).path, "/w/src");
    // A single file ignores the filters, as ripgrep does for named files.
    let r = run(&GrepRequest { glob: Some("*.md".into()), ..req("foo", "/w/src/lib.rs") });
    assert_eq!(r.files.unwrap(), vec!["/w/src/lib.rs"]);
    // A glob directory that does not exist: nothing to search, not an error.
    let r = run(&GrepRequest { glob: Some("missing/*.rs".into()), ..req("foo", "/w") });
    assert_eq!(r.files_considered, 0);
}

#[test]
fn request_json_contract() {
    let r: GrepRequest =
        crate::ops::request::decode("filestore_grep", &serde_json::json!({"pattern": "x"}))
            .unwrap();
    assert_eq!(r.path, "/");
    assert_eq!(r.output_mode, OutputMode::FilesWithMatches);
    assert_eq!((r.head_limit, r.offset, r.before, r.after, r.context), (250, 0, 0, 0, 0));
    assert!(
        !r.fixed
            && !r.case_insensitive
            && !r.multiline
            && r.glob.is_none()
            && r.file_type.is_none()
    );
    let r: GrepRequest = crate::ops::request::decode(
        "filestore_grep",
        &serde_json::json!({
            "pattern": "x", "path": "/w", "glob": "*.rs", "type": "rust", "fixed": true,
            "case_insensitive": true, "multiline": true, "before": 1, "after": 2, "context": 3,
            "output_mode": "count", "head_limit": 5, "offset": 6
        }),
    )
    .unwrap();
    assert_eq!(r.file_type.as_deref(), Some("rust"));
    assert_eq!(r.output_mode, OutputMode::Count);
    for bad in [
        serde_json::json!({"pattern": "x", "output_mode": "lines"}),
        serde_json::json!({"pattern": "x", "file_type": "rust"}),
        serde_json::json!({"pattern": "x", "-A": 1}),
    ] {
        let e = crate::ops::request::decode::<GrepRequest>("filestore_grep", &bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad}");
    }
    let j = serde_json::to_value(run(&content("^fn", "/w/src"))).unwrap();
    assert_eq!(j["output_mode"], "content");
    assert_eq!(
        j["lines"][0],
        serde_json::json!({"path": "/w/src/main.rs", "line": 1, "text": "fn main() {", "is_context": false})
    );
    assert!(j.get("files").is_none() && j.get("counts").is_none());
    let j = serde_json::to_value(run(&req("fn main", "/w"))).unwrap();
    assert_eq!(j["files"][0], "/w/src/main.rs");
    assert_eq!(OutputMode::Count.as_str(), "count");
}

/// Hidden files and directories (a `.` name beneath `path`) are skipped unless
/// `hidden` is set or `glob` names them, as ripgrep does; a search started inside a
/// hidden directory searches it.
#[test]
fn hidden_files_are_skipped_unless_asked_for() {
    let v = MemoryVolume::new();
    v.insert("/a.txt", "needle\n")
        .insert("/.env", "needle=1\n")
        .insert("/.git/config", "needle\n")
        .insert("/src/.cache/x.txt", "needle\n");
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    let go = |r: GrepRequest| grep(&t, &Limits::default(), &r).unwrap().files.unwrap();
    assert_eq!(go(req("needle", "/w")), ["/w/a.txt"]);
    assert_eq!(go(GrepRequest { hidden: true, ..req("needle", "/w") }).len(), 4);
    assert_eq!(go(GrepRequest { glob: Some(".env".into()), ..req("needle", "/w") }), ["/w/.env"]);
    assert_eq!(go(req("needle", "/w/.git")), ["/w/.git/config"]);
    assert_eq!(go(req("needle", "/w/.env")), ["/w/.env"]);
}
