//! The documentation holds together: every relative link of the README, BENCHMARKS.md
//! and `docs/*.md` reaches a file and, with a `#anchor`, a heading of it (GitHub's
//! anchor rules); every `docs/*.md#anchor` a source file cites exists; no source cites
//! the design document's old section numbers; the README's quickstart call runs and
//! its client configuration starts a server; the embedding guide shows, verbatim, the
//! examples the tests run.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::repo_root;

mod examples;
pub(crate) mod sizes;

/// The README's size limit: it sells and starts; depth lives in `docs/`.
const MAX_README_BYTES: usize = 15 * 1024;

/// Directories besides the crates' whose source files may cite `docs/*.md` (walked
/// recursively): the WIT, the integration tests, the other hosts, the Python package,
/// the scripts. Every folder at the top with a `Cargo.toml` is scanned too
/// ([`source_files`]), so a new crate cannot be left out.
const SOURCE_DIRS: [&str; 5] = ["wit", "tests", "hosts", "python", "scripts"];
/// Extensions of the source files scanned for citations.
const SOURCE_EXTENSIONS: [&str; 9] = ["rs", "wit", "js", "mjs", "py", "toml", "yaml", "sh", "md"];
/// Directories never scanned: dependencies (vendored crates cite their own docs/),
/// build output, generated bindings.
const SKIPPED_DIRS: [&str; 7] =
    ["node_modules", "target", "gen", "__pycache__", ".venv", "venv", "vendor"];

/// The markdown files whose links are checked: the README, BENCHMARKS.md, the Python
/// package's README and everything in `docs/`.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        ["README.md", "BENCHMARKS.md", "python/README.md"].iter().map(|f| root.join(f)).collect();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => out.push((i + 1, line)),
            _ => {}
        }
    }
    out
}

/// `line` without its inline code spans, so `a[i](x)` in code is not read as a link.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The link targets of one prose line: `[text](target)`, `![alt](target)` and the
/// reference definition `[label]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let end = closing_paren(rest);
        targets.push(clean_target(&rest[..end]));
        rest = &rest[end..];
    }
    let trimmed = line.trim_start();
    if let (true, Some(at)) = (trimmed.starts_with('['), trimmed.find("]: ")) {
        targets.push(clean_target(&trimmed[at + 3..]));
    }
    targets
}

/// Where the parenthesised target starting `text` ends (nested parentheses allowed).
fn closing_paren(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return i,
            ')' => depth -= 1,
            _ => {}
        }
    }
    text.len()
}

/// A target without its title (`url "title"`) and angle brackets.
fn clean_target(raw: &str) -> String {
    let raw = raw.trim();
    let first = raw.split_whitespace().next().unwrap_or("");
    first.trim_start_matches('<').trim_end_matches('>').to_string()
}

/// The anchor GitHub gives a heading: its rendered text lowercased, every character
/// that is not a letter, digit, `-`, `_` or space dropped, each space a `-`.
fn slug(heading: &str) -> String {
    let text = link_texts(heading);
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// `heading` with each `[text](target)` replaced by its text, as GitHub renders it.
fn link_texts(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at].replacen('[', "", 1));
        let after = &rest[at + 2..];
        rest = &after[(closing_paren(after) + 1).min(after.len())..];
    }
    out.push_str(rest);
    out
}

/// Every anchor a markdown file defines: each ATX heading's slug (a repeated slug
/// gets `-1`, `-2`... as on GitHub) and each explicit `<a id="...">` / `<a name="...">`.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = HashSet::new();
    for (_, line) in prose_lines(text) {
        if let Some(heading) = atx_heading(line) {
            let base = slug(heading);
            let n = seen.entry(base.clone()).or_insert(0);
            out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
            *n += 1;
        }
        for attr in ["id=\"", "name=\""] {
            for part in line.split("<a ").skip(1) {
                if let Some(v) = part.split(attr).nth(1).and_then(|v| v.split('"').next()) {
                    out.insert(v.to_string());
                }
            }
        }
    }
    out
}

/// The text of an ATX heading line (`## Title ##` gives `Title`), if it is one.
fn atx_heading(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
        return None;
    }
    Some(line[hashes..].trim().trim_end_matches('#').trim_end())
}

/// Whether `target` leaves the repository (a URL with a scheme, or mail).
fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// Why `target`, written in the markdown file `from`, does not resolve; `None` when
/// it does (a file or directory that exists, and the anchor a heading of that file).
fn broken(
    from: &Path,
    target: &str,
    cache: &mut HashMap<PathBuf, HashSet<String>>,
) -> Option<String> {
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() { from.to_path_buf() } else { from.parent()?.join(path) };
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    let anchor = anchor?;
    if file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let known = cache
        .entry(file.clone())
        .or_insert_with(|| anchors(&std::fs::read_to_string(&file).unwrap_or_default()));
    (!known.contains(anchor))
        .then(|| format!("no heading of {} has the anchor #{anchor}", file.display()))
}

