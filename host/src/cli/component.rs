//! `filestore component`: the WebAssembly component this binary runs, and the WIT
//! package it implements, written out for hosts in other languages.

use std::process::ExitCode;

use filestore_guest::error::ErrorKind;

use super::output::fail;

/// `filestore component -o FILE [--wit DIR]`: each file written atomically (a
/// temporary file renamed), so a failed write leaves any previous one intact.
pub(super) fn write_component(output: &std::path::Path, wit: Option<&std::path::Path>) -> ExitCode {
    let write = |path: &std::path::Path, bytes: &[u8]| -> Result<(), String> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp-{}", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path)).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("writing {}: {e}", path.display())
        })
    };
    if let Err(e) = write(output, filestore::component()) {
        return fail(ErrorKind::Backend, e);
    }
    if let Some(dir) = wit {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(ErrorKind::Backend, format!("creating {}: {e}", dir.display()));
        }
        for (name, text) in filestore::engine::WIT_PACKAGE {
            if let Err(e) = write(&dir.join(name), text.as_bytes()) {
                return fail(ErrorKind::Backend, e);
            }
        }
    }
    ExitCode::SUCCESS
}
