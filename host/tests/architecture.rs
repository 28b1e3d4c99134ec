//! The workspace's Rust crates are layers, and so are their top-level modules; this
//! test keeps them so (described in docs/architecture.md#layout, whose tables this
//! test reads).
//!
//! **Crates.** `filestore-runtime` (`runtime/`: the engine, sessions, memory and
//! directory volumes, the tool registry) and `filestore-sandbox` (`sandbox/`: the
//! runtime re-exported with the component embedded) are what an embedder takes; above
//! the runtime, one crate per layer: `filestore-volumes` (object-store volumes, mount arguments),
//! `filestore-store` (snapshots, conversation state), `filestore-handlers` (tool
//! handlers, upstream providers, agent configurations), `filestore-mcp` (the MCP
//! server) and `filestore` (`host/`: the CLI). Cargo refuses a circle between crates;
//! [`only_the_binary_waits_for_the_component`] keeps the layers off the component,
//! so they compile while it is built;
//! [`the_sandbox_builds_no_server_driver_or_store`] holds the sandbox's dependency
//! tree (from `Cargo.lock`) free of the MCP, SQL, HTTP and object-store crates, and
//! [`each_layer_crate_builds_only_what_it_needs`] the layers' trees of what they do
//! not need; [`build_time_crates_are_unoptimised_in_both_profiles`] keeps the test
//! and release profiles' lists of build-time crates alike.
//!
//! **Modules.** Within each crate, each module of `src/` (a file or a folder) may use
//! only the modules of the layers below its own, never one of its own layer or above
//! ([`Layout::layers`], lowest first). An import that goes up, or closes a circle
//! between modules, fails with the file and line that made it. The few known
//! exceptions are listed, each with its reason, in [`Layout::upward_allowed`] and
//! [`Layout::cycles_allowed`]; an entry that no longer holds fails too, so those lists
//! only shrink.
//!
//! What counts as an import: every path of non-test code that starts at the crate
//! (`crate::`, `filestore::`, which names the host crate inside it, `super::`,
//! `self::`), in `use` trees and in code alike, with the crate root's re-exports
//! (`crate::MountSpec`) followed to the module that defines them; a path into the
//! sandbox crate (a root re-export of it included) is below every host layer.
//! Comments, string literals, `tests.rs` files and `#[cfg(test)]` items are not
//! imports.
//!
//! It stays above 800 lines because it holds one layer table per crate (six), each
//! beside the check that reads it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers of one crate's top-level modules and the known exceptions.
struct Layout {
    /// The crate's folder in the workspace.
    dir: &'static str,
    /// The layers, lowest first: a module may use the modules of lower layers only.
    layers: &'static [(&'static str, &'static [&'static str])],
    /// The crate root (and the binary): they compose everything, and nothing uses them.
    top: &'static [&'static str],
    /// Known imports against the layering: (from, to, why it is still there).
    upward_allowed: &'static [(&'static str, &'static str, &'static str)],
    /// Known circles of modules (module paths, `a::b` for `src/a/b.rs`) that import
    /// each other, with why: each must be exactly what the scan finds, so a module
    /// that joins a circle fails, and so does one that leaves it (shrink the entry).
    cycles_allowed: &'static [(&'static [&'static str], &'static str)],
    /// Names the crate root defines that lead into a module, besides its `pub use`s.
    root_aliases: &'static [(&'static str, &'static str)],
    /// The crates below this one: a path into them is no import of this crate.
    below: &'static [&'static str],
    /// The first cell of the header of this crate's table in docs/architecture.md.
    table: &'static str,
    /// A module and one it is known to use: the scan must find that import, or it
    /// checks nothing.
    probe: (&'static str, &'static str),
}

/// `filestore-runtime`: the sandbox without its component (`filestore-sandbox`, what an
/// embedder takes, re-exports it in one file).
const RUNTIME: Layout = Layout {
    dir: "runtime",
    layers: &[
        // Leaves: errors, clocks, ids, the shared memory budget, shell output sinks, a
        // trap as the log tells it.
        ("foundations", &["error", "clocks", "ids", "memory_budget", "shell_output", "trap_log"]),
        // CPython for the shell's python3, on threads of its own.
        ("python3", &["python"]),
        // Volume backends and mounts.
        ("storage", &["volumes"]),
        // What is kept in volumes: copy-on-write upper layers, the audit timeline.
        ("records", &["cow", "audit"]),
        // The tool registry and the traits of tool hosts, handlers and providers, in
        // the host's own types.
        ("tools", &["tools"]),
        // The generated WIT types (and the host type behind the `volume` resource):
        // only the glue, the engine and the session use them.
        ("WIT", &["bindings"]),
        // The store's data of one sandbox.
        ("sandbox state", &["state"]),
        // Host side of each imported WIT interface.
        ("glue", &["glue"]),
        // The compiled component and its instance pool.
        ("engine", &["engine"]),
        // One sandbox: an instance with its mounts and limits.
        ("session", &["session"]),
    ],
    top: &["lib"],
    upward_allowed: &[],
    cycles_allowed: &[],
    root_aliases: &[("wit", "bindings")],
    below: &[],
    table: "runtime layer",
    probe: ("session", "engine"),
};

