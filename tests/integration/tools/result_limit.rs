//! The result limit, counted where rows and bodies are read: SQLite, PostgreSQL,
//! MySQL and HTTP results past it stop there, naming the limit, and the server's
//! memory stays near it.

use super::*;

/// A registry with the shipped handlers and a result limit of 1 MiB.
fn limited_registry() -> ToolRegistry {
    let mut r = ToolRegistry::with_builtin_handlers();
    r.set_max_result_bytes(1 << 20);
    r
}

/// `out` failed at the result limit of 1 MiB, naming it.
#[track_caller]
fn assert_at_limit(out: &filestore::tools::InvokeOutcome, what: &str) {
    assert_eq!(out.envelope["error"]["code"], "limit-exceeded", "{what}: {}", out.text);
    assert!(
        out.text.contains("the tool result limit of 1 MiB (1048576 bytes) (--tool-result-mib)"),
        "{what}: {}",
        out.text
    );
}

/// SQLite: one value past the limit is never built (SQLite's own length limit),
/// and rows stop at the first past it, whether the statement is configured or the
/// model's; what fits still comes back whole.
#[test]
fn sqlite_result_bombs_stop_at_the_result_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\n\
         kind: tool\nname: blob\ntype: sqlite-sql\nsource: db\ndescription: A blob.\n\
         statement: SELECT randomblob(?) AS b\nparameters: [{{name: n, type: integer, description: Bytes.}}]\n---\n\
         kind: tool\nname: rows\ntype: sqlite-sql\nsource: db\ndescription: Rows of blobs.\n\
         statement: WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) SELECT i, hex(randomblob(50000)) AS b FROM c\n\
         parameters: [{{name: n, type: integer, description: Rows.}}]\n---\n\
         kind: tool\nname: run\ntype: sqlite-execute-sql\nsource: db\ndescription: Runs SQL.\n",
        empty_database(tmp.path()).display()
    );
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml);
    assert_at_limit(&invoke(&mut s, "blob", json!({"n": 900_000_000})), "randomblob(900000000)");
    assert_at_limit(&invoke(&mut s, "rows", json!({"n": 100_000})), "100000 rows of 100 kB");
    // A row of 400 values under the limit each is 360 MB: SQLite is not let build it.
    let out = invoke(&mut s, "run", json!({"sql": wide_row(400, 900_000)}));
    assert_at_limit(&out, "a row of 400 values of 900 kB");
    assert!(out.text.contains("over the columns of a row"), "{}", out.text);
    for sql in [
        "SELECT zeroblob(500000000) AS z",
        "SELECT 1; SELECT randomblob(300000000) AS b",
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i, 'padding' AS p FROM c",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
    }
    // Under the limit, whole.
    let out = invoke(&mut s, "rows", json!({"n": 5}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let out = invoke(&mut s, "blob", json!({"n": 500_000}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
}

/// A statement whose one row has `columns` random blobs of `bytes` each.
fn wide_row(columns: usize, bytes: usize) -> String {
    let values: Vec<String> =
        (0..columns).map(|i| format!("randomblob({bytes}) AS c{i}")).collect();
    format!("SELECT {}", values.join(", "))
}

/// A loopback upstream answering every request with `bytes` bytes of `x`.
fn big_body_server(bytes: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {bytes}\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let chunk = vec![b'x'; 64 * 1024];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk.len());
                if stream.write_all(&chunk[..n]).is_err() {
                    break;
                }
                left -= n;
            }
        }
    });
    port
}

