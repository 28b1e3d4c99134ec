//! Host side of the WIT `volume` interface: guest calls on a volume resource are
//! served by the [`SharedVolume`] behind it.
//!
//! Paths arrive from the guest already normalised, but they are untrusted input all
//! the same: every backend confines them on its own (see `volumes::dir`).

use wasmtime::component::Resource;

use filestore_guest::vfs::cow::state::CowState;
use filestore_guest::vfs::volume::{PrefetchFile, WriteOptions as DomWriteOptions};

use crate::bindings::VolumeHandle;
use crate::bindings::filestore::component::types::{Entry, Error};
use crate::bindings::filestore::component::volume::{self as wit, WalkResult, WriteOptions};
use crate::glue::types::{to_wit_entry, to_wit_error};
use crate::state::HostState;
use crate::volumes::SharedVolume;

/// Most bytes one `read` (or `stat-read`) call hands the guest: the guest pages in 256 KiB chunks, and
/// a larger request (from a buggy or hostile guest) must not make the host allocate
/// gigabytes.
pub const MAX_READ_CALL_BYTES: u64 = 16 * 1024 * 1024;

type R<T> = wasmtime::Result<Result<T, Error>>;

impl HostState {
    fn vol(&self, v: &Resource<VolumeHandle>) -> wasmtime::Result<SharedVolume> {
        Ok(self.table.get(v)?.volume.clone())
    }

    /// Notes a change of `rel` through `v` for the running call's audit record.
    fn note_change(&mut self, v: &Resource<VolumeHandle>, rel: &str) -> wasmtime::Result<()> {
        if self.touched.is_some() {
            let point = self.table.get(v)?.touch.clone();
            self.touch(point.as_ref(), rel);
        }
        Ok(())
    }
}

impl HostState {
    /// When the running call is audited and `path` is the state file of a
    /// copy-on-write upper layer: the state before this write, so the record can
    /// name the paths the write deletes ([`crate::audit::TouchPoint::new_whiteouts`]).
    fn cow_state_before(
        &self,
        v: &Resource<VolumeHandle>,
        path: &str,
        vol: &(dyn filestore_guest::vfs::volume::Volume + Send + Sync),
    ) -> wasmtime::Result<Option<(crate::audit::TouchPoint, CowState)>> {
        if self.touched.is_none() || path != filestore_guest::vfs::cow::state::STATE_PATH {
            return Ok(None);
        }
        let Some(point) = self.table.get(v)?.touch.clone().filter(|t| t.cow_upper) else {
            return Ok(None);
        };
        // Unreadable: no whiteout is named, the write goes on as it would.
        Ok(CowState::load(vol).ok().map(|s| (point, s)))
    }
}

impl wit::Host for HostState {}

impl wit::HostVolume for HostState {
    fn identity(
        &mut self,
        v: Resource<VolumeHandle>,
    ) -> wasmtime::Result<Option<wit::VolumeIdentity>> {
        let vol = self.vol(&v)?;
        Ok(vol.identity().map(|i| wit::VolumeIdentity { storage: i.storage, root: i.root }))
    }