/// `filestore-volumes`: every volume a mount can name.
const VOLUMES: Layout = Layout {
    dir: "volumes",
    layers: &[
        // Object-store volumes (the sandbox's volumes are re-exported beside them).
        ("object stores", &["object"]),
        // The `--mount /point=SPEC` arguments, naming any volume.
        ("mount arguments", &["arg"]),
    ],
    top: &["lib"],
    upward_allowed: &[],
    cycles_allowed: &[(
        &["object::errors", "object::spec"],
        "errors.rs names spec.rs's `StoreKind` in its credentials hint; spec.rs cleans the store's messages with errors.rs's `clean`",
    )],
    root_aliases: &[],
    below: &["filestore_runtime"],
    table: "volumes layer",
    probe: ("arg", "object"),
};

/// `filestore-store`: what is kept between sessions, in volumes.
const STORE: Layout = Layout {
    dir: "store",
    layers: &[
        // Snapshots of volumes.
        ("records", &["snapshot"]),
        // Conversations kept in a state store (they snapshot their volumes).
        ("conversations", &["conversation"]),
    ],
    top: &["lib"],
    upward_allowed: &[],
    cycles_allowed: &[],
    root_aliases: &[],
    below: &[],
    table: "store layer",
    probe: ("conversation", "snapshot"),
};

/// `filestore-handlers`: what runs configured tools.
const HANDLERS: Layout = Layout {
    dir: "handlers",
    layers: &[
        // The handlers the CLI ships, providers of agent tool refs.
        ("tool implementations", &["handlers", "providers"]),
        // Agent configurations: providers built for them, loaded into sessions.
        ("agent", &["agent"]),
    ],
    top: &["lib"],
    upward_allowed: &[],
    cycles_allowed: &[],
    root_aliases: &[],
    below: &[],
    table: "handlers layer",
    probe: ("agent", "providers"),
};

/// `filestore-mcp`: `filestore serve`.
const MCP: Layout = Layout {
    dir: "mcp",
    layers: &[
        // What sessions are made from (default mounts, setup), how results and errors
        // reach a client, approval by elicitation, log notifications, the client's
        // roots, the transports' message guard, what the sandbox's work sees of a
        // stdio fast-path call.
        ("foundations", &["config", "reply", "approval", "logging", "roots", "guard", "fast_call"]),
        // `serve --state`: conversations bound to MCP sessions.
        ("conversations", &["conversations"]),
        // Records beside them: stored MCP sessions; the host's own tools' trait.
        ("session records", &["stored_sessions", "host_tool"]),
        // The HTTP transport's connections, callers and admission; the snapshot tool.
        ("http and host tools", &["http", "snapshot_tool"]),
        // One MCP session's sandbox.
        ("sandbox", &["sandbox"]),
        // What reads through the sandbox: prompts, resources, the sandbox cache.
        ("sandbox views", &["prompt", "resources", "sandbox_cache"]),
        // Image and audio reads (resources' pages); the server's configuration (it
        // holds the sandbox cache).
        ("media and configuration", &["media", "server_config"]),
        // The rmcp handler.
        ("server", &["server"]),
        // The stdio transport over the server.
        ("stdio", &["stdio"]),
    ],
    top: &["lib"],
    upward_allowed: &[],
    cycles_allowed: &[],
    root_aliases: &[],
    below: &[],
    table: "mcp layer",
    probe: ("server", "sandbox"),
};

/// `filestore`: the command line over every crate below it.
const HOST: Layout = Layout {
    dir: "host",
    layers: &[
        // The command line.
        ("cli", &["cli"]),
    ],
    top: &["lib", "main"],
    upward_allowed: &[],
    cycles_allowed: &[],
    // The crates below, re-exported under one name each.
    root_aliases: &[("mcp", "filestore_mcp"), ("volumes", "filestore_volumes")],
    below: &[
        "filestore_sandbox",
        "filestore_runtime",
        "filestore_volumes",
        "filestore_store",
        "filestore_handlers",
        "filestore_mcp",
    ],
    table: "host layer",
    probe: ("main", "cli"),
};

const CRATES: [&Layout; 6] = [&RUNTIME, &VOLUMES, &STORE, &HANDLERS, &MCP, &HOST];

impl Layout {
    fn src(&self) -> PathBuf {
        repo_root().join(self.dir).join("src")
    }
}

/// The repository's root: the parent of `CARGO_MANIFEST_DIR` as cargo sets it when it
/// runs the test (the checkout under test), else as it was at compile time. Not the
/// compile-time value alone: checkouts sharing a target directory reuse each other's
/// test binaries for unchanged sources, and a path compiled in would read the files
/// of the checkout that built them.
fn repo_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().expect("the host crate's manifest is in the repository").to_path_buf()
}

/// Every `.rs` file beneath `dir` but the `tests.rs` files (test modules).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    rust_files_under(dir, false, out);
}

