//! Unit tests of `agent`.

use super::*;

const FULL: &str = "\
name: researcher
description: Reads and searches.
servers:
  docs:
    command: filestore
    args: [serve, --mount, /docs=./docs:ro, 5]
    env: {LOG: quiet}
    timeout: 2s
  search:
    url: http://127.0.0.1:8931/mcp
    headers: {Authorization: \"Bearer ${SEARCH_TOKEN}\"}
    connections:
      team: {headers: {Authorization: \"Bearer ${TEAM_TOKEN}\"}}
      off: {disabled: true}
tools:
  - filestore_read
  - tools.mcp.docs.filestore_grep.default
  - {type: mcp, integration: search, action: web_search, connection: team, name: search}
  - {type: mcp, integration: docs, action: \"*\", connection: default, prefix: docs_, optional: true}
available:
  - tools.mcp.search.*.default
";

#[test]
fn parses_everything() {
    let a = parse("agent.yaml", FULL).unwrap();
    assert_eq!(a.name.as_deref(), Some("researcher"));
    assert_eq!(a.servers.len(), 2);
    let docs = &a.servers[0];
    assert_eq!(docs.transport, Transport::Stdio);
    assert_eq!(docs.fields["args"], json!(["serve", "--mount", "/docs=./docs:ro", "5"]));
    assert_eq!(docs.fields["timeoutMs"], json!(2000));
    assert_eq!(docs.location.line, 4);
    let search = &a.servers[1];
    assert_eq!(search.transport, Transport::Http);
    assert_eq!(search.connections, ["default", "team", "off"]);
    assert_eq!(search.fields["headers"]["Authorization"], "Bearer ${SEARCH_TOKEN}");
    assert_eq!(search.fields["connections"]["off"], json!({"disabled": true}));
    let labels: Vec<String> = a.entries.iter().map(AgentEntry::label).collect();
    assert_eq!(labels, ["tools[0]", "tools[1]", "tools[2]", "tools[3]", "available[0]"]);
    assert_eq!(a.entries[1].text, "tools.mcp.docs.filestore_grep.default");
    assert_eq!((a.entries[2].location.line, a.entries[2].location.column), (18, 5));
    assert!(a.entries[3].optional() && !a.entries[2].optional());
    assert_eq!(a.entries[4].section, Section::Available);
}

fn errors(text: &str) -> Vec<String> {
    parse("a.yaml", text).unwrap_err().iter().map(|e| e.to_string()).collect()
}

#[test]
fn every_error_is_located() {
    let e = errors(
        "\
servers:
  bad__name: {command: x}
  both: {command: x, url: http://h}
  none: {args: [a]}
  web: {url: ftp://h, env: {A: b}}
  slow: {command: x, timeout: forever}
  creds:
    url: http://h
    headers: {\"Bad Header\": x}
    connections:
      c1: {env: {A: b}}
tools:
  - tools.mcp.ghost.x.default
  - tools.mcp.slow.x.nobody
  - {type: mcp, integration: slow, action: x, connection: default, extra: 1}
extra: 1
",
    );
    let want = [
        "a.yaml: document 1, line 2, column 3: field 'servers.bad__name': server name 'bad__name' is not a valid call-ref segment",
        "a.yaml: document 1, line 3, column 22: field 'servers.both.url': a server has either a command",
        "a.yaml: document 1, line 4, column 9: field 'servers.none': server 'none' needs a command",
        "a.yaml: document 1, line 5, column 14: field 'servers.web.url': 'ftp://h' is not an http:// or https:// URL",
        "a.yaml: document 1, line 5, column 23: field 'servers.web.env': unknown field 'env' for a http server",
        "a.yaml: document 1, line 6, column 31: field 'servers.slow.timeout': expected a positive duration",
        "a.yaml: document 1, line 9, column 15: field 'servers.creds.headers.Bad Header': 'Bad Header' is not an HTTP header name",
        "a.yaml: document 1, line 11, column 12: field 'servers.creds.connections.c1.env': unknown field 'env' for a connection of a http server",
        "a.yaml: document 1, line 16, column 1: field 'extra': unknown field 'extra'",
        "a.yaml: document 1, line 13, column 5: field 'tools[0]': integration 'ghost' is not a server of this configuration (declared: bad__name, both, none, web, slow, creds)",
        // tools[1] names a server declared with errors: not reported twice.
        "a.yaml: document 1, line 15, column 5: field 'tools[2]': unknown field 'extra'",
    ];
    assert_eq!(e.len(), want.len(), "{e:#?}");
    for (got, want) in e.iter().zip(want) {
        assert!(got.starts_with(want), "{got}\n  does not start with\n{want}");
    }
}

#[test]
fn documents_and_shapes() {
    assert!(errors("")[0].contains("the file is empty"));
    assert!(errors("- a\n")[0].contains("must be a mapping, got a sequence"));
    assert!(errors("tools: []\n---\ntools: []\n")[0].contains("document 2, line 3"));
    assert!(errors("tools: [a\n")[0].contains("invalid yaml"));
    assert!(errors("tools: {a: 1}\n")[0].contains("expected a list"));
    assert!(errors("name: 'a b'\n")[0].contains("field 'name'"));
    let big = format!("description: \"{}\"\n", "x".repeat(MAX_CONFIG_BYTES));
    assert!(errors(&big)[0].contains("the limit is"));
    // Durations.
    for (t, ms) in [("1", 1000), ("1.5", 1500), ("'250ms'", 250), ("'2m'", 120_000)] {
        let a = parse("a", &format!("servers:\n  s: {{command: x, timeout: {t}}}\n")).unwrap();
        assert_eq!(a.servers[0].fields["timeoutMs"], json!(ms), "{t}");
    }
    assert!(!errors("servers:\n  s: {command: x, timeout: 0}\n").is_empty());
    assert!(!errors("servers:\n  s: {command: x, timeout: 99999}\n").is_empty());
    // A header value may not smuggle a second header.
    assert!(
        !errors("servers:\n  s: {url: 'http://h', headers: {A: \"x\\r\\nB: y\"}}\n").is_empty()
    );
}
