//! The exported `filestore` interface: the session resource over a domain
//! [`Session`](crate::session::Session).

use serde_json::{Map, Value, json};

use super::Component;
use super::exports::filestore::component::filestore as fs;
use super::filestore::component::types::{Entry, Error};
use super::read_side;
use super::shell_output::emit_shell_output;
use super::types::{to_wit_entry, to_wit_error};
use super::volume::WitVolume;
use crate::session::Session as DomSession;
use crate::vfs::checked::Checked;
use crate::vfs::limits::Limits as DomLimits;

/// The exported resource: a domain session.
pub struct SessionResource(pub(super) DomSession);

impl fs::Guest for Component {
    type Session = SessionResource;
}

/// Builds a JSON argument object from optional WIT fields.
fn args(fields: &[(&str, Option<Value>)]) -> Value {
    let mut m = Map::new();
    for (k, v) in fields {
        if let Some(v) = v {
            m.insert((*k).to_string(), v.clone());
        }
    }
    Value::Object(m)
}

fn call(s: &DomSession, tool: &str, a: Value) -> Result<crate::session::ToolOutput, Error> {
    s.call(tool, &a).map_err(to_wit_error)
}

fn entry_of(v: &Value) -> Entry {
    to_wit_entry(serde_json::from_value(v.clone()).expect("entry json"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn ls_nodes(nodes: &[Value], out: &mut Vec<fs::LsNode>) -> u32 {
    // Breadth-first flattening: this level's nodes contiguously, then each child
    // level, with each node pointing at its children's range.
    let start = out.len();
    for n in nodes {
        out.push(fs::LsNode {
            entry: entry_of(n),
            tokens: u(&n["tokens"]),
            children_first: 0,
            children_count: 0,
        });
    }
    for (i, n) in nodes.iter().enumerate() {
        if let Some(children) = n["children"].as_array() {
            let first = out.len() as u32;
            let count = ls_nodes(children, out);
            out[start + i].children_first = first;
            out[start + i].children_count = count;
        }
    }
    nodes.len() as u32
}

/// `filestore_tree`'s JSON arguments of a typed tree request.
fn tree_args(r: fs::TreeRequest) -> Value {
    args(&[
        ("path", r.path.map(Value::from)),
        ("max_depth", r.max_depth.map(Value::from)),
        ("max_files_per_folder", r.max_files_per_folder.map(Value::from)),
        ("exclude", r.exclude.map(Value::from)),
    ])
}

impl fs::GuestSession for SessionResource {
    fn create(mounts: Vec<fs::Mount>, limits: fs::Limits) -> Result<fs::Session, Error> {
        crate::shell::stream::set_sink(emit_shell_output);
        crate::shell::python::set_starter(super::python::start);
        let d = DomLimits::default();
        let limits = DomLimits {
            read_tokens: limits.read_tokens.map(|v| v as usize).unwrap_or(d.read_tokens),
            file_bytes: limits.file_bytes.unwrap_or(d.file_bytes),
            regex_bytes: limits.regex_bytes.map(|v| v as usize).unwrap_or(d.regex_bytes),
            walk_entries: limits.walk_entries.map(|v| v as usize).unwrap_or(d.walk_entries),
            grep_records: limits.grep_records.map(|v| v as usize).unwrap_or(d.grep_records),
            write_bytes: limits.write_bytes.unwrap_or(d.write_bytes),
            ..d
        };
        let mut s = DomSession::new(limits);
        for m in mounts {
            let volume = Box::new(Checked::new(WitVolume(m.volume)));
            match m.upper {
                Some(_) if m.read_only => {
                    return Err(to_wit_error(crate::error::Error::at(
                        crate::error::ErrorKind::InvalidArgument,
                        m.point,
                        "a copy-on-write mount cannot be read-only",
                    )));
                }
                Some(upper) => {
                    let upper = Box::new(Checked::new(WitVolume(upper)));
                    s.mount_cow(&m.point, volume, upper, m.priority)
                }
                None => s.mount(&m.point, volume, m.priority, m.read_only),
            }
            .map_err(to_wit_error)?;
        }
        Ok(fs::Session::new(SessionResource(s)))
    }

    fn stat(&self, path: String) -> Result<Entry, Error> {
        self.0.stat(&path).map(to_wit_entry).map_err(to_wit_error)
    }

    fn ls(&self, r: fs::LsRequest) -> Result<fs::LsResult, Error> {
        let a = args(&[
            ("path", r.path.map(Value::from)),
            ("depth", r.depth.map(Value::from)),
            ("limit", r.limit.map(Value::from)),
            // The typed API returns every entry's metadata.
            ("details", Some(Value::Bool(true))),
            (
                "sort_by",
                r.sort_by.map(|s| {
                    Value::from(match s {
                        fs::SortBy::Name => "name",
                        fs::SortBy::Size => "size",
                        fs::SortBy::Modified => "modified",
                    })
                }),
            ),
        ]);
        let out = call(&self.0, "filestore_ls", a)?.json;
        let mut nodes = Vec::new();
        let top = ls_nodes(out["entries"].as_array().map(Vec::as_slice).unwrap_or(&[]), &mut nodes);
        Ok(fs::LsResult {
            path: out["path"].as_str().unwrap_or_default().to_string(),
            nodes,
            top_count: top,
            truncated: out["truncated"].as_bool().unwrap_or(false),
        })
    }

    fn read(&self, r: fs::ReadRequest) -> Result<fs::ReadResult, Error> {
        // Typed all the way: the request and the result never pass through JSON,
        // unlike `call` (JSON was most of a small read's cost in the component); the
        // defaults are the JSON request's.
        let req = crate::ops::read::ReadRequest {
            path: r.path,
            offset: r.offset.map_or(1, u64::from),
            limit: r.limit.map_or(crate::vfs::limits::DEFAULT_READ_LINES as u64, u64::from),
            raw: r.raw.unwrap_or(false),
            tail: r.tail.map(u64::from),
            encoding: Default::default(),
            byte_offset: 0,
            max_bytes: None,
            pages: None,
            // `read-result` has no place for images: `read-pdf` returns them.
            render: Some(crate::ops::pdf_render::RenderMode::None),
        };
        let (out, _activation) = self.0.read_tool(&req).map_err(to_wit_error)?;
        Ok(read_side::read_result(out))
    }

    fn read_pdf(&self, r: fs::ReadPdfRequest) -> Result<fs::ReadPdfResult, Error> {
        use crate::ops::pdf_render::RenderMode;
        let req = crate::ops::read::ReadRequest {
            path: r.path,
            offset: 1,
            limit: crate::vfs::limits::DEFAULT_READ_LINES as u64,
            raw: false,
            tail: None,
            encoding: Default::default(),
            byte_offset: 0,
            max_bytes: None,
            // An empty selection would read nothing: the default is from page 1.
            pages: Some(r.pages.unwrap_or_else(|| "1-".into())),
            render: Some(match r.render.unwrap_or(fs::PdfRender::Auto) {
                fs::PdfRender::Auto => RenderMode::Auto,
                fs::PdfRender::All => RenderMode::All,
                fs::PdfRender::None => RenderMode::None,
            }),
        };
        let (out, _activation) = self.0.read_tool(&req).map_err(to_wit_error)?;
        read_side::read_pdf_result(out).map_err(to_wit_error)
    }

    fn read_many(&self, r: fs::ReadManyRequest) -> Result<Vec<fs::ReadManyFile>, Error> {
        // Each file's request decodes from the JSON arguments of one path, as
        // `filestore_read` with `paths` makes them: defaults and checks in one place.
        let options = args(&[
            ("offset", r.offset.map(Value::from)),
            ("limit", r.limit.map(Value::from)),
            ("raw", r.raw.map(Value::from)),
            ("tail", r.tail.map(Value::from)),
        ]);
        let request = |path: &str| {
            let mut one = options.clone();
            one["path"] = Value::from(path);
            crate::ops::request::decode("filestore_read", &one)
        };
        let each = self.0.read_paths(&r.paths, request).map_err(to_wit_error)?;
        Ok(each
            .into_iter()
            .map(|(path, read)| fs::ReadManyFile {
                path: path.to_string(),
                outcome: read
                    .map(|(r, _activation)| read_side::read_result(r))
                    .map_err(to_wit_error),
            })
            .collect())
    }

    fn read_bytes(&self, r: fs::ReadBytesRequest) -> Result<fs::ReadBytesResult, Error> {
        let page =
            self.0.read_bytes(&r.path, r.offset.unwrap_or(0), r.max_bytes).map_err(to_wit_error)?;
        Ok(fs::ReadBytesResult {
            entry: to_wit_entry(page.entry),
            data: page.data,
            offset: page.offset,
            next_offset: page.next_offset,
        })
    }

    fn glob(&self, r: fs::GlobRequest) -> Result<fs::GlobResult, Error> {
        let a = args(&[
            ("pattern", Some(Value::from(r.pattern))),
            ("path", r.path.map(Value::from)),
            ("limit", r.limit.map(Value::from)),
            ("exclude", r.exclude.map(Value::from)),
            ("hidden", r.hidden.map(Value::from)),
        ]);
        let out = call(&self.0, "filestore_glob", a)?.json;
        let files = out["files"]
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|f| fs::GlobFile {
                        path: f["path"].as_str().unwrap_or_default().to_string(),
                        size: u(&f["size"]),
                        modified_ms: f["modified_ms"].as_u64(),
                        tokens: u(&f["tokens"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(fs::GlobResult {
            files,
            total_matches: u(&out["total_matches"]),
            truncated: out["truncated"].as_bool().unwrap_or(false),
            walk_truncated: out["walk_truncated"].as_bool().unwrap_or(false),
            hidden_skipped: u(&out["hidden_skipped"]),
        })
    }

    fn grep(&self, r: fs::GrepRequest) -> Result<fs::GrepResult, Error> {
        let mode = r.output_mode.map(|m| {
            Value::from(match m {
                fs::GrepOutputMode::FilesWithMatches => "files_with_matches",
                fs::GrepOutputMode::Content => "content",
                fs::GrepOutputMode::Count => "count",
            })
        });
        let a = args(&[
            ("pattern", Some(Value::from(r.pattern))),
            ("path", r.path.map(Value::from)),
            ("glob", r.glob.map(Value::from)),
            ("exclude", r.exclude.map(Value::from)),
            ("type", r.file_type.map(Value::from)),
            ("fixed", r.fixed.map(Value::from)),
            ("case_insensitive", r.case_insensitive.map(Value::from)),
            ("multiline", r.multiline.map(Value::from)),
            ("before", r.before.map(Value::from)),
            ("after", r.after.map(Value::from)),
            ("context", r.context.map(Value::from)),
            ("output_mode", mode),
            ("head_limit", r.head_limit.map(Value::from)),
            ("offset", r.offset.map(Value::from)),
            ("hidden", r.hidden.map(Value::from)),
        ]);
        let o = call(&self.0, "filestore_grep", a)?;
        Ok(read_side::grep_result(&o.json, o.text))
    }

    fn tree(&self, r: fs::TreeRequest) -> Result<String, Error> {
        Ok(call(&self.0, "filestore_tree", tree_args(r))?.text)
    }

    fn tree_nodes(&self, r: fs::TreeRequest) -> Result<fs::TreeResult, Error> {
        let req = crate::ops::request::decode("filestore_tree", &tree_args(r));
        let t = req.and_then(|req| self.0.tree_nodes(&req)).map_err(to_wit_error)?;
        Ok(read_side::tree_result(t))
    }

    fn write(&self, r: fs::WriteRequest) -> Result<Entry, Error> {
        let a = args(&[
            ("path", Some(Value::from(r.path))),
            ("content", Some(Value::from(r.content))),
            ("create_only", r.create_only.map(Value::from)),
        ]);
        Ok(entry_of(&call(&self.0, "filestore_write", a)?.json["entry"]))
    }

    fn edit(&self, r: fs::EditRequest) -> Result<fs::EditResult, Error> {
        let edits: Vec<Value> = r
            .edits
            .into_iter()
            .map(|e| json!({"old_string": e.old_string, "new_string": e.new_string, "replace_all": e.replace_all.unwrap_or(false)}))
            .collect();
        let a = args(&[
            ("path", Some(Value::from(r.path))),
            ("edits", Some(Value::Array(edits))),
            ("dry_run", r.dry_run.map(Value::from)),
        ]);
        let j = call(&self.0, "filestore_edit", a)?.json;
        Ok(fs::EditResult {
            entry: entry_of(&j["entry"]),
            replacements: u(&j["replacements"]) as u32,
            diff: j["diff"].as_str().unwrap_or_default().to_string(),
            diff_note: j["diff_note"].as_str().map(str::to_string),
            written: j["written"].as_bool().unwrap_or(false),
        })
    }

    fn delete(&self, path: String, recursive: bool) -> Result<(), Error> {
        call(&self.0, "filestore_delete", json!({"path": path, "recursive": recursive})).map(|_| ())
    }

    fn move_(&self, source: String, destination: String, overwrite: bool) -> Result<Entry, Error> {
        let j = call(
            &self.0,
            "filestore_move",
            json!({"source": source, "destination": destination, "overwrite": overwrite}),
        )?
        .json;
        Ok(entry_of(&j["entry"]))
    }

    fn call(&self, tool: String, arguments: String) -> Result<fs::CallOutput, Error> {
        let (json, text) = self.0.call_json(&tool, &arguments).map_err(to_wit_error)?;
        Ok(fs::CallOutput { json, text })
    }

    fn tool_specs(&self) -> String {
        serde_json::to_string(&self.0.tool_specs()).unwrap_or_else(|_| "[]".into())
    }
}