/// Every `.rs` file beneath `dir`, leaving out vendored crates, `node_modules` and
/// build output, and the `tests.rs` files (test modules) unless `with_tests`.
fn rust_files_under(dir: &Path, with_tests: bool, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy();
        if p.is_dir() {
            if !matches!(&*name, "vendor" | "node_modules" | "target") {
                rust_files_under(&p, with_tests, out);
            }
        } else if name.ends_with(".rs") && (with_tests || name != "tests.rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `src/tools/env.rs` is `tools::env`, `src/tools/mod.rs`
/// is `tools`, `src/lib.rs` is `lib` (the root).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// `text` with comments and the contents of string and character literals blanked
/// (newlines kept, so byte offsets and line numbers stay those of the file).
fn code_only(text: &str) -> String {
    let s = text.as_bytes();
    let mut out = s.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(s.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        if s[i..].starts_with(b"//") {
            let end = s[i..].iter().position(|&b| b == b'\n').map_or(s.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if s[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, i);
            while j < s.len() {
                if s[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if s[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !prev_ident && (s[i] == b'r' || s[i..].starts_with(b"br")) {
            // A raw string (`r"…"`, `r#"…"#`, `br"…"`), or an identifier.
            let start = if s[i] == b'b' { i + 2 } else { i + 1 };
            let hashes = s[start..].iter().take_while(|&&b| b == b'#').count();
            if s.get(start + hashes) == Some(&b'"') {
                let close: Vec<u8> =
                    std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                let body = start + hashes + 1;
                let end = s[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(s.len(), |n| body + n + close.len());
                blank(&mut out, body, end - close.len());
                i = end;
            } else {
                i = start;
            }
        } else if s[i] == b'"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if s[i] == b'\''
            && (!prev_ident || (s[i - 1] == b'b' && (i < 2 || !is_ident(s[i - 2]))))
        {
            // A character literal (`'{'`, `'\''`, `'\u{7f}'`), or a lifetime (`'a`).
            let len = if s.get(i + 1) == Some(&b'\\') {
                s[i + 3..].iter().position(|&b| b == b'\'').map(|n| n + 4)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (s.get(i + 1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match len {
                Some(n) => {
                    blank(&mut out, i + 1, i + n - 1);
                    i += n;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The end of the bracketed group opening at `open` (one past its closing bracket).
fn group_end(s: &[u8], open: usize) -> usize {
    let mut depth = 0i64;
    for (j, &b) in s.iter().enumerate().skip(open) {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// `code` (from [`code_only`]) with every `#[cfg(test)]` item blanked: the attribute,
/// the attributes after it and the item up to its `;`, its `,` or the end of its
/// `{ … }` block.
fn without_test_items(code: &str) -> String {
    let s = code.as_bytes();
    let mut out = s.to_vec();
    let mut i = 0;
    while let Some(at) = code[i..].find("#[").map(|n| n + i) {
        let end = group_end(s, at + 1);
        let attr: String = code[at + 2..end - 1].split_whitespace().collect();
        let is_test = attr.starts_with("cfg(")
            && !attr.contains("not(")
            && attr.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').any(|w| w == "test");
        if !is_test {
            i = end;
            continue;
        }
        // Further attributes of the same item.
        let mut j = end;
        loop {
            while j < s.len() && s[j].is_ascii_whitespace() {
                j += 1;
            }
            if s[j..].starts_with(b"#[") {
                j = group_end(s, j + 1);
            } else {
                break;
            }
        }
        let mut depth = 0i64;
        while j < s.len() {
            match s[j] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth < 0 {
                        break;
                    }
                    if depth == 0 && s[j] == b'}' {
                        j += 1;
                        break;
                    }
                }
                b';' | b',' if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        for b in &mut out[at..j] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = j;
    }
    String::from_utf8(out).unwrap()
}

/// Inline modules (`mod name { … }`) of `code`: (start, end, name).
fn inline_modules(code: &str) -> Vec<(usize, usize, String)> {
    let s = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = code[i..].find("mod ").map(|n| n + i) {
        i = at + 4;
        if at > 0 && is_ident(s[at - 1]) {
            continue;
        }
        let rest = code[i..].trim_start();
        let name: String = rest.bytes().take_while(|&b| is_ident(b)).map(char::from).collect();
        let after = rest[name.len()..].trim_start();
        if !name.is_empty() && after.starts_with('{') {
            let open = code.len() - after.len();
            out.push((open, group_end(s, open), name));
        }
    }
    out
}

/// A parser of the paths of a `use` tree or an expression, over code.
struct Paths<'a> {
    s: &'a [u8],
    i: usize,
}

impl Paths<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        if self.s[self.i..].starts_with(b"r#") {
            self.i += 2;
        }
        let start = self.i;
        while self.i < self.s.len() && is_ident(self.s[self.i]) {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    fn eat(&mut self, token: &[u8]) -> bool {
        self.skip_ws();
        let ok = self.s[self.i..].starts_with(token);
        if ok {
            self.i += token.len();
        }
        ok
    }

    /// One tree after `prefix`: `a::b::c`, `a::{…}`, `a::*`, `{…}`, `self`; each
    /// whole path it names goes to `out` as (offset, segments). A path ending in a
    /// macro (`crate::m!`) names none.
    fn tree(&mut self, prefix: &[String], out: &mut Vec<(usize, Vec<String>)>) {
        self.skip_ws();
        let at = self.i;
        let mut path = prefix.to_vec();
        loop {
            if self.eat(b"{") {
                loop {
                    self.skip_ws();
                    if self.eat(b"}") || self.i >= self.s.len() {
                        return;
                    }
                    self.tree(&path, out);
                    if !self.eat(b",") {
                        self.eat(b"}");
                        return;
                    }
                }
            }
            if self.eat(b"*") {
                break;
            }
            match self.ident() {
                Some(seg) if seg == "self" => {}
                Some(seg) => path.push(seg),
                None => break,
            }
            if !self.eat(b"::") {
                break;
            }
        }
        if self.s.get(self.i) == Some(&b'!') {
            return;
        }
        // `a::b as c`: the alias names nothing more.
        let before = self.i;
        if self.ident().as_deref() == Some("as") {
            self.ident();
        } else {
            self.i = before;
        }
        out.push((at, path));
    }
}

/// Every crate path (absolute segments from the crate root) named by the non-test
/// code of the file of module `module`, with its line number.
fn crate_paths(module: &[String], text: &str) -> Vec<(usize, Vec<String>)> {
    let code = without_test_items(&code_only(text));
    let s = code.as_bytes();
    let inline = inline_modules(&code);
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let starts_word = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == b':');
        let key = ["crate::", "filestore::", "super::", "self::"]
            .into_iter()
            .find(|k| starts_word && s[i..].starts_with(k.as_bytes()));
        let Some(key) = key else {
            i += 1;
            continue;
        };
        // The module this code is in: the file's, then any inline modules around it.
        let mut here: Vec<String> = module.to_vec();
        if here == ["lib"] {
            here.clear();
        }
        here.extend(inline.iter().filter(|(a, b, _)| *a < i && i < *b).map(|m| m.2.clone()));
        let mut parser = Paths { s, i };
        let base = match key {
            "crate::" | "filestore::" => {
                parser.i += key.len();
                Vec::new()
            }
            _ => {
                let mut base = here;
                while parser.eat(b"super::") {
                    base.pop();
                }
                parser.eat(b"self::");
                base
            }
        };
        let mut found = Vec::new();
        parser.tree(&base, &mut found);
        out.extend(found.into_iter().map(|(at, p)| (line_of(at), p)));
        i = parser.i.max(i + 1);
    }
    out
}

/// The crate root's re-exports (`pub use engine::{Engine, …}` in `lib.rs`): name →
/// the path it stands for.
fn root_exports(layout: &Layout) -> BTreeMap<String, Vec<String>> {
    let lib = layout.src().join("lib.rs");
    let code = without_test_items(&code_only(&std::fs::read_to_string(lib).unwrap()));
    let inline = inline_modules(&code);
    let mut out: BTreeMap<String, Vec<String>> = layout
        .root_aliases
        .iter()
        .map(|(name, module)| (name.to_string(), vec![module.to_string()]))
        .collect();
    let mut i = 0;
    while let Some(at) = code[i..].find("pub use ").map(|n| n + i) {
        i = at + "pub use ".len();
        if inline.iter().any(|(a, b, _)| *a < at && at < *b) {
            continue;
        }
        let mut parser = Paths { s: code.as_bytes(), i };
        let mut found = Vec::new();
        parser.tree(&[], &mut found);
        for (_, path) in found {
            if let Some(name) = path.last() {
                out.insert(name.clone(), path.clone());
            }
        }
        i = parser.i;
    }
    out
}

/// One import: the file and line, the module it is in, the path it names.
struct Import {
    file: String,
    line: usize,
    module: Vec<String>,
    path: Vec<String>,
}

/// Every import of non-test code in the crate's `src/`, re-exports of the root
/// followed; a path into a crate below is none.
fn imports(layout: &Layout) -> Vec<Import> {
    let src = layout.src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let exports = root_exports(layout);
    let mut out = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for (line, mut path) in crate_paths(&module, &text) {
            if let Some(target) = path.first().and_then(|first| exports.get(first)) {
                path.splice(0..1, target.iter().cloned());
            }
            if path.first().is_some_and(|first| layout.below.contains(&first.as_str())) {
                continue;
            }
            let file = format!("{}/src/{}", layout.dir, file.strip_prefix(&src).unwrap().display());
            out.push(Import { file, line, module: module.clone(), path });
        }
    }
    out
}

/// The circles of a graph: its strongly connected components of more than one node.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<BTreeSet<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let lw = self.low[w.as_str()];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w.as_str()) {
                    let iw = self.index[w.as_str()];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().position(|x| *x == v).unwrap();
                let group: BTreeSet<String> = self.stack.drain(at..).map(str::to_string).collect();
                if group.len() > 1 {
                    self.out.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

/// The layer of each module named in [`Layout::layers`] (its index, lowest 0).
fn layer_of(layout: &Layout) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for (n, (_, modules)) in layout.layers.iter().enumerate() {
        for m in *modules {
            assert!(out.insert(*m, n).is_none(), "`{m}` is in two layers of {}", layout.dir);
        }
    }
    out
}

#[test]
fn top_level_modules_use_only_the_layers_below_them() {
    for layout in CRATES {
        check_layers(layout);
    }
}

fn check_layers(layout: &Layout) {
    let (top_modules, layer_list) = (layout.top, layout.layers);
    let layers = layer_of(layout);
    let src = layout.src();
    let mut top: BTreeSet<String> = BTreeSet::new();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for f in &files {
        top.insert(module_of(&src, f)[0].clone());
    }
    for m in &top {
        assert!(
            layers.contains_key(m.as_str()) || top_modules.contains(&m.as_str()),
            "module `{m}` of {} is in no layer: add it to its layers in {}",
            layout.dir,
            file!()
        );
    }
    for m in layers.keys() {
        assert!(
            top.contains(*m),
            "the layers name `{m}`, which is no module of {}/src/",
            layout.dir
        );
    }

    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut upward: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let mut unresolved = Vec::new();
    let imports = imports(layout);
    for imp in &imports {
        let from = imp.module[0].clone();
        let Some(to) = imp.path.first().cloned() else { continue };
        if !top.contains(&to) {
            unresolved.push(format!("{}:{}: `crate::{}`", imp.file, imp.line, imp.path.join("::")));
            continue;
        }
        if to == from {
            continue;
        }
        edges.entry(from.clone()).or_default().insert(to.clone());
        if top_modules.contains(&from.as_str()) {
            continue;
        }
        assert!(
            !top_modules.contains(&to.as_str()),
            "{}:{}: `{from}` uses `{to}`",
            imp.file,
            imp.line
        );
        if layers[to.as_str()] >= layers[from.as_str()] {
            let at = upward.entry((from, to)).or_default();
            let here = format!("{}:{}", imp.file, imp.line);
            if !at.contains(&here) {
                at.push(here);
            }
        }
    }
    // The scan must have found the crate's real imports, or it checks nothing.
    let (user, used) = layout.probe;
    assert!(edges.get(user).is_some_and(|e| e.contains(used)), "the scan is broken: {edges:?}");
    assert!(unresolved.is_empty(), "paths the test cannot place:\n{}", unresolved.join("\n"));

    let allowed: BTreeSet<(String, String)> =
        layout.upward_allowed.iter().map(|(a, b, _)| (a.to_string(), b.to_string())).collect();
    let mut problems = Vec::new();
    for ((from, to), at) in &upward {
        if !allowed.contains(&(from.clone(), to.clone())) {
            problems.push(format!(
                "`{from}` (layer {}) uses `{to}` (layer {}) at {}",
                layer_list[layers[from.as_str()]].0,
                layer_list[layers[to.as_str()]].0,
                at.join(", ")
            ));
        }
    }
    for (from, to) in &allowed {
        if !upward.contains_key(&(from.clone(), to.clone())) {
            problems.push(format!(
                "upward_allowed lists `{from}` -> `{to}`, which is no longer an upward import: remove the entry"
            ));
        }
    }
    let report: Vec<String> =
        circles(&edges).into_iter().map(|c| c.into_iter().collect::<Vec<_>>().join(", ")).collect();
    assert!(
        problems.is_empty(),
        "imports against the layering (see the doc of {}):\n{}\n\ntop-level modules in circles now:\n{}",
        file!(),
        problems.join("\n"),
        report.join("\n")
    );
}

#[test]
fn no_circles_between_modules_but_the_listed_ones() {
    for layout in CRATES {
        check_circles(layout);
    }
}

fn check_circles(layout: &Layout) {
    let src = layout.src();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f).join("::")).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut at: BTreeMap<(String, String), String> = BTreeMap::new();
    for imp in imports(layout) {
        let from = imp.module.join("::");
        // The longest module the path names.
        let Some(to) = (1..=imp.path.len())
            .rev()
            .map(|k| imp.path[..k].join("::"))
            .find(|m| modules.contains(m))
        else {
            continue;
        };
        // A module and its own submodules use each other by design (`mod.rs` declares
        // and re-exports them).
        let nested = to.starts_with(&format!("{from}::")) || from.starts_with(&format!("{to}::"));
        if to != from && !nested {
            at.entry((from.clone(), to.clone())).or_insert(format!("{}:{}", imp.file, imp.line));
            edges.entry(from).or_default().insert(to);
        }
    }
    // The scan must have found the crate's real imports, or it checks nothing.
    let (user, used) = layout.probe;
    let under = |m: &str, top: &str| m == top || m.starts_with(&format!("{top}::"));
    assert!(
        edges.iter().any(|(a, to)| under(a, user) && to.iter().any(|b| under(b, used))),
        "the scan is broken: {edges:?}"
    );
    let found = circles(&edges);
    let allowed: Vec<BTreeSet<String>> = layout
        .cycles_allowed
        .iter()
        .map(|(group, _)| group.iter().map(|m| m.to_string()).collect())
        .collect();
    let mut problems = Vec::new();
    for c in &found {
        if !allowed.contains(c) {
            let inner: Vec<String> = at
                .iter()
                .filter(|((a, b), _)| c.contains(a) && c.contains(b))
                .map(|((a, b), where_)| format!("  {a} -> {b} ({where_})"))
                .collect();
            problems.push(format!(
                "these modules import each other in a circle:\n{}",
                inner.join("\n")
            ));
        }
    }
    for a in &allowed {
        if !found.contains(a) {
            problems.push(format!(
                "cycles_allowed lists a circle that is no longer one: {a:?} (found: {found:?})"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// docs/architecture.md's host table names these layers, in this order, with these
/// modules: the page says what the test holds.
#[test]
fn the_architecture_doc_lists_these_layers() {
    let doc = repo_root().join("docs/architecture.md");
    let text = std::fs::read_to_string(&doc).unwrap();
    for layout in CRATES {
        let header = format!("\n| {} | modules | owns |\n", layout.table);
        let table = text.split(&header).nth(1).unwrap_or_else(|| {
            panic!("docs/architecture.md has no table of {} (`{}`)", layout.dir, header.trim())
        });
        let rows: Vec<(String, BTreeSet<String>)> = table
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with('|'))
            .map(|row| {
                let cells: Vec<&str> = row.split(" | ").collect();
                let layer = cells[0].trim_start_matches("| ").to_string();
                let modules = cells[1]
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(|m| m.trim_end_matches('/').trim_end_matches(".rs").to_string())
                    .collect();
                (layer, modules)
            })
            .collect();
        let expected: Vec<(String, BTreeSet<String>)> = layout
            .layers
            .iter()
            .chain([("top", layout.top)].iter())
            .map(|(layer, modules)| {
                (layer.to_string(), modules.iter().map(|m| m.to_string()).collect())
            })
            .collect();
        assert_eq!(
            rows,
            expected,
            "the {} table of docs/architecture.md#layout and its layers in {} differ",
            layout.dir,
            file!()
        );
    }
}

/// The crates an embedder of the sandbox must not build: the MCP server's, the SQL
/// drivers', the HTTP clients' and servers', the object-store client's.
const NOT_IN_THE_SANDBOX: &[&str] = &[
    "rmcp",
    "axum",
    "hyper",
    "tower",
    "reqwest",
    "ureq",
    "jsonwebtoken",
    "postgres",
    "tokio-postgres",
    "mysql",
    "rusqlite",
    "object_store",
];

/// Every package `Cargo.lock` says `root` depends on, itself included (normal,
/// build and, for workspace members, dev dependencies: an upper bound of its tree).
fn lock_closure(lock: &str, root: &str) -> BTreeSet<String> {
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for package in lock.split("\n[[package]]\n").skip(1) {
        let field = |key: &str| {
            package
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim_matches('"').to_string())
        };
        let Some(name) = field("name = ") else { continue };
        let list =
            package.split("dependencies = [").nth(1).map_or("", |r| r.split(']').next().unwrap());
        // `"name"` or `"name 1.2.3"` when several versions are locked.
        let names =
            list.split('"').skip(1).step_by(2).map(|d| d.split(' ').next().unwrap().to_string());
        deps.entry(name).or_default().extend(names);
    }
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(p) = todo.pop() {
        if seen.insert(p.clone()) {
            todo.extend(deps.get(&p).into_iter().flatten().cloned());
        }
    }
    seen
}

#[test]
fn the_sandbox_builds_no_server_driver_or_store() {
    let lock = std::fs::read_to_string(repo_root().join("Cargo.lock")).unwrap();
    let sandbox = lock_closure(&lock, "filestore-sandbox");
    let host = lock_closure(&lock, "filestore");
    // The scan reads the lock: the host's tree has every one of them, or it is broken.
    for name in NOT_IN_THE_SANDBOX {
        assert!(host.contains(*name), "`{name}` is not in the host's tree: the scan is broken");
    }
    assert!(sandbox.contains("wasmtime") && sandbox.contains("filestore-guest"), "{sandbox:?}");
    let found: Vec<&&str> = NOT_IN_THE_SANDBOX.iter().filter(|n| sandbox.contains(**n)).collect();
    assert!(
        found.is_empty(),
        "filestore-sandbox depends on {found:?} (see `cargo tree -p filestore-sandbox -i NAME`): \
         an embedder of the sandbox must not build them; move what needs them to the filestore crate"
    );
    assert!(!sandbox.contains("filestore"), "filestore-sandbox depends on the filestore crate");
}

/// The component's build takes minutes and everything that depends on
/// `filestore-component` waits for it. Only the sandbox crate (which embeds it), the
/// binary and the Python extension (which embed the sandbox) may: the runtime and
/// the layers the binary adds compile meanwhile. Every path package of `Cargo.lock`
/// is checked, so a new crate is covered without being listed.
#[test]
fn only_the_binary_waits_for_the_component() {
    const MAY_WAIT: [&str; 4] =
        ["filestore-component", "filestore-sandbox", "filestore", "filestore-python"];
    let lock = std::fs::read_to_string(repo_root().join("Cargo.lock")).unwrap();
    // A path package has no `source` line: the workspace's crates and the vendored ones.
    let path_packages: Vec<&str> = lock
        .split("\n[[package]]\n")
        .skip(1)
        .filter(|p| !p.lines().any(|l| l.starts_with("source = ")))
        .filter_map(|p| p.lines().find_map(|l| l.strip_prefix("name = ")))
        .map(|n| n.trim_matches('"'))
        .collect();
    assert!(path_packages.contains(&"filestore-runtime"), "the scan is broken: {path_packages:?}");
    assert!(lock_closure(&lock, "filestore").contains("filestore-component"), "the scan is broken");
    let waiting: Vec<&str> = path_packages
        .into_iter()
        .filter(|krate| !MAY_WAIT.contains(krate))
        .filter(|krate| lock_closure(&lock, krate).contains("filestore-component"))
        .collect();
    assert!(
        waiting.is_empty(),
        "{waiting:?} depend on filestore-component (see `cargo tree -p CRATE -i \
         filestore-component`), so they wait for the component's build: depend on \
         filestore-runtime, and take the engine as an argument"
    );
}

#[test]
fn the_scan_sees_paths_and_skips_comments_strings_and_test_code() {
    let text = r##"
use crate::vfs::paths;
use super::{sibling::Thing, other};
// crate::commented
/// [`crate::documented`]
fn f() { let s = "crate::quoted {"; let c = '{'; crate::ops::ls(); g::<'a>(); }
#[cfg(test)]
mod tests {
    use crate::session::Session;
}
#[cfg(all(test, unix))]
fn helper(
    a: crate::helper::A,
) {}
mod inner {
    use super::up;
}
use crate::{a::{b::C, d}, e as f};
fn h() { crate::m!(); let r = r#"crate::raw"#; }
"##;
    let paths: Vec<String> = crate_paths(&["x".into(), "y".into()], text)
        .into_iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "vfs::paths",
            "x::sibling::Thing",
            "x::other",
            "ops::ls",
            "x::y::up",
            "a::b::C",
            "a::d",
            "e"
        ]
    );
}

/// `cargo tree` of `args` in the workspace as `name version [features]` lines, one per
/// package and feature set.
fn feature_tree(args: &[&str]) -> BTreeSet<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .current_dir(repo_root())
        .args(["tree", "--locked", "--quiet", "--prefix", "none"])
        .args(["--format", "{p} [{f}]"])
        .args(args)
        .output()
        .expect("running cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed (it reads the registry cargo downloaded for this build): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_end_matches(" (*)").replace(" (proc-macro)", ""))
        .collect()
}

/// Packages that appear with more than one feature set: cargo compiles each set apart.
fn built_twice(tree: &BTreeSet<String>) -> Vec<String> {
    let mut sets: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for line in tree {
        let (package, features) = line.split_once(" [").unwrap_or((line, ""));
        let package = package.split(" (").next().unwrap().to_string();
        sets.entry(package).or_default().push(features);
    }
    sets.into_iter().filter(|(_, f)| f.len() > 1).map(|(p, f)| format!("{p}: {f:?}")).collect()
}

/// The release binary's build compiles wasmtime, cranelift and their dependencies once:
/// the sandbox's build script (which precompiles the component) and the runtime see
/// the same feature sets (sandbox/Cargo.toml and runtime/Cargo.toml align them), in the binary's graph and
/// in the workspace's test build. And the binary compiles none of the component's
/// runtime natively (the guest's `runtime` feature: the shell interpreter, the PDF
/// reader), which only the component runs.
#[test]
fn the_binary_builds_each_dependency_once_and_no_guest_runtime() {
    let binary = feature_tree(&["-p", "filestore", "--edges", "normal,build"]);
    assert!(binary.iter().any(|l| l.starts_with("wasmtime v")), "no wasmtime in {binary:?}");
    assert_eq!(
        built_twice(&binary),
        Vec::<String>::new(),
        "in `cargo tree -p filestore -e normal,build -f '{{p}} [{{f}}]'`, these differ between \
         the build script's graph and the runtime's: name the missing features in both \
         feature-alignment lists (sandbox/Cargo.toml's build dependencies, runtime/Cargo.toml's)"
    );
    // The shell's interpreter (bashkit) runs only in the component: the sandbox's
    // CPython is bashkit's runner without it (vendor/bashkit-cpython-runner).
    let runtime: Vec<&String> = binary
        .iter()
        .filter(|l| {
            ["hayro ", "lopdf ", "jaq-core ", "bashkit "].iter().any(|n| l.starts_with(n))
                || (l.starts_with("filestore-guest ") && l.contains("runtime"))
        })
        .collect();
    assert!(
        runtime.is_empty(),
        "the binary compiles the guest's runtime natively ({runtime:?}): a dependency on \
         filestore-guest turned its `runtime` feature on"
    );
    let tests = feature_tree(&["--workspace", "--edges", "normal,build,dev"]);
    assert_eq!(
        built_twice(&tests),
        Vec::<String>::new(),
        "the workspace's test build: name the missing features in runtime/Cargo.toml"
    );
}

/// docs/embedding.md#rust runs the Rust example with `cargo run --release -p
/// filestore-sandbox --example embed` after the quickstart's `cargo run --release -p
/// filestore`. Cargo resolves features per command, so every crate both graphs share
/// must have the binary's feature set in the sandbox's graph (its dev-dependencies
/// included): one crate with fewer features is compiled again with everything above
/// it (wasmtime-wasi, the guest's native half, the sandbox, its precompilation).
#[test]
fn the_embedding_example_reuses_the_binarys_build() {
    let binary = feature_tree(&["-p", "filestore", "--edges", "normal,build"]);
    let package = |l: &str| l.split(" [").next().unwrap_or(l).to_string();
    let in_binary: BTreeSet<String> = binary.iter().map(|l| package(l)).collect();
    let sandbox = feature_tree(&["-p", "filestore-sandbox", "--edges", "normal,build,dev"]);
    let differing: Vec<&String> = sandbox
        .iter()
        .filter(|l| in_binary.contains(&package(l)) && !binary.contains(*l))
        .collect();
    assert!(
        sandbox.iter().any(|l| l.starts_with("wasmtime-wasi v")),
        "no wasmtime-wasi in {sandbox:?}"
    );
    assert!(
        differing.is_empty(),
        "`cargo tree -p filestore-sandbox -e normal,build,dev -f '{{p}} [{{f}}]'` resolves these \
         with other features than the binary's graph, so the embedding example compiles them \
         and everything above them again: name the binary's features for them in the \
         runtime feature-alignment list of runtime/Cargo.toml: {differing:?}"
    );
}

/// What each layer crate above the sandbox builds none of (docs/architecture.md#layout's
/// crate table says so): a platform picks the storage or the tool handlers without the
/// MCP server, and the tool handlers without object stores.
const NOT_BUILT_BY: &[(&str, &[&str])] = &[
    ("filestore-volumes", NO_MCP_OR_SQL),
    ("filestore-store", NO_MCP_OR_SQL),
    ("filestore-handlers", &["axum", "jsonwebtoken", "object_store"]),
];

/// The storage layers' list: the MCP server's crates, the HTTP tool handler's client
/// and the SQL drivers.
const NO_MCP_OR_SQL: &[&str] =
    &["rmcp", "axum", "jsonwebtoken", "ureq", "postgres", "tokio-postgres", "mysql", "rusqlite"];

#[test]
fn each_layer_crate_builds_only_what_it_needs() {
    let mut problems = Vec::new();
    for (krate, absent) in NOT_BUILT_BY {
        let tree = feature_tree(&["-p", krate, "--edges", "normal,build"]);
        assert!(tree.iter().any(|l| l.starts_with("filestore-runtime v")), "{krate}: {tree:?}");
        for name in *absent {
            if tree.iter().any(|l| l.starts_with(&format!("{name} v"))) {
                problems.push(format!(
                    "{krate} builds `{name}` (see `cargo tree -p {krate} -i {name} -e normal,build`)"
                ));
            }
        }
    }
    // Each source kind's driver is a feature of the handlers (handlers/Cargo.toml):
    // without them, none is built.
    let bare = feature_tree(&[
        "-p",
        "filestore-handlers",
        "--no-default-features",
        "--edges",
        "normal,build",
    ]);
    for name in ["rusqlite", "postgres", "tokio-postgres", "mysql", "ureq"] {
        if bare.iter().any(|l| l.starts_with(&format!("{name} v"))) {
            problems.push(format!(
                "filestore-handlers without its features builds `{name}` (see `cargo tree -p \
                 filestore-handlers --no-default-features -i {name} -e normal,build`)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The longest a Rust source file may be without saying, in its header, why it is
/// one file: a longer one usually holds several concepts that want modules of their
/// own. The reason is a sentence of the leading `//!` block that names the limit.
const LONG_FILE_LINES: usize = 800;

/// Every Rust file of the workspace (vendored crates aside) is at most
/// [`LONG_FILE_LINES`] long, or its header says why it is longer.
#[test]
fn long_files_say_why_in_their_header() {
    let root = repo_root();
    let mut files = Vec::new();
    // Every crate folder at the top (read, not listed, so a new crate is covered) and
    // the integration tests.
    let crates = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path());
    for dir in crates.filter(|d| d.join("Cargo.toml").is_file()).chain([root.join("tests")]) {
        rust_files_under(&dir, true, &mut files);
    }
    assert!(files.len() > 300, "the walk found only {} Rust files", files.len());
    let unexplained: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let lines = text.lines().count();
            let header: String =
                text.lines().take_while(|l| l.starts_with("//!")).collect::<Vec<_>>().join(" ");
            let says_why = header.contains(&format!("{LONG_FILE_LINES} lines"));
            (lines > LONG_FILE_LINES && !says_why).then(|| {
                format!("{} ({lines} lines)", f.strip_prefix(&root).unwrap_or(f).display())
            })
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "files above {LONG_FILE_LINES} lines whose `//!` header does not say why they are one file \
         (split them, or add a sentence naming the limit):\n{}",
        unexplained.join("\n")
    );
}

/// `cargo tree`'s packages with their features, one `name version [features]` line
/// each, for `args` (run from the workspace root).
fn features_of(args: &[&str]) -> BTreeSet<String> {
    let root = repo_root();
    let out = std::process::Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--prefix", "none", "-f", "{p} [{f}]"])
        .args(args)
        .current_dir(&root)
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "cargo tree {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        // A line per package; its repeats end in `(*)`, a proc macro says so.
        .map(|l| l.replace(" (*)", "").replace(" (proc-macro)", ""))
        .filter(|l| !l.is_empty() && !l.starts_with("filestore-python "))
        .collect()
}

/// The wheel the integration tests build (maturin, `python/native` alone, its
/// `test-build` feature, in the test build's target directory) gives every
/// dependency the features `cargo test --workspace` gives it, so it reuses that
/// build's artifacts instead of compiling most of the graph a second time.
#[test]
fn the_test_wheel_shares_the_test_builds_dependencies() {
    let workspace = features_of(&["--workspace", "-e", "normal,build,dev"]);
    let wheel =
        features_of(&["-p", "filestore-python", "--features", "test-build", "-e", "normal,build"]);
    let differ: Vec<&String> = wheel.difference(&workspace).collect();
    assert!(wheel.len() > 300, "cargo tree listed {} packages: the scan is broken", wheel.len());
    assert!(
        differ.is_empty(),
        "python/native built alone gives these crates other features than the workspace's \
         test build does (left: the wheel's; `cargo tree --workspace -e normal,build,dev` shows \
         the workspace's): add what is missing to python/native's `test-build` feature\n{}",
        differ.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// The crates built unoptimised as build-time code (proc macros and the crates only
/// they use) are the same in the test build's profile and the release build's (the
/// workspace `Cargo.toml`): a crate added to one list belongs in the other.
#[test]
fn build_time_crates_are_unoptimised_in_both_profiles() {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    let lines: Vec<&str> = manifest.lines().collect();
    let unoptimised = |profile: &str| -> BTreeSet<String> {
        let header = format!("[profile.{profile}.package.");
        let named = |w: &[&str]| Some(w[0].strip_prefix(&header)?.strip_suffix(']')?.to_string());
        lines.windows(2).filter(|w| w[1] == "opt-level = 0").filter_map(named).collect()
    };
    let (dev, release) = (unoptimised("dev"), unoptimised("release"));
    assert!(dev.contains("syn"), "no build-time list in the dev profile: {dev:?}");
    assert_eq!(dev, release, "the dev and release profiles' build-time lists differ");
}
