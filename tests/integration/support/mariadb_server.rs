//! A real MySQL-compatible server for the `mysql` tool tests: Debian's MariaDB
//! (`mariadb-server-core` and `mariadb-client-core`), one server per test process on
//! a free loopback port, with a database per test, stopped when the process exits.
//!
//! Installed on first use, never system-wide: `apt-get download` fetches the two
//! packages and `dpkg -x` unpacks them into `$FILESTORE_MARIADB_DIR` or
//! `~/.cache/filestore/mariadb`, under a file lock so that parallel test binaries
//! install it once (when the download fails, `apt-get update` runs and it is tried
//! once more; a machine without apt or dpkg fails the test saying so). The libraries
//! the server links (OpenSSL, PCRE2, liburing...) are the system's: one missing fails
//! the test naming it and the package to install.
//!
//! `mariadbd` refuses to run as root unless told `--user=root`: as root it is told so
//! (the data directory is a fresh temporary one, nothing else is touched), as any
//! other user it runs as that user. `--no-defaults` keeps any `/etc/mysql` out.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;

use super::cmd::run;

/// The packages unpacked.
const PACKAGES: &[&str] = &["mariadb-server-core", "mariadb-client-core"];
/// The user the tests' sources log in as (password authentication over TCP).
pub const USER: &str = "hotel_admin";
/// Its password.
pub const PASSWORD: &str = "my-test-Secret-7";

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The unpacked tree (`usr/sbin/mariadbd`, `usr/bin/mariadb-install-db`...).
fn install() -> PathBuf {
    let dir = super::install::cache_dir("FILESTORE_MARIADB_DIR", "mariadb");
    let works = |root: &Path| {
        Command::new(root.join("usr/sbin/mariadbd"))
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    super::install::debian(&dir, PACKAGES, &|root: &Path| {
        if !root.join("usr/sbin/mariadbd").exists() {
            return false;
        }
        let ldd = run(Command::new("ldd").arg(root.join("usr/sbin/mariadbd")));
        let missing: Vec<String> = ldd
            .stdout()
            .lines()
            .filter(|l| l.contains("not found"))
            .map(|l| l.trim().to_string())
            .collect();
        assert!(
            missing.is_empty(),
            "mariadbd needs libraries this system lacks: {missing:?}; install them (apt-cache depends mariadb-server-core lists the packages: libnuma1, libpcre2-8-0, libssl3, liburing2, libsystemd0, libcrypt1, zlib1g)"
        );
        works(root)
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs the server in the background, kills it once stdin closes (the test process
/// ended, however it ended), then removes its data.
const WATCHDOG: &str =
    r#""$0" "$@" & w=$!; read _ignored; kill -9 $w; wait $w; rm -rf "$FILESTORE_MARIADB_DATA""#;

/// The running server of this test process.
pub struct MariaDb {
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    /// Its version (`SELECT VERSION()`).
    pub version: String,
    _child: Child,
    _stdin: std::process::ChildStdin,
    log: PathBuf,
}

/// The server of this process, started on first use.
pub fn server() -> &'static MariaDb {
    static SERVER: OnceLock<MariaDb> = OnceLock::new();
    SERVER.get_or_init(|| MariaDb::start(&[]))
}

/// A second server of this process with `performance_schema` on (MariaDB leaves it
/// off by default), for the tools that read it; started on first use.
pub fn server_with_performance_schema() -> &'static MariaDb {
    static SERVER: OnceLock<MariaDb> = OnceLock::new();
    SERVER.get_or_init(|| MariaDb::start(&["--performance-schema=ON"]))
}

/// A server of this process in `NO_BACKSLASH_ESCAPES` mode (a backslash in a string
/// literal is itself, not an escape) whose connections start in GBK whatever the
/// client asks (a multibyte character set in which a character can swallow a
/// quote), for the template escape tests; started on first use. Its own server, so
/// no other test's connections change.
pub fn server_without_backslash_escapes() -> &'static MariaDb {
    static SERVER: OnceLock<MariaDb> = OnceLock::new();
    SERVER.get_or_init(|| {
        MariaDb::start(&[
            "--sql-mode=NO_BACKSLASH_ESCAPES",
            "--character-set-server=gbk",
            "--collation-server=gbk_chinese_ci",
            "--skip-character-set-client-handshake",
        ])
    })
}

impl MariaDb {
    /// A server started with `options` besides the usual ones.
    fn start(options: &[&str]) -> MariaDb {
        let root = install();
        // A port picked free can be taken before the server binds it: retried.
        let mut attempt = 1;
        loop {
            let dir = MariaDb::init(&root);
            match MariaDb::launch(&root, &dir, options) {
                Ok(server) => return server,
                Err(why) if attempt < 5 && why.contains("Address already in use") => {
                    eprintln!("MariaDB lost its port to another process; retrying: {why}");
                    attempt += 1;
                }
                Err(why) => panic!("MariaDB did not start: {why}"),
            }
        }
    }

    /// A new data directory with the system tables (`mariadb-install-db`).
    fn init(root: &Path) -> PathBuf {
        let dir = tempfile::Builder::new().prefix("filestore-mariadb-").tempdir().unwrap().keep();
        let mut cmd = Command::new(root.join("usr/bin/mariadb-install-db"));
        cmd.arg("--no-defaults")
            .arg(format!("--basedir={}", root.join("usr").display()))
            .arg(format!("--datadir={}", dir.join("data").display()))
            .args(["--auth-root-authentication-method=normal", "--skip-test-db"])
            .arg("--skip-name-resolve");
        if is_root() {
            cmd.arg("--user=root");
        }
        run(&mut cmd).success();
        dir
    }

    fn launch(root: &Path, dir: &Path, options: &[&str]) -> Result<MariaDb, String> {
        let log = dir.join("mariadb.log");
        let port = free_port();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", WATCHDOG]).arg(root.join("usr/sbin/mariadbd")).arg("--no-defaults");
        if is_root() {
            // mariadbd refuses root otherwise; its data directory is this test's own.
            cmd.arg("--user=root");
        }
        let mut child = cmd
            .arg(format!("--basedir={}", root.join("usr").display()))
            .arg(format!("--datadir={}", dir.join("data").display()))
            .arg(format!("--socket={}", dir.join("mariadb.sock").display()))
            .arg(format!("--pid-file={}", dir.join("mariadb.pid").display()))
            .arg(format!("--lc-messages-dir={}", root.join("usr/share/mysql").display()))
            .arg(format!("--port={port}"))
            .args([
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--max-connections=300",
                "--innodb-buffer-pool-size=32M",
                "--innodb-flush-log-at-trx-commit=0",
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_general_ci",
            ])
            .args(options)
            .env("FILESTORE_MARIADB_DATA", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut server =
            MariaDb { port, version: String::new(), _child: child, _stdin: stdin, log };
        // Not a timing assertion: a bound so a broken install fails instead of hanging.
        let give_up = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(mut c) = server.connect("root", "", None) {
                c.query_drop(format!(
                    "CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'; GRANT ALL ON *.* TO '{USER}'@'%' WITH GRANT OPTION"
                ))
                .map_err(|e| e.to_string())?;
                server.version = c.query_first("SELECT VERSION()").unwrap().unwrap();
                return Ok(server);
            }
            let tail = std::fs::read_to_string(&server.log).unwrap_or_default();
            if tail.contains("Do you already have another server running")
                || tail.contains("Address already in use")
                || tail.contains("[ERROR] Aborting")
                || Instant::now() >= give_up
            {
                return Err(tail);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn connect(&self, user: &str, pass: &str, db: Option<&str>) -> mysql::Result<mysql::Conn> {
        mysql::Conn::new(
            mysql::OptsBuilder::new()
                .ip_or_hostname(Some("127.0.0.1"))
                .tcp_port(self.port)
                .user(Some(user))
                .pass(Some(pass))
                .db_name(db)
                .prefer_socket(false),
        )
    }

    /// A connection as [`USER`] to `database`.
    pub fn client(&self, database: &str) -> mysql::Conn {
        self.connect(USER, PASSWORD, Some(database)).unwrap()
    }

    /// A new empty database for one test (named after it), and a connection to it.
    pub fn database(&self, name: &str) -> mysql::Conn {
        let mut admin = self.connect(USER, PASSWORD, None).unwrap();
        admin
            .query_drop(format!(
                "DROP DATABASE IF EXISTS `{name}`; CREATE DATABASE `{name}` CHARACTER SET utf8mb4"
            ))
            .unwrap();
        self.client(name)
    }

    /// A Toolbox `mysql` source document for `database` on this server, with the
    /// password taken from `${var}` and extra lines (`queryTimeout`, `queryParams`).
    pub fn source_yaml(
        &self,
        name: &str,
        database: &str,
        password_var: &str,
        extra: &str,
    ) -> String {
        format!(
            "kind: source\nname: {name}\ntype: mysql\nhost: 127.0.0.1\nport: {port}\nuser: {USER}\npassword: ${{{password_var}}}\ndatabase: {database}\n{extra}",
            port = self.port
        )
    }
}
