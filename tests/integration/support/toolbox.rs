//! The real MCP Toolbox binary, the reference the differential suite
//! (`toolbox_diff`) compares filestore with: `bin/toolbox` of the npm package
//! [`PACKAGE`] (Google's own release build), installed through `install::npm` into
//! `$FILESTORE_TOOLBOX` or `~/.cache/filestore/toolbox-1.12.0` on first use.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The pinned package: Toolbox 1.12.0 for linux-x64.
pub const PACKAGE: &str = "@toolbox-sdk/server-linux-x64@1.12.0";
/// What `toolbox --version` starts with for that package.
const VERSION: &str = "toolbox version 1.12.0+";

/// The `toolbox` binary, installed on first use and checked to be 1.12.0.
pub fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = super::install::cache_dir("FILESTORE_TOOLBOX", "toolbox-1.12.0");
        let bin = dir.join("node_modules/@toolbox-sdk/server-linux-x64/bin/toolbox");
        let args = ["install", "--silent", "--no-audit", "--no-fund", "--prefix", ".", PACKAGE];
        super::install::npm(&dir, &bin, |_| {}, &args);
        let out = Command::new(&bin).arg("--version").output().expect("running toolbox");
        let version = String::from_utf8_lossy(&out.stdout);
        assert!(version.starts_with(VERSION), "{} is not 1.12.0: {version}", bin.display());
        bin
    })
}

/// `toolbox` with the flags every run takes: no version check over the network, only
/// errors logged (the log goes to stdout, before a result).
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new(binary());
    cmd.args(["--disable-version-check", "--log-level", "ERROR"])
        .current_dir(dir)
        .stdin(Stdio::null());
    cmd
}

/// `toolbox invoke TOOL ARGS --config CONFIG` run in `dir` with `env` added (not
/// waited for).
pub fn invoke(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    tool: &str,
    args: &str,
) -> std::process::Child {
    let mut cmd = command(dir);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    cmd.arg("invoke")
        .arg(tool)
        .arg(args)
        .arg("--config")
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("running toolbox invoke")
}

/// Whether Toolbox loads `config` (in `dir`, with `env` added): `Err` is its message
/// when it refuses the file. (`invoke` of a tool no file defines: a loaded file
/// answers "not found".)
pub fn loads(dir: &Path, env: &[(String, String)], config: &Path) -> Result<(), String> {
    let out = invoke(dir, env, config, "__no_such_tool__", "{}").wait_with_output().unwrap();
    let text = text(&out);
    if text.contains("tool \"__no_such_tool__\" not found")
        || text.contains("tool __no_such_tool__ not found")
    {
        Ok(())
    } else {
        Err(text)
    }
}

/// stdout and stderr of `out`, joined.
pub fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}