/// Every broken relative link of one markdown file, as `file:line: target: reason`.
fn broken_links(file: &Path, cache: &mut HashMap<PathBuf, HashSet<String>>) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut out = Vec::new();
    for (n, line) in prose_lines(&text) {
        for target in link_targets(line).into_iter().filter(|t| !t.is_empty() && !is_external(t)) {
            if let Some(why) = broken(file, &target, cache) {
                out.push(format!("{}:{n}: {target}: {why}", file.display()));
            }
        }
    }
    out
}

/// The source files that may cite the documentation (see [`SOURCE_DIRS`]).
fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = SOURCE_DIRS.iter().map(|d| root.join(d)).collect();
    let crates = std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path());
    stack.extend(crates.filter(|d| d.join("Cargo.toml").is_file()));
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().map(|e| e.unwrap()) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().unwrap().is_dir() {
                if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_str()) {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| SOURCE_EXTENSIONS.iter().any(|x| e == *x)) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The citations of a page of `docs/` in `text`, with their `#anchor` when they have one.
fn doc_citations(text: &str) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = Vec::new();
    for (at, _) in text.match_indices("docs/") {
        // `/docs/x.md` or `my-docs/` is some other directory, not the repository's.
        if text[..at].ends_with(|c: char| word(c) || c == '/' || c == '.') {
            continue;
        }
        let rest = &text[at + 5..];
        let name_len = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
        let Some(after) = rest[name_len..].strip_prefix(".md") else { continue };
        let mut cited = format!("docs/{}.md", &rest[..name_len]);
        if let Some(anchor) = after.strip_prefix('#') {
            let anchor = &anchor[..anchor.find(|c: char| !word(c)).unwrap_or(anchor.len())];
            if !anchor.is_empty() {
                cited.push('#');
                cited.push_str(anchor);
            }
        }
        out.push(cited);
    }
    out
}

#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = repo_root();
    let mut cache = HashMap::new();
    let broken: Vec<String> =
        markdown_files(&root).iter().flat_map(|f| broken_links(f, &mut cache)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_docs_citation_in_the_sources_resolves() {
    let root = repo_root();
    let readme = root.join("README.md");
    let mut cache = HashMap::new();
    let mut bad = Vec::new();
    let mut cited = 0;
    for file in source_files(&root) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for citation in doc_citations(&text) {
            cited += 1;
            // Resolved from the repository root, as a link written in the README would be.
            if let Some(why) = broken(&readme, &citation, &mut cache) {
                bad.push(format!("{}: {citation}: {why}", file.display()));
            }
        }
    }
    assert!(bad.is_empty(), "citations of docs/ that do not resolve:\n{}", bad.join("\n"));
    assert!(
        cited > 50,
        "only {cited} citations of docs/ found: is the scan looking in the right place?"
    );
}

/// The code once cited a design document that is not in the repository ("DESIGN"
/// and a section sign); `docs/architecture.md` replaced it.
#[test]
fn no_source_cites_the_design_document_by_section_number() {
    let root = repo_root();
    let needle = format!("DESIGN {}", '\u{a7}');
    let mut files = source_files(&root);
    files.extend(markdown_files(&root));
    let stale: Vec<String> = files
        .iter()
        .filter(|f| std::fs::read_to_string(f).unwrap_or_default().contains(&needle))
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        stale.is_empty(),
        "cite a section of docs/architecture.md instead in:\n{}",
        stale.join("\n")
    );
}

/// The checker itself: it finds what it must (a missing file, a missing anchor) and
/// accepts what GitHub resolves (slugs with punctuation, repeated headings, explicit
/// anchors, links inside code are not links).
#[test]
fn the_link_checker_reports_missing_files_and_anchors() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    let text = "# Configured tools (`tools.yaml`)\n## Python / deepagents\n## Notes\n## Notes\n\
        <a id=\"stable\"></a>\n```sh\n# not a heading\n[x](missing-in-code.md)\n```\n\
        [ok](#configured-tools-toolsyaml) [ok](#python--deepagents) [ok](#notes-1) [ok](#stable)\n\
        [ok](page.md#notes) [ok](https://example.com/x.md) `[code](nowhere.md)`\n\
        [bad](#not-a-heading) [bad](other.md) [bad](page.md#nope)\n[ref]: missing-ref.md\n";
    std::fs::write(&page, text).unwrap();
    let found = broken_links(&page, &mut HashMap::new());
    let targets: Vec<&str> = found.iter().map(|l| l.split(": ").nth(1).unwrap()).collect();
    assert_eq!(
        targets,
        ["#not-a-heading", "other.md", "page.md#nope", "missing-ref.md"],
        "{found:#?}"
    );
    assert_eq!(
        doc_citations("see docs/architecture.md#mount-table, docs/security.md and docs/x"),
        ["docs/architecture.md#mount-table", "docs/security.md"]
    );
}

