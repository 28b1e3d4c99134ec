//! `redis` and `valkey` tools through the real component against a real Redis
//! server on loopback (`redis_server`; Valkey is the same server to a client): the
//! commands of Toolbox's examples with `$name` words and array parameters, reply
//! shapes (strings, integers, lists, hashes as maps, nil and a refused command in
//! Toolbox's words), values that stay one word whatever they hold, the result limit
//! and the call's timeout while a reply is read, a command that changes its
//! connection never reaching the next call, TLS, and bad credentials or sources
//! that say what is wrong and leak nothing.

use filestore::handlers::ShippedHandlers as _;
use std::time::Duration;

use filestore::Session;
use filestore::tools::ToolRegistry;
use serde_json::{Value, json};

use crate::sql_tools::{data, failure, invoke, load_with_secret, session};
use crate::support::redis_server::{PASSWORD, Redis, server};

/// The source `r` of `source_type` on database `db`, then `tool` documents (`name`,
/// then the rest after `source` and `description`).
fn config(source_type: &str, db: u32, tools: &[(&str, &str)]) -> String {
    let mut yaml = server().source_yaml(source_type, "r", db, "REDIS_PASSWORD");
    for (name, rest) in tools {
        yaml.push_str(&format!(
            "---\nkind: tool\nname: {name}\ntype: {source_type}\nsource: r\ndescription: d\n{rest}\n"
        ));
    }
    yaml
}

fn load(s: &mut Session, yaml: &str) {
    load_with_secret(s, yaml, "REDIS_PASSWORD", PASSWORD);
}

/// A fresh database `db` (emptied) and a session with `tools` loaded on it.
fn fresh(source_type: &str, db: u32, tools: &[(&str, &str)]) -> Session {
    server().cli(db, &["FLUSHDB"]);
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &config(source_type, db, tools));
    s
}

#[test]
fn redis_tools_run_their_commands_with_the_calls_values() {
    let mut s = fresh(
        "redis",
        1,
        &[
            (
                "set_user",
                "parameters:\n  - {name: id, type: string, description: i}\n  - {name: name, type: string, description: n}\n  - {name: tags, type: array, description: t, items: {name: tag, type: string, description: t}}\ncommands:\n  - [HSET, $id, name, $name, visits, 1]\n  - [SADD, tags, $tags]\n  - [HINCRBY, $id, visits, 2]",
            ),
            (
                "get_user",
                "parameters:\n  - {name: id, type: string, description: i}\ncommands:\n  - [HGETALL, $id]\n  - [HGET, $id, missing]\n  - [SMEMBERS, tags]\n  - [LPUSH, $id, x]\n  - [EXISTS, $id, nobody]",
            ),
        ],
    );
    let out = data(&invoke(
        &mut s,
        "set_user",
        json!({"id": "user:1", "name": "Ada Lovelace", "tags": ["math", "code"]}),
    ));
    assert_eq!(out, json!([2, 2, 3]));
    let mut out = data(&invoke(&mut s, "get_user", json!({"id": "user:1"})));
    out[2].as_array_mut().unwrap().sort_by_key(|v| v.to_string());
    assert_eq!(
        out,
        json!([
            {"name": "Ada Lovelace", "visits": "3"},
            "error from executing command at index 1: redis: nil",
            ["code", "math"],
            "error from executing command at index 3: WRONGTYPE Operation against a key holding the wrong kind of value",
            1
        ])
    );
    assert_eq!(server().cli(1, &["HGET", "user:1", "name"]), "Ada Lovelace");
}

#[test]
fn valkey_tools_run_on_valkey_sources() {
    let mut s = fresh(
        "valkey",
        2,
        &[(
            "counter",
            "parameters:\n  - {name: key, type: string, description: k}\n  - {name: by, type: integer, description: b}\ncommands:\n  - [INCRBY, $key, $by]\n  - [GET, $key]\n  - [GET, nothing]\n  - [ZADD, z, 1, a, 2.5, b]\n  - [ZRANGE, z, 0, -1, WITHSCORES]",
        )],
    );
    let out = data(&invoke(&mut s, "counter", json!({"key": "c", "by": 5})));
    assert_eq!(
        out,
        json!([
            5,
            "5",
            "error from executing command at index 2: valkey nil message",
            2,
            [["a", 1], ["b", 2.5]]
        ])
    );
}

