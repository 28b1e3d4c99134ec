//! Limits of `filestore serve --http` against hostile or greedy clients: slow request
//! bodies with and without a valid token, connections before authentication (half-open
//! "slowloris" connections, caps per address and in total, a header-read timeout),
//! sessions of one identity never closing another's, and messages as large over HTTP as
//! over stdio. Raw HTTP over loopback, from several loopback addresses (127.0.0.2 and
//! up bind on Linux), to the real binary.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::HttpServer;

const ALICE: &str = "alice-token-0123456789abcdef";
const BOB: &str = "bob-token-0123456789abcdef012";
const CAROL: &str = "carol-token-0123456789abcdef0";

/// A static tokens file (`--auth-tokens`) for alice, bob and carol, in `dir`.
fn tokens_file(dir: &Path) -> String {
    let path = dir.join("tokens.json");
    let tokens = json!({"tokens": [
        {"token": ALICE, "sub": "alice"}, {"token": BOB, "sub": "bob"}, {"token": CAROL, "sub": "carol"}]});
    std::fs::write(&path, tokens.to_string()).unwrap();
    path.display().to_string()
}

fn bearer(token: &str) -> String {
    format!("Authorization: Bearer {token}\r\n")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

async fn connect(port: u16, from: &str) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(format!("127.0.0.1:{port}").parse().unwrap()).await.unwrap()
}

/// A connection from loopback address `from` that sends a request line and one header
/// and never finishes the head: a slowloris client.
async fn half_open(port: u16, from: &str) -> TcpStream {
    let mut stream = connect(port, from).await;
    stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    stream
}

/// Whether the server closed `stream` within `wait`: a read ends or fails.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let read_to_end = async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(wait, read_to_end).await.is_ok()
}

/// How many of `streams` the server closed within `wait` (all waited on together).
async fn count_closed(streams: &mut [TcpStream], wait: Duration) -> Vec<bool> {
    futures::future::join_all(streams.iter_mut().map(|s| closed_within(s, wait))).await
}

/// Sends a POST on a kept-alive connection and reads its answer (a body with a
/// `Content-Length`); returns the status, 0 when the connection was closed.
async fn post_kept_alive(stream: &mut TcpStream, extra_headers: &str, body: &str) -> u16 {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra_headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    if stream.write_all(request.as_bytes()).await.is_err() {
        return 0;
    }
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    // The guard keeps a regression from hanging the suite; not a timing check.
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                if raw.len() >= end + 4 + length {
                    return head.split(' ').nth(1).unwrap_or("0").parse().unwrap_or(0);
                }
            }
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return 0,
                Ok(n) => raw.extend_from_slice(&buf[..n]),
            }
        }
    });
    answer.await.unwrap_or(0)
}

/// 260 half-open connections (enough to starve every user of a server limited to 256
/// descriptors) do not lock an authenticated user out: the connections are capped
/// below the descriptor limit, a newcomer closes the oldest connection not yet
/// authenticated, and every half-open one is closed after the header timeout.
#[test]
fn slowloris_connections_do_not_starve_authenticated_users() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let server =
        HttpServer::start_with_fd_limit(256, &["--auth-tokens", &tokens, "--header-timeout", "3"]);
    let rt = runtime();
    let mut slow = rt.block_on(async {
        let mut slow = Vec::new();
        for i in 0..260 {
            slow.push(half_open(server.port, &format!("127.0.0.{}", 2 + i % 20)).await);
        }
        slow
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "user", "version": "1"}}});
    let (status, headers, body) = server.post_with("127.0.0.1", None, &bearer(ALICE), &init);
    assert_eq!(status, 200, "the authenticated user was starved: {body}");
    assert!(headers.iter().any(|(k, _)| k == "mcp-session-id"), "{headers:?}");
    // A generous bound on a hang: the header timeout is 3 s.
    let closed = rt.block_on(count_closed(&mut slow, Duration::from_secs(30)));
    let open = closed.iter().filter(|c| !**c).count();
    assert_eq!(open, 0, "{open} half-open connections were still open");
}

