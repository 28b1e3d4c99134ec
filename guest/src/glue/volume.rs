//! The imported `volume` resource as a guest [`Volume`](crate::vfs::volume::Volume).

use super::filestore::component::volume as wv;
use super::types::{from_wit_entry, from_wit_error};
use crate::error::Result as DomResult;
use crate::vfs::entry::Entry as DomEntry;
use crate::vfs::volume::{PackedWalk, Walk, WriteOptions as DomWriteOptions};

// Every mounted volume is wrapped in `Checked` (see `vfs::checked`): whatever language
// the host's volume is written in, an answer that breaks the contract becomes a
// `backend` error of that call instead of something the component acts on.

pub(super) struct WitVolume(pub(super) wv::Volume);

impl crate::vfs::volume::Volume for WitVolume {
    fn identity(&self) -> Option<crate::vfs::volume::VolumeIdentity> {
        self.0
            .identity()
            .map(|i| crate::vfs::volume::VolumeIdentity { storage: i.storage, root: i.root })
    }
    fn stat(&self, path: &str) -> DomResult<DomEntry> {
        self.0.stat(path).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn list(&self, path: &str) -> DomResult<Vec<DomEntry>> {
        self.0
            .list_dir(path)
            .map(|v| v.into_iter().map(from_wit_entry).collect())
            .map_err(|e| from_wit_error(e, path))
    }
    fn walk(&self, path: &str, max_entries: usize) -> DomResult<Walk> {
        let max = u32::try_from(max_entries).unwrap_or(u32::MAX);
        self.0
            .walk(path, max)
            .map(|w| Walk {
                entries: w.entries.into_iter().map(from_wit_entry).collect(),
                truncated: w.truncated,
            })
            .map_err(|e| from_wit_error(e, path))
    }
    fn walk_packed(&self, path: &str, max_entries: usize) -> DomResult<PackedWalk> {
        let max = u32::try_from(max_entries).unwrap_or(u32::MAX);
        let w = self.0.walk_packed(path, max).map_err(|e| from_wit_error(e, path))?;
        Ok(PackedWalk {
            paths: w.paths,
            path_lens: w.path_lens,
            sizes: w.sizes,
            modified_ms: w.modified_ms,
            entry_flags: w.entry_flags,
            entry_types: w.entry_types,
            // As `from_wit_entry`: attributes that are not JSON are left out.
            attributes: w
                .attributes
                .into_iter()
                .filter_map(|(i, a)| serde_json::from_str(&a).ok().map(|v| (i, v)))
                .collect(),
            truncated: w.truncated,
        })
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> DomResult<Vec<u8>> {
        self.0.read(path, offset, len).map_err(|e| from_wit_error(e, path))
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> DomResult<(DomEntry, Vec<u8>)> {
        self.0
            .stat_read(path, offset, len)
            .map(|r| (from_wit_entry(r.entry), r.data))
            .map_err(|e| from_wit_error(e, path))
    }
    fn write(&self, path: &str, content: &[u8], options: &DomWriteOptions) -> DomResult<DomEntry> {
        let opts = wv::WriteOptions {
            create_only: options.create_only,
            read_only: options.read_only,
            entry_type: options.entry_type.clone(),
            attributes: options.attributes.as_ref().map(|a| a.to_string()),
        };
        self.0.write(path, content, &opts).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn append(&self, path: &str, content: &[u8]) -> DomResult<DomEntry> {
        self.0.append(path, content).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn delete(&self, path: &str, recursive: bool) -> DomResult<()> {
        self.0.delete(path, recursive).map_err(|e| from_wit_error(e, path))
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> DomResult<()> {
        self.0.rename(from, to, overwrite).map_err(|e| from_wit_error(e, from))
    }
    fn create_dir(&self, path: &str) -> DomResult<DomEntry> {
        self.0.create_dir(path).map(from_wit_entry).map_err(|e| from_wit_error(e, path))
    }
    fn prefetch(&self, files: &[crate::vfs::volume::PrefetchFile]) {
        let files: Vec<wv::PrefetchFile> =
            files.iter().map(|f| wv::PrefetchFile { path: f.path.clone(), size: f.size }).collect();
        self.0.prefetch(&files)
    }
}
