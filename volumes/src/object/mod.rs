//! The `object` volume: a prefix of an object store (S3, Google Cloud Storage, Azure
//! Blob Storage, or a local directory through `file://`) mounted as a volume, through
//! the [`object_store`] crate.
//!
//! [`ObjectVolume`] implements the guest's [`Volume`] trait over the keys beneath one
//! prefix of one bucket, so agents' files can outlive a machine and many `filestore
//! serve` replicas can share one workspace. The mount spec is `s3://bucket/prefix`
//! (`gs://`, `az://`, `file:///dir`), with `:ro` for a read-only mount; see
//! [`spec`] for endpoints and credentials.
//!
//! # Semantics
//!
//! Object stores have keys, not directories; each operation maps as follows.
//!
//! | operation | on the store |
//! |---|---|
//! | paths | the key `{prefix}/{path}`, byte for byte (see [`keys`]) |
//! | directories | prefixes: a directory exists while a key lies beneath it. There is no `mkdir` in the volume contract and a write names its parents, so no marker objects are written; deleting the last file of a directory makes it disappear (as in memory volumes). A path that is both an object and a prefix (made by another client) is a directory |
//! | `stat` | one HEAD, the metadata sidecar's GET and a one-page LIST beneath the path, concurrently |
//! | `list` | one LIST with delimiter (paginated), plus the sidecars', plus a one-page LIST per subdirectory (concurrently): some servers keep listing a prefix after its last key is gone, and a directory is only shown while a key lies beneath it |
//! | `walk` | one recursive paginated LIST (1,000 keys a page on S3), plus one LIST of the subtree's sidecars (for the volume root, the same LIST); never a request per directory |
//! | `read` | a ranged GET of exactly the bytes asked for; never a whole large object for a page |
//! | `prefetch` | the read-ahead of grep (see [`ahead`]): up to 16 GETs in flight, 64 files or 64 MiB ahead |
//! | `write` | one PUT (atomic by nature: readers see the old object or the new one); checks first, concurrently, that the path is not a directory, no parent is a file, and an existing file is not read-only |
//! | `write` with `create_only` | a conditional PUT (`If-None-Match: *`, `PutMode::Create`): of two sessions or replicas racing to create one file, exactly one wins and the other gets `already-exists`, as long as the store makes conditional writes atomic (AWS S3, GCS, Azure, SeaweedFS, `file://`) |
//! | `delete` of a file | one DELETE (and its sidecar's), then a LIST of its directory: when nothing is left beneath, a DELETE of the directory's name, climbing (file-system-backed servers such as SeaweedFS keep an empty folder there, which they list and which blocks creating a file of that name; elsewhere it deletes nothing) |
//! | `delete` of a directory | a LIST, then batched deletes (1,000 keys a request on S3), then the same of the emptied folders' names; refused up front when a read-only entry lies beneath |
//! | `rename` of a file | a server-side copy, then a DELETE of the source. With `overwrite=false` the copy never replaces a file: copy-if-not-exists where the store has it (GCS, Azure, `file://`; S3 with `AWS_COPY_IF_NOT_EXISTS`), else a GET and a conditional PUT (`If-None-Match: *`) of objects up to [`EXCLUSIVE_COPY_BYTES`], so of two moves onto one destination one gets `already-exists`; only a larger object there is copied after a check of the destination, and a file created in between may be replaced |
//! | `rename` of a directory | not atomic: every object is copied first, then the sources are deleted. A failed copy is undone (the copies deleted) and the error says nothing moved; a failed delete says that every object is at the destination and which sources are still there. Readers in between see both trees, never half of one |
//! | entry types, attributes, read-only | a metadata sidecar per object (see [`meta`]), so `/tool_calls` keeps read-only results with their attributes. Types are shown only when the volume's role trusts them ([`ObjectVolume::with_trusted_entry_types`]; [`Volume::keeps_entry_metadata`] is true once it trusts one) |
//! | errors | see [`errors`]: `NoSuchKey` is `not-found`, a 412 on create is `already-exists`, 403 is `backend` with the status and the store's error code (never its URL or body), throttling and 5xx are retried with backoff ([`spec::MAX_RETRIES`]), every wait is bounded ([`wait`]) |
//!
//! # Security model
//!
//! The volume holds one client, built by the host from the mount spec and the host's
//! environment; the component never sees credentials, endpoints or the bucket, only
//! volume paths. Every path is checked again here (absolute, no empty, `.` or `..`
//! component, no control character or backslash, within the length limits and
//! [`keys::MAX_KEY_BYTES`]) and becomes a key beneath the prefix by concatenation
//! of checked components, so no path names a key outside the prefix; listings leave
//! out keys an agent could not address. `/.filestore` at the volume root is reserved
//! for metadata sidecars. A read-only volume ([`ObjectVolume::open`] with
//! `read_only`) refuses every mutation itself, besides the mount's own refusal.
//! Sidecars are anyone's word: an entry type comes from one only when the volume's
//! role trusts it ([`ObjectVolume::with_trusted_entry_types`]), so an object no
//! one but a bucket writer marked `skill` or `tool_result` stays a plain file.
//!
//! What it does not protect against: other clients of the bucket (anyone with
//! credentials can change objects at any time; the volume shows what is there),
//! keys that `object_store` cannot parse (an empty segment `a//b`, a `.` or `..`
//! segment, control characters: a listing of a prefix holding such a key fails with
//! `backend` naming it, rather than showing it), folder-marker objects made by
//! consoles (keys ending in `/`, read by `object_store` as objects named like the
//! folder: an empty folder made that way may appear as an empty file in a walk), and
//! `file://`, which is `object_store`'s local file system store: it follows symbolic
//! links. For a local directory mount a plain path (the confined `dir` volume).
//!
//! # Layout
//!
//! This file holds the volume, its lookups and the [`Volume`] implementation (one
//! block, which is why it stays above 800 lines: a trait impl cannot be split across
//! files); `open.rs` builds and checks it from a spec, `trees.rs` deletes and renames
//! whole trees, and the folders above name the store's keys, sidecars, errors,
//! read-ahead, request counts and bounded waits.

