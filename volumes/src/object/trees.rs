//! Whole trees at once: deleting keys in batches under the call's deadline, the
//! folders and sidecars a removed tree leaves, deleting and renaming directories and
//! files (a store has no rename: a copy, then a delete).

use std::collections::BTreeSet;

use futures::StreamExt;
use object_store::path::Path as Key;
use object_store::{ObjectMeta, ObjectStoreExt};

use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::paths;

use super::errors::{self, store_error};
use super::keys;
use super::meta::normalize_etag;
use super::{DELETE_BATCH, Found, ObjectVolume, PARALLEL_REQUESTS, any_under, copy_exclusive};

impl ObjectVolume {
    /// Deletes `keys` in batches of [`DELETE_BATCH`] (one request per batch on S3),
    /// checking the call's deadline between batches. Returns how many were deleted,
    /// or the error naming how many were and what failed.
    fn delete_keys(&self, path: &str, keys: Vec<Key>, what: &str) -> Result<usize> {
        let total = keys.len();
        let mut done = 0usize;
        for batch in keys.chunks(DELETE_BATCH) {
            if filestore_runtime::volumes::work_deadline_passed() {
                return Err(Error::at(
                    ErrorKind::LimitExceeded,
                    path,
                    format!(
                        "{what}: stopped at the call's deadline after deleting {done} of {total} objects; the rest are still there"
                    ),
                ));
            }
            let batch: Vec<Key> = batch.to_vec();
            let n = batch.len();
            let s = self.store.clone();
            let results = self.run(path, what, async move {
                let input = futures::stream::iter(batch.into_iter().map(Ok)).boxed();
                Ok(s.delete_stream(input).collect::<Vec<_>>().await)
            });
            let results = match results {
                Ok(r) => r,
                Err(e) => {
                    return Err(Error::at(
                        e.kind(),
                        path,
                        format!(
                            "{what}: {done} of {total} objects were deleted, then: {}",
                            e.message()
                        ),
                    ));
                }
            };
            let failed: Vec<String> = results
                .into_iter()
                .filter_map(|r| match r {
                    Ok(_) | Err(object_store::Error::NotFound { .. }) => None,
                    Err(e) => Some(errors::reason(&e)),
                })
                .collect();
            done += n - failed.len();
            if let Some(first) = failed.first() {
                return Err(Error::at(
                    ErrorKind::Backend,
                    path,
                    format!(
                        "{what}: {done} of {total} objects were deleted; {} could not be (first: {first}) and are still there",
                        failed.len()
                    ),
                ));
            }
        }
        Ok(done)
    }

