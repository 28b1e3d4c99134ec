//! Every example of README.md and `docs/*.md` runs as written, or says why it cannot
//! here: [`EXAMPLES`] names each fenced block (by its page and first line) with the
//! test that runs it, and a block that is not listed fails
//! [`every_example_is_run_or_says_why_not`], so a new example comes with its test.
//!
//! Shell blocks run with `bash -e` exactly as written, in a directory holding the files
//! the page names, with one substitution: `cargo run --locked --release -p filestore --` and a
//! `filestore` on `PATH` are the binary cargo built for these tests (the same crate;
//! a release build of it inside a test run would take minutes). `python` and `pip` are
//! those of the venv the Python tests install into. A server an example starts is
//! started on loopback and stopped once it said it is serving, or, over stdio, ends
//! when its input does.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::common::repo_root;
use crate::support::cmd::{Ran, run};
use crate::support::mcp_stdio::McpStdio;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// How an example is exercised.
enum How {
    /// Run by this test (or, for a file a shell block runs, by that block's test).
    Runs(&'static str),
    /// Not runnable here, and why (each reason names what does test it, if anything).
    Shown(&'static str),
}

use How::{Runs, Shown};

/// The starts of docs/mcp-server.md's two LangChain examples (alike up to their
/// imports), which `mcp::clients` runs.
const LANGCHAIN_ONE_SESSION: &str = "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient\nfrom langchain_mcp_adapters.tools";
const LANGCHAIN_PER_CALL: &str =
    "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient\n\nclient";

/// Every fenced block of the README and `docs/`: page, first line, how it is exercised.
const EXAMPLES: &[(&str, &str, How)] = &[
    ("README.md", "cargo run --locked --release -p filestore -- serve", Runs("serve_lines_start")),
    ("README.md", "{", Runs("docs::the_readme_client_configuration_starts_a_server")),
    (
        "README.md",
        "cargo run --locked --release -p filestore -- call filestore_grep",
        Runs("docs::the_readme_quickstart_call_runs"),
    ),
    (
        "README.md",
        "filestore 0.1.0",
        Shown(
            "the output of `filestore --version` with the digest left out; cli::version_names_the_component_and_wit checks each line",
        ),
    ),
    (
        "README.md",
        "cargo test --workspace",
        Shown("the test command itself: running it from a test would recurse"),
    ),
    (
        "README.md",
        "cargo install --locked --path host",
        Shown(
            "a release build of the binary into ~/.cargo/bin (about 25 minutes): the tests run the same crate's binary, built by cargo for them",
        ),
    ),
    (
        "README.md",
        "cargo build --locked --release -p filestore",
        Shown(
            "a release build (about 25 minutes the first time): the tests run the same crate's binary, built by cargo for them",
        ),
    ),
    (
        "docs/cow.md",
        "# Changes in memory, gone when the session ends (see the diff with filestore_diff):",
        Shown(
            "`serve` runs until its client leaves, over the current directory; the same specs and commands run in cow::an_mcp_session_on_a_cow_workspace_diffs_and_leaves_the_directory (serve DIR:cow) and cow::a_session_on_a_cow_checkout_never_writes_it_and_its_diff_applies (DIR:cow=UPPER, filestore diff, apply --check, apply)",
        ),
    ),
    (
        "docs/audit.md",
        "{\"format\":1",
        Shown(
            "a record as stored; audit::the_rust_api_records_exactly_the_mutations_and_no_secret reads such records back and checks every field",
        ),
    ),
    (
        "docs/audit.md",
        "/audit/<YYYY-MM-DD>/",
        Shown(
            "the naming pattern; audit::the_rust_api_records_exactly_the_mutations_and_no_secret globs by tool and status on it",
        ),
    ),
    (
        "docs/snapshots.md",
        "filestore snapshot --state ./state --conversation conv-1 create before-refactor",
        Shown(
            "needs a conversation in ./state; snapshots::the_snapshot_command_creates_lists_restores_and_forks runs create, list, restore and fork against a store it fills",
        ),
    ),
    (
        "docs/snapshots.md",
        "use filestore::conversation::{ConversationKey, StateSpec, StateStore};",
        Shown(
            "a fragment; snapshots::snapshot_restore_and_fork_on_a_directory_store makes the same calls",
        ),
    ),
    (
        "docs/snapshots.md",
        "use filestore::snapshot::Snapshots;",
        Shown(
            "a fragment over volumes the reader has; snapshots::an_unchanged_tree_is_neither_read_nor_written_again makes the same calls",
        ),
    ),
    ("docs/agents.md", "# agent-min.yaml", Runs("agents_minimal_example_runs")),
    (
        "docs/agents.md",
        "filestore call --agent agent-min.yaml",
        Runs("agents_minimal_example_runs"),
    ),
    (
        "docs/agents.md",
        "# agent.yaml",
        Shown(
            "its upstream servers are a documentation server and an issue tracker at example.com; tests/integration/agent.rs resolves the same kinds of refs against real upstream MCP servers",
        ),
    ),
    (
        "docs/agents.md",
        "filestore serve --agent agent.yaml",
        Shown("needs the agent.yaml above, whose tracker is not reachable here"),
    ),
    ("docs/architecture.md", "wit/filestore.wit", Shown("a diagram, not a command")),
    (
        "docs/configured-tools.md",
        "kind: source\nname: my-db",
        Runs("configured_tools_example_runs"),
    ),
    (
        "docs/configured-tools.md",
        "filestore check tools.yaml",
        Runs("configured_tools_example_runs"),
    ),
    (
        "docs/configured-tools.md",
        "kind: source\nname: my-pg-source",
        Runs("configured_tools_example_runs"),
    ),
    (
        "docs/configured-tools.md",
        "kind: source\nname: my-mysql",
        Runs("configured_tools_example_runs"),
    ),
    (
        "docs/configured-tools.md",
        "kind: source\nname: cache",
        Runs("configured_tools_example_runs"),
    ),
    (
        "docs/configured-tools.md",
        "kind: authService\nname: my-oauth",
        Shown(
            "its authorization server is not reachable here; tests/mcp_python/test_auth.py (ScopesRequiredTest) serves the same fields with a local issuer over HTTP",
        ),
    ),
    (
        "docs/configured-tools.md",
        "kind: tool\nname: label",
        Shown(
            "one tool without its source; tools::cli_call_checks_a_declared_output_schema runs the same tool through `filestore call`",
        ),
    ),
    (
        "docs/skills.md",
        "filestore serve: 2 name(s) in --skills",
        Shown(
            "what serve prints; skills::orphans_are_found_at_start_with_where_they_are_named checks these lines from a real serve",
        ),
    ),
    (
        "docs/skills.md",
        "tool: plan",
        Shown(
            "a descriptor over tools the page does not configure; skills::a_complete_skill_executor_descriptor runs one with every field over a real SQLite database",
        ),
    ),
    (
        "docs/deploying.md",
        "# JWTs from your identity provider",
        Shown(
            "needs an identity provider at login.example.com; tests/mcp_python/test_auth.py serves with JWTs and static tokens from a local issuer",
        ),
    ),
    (
        "docs/deploying.md",
        "# tools.yaml: each caller sees only their own rows.",
        Runs("deploying_config_checks"),
    ),
    (
        "docs/deploying.md",
        "# On every replica: the same workspace bucket and the same state store.",
        Shown(
            "needs an identity provider and a bucket; tests/integration/replicas.rs runs two replicas with --state on a directory and on a local S3 server",
        ),
    ),
    (
        "docs/deploying.md",
        "upstream filestore {",
        Shown(
            "an nginx configuration; tests/integration/replicas.rs sends a conversation's sessions to both replicas directly",
        ),
    ),
    (
        "docs/deploying.md",
        "export AWS_ACCESS_KEY_ID=",
        Shown(
            "needs an AWS account and bucket; tests/integration/object_store.rs runs call and serve with s3:// mounts on a local S3 server",
        ),
    ),
    (
        "docs/embedding.md",
        "//! Embedding the filestore sandbox in Rust.",
        Runs(
            "docs::the_embedding_guide_shows_the_tested_examples (sandbox/examples/embed.rs, a doctest)",
        ),
    ),
    (
        "docs/embedding.md",
        "cargo run --locked --release -p filestore -- component -o filestore.wasm\ncd hosts/node",
        Runs("embedding_node_steps_run"),
    ),
    ("docs/embedding.md", "// node examples/embed.mjs GEN_DIR", Runs("embedding_node_steps_run")),
    (
        "docs/embedding.md",
        "cargo run --locked --release -p filestore -- component -o filestore.wasm\npip install",
        Runs("embedding_python_steps_run"),
    ),
    (
        "docs/embedding.md",
        "# cd hosts/python && python example.py",
        Runs("embedding_python_steps_run"),
    ),
    (
        "docs/mcp-server.md",
        "cargo run --locked --release -p filestore -- serve ",
        Runs("serve_lines_start"),
    ),
    (
        "docs/mcp-server.md",
        "{",
        Runs("docs::the_readme_client_configuration_starts_a_server (the same configuration)"),
    ),
    (
        "docs/mcp-server.md",
        LANGCHAIN_ONE_SESSION,
        Runs("mcp::clients::the_langchain_examples_keep_one_workspace"),
    ),
    (
        "docs/mcp-server.md",
        LANGCHAIN_PER_CALL,
        Runs("mcp::clients::the_langchain_examples_keep_one_workspace"),
    ),
    (
        "docs/mcp-server.md",
        "filestore serve --http 127.0.0.1:8765 --state mem:",
        Runs("mcp::clients::the_langchain_examples_keep_one_workspace (on a free port)"),
    ),
    (
        "docs/python.md",
        "pip install maturin",
        Shown(
            "a release build and an install into the user's Python; tests/integration/python_package.rs builds the same wheel (dev profile) with the same maturin and installs it with its deepagents extra into a venv",
        ),
    ),
    (
        "docs/python.md",
        "from deepagents import create_deep_agent\nfrom filestore",
        Shown(
            "calls Anthropic's API (ANTHROPIC_API_KEY); the offline example below runs the same backend",
        ),
    ),
    (
        "docs/python.md",
        "from deepagents import create_deep_agent\nfrom langchain_core",
        Runs("python_offline_agent_example_runs"),
    ),
    (
        "docs/python.md",
        "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient",
        Runs("mcp::clients::the_langchain_examples_keep_one_workspace (on a project directory)"),
    ),
    ("docs/shell.md", "filestore call filestore_execute", Runs("shell_example_runs")),
    ("docs/shell.md", "printf 'import csv, sys", Runs("python_example_runs")),
    (
        "docs/shell.md",
        "cargo bench --locked -p filestore --bench shell_mcp",
        Shown("a benchmark: minutes of timed runs against bash, whose figures are BENCHMARKS.md's"),
    ),
    ("docs/skills.md", "skills/", Runs("skills_example_runs (the folder it builds)")),
    ("docs/skills.md", "---\nname: reporting", Runs("skills_example_runs")),
    ("docs/skills.md", "# tools.yaml", Runs("skills_example_runs")),
    (
        "docs/skills.md",
        "filestore serve --config tools.yaml --toolset base --skills ./skills",
        Runs("skills_example_runs"),
    ),
    (
        "docs/skills.md",
        "Skills: each is a folder",
        Runs("skills_example_runs (the prompt it shows)"),
    ),
    ("docs/skills.md", "tool: delete_rows", Runs("skills_example_runs")),
    ("docs/testing.md", "cargo test --workspace", Shown("the test command itself")),
    (
        "docs/testing.md",
        "cargo test -p filestore --test integration confinement::",
        Shown("the test command itself"),
    ),
];

/// The fenced blocks of `text`: (language, body).
fn fenced_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(lang)) => open = Some((lang.trim().to_string(), String::new())),
            (Some(_), Some("")) => out.extend(open.take()),
            (Some((_, body)), _) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// The pages whose examples must run.
fn pages() -> Vec<String> {
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo_root().join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The one block of `page` starting with `first` (the key of [`EXAMPLES`]).
#[track_caller]
fn block(page: &str, first: &str) -> String {
    let text = std::fs::read_to_string(repo_root().join(page)).unwrap();
    let found: Vec<String> = fenced_blocks(&text)
        .into_iter()
        .map(|(_, body)| body)
        .filter(|body| body.trim_start().starts_with(first))
        .collect();
    assert_eq!(found.len(), 1, "{page}: {} blocks start with {first:?}", found.len());
    found.into_iter().next().unwrap()
}

#[test]
fn every_example_is_run_or_says_why_not() {
    let mut unlisted = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(repo_root().join(&page)).unwrap();
        for (_, body) in fenced_blocks(&text) {
            let keys: Vec<&str> = EXAMPLES
                .iter()
                .filter(|(p, first, _)| *p == page && body.trim_start().starts_with(first))
                .map(|(_, first, _)| *first)
                .collect();
            if keys.is_empty() {
                unlisted.push(format!("{page}: {}", body.lines().next().unwrap_or("")));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "examples no test runs (add each to EXAMPLES with its test, or why it cannot run):\n{}",
        unlisted.join("\n")
    );
    for (page, first, how) in EXAMPLES {
        block(page, first); // each listed block exists, once
        if let Shown(why) = how {
            assert!(!why.is_empty(), "{page}: {first}: say why it cannot run");
        }
        if let Runs(test) = how {
            assert!(!test.is_empty(), "{page}: {first}: name the test");
        }
    }
}

/// A directory holding `filestore`, a link to the tests' binary, for `PATH`.
fn shims() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(BIN, dir.path().join("filestore")).unwrap();
        dir
    })
    .path()
}

