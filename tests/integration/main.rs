//! End-to-end tests: the real component in real wasmtime instances, through the host
//! library, over memory volumes and real directories.
//!
//! Modules:
//! - `common`: a shared engine and fixtures.
//! - `snapshots`: snapshots, restores and forks of conversations on memory,
//!   directory and S3 stores (docs/snapshots.md), the `snapshot` command.
//! - `audit`: the audit timeline (docs/audit.md) through the Rust API, `filestore
//!   call` and an MCP session: exactly the mutations made, no secret in the store, two
//!   replicas appending to one directory store, `/audit` read-only to the agent.
//! - `read_side`: ls/read/glob/grep/tree through the component
//!   (docs/architecture.md#operations).
//! - `mutations`: write/edit/delete/move, read-only mounts and entries.
//! - `isolation`: the built component's imports against an allow-list (no filesystem,
//!   sockets, http), and no environment or arguments visible inside the guest.
//! - `limits`: guest and host limits hold with typed errors; traps poison one
//!   session only; the compiled-component cache is rebuilt when corrupt or stale.
//! - `memory`: the memory budget of live sandboxes (global and per identity) through
//!   the host library and `serve --http`; idle sessions and cached 2026-07-28
//!   sandboxes give back what a large read grew (the server's VmRSS), keeping their
//!   skills and held follow-ups (docs/security.md#memory).
//! - `concurrency`: 10,000 live sessions and 100 concurrent callers on one engine.
//! - `tools`: configured tools end to end (sqlite, http on loopback, results volume,
//!   offloading, timeouts, approval) and `check`/`migrate`/`call --config`.
//! - `agent`: agent configurations through the host library with real upstream MCP
//!   servers (the Python SDK server of tests/mcp_python/upstream_server.py):
//!   `check-connection` answered from live connections, approval and skill activation
//!   of upstream tools, located errors, the redaction of upstream text on every path
//!   and the bounds on upstream names, titles and descriptions
//!   (tests/mcp_python/test_agent.py drives `serve --agent` with a real client).
//! - `cli`: the `filestore` binary (`call`), grep equivalence with ripgrep's engine, a
//!   closed stdout.
//! - `mcp`: `filestore serve` driven by the Python `mcp` SDK (stdio, HTTP) and an
//!   in-process rmcp client.
//! - `confinement`: the hostile-path suite (links, `..`, sibling prefixes, swaps) on a real directory.
//! - `faults`: a volume failing its Nth operation; failed writes and edits keep the old content.
//! - `model`: proptest sequences of mutations agree across memory, dir, S3 and an in-test model.
//! - `object_store`: object-storage volumes on a real S3 server (hostile keys, create
//!   races between two clients, request counts of walks and grep's read-ahead, the
//!   server stopped mid-grep, `/tool_calls` on S3, `call`/`serve` with `s3://` mounts).
//! - `mysql`: `mysql-sql`/`mysql-execute-sql` against a real MariaDB (Debian's
//!   packages unpacked into the cache): binding, types, errors, the server-side
//!   statement timeout, cancel reaching the server, no reuse after model SQL, credentials.
//! - `postgres`: `postgres-sql`/`postgres-execute-sql` against a real PostgreSQL (the
//!   hotels quickstart, types, errors, timeouts, scripts, credentials, TLS per sslmode).
//! - `shell`: `filestore_execute`, the shell inside the component: a corpus of 200+
//!   commands compared with `/bin/bash` and GNU tools on copies of a real tree
//!   (stdout, exit code, resulting tree), hostile commands (leaving the mounts, planted
//!   links, `/proc`, runaways ending in `limit-exceeded`), no host environment or fine
//!   clock inside, `filestore call filestore_execute`.
//! - `shell_append`: `>>` through the volumes' own append: bash's file and only the new
//!   bytes handed to the volume, read-only, copy-on-write, quota, links, the budget.
//! - `shell_stream`: `filestore_execute` while it runs: streamed output in order and
//!   equal to the result, bounded for a flood; a cancellation and the call deadline
//!   end a sleeping command.
//! - `skills`: skills volume, activation by reading SKILL.md, LRU and caps, the prompt block.
//! - `skills_reload`: `serve --skills` while it runs: skills added, changed, deleted
//!   and orphaned in the directory, seen by a live HTTP session.
//! - `docs`: the documentation holds together: relative links and `#anchors` of the
//!   README, BENCHMARKS.md and docs/ resolve, so do the sources' `docs/*.md#...`
//!   citations; the README's quickstart call and client configuration run; the
//!   embedding guide shows the tested examples verbatim; `docs::examples` runs every
//!   example of the README and docs/ as written, or says why one cannot run here.
//! - `support`: the harness the other modules share: commands whose failures show
//!   what ran where, pinned Python and npm packages installed into the cache, the
//!   PostgreSQL and S3 servers (`support::pg_server`, `support::s3_server`), an MCP
//!   stdio client and the hostile directory tree.
//! - `conversation`: the conversation state store (`filestore::conversation`) on a
//!   directory and on S3: 50 updates racing over two store handles, writers killed
//!   with SIGKILL mid-write, torn temporary files, expiry (docs/state.md).
//! - `cow`: copy-on-write mounts over a real checkout inside the hostile tree,
//!   changed through `filestore call` and the Rust API: the lower tree unchanged,
//!   `filestore_diff` against `diff -ruN`, `git apply --check`, `filestore apply` with
//!   a concurrent change refused (docs/cow.md).
//! - `replicas`: `serve --http --state` as two replicas on one store (a directory, S3):
//!   files, stored results and skills of a conversation seen from the other replica
//!   and after a SIGKILL and restart, 40 racing sessions of one conversation, keys
//!   scoped per identity and checked, expiry.
//! - `contract`: the shared contract suite (`tests/contract/suite.json`) through the Rust
//!   host: the answers every other host must match.
//! - `node_host`: the component run by the Node.js host (`hosts/node/`, jco installed into
//!   a cache on first use): the shared suite with answers identical to the Rust host's,
//!   a misbehaving JS volume, JS tool handlers, the embedding guide's Node snippet.
//! - `pdf`: PDFs read as text page by page (`pages`), and hostile PDFs (malformed,
//!   truncated, a flate bomb, a self-containing page tree, deep nesting) failing alone.
//! - `python_host`: the component run by wasmtime-py (`hosts/python/`, installed into a
//!   venv cache on first use): the suite's memory cases, a misbehaving Python volume,
//!   a deadline, the embedding guide's Python snippet.
//! - `toolbox_diff`: the differential suite: corpora of (tool, arguments) cases
//!   over SQLite, PostgreSQL and MySQL (MariaDB) run through the real Toolbox 1.12.0 binary (npm,
//!   cached) and `filestore call --config`, configs through both loaders, `tools/list`
//!   of both servers; every difference fixed or recorded in docs/configured-tools.md.
//! - `source_families`: Toolbox's `cockroachdb`, `yugabytedb`, `mariadb`, `tidb` and
//!   Cloud SQL (given a direct host) sources with their tool types, on the suite's
//!   PostgreSQL and MariaDB; unsupported types named once, calls answering `unsupported`.
//! - `toolbox_prebuilt`: Toolbox 1.12.0's 39 prebuilt configurations (vendored
//!   verbatim): each passes `filestore check` as docs/configured-tools.md's table says;
//!   the sqlite, postgres and alloydb-omni ones run on real databases and agree with
//!   `toolbox invoke`; so does mysql's `execute_sql` (its catalog types do not run here).
//! - `python_package`: the Python package (`python/`: `filestore.Session` and the
//!   deepagents backend) by its pytest suite against this binary, with deepagents
//!   agents on a fake model; deepagents' own backend tests when `DEEPAGENTS_TESTS` is set.

mod agent;
mod audit;
mod cli;
mod common;
mod concurrency;
mod confinement;
mod contract;
mod contract_typed;
mod conversation;
mod cow;
mod docs;
mod faults;
mod isolation;
mod limits;
mod mcp;
mod memory;
mod model;
mod mutations;
mod mysql;
mod node_host;
mod object_store;
mod pdf;
mod postgres;
mod python;
mod python_host;
mod python_package;
mod read_side;
mod redis;
mod replicas;
mod shell;
mod shell_append;
mod shell_bash;
mod shell_spec;
mod shell_stream;
mod skills;
mod skills_reload;
mod snapshots;
mod source_families;
mod sql_tools;
mod support;
mod toolbox_diff;
mod toolbox_prebuilt;
mod tools;
