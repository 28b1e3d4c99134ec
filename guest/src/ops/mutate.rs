//! `filestore_write`, `filestore_delete`, `filestore_move`
//! (docs/architecture.md#filestore_write,
//! docs/architecture.md#filestore_delete-filestore_move-and-filestore_mkdir).
//!
//! Every mutation goes through [`MountTable::writable`], which refuses read-only
//! mounts and paths outside any mount, and each checks read-only entries first, so
//! the error names the path the agent gave.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::read::Encoding;
use crate::vfs::entry::Entry;
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;
use crate::vfs::volume::WriteOptions;

/// Parameters of `filestore_write`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteRequest {
    /// The file to create or replace.
    pub path: String,
    /// The whole new content.
    pub content: String,
    /// Fail with `already-exists` when the file exists.
    #[serde(default)]
    pub create_only: bool,
    /// How `content` holds the bytes: UTF-8 text (the default) or `base64` (any
    /// bytes: uploads, binary files).
    #[serde(default)]
    pub encoding: crate::ops::read::Encoding,
}

/// Parameters of `filestore_delete`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteRequest {
    /// File or directory to delete.
    pub path: String,
    /// Required to delete a non-empty directory.
    #[serde(default)]
    pub recursive: bool,
}

/// Parameters of `filestore_mkdir`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MkdirRequest {
    /// The directory to create (missing parents are created too).
    pub path: String,
}

/// Parameters of `filestore_move`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// What to move.
    pub source: String,
    /// Where to.
    pub destination: String,
    /// Replace an existing destination file.
    #[serde(default)]
    pub overwrite: bool,
}

/// Result of a mutation: the entry concerned and what happened.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MutationResult {
    /// The entry written or moved to; for delete, the entry as it was.
    pub entry: Entry,
    /// A one-line summary.
    pub message: String,
}

/// Creates a directory and its missing parents; an existing directory is success
/// (the message says so), a file in the way `already-exists`.
pub fn mkdir(mounts: &MountTable, req: &MkdirRequest) -> Result<MutationResult> {
    let path = paths::normalize(&req.path)?;
    let existed = matches!(mounts.stat(&path), Ok(e) if e.is_dir());
    let entry = mounts.create_dir(&path)?;
    let message = if existed {
        format!("{} already exists.", entry.path)
    } else {
        format!("Created directory {}.", entry.path)
    };
    Ok(MutationResult { entry, message })
}

/// Creates or replaces a file.
pub fn write(mounts: &MountTable, limits: &Limits, req: &WriteRequest) -> Result<MutationResult> {
    let path = paths::normalize(&req.path)?;
    // Normalising drops a trailing '/', which would turn "write /dir/" into a file
    // named `dir`: a path ending in '/' names a directory, and write makes files.
    if req.path.len() > 1 && req.path.ends_with('/') {
        return Err(Error::at(
            ErrorKind::InvalidPath,
            &req.path,
            "a path ending in '/' names a directory; filestore_write writes a file (give its name; parent directories are created), filestore_mkdir creates an empty directory",
        ));
    }
    let decoded;
    let bytes: &[u8] = match req.encoding {
        Encoding::Utf8 => req.content.as_bytes(),
        Encoding::Base64 => {
            // Refuse an oversized upload before decoding it (3 bytes per 4 chars).
            if (req.content.len() as u64 / 4).saturating_mul(3) > limits.write_bytes {
                return Err(too_large(&path, req.content.len() as u64 / 4 * 3, limits));
            }
            decoded = decode_base64(&path, &req.content)?;
            &decoded
        }
    };
    if bytes.len() as u64 > limits.write_bytes {
        return Err(too_large(&path, bytes.len() as u64, limits));
    }
    let existed = match mounts.stat(&path) {
        Ok(_) => true,
        Err(e) if crate::vfs::mounts::is_absent(&e) => false,
        Err(e) => return Err(e),
    };
    let opts = WriteOptions { create_only: req.create_only, ..Default::default() };
    let entry = mounts.write(&path, bytes, &opts)?;
    let message = format!(
        "{} {} ({} bytes).",
        if existed { "Replaced" } else { "Created" },
        entry.path,
        entry.size
    );
    Ok(MutationResult { entry, message })
}