/// `PATH` with the shims first, then `first` (a venv's bin, say), then the rest.
fn path_with(first: &[&Path]) -> std::ffi::OsString {
    let mut dirs: Vec<PathBuf> = vec![shims().to_path_buf()];
    dirs.extend(first.iter().map(|p| p.to_path_buf()));
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// A shell block as the test runs it: `cargo run --locked --release -p filestore --` is the
/// `filestore` of [`shims`].
fn as_run(block: &str) -> String {
    block.replace("cargo run --locked --release -p filestore -- ", "filestore ")
}

/// Runs a shell block with `bash -e` in `dir`, stdin closed.
fn sh(block: &str, dir: &Path, path: &[&Path]) -> Ran {
    run(Command::new("bash")
        .args(["-e", "-c", &as_run(block)])
        .current_dir(dir)
        .env("PATH", path_with(path))
        .stdin(Stdio::null()))
}

/// Runs one `filestore serve` line: over stdio it ends with its (closed) input and
/// must have said it served; with `--http` it is stopped once it said so.
fn serve_line(line: &str, dir: &Path) {
    let mut child = Command::new("bash")
        .args(["-e", "-c", &format!("exec {}", as_run(line))])
        .current_dir(dir)
        .env("PATH", path_with(&[]))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = Vec::new();
    for l in BufReader::new(child.stderr.take().unwrap()).lines() {
        let l = l.unwrap();
        let serving = l.contains("filestore serve: MCP over");
        said.push(l);
        if serving {
            break;
        }
    }
    let serving = said.last().is_some_and(|l| l.contains("filestore serve: MCP over"));
    if line.contains("--http") {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    assert!(serving, "`{line}` in {} did not serve:\n{}", dir.display(), said.join("\n"));
    if !line.contains("--http") {
        assert!(status.success(), "`{line}` ended with {status}:\n{}", said.join("\n"));
    }
}

/// The README's and the server guide's `serve` lines start a server (in a project
/// directory; over HTTP on the documented loopback port, which must be free).
#[test]
fn serve_lines_start() {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("README.md"), "# a project\n").unwrap();
    let mut lines: Vec<String> =
        block("README.md", "cargo run --locked --release -p filestore -- serve")
            .lines()
            .map(String::from)
            .collect();
    lines.extend(
        block("docs/mcp-server.md", "cargo run --locked --release -p filestore -- serve ")
            .lines()
            .map(String::from),
    );
    for line in lines.iter().filter(|l| !l.trim().is_empty()) {
        serve_line(line, project.path());
    }
}

/// docs/shell.md's python3 block: a script written, a CSV piped into it through the
/// shell, the count printed.
#[test]
fn python_example_runs() {
    let project = tempfile::tempdir().unwrap();
    let ran = sh(&block("docs/shell.md", "printf 'import csv, sys"), project.path(), &[]).success();
    let v: Value =
        serde_json::from_str(&ran.stdout()).unwrap_or_else(|e| panic!("{e}: {}", ran.describe()));
    assert_eq!(v["stdout"], "2 rows\n", "{}", ran.describe());
    assert_eq!(v["exit_code"], 0);
}

/// docs/shell.md's two lines: the call greps a project's `src` through the shell; the
/// serve line starts a server offering it.
#[test]
fn shell_example_runs() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("src")).unwrap();
    std::fs::write(project.path().join("src/lib.rs"), "fn a() {}\n// TODO: more\n").unwrap();
    let text = block("docs/shell.md", "filestore call filestore_execute");
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let call = lines.next().unwrap();
    let ran = sh(call, project.path(), &[]).success();
    let v: Value =
        serde_json::from_str(&ran.stdout()).unwrap_or_else(|e| panic!("{e}: {}", ran.describe()));
    assert_eq!(v["stdout"], "src/lib.rs:2:// TODO: more\n", "{}", ran.describe());
    assert_eq!(v["exit_code"], 0);
    for line in lines {
        serve_line(line, project.path());
    }
}

