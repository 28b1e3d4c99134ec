//! Unit tests of `read`.

use super::*;

/// The eight-bytes-at-a-time count is the byte-wise definition.
#[test]
fn control_bytes_is_bytewise() {
    use proptest::prelude::*;
    let byte = prop_oneof![
        4 => proptest::sample::select(vec![0u8, b'\t', b'\n', b'\r', 0x0c, 0x1b, 0x1f, 0x7f, 0x80, b'a', b' ']),
        1 => any::<u8>(),
    ];
    proptest!(ProptestConfig::with_cases(4000), |(b in proptest::collection::vec(byte, 0..70))| {
        let nul = b.contains(&0);
        let count = b
            .iter()
            .filter(|c| c.is_ascii_control() && !matches!(c, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
            .count();
        prop_assert_eq!(control_bytes(&b), (nul, count));
    });
}

/// Line numbers as `{:>6}\t`, including wider ones.
#[test]
fn push_numbered_is_the_format() {
    for n in [0u64, 1, 9, 10, 99_999, 999_999, 1_000_000, 123_456_789, u64::MAX] {
        let mut out = String::from("x");
        push_numbered(&mut out, n, "a line");
        assert_eq!(out, format!("x{n:>6}\ta line\n"));
    }
}

use crate::vfs::memory::MemoryVolume;

fn table(files: &[(&str, &[u8])]) -> MountTable {
    let v = MemoryVolume::new();
    for (p, c) in files {
        v.insert(p, c);
    }
    let mut t = MountTable::new();
    t.add("/w", Box::new(v), 0, false).unwrap();
    t
}

fn req(path: &str, offset: u64, limit: u64) -> ReadRequest {
    ReadRequest {
        path: path.into(),
        offset,
        limit,
        raw: false,
        tail: None,
        encoding: Encoding::Utf8,
        byte_offset: 0,
        max_bytes: None,
        pages: None,
        render: None,
    }
}

/// `encoding: base64` returns any file's bytes, paged by byte: the pages
/// concatenate to the file, and bad paging arguments name their parameter.
#[test]
fn base64_pages_concatenate_to_the_bytes() {
    use base64::Engine as _;
    let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let t = table(&[("/bin", &bytes), ("/e", b"")]);
    let b64 = |byte_offset: u64, max_bytes: Option<u64>| ReadRequest {
        encoding: Encoding::Base64,
        byte_offset,
        max_bytes,
        ..req("/w/bin", 1, DEFAULT_READ_LINES as u64)
    };
    let l = Limits::default();
    let (mut got, mut at) = (Vec::new(), 0);
    let mut pages = 0;
    loop {
        let r = read(&t, &l, &b64(at, Some(4096))).unwrap();
        assert_eq!(r.content, ReadContent::Base64);
        assert_eq!(r.byte_offset, Some(at));
        got.extend(base64::engine::general_purpose::STANDARD.decode(&r.text).unwrap());
        pages += 1;
        match r.next_byte_offset {
            Some(n) => {
                assert!(r.truncated);
                at = n;
            }
            None => {
                assert!(!r.truncated);
                break;
            }
        }
    }
    assert_eq!((got, pages), (bytes, 3));
    assert!(render(&read(&t, &l, &b64(0, Some(4))).unwrap()).starts_with(
        "[base64 of bytes 0..4 of /w/bin (10000 bytes); continue with byte_offset=4]\nAAECAw=="
    ));
    let empty = read(&t, &l, &ReadRequest { path: "/w/e".into(), ..b64(0, None) }).unwrap();
    assert_eq!((empty.text.as_str(), empty.bytes, empty.next_byte_offset), ("", Some(0), None));
    let at_end = read(&t, &l, &b64(10_000, None)).unwrap();
    assert_eq!((at_end.bytes, at_end.truncated), (Some(0), false));
    for (bad, param) in [
        (b64(10_001, None), "byte_offset"),
        (b64(0, Some(0)), "max_bytes"),
        (b64(0, Some(l.read_page_bytes + 1)), "max_bytes"),
        (ReadRequest { raw: true, ..b64(0, None) }, "encoding"),
        (ReadRequest { offset: 3, ..b64(0, None) }, "encoding"),
        (ReadRequest { encoding: Encoding::Utf8, ..b64(5, None) }, "byte_offset"),
    ] {
        let e = read(&t, &l, &bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        assert!(e.to_string().contains(param), "{param}: {e}");
    }
    // The wire names: `utf-8` (or `utf8`) and `base64`; anything else is refused.
    let parse = |v: &str| {
        serde_json::from_value::<ReadRequest>(serde_json::json!({"path": "/w/bin", "encoding": v}))
    };
    assert_eq!(parse("base64").unwrap().encoding, Encoding::Base64);
    assert_eq!(parse("utf8").unwrap().encoding, Encoding::Utf8);
    assert!(parse("latin-1").is_err());
}

/// The typed `read-bytes`: the bytes themselves, paged, the offset named as the
/// caller's parameter.
#[test]
fn byte_pages_are_the_bytes() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let t = table(&[("/bin", &bytes)]);
    let l = Limits::default();
    let p = read_byte_page(&t, &l, "/w/bin", (600, "offset"), Some(300)).unwrap();
    assert_eq!((p.offset, p.next_offset, &p.data[..]), (600, Some(900), &bytes[600..900]));
    let last = read_byte_page(&t, &l, "/w/bin", (900, "offset"), None).unwrap();
    assert_eq!((last.next_offset, &last.data[..]), (None, &bytes[900..]));
    assert_eq!(last.entry.size, 1000);
    let e = read_byte_page(&t, &l, "/w/bin", (1001, "offset"), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("offset 1001 is past the end"), "{e}");
    let e = read_byte_page(&t, &l, "/w/nope", (0, "offset"), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[test]
fn numbers_like_cat_n() {
    let t = table(&[("/a.txt", b"alpha\nbeta\ngamma")]);
    let r = read(&t, &Limits::default(), &req("/w/a.txt", 1, 2000)).unwrap();
    assert_eq!(r.text, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
    assert_eq!((r.start_line, r.end_line, r.total_lines), (1, 3, Some(3)));
    assert_eq!(r.next_offset, None);
    assert!(!r.truncated);
}

#[test]
fn says_whether_the_file_ends_with_a_newline() {
    let t = table(&[("/no.txt", b"a\nb"), ("/yes.txt", b"a\nb\n"), ("/e.txt", b"")]);
    let at = |p: &str| read(&t, &Limits::default(), &req(p, 1, 1)).unwrap().ends_with_newline;
    assert_eq!(at("/w/no.txt"), Some(false));
    assert_eq!(at("/w/yes.txt"), Some(true));
    // An empty file has no last byte: absent, as the WIT says.
    assert_eq!(at("/w/e.txt"), None);
    let raw = |p: &str| {
        let r = ReadRequest { raw: true, ..req(p, 1, 1) };
        read(&t, &Limits::default(), &r).unwrap().ends_with_newline
    };
    assert_eq!(
        (raw("/w/no.txt"), raw("/w/yes.txt"), raw("/w/e.txt")),
        (Some(false), Some(true), None)
    );
    // Past the line-count limit, a first page does not read to the end: not
    // known there; the last page knows.
    let line = format!("{}\n", "x".repeat(1023));
    let lines = (COUNT_LINES_MAX_BYTES / 1024 + 8) as usize;
    let t = table(&[("/big.txt", line.repeat(lines).as_bytes())]);
    let first = read(&t, &Limits::default(), &req("/w/big.txt", 1, 10)).unwrap();
    assert_eq!(first.ends_with_newline, None);
    let last = read(&t, &Limits::default(), &req("/w/big.txt", lines as u64 - 2, 10)).unwrap();
    assert_eq!(last.ends_with_newline, Some(true));
}

#[test]
fn pages_through_ten_thousand_lines() {
    let body: String = (1..=10_000).map(|i| format!("line {i}\n")).collect();
    let t = table(&[("/big.txt", body.as_bytes())]);
    let mut offset = 1;
    let mut seen = 0;
    let mut pages = 0;
    loop {
        let r = read(&t, &Limits::default(), &req("/w/big.txt", offset, 2000)).unwrap();
        assert_eq!(r.total_lines, Some(10_000));
        assert_eq!(r.start_line, offset);
        seen += r.end_line - r.start_line + 1;
        pages += 1;
        assert!(r.text.starts_with(&format!("{offset:>6}\tline {offset}\n")));
        match r.next_offset {
            Some(n) => {
                assert!(r.truncated);
                offset = n
            }
            None => break,
        }
    }
    assert_eq!(seen, 10_000);
    assert!(pages >= 5);
}

#[test]
fn token_safeguard_cuts_page() {
    let body: String = (1..=3000).map(|i| format!("{i:0>100}\n")).collect();
    let t = table(&[("/wide.txt", body.as_bytes())]);
    let r = read(&t, &Limits::default(), &req("/w/wide.txt", 1, 3000)).unwrap();
    assert!(r.truncated);
    assert_eq!(r.truncated_by.as_deref(), Some("tokens"));
    assert!(r.end_line < 500, "end {}", r.end_line);
    assert_eq!(r.next_offset, Some(r.end_line + 1));
    assert!(render(&r).contains("token safeguard"));
}

#[test]
fn long_single_line_is_cut() {
    let body = "x".repeat(100_000);
    let t = table(&[("/one.txt", body.as_bytes())]);
    let r = read(&t, &Limits::default(), &req("/w/one.txt", 1, 10)).unwrap();
    assert_eq!(r.cut_lines, 1);
    assert_eq!(r.total_lines, Some(1));
    assert!(r.text.contains("line cut at 2000 characters; 100000 bytes in full"));
    assert!(r.text.len() < 2200);
}

#[test]
fn empty_binary_raw() {
    let t = table(&[
        ("/e", b""),
        ("/b", b"ab\0cd"),
        ("/u", b"ok \xff\xfe bad"),
        ("/l", b"caf\xe9 cr\xe8me\nplain\n"),
        ("/c", b"\x01\x02\x03\x04\x05ab"),
        ("/j", b"{\n  \"a\": 1\n}"),
    ]);
    assert_eq!(
        read(&t, &Limits::default(), &req("/w/e", 1, 10)).unwrap().content,
        ReadContent::Empty
    );
    let b = read(&t, &Limits::default(), &req("/w/b", 1, 10)).unwrap();
    assert_eq!(b.content, ReadContent::Binary);
    assert!(render(&b).contains("binary file (5 bytes)"));
    // Not UTF-8 is not binary: Latin-1 text is shown lossily and says so.
    let u = read(&t, &Limits::default(), &req("/w/u", 1, 10)).unwrap();
    assert_eq!((u.content, u.lossy_lines), (ReadContent::Text, 1));
    assert!(u.text.contains("ok \u{fffd}\u{fffd} bad"), "{}", u.text);
    let l = read(&t, &Limits::default(), &req("/w/l", 1, 10)).unwrap();
    assert_eq!(l.lossy_lines, 1);
    assert!(l.text.contains("     2\tplain\n"));
    assert!(render(&l).contains("1 line(s) hold bytes that are not UTF-8"), "{}", render(&l));
    // Mostly control bytes, no NUL: binary by content.
    assert_eq!(
        read(&t, &Limits::default(), &req("/w/c", 1, 10)).unwrap().content,
        ReadContent::Binary
    );
    let raw =
        read(&t, &Limits::default(), &ReadRequest { raw: true, ..req("/w/j", 1, 1) }).unwrap();
    assert_eq!(raw.text, "{\n  \"a\": 1\n}");
}

#[test]
fn errors() {
    let t = table(&[("/a", b"1\n2\n")]);
    let l = Limits::default();
    assert_eq!(read(&t, &l, &req("/w/a", 5, 1)).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(read(&t, &l, &req("/w/a", 0, 1)).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(read(&t, &l, &req("/w", 1, 1)).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(read(&t, &l, &req("/w/zz", 1, 1)).unwrap_err().kind(), ErrorKind::NotFound);
    let r = read(&t, &l, &req("/w/a", 2, 1)).unwrap();
    assert_eq!(r.text, "     2\t2\n");
    assert_eq!(r.next_offset, None);
}

#[test]
fn crlf_and_chunk_boundaries() {
    // Lines straddling the 256 KiB chunk boundary come out whole.
    let mut body = String::new();
    let mut i = 0;
    while body.len() < (CHUNK_BYTES as usize) * 2 + 100 {
        i += 1;
        body.push_str(&format!("row {i} ééé\r\n"));
    }
    let t = table(&[("/c.txt", body.as_bytes())]);
    let l = Limits { read_tokens: 10_000_000, ..Limits::default() };
    let r = read(&t, &l, &req("/w/c.txt", 1, 1_000_000)).unwrap();
    assert_eq!(r.total_lines, Some(i));
    assert_eq!(r.end_line, i);
    for (n, line) in r.text.lines().enumerate() {
        assert_eq!(line, format!("{:>6}\trow {} ééé", n + 1, n + 1));
    }
}

/// `tail` returns the last lines, numbered as in the whole file, whatever the
/// file's end looks like; bad combinations name the parameter.
#[test]
fn tail_reads_the_end() {
    let log: String = (1..=5000).map(|i| format!("entry {i}\n")).collect();
    let t = table(&[("/log", log.as_bytes()), ("/short", b"a\nb"), ("/e", b"")]);
    let l = Limits::default();
    let tail = |p: &str, n: u64| ReadRequest { tail: Some(n), ..req(p, 1, 2000) };
    let r = read(&t, &l, &tail("/w/log", 3)).unwrap();
    assert_eq!((r.start_line, r.end_line), (4998, 5000));
    assert_eq!(r.text, "  4998\tentry 4998\n  4999\tentry 4999\n  5000\tentry 5000\n");
    assert_eq!(r.next_offset, None);
    let r = read(&t, &l, &tail("/w/short", 10)).unwrap();
    assert_eq!((r.start_line, r.end_line), (1, 2), "fewer lines than asked: all of them");
    let r = read(&t, &l, &tail("/w/short", 1)).unwrap();
    assert_eq!(r.text, "     2\tb\n");
    assert_eq!(read(&t, &l, &tail("/w/e", 5)).unwrap().content, ReadContent::Empty);
    let e = read(&t, &l, &ReadRequest { offset: 3, ..tail("/w/log", 2) }).unwrap_err();
    assert!(e.to_string().contains("'tail'"), "{e}");
    assert!(read(&t, &l, &tail("/w/log", 0)).is_err());
}