fn too_large(path: &str, len: u64, limits: &Limits) -> Error {
    Error::at(
        ErrorKind::TooLarge,
        path,
        format!("content is {len} bytes; the write limit is {} bytes", limits.write_bytes),
    )
}

/// Decodes standard base64 (padding optional; whitespace such as a MIME line break
/// is skipped), naming the first offending character, at its place in what was sent,
/// when it is not base64.
fn decode_base64(path: &str, text: &str) -> Result<Vec<u8>> {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: String;
    let spaced = text.bytes().any(|b| b.is_ascii_whitespace());
    let data = if spaced {
        compact = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        compact.as_str()
    } else {
        text
    };
    // The character at byte `at` of `data`, and its byte offset in `text`.
    let place = |at: usize| -> (char, usize) {
        let mut kept = 0;
        for (i, c) in text.char_indices() {
            if spaced && c.is_ascii_whitespace() {
                continue;
            }
            if kept >= at {
                return (c, i);
            }
            kept += c.len_utf8();
        }
        ('?', text.len())
    };
    LENIENT.decode(data).map_err(|e| {
        let why = match e {
            base64::DecodeError::InvalidByte(at, b'=') => {
                let (_, i) = place(at);
                format!("'=' at byte {i} is padding in the middle of the data (two uploads joined, or too much padding?)")
            }
            base64::DecodeError::InvalidByte(at, _) => {
                let (c, i) = place(at);
                let hint = match c {
                    '-' | '_' => " (that is the URL-safe alphabet; only the standard one, with + and /, is accepted)",
                    _ => "",
                };
                format!("byte {i} ('{}') is not base64{hint}", c.escape_default())
            }
            base64::DecodeError::InvalidLength(n) => {
                format!("{n} base64 characters cannot be whole bytes (a truncated upload?)")
            }
            base64::DecodeError::InvalidLastSymbol { offset, symbol, .. } => format!(
                "the last character ('{}', byte {}) has bits set past the data (a truncated upload?)",
                symbol as char,
                place(offset).1
            ),
            base64::DecodeError::InvalidPadding => "bad '=' padding".into(),
        };
        Error::invalid_argument("content", format!("{path}: encoding is base64, but {why}"))
    })
}

/// Deletes a file or directory.
pub fn delete(mounts: &MountTable, req: &DeleteRequest) -> Result<MutationResult> {
    let path = paths::normalize(&req.path)?;
    let entry = mounts.stat(&path)?;
    mounts.refuse_read_only(&path, &entry)?;
    let (first, rel) = mounts.writable(&path)?;
    // Overlays: the entry goes from every layer that holds it, or the delete is
    // refused, so that a copy in another layer never reappears in its place.
    let holders = mounts.holders(&path)?;
    if let Some((ro, _)) = holders.iter().find(|(m, _)| m.read_only) {
        return Err(Error::at(
            ErrorKind::ReadOnly,
            &path,
            if holders.len() > 1 {
                format!(
                    "the entry is also in a read-only layer of the overlay at '{}' (priority {}); deleting the writable copy would make that one reappear, so nothing was deleted",
                    ro.point, ro.priority
                )
            } else {
                format!(
                    "the entry is in a read-only layer of the overlay at '{}' (priority {})",
                    ro.point, ro.priority
                )
            },
        ));
    }
    let targets = if holders.is_empty() { vec![(first, rel)] } else { holders };
    for (m, rel) in targets {
        m.volume.delete(&rel, req.recursive).map_err(|e| e.with_path(&path))?;
    }
    let message = format!("Deleted {}{}.", path, if entry.is_dir() { " (directory)" } else { "" });
    Ok(MutationResult { entry, message })
}