/// docs/agents.md's smallest agent: its `agent-min.yaml` beside a `docs/` folder, then
/// its `call`, which starts the upstream filestore over stdio and greps through it.
#[test]
fn agents_minimal_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs").join("notes.md"), "# Notes\nTODO: write them\n")
        .unwrap();
    std::fs::write(dir.path().join("agent-min.yaml"), block("docs/agents.md", "# agent-min.yaml"))
        .unwrap();
    let ran =
        sh(&block("docs/agents.md", "filestore call --agent agent-min.yaml"), dir.path(), &[])
            .success();
    assert!(ran.stdout().contains("\"/workspace/notes.md\""), "{}", ran.describe());
}

/// The Toolbox example of docs/configured-tools.md: its `tools.yaml`, then its
/// commands in order (the v1 file `migrate` converts is the Toolbox v1 example);
/// its PostgreSQL quickstart configuration checks as runnable.
#[test]
fn configured_tools_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tools.yaml"),
        block("docs/configured-tools.md", "kind: source\nname: my-db"),
    )
    .unwrap();
    std::fs::copy(
        repo_root().join("guest/tests-data/toolbox-v1-example-bound.yaml"),
        dir.path().join("old-v1-tools.yaml"),
    )
    .unwrap();
    let ran = sh(&block("docs/configured-tools.md", "filestore check tools.yaml"), dir.path(), &[])
        .success();
    let out = ran.stdout();
    assert!(
        out.contains("tool 'search_hotels_by_city' (sqlite-sql): runnable"),
        "{}",
        ran.describe()
    );
    assert!(
        out.contains(r#""name": "Hilton""#) && out.contains(r#""city": "Basel""#),
        "{}",
        ran.describe()
    );
    assert!(dir.path().join("hotels.db").exists(), "DB_PATH's default, beside tools.yaml");
    let migrated = std::fs::read_to_string(dir.path().join("tools-v2.yaml")).unwrap();
    assert!(migrated.contains("kind: tool\nname: example_tool"), "{migrated}");

    std::fs::write(
        dir.path().join("pg.yaml"),
        block("docs/configured-tools.md", "kind: source\nname: my-pg-source"),
    )
    .unwrap();
    let ran = run(Command::new(BIN)
        .args(["check", "pg.yaml"])
        .current_dir(dir.path())
        .env("PG_PASSWORD", "x"))
    .success();
    assert!(
        ran.stdout().contains("tool 'book-hotel' (postgres-sql): runnable"),
        "{}",
        ran.describe()
    );

    // The MySQL example checks; tests/integration/mysql.rs runs the same tool shape
    // against a real server.
    std::fs::write(
        dir.path().join("my.yaml"),
        block("docs/configured-tools.md", "kind: source\nname: my-mysql"),
    )
    .unwrap();
    let ran = run(Command::new(BIN)
        .args(["check", "my.yaml"])
        .current_dir(dir.path())
        .env("MYSQL_PASSWORD", "x"))
    .success();
    assert!(
        ran.stdout().contains("tool 'search-hotels-by-name' (mysql-sql): runnable"),
        "{}",
        ran.describe()
    );

    // The Redis example checks; tests/integration/redis.rs runs the same tool shape
    // (an array parameter as words of one command) against a real server.
    std::fs::write(
        dir.path().join("redis.yaml"),
        block("docs/configured-tools.md", "kind: source\nname: cache"),
    )
    .unwrap();
    let ran = run(Command::new(BIN)
        .args(["check", "redis.yaml"])
        .current_dir(dir.path())
        .env("REDIS_PASSWORD", "x"))
    .success();
    assert!(ran.stdout().contains("tool 'tag_user' (redis): runnable"), "{}", ran.describe());
}