    /// Removes what a file-system-backed server (SeaweedFS, and others that store
    /// keys as files) keeps after the last key beneath a directory is deleted: an
    /// empty folder under the directory's name, which such servers go on listing and
    /// which makes a later create of a file of that name fail. Climbs from `dir`
    /// while nothing lies beneath; on other stores each step is a LIST and a DELETE
    /// of a key that does not exist. Best effort: nothing here is an error.
    pub(super) fn forget_empty_dirs(&self, dir: Option<&str>) {
        let mut d = dir;
        while let Some(dir) = d {
            if dir == "/" {
                break;
            }
            let (Ok(key), Ok(prefix)) = (self.keys.key(dir), self.keys.dir(dir)) else { break };
            let s = self.store.clone();
            let gone = self.run(dir, "cleaning up", async move {
                if any_under(s.clone(), prefix).await? {
                    return Ok(false);
                }
                match s.delete(&key).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(true),
                    Err(e) => Err(e),
                }
            });
            if !matches!(gone, Ok(true)) {
                break;
            }
            d = paths::parent(dir);
        }
    }

    /// The folder names of every directory holding one of `objects` beneath
    /// `dir_path` (and `dir_path` itself), deepest first: what a recursive delete or a
    /// directory move leaves behind on a file-system-backed server.
    fn folders_of(&self, dir_path: &str, objects: &[ObjectMeta]) -> Vec<Key> {
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        for o in objects {
            if let Some(p) = self.keys.rel(&o.location) {
                let mut q = paths::parent(&p);
                while let Some(d) = q {
                    if d == "/" || !(dir_path == "/" || paths::is_within(d, dir_path)) {
                        break;
                    }
                    dirs.insert(d.to_string());
                    q = paths::parent(d);
                }
            }
        }
        if dir_path != "/" {
            dirs.insert(dir_path.to_string());
        }
        let mut dirs: Vec<String> = dirs.into_iter().collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(paths::depth(d)));
        dirs.iter().filter_map(|d| self.keys.key(d).ok()).collect()
    }

    /// The entries among `objects` that have a metadata sidecar, by relative path.
    fn with_meta(
        &self,
        objects: &[ObjectMeta],
        with_meta: &BTreeSet<String>,
    ) -> Vec<(String, ObjectMeta)> {
        objects
            .iter()
            .filter_map(|o| {
                let p = self.keys.rel(&o.location)?;
                with_meta.contains(&p).then(|| (p, o.clone()))
            })
            .collect()
    }

    /// Sizes and contents of the first read-only entry among `objects`, if any.
    fn first_read_only(
        &self,
        path: &str,
        objects: &[ObjectMeta],
        with_meta: &BTreeSet<String>,
    ) -> Result<Option<String>> {
        let metas = self.fetch_metas(path, self.with_meta(objects, with_meta))?;
        Ok(metas.into_iter().filter(|(_, m)| m.read_only).map(|(p, _)| p).min())
    }

    pub(super) fn delete_tree(&self, path: &str, also: Option<Key>) -> Result<()> {
        let (objects, with_meta) = self.list_tree(path, "listing for delete")?;
        if let Some(p) = self.first_read_only(path, &objects, &with_meta)? {
            return Err(Error::at(
                ErrorKind::ReadOnly,
                p,
                "entry is read-only; nothing was deleted",
            ));
        }
        let mut keys: Vec<Key> = objects.iter().map(|o| o.location.clone()).collect();
        keys.extend(also);
        let sidecars: Vec<Key> = with_meta
            .iter()
            .filter(|p| path == "/" || paths::is_within(p, path))
            .filter_map(|p| self.keys.meta_key(p).ok())
            .collect();
        self.delete_keys(path, keys, "deleting the directory")?;
        // Orphaned sidecars would only be ignored; remove them all the same.
        let _ = self.delete_keys(path, sidecars, "deleting entry metadata");
        let _ = self.delete_keys(path, self.folders_of(path, &objects), "cleaning up");
        self.forget_empty_dirs(paths::parent(path));
        Ok(())
    }

    pub(super) fn rename_file(
        &self,
        from: &str,
        to: &str,
        src: &Found,
        overwrite: bool,
    ) -> Result<()> {
        let (fk, tk) = (self.keys.key(from)?, self.keys.key(to)?);
        let s = self.store.clone();
        let (f2, t2) = (fk.clone(), tk.clone());
        let size = src.object.as_ref().map_or(0, |o| o.size);
        let copied = if overwrite {
            self.run(to, "copying", async move { s.copy(&f2, &t2).await })
        } else {
            self.run(to, "copying", copy_exclusive(s, f2, t2, size))
        };
        copied.map_err(|e| match e.kind() {
            ErrorKind::AlreadyExists => {
                Error::at(ErrorKind::AlreadyExists, to, "destination exists; pass overwrite=true")
            }
            _ => e,
        })?;
        if let Some(m) = src.valid_meta() {
            let s = self.store.clone();
            let t4 = tk.clone();
            let carried =
                self.run(to, "reading the copy", async move { s.head(&t4).await }).and_then(|o| {
                    let mut m = m.clone();
                    m.etag = o.e_tag.as_deref().map(normalize_etag);
                    m.size = o.size;
                    self.put_meta(to, &m)
                });
            if let Err(e) = carried {
                return Err(Error::at(
                    e.kind(),
                    from,
                    format!(
                        "copied to '{to}', but its entry metadata could not be carried over ({}); '{from}' is still there",
                        e.message()
                    ),
                ));
            }
        }
        let s = self.store.clone();
        let removed = self.run(from, "removing the source", async move { s.delete(&fk).await });
        if let Err(e) = removed {
            return Err(Error::at(
                e.kind(),
                from,
                format!(
                    "copied to '{to}', but the source could not be removed, so both exist now: {}",
                    e.message()
                ),
            ));
        }
        if src.meta.is_some()
            && let Ok(k) = self.keys.meta_key(from)
        {
            let s = self.store.clone();
            let _ = self.run(from, "removing entry metadata", async move { s.delete(&k).await });
        }
        self.forget_empty_dirs(paths::parent(from));
        Ok(())
    }

    pub(super) fn rename_dir(&self, from: &str, to: &str) -> Result<()> {
        let (objects, with_meta) = self.list_tree(from, "listing for move")?;
        if let Some(p) = self.first_read_only(from, &objects, &with_meta)? {
            return Err(Error::at(ErrorKind::ReadOnly, p, "entry is read-only; nothing was moved"));
        }
        let from_dir = self.keys.dir(from)?.map(|k| k.as_ref().to_string()).unwrap_or_default();
        let to_dir = self.keys.dir(to)?.map(|k| k.as_ref().to_string()).unwrap_or_default();
        let mut pairs: Vec<(Key, Key, u64)> = Vec::with_capacity(objects.len());
        for o in &objects {
            let k: &str = o.location.as_ref();
            let Some(rest) = k.strip_prefix(from_dir.as_str()).and_then(|r| r.strip_prefix('/'))
            else {
                continue;
            };
            let new = format!("{to_dir}/{rest}");
            if new.len() > keys::MAX_KEY_BYTES {
                return Err(Error::at(
                    ErrorKind::InvalidPath,
                    to,
                    format!(
                        "moving '{from}' there would make a key of {} bytes; object stores allow {}; nothing was moved",
                        new.len(),
                        keys::MAX_KEY_BYTES
                    ),
                ));
            }
            let new = Key::parse(&new).map_err(|e| {
                Error::at(ErrorKind::InvalidPath, to, format!("not a valid object key: {e}"))
            })?;
            pairs.push((o.location.clone(), new, o.size));
        }
        let total = pairs.len();
        let s = self.store.clone();
        let jobs = pairs.clone();
        // Each copy refuses to replace a key someone created since the destination
        // was checked empty: a failed one undoes the others below.
        let results = self.run(from, "copying", async move {
            Ok(futures::stream::iter(jobs)
                .map(|(a, b, size)| {
                    let s = s.clone();
                    async move { (b.clone(), copy_exclusive(s, a, b, size).await) }
                })
                .buffer_unordered(PARALLEL_REQUESTS)
                .collect::<Vec<_>>()
                .await)
        });
        let (copied, failure) = match results {
            Ok(r) => {
                let mut copied = Vec::new();
                let mut failure = None;
                for (k, r) in r {
                    match r {
                        Ok(()) => copied.push(k),
                        Err(e) => {
                            failure.get_or_insert_with(|| {
                                store_error(e, to, "copying").message().to_string()
                            });
                        }
                    }
                }
                (copied, failure)
            }
            // Unknown how far it got: undo whatever a listing of the destination shows.
            Err(e) => {
                let (made, _) = self.list_tree(to, "listing the copies").unwrap_or_default();
                (made.into_iter().map(|o| o.location).collect(), Some(e.message().to_string()))
            }
        };
        if let Some(why) = failure {
            let n = copied.len();
            let undo = self.delete_keys(to, copied, "removing the copies");
            let undone = match undo {
                Ok(_) => "nothing moved".to_string(),
                Err(e) => format!(
                    "nothing was removed from '{from}', but some of the {n} copies are still at '{to}': {}",
                    e.message()
                ),
            };
            return Err(Error::at(
                ErrorKind::Backend,
                from,
                format!("moving to '{to}' failed while copying ({why}); {undone}"),
            ));
        }
        // Metadata of moved entries (none is read-only: refused above).
        let typed: Vec<(String, String)> = objects
            .iter()
            .filter_map(|o| {
                let p = self.keys.rel(&o.location)?;
                with_meta.contains(&p).then(|| {
                    let q = format!("{to}{}", &p[from.len()..]);
                    (p, q)
                })
            })
            .collect();
        if !typed.is_empty() {
            let metas = self.fetch_metas(from, self.with_meta(&objects, &with_meta))?;
            for (p, q) in &typed {
                if let Some(m) = metas.get(p) {
                    let qk = self.keys.key(q)?;
                    let s = self.store.clone();
                    let o = self.run(q, "reading the copy", async move { s.head(&qk).await })?;
                    let mut m = m.clone();
                    m.etag = o.e_tag.as_deref().map(normalize_etag);
                    m.size = o.size;
                    self.put_meta(q, &m)?;
                }
            }
        }
        let sources: Vec<Key> = pairs.into_iter().map(|(a, _, _)| a).collect();
        if let Err(e) = self.delete_keys(from, sources, "removing the sources") {
            return Err(Error::at(
                e.kind(),
                from,
                format!(
                    "all {total} objects were copied to '{to}', but not every source could be removed: {}",
                    e.message()
                ),
            ));
        }
        let old_sidecars: Vec<Key> =
            typed.iter().filter_map(|(p, _)| self.keys.meta_key(p).ok()).collect();
        let _ = self.delete_keys(from, old_sidecars, "removing entry metadata");
        let _ = self.delete_keys(from, self.folders_of(from, &objects), "cleaning up");
        self.forget_empty_dirs(paths::parent(from));
        Ok(())
    }
}