/// A value is one word, whatever it holds: protocol framing, another parameter's
/// `$name`, a command name; it never adds a command or a word.
#[test]
fn redis_values_stay_one_word() {
    let mut s = fresh(
        "redis",
        3,
        &[(
            "put",
            "parameters:\n  - {name: key, type: string, description: k}\n  - {name: value, type: string, description: v}\ncommands:\n  - [SET, $key, $value]\n  - [GET, $key]",
        )],
    );
    server().cli(3, &["SET", "keep", "me"]);
    for hostile in
        ["x\r\nFLUSHALL\r\n", "*1\r\n$8\r\nFLUSHALL\r\n", "$value", "a b c", "", "héllo 😀\u{0}"]
    {
        let out = data(&invoke(&mut s, "put", json!({"key": hostile, "value": hostile})));
        assert_eq!(out, json!(["OK", hostile]), "{hostile:?}");
    }
    assert_eq!(server().cli(3, &["GET", "keep"]), "me", "a value ran as a command");
    assert_eq!(server().cli(3, &["DBSIZE"]), "7");
}

/// A reply past the tool result limit fails `limit-exceeded` without being read
/// whole; a command blocked past the call's timeout is given up; neither connection
/// serves another call, which gets its own answer.
#[test]
fn redis_limits_hold_while_a_reply_is_read() {
    server().cli(4, &["FLUSHDB"]);
    // A 3 MiB value (zeros, then `x`).
    server().cli(4, &["SETRANGE", "big", &((3 << 20) - 1).to_string(), "x"]);
    let yaml = config(
        "redis",
        4,
        &[
            ("big", "commands:\n  - [GET, big]"),
            ("small", "commands:\n  - [STRLEN, big]"),
            ("wait", "commands:\n  - [BLPOP, nothing, 0]"),
            (
                "deep",
                "commands:\n  - [EVAL, \"local t={1} for i=1,100 do t={t} end return t\", \"0\"]",
            ),
            ("listen", "commands:\n  - [PING]\n  - [subscribe, a, b]"),
        ],
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_max_result_bytes(1 << 20);
    registry.set_timeout(Duration::from_secs(2));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "big", json!({})));
    assert!(e.contains("larger than the tool result limit of 1 MiB"), "{e}");
    assert_eq!(data(&invoke(&mut s, "small", json!({}))), json!([3 << 20]));
    let e = failure(&invoke(&mut s, "wait", json!({})));
    assert!(e.contains("limit-exceeded") || e.contains("timeout"), "{e}");
    assert_eq!(data(&invoke(&mut s, "small", json!({}))), json!([3 << 20]));
    let e = failure(&invoke(&mut s, "deep", json!({})));
    assert!(e.contains("nests deeper than 64 levels"), "{e}");
    // Several replies to one command would answer the commands after it.
    let e = failure(&invoke(&mut s, "listen", json!({})));
    assert!(e.contains("command 1 is SUBSCRIBE, which answers more than once"), "{e}");
    assert_eq!(data(&invoke(&mut s, "small", json!({}))), json!([3 << 20]));
}

/// `SELECT` in a tool's commands changes its own connection only: the next call,
/// on a pooled connection, still reads the source's database.
#[test]
fn a_command_that_changes_its_connection_does_not_reach_the_next_call() {
    server().cli(5, &["FLUSHDB"]);
    server().cli(6, &["FLUSHDB"]);
    let mut s = fresh(
        "redis",
        5,
        &[
            ("elsewhere", "commands:\n  - [SELECT, 6]\n  - [SET, k, six]"),
            ("here", "commands:\n  - [SET, k, five]\n  - [GET, k]"),
        ],
    );
    assert_eq!(data(&invoke(&mut s, "elsewhere", json!({}))), json!(["OK", "OK"]));
    for _ in 0..3 {
        assert_eq!(data(&invoke(&mut s, "here", json!({}))), json!(["OK", "five"]));
    }
    assert_eq!(server().cli(6, &["GET", "k"]), "six");
    assert_eq!(server().cli(5, &["GET", "k"]), "five");
}