/// docs/deploying.md's per-caller configuration loads (its auth service and the
/// source its tool names).
#[test]
fn deploying_config_checks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tools.yaml"),
        block("docs/deploying.md", "# tools.yaml: each caller"),
    )
    .unwrap();
    let ran =
        run(Command::new(BIN).args(["check", "tools.yaml"]).current_dir(dir.path())).success();
    assert!(ran.stdout().contains("tool 'my_notes' (sqlite-sql): runnable"), "{}", ran.describe());
}

/// docs/skills.md: the folder it draws, with its SKILL.md and tools.yaml, served by
/// its command: `hidden_report` appears once the skill is read, the descriptor's
/// skill becomes a tool that waits for approval, and the prompt block is the one shown.
#[test]
fn skills_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let page = "docs/skills.md";
    let reporting = dir.path().join("skills/reporting");
    std::fs::create_dir_all(reporting.join("refs")).unwrap();
    std::fs::write(reporting.join("SKILL.md"), block(page, "---\nname: reporting")).unwrap();
    std::fs::write(
        reporting.join("refs/queries.md"),
        "SELECT team, sum(n) FROM usage GROUP BY team;\n",
    )
    .unwrap();
    let purge = dir.path().join("skills/purge");
    std::fs::create_dir_all(&purge).unwrap();
    std::fs::write(purge.join("SKILL.md"), "---\nname: purge\ndescription: Delete test rows from the usage table.\n---\nCall purge with the smallest n to delete.\n").unwrap();
    std::fs::write(purge.join("descriptor.yaml"), block(page, "tool: delete_rows")).unwrap();
    std::fs::write(dir.path().join("tools.yaml"), block(page, "# tools.yaml")).unwrap();

    let line = block(page, "filestore serve --config tools.yaml --toolset base --skills ./skills");
    let mut command = Command::new("bash");
    command
        .args(["-e", "-c", &format!("exec {}", line.trim())])
        .current_dir(dir.path())
        .env("PATH", path_with(&[]));
    let (mut client, _) = McpStdio::start(command);
    let tools = client.tool_names();
    assert!(
        tools.contains(&"count_rows".to_string()) && !tools.contains(&"hidden_report".to_string()),
        "{tools:?}"
    );
    assert_ne!(client.call_tool("setup", json!({}))["isError"], true);
    let prompt = strings(&client.request("prompts/get", json!({"name": "filestore_instructions"})));
    for line in block(page, "Skills: each is a folder").lines() {
        assert!(
            prompt.contains(line.trim()),
            "the prompt lacks {line:?} of docs/skills.md:\n{prompt}"
        );
    }
    let read = client.call_tool("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    assert_ne!(read["isError"], true, "{read}");
    assert!(
        client.tool_names().contains(&"hidden_report".to_string()),
        "reading SKILL.md enabled it"
    );
    let report = client.call_tool("hidden_report", json!({}));
    assert_ne!(report["isError"], true, "{report}");
    let read = client.call_tool("filestore_read", json!({"path": "/skills/purge/SKILL.md"}));
    assert_ne!(read["isError"], true, "{read}");
    assert!(client.tool_names().contains(&"purge".to_string()), "the descriptor's tool");
    let pending = client.call_tool("purge", json!({"min": 2}));
    assert!(pending.to_string().contains("approval"), "requiresApproval: {pending}");
    let (status, stderr) = client.close();
    assert!(status.success(), "{status}: {stderr}");
}