mod ahead;
mod counts;
mod errors;
pub mod keys;
mod meta;
mod open;
pub mod spec;
#[cfg(test)]
mod tests;
mod trees;
pub mod wait;

pub use ahead::{AHEAD_BYTES, AHEAD_FILES, AHEAD_PARALLEL};
pub use counts::{RequestCounts, RequestStats};
pub use spec::{ObjectSpec, StoreKind};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};

use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as Key;
use object_store::{
    GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
};
use sha2::{Digest, Sha256};

use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::{Entry, EntryKind};
use filestore_guest::vfs::paths;
use filestore_guest::vfs::volume::{
    PrefetchFile, Volume, VolumeIdentity, Walk, WriteOptions, rename_is_noop,
};

use ahead::ReadAhead;
use errors::{store_error, unanswered};
use keys::Keys;
use meta::{Meta, normalize_etag};

/// Most sidecar GETs, copies or deletes of one operation in flight at once.
pub const PARALLEL_REQUESTS: usize = 16;
/// Largest object a move without `overwrite` copies through the host (a GET and a
/// conditional PUT) on a store without copy-if-not-exists, so that it cannot
/// replace a file created at the destination meanwhile; at most
/// [`PARALLEL_REQUESTS`] of them in memory at once (a directory move).
pub const EXCLUSIVE_COPY_BYTES: u64 = 8 * 1024 * 1024;
/// Keys per batch of a recursive delete; between batches the call's deadline is
/// checked, so a huge delete stops with a report instead of outliving the call.
pub const DELETE_BATCH: usize = 1000;

/// A prefix of an object store, mounted as a volume.
pub struct ObjectVolume {
    store: Arc<dyn ObjectStore>,
    counts: Arc<RequestCounts>,
    keys: Keys,
    read_only: bool,
    name: String,
    identity: VolumeIdentity,
    ahead: Mutex<ReadAhead>,
    /// The entry types its sidecars may give (its role; see [`meta`]).
    trusted: Vec<String>,
}

impl std::fmt::Debug for ObjectVolume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectVolume")
            .field("store", &self.name)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// A mount that cannot be opened as written.
/// A wrong mount spec or store configuration (`invalid-argument`).
fn mount_error(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidArgument, message)
}

fn hash16(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn now_ms() -> Option<u64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as u64)
}

/// The ancestors of `path` below the root, nearest last (`/a/b/c` → `/a`, `/a/b`).
fn ancestors(path: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut p = paths::parent(path);
    while let Some(d) = p {
        if d == "/" {
            break;
        }
        out.push(d);
        p = paths::parent(d);
    }
    out.reverse();
    out
}

