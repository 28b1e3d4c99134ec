//! A session: one agent's view of the filestore — its mounts, its limits, and every
//! operation on them, typed and through one generic JSON entry point.

use std::sync::Arc;

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::invoke::builtins::{self, BuiltinHost, serialising};
use crate::ops::builtin::ToolSpec;
use crate::ops::edit::{self, EditRequest, EditResult};
use crate::ops::glob::{self, GlobRequest, GlobResult};
use crate::ops::grep::{self, GrepRequest, GrepResult};
use crate::ops::ls::{self, LsRequest, LsResult};
use crate::ops::mutate::{self, DeleteRequest, MoveRequest, MutationResult, WriteRequest};
use crate::ops::path_hint;
use crate::ops::read::{self, MAX_READ_PATHS, ReadRequest, ReadResult};
use crate::ops::request::decode;
use crate::ops::tree::{self, TreeRequest, TreeResult};
use crate::shell;
use crate::vfs::entry::Entry;
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;
use crate::vfs::volume::Volume;

pub use crate::ops::ToolOutput;

/// Mounts + limits + operations.
#[derive(Debug, Default)]
pub struct Session {
    /// Shared with a running shell command's filesystem (crate::shell), which needs
    /// an owned handle; only [`Session::mount`] changes it, between calls.
    mounts: Arc<MountTable>,
    limits: Limits,
    /// Configured, dynamic and pending tools (see [`crate::invoke`]).
    tools: crate::invoke::ToolStateCell,
    /// What the shell's `chmod` set this session (volumes keep no permission bits).
    shell_modes: Arc<shell::Modes>,
}

/// A read of several files names 1 to [`MAX_READ_PATHS`] of them.
fn check_read_paths(n: usize) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid_argument("paths", "must be a non-empty list of file paths"));
    }
    if n > MAX_READ_PATHS {
        return Err(Error::invalid_argument(
            "paths",
            format!("at most {MAX_READ_PATHS} files per call, got {n}"),
        ));
    }
    Ok(())
}

impl Session {
    /// A session with no mounts.
    pub fn new(limits: Limits) -> Session {
        Session {
            mounts: Arc::new(MountTable::new()),
            limits,
            tools: Default::default(),
            shell_modes: Default::default(),
        }
    }

    /// Mounts a volume (see [`MountTable::add`]).
    pub fn mount(
        &mut self,
        point: &str,
        volume: Box<dyn Volume>,
        priority: i32,
        read_only: bool,
    ) -> Result<()> {
        Arc::get_mut(&mut self.mounts)
            .ok_or_else(|| {
                Error::new(ErrorKind::Conflict, "a shell command still holds the mount table")
            })?
            .add(point, volume, priority, read_only)
    }

    /// Mounts a copy-on-write view of `lower` whose changes land in `upper` (see
    /// [`crate::vfs::cow`]): writable, and offering `filestore_diff`.
    pub fn mount_cow(
        &mut self,
        point: &str,
        lower: Box<dyn Volume>,
        upper: Box<dyn Volume>,
        priority: i32,
    ) -> Result<()> {
        let cow = Arc::new(crate::vfs::cow::CowVolume::new(lower, upper)?);
        Arc::get_mut(&mut self.mounts)
            .ok_or_else(|| {
                Error::new(ErrorKind::Conflict, "a shell command still holds the mount table")
            })?
            .add_cow(point, cow, priority)
    }

    /// The mount table as a shared handle (for the shell's filesystem).
    pub fn mounts_shared(&self) -> Arc<MountTable> {
        Arc::clone(&self.mounts)
    }

    /// The mount table.
    pub fn mounts(&self) -> &MountTable {
        &self.mounts
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The permission bits the shell's `chmod` set, by virtual path (see
    /// [`shell::Modes`]): what a host hands to a session replacing this one.
    pub fn shell_modes(&self) -> Vec<(String, u32)> {
        self.shell_modes.entries()
    }

    /// Replaces the shell's permission bits with recorded ones.
    pub fn restore_shell_modes(&self, modes: Vec<(String, u32)>) {
        self.shell_modes.replace(modes)
    }

    /// The session's tool state: configuration, dynamic tools, pending approvals
    /// (used by [`crate::invoke`]).
    pub fn tool_state(&self) -> &crate::invoke::ToolStateCell {
        &self.tools
    }

    /// Whether any mount accepts writes (decides whether mutating tools are offered).
    pub fn writable(&self) -> bool {
        self.mounts.any_writable()
    }

    /// Specs of the built-in tools this session offers.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        builtins::specs(self.writable(), self.shell_enabled(), self.mounts.has_cow())
    }

