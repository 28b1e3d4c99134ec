//! A real Redis server for the `redis` and `valkey` tool tests: Debian's Redis 7
//! (`redis-tools` holds the server binary, `redis-server` its name; jemalloc and
//! liblzf beside them), unpacked on first use into `$FILESTORE_REDIS_DIR` or
//! `~/.cache/filestore/redis` (`install::debian`), one server per test process on a
//! free loopback port, stopped when the process exits. Valkey is not packaged for
//! this Debian; it is a fork of Redis 7.2 and the same server to a client, so the
//! `valkey` tests run against this server too.
//!
//! The server requires a password ([`PASSWORD`], user `default`) and keeps nothing
//! on disk. [`Redis::tls`] starts a second server that speaks only TLS, with a
//! certificate signed by a CA of its own ([`Redis::ca_file`]).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::cmd::run;

/// The packages unpacked.
const PACKAGES: &[&str] = &["redis-server", "redis-tools", "libjemalloc2", "liblzf1"];
/// The password of user `default`.
pub const PASSWORD: &str = "redis-Test-Secret-9";

/// The unpacked tree and the directory of its libraries.
fn install() -> (PathBuf, PathBuf) {
    let dir = super::install::cache_dir("FILESTORE_REDIS_DIR", "redis");
    let libs = |root: &Path| root.join("usr/lib/x86_64-linux-gnu");
    let root = super::install::debian(&dir, PACKAGES, &|root: &Path| {
        Command::new(root.join("usr/bin/redis-server"))
            .arg("--version")
            .env("LD_LIBRARY_PATH", libs(root))
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let lib = libs(&root);
    (root, lib)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs the server in the background and kills it once stdin closes (the test
/// process ended, however it ended).
const WATCHDOG: &str = r#""$0" "$@" & w=$!; read _ignored; kill -9 $w; wait $w"#;

/// A running server of this test process.
pub struct Redis {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// For a TLS server: the PEM file of the CA that signed its certificate.
    pub ca_file: Option<PathBuf>,
    root: PathBuf,
    lib: PathBuf,
    _child: Child,
    _stdin: ChildStdin,
    _dir: tempfile::TempDir,
}

/// The plain server of this process, started on first use.
pub fn server() -> &'static Redis {
    static SERVER: OnceLock<Redis> = OnceLock::new();
    SERVER.get_or_init(|| Redis::start(false))
}

impl Redis {
    /// A server of this process that speaks only TLS, started on first use.
    pub fn tls() -> &'static Redis {
        static SERVER: OnceLock<Redis> = OnceLock::new();
        SERVER.get_or_init(|| Redis::start(true))
    }

    fn start(tls: bool) -> Redis {
        let (root, lib) = install();
        let mut attempt = 1;
        loop {
            match Redis::launch(&root, &lib, tls) {
                Ok(server) => return server,
                Err(why) if attempt < 5 && why.contains("Address already in use") => {
                    attempt += 1;
                }
                Err(why) => panic!("Redis did not start: {why}"),
            }
        }
    }

    fn launch(root: &Path, lib: &Path, tls: bool) -> Result<Redis, String> {
        let dir = tempfile::Builder::new().prefix("filestore-redis-").tempdir().unwrap();
        let port = free_port();
        let log = dir.path().join("redis.log");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", WATCHDOG])
            .arg(root.join("usr/bin/redis-server"))
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--requirepass", PASSWORD, "--protected-mode", "no"])
            .arg("--dir")
            .arg(dir.path())
            .arg("--logfile")
            .arg(&log);
        let ca_file = if tls {
            let (ca, cert, key) = certificates(dir.path());
            cmd.args(["--port", "0", "--tls-port", &port.to_string()])
                .arg("--tls-cert-file")
                .arg(cert)
                .arg("--tls-key-file")
                .arg(key)
                .arg("--tls-ca-cert-file")
                .arg(&ca)
                .args(["--tls-auth-clients", "no"]);
            Some(ca)
        } else {
            cmd.args(["--port", &port.to_string()]);
            None
        };
        let mut child = cmd
            .env("LD_LIBRARY_PATH", lib)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let server = Redis {
            port,
            ca_file,
            root: root.to_path_buf(),
            lib: lib.to_path_buf(),
            _child: child,
            _stdin: stdin,
            _dir: dir,
        };
        // Not a timing assertion: a bound so a broken install fails instead of hanging.
        let give_up = Instant::now() + Duration::from_secs(30);
        loop {
            let ping = server.cli_output(&["PING"]);
            if ping.status.success() && String::from_utf8_lossy(&ping.stdout).trim() == "PONG" {
                return Ok(server);
            }
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("Address already in use") || Instant::now() >= give_up {
                return Err(text);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `redis-cli` signed in to this server.
    fn cli_command(&self) -> Command {
        let mut cmd = Command::new(self.root.join("usr/bin/redis-cli"));
        cmd.env("LD_LIBRARY_PATH", &self.lib)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-a", PASSWORD])
            .arg("--no-auth-warning")
            .stdin(Stdio::null());
        if let Some(ca) = &self.ca_file {
            cmd.arg("--tls").arg("--cacert").arg(ca);
        }
        cmd
    }

    fn cli_output(&self, args: &[&str]) -> std::process::Output {
        self.cli_command().args(args).output().unwrap()
    }

    /// Runs one command with `redis-cli` in database `db`; its output.
    pub fn cli(&self, db: u32, args: &[&str]) -> String {
        let mut cmd = self.cli_command();
        cmd.arg("-n").arg(db.to_string()).args(args);
        run(&mut cmd).success().stdout().trim_end().to_string()
    }

    /// A Toolbox source document of `source_type` (`redis`, `valkey`) named `name` on
    /// this server's database `db`, its password taken from `${var}`.
    pub fn source_yaml(&self, source_type: &str, name: &str, db: u32, var: &str) -> String {
        let tls = if self.ca_file.is_some() { "tlsEnabled: true\n" } else { "" };
        format!(
            "kind: source\nname: {name}\ntype: {source_type}\naddress: [127.0.0.1:{port}]\npassword: ${{{var}}}\ndatabase: {db}\n{tls}",
            port = self.port
        )
    }
}

/// A CA, and a certificate for 127.0.0.1 and localhost signed by it, as PEM files
/// in `dir`: (ca, cert, key).
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let super::tls::Pki { ca, cert, key } =
        super::tls::Pki::new("filestore redis test CA", &["127.0.0.1", "localhost"]);
    let files = (dir.join("ca.pem"), dir.join("server.pem"), dir.join("server.key"));
    std::fs::write(&files.0, ca.pem()).unwrap();
    std::fs::write(&files.1, cert.pem()).unwrap();
    std::fs::write(&files.2, key.serialize_pem()).unwrap();
    files
}
