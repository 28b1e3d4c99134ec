//! Embedding the filestore sandbox in Rust. Run:
//! `cargo run --locked --release -p filestore-sandbox --example embed -- runtime/src`
//! (the directory to mount read-only at /workspace; default `./src`). After the
//! quickstart's release build in this checkout it compiles this file alone (`cargo
//! install` builds in a directory of its own). It depends on the
//! `filestore-sandbox` crate only: no MCP server, SQL driver or object-store client.
use std::sync::Arc;

use filestore_sandbox::tools::{
    InvokeContext, ToolError, ToolRegistry, ToolRequest, results_mount,
};
use filestore_sandbox::volumes::{Entry, MemoryVolume, Volume, Walk, WriteOptions, dir::DirVolume};
use filestore_sandbox::volumes::{Error as VolumeError, ErrorKind};
use filestore_sandbox::{MountSpec, SessionOptions};
use serde_json::{Value, json};

/// A volume of your own: anything implementing `Volume`. Paths arrive
/// volume-relative and normalised; your volume still confines them on its own.
struct Frozen(MemoryVolume);

fn frozen(path: &str) -> VolumeError {
    VolumeError::at(ErrorKind::ReadOnly, path, "this volume is frozen")
}

impl Volume for Frozen {
    fn stat(&self, path: &str) -> Result<Entry, VolumeError> {
        self.0.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>, VolumeError> {
        self.0.list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk, VolumeError> {
        self.0.walk(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>, VolumeError> {
        self.0.read(path, offset, len)
    }
    fn write(&self, path: &str, _: &[u8], _: &WriteOptions) -> Result<Entry, VolumeError> {
        Err(frozen(path))
    }
    fn delete(&self, path: &str, _: bool) -> Result<(), VolumeError> {
        Err(frozen(path))
    }
    fn rename(&self, from: &str, _: &str, _: bool) -> Result<(), VolumeError> {
        Err(frozen(from))
    }
}

/// A tool handler: validated arguments in, any JSON value out.
fn weather(req: &ToolRequest) -> Result<Value, ToolError> {
    match req.arguments["city"].as_str() {
        Some("Atlantis") => Err(ToolError::not_found("no such city")),
        city => Ok(json!({"city": city, "sky": "clear"})),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args().nth(1).unwrap_or_else(|| "./src".into());
    let engine = filestore_sandbox::new_engine()?; // precompiled by the build (else cached on disk); share it
    // The `filestore` crate's `ShippedHandlers` adds its sqlite, postgres, mysql, redis, http.
    let mut tools = ToolRegistry::new();
    tools.register("weather", Arc::new(weather));
    let notes = MemoryVolume::new();
    notes.insert("/todo.md", "- ship the Rust host\n");
    // One session per conversation: its own component instance.
    let mut session = engine.session_with(
        vec![
            MountSpec::new("/workspace", Arc::new(DirVolume::open(&root, true)?)).read_only(),
            MountSpec::new("/notes", Arc::new(Frozen(notes))),
            MountSpec::new("/scratch", Arc::new(MemoryVolume::new())),
            results_mount(),
        ],
        SessionOptions { tools: Arc::new(tools), ..Default::default() },
    )?;
    let out =
        session.call("filestore_grep", &json!({"pattern": "pub struct", "path": "/workspace"}))?;
    println!("{}", out.text); // out.json is the structured result
    if let Err(e) =
        session.call("filestore_write", &json!({"path": "/notes/todo.md", "content": "x"}))
    {
        println!("{e}"); // /notes/todo.md: this volume is frozen (a read-only error)
    }
    let yaml = "kind: tool\nname: forecast\ntype: weather\ndescription: The forecast.\n\
                parameters:\n  - {name: city, type: string, description: The city.}\n";
    session.load_config(&[("tools.yaml".into(), yaml.into())])?.map_err(|e| format!("{e:?}"))?;
    let ctx = InvokeContext { tool_call_id: Some("call-1".into()), ..Default::default() };
    println!("{}", session.invoke("forecast", &json!({"city": "Basel"}), &ctx)?.envelope);
    Ok(())
}