/// A client address holds at most `--max-connections-per-client`
/// connections and the server `--max-connections`; past a cap the oldest connection
/// not yet authenticated is closed, and an authenticated user's kept-alive
/// connection never is.
#[test]
fn connection_caps_close_unauthenticated_connections_first() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let server = HttpServer::start(&[
        "--auth-tokens",
        &tokens,
        "--max-connections",
        "8",
        "--max-connections-per-client",
        "3",
        "--header-timeout",
        "600",
    ]);
    let port = server.port;
    runtime().block_on(async {
        let mut user = connect(port, "127.0.0.1").await;
        assert_eq!(post_kept_alive(&mut user, &bearer(ALICE), "{not json").await, 400);
        // One address past its cap: its own two oldest connections were closed.
        let mut one = Vec::new();
        for _ in 0..5 {
            one.push(half_open(port, "127.0.0.2").await);
        }
        let closed = count_closed(&mut one, Duration::from_secs(2)).await;
        assert_eq!(closed, [true, true, false, false, false]);
        // The server past its cap: newcomers from six other addresses close the oldest
        // half-open connections, never the authenticated one.
        let mut many = Vec::new();
        for i in 3..9 {
            many.push(half_open(port, &format!("127.0.0.{i}")).await);
        }
        assert_eq!(post_kept_alive(&mut user, &bearer(ALICE), "{not json").await, 400);
        let mut all: Vec<TcpStream> = one.into_iter().skip(2).chain(many).collect();
        let closed = count_closed(&mut all, Duration::from_secs(2)).await;
        let open = closed.iter().filter(|c| !**c).count();
        assert_eq!(open, 7, "the user's connection and 7 half-open ones fill 8: {closed:?}");
        assert!(closed[0] && closed[1], "the oldest half-open ones went first: {closed:?}");
    });
}

/// Behind a proxy every user shares one address. Past the address's
/// session limit, or in a full pool, a new session closes only an idle session of its
/// own identity: bob's newcomer gets 429 or 503 and alice keeps her sessions (and her
/// `/scratch`).
#[test]
fn one_identity_never_closes_anothers_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let server = HttpServer::start(&[
        "--auth-tokens",
        &tokens,
        "--max-sessions",
        "3",
        "--max-sessions-per-client",
        "2",
        "--evict-idle-after",
        "0",
    ]);
    let open = |from: &str, token: &str| {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "proxy", "version": "1"}}});
        let (status, headers, _) = server.post_with(from, None, &bearer(token), &init);
        let sid = headers.into_iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v);
        if let Some(sid) = &sid {
            let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            assert_eq!(server.post_with(from, Some(sid), &bearer(token), &note).0, 202);
        }
        (status, sid)
    };
    let call = |from: &str, token: &str, sid: &str, tool: &str, args: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        let (status, _, text) = server.post_with(from, Some(sid), &bearer(token), &body);
        (status, text)
    };
    let proxy = "127.0.0.1";
    let a1 = open(proxy, ALICE).1.expect("alice's first session");
    let a2 = open(proxy, ALICE).1.expect("alice's second session");
    let wrote = call(
        proxy,
        ALICE,
        &a2,
        "filestore_write",
        json!({"path": "/scratch/a.txt", "content": "alice's"}),
    );
    assert_eq!(wrote.0, 200, "{}", wrote.1);
    let (status, _) = open(proxy, BOB);
    assert_eq!(status, 429, "bob's session past the address's limit");
    let (status, text) =
        call(proxy, ALICE, &a2, "filestore_read", json!({"path": "/scratch/a.txt"}));
    assert!(status == 200 && text.contains("alice's"), "{status}: {text}");
    assert_eq!(call(proxy, ALICE, &a1, "filestore_ls", json!({"path": "/"})).0, 200);
    // A full pool (alice's two and bob's one): bob's next closes his own idle one,
    // carol's gets 503.
    let b1 = open("127.0.0.2", BOB).1.expect("bob's session from another address");
    let (status, b2) = open("127.0.0.3", BOB);
    assert_eq!(status, 200);
    assert_eq!(call("127.0.0.2", BOB, &b1, "filestore_ls", json!({"path": "/"})).0, 404);
    assert_eq!(open("127.0.0.4", CAROL).0, 503);
    for (sid, token) in [(&a1, ALICE), (&a2, ALICE), (&b2.unwrap(), BOB)] {
        assert_eq!(call(proxy, token, sid, "filestore_ls", json!({"path": "/"})).0, 200);
    }
}

