//! What the host needs to reach one upstream server through one connection: the
//! server's declaration (checked by the component, `${VAR}` unresolved) with the
//! connection's credentials laid over it, resolved from the host's environment.
//!
//! Resolution happens per connection and only when it is used, so a variable that
//! only an unused connection needs is never required; a missing one makes that
//! connection inactive, naming the variable (never a value).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use filestore_runtime::tools::{Secret, ToolError, UnresolvedSource, resolve_sources};

/// Variables a stdio server inherits from the host: what a program needs to find its
/// interpreter and home, and nothing else. Everything else (the host's credentials
/// above all) must be declared in the server's `env` to reach it. The same list the
/// official MCP SDKs pass by default.
pub const INHERITED_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG"];

pub use filestore_runtime::tools::{DEFAULT_CONNECTION, DEFAULT_SERVER_TIMEOUT, ServerDecl};

/// How to reach a server through one connection, resolved.
#[derive(Clone, Debug)]
pub enum Endpoint {
    /// A program the host starts, speaking MCP on its stdin and stdout.
    Stdio {
        /// The program (a path relative to the agent file's directory when it has a
        /// `/`, else looked up on `PATH`).
        program: PathBuf,
        /// Its arguments.
        args: Vec<String>,
        /// Its whole environment ([`INHERITED_ENV`] plus the declared `env`).
        env: BTreeMap<String, String>,
        /// Its working directory.
        cwd: PathBuf,
    },
    /// A streamable-HTTP MCP endpoint.
    Http {
        /// The URL.
        url: String,
        /// Headers sent with every request (credentials).
        headers: BTreeMap<String, String>,
    },
}

/// One (server, connection) pair, resolved: where to connect and which values came
/// from the environment (removed from every message).
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The per-call (and connect) timeout.
    pub timeout: Duration,
    /// Values taken from the environment.
    pub secrets: Vec<Secret>,
}

/// Resolves `connection` of `server`: the server's `env`/`headers` with the
/// connection's laid over them, `${VAR}` taken from `env`. `Err` is why the
/// connection cannot be used (a missing variable, naming it; a server without a
/// command or url).
pub fn resolve(
    server: &ServerDecl,
    connection: &str,
    base_dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Resolved, ToolError> {
    let mut fields = server.fields.clone();
    fields.remove("connections");
    fields.remove("timeoutMs");
    if let Some(over) = server.connection(connection) {
        for key in ["env", "headers"] {
            if let Some(Value::Object(add)) = over.get(key) {
                let base = fields.entry(key).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(base) = base {
                    base.extend(add.clone());
                }
            }
        }
    }
    let unresolved = UnresolvedSource {
        name: format!("servers.{}", server.name),
        source_type: server.transport.clone(),
        fields,
    };
    let set = resolve_sources(std::slice::from_ref(&unresolved), &|_| true, env)?;
    let lacks = |what: &str| ToolError::invalid_argument(format!("the server {what}"));
    let source = set.get(&unresolved.name).cloned().ok_or_else(|| lacks("did not resolve"))?;
    let f = &source.fields;
    let string = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
    let map = |k: &str| -> BTreeMap<String, String> {
        f.get(k)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let endpoint = match server.transport.as_str() {
        "stdio" => {
            let command = string("command").ok_or_else(|| lacks("has no command"))?;
            let cwd = match string("cwd") {
                Some(c) => base_dir.join(c),
                None => base_dir.to_path_buf(),
            };
            let program = if command.contains('/') {
                base_dir.join(&command)
            } else {
                PathBuf::from(&command)
            };
            let mut all: BTreeMap<String, String> = INHERITED_ENV
                .iter()
                .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
                .collect();
            all.extend(map("env"));
            let args = f
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            Endpoint::Stdio { program, args, env: all, cwd }
        }
        "http" => Endpoint::Http {
            url: string("url").ok_or_else(|| lacks("has no url"))?,
            headers: map("headers"),
        },
        other => return Err(ToolError::unsupported(format!("unknown transport '{other}'"))),
    };
    Ok(Resolved { endpoint, timeout: server.timeout(), secrets: source.secrets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decl(fields: Value) -> ServerDecl {
        ServerDecl {
            name: "s".into(),
            transport: if fields.get("url").is_some() { "http" } else { "stdio" }.into(),
            fields: fields.as_object().unwrap().clone(),
            location: "a.yaml: line 1, column 1".into(),
        }
    }

    #[test]
    fn connections_overlay_and_resolve_lazily() {
        let s = decl(json!({
            "url": "http://h/mcp",
            "headers": {"Authorization": "Bearer ${BASE}", "X-Team": "a"},
            "connections": {
                "team": {"headers": {"Authorization": "Bearer ${TEAM}"}},
                "off": {"disabled": true}
            }
        }));
        let env = |k: &str| (k == "TEAM").then(|| "t0ken".to_string());
        let r = resolve(&s, "team", Path::new("/"), &env).unwrap();
        let Endpoint::Http { headers, .. } = &r.endpoint else { panic!() };
        assert_eq!(headers["Authorization"], "Bearer t0ken");
        assert_eq!(headers["X-Team"], "a");
        assert_eq!(r.secrets[0].variable, "TEAM");
        // The default connection needs BASE, which is not set: named, no value.
        let e = resolve(&s, "default", Path::new("/"), &env).unwrap_err();
        assert!(e.to_string().contains("'BASE'"), "{e}");
        assert!(s.is_disabled("off") && !s.is_disabled("team"));
        assert!(s.has_connection("default") && !s.has_connection("nope"));
    }

    #[test]
    fn stdio_environment_is_declared_plus_basics() {
        let s = decl(
            json!({"command": "./srv.py", "args": ["-v"], "env": {"K": "${V:x}"}, "timeoutMs": 1500}),
        );
        let r = resolve(&s, "default", Path::new("/agents"), &|_| None).unwrap();
        let Endpoint::Stdio { program, args, env, cwd } = &r.endpoint else { panic!() };
        assert_eq!(program, Path::new("/agents/./srv.py"));
        assert_eq!(cwd, Path::new("/agents"));
        assert_eq!(args, &["-v"]);
        assert_eq!(env["K"], "x");
        assert!(env.keys().all(|k| k == "K" || INHERITED_ENV.contains(&k.as_str())), "{env:?}");
        assert_eq!(r.timeout, Duration::from_millis(1500));
    }
}