/// A copy of `hosts/NAME` into `root/hosts/NAME`, without installed or generated files.
fn copy_host(name: &str, root: &Path) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().map(Result::unwrap) {
            let n = e.file_name().to_string_lossy().into_owned();
            if ["node_modules", "gen", "__pycache__", "filestore.wasm"].contains(&n.as_str()) {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(&n));
            } else {
                std::fs::copy(e.path(), to.join(&n)).unwrap();
            }
        }
    }
    copy(&repo_root().join("hosts").join(name), &root.join("hosts").join(name));
}

/// Runs docs/embedding.md's steps for `hosts/NAME` (the block starting with
/// `steps`) from a copy of it, with `path` first on `PATH`; checks what the example
/// prints (`sky` as its JSON prints it) and that the guide shows `example` (its
/// first line `shown`) verbatim. Returns the copy.
fn embedding_steps_run(
    name: &str,
    steps: &str,
    path: &[&Path],
    sky: &str,
    (shown, example): (&str, &str),
) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    copy_host(name, root.path());
    let ran = sh(&block("docs/embedding.md", steps), root.path(), path).success();
    let out = ran.stdout();
    let frozen = "error[read-only]: /notes/todo.md: this volume is frozen";
    assert!(out.contains(frozen) && out.contains(sky), "{}", ran.describe());
    let file = std::fs::read_to_string(root.path().join("hosts").join(name).join(example));
    assert_eq!(block("docs/embedding.md", shown), file.unwrap(), "the guide shows {example}");
    root
}

