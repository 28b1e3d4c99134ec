//! The component glue: the only module that names generated WIT types.
//!
//! It implements the guest [`Volume`](crate::vfs::volume::Volume) trait over the imported
//! `volume` resource and exports the `filestore` interface over [`Session`]. Requests
//! arrive as WIT records and are turned into the JSON argument objects the operation
//! modules decode, so defaults and validation live in one place (the request types).

use serde_json::{Map, Value, json};

use crate::error::{Error as DomError, ErrorKind, Result as DomResult};
use crate::session::Session as DomSession;
use crate::vfs::checked::Checked;
use crate::vfs::entry::{Entry as DomEntry, EntryKind};
use crate::vfs::limits::Limits as DomLimits;
use crate::vfs::volume::{PackedWalk, Walk, WriteOptions as DomWriteOptions};

wit_bindgen::generate!({
    path: "../wit",
    world: "filestore-component",
});

use exports::filestore::component::filestore as fs;
use filestore::component::types::{Entry, EntryKind as WitKind, Error};
use filestore::component::volume as wv;

struct Component;
export!(Component);

// ---- errors and entries -------------------------------------------------------

crate::wit_error_conversions!(Error);

fn to_wit_error(e: DomError) -> Error {
    kind_to_wit(e.kind(), e.to_string())
}

/// A volume error about `path`: the host sends the message without the path.
fn from_wit_error(e: Error, path: &str) -> DomError {
    let (kind, m) = kind_from_wit(e);
    DomError::at(kind, path, m)
}

