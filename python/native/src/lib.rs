//! `filestore._native`: the filestore host (engine, component, volumes, tool handlers)
//! inside CPython, for the Python package's in-process `filestore.Session` and the
//! `filestore` command the wheel installs.
//!
//! The Python side (`python/src/filestore/session.py`) keeps the API; this module is
//! the thin typed bridge: JSON strings in and out (Python's `json` does the
//! conversion), the GIL released for every call into the sandbox, and errors as
//! `(kind, message)` pairs that Python raises as `FilestoreError`.

mod sandbox;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use sandbox::{Failure, Plan, Sandbox};

/// One in-process sandbox: the `filestore serve` session of a stdio client, without
/// the process and the protocol. Calls are serialised, as a session's are in `serve`.
#[pyclass(module = "filestore._native", name = "Sandbox", frozen)]
struct PySandbox {
    /// `None` once closed.
    inner: Mutex<Option<Sandbox>>,
    /// Set to cancel the running call (the session's own flag).
    cancel: Arc<AtomicBool>,
}

impl PySandbox {
    fn lock(&self) -> MutexGuard<'_, Option<Sandbox>> {
        // A panic while held cannot leave the sandbox half updated (see the MCP
        // server's lock): the guest state lives in the store, whose calls complete or
        // poison the session.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A failure as the `(kind, message)` pair Python raises: a `ValueError` subclass is
/// not needed, the Python side builds the typed error.
fn raise(f: Failure) -> PyErr {
    PyRuntimeError::new_err((f.kind, f.message))
}

#[pymethods]
impl PySandbox {
    /// Opens the mounts (serve's defaults added), loads the configuration and skills,
    /// and starts the session. Raises `RuntimeError((kind, message))`.
    #[new]
    #[pyo3(signature = (mounts, *, cwd=None, shell=false, config=None, toolset=None, skills=None))]
    fn new(
        py: Python<'_>,
        mounts: Vec<String>,
        cwd: Option<std::path::PathBuf>,
        shell: bool,
        config: Option<std::path::PathBuf>,
        toolset: Option<String>,
        skills: Option<std::path::PathBuf>,
    ) -> PyResult<PySandbox> {
        let plan = Plan { mounts, cwd, shell, config, toolset, skills };
        let sandbox = py.detach(move || Sandbox::open(plan)).map_err(raise)?;
        let cancel = sandbox.cancel_handle();
        Ok(PySandbox { inner: Mutex::new(Some(sandbox)), cancel })
    }

    /// Calls `tool` with `arguments` (a JSON object's text). Returns the structured
    /// result's JSON text; raises `RuntimeError((kind, message))` for an error result.
    fn call(&self, py: Python<'_>, tool: &str, arguments: &str) -> PyResult<String> {
        let args: serde_json::Value = serde_json::from_str(arguments)
            .map_err(|e| PyValueError::new_err(format!("{tool}: arguments are not JSON: {e}")))?;
        py.detach(|| {
            let mut guard = self.lock();
            let sandbox = guard.as_mut().ok_or_else(Failure::closed)?;
            sandbox.call(tool, &args)
        })
        .map(|v| v.to_string())
        .map_err(raise)
    }

    /// The tools the session offers, as a JSON list of MCP tool specs.
    fn tools(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| {
            let mut guard = self.lock();
            guard.as_mut().ok_or_else(Failure::closed)?.tools()
        })
        .map(|v| v.to_string())
        .map_err(raise)
    }

    /// Cancels the running call, if any (it ends with a `cancelled` error and the
    /// sandbox is replaced for the next call). Does not wait for the session.
    fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Ends the session (waiting for a running call); in-memory volumes are gone.
    fn close(&self, py: Python<'_>) {
        self.cancel.store(true, Ordering::SeqCst);
        let closed = py.detach(|| self.lock().take());
        drop(closed);
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.lock().is_none()
    }
}

/// The `filestore` command with `argv` (`argv[0]` is the program name): what the
/// `filestore` executable the wheel installs runs. Returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> i32 {
    py.detach(|| filestore::cli::run(argv))
}

/// `filestore --version`'s text after the program name: the host, the component
/// (version and digest) and the WIT package.
#[pyfunction]
fn version() -> &'static str {
    filestore::VERSION
}

/// The Python module `filestore._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySandbox>()?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add("WIT_PACKAGE", filestore::WIT_PACKAGE_VERSION)?;
    Ok(())
}