fn file_entry(path: &str, m: &ObjectMeta) -> Entry {
    let ms = m.last_modified.timestamp_millis();
    Entry::file(path, m.size, (ms >= 0).then_some(ms as u64))
}

async fn head_opt(
    store: Arc<dyn ObjectStore>,
    key: Key,
) -> object_store::Result<Option<ObjectMeta>> {
    match store.head(&key).await {
        Ok(m) => Ok(Some(m)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

async fn get_meta(store: Arc<dyn ObjectStore>, key: Key) -> object_store::Result<Option<Meta>> {
    match store.get(&key).await {
        Ok(r) if r.meta.size > meta::MAX_META_BYTES as u64 => Ok(None),
        Ok(r) => Ok(Meta::parse(&r.bytes().await?)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Copies `from` to `to` unless `to` exists, in one step the store decides, so of
/// two moves onto one destination exactly one wins: the store's own
/// copy-if-not-exists (GCS, Azure, `file://`, S3 with `AWS_COPY_IF_NOT_EXISTS`), else
/// (plain S3) the object fetched and put back with `If-None-Match: *`, as atomic as
/// a `create_only` write, for objects up to [`EXCLUSIVE_COPY_BYTES`]. A larger
/// object on such a store is copied server-side after the caller's check of the
/// destination, and a file created in between may be replaced (see the module docs).
async fn copy_exclusive(
    store: Arc<dyn ObjectStore>,
    from: Key,
    to: Key,
    size: u64,
) -> object_store::Result<()> {
    use object_store::Error as E;
    match store.copy_if_not_exists(&from, &to).await {
        Err(E::NotSupported { .. } | E::NotImplemented { .. }) => {}
        other => return other,
    }
    if size > EXCLUSIVE_COPY_BYTES {
        return store.copy(&from, &to).await;
    }
    let body = store.get(&from).await?.bytes().await?;
    let create = PutOptions { mode: PutMode::Create, ..Default::default() };
    store.put_opts(&to, PutPayload::from(body), create).await.map(|_| ())
}

/// Whether any key lies beneath the directory `dir` (the whole bucket for `None`),
/// other than `dir`'s own folder marker.
async fn any_under(store: Arc<dyn ObjectStore>, dir: Option<Key>) -> object_store::Result<bool> {
    let own = dir.as_ref().map(|d| d.as_ref().to_string());
    let mut s = store.list(dir.as_ref());
    while let Some(m) = s.next().await {
        let m = m?;
        if own.as_deref() != Some(m.location.as_ref()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What is at one path: the object, its metadata, whether a directory, and (when
/// asked) the first ancestor that is a file.
#[derive(Default)]
struct Found {
    object: Option<ObjectMeta>,
    meta: Option<Meta>,
    is_dir: bool,
    file_parent: Option<String>,
}

impl Found {
    /// The metadata, when it describes the object found.
    fn valid_meta(&self) -> Option<&Meta> {
        let o = self.object.as_ref()?;
        self.meta.as_ref().filter(|m| m.describes(o.e_tag.as_deref(), o.size))
    }
    fn read_only(&self) -> bool {
        self.valid_meta().is_some_and(|m| m.read_only)
    }
}

impl ObjectVolume {
    /// The object at `path` and its version (ETag and, where the store versions
    /// objects, the version id), or `None`: the read half of a compare-and-swap
    /// ([`ObjectVolume::write_if`]). No sidecar is read or written: this is for the
    /// host's own documents, not agents' files.
    pub fn read_versioned(
        &self,
        path: &str,
    ) -> Result<Option<(Vec<u8>, object_store::UpdateVersion)>> {
        let key = self.keys.key(path)?;
        let store = self.store.clone();
        self.run(path, "reading", async move {
            match store.get(&key).await {
                Ok(r) => {
                    let version = object_store::UpdateVersion {
                        e_tag: r.meta.e_tag.clone(),
                        version: r.meta.version.clone(),
                    };
                    Ok(Some((r.bytes().await?.to_vec(), version)))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    /// Writes `content` at `path` only if the object is still at `expected` (a
    /// conditional PUT, `If-Match`: `PutMode::Update`), or, for `None`, only if there
    /// is no object yet (`If-None-Match: *`: `PutMode::Create`). `Ok(None)` when the
    /// condition failed (another writer got there first); `Ok(Some)` is the new
    /// version. One request, decided by the store: of two writers holding the same
    /// version exactly one succeeds (AWS S3, GCS, Azure, SeaweedFS; `file://` has no
    /// `Update` and answers `unsupported`).
    pub fn write_if(
        &self,
        path: &str,
        content: Vec<u8>,
        expected: Option<&object_store::UpdateVersion>,
    ) -> Result<Option<object_store::UpdateVersion>> {
        self.writable(path)?;
        let key = self.keys.key(path)?;
        let mode = match expected {
            Some(v) => PutMode::Update(v.clone()),
            None => PutMode::Create,
        };
        let store = self.store.clone();
        self.run(path, "writing", async move {
            let opts = PutOptions { mode, ..Default::default() };
            match store.put_opts(&key, PutPayload::from(content), opts).await {
                Ok(r) => Ok(Some(object_store::UpdateVersion::from(r))),
                Err(
                    object_store::Error::Precondition { .. }
                    | object_store::Error::AlreadyExists { .. },
                ) => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    /// The store's request counts so far (shared by every volume of its spec).
    pub fn requests(&self) -> RequestStats {
        self.counts.snapshot()
    }

    /// The mount spec (or store) this volume is, for logs.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `fut` on the object-store runtime, bounded (see [`wait`]), mapping its
    /// error to a volume error about `path`.
    fn run<T: Send + 'static>(
        &self,
        path: &str,
        what: &str,
        fut: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> Result<T> {
        match wait::block(fut) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(store_error(e, path, what)),
            Err(why) => Err(unanswered(why, path, what)),
        }
    }

    fn writable(&self, path: &str) -> Result<()> {
        if self.read_only {
            return Err(Error::at(ErrorKind::ReadOnly, path, "the volume is read-only"));
        }
        self.ahead.lock().unwrap_or_else(|p| p.into_inner()).clear();
        Ok(())
    }

    /// Looks at one path: HEAD, its sidecar and a LIST beneath it, concurrently.
    fn find(&self, path: &str) -> Result<Found> {
        self.probe(path, false)
    }

    /// [`ObjectVolume::find`], and with `parents` also HEADs of every ancestor (all
    /// concurrently, one round trip): a path beneath a file would make that file a
    /// directory too. When an ancestor is a file, only that is reported (the store
    /// may fail the other requests: a local store cannot look beneath a file).
    fn probe(&self, path: &str, parents: bool) -> Result<Found> {
        let key = self.keys.key(path)?;
        let meta_key = self.keys.meta_key(path)?;
        let dir = self.keys.dir(path)?;
        let ancestors: Vec<(String, Key)> = if parents {
            ancestors(path)
                .into_iter()
                .map(|a| Ok((a.to_string(), self.keys.key(a)?)))
                .collect::<Result<_>>()?
        } else {
            Vec::new()
        };
        let s = self.store.clone();
        self.run(path, "looking up", async move {
            let here = async {
                futures::try_join!(
                    head_opt(s.clone(), key),
                    get_meta(s.clone(), meta_key),
                    any_under(s.clone(), dir)
                )
            };
            let above = futures::future::try_join_all(ancestors.into_iter().map(|(p, k)| {
                let s = s.clone();
                async move { Ok::<_, object_store::Error>(head_opt(s, k).await?.map(|_| p)) }
            }));
            let (here, above) = futures::join!(here, above);
            if let Ok(above) = &above
                && let Some(p) = above.iter().flatten().next()
            {
                return Ok(Found { file_parent: Some(p.clone()), ..Found::default() });
            }
            let (object, meta, is_dir) = here?;
            above?;
            Ok(Found { object, meta, is_dir, file_parent: None })
        })
    }

    /// Every object beneath `dir_path` (all keys, addressable or not) and the volume
    /// paths that have a sidecar there.
    fn list_tree(&self, dir_path: &str, what: &str) -> Result<(Vec<ObjectMeta>, BTreeSet<String>)> {
        let dir = self.keys.dir(dir_path)?;
        let meta_dir = self.keys.meta_dir(dir_path)?;
        let s = self.store.clone();
        let keys = self.keys.clone();
        let root = dir_path == "/";
        self.run(dir_path, what, async move {
            let objects = s.list(dir.as_ref()).try_collect::<Vec<_>>();
            let sidecars = async {
                if root {
                    Ok(Vec::new())
                } else {
                    s.list(Some(&meta_dir)).try_collect::<Vec<_>>().await
                }
            };
            let (objects, sidecars) = futures::try_join!(objects, sidecars)?;
            let mut with_meta: BTreeSet<String> = BTreeSet::new();
            let mut data = Vec::with_capacity(objects.len());
            for o in objects {
                match keys.rel_of_meta(&o.location) {
                    Some(p) => {
                        with_meta.insert(p);
                    }
                    None => data.push(o),
                }
            }
            with_meta.extend(sidecars.iter().filter_map(|o| keys.rel_of_meta(&o.location)));
            Ok((data, with_meta))
        })
    }

    /// The sidecars of `files` (volume path and object), fetched concurrently;
    /// only those that describe their object.
    fn fetch_metas(
        &self,
        path: &str,
        files: Vec<(String, ObjectMeta)>,
    ) -> Result<HashMap<String, Meta>> {
        if files.is_empty() {
            return Ok(HashMap::new());
        }
        let jobs: Vec<(String, Key, ObjectMeta)> = files
            .into_iter()
            .filter_map(|(p, o)| Some((p.clone(), self.keys.meta_key(&p).ok()?, o)))
            .collect();
        let s = self.store.clone();
        self.run(path, "reading entry metadata", async move {
            futures::stream::iter(jobs)
                .map(|(p, k, o)| {
                    let s = s.clone();
                    async move {
                        let m = get_meta(s, k).await?;
                        Ok::<_, object_store::Error>(
                            m.filter(|m| m.describes(o.e_tag.as_deref(), o.size)).map(|m| (p, m)),
                        )
                    }
                })
                .buffer_unordered(PARALLEL_REQUESTS)
                .try_filter_map(|x| async move { Ok(x) })
                .try_collect::<HashMap<_, _>>()
                .await
        })
    }

    /// `not-a-directory` when `path` is a file, else `not-found`: the answer for a
    /// directory operation on a path with nothing beneath it.
    fn not_a_dir_or_missing(&self, path: &str) -> Error {
        let key = match self.keys.key(path) {
            Ok(k) => k,
            Err(e) => return e,
        };
        let s = self.store.clone();
        match self.run(path, "looking up", head_opt(s, key)) {
            Ok(Some(_)) => Error::at(ErrorKind::NotADirectory, path, "not a directory"),
            Ok(None) => Error::not_found(path),
            Err(e) => e,
        }
    }

    fn put_meta(&self, path: &str, m: &Meta) -> Result<()> {
        let key = self.keys.meta_key(path)?;
        let body = serde_json::to_vec(m).expect("metadata serialises");
        let s = self.store.clone();
        self.run(path, "storing entry metadata", async move {
            s.put(&key, PutPayload::from(body)).await.map(|_| ())
        })
    }
}

impl Volume for ObjectVolume {
    /// Object stores have no empty directories (no marker objects are written, see
    /// the module docs): an existing directory is fine, a new one is refused with
    /// what to do instead.
    fn create_dir(&self, path: &str) -> Result<Entry> {
        match self.stat(path) {
            Ok(e) if e.kind == EntryKind::Directory => Ok(e),
            Ok(_) => Err(Error::at(ErrorKind::AlreadyExists, path, "a file exists at this path")),
            Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
            Err(_) => Err(Error::at(
                ErrorKind::Unsupported,
                path,
                "object storage has no empty directories (a directory exists while a file lies beneath it): write a file into it instead",
            )),
        }
    }

    fn stat(&self, path: &str) -> Result<Entry> {
        if path == "/" {
            self.keys.dir(path)?;
            return Ok(Entry::directory("/", None));
        }
        let f = self.find(path)?;
        if f.is_dir {
            return Ok(Entry::directory(path, None));
        }
        let Some(o) = &f.object else { return Err(Error::not_found(path)) };
        let mut e = file_entry(path, o);
        if let Some(m) = f.valid_meta() {
            m.apply(&mut e, &self.trusted);
        }
        Ok(e)
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let dir = self.keys.dir(path)?;
        let meta_dir = self.keys.meta_dir(path)?;
        let s = self.store.clone();
        let (listed, sidecars) = self.run(path, "listing", async move {
            futures::try_join!(
                s.list_with_delimiter(dir.as_ref()),
                s.list_with_delimiter(Some(&meta_dir))
            )
        })?;
        let prefixes: Vec<(String, Key)> = listed
            .common_prefixes
            .iter()
            .filter_map(|k| Some((self.keys.rel(k)?, k.clone())))
            .filter(|(p, _)| paths::parent(p) == Some(path))
            .collect();
        // Some servers (SeaweedFS, whose buckets are file systems) keep a prefix
        // after its last key is deleted and list it: a directory is shown only while
        // a key lies beneath it, as `stat` and `walk` see it.
        let s = self.store.clone();
        let dirs: BTreeSet<String> = self.run(path, "listing", async move {
            futures::stream::iter(prefixes)
                .map(|(p, k)| {
                    let s = s.clone();
                    async move {
                        Ok::<_, object_store::Error>(any_under(s, Some(k)).await?.then_some(p))
                    }
                })
                .buffer_unordered(PARALLEL_REQUESTS)
                .try_filter_map(|x| async move { Ok(x) })
                .try_collect()
                .await
        })?;
        let with_meta: BTreeSet<String> =
            sidecars.objects.iter().filter_map(|o| self.keys.rel_of_meta(&o.location)).collect();
        let files: Vec<(String, ObjectMeta)> = listed
            .objects
            .into_iter()
            .filter_map(|o| Some((self.keys.rel(&o.location)?, o)))
            .filter(|(p, _)| paths::parent(p) == Some(path) && !dirs.contains(p))
            .collect();
        if files.is_empty() && dirs.is_empty() && path != "/" {
            return Err(self.not_a_dir_or_missing(path));
        }
        let typed: Vec<(String, ObjectMeta)> =
            files.iter().filter(|(p, _)| with_meta.contains(p)).cloned().collect();
        let metas = self.fetch_metas(path, typed)?;
        let mut out: Vec<Entry> = dirs.into_iter().map(|d| Entry::directory(d, None)).collect();
        for (p, o) in &files {
            let mut e = file_entry(p, o);
            if let Some(m) = metas.get(p) {
                m.apply(&mut e, &self.trusted);
            }
            out.push(e);
        }
        Ok(out)
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let dir = self.keys.dir(path)?;
        let meta_dir = self.keys.meta_dir(path)?;
        let keys = self.keys.clone();
        let s = self.store.clone();
        let root = path == "/";
        let limit = max_entries.saturating_add(1);
        let (files, with_meta, hit_limit) = self.run(path, "listing", async move {
            let files = async {
                let mut files: Vec<(String, ObjectMeta)> = Vec::new();
                let mut sidecars: BTreeSet<String> = BTreeSet::new();
                let mut st = s.list(dir.as_ref());
                while let Some(o) = st.next().await {
                    let o = o?;
                    if root && let Some(p) = keys.rel_of_meta(&o.location) {
                        sidecars.insert(p);
                        continue;
                    }
                    if let Some(p) = keys.rel(&o.location) {
                        files.push((p, o));
                        if files.len() >= limit {
                            return Ok::<_, object_store::Error>((files, sidecars, true));
                        }
                    }
                }
                Ok((files, sidecars, false))
            };
            let sidecars = async {
                if root {
                    Ok(Vec::new())
                } else {
                    s.list(Some(&meta_dir)).try_collect::<Vec<_>>().await
                }
            };
            let ((files, mut with_meta, hit), more) = futures::try_join!(files, sidecars)?;
            with_meta.extend(more.iter().filter_map(|o| keys.rel_of_meta(&o.location)));
            Ok((files, with_meta, hit))
        })?;
        let base_len = if root { 1 } else { path.len() + 1 };
        let mut dirs: BTreeSet<String> = BTreeSet::new();
        for (p, _) in &files {
            if !root && !paths::is_within(p, path) {
                continue;
            }
            let mut i = base_len;
            while let Some(j) = p[i..].find('/') {
                dirs.insert(p[..i + j].to_string());
                i += j + 1;
            }
        }
        let files: Vec<(String, ObjectMeta)> = files
            .into_iter()
            .filter(|(p, _)| {
                (root || (paths::is_within(p, path) && p != path)) && !dirs.contains(p)
            })
            .collect();
        if files.is_empty() && dirs.is_empty() && !root {
            return Err(self.not_a_dir_or_missing(path));
        }
        let mut entries: BTreeMap<String, Entry> = BTreeMap::new();
        for d in dirs {
            entries.insert(d.clone(), Entry::directory(d, None));
        }
        let mut metas_wanted = Vec::new();
        for (p, o) in &files {
            entries.insert(p.clone(), file_entry(p, o));
            if with_meta.contains(p) {
                metas_wanted.push((p.clone(), o.clone()));
            }
        }
        let truncated = hit_limit || entries.len() > max_entries;
        let mut entries: Vec<Entry> = entries.into_values().take(max_entries).collect();
        let kept: BTreeSet<&str> = entries.iter().map(|e| e.path.as_str()).collect();
        metas_wanted.retain(|(p, _)| kept.contains(p.as_str()));
        let metas = self.fetch_metas(path, metas_wanted)?;
        for e in &mut entries {
            if let Some(m) = metas.get(&e.path) {
                m.apply(e, &self.trusted);
            }
        }
        Ok(Walk { entries, truncated })
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let key = self.keys.key(path)?;
        if offset == 0 {
            let ahead = self.ahead.lock().unwrap_or_else(|p| p.into_inner()).take(path);
            if let Some((size, task)) = ahead {
                match wait::block(task) {
                    Ok(Ok(Ok(data))) if data.len() as u64 >= len || data.len() as u64 <= size => {
                        self.counts.read_ahead_hit();
                        let n = (len.min(data.len() as u64)) as usize;
                        let mut data = data;
                        data.truncate(n);
                        return Ok(data);
                    }
                    // Missing now, or a range the fetch did not cover: read it below.
                    Ok(Ok(Err(object_store::Error::NotFound { .. })))
                    | Ok(Ok(Ok(_)))
                    | Ok(Err(_)) => {}
                    Ok(Ok(Err(e))) => return Err(store_error(e, path, "reading")),
                    Err(why) => return Err(unanswered(why, path, "reading")),
                }
            }
        }
        let s = self.store.clone();
        let k = key.clone();
        let got = if len == 0 {
            self.run(path, "reading", async move { s.head(&k).await.map(|_| Vec::new()) })
        } else {
            let end = offset.saturating_add(len);
            self.run(path, "reading", async move {
                let opts = GetOptions {
                    range: Some(GetRange::Bounded(offset..end)),
                    ..Default::default()
                };
                let r = s.get_opts(&k, opts).await?;
                Ok(r.bytes().await?.to_vec())
            })
        };
        match got {
            Ok(v) => Ok(v),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let dir = self.keys.dir(path)?;
                let s = self.store.clone();
                if self.run(path, "reading", any_under(s, dir))? {
                    Err(Error::at(ErrorKind::NotAFile, path, "is a directory"))
                } else {
                    Err(Error::not_found(path))
                }
            }
            Err(e) => {
                // A range past the end (or any range of an empty object) is refused by
                // S3 with 416: that is an empty read, not an error.
                let s = self.store.clone();
                match self.run(path, "reading", head_opt(s, key)) {
                    Ok(Some(o)) if offset >= o.size => Ok(Vec::new()),
                    _ => Err(e),
                }
            }
        }
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        self.writable(path)?;
        let key = self.keys.key(path)?;
        let found = self.probe(path, true)?;
        if let Some(p) = &found.file_parent {
            return Err(Error::at(
                ErrorKind::NotADirectory,
                path,
                format!("parent '{p}' is a file"),
            ));
        }
        if found.is_dir {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        if found.object.is_some() {
            if options.create_only {
                return Err(Error::at(ErrorKind::AlreadyExists, path, "file already exists"));
            }
            if found.read_only() {
                return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
            }
        }
        let mode = if options.create_only { PutMode::Create } else { PutMode::Overwrite };
        let body = PutPayload::from(content.to_vec());
        let s = self.store.clone();
        let k = key.clone();
        let put = self
            .run(path, "writing", async move {
                s.put_opts(&k, body, PutOptions { mode, ..Default::default() }).await
            })
            .map_err(|e| match e.kind() {
                ErrorKind::AlreadyExists => Error::at(
                    ErrorKind::AlreadyExists,
                    path,
                    "file already exists (created by someone else a moment ago)",
                ),
                _ => e,
            })?;
        let mut entry = Entry::file(path, content.len() as u64, now_ms());
        match Meta::wanted(options) {
            Some(mut m) => {
                m.etag = put.e_tag.as_deref().map(normalize_etag);
                m.size = content.len() as u64;
                if let Err(e) = self.put_meta(path, &m) {
                    if found.object.is_none() {
                        let s = self.store.clone();
                        let undone = self
                            .run(path, "undoing the write", async move { s.delete(&key).await });
                        let what = if undone.is_ok() {
                            "the file was not kept"
                        } else {
                            "the file was written without it"
                        };
                        return Err(Error::at(e.kind(), path, format!("{}; {what}", e.message())));
                    }
                    return Err(Error::at(
                        e.kind(),
                        path,
                        format!("the content was replaced, but {}", e.message()),
                    ));
                }
                m.apply(&mut entry, &self.trusted);
            }
            None if found.meta.is_some() => {
                // The old sidecar no longer describes the object; remove it.
                if let Ok(k) = self.keys.meta_key(path) {
                    let s = self.store.clone();
                    let _ = self.run(
                        path,
                        "removing entry metadata",
                        async move { s.delete(&k).await },
                    );
                }
            }
            None => {}
        }
        Ok(entry)
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.writable(path)?;
        if path == "/" {
            self.keys.dir(path)?;
            if !recursive {
                return Err(Error::at(
                    ErrorKind::Conflict,
                    path,
                    "directory is not empty; pass recursive=true",
                ));
            }
            return self.delete_tree(path, None);
        }
        let found = self.find(path)?;
        if found.is_dir {
            if !recursive {
                return Err(Error::at(
                    ErrorKind::Conflict,
                    path,
                    "directory is not empty; pass recursive=true to delete it",
                ));
            }
            let also = found.object.as_ref().map(|o| o.location.clone());
            return self.delete_tree(path, also);
        }
        let Some(o) = &found.object else { return Err(Error::not_found(path)) };
        if found.read_only() {
            return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
        }
        let key = o.location.clone();
        let s = self.store.clone();
        self.run(path, "deleting", async move { s.delete(&key).await })?;
        if found.meta.is_some()
            && let Ok(k) = self.keys.meta_key(path)
        {
            let s = self.store.clone();
            let _ = self.run(path, "removing entry metadata", async move { s.delete(&k).await });
        }
        self.forget_empty_dirs(paths::parent(path));
        Ok(())
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.writable(from)?;
        if rename_is_noop(from, to)? {
            return Ok(());
        }
        if from == "/" {
            return Err(Error::not_found(from));
        }
        if to == "/" {
            self.keys.key(from)?;
            return Err(Error::at(ErrorKind::AlreadyExists, to, "destination is a directory"));
        }
        let src = self.find(from)?;
        let dst = self.probe(to, true)?;
        let parent_is_file = || match &dst.file_parent {
            Some(p) => {
                Err(Error::at(ErrorKind::NotADirectory, to, format!("parent '{p}' is a file")))
            }
            None => Ok(()),
        };
        if src.is_dir {
            if dst.is_dir || dst.object.is_some() {
                return Err(Error::at(ErrorKind::AlreadyExists, to, "destination exists"));
            }
            parent_is_file()?;
            return self.rename_dir(from, to);
        }
        if src.object.is_none() {
            return Err(Error::not_found(from));
        }
        if src.read_only() {
            return Err(Error::at(ErrorKind::ReadOnly, from, "entry is read-only"));
        }
        if dst.is_dir {
            return Err(Error::at(ErrorKind::AlreadyExists, to, "destination is a directory"));
        }
        if dst.object.is_some() {
            if !overwrite {
                return Err(Error::at(
                    ErrorKind::AlreadyExists,
                    to,
                    "destination exists; pass overwrite=true",
                ));
            }
            if dst.read_only() {
                return Err(Error::at(ErrorKind::ReadOnly, to, "entry is read-only"));
            }
        }
        parent_is_file()?;
        self.rename_file(from, to, &src, overwrite)?;
        if src.valid_meta().is_none()
            && dst.meta.is_some()
            && let Ok(k) = self.keys.meta_key(to)
        {
            // The destination's old sidecar describes the object replaced.
            let s = self.store.clone();
            let _ = self.run(to, "removing entry metadata", async move { s.delete(&k).await });
        }
        Ok(())
    }

    fn identity(&self) -> Option<VolumeIdentity> {
        Some(self.identity.clone())
    }

    fn keeps_entry_metadata(&self) -> bool {
        !self.trusted.is_empty()
    }

    fn prefetch(&self, files: &[PrefetchFile]) {
        let list: Vec<(PrefetchFile, Key)> = files
            .iter()
            .filter(|f| f.size > 0)
            .filter_map(|f| Some((f.clone(), self.keys.key(&f.path).ok()?)))
            .collect();
        self.ahead.lock().unwrap_or_else(|p| p.into_inner()).start(list);
    }
}