fn to_wit_entry(e: DomEntry) -> Entry {
    Entry {
        path: e.path,
        kind: match e.kind {
            EntryKind::File => WitKind::File,
            EntryKind::Directory => WitKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.map(|a| a.to_string()),
    }
}

fn from_wit_entry(e: Entry) -> DomEntry {
    DomEntry {
        path: e.path,
        kind: match e.kind {
            WitKind::File => EntryKind::File,
            WitKind::Directory => EntryKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.and_then(|a| serde_json::from_str(&a).ok()),
    }
}

// ---- the imported volume as a guest Volume ---------------------------------------

// Every mounted volume is wrapped in `Checked` (see `vfs::checked`): whatever language
// the host's volume is written in, an answer that breaks the contract becomes a
// `backend` error of that call instead of something the component acts on.

struct WitVolume(wv::Volume);

impl crate::vfs::volume::Volume for WitVolume {
    fn identity(&self) -> Option<crate::vfs::volume::VolumeIdentity> {
        self.0
            .identity()
            .map(|i| crate::vfs::volume::VolumeIdentity { storage: i.storage, root: i.root })
    }
    fn stat(&self, path: &str) -> DomResult<DomEntry> {
        self.0.stat(path).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn list(&self, path: &str) -> DomResult<Vec<DomEntry>> {
        self.0
            .list_dir(path)
            .map(|v| v.into_iter().map(from_wit_entry).collect())
            .map_err(|e| from_wit_error(e, path))
    }
    fn walk(&self, path: &str, max_entries: usize) -> DomResult<Walk> {
        let max = u32::try_from(max_entries).unwrap_or(u32::MAX);
        self.0
            .walk(path, max)
            .map(|w| Walk {
                entries: w.entries.into_iter().map(from_wit_entry).collect(),
                truncated: w.truncated,
            })
            .map_err(|e| from_wit_error(e, path))
    }
    fn walk_packed(&self, path: &str, max_entries: usize) -> DomResult<PackedWalk> {
        let max = u32::try_from(max_entries).unwrap_or(u32::MAX);
        let w = self.0.walk_packed(path, max).map_err(|e| from_wit_error(e, path))?;
        Ok(PackedWalk {
            paths: w.paths,
            path_lens: w.path_lens,
            sizes: w.sizes,
            modified_ms: w.modified_ms,
            entry_flags: w.entry_flags,
            entry_types: w.entry_types,
            // As `from_wit_entry`: attributes that are not JSON are left out.
            attributes: w
                .attributes
                .into_iter()
                .filter_map(|(i, a)| serde_json::from_str(&a).ok().map(|v| (i, v)))
                .collect(),
            truncated: w.truncated,
        })
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> DomResult<Vec<u8>> {
        self.0.read(path, offset, len).map_err(|e| from_wit_error(e, path))
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> DomResult<(DomEntry, Vec<u8>)> {
        self.0
            .stat_read(path, offset, len)
            .map(|r| (from_wit_entry(r.entry), r.data))
            .map_err(|e| from_wit_error(e, path))
    }
    fn write(&self, path: &str, content: &[u8], options: &DomWriteOptions) -> DomResult<DomEntry> {
        let opts = wv::WriteOptions {
            create_only: options.create_only,
            read_only: options.read_only,
            entry_type: options.entry_type.clone(),
            attributes: options.attributes.as_ref().map(|a| a.to_string()),
        };
        self.0.write(path, content, &opts).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn delete(&self, path: &str, recursive: bool) -> DomResult<()> {
        self.0.delete(path, recursive).map_err(|e| from_wit_error(e, path))
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> DomResult<()> {
        self.0.rename(from, to, overwrite).map_err(|e| from_wit_error(e, from))
    }
    fn create_dir(&self, path: &str) -> DomResult<DomEntry> {
        self.0.create_dir(path).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn prefetch(&self, files: &[crate::vfs::volume::PrefetchFile]) {
        let files: Vec<wv::PrefetchFile> =
            files.iter().map(|f| wv::PrefetchFile { path: f.path.clone(), size: f.size }).collect();
        self.0.prefetch(&files)
    }
}

// ---- the exported session --------------------------------------------------------

/// The exported resource: a domain session.
pub struct SessionResource(DomSession);

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

/// A running shell command's output, to the imported `shell-output`.
fn emit_shell_output(stream: crate::shell::stream::Stream, chunk: &[u8]) {
    use filestore::component::shell_output as so;
    let stream = match stream {
        crate::shell::stream::Stream::Stdout => so::OutputStream::Stdout,
        crate::shell::stream::Stream::Stderr => so::OutputStream::Stderr,
    };
    so::emit(stream, chunk);
}

impl fs::GuestSession for SessionResource {
    fn create(mounts: Vec<fs::Mount>, limits: fs::Limits) -> Result<fs::Session, Error> {
        crate::shell::stream::set_sink(emit_shell_output);
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
            s.mount(&m.point, Box::new(Checked::new(WitVolume(m.volume))), m.priority, m.read_only)
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
        // Typed all the way (issue 20): the request and the result never pass through
        // JSON, unlike `call`; the defaults are the JSON request's.
        let req = crate::ops::read::ReadRequest {
            path: r.path,
            offset: r.offset.map_or(1, u64::from),
            limit: r.limit.map_or(crate::vfs::limits::DEFAULT_READ_LINES as u64, u64::from),
            raw: r.raw.unwrap_or(false),
            tail: r.tail.map(u64::from),
            encoding: Default::default(),
            byte_offset: 0,
            max_bytes: None,
        };
        let (out, _activation) = self.0.read_tool(&req).map_err(to_wit_error)?;
        use crate::ops::read::ReadContent as C;
        let content = match out.content {
            C::Empty => fs::ReadContent::Empty,
            C::Binary => fs::ReadContent::Binary,
            C::Raw => fs::ReadContent::Raw,
            C::Text | C::Base64 => fs::ReadContent::Text,
        };
        Ok(fs::ReadResult {
            entry: to_wit_entry(out.entry),
            content,
            text: out.text,
            total_lines: out.total_lines,
            start_line: out.start_line,
            end_line: out.end_line,
            next_offset: out.next_offset,
            truncated: out.truncated,
            cut_lines: out.cut_lines,
            lossy_lines: out.lossy_lines,
        })
    }

    fn glob(&self, r: fs::GlobRequest) -> Result<fs::GlobResult, Error> {
        let a = args(&[
            ("pattern", Some(Value::from(r.pattern))),
            ("path", r.path.map(Value::from)),
            ("limit", r.limit.map(Value::from)),
            ("exclude", r.exclude.map(Value::from)),
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
        ]);
        let o = call(&self.0, "filestore_grep", a)?;
        let j = &o.json;
        let files = j["files"]
            .as_array()
            .map(|v| v.iter().filter_map(|p| p.as_str().map(String::from)).collect())
            .unwrap_or_default();
        let lines = j["lines"]
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|l| fs::GrepLine {
                        path: l["path"].as_str().unwrap_or_default().to_string(),
                        line: u(&l["line"]),
                        text: l["text"].as_str().unwrap_or_default().to_string(),
                        is_context: l["is_context"].as_bool().unwrap_or(false),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let counts = j["counts"]
            .as_array()
            .map(|v| {
                v.iter()
                    .map(|c| fs::GrepCount {
                        path: c["path"].as_str().unwrap_or_default().to_string(),
                        count: u(&c["count"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(fs::GrepResult {
            files,
            lines,
            counts,
            files_searched: u(&j["files_searched"]),
            truncated: j["truncated"].as_bool().unwrap_or(false),
            next_offset: j["next_offset"].as_u64().map(|v| v as u32),
            rendered: o.text,
        })
    }

    fn tree(&self, r: fs::TreeRequest) -> Result<String, Error> {
        let a = args(&[
            ("path", r.path.map(Value::from)),
            ("max_depth", r.max_depth.map(Value::from)),
            ("max_files_per_folder", r.max_files_per_folder.map(Value::from)),
            ("exclude", r.exclude.map(Value::from)),
        ]);
        Ok(call(&self.0, "filestore_tree", a)?.text)
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

// ---- diagnostics (test and benchmark hooks) ---------------------------------------

use exports::filestore::component::diagnostics as diag;

/// Memory kept by `diagnostics.allocate` until `release`.
static HELD: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

impl diag::Guest for Component {
    fn spin(iterations: u64) -> u64 {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut i = 0u64;
        while i < iterations {
            x = std::hint::black_box(x.rotate_left(5) ^ i);
            i += 1;
        }
        x
    }

    fn allocate(bytes: u64) -> u64 {
        // Touch one byte per 4 KiB so the pages really exist; growth past the cap
        // makes the allocator fail, which aborts (a trap the host reports).
        let mut v = vec![0u8; bytes as usize];
        for b in v.iter_mut().step_by(4096) {
            *b = 1;
        }
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        held.push(std::hint::black_box(v));
        held.iter().map(|v| v.len() as u64).sum()
    }

    fn release() {
        HELD.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn observe_ambient() -> diag::Ambient {
        diag::Ambient {
            env_names: std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned()).collect(),
            args: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        }
    }
}

// ---- tools (configuration, listing, invocation) ------------------------------------

use exports::filestore::component::tools as wt;
use filestore::component::tool_host as th;

use crate::invoke::{self, ExternalCall, InvokeOutcome, InvokeStatus};
use crate::tools::config::{CheckReport, ConfigError};
use crate::tools::toolrefs::{ActionInfo, CallRef, ConnectionStatus};

/// The imported `tool-host` as the guest's executor and connection checker.
struct WitToolHost;

impl invoke::ToolExecutor for WitToolHost {
    fn call(&self, c: &ExternalCall) -> DomResult<String> {
        let call = th::ToolCall {
            tool_name: c.tool_name.clone(),
            tool_type: c.tool_type.clone(),
            source: c.source.clone(),
            call_ref: c.call_ref.clone(),
            config: c.config.to_string(),
            arguments: c.arguments.to_string(),
            positional: Value::Array(c.positional.clone()).to_string(),
            statement: c.statement.clone(),
            path: c.path.clone(),
            context: th::CallContext {
                session_id: String::new(),
                tool_call_id: Some(c.tool_call_id.clone()),
                claims: c.claims.to_string(),
            },
        };
        th::call(&call).map_err(|e| {
            let d = from_wit_error(e, "");
            DomError::new(d.kind(), d.message().to_string())
        })
    }
}

impl crate::tools::toolrefs::ConnectionChecker for WitToolHost {
    fn check(&self, call_ref: &CallRef) -> DomResult<ConnectionStatus> {
        match th::check_connection(&call_ref.to_string()) {
            Ok(th::ConnectionStatus::Active(actions)) => actions
                .into_iter()
                .map(|a| action_info(call_ref, a))
                .collect::<DomResult<Vec<_>>>()
                .map(ConnectionStatus::Active),
            Ok(th::ConnectionStatus::Inactive(reason)) => Ok(ConnectionStatus::Inactive { reason }),
            Ok(th::ConnectionStatus::Missing) => Ok(ConnectionStatus::Missing),
            Err(e) => {
                let d = from_wit_error(e, "");
                Err(DomError::new(d.kind(), d.message().to_string()))
            }
        }
    }
}

/// One catalog entry from the host, checked: its action is a valid segment and its
/// schema and hints are JSON objects (a host's mistake is a `backend` error naming it).
fn action_info(call_ref: &CallRef, a: th::ProviderAction) -> DomResult<ActionInfo> {
    let bad = |what: String| {
        DomError::new(
            ErrorKind::Backend,
            format!("the host's catalog entry for {call_ref}: {what}"),
        )
    };
    if !crate::tools::toolrefs::is_valid_segment(&a.action) {
        return Err(bad(format!("action '{}' is not a valid call-ref segment", a.action)));
    }
    let object = |what: &str, text: &str| match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err(bad(format!("{what} of action '{}' is not a JSON object", a.action))),
    };
    let input_schema = object("the input schema", &a.input_schema)?;
    let annotations = match &a.annotations {
        None => None,
        Some(text) => Some(
            serde_json::from_value(object("the annotations", text)?)
                .map_err(|e| bad(format!("the annotations of action '{}': {e}", a.action)))?,
        ),
    };
    Ok(ActionInfo {
        action: a.action,
        title: a.title,
        description: Some(a.description),
        input_schema: Some(input_schema),
        annotations,
    })
}

fn wit_variables(vars: Vec<wt::ConfigVariable>) -> crate::tools::config::variables::Variables {
    vars.into_iter().map(|v| (v.name, v.value)).collect()
}

fn wit_files(files: &[wt::ConfigFile]) -> Vec<(&str, &str)> {
    files.iter().map(|f| (f.name.as_str(), f.text.as_str())).collect()
}

fn config_kind(e: &ConfigError) -> String {
    // `Debug` of the kind is its CamelCase name; the WIT uses kebab-case.
    let mut out = String::new();
    for (i, c) in format!("{:?}", e.kind).chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn wit_config_errors(errors: Vec<ConfigError>) -> Vec<wt::ConfigError> {
    errors
        .into_iter()
        .map(|e| wt::ConfigError {
            file: e.location.file.clone(),
            document: e.location.document as u32,
            line: e.location.line as u32,
            column: e.location.column as u32,
            field: e.field.clone(),
            kind: config_kind(&e),
            message: e.message.clone(),
            rendered: e.to_string(),
        })
        .collect()
}

fn wit_report(config: &crate::tools::config::Config, report: &CheckReport) -> wt::ConfigReport {
    wt::ConfigReport {
        sources: config
            .sources()
            .iter()
            .map(|s| wt::SourceConfig {
                name: s.name.clone(),
                source_type: s.source_type.clone(),
                fields: Value::Object(s.fields.clone()).to_string(),
            })
            .collect(),
        auth_services: config.auth_services().len() as u32,
        toolsets: config.toolsets().iter().map(|t| t.name.clone()).collect(),
        tools: report
            .tools
            .iter()
            .map(|t| wt::ToolStatus {
                name: t.name.clone(),
                tool_type: t.tool_type.clone(),
                source: t.source.clone(),
                runnable: t.runnable,
                file: t.location.file.clone(),
                document: t.location.document as u32,
                line: t.location.line as u32,
                column: t.location.column as u32,
            })
            .collect(),
        rendered: report.to_string(),
        v2_yaml: config.to_v2_yaml(),
    }
}

fn wit_agent_report(r: &invoke::AgentReport) -> wt::AgentReport {
    wt::AgentReport {
        name: r.config.name.clone(),
        description: r.config.description.clone(),
        servers: r
            .servers()
            .iter()
            .map(|s| wt::AgentServer {
                name: s.name.clone(),
                transport: s.transport.as_str().to_string(),
                fields: Value::Object(s.fields.clone()).to_string(),
                line: s.location.line as u32,
                column: s.location.column as u32,
            })
            .collect(),
        entries: r
            .config
            .entries
            .iter()
            .map(|e| wt::AgentEntry {
                section: e.section.as_str().to_string(),
                index: e.index as u32,
                text: e.text.clone(),
                call_ref: match &e.tool_ref {
                    crate::tools::toolrefs::ToolRef::Provider(p) => Some(p.call_ref.to_string()),
                    crate::tools::toolrefs::ToolRef::Named(_) => None,
                },
                optional: e.optional(),
                line: e.location.line as u32,
                column: e.location.column as u32,
            })
            .collect(),
        offered: r.offered.clone(),
        available: r.available.clone(),
        warnings: r.warnings.clone(),
        rendered: r.rendered(),
    }
}

fn wit_outcome(o: InvokeOutcome) -> wt::InvokeOutcome {
    wt::InvokeOutcome {
        status: match o.status {
            InvokeStatus::Completed => wt::InvokeStatus::Completed,
            InvokeStatus::Failed => wt::InvokeStatus::Failed,
            InvokeStatus::Pending => wt::InvokeStatus::Pending,
        },
        envelope: o.envelope.to_string(),
        text: o.text,
        error: o.error.map(to_wit_error),
        approval_id: o.approval_id,
        result_path: o.result_path,
        offloaded: o.offloaded,
    }
}

fn parse_json(what: &str, text: &str) -> Result<Value, Error> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|e| {
        to_wit_error(DomError::new(
            ErrorKind::InvalidArgument,
            format!("{what} is not valid JSON: {e}"),
        ))
    })
}

impl wt::Guest for Component {
    fn load_config(
        s: wt::SessionBorrow<'_>,
        files: Vec<wt::ConfigFile>,
        variables: Vec<wt::ConfigVariable>,
    ) -> Result<wt::ConfigReport, Vec<wt::ConfigError>> {
        let session = &s.get::<SessionResource>().0;
        invoke::load_config(session, &wit_files(&files), &wit_variables(variables))
            .map_err(wit_config_errors)?;
        let st = session.tool_state().borrow();
        let config = st.config().expect("just loaded");
        Ok(wit_report(config, &config.check_report()))
    }

    fn check_config(
        files: Vec<wt::ConfigFile>,
        variables: Vec<wt::ConfigVariable>,
    ) -> Result<wt::ConfigReport, Vec<wt::ConfigError>> {
        let config = crate::tools::config::Config::load_with_variables(
            &wit_files(&files),
            &wit_variables(variables),
        )
        .map_err(wit_config_errors)?;
        Ok(wit_report(&config, &config.check_report()))
    }

    fn select_toolset(s: wt::SessionBorrow<'_>, toolset: Option<String>) -> Result<(), Error> {
        invoke::select_toolset(&s.get::<SessionResource>().0, toolset.as_deref())
            .map_err(to_wit_error)
    }

    fn list_tools(s: wt::SessionBorrow<'_>, toolset: Option<String>) -> Result<String, Error> {
        let specs = invoke::list_tools(&s.get::<SessionResource>().0, toolset.as_deref())
            .map_err(to_wit_error)?;
        Ok(Value::Array(specs).to_string())
    }

    fn check_agent(file: wt::ConfigFile) -> Result<wt::AgentReport, Vec<wt::ConfigError>> {
        let report = invoke::check_agent(&file.name, &file.text).map_err(wit_config_errors)?;
        Ok(wit_agent_report(&report))
    }

    fn load_agent(
        s: wt::SessionBorrow<'_>,
        file: wt::ConfigFile,
        lenient: bool,
    ) -> Result<wt::AgentReport, Vec<wt::ConfigError>> {
        let session = &s.get::<SessionResource>().0;
        let report = invoke::load_agent(session, &file.name, &file.text, &WitToolHost, lenient)
            .map_err(wit_config_errors)?;
        Ok(wit_agent_report(&report))
    }

    fn resolve_refs(s: wt::SessionBorrow<'_>, refs: String) -> Result<String, Error> {
        let refs = parse_json("refs", &refs)?;
        let resolved = invoke::resolve(&s.get::<SessionResource>().0, &refs, &WitToolHost)
            .map_err(to_wit_error)?;
        let out: Vec<Value> = resolved
            .iter()
            .map(|r| {
                json!({"name": r.name, "spec": r.spec.to_json(),
                       "call_ref": r.call_ref.as_ref().map(|c| c.to_string())})
            })
            .collect();
        Ok(Value::Array(out).to_string())
    }

    fn invoke(
        s: wt::SessionBorrow<'_>,
        name: String,
        arguments: String,
        context: wt::InvokeContext,
    ) -> Result<wt::InvokeOutcome, Error> {
        let args = parse_json(&format!("arguments of '{name}'"), &arguments)?;
        let claims = parse_json("claims", &context.claims)?;
        let ctx = invoke::InvokeContext { tool_call_id: context.tool_call_id, claims };
        Ok(wit_outcome(invoke::invoke(
            &s.get::<SessionResource>().0,
            &name,
            &args,
            &ctx,
            &WitToolHost,
        )))
    }

    fn approve(s: wt::SessionBorrow<'_>, approval_id: String) -> Result<wt::InvokeOutcome, Error> {
        invoke::approve(&s.get::<SessionResource>().0, &approval_id, &WitToolHost)
            .map(wit_outcome)
            .map_err(to_wit_error)
    }

    fn reject(s: wt::SessionBorrow<'_>, approval_id: String) -> Result<(), Error> {
        invoke::reject(&s.get::<SessionResource>().0, &approval_id).map_err(to_wit_error)
    }

    fn list_prompts(s: wt::SessionBorrow<'_>) -> Vec<wt::PromptSpec> {
        invoke::list_prompts(&s.get::<SessionResource>().0)
            .into_iter()
            .map(|p| wt::PromptSpec {
                name: p.name,
                description: p.description,
                arguments: p
                    .arguments
                    .into_iter()
                    .map(|(name, description, required)| wt::PromptArgument {
                        name,
                        description,
                        required,
                    })
                    .collect(),
            })
            .collect()
    }

    fn get_prompt(
        s: wt::SessionBorrow<'_>,
        name: String,
        arguments: String,
    ) -> Result<Vec<wt::PromptMessage>, Error> {
        let arguments = parse_json("arguments", &arguments)?;
        let messages = invoke::get_prompt(&s.get::<SessionResource>().0, &name, &arguments)
            .map_err(to_wit_error)?;
        Ok(messages
            .into_iter()
            .map(|(role, content)| wt::PromptMessage { role, content })
            .collect())
    }

    fn tools_version(s: wt::SessionBorrow<'_>) -> u64 {
        invoke::tools_version(&s.get::<SessionResource>().0)
    }

    fn active_skills(s: wt::SessionBorrow<'_>) -> Vec<String> {
        invoke::active_skills(&s.get::<SessionResource>().0)
    }

    fn restore_skills(s: wt::SessionBorrow<'_>, paths: Vec<String>) -> Vec<Error> {
        invoke::restore_skills(&s.get::<SessionResource>().0, &paths)
            .into_iter()
            .map(to_wit_error)
            .collect()
    }

    fn system_prompt(
        s: wt::SessionBorrow<'_>,
        max_depth: Option<u32>,
        max_files_per_folder: Option<u32>,
    ) -> Result<String, Error> {
        s.get::<SessionResource>()
            .0
            .system_prompt(max_depth.unwrap_or(3), max_files_per_folder.unwrap_or(3))
            .map_err(to_wit_error)
    }

    fn set_offload_tokens(s: wt::SessionBorrow<'_>, tokens: u32) {
        s.get::<SessionResource>().0.tool_state().borrow_mut().set_offload_tokens(tokens as usize);
    }

    fn enable_shell(s: wt::SessionBorrow<'_>, enabled: bool) {
        s.get::<SessionResource>().0.enable_shell(enabled);
    }
}