/// A message may be as large over HTTP as over stdio (16 MiB; rmcp's own HTTP cap is
/// 4 MiB, which a client could not know of): a 10 MiB write is served.
#[test]
fn http_messages_up_to_the_stdio_limit_are_served() {
    let server = HttpServer::start(&[]);
    let (status, sid, _) = server.initialize("127.0.0.1");
    assert_eq!(status, 200);
    let sid = sid.unwrap();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post("127.0.0.1", Some(&sid), &note).0, 202);
    let write = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "filestore_write",
        "arguments": {"path": "/s/big.txt", "content": "x".repeat(10 << 20)}}});
    let (status, _, body) = server.post("127.0.0.1", Some(&sid), &write);
    assert_eq!(status, 200, "{}", &body[..body.len().min(500)]);
    assert!(body.contains("\"isError\":false"), "{body}");
    let ls = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "filestore_ls", "arguments": {"path": "/s", "details": true}}});
    let (_, _, body) = server.post("127.0.0.1", Some(&sid), &ls);
    assert!(body.contains(&format!("\"size\":{}", 10 << 20)), "{body}");
}

/// A connection from `from` that sends a whole request head announcing a 1,000-byte
/// body (with `token`, if any), then 10 bytes of it, and nothing more: a slow body.
async fn slow_body(port: u16, from: &str, token: Option<&str>) -> TcpStream {
    let mut stream = connect(port, from).await;
    let auth = token.map(bearer).unwrap_or_default();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: 1000\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// What the server sent on `stream` until it closed it (bounded: a regression must
/// not hang the suite; not a timing check).
async fn read_until_closed(stream: &mut TcpStream) -> Option<String> {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut raw)).await;
    read.ok().map(|_| String::from_utf8_lossy(&raw).into_owned())
}

fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "user", "version": "1"}}})
}

/// A valid token does not make a connection untouchable (a user with a token could
/// otherwise hold the server with slow bodies). One
/// identity holds at most `--max-connections-per-client` connections from however
/// many addresses (its oldest is closed past it), and connections whose bodies
/// trickle are not protected: a server full of them still serves another user.
#[test]
fn slow_bodies_with_a_valid_token_do_not_hold_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let server = HttpServer::start(&[
        "--auth-tokens",
        &tokens,
        "--max-connections",
        "8",
        "--max-connections-per-client",
        "4",
        "--header-timeout",
        "600",
        "--body-timeout",
        "600",
    ]);
    let port = server.port;
    let rt = runtime();
    let (mut alice, mut carol) = rt.block_on(async {
        let mut alice = Vec::new();
        for i in 2..8 {
            alice.push(slow_body(port, &format!("127.0.0.{i}"), Some(ALICE)).await);
        }
        let closed = count_closed(&mut alice, Duration::from_secs(2)).await;
        assert_eq!(
            closed.iter().filter(|c| **c).count(),
            2,
            "alice's six connections from six addresses: {closed:?}"
        );
        let alice: Vec<TcpStream> =
            alice.into_iter().zip(closed).filter(|(_, c)| !c).map(|(s, _)| s).collect();
        let mut carol = Vec::new();
        for i in 8..12 {
            carol.push(slow_body(port, &format!("127.0.0.{i}"), Some(CAROL)).await);
        }
        // Also lets the server verify carol's tokens before bob comes.
        let closed = count_closed(&mut carol, Duration::from_secs(2)).await;
        assert_eq!(closed, [false; 4], "carol's connections are within her cap");
        (alice, carol)
    });
    // Eight slow bodies fill the server; bob is still served.
    let (status, _, body) =
        server.post_with("127.0.0.12", None, &bearer(BOB), &initialize_request());
    assert_eq!(status, 200, "bob was refused by a server full of slow bodies: {body}");
    rt.block_on(async {
        let mut all: Vec<TcpStream> = alice.drain(..).chain(carol.drain(..)).collect();
        let closed = count_closed(&mut all, Duration::from_secs(2)).await;
        assert_eq!(closed.iter().filter(|c| **c).count(), 1, "one made room for bob: {closed:?}");
    });
}