#[test]
fn redis_bad_credentials_and_sources_are_clear_and_leak_nothing() {
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(
        &mut s,
        &config("redis", 7, &[("one", "commands:\n  - [PING]")]),
        "REDIS_PASSWORD",
        "wrong-Secret-123",
    );
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("cannot connect to source 'r'") && e.contains("WRONGPASS"), "{e}");
    assert!(!e.contains("wrong-Secret-123"), "{e}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let yaml = format!(
        "kind: source\nname: gone\ntype: redis\naddress: [127.0.0.1:{closed}]\n---\nkind: tool\nname: one\ntype: redis\nsource: gone\ndescription: d\ncommands: [[PING]]\n"
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("cannot connect to source 'gone'"), "{e}");
    // An IPv6 literal is named as it is written, in brackets.
    let yaml = yaml
        .replace("127.0.0.1:", "'[::1]:")
        .replace(&format!("{closed}]"), &format!("{closed}']"));
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains(&format!("[::1]:{closed}")), "{e}");
}

/// `tlsEnabled` connects over TLS, trusting the system's roots (`SSL_CERT_FILE`
/// names the test CA, as it would for Toolbox); without that CA the certificate is
/// refused. Through the binary, so the variable is the process's own.
#[test]
fn redis_over_tls_trusts_the_systems_roots() {
    let tls = Redis::tls();
    tls.cli(0, &["SET", "secure", "yes"]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("tools.yaml");
    let yaml = format!(
        "{}---\nkind: tool\nname: get\ntype: redis\nsource: r\ndescription: d\ncommands: [[GET, secure]]\n",
        tls.source_yaml("redis", "r", 0, "REDIS_PASSWORD")
    );
    std::fs::write(&cfg, yaml).unwrap();
    let call = |ca: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .args(["call", "get", "{}", "--config"])
            .arg(&cfg)
            .env("REDIS_PASSWORD", PASSWORD)
            .env("SSL_CERT_FILE", ca)
            .env_remove("SSL_CERT_DIR")
            .output()
            .unwrap()
    };
    let out = call(tls.ca_file.as_ref().unwrap());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["data"], json!(["yes"]));
    // Another CA's bundle: the server's certificate is not trusted.
    let other = dir.path().join("other.pem");
    let unrelated = crate::support::tls::Pki::new("another CA", &["127.0.0.1"]);
    std::fs::write(&other, unrelated.ca.pem()).unwrap();
    let out = call(&other);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot connect to source 'r'"), "{err}");
    assert!(err.contains("certificate"), "{err}");
}

/// `check` calls redis and valkey tools runnable, and names what it refuses:
/// clusterEnabled and useGCPIAM sources, a tool without commands.
#[test]
fn check_knows_redis_and_valkey_tools() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("tools.yaml");
    let port = server().port;
    // `filestore check` of `yaml`: whether it passed, and what it printed.
    let check = |yaml: String| {
        std::fs::write(&cfg, yaml).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .arg("check")
            .arg(&cfg)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, text) = check(format!(
        "kind: source\nname: r\ntype: redis\naddress: [127.0.0.1:{port}]\n---\nkind: source\nname: c\ntype: redis\naddress: [a:1, b:2]\nclusterEnabled: true\n---\nkind: source\nname: v\ntype: valkey\naddress: [127.0.0.1:{port}]\nuseGCPIAM: true\n---\nkind: tool\nname: ok\ntype: redis\nsource: r\ndescription: d\ncommands: [[PING]]\n---\nkind: tool\nname: cluster\ntype: redis\nsource: c\ndescription: d\ncommands: [[PING]]\n---\nkind: tool\nname: iam\ntype: valkey\nsource: v\ndescription: d\ncommands: [[PING]]\n"
    ));
    assert!(ok, "{text}");
    assert!(text.contains("'ok' (redis): runnable"), "{text}");
    assert!(
        text.contains("'cluster' (redis): valid, but not runnable")
            && text.contains("clusterEnabled"),
        "{text}"
    );
    assert!(
        text.contains("'iam' (valkey): valid, but not runnable") && text.contains("useGCPIAM"),
        "{text}"
    );
    let (ok, text) = check(format!(
        "kind: source\nname: r\ntype: redis\naddress: [127.0.0.1:{port}, 127.0.0.1, 'redis://h:1']\n---\nkind: tool\nname: none\ntype: redis\nsource: r\ndescription: d\nstatement: GET x\n"
    ));
    assert!(!ok, "{text}");
    assert!(text.contains("has no 'commands'"), "{text}");
    assert!(text.contains("'127.0.0.1' is not host:port"), "{text}");
    assert!(text.contains("'redis://h:1' is not host:port"), "{text}");
    assert!(text.contains("statement"), "{text}");
}
