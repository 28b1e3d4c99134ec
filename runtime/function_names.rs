//! Function names kept out of the precompiled artifact and found again for a trap's
//! backtrace (`#[path]`-included by the sandbox's build script, which strips them,
//! and by the runtime, which reads them back from the embedded component, so the
//! two sides agree on what was taken out).
//!
//! Why: wasmtime deserialises one name entry per function on every start (12,000 of
//! them for the filestore component, a fifth of the metadata it reads) only so that a
//! trap's backtrace can name its frames. Traps are rare; starts are not. The
//! artifact is compiled from the component without its core modules' function-name
//! subsections, and the runtime names a trap's frames from the embedded component,
//! which keeps them, when it logs the trap.
//!
//! Hand-rolled rather than through wasmparser and wasm-encoder: it only walks section
//! headers (an id byte and a LEB128 length) and the name section's subsections (the
//! same framing) and copies everything else as is, and the runtime would otherwise
//! add a second feature set of wasmparser to the build.

#![allow(dead_code)] // each includer uses its half

use std::collections::HashMap;

/// The core module's section id inside a component.
const COMPONENT_CORE_MODULE: u8 = 1;
/// A nested component's section id inside a component.
const COMPONENT_COMPONENT: u8 = 4;
/// The custom section id (in modules and components).
const CUSTOM: u8 = 0;
/// The name section's module-name subsection.
const MODULE_NAME: u8 = 0;
/// The name section's function-names subsection.
const FUNCTION_NAMES: u8 = 1;
/// The name section's local-names subsection (locals of each function).
const LOCAL_NAMES: u8 = 2;

/// `component` with the function and local names taken out of every core module that
/// has a module name (the runtime finds those modules again by it); everything else,
/// including the module names, byte for byte. `None` if `component` is not a
/// well-formed component or module at the section level.
pub fn strip_function_names(component: &[u8]) -> Option<Vec<u8>> {
    rewrite(component, true)
}

/// The function names of the core module named `module` (the name section's module
/// name) in `component`, by function index; empty when there is no such module or it
/// has no function names.
pub fn function_names(component: &[u8], module: &str) -> HashMap<u32, String> {
    let mut found = HashMap::new();
    find_names(component, module, &mut found);
    found
}

/// A module's or component's sections after its 8-byte preamble: `(id, payload)`;
/// `None` on a truncated one.
fn sections(bytes: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    entries(bytes.get(8..)?)
}

fn rewrite(bytes: &[u8], component_level: bool) -> Option<Vec<u8>> {
    let mut out = bytes.get(..8)?.to_vec();
    for (id, payload) in sections(bytes)? {
        let new = match id {
            COMPONENT_CORE_MODULE | COMPONENT_COMPONENT if component_level => {
                Some(rewrite(payload, id == COMPONENT_COMPONENT)?)
            }
            CUSTOM if !component_level => name_section_without_function_names(payload),
            _ => None,
        };
        let body = new.as_deref().unwrap_or(payload);
        out.push(id);
        put_leb(&mut out, body.len() as u32);
        out.extend_from_slice(body);
    }
    Some(out)
}

/// A custom section's payload without its function and local names, if it is a name
/// section with a module name; `None` to keep it as it is.
fn name_section_without_function_names(custom: &[u8]) -> Option<Vec<u8>> {
    let (name, rest) = string(custom, 0)?;
    if name != "name" {
        return None;
    }
    let subs = entries(&custom[rest..])?;
    if !subs.iter().any(|(id, _)| *id == MODULE_NAME) {
        return None;
    }
    let mut out = custom[..rest].to_vec();
    for (id, body) in subs {
        if id != FUNCTION_NAMES && id != LOCAL_NAMES {
            out.push(id);
            put_leb(&mut out, body.len() as u32);
            out.extend_from_slice(body);
        }
    }
    Some(out)
}

fn find_names(bytes: &[u8], module: &str, found: &mut HashMap<u32, String>) {
    for (id, payload) in sections(bytes).unwrap_or_default() {
        if id == COMPONENT_CORE_MODULE || id == COMPONENT_COMPONENT {
            find_names(payload, module, found);
        }
        if id != CUSTOM {
            continue;
        }
        let Some((name, rest)) = string(payload, 0) else { continue };
        let Some(subs) = (name == "name").then(|| entries(&payload[rest..])).flatten() else {
            continue;
        };
        let named = subs.iter().any(|(id, body)| {
            *id == MODULE_NAME && string(body, 0).is_some_and(|(n, _)| n == module)
        });
        if let Some((_, map)) = subs.iter().find(|(id, _)| named && *id == FUNCTION_NAMES) {
            read_name_map(map, found);
        }
    }
}

/// A name map (`vec(index, name)`) into `found`; stops at a malformed entry.
fn read_name_map(map: &[u8], found: &mut HashMap<u32, String>) {
    let Some((count, mut at)) = leb(map, 0) else { return };
    for _ in 0..count {
        let Some((index, next)) = leb(map, at) else { return };
        let Some((name, next)) = string(map, next) else { return };
        found.insert(index, name.to_string());
        at = next;
    }
}

/// Entries framed the way sections are (an id byte, a LEB128 length, the payload): a
/// module's sections, a name section's subsections. `None` on a truncated one.
fn entries(bytes: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() {
        let id = bytes[at];
        let (len, next) = leb(bytes, at + 1)?;
        out.push((id, bytes.get(next..next.checked_add(len as usize)?)?));
        at = next + len as usize;
    }
    Some(out)
}

/// A name (LEB128 length, UTF-8) at `at`, and where it ends.
fn string(bytes: &[u8], at: usize) -> Option<(&str, usize)> {
    let (len, start) = leb(bytes, at)?;
    let end = start.checked_add(len as usize)?;
    Some((std::str::from_utf8(bytes.get(start..end)?).ok()?, end))
}

/// An unsigned LEB128 `u32` at `at`, and where it ends.
fn leb(bytes: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut value: u64 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(at)?;
        at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return u32::try_from(value).ok().map(|v| (v, at));
        }
    }
    None
}

fn put_leb(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}
