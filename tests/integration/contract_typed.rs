//! The contract suite's typed steps (`{"typed": op, "args": {...}}`) through the
//! Rust host: the typed WIT functions of the session (`read`, `read-many`,
//! `read-bytes`, `glob`, `grep`, `tree`, `tree-nodes`), called with
//! [`Session::with_typed`].
//!
//! Arguments are the request record's fields by their WIT names with `_` for `-`
//! (enums by their WIT case names); absent fields are none. The answer is
//! `{"typed": value}`, the result record as JSON in the same naming: options as
//! `null`, enums as their case names, `list<u8>` as lowercase hex, a nested
//! `result` as `{"ok": value}` or `{"error": {"kind", "message"}}`; or
//! `{"error": ...}` when the call fails. Every host shapes its answers so.

use filestore::Session;
use filestore::wit::exports::filestore::component::filestore as fs;
use filestore::wit::filestore::component::types::{Entry, EntryKind};
use serde_json::{Value, json};

fn s(v: &Value) -> Option<String> {
    v.as_str().map(String::from)
}
fn n32(v: &Value) -> Option<u32> {
    v.as_u64().map(|n| n as u32)
}
fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array().map(|a| a.iter().filter_map(s).collect())
}

fn entry(e: &Entry) -> Value {
    json!({
        "path": e.path,
        "kind": kind(e.kind),
        "size": e.size,
        "modified_ms": e.modified_ms,
        "read_only": e.read_only,
        "entry_type": e.entry_type,
        "attributes": e.attributes,
    })
}

fn kind(k: EntryKind) -> &'static str {
    match k {
        EntryKind::File => "file",
        EntryKind::Directory => "directory",
    }
}

fn error(e: &filestore::Error) -> Value {
    json!({"error": {"kind": e.kind_name(), "message": e.to_string()}})
}

fn read_result(r: &fs::ReadResult) -> Value {
    json!({
        "entry": entry(&r.entry),
        "content": match r.content {
            fs::ReadContent::Text => "text",
            fs::ReadContent::Empty => "empty",
            fs::ReadContent::Binary => "binary",
            fs::ReadContent::Raw => "raw",
            fs::ReadContent::Pdf => "pdf",
        },
        "text": r.text,
        "total_lines": r.total_lines,
        "start_line": r.start_line,
        "end_line": r.end_line,
        "next_offset": r.next_offset,
        "truncated": r.truncated,
        "truncated_by": r.truncated_by.map(|c| match c {
            fs::ReadCut::Limit => "limit",
            fs::ReadCut::Tokens => "tokens",
            fs::ReadCut::Bytes => "bytes",
        }),
        "cut_lines": r.cut_lines,
        "lossy_lines": r.lossy_lines,
        "ends_with_newline": r.ends_with_newline,
    })
}

fn read_many(files: Vec<fs::ReadManyFile>) -> Value {
    let files: Vec<Value> = files
        .into_iter()
        .map(|f| {
            let outcome = match f.outcome {
                Ok(r) => json!({"ok": read_result(&r)}),
                Err(e) => error(&filestore::Error::from(e)),
            };
            json!({"path": f.path, "outcome": outcome})
        })
        .collect();
    Value::Array(files)
}

fn read_bytes(r: fs::ReadBytesResult) -> Value {
    let hex: String = r.data.iter().map(|b| format!("{b:02x}")).collect();
    json!({"entry": entry(&r.entry), "data": hex, "offset": r.offset, "next_offset": r.next_offset})
}

fn glob(r: fs::GlobResult) -> Value {
    let files: Vec<Value> = r
        .files
        .iter()
        .map(|f| json!({"path": f.path, "size": f.size, "modified_ms": f.modified_ms, "tokens": f.tokens}))
        .collect();
    json!({
        "files": files,
        "total_matches": r.total_matches,
        "truncated": r.truncated,
        "walk_truncated": r.walk_truncated,
        "hidden_skipped": r.hidden_skipped,
    })
}