#[test]
fn the_readme_stays_short() {
    let size = std::fs::metadata(repo_root().join("README.md")).unwrap().len() as usize;
    assert!(size <= MAX_README_BYTES, "README.md is {size} bytes; move depth into docs/");
}

/// The code blocks of `text` fenced as `lang`.
fn code_blocks<'a>(text: &'a str, lang: &str) -> Vec<&'a str> {
    let fence = format!("```{lang}\n");
    text.split(fence.as_str()).skip(1).map(|b| b.split("```").next().unwrap()).collect()
}

/// The words of a shell command line: whitespace-separated, `'...'` taken literally.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The README's quickstart: the main job (`serve`) and the test command are shown,
/// and its one-call example runs as written (in a directory holding a `fn main`).
#[test]
fn the_readme_quickstart_call_runs() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let sh: Vec<&str> = code_blocks(&readme, "sh").into_iter().flat_map(str::lines).collect();
    for shown in ["cargo run --locked --release -p filestore -- serve", "cargo test --workspace"] {
        assert!(sh.contains(&shown), "the README's quickstart must show `{shown}`");
    }
    let call = sh.iter().find(|l| l.contains(" -- call ")).expect("a `-- call` example");
    let args = shell_words(call.split(" -- ").nth(1).unwrap());
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(&args)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["lines"][0]["path"], "/w/src/main.rs", "{stdout}");
}

/// The README's MCP client configuration starts a server that answers `initialize`
/// (its `args` given to the binary, the project path a real directory).
#[test]
fn the_readme_client_configuration_starts_a_server() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let config: Value = serde_json::from_str(code_blocks(&readme, "json")[0]).unwrap();
    let server = &config["mcpServers"]["filestore"];
    assert!(server["command"].as_str().unwrap().ends_with("/filestore"), "{server}");
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<String> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().replace("/path/to/project", &dir.path().to_string_lossy()))
        .collect();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filestore"));
    command.args(&args);
    let (client, answer) = crate::support::mcp_stdio::McpStdio::start(command);
    let (status, stderr) = client.close(); // end of input: the server ends
    assert_eq!(answer["result"]["serverInfo"]["name"], "filestore", "{answer}");
    assert!(status.success(), "{args:?} exited with {status}; stderr:\n{stderr}");
}

/// The embedding guide shows the examples the tests run, verbatim: the Rust one
/// (`sandbox/examples/embed.rs`, run as a doctest of the crate), the Node one (run by
/// `hosts/node/test/guide.test.js`) and the Python one (run by
/// `hosts/python/test_contract.py`).
#[test]
fn the_embedding_guide_shows_the_tested_examples() {
    let guide = std::fs::read_to_string(repo_root().join("docs/embedding.md")).unwrap();
    for (lang, file) in [
        ("rust", "sandbox/examples/embed.rs"),
        ("js", "hosts/node/examples/embed.mjs"),
        ("python", "hosts/python/example.py"),
    ] {
        let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
        let shown = code_blocks(&guide, lang).contains(&text.as_str());
        assert!(shown, "docs/embedding.md must show {file} verbatim in a ```{lang} block");
    }
}

/// docs/configured-tools.md counts the prebuilt PostgreSQL types as the code has them
/// (it said 21 when there were 22), both where it counts them and in "N others".
#[test]
fn the_prebuilt_postgres_count_is_the_codes() {
    let page = std::fs::read_to_string(repo_root().join("docs/configured-tools.md")).unwrap();
    let n = filestore_guest::tools::config::prebuilt::postgres::TOOLS.len();
    assert!(
        page.contains(&format!("Toolbox's {n} prebuilt")),
        "docs/configured-tools.md must say {n} prebuilt types"
    );
    let named = [
        "`postgres-list-tables`",
        "`-list-views`",
        "`-list-indexes`",
        "`-database-overview`",
        "`-list-active-queries`",
    ];
    assert!(named.iter().all(|t| page.contains(t)));
    assert!(
        page.contains(&format!("and the {} others", n - named.len())),
        "the count of the others"
    );
}