/// docs/embedding.md's Node steps, from a copy of the repository's `hosts/node`: the
/// component written, jco installed by `npm ci` (the lockfile left as it is), the
/// example transpiled and run.
#[test]
fn embedding_node_steps_run() {
    let lock = std::fs::read(repo_root().join("hosts/node/package-lock.json")).unwrap();
    let root = embedding_steps_run(
        "node",
        "cargo run --locked --release -p filestore -- component -o filestore.wasm\ncd hosts/node",
        &[],
        r#""sky":"clear""#,
        ("// node examples/embed.mjs GEN_DIR", "examples/embed.mjs"),
    );
    let after = std::fs::read(root.path().join("hosts/node/package-lock.json")).unwrap();
    assert!(after == lock, "npm ci must leave the tracked lockfile as it is");
}

/// docs/embedding.md's Python steps, from a copy of `hosts/python`, with the venv the
/// Python host tests install wasmtime into (so `pip install` finds it satisfied).
#[test]
fn embedding_python_steps_run() {
    let venv_bin = crate::python_host::python().parent().unwrap().to_path_buf();
    embedding_steps_run(
        "python",
        "cargo run --locked --release -p filestore -- component -o filestore.wasm\npip install",
        &[&venv_bin],
        r#""sky": "clear""#,
        ("# cd hosts/python && python example.py", "example.py"),
    );
}

/// docs/python.md's offline deepagents example, saved as `offline.py` and run with
/// `python offline.py` where the package is installed and `filestore` is on `PATH`.
#[test]
fn python_offline_agent_example_runs() {
    let dir = tempfile::tempdir().unwrap();
    let example =
        block("docs/python.md", "from deepagents import create_deep_agent\nfrom langchain_core");
    std::fs::write(dir.path().join("offline.py"), example).unwrap();
    let venv_bin = crate::python_package::python().parent().unwrap().to_path_buf();
    let ran = run(Command::new("bash")
        .args(["-e", "-c", "python offline.py"])
        .current_dir(dir.path())
        .env("PATH", path_with(&[&venv_bin]))
        .env_remove("FILESTORE_BIN"))
    .success();
    assert!(ran.stdout().contains("Wrote /notes/summary.md."), "{}", ran.describe());
    let written = std::fs::read_to_string(dir.path().join("notes/summary.md")).unwrap();
    assert_eq!(written, "# Summary\n");
}

/// Every string in `v`, one a line (a prompt's text, wherever the answer holds it).
fn strings(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s}\n"),
        Value::Array(a) => a.iter().map(strings).collect(),
        Value::Object(o) => o.values().map(strings).collect(),
        _ => String::new(),
    }
}