/// Moves a file or directory. Within one volume it is the volume's rename; across
/// volumes it copies every file, then deletes the source (a failure while copying
/// leaves the source intact).
pub fn move_entry(
    mounts: &MountTable,
    limits: &Limits,
    req: &MoveRequest,
) -> Result<MutationResult> {
    let src = paths::normalize(&req.source)?;
    let dst = paths::normalize(&req.destination)?;
    let entry = mounts.stat(&src)?;
    mounts.refuse_read_only(&src, &entry)?;
    if src == dst {
        return Err(Error::invalid_argument(
            "destination",
            format!("'{dst}' is the source itself"),
        ));
    }
    if paths::is_within(&dst, &src) {
        return Err(Error::invalid_argument(
            "destination",
            format!("cannot move '{src}' into itself ('{dst}')"),
        ));
    }
    let existing = match mounts.stat(&dst) {
        Ok(e) => Some(e),
        Err(e) if crate::vfs::mounts::is_absent(&e) => None,
        Err(e) => return Err(e),
    };
    if let Some(existing) = existing {
        if existing.is_dir() || entry.is_dir() || !req.overwrite {
            return Err(Error::at(
                ErrorKind::AlreadyExists,
                &dst,
                if existing.is_dir() || entry.is_dir() {
                    "destination exists"
                } else {
                    "destination exists; pass overwrite=true to replace it"
                },
            ));
        }
        mounts.refuse_read_only(&dst, &existing)?;
    }
    let (first, first_rel) = mounts.writable(&src)?;
    // Overlays: move the entry from the layer that holds it; refuse when several do
    // (moving one copy would leave another in view) or when that layer is read-only.
    let holders = mounts.holders(&src)?;
    if holders.len() > 1 {
        return Err(Error::at(
            ErrorKind::Conflict,
            &src,
            format!(
                "exists in {} layers of the overlay at '{}'; moving one copy would leave another in view, so nothing was moved (delete the other copies first)",
                holders.len(),
                holders[0].0.point
            ),
        ));
    }
    let (sm, srel) = match holders.into_iter().next() {
        Some((m, _)) if m.read_only => {
            return Err(Error::at(
                ErrorKind::ReadOnly,
                &src,
                format!(
                    "the entry is in a read-only layer of the overlay at '{}' (priority {})",
                    m.point, m.priority
                ),
            ));
        }
        Some(held) => held,
        None => (first, first_rel),
    };
    let (dm, drel) = mounts.writable(&dst)?;
    if std::ptr::eq(sm, dm) {
        sm.volume.rename(&srel, &drel, req.overwrite).map_err(|e| {
            let p = if e.path() == Some(drel.as_str()) { dst.clone() } else { src.clone() };
            e.with_path(p)
        })?;
    } else {
        if let (Some(a), Some(b)) = (sm.volume.identity(), dm.volume.identity())
            && a.overlaps(&b)
        {
            return Err(Error::at(
                ErrorKind::Unsupported,
                &src,
                format!(
                    "'{}' and '{}' are mounts of the same storage on the host (one inside the other), so a move between them would copy the files and then delete the copy with the source; nothing was moved. Move within one mount instead",
                    sm.point, dm.point
                ),
            ));
        }
        let moved = move_across(mounts, limits, &entry, &src, &dst, req.overwrite, sm, &srel)?;
        let result = mounts.stat(&dst).unwrap_or_else(|_| Entry { path: dst.clone(), ..entry });
        return Ok(MutationResult { entry: result, message: moved });
    }
    // The move is done: a failure to describe the result must not report it as failed
    // (an agent would retry a completed move). Fall back to the source's metadata.
    let moved = mounts.stat(&dst).unwrap_or_else(|_| Entry { path: dst.clone(), ..entry });
    let message = format!("Moved {src} to {dst}.");
    Ok(MutationResult { entry: moved, message })
}