/// A body that does not arrive within `--body-timeout` (plus
/// its size at 16 KiB/s) is answered 408 and its connection closed, with a valid
/// token or without authentication; a request refused before its body was read
/// closes its connection instead of draining a trickle.
#[test]
fn slow_bodies_are_cut_at_their_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let authed = HttpServer::start(&[
        "--auth-tokens",
        &tokens,
        "--header-timeout",
        "600",
        "--body-timeout",
        "2",
    ]);
    let open = HttpServer::start(&["--header-timeout", "600", "--body-timeout", "2"]);
    runtime().block_on(async {
        let mut with_token = slow_body(authed.port, "127.0.0.2", Some(ALICE)).await;
        let mut without = slow_body(authed.port, "127.0.0.3", None).await;
        let mut unauthenticated_server = slow_body(open.port, "127.0.0.4", None).await;
        let answer = read_until_closed(&mut with_token).await.expect("the connection was closed");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("did not arrive in time"), "{answer}");
        let answer = read_until_closed(&mut without).await.expect("the connection was closed");
        assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
        let answer = read_until_closed(&mut unauthenticated_server)
            .await
            .expect("the connection was closed");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    });
}

/// A request head announcing a body over the 16 MiB message limit (`Content-Length`
/// 17 MiB) is answered `413` naming the limit without waiting for the body, with a
/// valid token and without authentication (it waited for the body deadline and was
/// answered `408`). The body is never sent; the deadline is long enough that a
/// server waiting for it answers `408`.
#[test]
fn a_body_announced_over_the_limit_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = tokens_file(dir.path());
    let limits = ["--header-timeout", "600", "--body-timeout", "5"];
    let authed = HttpServer::start(&[&["--auth-tokens", tokens.as_str()][..], &limits].concat());
    let open = HttpServer::start(&limits);
    let announce = |port: u16, from: &'static str, token: Option<&'static str>| async move {
        let mut stream = connect(port, from).await;
        let auth = token.map(bearer).unwrap_or_default();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{auth}Content-Length: {}\r\n\r\n",
            17 << 20
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        read_until_closed(&mut stream).await.expect("the connection was closed")
    };
    runtime().block_on(async {
        for answer in [
            announce(authed.port, "127.0.0.2", Some(ALICE)).await,
            announce(open.port, "127.0.0.3", None).await,
        ] {
            assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
            assert!(answer.contains("the message is larger than"), "{answer}");
        }
    });
}

/// Without authentication, only a complete request being answered protects a
/// connection from eviction: were a request head enough, request heads with
/// trickling bodies would fill the server for good.
#[test]
fn without_authentication_only_complete_requests_protect_a_connection() {
    let server = HttpServer::start(&[
        "--max-connections",
        "4",
        "--header-timeout",
        "600",
        "--body-timeout",
        "600",
    ]);
    let port = server.port;
    let rt = runtime();
    let mut slow = rt.block_on(async {
        let mut slow = Vec::new();
        for i in 2..6 {
            slow.push(slow_body(port, &format!("127.0.0.{i}"), None).await);
        }
        slow
    });
    let (status, _, body) = server.post("127.0.0.6", None, &initialize_request());
    assert_eq!(status, 200, "a full server of slow bodies refused a complete request: {body}");
    let closed = rt.block_on(count_closed(&mut slow, Duration::from_secs(2)));
    assert_eq!(closed, [true, false, false, false], "the oldest made room");
}
