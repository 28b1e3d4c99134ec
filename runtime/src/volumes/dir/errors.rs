//! Errors of the dir volume: io errors mapped to typed kinds, naming virtual paths,
//! never the host path of the root, and why a component could not be opened.

use super::*;

/// Explains why the directory component `name` (shown as `shown`) of `path` could
/// not be opened, by looking at it without following it.
pub(super) fn explain_component(
    base: &Dir,
    name: &OsStr,
    shown: &str,
    path: &str,
    err: io::Error,
    create: bool,
    target: bool,
) -> Error {
    match base.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => {
            let what = if shown == path {
                "is a symbolic link".to_string()
            } else {
                format!("'{shown}' is a symbolic link")
            };
            Error::at(ErrorKind::InvalidPath, path, format!("{what}; {NO_FOLLOW}"))
        }
        Ok(m) if !m.is_dir() => {
            if target {
                Error::at(ErrorKind::NotADirectory, path, "not a directory")
            } else if create {
                Error::at(
                    ErrorKind::NotADirectory,
                    path,
                    format!("parent '{shown}' is not a directory"),
                )
            } else {
                Error::at(
                    ErrorKind::NotFound,
                    path,
                    format!("no such file or directory ('{shown}' is not a directory)"),
                )
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Error::not_found(path),
        _ => io_error(path, err),
    }
}

/// Explains why the last component `name` of `path` could not be opened as a file.
pub(super) fn explain_leaf(parent: &Dir, name: &OsStr, path: &str, err: io::Error) -> Error {
    match parent.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => {
            Error::at(ErrorKind::InvalidPath, path, format!("is a symbolic link; {NO_FOLLOW}"))
        }
        Ok(m) if m.is_dir() => Error::at(ErrorKind::NotAFile, path, "is a directory"),
        Ok(m) if !m.is_file() => Error::at(ErrorKind::Unsupported, path, "not a regular file"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Error::not_found(path),
        _ => io_error(path, err),
    }
}

/// Maps an I/O error to a filestore error about `path`. Messages never carry host
/// paths (std and cap-std errors do not).
pub(super) fn io_error(path: &str, e: io::Error) -> Error {
    use io::ErrorKind as K;
    if ELOOP.is_some() && e.raw_os_error() == ELOOP {
        return Error::at(
            ErrorKind::InvalidPath,
            path,
            format!("a symbolic link is in the way; {NO_FOLLOW}"),
        );
    }
    let (kind, message) = match e.kind() {
        K::NotFound => return Error::not_found(path),
        K::AlreadyExists => (ErrorKind::AlreadyExists, "already exists".to_string()),
        K::NotADirectory => (ErrorKind::NotADirectory, "not a directory".to_string()),
        K::IsADirectory => (ErrorKind::NotAFile, "is a directory".to_string()),
        K::DirectoryNotEmpty => (
            ErrorKind::Conflict,
            "directory is not empty; pass recursive=true to delete it".to_string(),
        ),
        K::ReadOnlyFilesystem => {
            (ErrorKind::ReadOnly, "the underlying file system is read-only".to_string())
        }
        K::InvalidFilename => {
            (ErrorKind::InvalidPath, "file name is invalid or too long".to_string())
        }
        K::CrossesDevices => {
            (ErrorKind::Unsupported, "cannot move across file systems".to_string())
        }
        K::PermissionDenied => (ErrorKind::Backend, "permission denied".to_string()),
        K::StorageFull | K::QuotaExceeded => {
            (ErrorKind::Backend, "no space left on the device".to_string())
        }
        _ => (ErrorKind::Backend, e.to_string()),
    };
    Error::at(kind, path, message)
}