/// Moves `src` (a file or a directory) to `dst` on another volume: copy every file,
/// verify each copy's size, then delete exactly the files that were copied, and then
/// the source directories that are empty afterwards, deepest first. Nothing is
/// deleted that was not copied: a directory that still holds entries (names the
/// source volume cannot show, or that appeared meanwhile) or that held no file (an
/// empty directory: volumes copy files only) stays, and the message says so. A
/// failed copy removes the copies already made (and restores an overwritten
/// destination), so nothing has moved and a retry starts clean; a failed delete
/// says how far the move got (every file then exists at the destination).
#[allow(clippy::too_many_arguments)]
fn move_across(
    mounts: &MountTable,
    limits: &Limits,
    entry: &Entry,
    src: &str,
    dst: &str,
    overwrite: bool,
    source_mount: &crate::vfs::mounts::Mount,
    srel: &str,
) -> Result<String> {
    let listed = list_for_move(mounts, limits, entry, src)?;
    let mut dirs: Vec<&str> =
        listed.iter().filter(|e| e.is_dir()).map(|e| e.path.as_str()).collect();
    if entry.is_dir() {
        dirs.push(src);
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    let mv = CrossMove {
        mounts,
        limits,
        src,
        dst,
        overwrite,
        source_mount,
        srel,
        files: listed.iter().filter(|e| !e.is_dir()).collect(),
        dirs,
    };
    mv.copy_files()?;
    mv.delete_copied()?;
    let mut left = if entry.is_dir() { mv.remove_emptied_dirs() } else { Vec::new() };
    let files = mv.files.len();
    let mut message =
        format!("Moved {src} to {dst} ({files} file{}).", if files == 1 { "" } else { "s" });
    if !left.is_empty() {
        left.reverse();
        message.push_str(&format!(
            " Left in place (volumes copy files only, and nothing is deleted that was not copied): {}.",
            left.join(", ")
        ));
    }
    Ok(message)
}

/// What moving `entry` takes: itself, or every entry below the directory. Refused,
/// with nothing moved, when the walk stops at the entry limit or an entry has no
/// content to copy.
fn list_for_move(
    mounts: &MountTable,
    limits: &Limits,
    entry: &Entry,
    src: &str,
) -> Result<Vec<Entry>> {
    let listed: Vec<Entry> = if entry.is_dir() {
        let w = mounts.walk(src, limits.walk_entries)?;
        if w.truncated {
            return Err(Error::at(
                ErrorKind::LimitExceeded,
                src,
                "too many entries to move across volumes; nothing was moved",
            ));
        }
        w.entries
    } else {
        vec![entry.clone()]
    };
    // Entry types of directory volumes that have no content to copy (a link, a FIFO
    // or device): moving them across volumes would lose them.
    const UNCOPYABLE: [&str; 2] = ["symlink", "special"];
    if let Some(odd) = listed.iter().find(|e| UNCOPYABLE.contains(&e.entry_type.as_str())) {
        return Err(Error::at(
            ErrorKind::Unsupported,
            &odd.path,
            format!(
                "is a {} entry, which cannot be copied to another volume; nothing was moved",
                odd.entry_type
            ),
        ));
    }
    Ok(listed)
}

/// One move across volumes (see [`move_across`]): the files to copy, and the source
/// directories, deepest first.
struct CrossMove<'a> {
    mounts: &'a MountTable,
    limits: &'a Limits,
    src: &'a str,
    dst: &'a str,
    overwrite: bool,
    source_mount: &'a crate::vfs::mounts::Mount,
    /// `src` within its volume.
    srel: &'a str,
    files: Vec<&'a Entry>,
    dirs: Vec<&'a str>,
}

/// A copied file's destination, and its content before the copy (to restore).
type Copied = (String, Option<Vec<u8>>);

