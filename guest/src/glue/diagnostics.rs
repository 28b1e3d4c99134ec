//! The exported `diagnostics` interface: test and benchmark hooks.

use super::Component;
use super::exports::filestore::component::diagnostics as diag;

/// Memory kept by `diagnostics.allocate` until `release`.
static HELD: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());

impl diag::Guest for Component {
    fn spin(iterations: u64) -> u64 {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut i = 0u64;
        while i < iterations {
            x = std::hint::black_box(x.rotate_left(5) ^ i);
            i += 1;
        }
        x
    }

    fn allocate(bytes: u64) -> u64 {
        // Touch one byte per 4 KiB so the pages really exist; growth past the cap
        // makes the allocator fail, which aborts (a trap the host reports).
        let mut v = vec![0u8; bytes as usize];
        for b in v.iter_mut().step_by(4096) {
            *b = 1;
        }
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        held.push(std::hint::black_box(v));
        held.iter().map(|v| v.len() as u64).sum()
    }

    fn release() {
        HELD.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn observe_ambient() -> diag::Ambient {
        diag::Ambient {
            env_names: std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned()).collect(),
            args: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        }
    }
}
