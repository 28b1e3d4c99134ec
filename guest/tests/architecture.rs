//! The guest's folders are layers, and this test keeps them so.
//!
//! Each folder of `src/` is one concept (see the module docs in each `mod.rs`). A
//! folder may use only the folders below it:
//!
//! ```text
//! error  <-  vfs  <-  ops
//!                 <-  tools  <-  skills  <-  shell  <-  invoke  <-  session, glue (top)
//! ```
//!
//! (`invoke` and `shell` may also use `ops`: built-in tools run inside the component.) The test
//! reads every non-test line that names `crate::FOLDER`, so a new import that breaks
//! the layering, or closes a cycle between folders, fails with the file and line that
//! introduced it. Doc comments and `#[cfg(test)]` items are not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each folder (or top-level module) and the folders it may use.
const ALLOWED: &[(&str, &[&str])] = &[
    ("error", &[]),
    // getrandom's custom backend in the component: a leaf, used by nothing in the crate.
    ("entropy", &[]),
    ("vfs", &["error"]),
    ("ops", &["error", "vfs"]),
    ("tools", &["error", "vfs"]),
    ("skills", &["error", "vfs", "tools"]),
    // The shell of filestore_execute: its filesystem is the mount table, its moves and
    // deletes the tools' own, and it reports what a skill read activated.
    ("shell", &["error", "vfs", "ops", "tools", "skills"]),
    ("invoke", &["error", "vfs", "ops", "tools", "skills", "shell"]),
];

/// Modules at the top of the crate that compose everything (allowed to use any folder;
/// no folder may use them).
const TOP: &[&str] = &["lib", "session", "glue"];

/// The crate's directory: `CARGO_MANIFEST_DIR` as cargo sets it when it runs the test
/// (the checkout under test), else as it was at compile time. Not the compile-time
/// value alone: checkouts sharing a target directory reuse each other's test binaries
/// for unchanged sources, and a path compiled in would read the files of the checkout
/// that built them.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate-level module a file belongs to: its folder, or its own name at the top.
fn owner(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// `(line number, module)` for every `crate::MODULE` named by non-test code.
fn dependencies(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut skip_depth: Option<i64> = None;
    let mut pending_cfg_test = false;
    let mut depth: i64 = 0;
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = line.trim_start();
        let opens = code.matches('{').count() as i64;
        let closes = code.matches('}').count() as i64;
        if skip_depth.is_none() && trimmed.starts_with("#[cfg(test)]") {
            pending_cfg_test = true;
            continue;
        }
        if pending_cfg_test {
            if trimmed.starts_with("#[") {
                continue;
            }
            pending_cfg_test = false;
            if opens > closes {
                skip_depth = Some(depth);
            }
            depth += opens - closes;
            continue;
        }
        depth += opens - closes;
        if let Some(d) = skip_depth {
            if depth <= d {
                skip_depth = None;
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let name: String =
                tail.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() && name.chars().next().unwrap().is_ascii_lowercase() {
                out.push((i + 1, name));
            }
            rest = tail;
        }
    }
    out
}

#[test]
fn folders_use_only_the_layers_below_them() {
    let src = manifest_dir().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut violations = Vec::new();
    let mut seen_deps = 0;
    for file in &files {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let from = owner(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for (line, to) in dependencies(&text) {
            seen_deps += 1;
            if to == from {
                continue;
            }
            edges.entry(from.clone()).or_default().insert(to.clone());
            if TOP.contains(&from.as_str()) {
                continue;
            }
            let ok = allowed.get(from.as_str()).is_some_and(|a| a.contains(&to.as_str()));
            if !ok {
                let rel = file.strip_prefix(&src).unwrap().display();
                violations.push(format!("src/{rel}:{line}: `{from}` uses `crate::{to}`"));
            }
        }
        assert!(
            TOP.contains(&from.as_str()) || allowed.contains_key(from.as_str()),
            "src/{}: module `{from}` is in no layer; add it to ALLOWED or TOP in {}",
            file.strip_prefix(&src).unwrap().display(),
            file!()
        );
    }
    // The scan must have found the crate's real imports, or it checks nothing.
    assert!(seen_deps > 100, "only {seen_deps} crate:: paths found: the scan is broken");
    assert!(edges.get("invoke").is_some_and(|e| e.contains("tools")), "{edges:?}");
    assert!(
        violations.is_empty(),
        "imports against the layering (see the doc of {}):\n{}",
        file!(),
        violations.join("\n")
    );
}

/// The module path of a file: `src/tools/config/load/mod.rs` is `tools::config::load`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// The longest known module that `path` (after `crate::`) names.
fn resolve<'a>(modules: &'a BTreeSet<String>, path: &str) -> Option<&'a String> {
    let parts: Vec<&str> = path.split("::").collect();
    (1..=parts.len()).rev().find_map(|k| modules.get(&parts[..k].join("::")))
}

/// `crate::a::b::c` paths named by non-test code, whole (not only the first segment).
fn full_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (line, _) in dependencies(text) {
        let code = text.lines().nth(line - 1).unwrap().split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let path: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            out.push(path.trim_end_matches(':').to_string());
            rest = tail;
        }
    }
    out
}

/// Within and across folders, no two modules import each other, directly or through
/// others (a module and its own submodules aside: `super::` is not counted).
#[test]
fn no_module_import_cycles() {
    let src = manifest_dir().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| f.file_name().is_some_and(|n| n != "tests.rs"));
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for path in full_paths(&text) {
            if let Some(to) = resolve(&modules, &path) {
                let nested =
                    to.starts_with(&format!("{from}::")) || from.starts_with(&format!("{to}::"));
                if *to != from && !nested {
                    edges.entry(from.clone()).or_default().insert(to.clone());
                }
            }
        }
    }
    assert!(edges.len() > 20, "too few modules with imports: the scan is broken: {edges:?}");
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for n in edges.get(m).into_iter().flatten() {
            match state.get(n.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == n).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(n.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(n, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in &modules {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(m, &edges, &mut state, &mut stack) {
                panic!("modules import each other: {}", cycle.join(" -> "));
            }
        }
    }
}

#[test]
fn the_scan_sees_through_comments_and_skips_test_code() {
    let text = "use crate::vfs::paths;\n// crate::invoke in a comment\n/// [`crate::session`]\nfn f() { crate::ops::ls::ls(); }\n#[cfg(test)]\nmod tests {\n    use crate::session::Session;\n    fn g() {}\n}\nuse crate::tools::params;\n";
    let deps: Vec<String> = dependencies(text).into_iter().map(|(_, m)| m).collect();
    assert_eq!(deps, ["vfs", "ops", "tools"]);
}