impl CrossMove<'_> {
    /// Where source path `p` goes.
    fn target_of(&self, p: &str) -> String {
        paths::under(self.dst, paths::strip_dir(p, self.src))
    }

    /// Source path `p` within its volume.
    fn rel_of(&self, p: &str) -> String {
        paths::under(self.srel, paths::strip_dir(p, self.src))
    }

    /// Deletes `path`: on the source volume at `rel` when given, else through the
    /// mount table.
    fn delete_at(&self, path: &str, rel: Option<String>) -> Result<()> {
        match rel {
            Some(rel) => self.source_mount.volume.delete(&rel, false),
            None => self.mounts.writable(path).and_then(|(m, rel)| m.volume.delete(&rel, false)),
        }
    }

    /// Copies every file; on a failure, undoes the copies made and says nothing moved.
    fn copy_files(&self) -> Result<()> {
        let mut copied: Vec<Copied> = Vec::new();
        for f in &self.files {
            let target = self.target_of(&f.path);
            match self.copy_file(f, &target) {
                Ok(previous) => copied.push((target, previous)),
                Err(e) => {
                    self.undo(&copied);
                    return Err(Error::new(
                        e.kind(),
                        format!("{e}; nothing was moved (the copies made so far were removed)"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Copies `f` to `target`, checking the copy's size; returns what `target` held
    /// before (when overwriting).
    fn copy_file(&self, f: &Entry, target: &str) -> Result<Option<Vec<u8>>> {
        let (mounts, limits) = (self.mounts, self.limits);
        let (_, data) = mounts.read_all(&f.path, limits.file_bytes)?;
        let previous = if self.overwrite {
            match mounts.read_all(target, limits.file_bytes) {
                Ok((_, old)) => Some(old),
                Err(e) if crate::vfs::mounts::is_absent(&e) => None,
                Err(e) => return Err(e),
            }
        } else {
            None
        };
        let opts = WriteOptions { create_only: !self.overwrite, ..Default::default() };
        let written = mounts.write(target, &data, &opts)?;
        if written.size != data.len() as u64 {
            return Err(Error::at(
                ErrorKind::Backend,
                target,
                format!("the copy has {} bytes, the source {}", written.size, data.len()),
            ));
        }
        Ok(previous)
    }

    /// Undoes a partial copy: the copies go (an overwritten file gets its old content
    /// back), then the destination directories the copies created, if empty (the
    /// destination did not exist before, or the move was refused).
    fn undo(&self, copied: &[Copied]) {
        for (target, previous) in copied.iter().rev() {
            let _ = match previous {
                Some(old) => self.mounts.write(target, old, &WriteOptions::default()).map(|_| ()),
                None => self.delete_at(target, None),
            };
        }
        for d in &self.dirs {
            let _ = self.delete_at(&self.target_of(d), None);
        }
    }

    /// Deletes exactly the files that were copied; a failure says how far it got.
    fn delete_copied(&self) -> Result<()> {
        for (i, f) in self.files.iter().enumerate() {
            if let Err(e) = self.source_mount.volume.delete(&self.rel_of(&f.path), false) {
                return Err(Error::new(
                    e.kind(),
                    format!(
                        "copied all {} files to {}, then deleted {i} from the source, but deleting {} failed: {e}; the remaining files are in both places",
                        self.files.len(),
                        self.dst,
                        f.path
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Deletes the source directories the move emptied, deepest first; returns those
    /// left in place, and why.
    fn remove_emptied_dirs(&self) -> Vec<String> {
        let mut left = Vec::new();
        for d in self.dirs.iter().copied() {
            let held_files = self.files.iter().any(|f| paths::is_within(&f.path, d));
            if !held_files {
                left.push(format!("{d} (held no file)"));
                continue;
            }
            match self.delete_at(d, Some(self.rel_of(d))) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(_) => left.push(format!("{d} (still holds entries not listed)")),
            }
        }
        left
    }
}

#[cfg(test)]
mod tests;