fn grep(r: fs::GrepResult) -> Value {
    let lines: Vec<Value> = r
        .lines
        .iter()
        .map(
            |l| json!({"path": l.path, "line": l.line, "text": l.text, "is_context": l.is_context}),
        )
        .collect();
    let counts: Vec<Value> =
        r.counts.iter().map(|c| json!({"path": c.path, "count": c.count})).collect();
    json!({
        "files": r.files, "lines": lines, "counts": counts,
        "files_searched": r.files_searched, "truncated": r.truncated,
        "next_offset": r.next_offset, "rendered": r.rendered,
        "total_records": r.total_records, "total_matches": r.total_matches,
        "files_considered": r.files_considered, "files_matched": r.files_matched,
        "files_skipped_binary": r.files_skipped_binary,
        "files_skipped_too_large": r.files_skipped_too_large,
        "complete": r.complete, "walk_truncated": r.walk_truncated,
    })
}

fn tree_nodes(t: fs::TreeResult) -> Value {
    let nodes: Vec<Value> = t
        .nodes
        .iter()
        .map(|n| {
            json!({
                "path": n.path, "kind": kind(n.kind), "children_first": n.children_first,
                "children_count": n.children_count, "more_files": n.more_files,
            })
        })
        .collect();
    json!({
        "path": t.path, "nodes": nodes, "top_count": t.top_count,
        "more_files": t.more_files, "truncated": t.truncated, "rendered": t.rendered,
    })
}

fn tree_request(a: &Value) -> fs::TreeRequest {
    fs::TreeRequest {
        path: s(&a["path"]),
        max_depth: n32(&a["max_depth"]),
        max_files_per_folder: n32(&a["max_files_per_folder"]),
        exclude: strings(&a["exclude"]),
    }
}

fn grep_request(a: &Value) -> fs::GrepRequest {
    let mode = a["output_mode"].as_str().map(|m| match m {
        "files-with-matches" => fs::GrepOutputMode::FilesWithMatches,
        "content" => fs::GrepOutputMode::Content,
        "count" => fs::GrepOutputMode::Count,
        other => panic!("unknown grep-output-mode {other}"),
    });
    fs::GrepRequest {
        pattern: s(&a["pattern"]).expect("grep needs a pattern"),
        path: s(&a["path"]),
        glob: s(&a["glob"]),
        file_type: s(&a["file_type"]),
        fixed: a["fixed"].as_bool(),
        case_insensitive: a["case_insensitive"].as_bool(),
        multiline: a["multiline"].as_bool(),
        before: n32(&a["before"]),
        after: n32(&a["after"]),
        context: n32(&a["context"]),
        output_mode: mode,
        head_limit: n32(&a["head_limit"]),
        offset: n32(&a["offset"]),
        exclude: strings(&a["exclude"]),
        hidden: a["hidden"].as_bool(),
    }
}

/// Runs one typed call; its answer as JSON (see the module's docs).
fn typed(s: &mut Session, op: &str, a: &Value) -> filestore::Result<Value> {
    match op {
        "read" => {
            let req = fs::ReadRequest {
                path: self::s(&a["path"]).expect("read needs a path"),
                offset: n32(&a["offset"]),
                limit: n32(&a["limit"]),
                raw: a["raw"].as_bool(),
                tail: n32(&a["tail"]),
            };
            s.with_typed(|st, f, h| f.call_read(st, h, &req)).map(|r| read_result(&r))
        }
        "read_many" => {
            let req = fs::ReadManyRequest {
                paths: strings(&a["paths"]).expect("read_many needs paths"),
                offset: n32(&a["offset"]),
                limit: n32(&a["limit"]),
                raw: a["raw"].as_bool(),
                tail: n32(&a["tail"]),
            };
            s.with_typed(|st, f, h| f.call_read_many(st, h, &req)).map(read_many)
        }
        "read_bytes" => {
            let req = fs::ReadBytesRequest {
                path: self::s(&a["path"]).expect("read_bytes needs a path"),
                offset: a["offset"].as_u64(),
                max_bytes: a["max_bytes"].as_u64(),
            };
            s.with_typed(|st, f, h| f.call_read_bytes(st, h, &req)).map(read_bytes)
        }
        "glob" => {
            let req = fs::GlobRequest {
                pattern: self::s(&a["pattern"]).expect("glob needs a pattern"),
                path: self::s(&a["path"]),
                limit: n32(&a["limit"]),
                exclude: strings(&a["exclude"]),
                hidden: a["hidden"].as_bool(),
            };
            s.with_typed(|st, f, h| f.call_glob(st, h, &req)).map(glob)
        }
        "grep" => {
            let req = grep_request(a);
            s.with_typed(|st, f, h| f.call_grep(st, h, &req)).map(grep)
        }
        "tree" => {
            let req = tree_request(a);
            s.with_typed(|st, f, h| f.call_tree(st, h, &req)).map(Value::String)
        }
        "tree_nodes" => {
            let req = tree_request(a);
            s.with_typed(|st, f, h| f.call_tree_nodes(st, h, &req)).map(tree_nodes)
        }
        other => panic!("unknown typed step '{other}'"),
    }
}