    fn stat(&mut self, v: Resource<VolumeHandle>, path: String) -> R<Entry> {
        let vol = self.vol(&v)?;
        Ok(vol.stat(&path).map(to_wit_entry).map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn list_dir(&mut self, v: Resource<VolumeHandle>, path: String) -> R<Vec<Entry>> {
        let vol = self.vol(&v)?;
        Ok(vol
            .list(&path)
            .map(|v| v.into_iter().map(to_wit_entry).collect())
            .map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn walk(&mut self, v: Resource<VolumeHandle>, path: String, max_entries: u32) -> R<WalkResult> {
        let vol = self.vol(&v)?;
        Ok(vol
            .walk(&path, max_entries as usize)
            .map(|w| WalkResult {
                entries: w.entries.into_iter().map(to_wit_entry).collect(),
                truncated: w.truncated,
            })
            .map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn walk_packed(
        &mut self,
        v: Resource<VolumeHandle>,
        path: String,
        max_entries: u32,
    ) -> R<wit::PackedWalk> {
        let vol = self.vol(&v)?;
        Ok(vol
            .walk_packed(&path, max_entries as usize)
            .map(|w| wit::PackedWalk {
                paths: w.paths,
                path_lens: w.path_lens,
                sizes: w.sizes,
                modified_ms: w.modified_ms,
                entry_flags: w.entry_flags,
                entry_types: w.entry_types,
                attributes: w.attributes.into_iter().map(|(i, a)| (i, a.to_string())).collect(),
                truncated: w.truncated,
            })
            .map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn read(
        &mut self,
        v: Resource<VolumeHandle>,
        path: String,
        offset: u64,
        len: u64,
    ) -> R<Vec<u8>> {
        let vol = self.vol(&v)?;
        Ok(vol
            .read(&path, offset, len.min(MAX_READ_CALL_BYTES))
            .map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn stat_read(
        &mut self,
        v: Resource<VolumeHandle>,
        path: String,
        offset: u64,
        len: u64,
    ) -> R<wit::StatReadResult> {
        let vol = self.vol(&v)?;
        Ok(vol
            .stat_read(&path, offset, len.min(MAX_READ_CALL_BYTES))
            .map(|(e, data)| wit::StatReadResult { entry: to_wit_entry(e), data })
            .map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn write(
        &mut self,
        v: Resource<VolumeHandle>,
        path: String,
        content: Vec<u8>,
        options: WriteOptions,
    ) -> R<Entry> {
        let vol = self.vol(&v)?;
        let opts = DomWriteOptions {
            create_only: options.create_only,
            read_only: options.read_only,
            entry_type: options.entry_type,
            attributes: options.attributes.and_then(|a| serde_json::from_str(&a).ok()),
        };
        let before = self.cow_state_before(&v, &path, vol.as_ref())?;
        let written = vol.write(&path, &content, &opts);
        if let (Ok(_), Some((point, before)), Some(list)) =
            (&written, before, self.touched.as_mut())
        {
            let room = (crate::audit::MAX_PATHS + 1).saturating_sub(list.len());
            list.extend(point.new_whiteouts(&before, &content).into_iter().take(room));
        }
        if written.is_ok() {
            self.note_change(&v, &path)?;
        }
        Ok(written.map(to_wit_entry).map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn append(&mut self, v: Resource<VolumeHandle>, path: String, content: Vec<u8>) -> R<Entry> {
        let vol = self.vol(&v)?;
        let appended = vol.append(&path, &content);
        if appended.is_ok() {
            self.note_change(&v, &path)?;
        }
        Ok(appended.map(to_wit_entry).map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn delete(&mut self, v: Resource<VolumeHandle>, path: String, recursive: bool) -> R<()> {
        let vol = self.vol(&v)?;
        let deleted = vol.delete(&path, recursive);
        if deleted.is_ok() {
            self.note_change(&v, &path)?;
        }
        Ok(deleted.map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn rename(
        &mut self,
        v: Resource<VolumeHandle>,
        source: String,
        destination: String,
        overwrite: bool,
    ) -> R<()> {
        let vol = self.vol(&v)?;
        let renamed = vol.rename(&source, &destination, overwrite);
        if renamed.is_ok() {
            self.note_change(&v, &source)?;
            self.note_change(&v, &destination)?;
        }
        Ok(renamed.map_err(|e| to_wit_error(e, Some(&source))))
    }

    fn create_dir(&mut self, v: Resource<VolumeHandle>, path: String) -> R<Entry> {
        let vol = self.vol(&v)?;
        let made = vol.create_dir(&path);
        if made.is_ok() {
            self.note_change(&v, &path)?;
        }
        Ok(made.map(to_wit_entry).map_err(|e| to_wit_error(e, Some(&path))))
    }

    fn prefetch(
        &mut self,
        v: Resource<VolumeHandle>,
        files: Vec<wit::PrefetchFile>,
    ) -> wasmtime::Result<()> {
        let vol = self.vol(&v)?;
        let files: Vec<PrefetchFile> =
            files.into_iter().map(|f| PrefetchFile { path: f.path, size: f.size }).collect();
        vol.prefetch(&files);
        Ok(())
    }

    fn drop(&mut self, v: Resource<VolumeHandle>) -> wasmtime::Result<()> {
        self.table.delete(v)?;
        Ok(())
    }
}