    /// Offers (or withdraws) `filestore_execute`, the shell (off by default: a host
    /// enables it, see [`crate::shell`]). A change grows the tools version.
    pub fn enable_shell(&self, enabled: bool) {
        let mut st = self.tools.borrow_mut();
        if st.shell != enabled {
            st.shell = enabled;
            st.version += 1;
        }
    }

    /// Whether `filestore_execute` is offered.
    pub fn shell_enabled(&self) -> bool {
        self.tools.borrow().shell
    }

    /// `filestore_execute`: runs a shell command over the mounts. A cut output is
    /// stored whole under `/tool_calls/filestore_execute/` (when the session has a
    /// results volume) and the answer names the file; a `SKILL.md` the command read
    /// activates its skill as `filestore_read` does.
    pub fn execute(&self, req: &shell::ExecuteRequest) -> Result<shell::ExecuteResult> {
        if !self.shell_enabled() {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "tool '{}' is not enabled in this session (a host offers it on request: `serve --shell`, or `filestore call {0}`)",
                    shell::TOOL
                ),
            ));
        }
        let ran =
            shell::execute(self.mounts_shared(), &self.limits, Arc::clone(&self.shell_modes), req)?;
        let stored = if ran.is_long() { self.store_output(&ran)? } else { None };
        let mut r = ran.answer(stored.as_deref());
        // The command has run (and may have written): a skill that cannot be
        // activated is said on stderr, never turned into an error losing the output.
        for path in &ran.skills_read {
            match crate::invoke::activate_skill(self, path) {
                Ok(a) => r.activations.push(a),
                Err(e) => r.stderr.push_str(&format!(
                    "[skill {path} not activated: error[{}]: {}]\n",
                    e.kind().as_str(),
                    e.message()
                )),
            }
        }
        Ok(r)
    }

    /// Stores a command's whole output as a tool result; `None` without a results
    /// volume.
    fn store_output(&self, ran: &shell::Executed) -> Result<Option<String>> {
        use crate::invoke::results;
        if !results::has_results_volume(&self.mounts) {
            return Ok(None);
        }
        let id = crate::invoke::next_call_id(self, shell::TOOL);
        let stored = results::store(&self.mounts, shell::TOOL, &id, "shell_output", &ran.whole())?;
        Ok(stored.map(|s| s.path))
    }

    /// Metadata of one path.
    pub fn stat(&self, path: &str) -> Result<Entry> {
        self.mounts.stat(&paths::normalize(path)?)
    }
    /// `filestore_ls`.
    pub fn ls(&self, req: &LsRequest) -> Result<LsResult> {
        ls::ls(&self.mounts, req)
    }
    /// `filestore_read`.
    pub fn read(&self, req: &ReadRequest) -> Result<ReadResult> {
        read::read(&self.mounts, &self.limits, req)
    }
    /// A page of a file's bytes (the typed `read-bytes`; `filestore_read` with
    /// `encoding: "base64"` is the same page as base64).
    pub fn read_bytes(
        &self,
        path: &str,
        offset: u64,
        max_bytes: Option<u64>,
    ) -> Result<read::BytePage> {
        read::read_byte_page(&self.mounts, &self.limits, path, (offset, "offset"), max_bytes)
    }
    /// `filestore_read` as the tool runs it: the page, and, when the file is a
    /// skill's `SKILL.md`, the skill's activation (reading a skill activates its
    /// tools, docs/architecture.md#skills). The JSON entry point and the typed WIT
    /// `read` both use it.
    ///
    /// Only a skill served by the mount at
    /// [`SKILLS_ROOT`](crate::skills::prompt::SKILLS_ROOT), the mount the host gives
    /// that role, is activated: an entry typed `skill` anywhere else (a volume that
    /// others write, an embedder's workspace, a volume mounted at `/` holding a
    /// `skills` folder) enables nothing, whatever its metadata says.
    pub fn read_tool(
        &self,
        req: &ReadRequest,
    ) -> Result<(ReadResult, Option<crate::skills::active::Activation>)> {
        let r = self.read(req)?;
        if r.entry.entry_type == crate::skills::skill::TYPE_SKILL
            && self.served_by_skills_mount(&r.entry.path)
        {
            let act = crate::invoke::activate_skill(self, &r.entry.path)?;
            return Ok((r, Some(act)));
        }
        Ok((r, None))
    }
    /// Whether the file at `path` comes from a mount at (or beneath) the skills
    /// root, not from a mount above it that happens to hold a `skills` folder.
    fn served_by_skills_mount(&self, path: &str) -> bool {
        let root = crate::skills::prompt::SKILLS_ROOT;
        paths::is_within(path, root)
            && self.mounts.resolve_file(path).is_ok_and(|r| paths::is_within(&r.mount.point, root))
    }
    /// `filestore_glob`.
    pub fn glob(&self, req: &GlobRequest) -> Result<GlobResult> {
        glob::glob(&self.mounts, &self.limits, req)
    }
    /// `filestore_grep`.
    pub fn grep(&self, req: &GrepRequest) -> Result<GrepResult> {
        grep::grep(&self.mounts, &self.limits, req)
    }
    /// `filestore_tree`.
    pub fn tree(&self, req: &TreeRequest) -> Result<TreeResult> {
        tree::tree(&self.mounts, &self.limits, req)
    }
    /// The tree of `filestore_tree` as data (the typed `tree-nodes`).
    pub fn tree_nodes(&self, req: &TreeRequest) -> Result<crate::ops::tree_nodes::TreeNodes> {
        crate::ops::tree_nodes::tree_nodes(&self.mounts, &self.limits, req)
    }
    /// `filestore_write`.
    pub fn write(&self, req: &WriteRequest) -> Result<MutationResult> {
        mutate::write(&self.mounts, &self.limits, req)
    }
    /// `filestore_edit`.
    pub fn edit(&self, req: &EditRequest) -> Result<EditResult> {
        edit::edit(&self.mounts, &self.limits, req)
    }
    /// `filestore_mkdir`.
    pub fn mkdir(&self, req: &mutate::MkdirRequest) -> Result<MutationResult> {
        mutate::mkdir(&self.mounts, req)
    }
    /// `filestore_delete`. The shell's `chmod` bits of what it deleted go with it, as
    /// with the shell's `rm`: a file written later at that path is not executable.
    pub fn delete(&self, req: &DeleteRequest) -> Result<MutationResult> {
        let r = mutate::delete(&self.mounts, req)?;
        self.shell_modes.forget(&r.entry.path);
        Ok(r)
    }
    /// `filestore_move`. The shell's `chmod` bits follow the entry, as with the
    /// shell's `mv`.
    pub fn move_entry(&self, req: &MoveRequest) -> Result<MutationResult> {
        let r = mutate::move_entry(&self.mounts, &self.limits, req)?;
        // The source parsed, or the move would have failed.
        if let Ok(from) = paths::normalize(&req.source) {
            self.shell_modes.rename(&from, &r.entry.path);
        }
        Ok(r)
    }

    /// Several files read as [`Session::read_tool`] reads one, in order, each with its
    /// own result or error (one missing file does not fail the others): `request`
    /// makes each file's request from its path. At most [`MAX_READ_PATHS`] files. A
    /// skill's `SKILL.md` among them activates its skill, as a read of it alone does
    /// (an agent batching its reads must not lose the skill's tools). What
    /// `filestore_read` with `paths` and the typed `read-many` both run.
    #[allow(clippy::type_complexity)]
    pub fn read_paths<'p>(
        &self,
        paths: &'p [String],
        request: impl Fn(&str) -> Result<ReadRequest>,
    ) -> Result<Vec<(&'p str, Result<(ReadResult, Option<crate::skills::active::Activation>)>)>>
    {
        check_read_paths(paths.len())?;
        // Pages drawn as images are for one PDF a call: 32 PDFs' images would not
        // fit one answer (nor the sandbox's memory).
        // (`render: "auto"`, the default, is taken as "none" here: a client that
        // fills in defaults sends it with every read.)
        let text_only = |mut r: ReadRequest| {
            r.render = Some(crate::ops::pdf_render::RenderMode::None);
            r
        };
        Ok(paths
            .iter()
            .map(|p| {
                let read = request(p).map(text_only).and_then(|r| self.read_tool(&r));
                (p.as_str(), read.map_err(|e| path_hint::explain(&self.mounts, p, e)))
            })
            .collect())
    }

    /// `filestore_read` with `paths` (see [`Session::read_paths`]).
    fn read_many(&self, args: &Value) -> Result<ToolOutput> {
        let mut rest = args.as_object().cloned().unwrap_or_default();
        let paths = rest.remove("paths").unwrap_or_default();
        if rest.contains_key("path") {
            return Err(Error::invalid_argument("paths", "give 'path' or 'paths', not both"));
        }
        let paths = paths.as_array().map(Vec::as_slice).unwrap_or_default();
        check_read_paths(paths.len())?;
        // Byte pages of several files at once would hold several pages (and their
        // base64, twice) in one answer: one file per call, paged.
        if rest.get("render").is_some_and(|r| r == "all") {
            return Err(Error::invalid_argument(
                "render",
                "pages are drawn as images for one PDF per call: give path (several files read as text)",
            ));
        }
        if rest.get("encoding").and_then(Value::as_str) == Some("base64") {
            return Err(Error::invalid_argument(
                "paths",
                "a base64 read returns one file's bytes per call: give path (and page it with byte_offset)",
            ));
        }
        let paths = paths
            .iter()
            .map(|p| {
                p.as_str().map(String::from).ok_or_else(|| {
                    Error::invalid_argument("paths", format!("expected file paths, got {p}"))
                })
            })
            .collect::<Result<Vec<String>>>()?;
        let each = self.read_paths(&paths, |path| {
            let mut one = rest.clone();
            one.insert("path".into(), Value::String(path.to_string()));
            decode::<ReadRequest>("filestore_read", &Value::Object(one))
        })?;
        let mut files = Vec::with_capacity(paths.len());
        let mut text = String::new();
        for (path, read) in each {
            text.push_str(&format!("==> {path} <==\n"));
            match read {
                Ok((r, activation)) => {
                    text.push_str(&read::render(&r));
                    let mut v = serde_json::to_value(&r).unwrap_or_default();
                    v["path"] = Value::String(path.to_string());
                    if let Some(act) = activation {
                        if !text.ends_with('\n') {
                            text.push('\n');
                        }
                        text.push_str(&crate::skills::active::render_activation(&act));
                        v["activation"] = serde_json::to_value(&act).unwrap_or_default();
                    }
                    files.push(v);
                }
                Err(e) => {
                    text.push_str(&format!("error[{}]: {}\n", e.kind().as_str(), e.message()));
                    files.push(serde_json::json!({
                        "path": path,
                        "error": {"kind": e.kind().as_str(), "message": e.message()},
                    }));
                }
            }
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
        Ok(ToolOutput { json: serde_json::json!({ "files": files }), text })
    }

    /// Runs a built-in tool with its arguments as JSON text and its result as JSON
    /// text (the component's `session.call`): the same answer and the same errors as
    /// [`Session::call`] on the parsed text, with the result serialised.
    ///
    /// A `filestore_read` whose text is a plain object of its parameters is decoded
    /// straight into the request and its result serialised straight to text, without
    /// the intermediate `Value`s (in the component those were most of a small
    /// read). Anything that does not decode that way (an error, `paths`, a
    /// duplicate key) takes the general path, so errors keep their exact wording.
    pub fn call_json(&self, tool: &str, args: &str) -> Result<(String, String)> {
        if tool == "filestore_read"
            && args.trim_start().starts_with('{')
            && let Ok(req) = serde_json::from_str::<ReadRequest>(args)
        {
            let (r, activation) =
                self.read_tool(&req).map_err(|e| path_hint::explain(&self.mounts, &req.path, e))?;
            let mut text = read::render(&r);
            let json = match activation {
                None => serde_json::to_string(&r).map_err(serialising)?,
                // A skill's activation joins the result as in `call` (rare: by value).
                Some(act) => {
                    let mut json = serde_json::to_value(&r).map_err(serialising)?;
                    json["activation"] = serde_json::to_value(&act).unwrap_or_default();
                    text.push_str(&crate::skills::active::render_activation(&act));
                    serde_json::to_string(&json).map_err(serialising)?
                }
            };
            return Ok((json, text));
        }
        if tool == "filestore_ls"
            && args.trim_start().starts_with('{')
            && let Ok(req) = serde_json::from_str::<LsRequest>(args)
        {
            // Straight into text, as the read above (no `Value` between).
            let r = self.ls(&req).map_err(|e| path_hint::explain(&self.mounts, &req.path, e))?;
            return if req.details {
                Ok((crate::ops::ls_json::details_json(&r), ls::render(&r)))
            } else {
                let json = serde_json::to_string(&ls::LeanResult::of(&r)).map_err(serialising)?;
                Ok((json, ls::lean_text(&r)))
            };
        }
        let o = self.call(tool, &crate::ops::request::parse_args(tool, args)?)?;
        // `to_string` writes into a buffer; `Value`'s `Display` goes through the
        // formatter a token at a time (a third of a small read's call in wasm).
        Ok((serde_json::to_string(&o.json).map_err(serialising)?, o.text))
    }

    /// Runs a built-in tool by name with JSON arguments. A `not-found` about a
    /// relative path the call named says what it was read as ([`path_hint`]): the
    /// one place every path-taking tool's error goes through.
    pub fn call(&self, tool: &str, args: &Value) -> Result<ToolOutput> {
        self.run_builtin(tool, args).map_err(|mut e| {
            for key in ["path", "source", "destination"] {
                if let Some(raw) = args.get(key).and_then(Value::as_str) {
                    e = path_hint::explain(&self.mounts, raw, e);
                }
            }
            e
        })
    }

    fn run_builtin(&self, tool: &str, args: &Value) -> Result<ToolOutput> {
        builtins::run(self, tool, args)
    }
}

impl Session {
    /// The block for a system prompt (docs/architecture.md#skills): what each offered
    /// tool is for (name and first sentence), the tree from `/` (`filestore_tree`
    /// rules) and the available skills. Deterministic for a given filestore.
    pub fn system_prompt(
        &self,
        max_depth: u32,
        max_files_per_folder: u32,
        skills: &crate::skills::prompt::SkillFilter,
    ) -> Result<String> {
        let specs = crate::invoke::list_tools(self, None)?;
        let tools: Vec<(String, String)> = specs
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap_or_default().to_string(),
                    s["description"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let t = self.tree(&TreeRequest {
            path: "/".into(),
            max_depth,
            max_files_per_folder,
            exclude: Vec::new(),
        })?;
        let mut found = crate::skills::prompt::discover(&self.mounts, &self.limits)?;
        found.retain(|s| skills.admits(s));
        Ok(crate::skills::prompt::render_prompt(&tools, &t.tree, &found))
    }
}

impl crate::invoke::Sandbox for Session {
    fn mounts(&self) -> &MountTable {
        &self.mounts
    }
    fn tool_state(&self) -> &crate::invoke::ToolStateCell {
        &self.tools
    }
    fn call_builtin(&self, name: &str, args: &Value) -> Result<ToolOutput> {
        self.call(name, args)
    }
}

/// What the built-in tools' dispatch ([`builtins::BUILTINS`]) runs on: the session's
/// own operations.
impl BuiltinHost for Session {
    fn mounts(&self) -> &MountTable {
        &self.mounts
    }
    fn limits(&self) -> &Limits {
        &self.limits
    }
    fn read_tool(
        &self,
        req: &ReadRequest,
    ) -> Result<(ReadResult, Option<crate::skills::active::Activation>)> {
        Session::read_tool(self, req)
    }
    fn read_many(&self, args: &Value) -> Result<ToolOutput> {
        Session::read_many(self, args)
    }
    fn delete(&self, req: &DeleteRequest) -> Result<MutationResult> {
        Session::delete(self, req)
    }
    fn move_entry(&self, req: &MoveRequest) -> Result<MutationResult> {
        Session::move_entry(self, req)
    }
    fn execute(&self, req: &shell::ExecuteRequest) -> Result<shell::ExecuteResult> {
        Session::execute(self, req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;
    use crate::vfs::volume::WriteOptions;
    use serde_json::json;

    fn session() -> Session {
        let v = MemoryVolume::new();
        v.insert("/src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
        let mut s = Session::new(Limits::default());
        s.mount("/w", Box::new(v), 0, false).unwrap();
        s
    }

    /// `call_json` (the component's `session.call`) answers exactly what `call` does
    /// on the parsed text, serialised: the direct `filestore_read` path and every
    /// fallback (errors keep their wording).
    #[test]
    fn call_json_is_call_on_text() {
        let s = session();
        let skill = MemoryVolume::new();
        let skill_type = WriteOptions {
            entry_type: Some(crate::skills::skill::TYPE_SKILL.into()),
            ..Default::default()
        };
        skill
            .write(
                "/demo/SKILL.md",
                b"---\nname: demo\ndescription: A demo skill.\n---\nUse it.\n",
                &skill_type,
            )
            .unwrap();
        let mut s2 = Session::new(Limits::default());
        s2.mount("/s", Box::new(skill), 0, false).unwrap();
        let cases = [
            ("filestore_read", r#"{"path": "/w/src/main.rs", "limit": 2}"#),
            ("filestore_read", r#" {"path":"/w/src/main.rs","offset":2,"tail":null}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "raw": true}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "encoding": "base64"}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "path": "/w/nope"}"#),
            ("filestore_read", r#"{"paths": ["/w/src/main.rs", "/w/nope"]}"#),
            ("filestore_read", r#"{"path": "/w/nope.rs"}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "limit": 1.5}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "limit": -1}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "offest": 2}"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs", "offset": null}"#),
            ("filestore_read", r#"["/w/src/main.rs", 1, 2]"#),
            ("filestore_read", r#"{"path": "/w/src/main.rs"} x"#),
            ("filestore_read", "null"),
            ("filestore_read", "   "),
            ("filestore_read", "{"),
            ("filestore_ls", r#"{"path": "/w"}"#),
            ("filestore_ls", r#"{"path": "/w", "details": true, "depth": 3}"#),
            ("filestore_ls", r#"{"path": "/w", "depth": 2, "limit": 2}"#),
            ("filestore_ls", r#"{"path": "/w", "sort_by": "size", "details": true}"#),
            ("filestore_ls", r#"{"path": "/w/nope"}"#),
            ("filestore_ls", r#"{"path": "/w", "bogus": 1}"#),
            ("filestore_glob", r#"{"pattern": "**/*.rs"}"#),
            ("filestore_nope", "{}"),
        ];
        for sess in [&s, &s2] {
            let mut all = cases.to_vec();
            all.push(("filestore_read", r#"{"path": "/s/demo/SKILL.md"}"#));
            for (tool, args) in all {
                let want = if args.trim().is_empty() {
                    Ok(json!({}))
                } else {
                    serde_json::from_str::<Value>(args).map_err(|e| {
                        Error::new(
                            ErrorKind::InvalidArgument,
                            format!("{tool}: arguments are not valid JSON: {e}"),
                        )
                    })
                }
                .and_then(|a| sess.call(tool, &a))
                .map(|o| (o.json.to_string(), o.text));
                let got = sess.call_json(tool, args);
                match (&got, &want) {
                    (Ok(g), Ok(w)) => assert_eq!(g, w, "{tool} {args}"),
                    (Err(g), Err(w)) => {
                        assert_eq!(
                            (g.kind(), g.message()),
                            (w.kind(), w.message()),
                            "{tool} {args}"
                        )
                    }
                    _ => panic!("{tool} {args}: {got:?} vs {want:?}"),
                }
            }
        }
    }

    /// Several files in one read, each with its own result or error.
    #[test]
    fn read_many_paths() {
        let s = session();
        let out = s
            .call(
                "filestore_read",
                &json!({"paths": ["/w/src/main.rs", "/w/nope.txt"], "limit": 1}),
            )
            .unwrap();
        let files = out.json["files"].as_array().unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0]["path"], "/w/src/main.rs");
        assert_eq!(files[0]["end_line"], 1);
        assert_eq!(files[1]["error"]["kind"], "not-found");
        assert!(out.text.starts_with("==> /w/src/main.rs <==\n"), "{}", out.text);
        assert!(out.text.contains("==> /w/nope.txt <==\nerror[not-found]"), "{}", out.text);
        for bad in [
            json!({"paths": []}),
            json!({"paths": ["/w/src/main.rs"], "path": "/w/src/main.rs"}),
            json!({"paths": vec!["/w/a"; MAX_READ_PATHS + 1]}),
        ] {
            let e = s.call("filestore_read", &bad).unwrap_err();
            assert!(e.message().contains("paths"), "{e}");
        }
    }

    /// The typed form of `paths`: each file's request made from its path, each
    /// answered alone, the count checked as for JSON.
    #[test]
    fn read_paths_answers_each_file() {
        let s = session();
        let req = |path: &str| {
            let mut r: ReadRequest = decode("filestore_read", &json!({"path": path})).unwrap();
            r.limit = 1;
            Ok(r)
        };
        let paths = vec!["/w/src/main.rs".to_string(), "/w/nope.txt".into(), "/w/src".into()];
        let out = s.read_paths(&paths, req).unwrap();
        assert_eq!(out.len(), 3);
        let (p, first) = &out[0];
        assert_eq!((*p, first.as_ref().unwrap().0.end_line), ("/w/src/main.rs", 1));
        assert_eq!(out[1].1.as_ref().unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(out[2].1.as_ref().unwrap_err().kind(), ErrorKind::NotAFile);
        for n in [0, MAX_READ_PATHS + 1] {
            let e = s.read_paths(&vec!["/w/a".to_string(); n], req).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        }
    }

    #[test]
    fn every_schema_property_is_accepted() {
        // Each tool's schema properties must decode into its request type: a property
        // the schema advertises but the request rejects would be a broken contract.
        let s = session();
        s.enable_shell(true);
        for spec in builtins::specs(true, true, true) {
            let props = spec.input_schema["properties"].as_object().unwrap();
            assert!(spec.input_schema["additionalProperties"] == json!(false), "{}", spec.name);
            for (k, v) in props {
                let sample = match v["type"].as_str().unwrap() {
                    "string" => json!("x"),
                    "integer" => json!(1),
                    "boolean" => json!(false),
                    "array" => json!([]),
                    "object" => json!({}),
                    t => panic!("{t}"),
                };
                let base = json!({"path": "/w/src/main.rs", "pattern": "x", "content": "c", "source": "/w/a", "destination": "/w/b", "command": "true"});
                let mut args = json!({});
                for r in spec.input_schema["required"].as_array().into_iter().flatten() {
                    let r = r.as_str().unwrap();
                    args[r] = base[r].clone();
                }
                args[k] = sample;
                if let Err(e) = s.call(&spec.name, &args) {
                    assert!(!e.to_string().contains("unknown field"), "{}: {k}: {e}", spec.name);
                }
            }
        }
    }

    #[test]
    fn call_round_trip() {
        let s = session();
        let out = s.call("filestore_read", &json!({"path": "/w/src/main.rs", "limit": 1})).unwrap();
        assert_eq!(out.json["next_offset"], 2);
        assert!(out.text.starts_with("     1\tfn main() {\n"));
        let e =
            s.call("filestore_read", &json!({"path": "/w/src/main.rs", "ofset": 2})).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("ofset"));
        assert_eq!(s.call("nope", &json!({})).unwrap_err().kind(), ErrorKind::NotFound);
        let out =
            s.call("filestore_write", &json!({"path": "/w/new.txt", "content": "x"})).unwrap();
        assert_eq!(out.json["entry"]["path"], "/w/new.txt");
    }

    #[test]
    fn renders_tools_tree_and_skills() {
        let skills = MemoryVolume::new();
        let opts = WriteOptions {
            read_only: true,
            entry_type: Some("skill".into()),
            attributes: Some(
                serde_json::json!({"skill_name": "pdf", "skill_description": "Fill PDF forms."}),
            ),
            ..Default::default()
        };
        skills
            .write("/pdf/SKILL.md", b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n", &opts)
            .unwrap();
        let mut s = Session::new(Default::default());
        s.mount("/skills", Box::new(skills), 0, true).unwrap();
        let p = s.system_prompt(3, 3, &Default::default()).unwrap();
        assert!(p.starts_with("You have a sandboxed virtual filesystem."), "{p}");
        assert!(
            p.contains("- filestore_read: Read a text file by lines, numbered like `cat -n`.\n"),
            "{p}"
        );
        assert!(!p.contains("filestore_write"), "read-only session offers no mutating tools");
        assert!(
            p.contains("\nFiles:\n/\n└── skills/\n    └── pdf/\n        └── SKILL.md\n"),
            "{p}"
        );
        assert!(p.ends_with(
            "<available_skills>\n  <skill>\n    <name>pdf</name>\n    <description>Fill PDF forms.</description>\n    <location>/skills/pdf/SKILL.md</location>\n  </skill>\n</available_skills>\n"
        ), "{p}");
    }
}