/// HTTP: a body past the limit is read no further than it.
#[test]
fn http_bodies_stop_at_the_result_limit() {
    let yaml = |port: u16| {
        format!(
            "kind: source\nname: big\ntype: http\nbaseUrl: http://127.0.0.1:{port}\n---\n\
             kind: tool\nname: fetch\ntype: http\nsource: big\nmethod: GET\npath: /\ndescription: Fetches.\n"
        )
    };
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml(big_body_server(300 << 20)));
    assert_at_limit(&invoke(&mut s, "fetch", json!({})), "a 300 MiB body");
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml(big_body_server(500_000)));
    let out = invoke(&mut s, "fetch", json!({}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
}

/// PostgreSQL: rows stop at the first past the limit, and a single row much larger
/// than it is refused as it arrives (the socket stops taking it in), for
/// configured statements, the model's SQL and scripts; the source keeps working.
#[test]
fn postgres_result_bombs_stop_at_the_result_limit() {
    use crate::support::pg_server::{PASSWORD, server};
    server().database("result_bombs");
    let yaml = format!(
        "{}---\nkind: tool\nname: run\ntype: postgres-execute-sql\nsource: pg\ndescription: Runs SQL.\n---\n\
         kind: tool\nname: text\ntype: postgres-sql\nsource: pg\ndescription: Text.\n\
         statement: SELECT repeat('x', $1::int) AS s\nparameters: [{{name: n, type: integer, description: Length.}}]\n",
        server().source_yaml("pg", "result_bombs", "PG_PASSWORD", "")
    );
    let mut s = crate::sql_tools::session(limited_registry());
    crate::sql_tools::load_with_secret(&mut s, &yaml, "PG_PASSWORD", PASSWORD);
    let small = |s: &mut Session| {
        let out = invoke(s, "text", json!({"n": 3}));
        assert_eq!(out.envelope["data"], json!([{"s": "xxx"}]), "{}", out.text);
    };
    small(&mut s);
    assert_at_limit(&invoke(&mut s, "text", json!({"n": 200_000_000})), "one 200 MB row");
    small(&mut s);
    for sql in [
        "SELECT repeat('x', 100000) AS s FROM generate_series(1, 1000)",
        "SELECT decode(repeat('ab', 50000000), 'hex') AS b",
        "SELECT 1; SELECT repeat('x', 100000) AS s FROM generate_series(1, 1000)",
        "SELECT 1; SELECT repeat('x', 200000000) AS s",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
        small(&mut s);
    }
}

/// MySQL (MariaDB): rows stop at the first past the limit (the statement is killed,
/// not read to its end), and a row larger than it is refused by its packet's size
/// as it arrives; the source keeps working.
#[test]
fn mysql_result_bombs_stop_at_the_result_limit() {
    use crate::support::mariadb_server::{PASSWORD, server};
    server().database("result_bombs");
    let yaml = format!(
        "{}---\nkind: tool\nname: run\ntype: mysql-execute-sql\nsource: my\ndescription: Runs SQL.\n---\n\
         kind: tool\nname: text\ntype: mysql-sql\nsource: my\ndescription: Text.\n\
         statement: SELECT REPEAT('x', ?) AS s\nparameters: [{{name: n, type: integer, description: Length.}}]\n",
        server().source_yaml("my", "result_bombs", "MY_PASSWORD", "")
    );
    let mut s = crate::sql_tools::session(limited_registry());
    crate::sql_tools::load_with_secret(&mut s, &yaml, "MY_PASSWORD", PASSWORD);
    let small = |s: &mut Session| {
        let out = invoke(s, "text", json!({"n": 3}));
        assert_eq!(out.envelope["data"], json!([{"s": "xxx"}]), "{}", out.text);
    };
    small(&mut s);
    assert_at_limit(&invoke(&mut s, "text", json!({"n": 8_000_000})), "one 8 MB row");
    small(&mut s);
    for sql in [
        "SELECT REPEAT('x', 100000) AS s FROM seq_1_to_100000",
        "SELECT REPEAT('x', 8000000) AS s",
        "SELECT 1; SELECT REPEAT('x', 100000) AS s FROM seq_1_to_100000",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
        small(&mut s);
    }
}

/// What the kernel says `pid` has held resident at most (VmHWM), bytes.
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc status");
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// The server's memory stays near the limit whatever a statement returns: result
/// bombs of 400 MB through `filestore serve --tool-result-mib 1` (SQLite one value
/// and one row of 400 values, PostgreSQL, MariaDB) raise its peak resident memory
/// by a small fraction of that.
#[test]
fn result_bombs_leave_the_server_memory_near_the_limit() {
    use crate::support::{mariadb_server, pg_server};
    pg_server::server().database("memory_bombs");
    mariadb_server::server().database("memory_bombs");
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, source: &str, ty: &str| {
        format!(
            "---\nkind: tool\nname: {name}\ntype: {ty}\nsource: {source}\ndescription: Runs SQL.\n"
        )
    };
    let yaml = format!(
        "kind: source\nname: lite\ntype: sqlite\ndatabase: {}\n---\n{}---\n{}{}{}{}",
        empty_database(tmp.path()).display(),
        pg_server::server().source_yaml("pg", "memory_bombs", "PG_PASSWORD", ""),
        mariadb_server::server().source_yaml("my", "memory_bombs", "MY_PASSWORD", ""),
        run("lite_run", "lite", "sqlite-execute-sql"),
        run("pg_run", "pg", "postgres-execute-sql"),
        run("my_run", "my", "mysql-execute-sql"),
    );
    std::fs::write(tmp.path().join("tools.yaml"), yaml).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filestore"));
    command
        .args(["serve", "--config", "tools.yaml", "--tool-result-mib", "1"])
        .args(["--mount", "/workspace=mem:"])
        .env("PG_PASSWORD", pg_server::PASSWORD)
        .env("MY_PASSWORD", mariadb_server::PASSWORD)
        .current_dir(tmp.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    // Each handler set up (pools, runtimes) before the peak is taken.
    for tool in ["lite_run", "pg_run", "my_run"] {
        let answer = client.call_tool(tool, json!({"sql": "SELECT 1 AS one"}));
        assert_ne!(answer["isError"], true, "{tool}: {answer}");
    }
    let before = peak_resident(client.pid());
    for (tool, sql) in [
        ("lite_run", "SELECT randomblob(400000000) AS b".to_string()),
        ("lite_run", wide_row(400, 1_000_000)),
        ("pg_run", "SELECT repeat('x', 400000000) AS s".to_string()),
        ("my_run", "SELECT REPEAT('x', 1000000) AS s FROM seq_1_to_400".to_string()),
    ] {
        let answer = client.call_tool(tool, json!({"sql": sql}));
        let text = answer.to_string();
        assert_eq!(answer["isError"], true, "{tool}: {text}");
        assert!(text.contains("tool result limit of 1 MiB"), "{tool}: {text}");
    }
    let grown = peak_resident(client.pid()).saturating_sub(before);
    eprintln!("400 MB result bombs: the server's peak resident memory grew by {} KiB", grown >> 10);
    assert!(grown < 64 << 20, "the peak grew by {} MiB for 400 MB bombs", grown >> 20);
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
}
