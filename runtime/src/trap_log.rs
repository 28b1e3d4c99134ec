//! A trap as the server's log tells it: wasmtime's error with its WebAssembly
//! backtrace, each frame named.
//!
//! The embedded component is compiled without function names, by the build (its
//! precompiled artifact) and by the engine alike (a start would deserialise one per
//! function only for this; `../function_names.rs` says why), so wasmtime calls those
//! frames `<wasm function N>`. [`FrameNames`] names them from the
//! embedded component, which keeps its name section: read once, at the first trap
//! that needs it.

#[path = "../function_names.rs"]
mod function_names;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use wasmtime::WasmBacktrace;

/// `component` without the function names of its named core modules, as the build's
/// precompiled artifact is compiled; as it is if its sections do not parse (wasmtime
/// then says what is wrong with it).
pub(crate) fn without_function_names(component: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match function_names::strip_function_names(component) {
        Some(stripped) => stripped.into(),
        None => component.into(),
    }
}

/// Function names by core module name, read from the component bytes on demand.
pub(crate) struct FrameNames {
    /// The component the loaded one was compiled from without its names; `None` when
    /// the loaded component kept its own (an embedder's).
    component: Option<fn() -> &'static [u8]>,
    by_module: Mutex<HashMap<String, Arc<HashMap<u32, String>>>>,
}

impl FrameNames {
    pub(crate) fn new(component: Option<fn() -> &'static [u8]>) -> FrameNames {
        FrameNames { component, by_module: Mutex::default() }
    }

    /// `e` as `{e:?}` shows it (its context, the backtrace, the causes), with the
    /// backtrace's unnamed frames named where the component names them.
    pub(crate) fn describe(&self, e: &wasmtime::Error) -> String {
        let whole = format!("{e:?}");
        let Some(backtrace) = e.downcast_ref::<WasmBacktrace>() else { return whole };
        if self.component.is_none() || backtrace.frames().iter().all(|f| f.func_name().is_some()) {
            return whole;
        }
        whole.replacen(&backtrace.to_string(), &self.render(backtrace), 1)
    }

    /// `backtrace` in wasmtime's own layout (frame number, offset in the module,
    /// `module!function`), demangled as wasmtime demangles.
    fn render(&self, backtrace: &WasmBacktrace) -> String {
        let mut out = String::from("error while executing at wasm backtrace:");
        for (i, frame) in backtrace.frames().iter().enumerate() {
            let module = frame.module().name().unwrap_or("<unknown>");
            let _ = write!(out, "\n  {i:>3}: ");
            if let Some(offset) = frame.module_offset() {
                let _ = write!(out, "{offset:#8x} - ");
            }
            let index = frame.func_index();
            let ours = frame.func_name().is_none().then(|| self.names(module)).flatten();
            match frame.func_name().or_else(|| ours.as_ref()?.get(&index).map(String::as_str)) {
                Some(name) => {
                    let _ = write!(out, "{module}!{:#}", rustc_demangle::demangle(name));
                }
                None => {
                    let _ = write!(out, "{module}!<wasm function {index}>");
                }
            }
        }
        out
    }

    /// The function names of the core module `module`, read from the component the
    /// first time they are asked for.
    fn names(&self, module: &str) -> Option<Arc<HashMap<u32, String>>> {
        let component = self.component?;
        let mut cache = self.by_module.lock().unwrap_or_else(|p| p.into_inner());
        let names = cache
            .entry(module.to_string())
            .or_insert_with(|| Arc::new(function_names::function_names(component(), module)));
        Some(names.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::function_names::{function_names, strip_function_names};

    fn section(id: u8, body: &[u8]) -> Vec<u8> {
        assert!(body.len() < 128, "one-byte lengths keep the fixtures readable");
        [&[id, body.len() as u8][..], body].concat()
    }

    fn string(s: &str) -> Vec<u8> {
        [&[s.len() as u8][..], s.as_bytes()].concat()
    }

    /// A core module with a name section: its module name (if any), two function
    /// names and a local name, plus a custom section of another name.
    fn module(name: Option<&str>) -> Vec<u8> {
        let mut names = string("name");
        if let Some(n) = name {
            names.extend(section(0, &string(n)));
        }
        let funcs = [&[2u8, 0][..], &string("_start"), &[7], &string("helper")].concat();
        names.extend(section(1, &funcs));
        names.extend(section(2, &[1, 0, 1, 0, 1, b'x']));
        let other = [&string("producers")[..], b"rustc"].concat();
        [&b"\0asm\x01\0\0\0"[..], &section(0, &names), &section(0, &other)].concat()
    }

    fn component(modules: &[Vec<u8>]) -> Vec<u8> {
        let mut c = b"\0asm\x0d\0\x01\0".to_vec();
        for m in modules {
            c.extend(section(1, m));
        }
        c
    }

    #[test]
    fn function_names_are_found_by_module_name_and_stripped_from_named_modules_only() {
        let named = module(Some("guest.wasm"));
        let unnamed = module(None);
        let original = component(&[named.clone(), unnamed.clone()]);
        let names = function_names(&original, "guest.wasm");
        assert_eq!(names.len(), 2, "{names:?}");
        assert_eq!(names[&0], "_start");
        assert_eq!(names[&7], "helper");
        assert!(function_names(&original, "other.wasm").is_empty());

        let stripped = strip_function_names(&original).expect("well-formed");
        assert!(function_names(&stripped, "guest.wasm").is_empty());
        assert!(stripped.len() < original.len());
        // The module name and the other custom section stay; the unnamed module's
        // names are untouched (the runtime could not find them again).
        assert!(stripped.windows(10).any(|w| w == b"guest.wasm"));
        assert!(stripped.windows(9).any(|w| w == b"producers"));
        assert!(stripped.windows(6).any(|w| w == b"_start"), "the unnamed module keeps its names");
        assert_eq!(stripped.windows(6).filter(|w| *w == b"helper").count(), 1);
        // Stripping twice changes nothing more; a component without names is kept
        // byte for byte.
        assert_eq!(strip_function_names(&stripped).unwrap(), stripped);
        let plain = component(&[unnamed]);
        assert_eq!(strip_function_names(&plain).unwrap(), plain);
    }

    #[test]
    fn malformed_bytes_are_refused_not_misread() {
        let original = component(&[module(Some("guest.wasm"))]);
        for cut in [3, 9, original.len() - 1] {
            assert_eq!(strip_function_names(&original[..cut]), None, "cut at {cut}");
        }
        assert!(function_names(&original[..original.len() - 1], "guest.wasm").is_empty());
    }
}