/// The answer to a typed step.
pub fn answer(s: &mut Session, op: &str, args: &Value) -> Value {
    match typed(s, op, args) {
        Ok(v) => json!({ "typed": v }),
        Err(e) => error(&e),
    }
}

/// The typed functions answer what the JSON tools answer for the same request:
/// grep's counters, glob with `hidden`, `read-many` against `paths`, `read-bytes`
/// against a base64 read, `tree-nodes` against the rendered tree.
#[test]
fn typed_answers_agree_with_the_json_tools() {
    use base64::Engine as _;
    let files = &crate::contract::suite()["fixtures"]["typed"];
    let volume = crate::contract::memory_fixture(files);
    let mut s =
        crate::common::engine().session(vec![filestore::MountSpec::new("/t", volume)]).unwrap();
    let mut both = |op: &str, args: Value, tool: &str, json_args: Value| {
        let typed = answer(&mut s, op, &args)["typed"].take();
        let json = s.call(tool, &json_args).unwrap().json;
        (typed, json)
    };

    let grep_args =
        json!({"pattern": "TODO", "path": "/t", "output_mode": "count", "hidden": true});
    let (t, j) = both("grep", grep_args.clone(), "filestore_grep", grep_args);
    for k in ["total_matches", "total_records", "files_considered", "files_matched", "complete"] {
        assert_eq!(t[k], j[k], "{k}");
    }
    assert_eq!((t["total_matches"].as_u64(), t["files_matched"].as_u64()), (Some(5), Some(4)));

    let glob_args = json!({"pattern": "*", "path": "/t"});
    let (t, j) = both("glob", glob_args.clone(), "filestore_glob", glob_args);
    assert_eq!((&t["hidden_skipped"], &t["files"]), (&j["hidden_skipped"], &j["files"]));
    assert_eq!(t["hidden_skipped"], 2);
    let glob_args = json!({"pattern": "*", "path": "/t", "hidden": true});
    let (t, j) = both("glob", glob_args.clone(), "filestore_glob", glob_args);
    assert_eq!(t["files"], j["files"]);
    assert_eq!((t["hidden_skipped"].as_u64(), t["files"].as_array().unwrap().len()), (Some(0), 9));

    let paths = json!(["/t/notes.txt", "/t/nope", "/t/lines.txt"]);
    let (t, j) = both(
        "read_many",
        json!({"paths": paths, "limit": 2}),
        "filestore_read",
        json!({"paths": paths, "limit": 2}),
    );
    for (typed, json) in t.as_array().unwrap().iter().zip(j["files"].as_array().unwrap()) {
        match typed["outcome"].get("ok") {
            Some(ok) => assert_eq!(ok["text"], json["text"]),
            None => assert_eq!(typed["outcome"]["error"]["kind"], json["error"]["kind"]),
        }
    }

    let (t, j) = both(
        "read_bytes",
        json!({"path": "/t/blob.bin", "offset": 1, "max_bytes": 4}),
        "filestore_read",
        json!({"path": "/t/blob.bin", "encoding": "base64", "byte_offset": 1, "max_bytes": 4}),
    );
    let bytes = base64::engine::general_purpose::STANDARD.decode(j["text"].as_str().unwrap());
    let hex: String = bytes.unwrap().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        (t["data"].as_str(), &t["next_offset"]),
        (Some(hex.as_str()), &j["next_byte_offset"])
    );
    assert_eq!(hex, "ff102041");

    let tree_args = json!({"path": "/t", "max_files_per_folder": 2});
    let (t, j) = both("tree_nodes", tree_args.clone(), "filestore_tree", tree_args);
    assert_eq!(t["rendered"], j["tree"]);
    let top: Vec<&str> = t["nodes"].as_array().unwrap()
        [..t["top_count"].as_u64().unwrap() as usize]
        .iter()
        .map(|n| n["path"].as_str().unwrap())
        .collect();
    assert_eq!(top, ["/t/.github", "/t/src", "/t/.env", "/t/blob.bin"]);
    assert_eq!(t["more_files"], 2);
}
