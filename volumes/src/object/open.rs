//! Opening an object volume: the store's client built from a spec (shared by every
//! volume of the same spec) and checked once at start, a volume over a store given,
//! and sub-volumes under a prefix.

use std::sync::{Arc, Mutex};

use object_store::ObjectStore;

use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::volume::VolumeIdentity;

use super::ahead::ReadAhead;
use super::errors::{self, unanswered};
use super::keys::Keys;
use super::spec::{self, ObjectSpec, StoreKind};
use super::{ObjectVolume, RequestCounts, hash16, mount_error, wait};

impl ObjectVolume {
    /// Opens the store a spec names (the client is shared with every other volume
    /// of the same spec; the first open checks that the prefix can be listed, so a
    /// wrong bucket, endpoint or credential fails here, naming the spec). The error is
    /// `not-found` for a bucket that does not exist, `invalid-argument` for the rest
    /// (the mount is wrong).
    pub fn open(spec: &ObjectSpec, read_only: bool) -> Result<ObjectVolume> {
        let (opened, fresh) = spec::open_store(spec)?;
        let checked = ObjectVolume::over(spec, opened, read_only, fresh);
        if fresh && checked.is_err() {
            spec::forget_store(spec);
        }
        checked
    }

    /// An `s3://` volume whose client `configure` finishes (after filestore's
    /// timeouts, retries and request counting, and the environment): credentials
    /// from an embedder's own secret store instead of `AWS_*` variables, for one.
    /// The client is this volume's own (not shared), and it is checked like
    /// [`ObjectVolume::open`]'s.
    pub fn open_s3_with(
        spec: &ObjectSpec,
        read_only: bool,
        configure: impl FnOnce(object_store::aws::AmazonS3Builder) -> object_store::aws::AmazonS3Builder,
    ) -> Result<ObjectVolume> {
        if spec.kind != StoreKind::S3 {
            return Err(mount_error(format!("{}: not an s3:// spec", spec.url())));
        }
        let opened = spec::build_s3(spec, configure)?;
        ObjectVolume::over(spec, opened, read_only, true)
    }

    /// The volume of `spec` over the client `opened`, its prefix listed first when
    /// `check` (a new client).
    fn over(
        spec: &ObjectSpec,
        opened: spec::Opened,
        read_only: bool,
        check: bool,
    ) -> Result<ObjectVolume> {
        let identity = VolumeIdentity {
            storage: format!("object:{}", hash16(&spec.storage_id())),
            root: spec.prefix.split('/').filter(|c| !c.is_empty()).map(hash16).collect(),
        };
        let v = ObjectVolume::build(
            opened.store,
            opened.counts,
            &spec.prefix,
            spec.url(),
            identity,
            read_only,
        )?;
        if check {
            v.check_at_start(spec)?;
        }
        Ok(v)
    }

    /// A volume over any [`ObjectStore`] the embedder built (its own client, retries
    /// and credentials) beneath `prefix`; `storage` names the store for
    /// [`Volume::identity`] (volumes of one storage with nested prefixes overlap).
    /// Requests are not counted ([`ObjectVolume::requests`] stays zero) unless the
    /// store was built with this module's spec.
    pub fn with_store(
        store: Arc<dyn ObjectStore>,
        storage: &str,
        prefix: &str,
        read_only: bool,
    ) -> Result<ObjectVolume> {
        let identity = VolumeIdentity {
            storage: format!("object:{}", hash16(storage)),
            root: prefix.split('/').filter(|c| !c.is_empty()).map(hash16).collect(),
        };
        let name = format!("{store}/{prefix}");
        ObjectVolume::build(store, Arc::default(), prefix, name, identity, read_only)
    }

    fn build(
        store: Arc<dyn ObjectStore>,
        counts: Arc<RequestCounts>,
        prefix: &str,
        name: String,
        identity: VolumeIdentity,
        read_only: bool,
    ) -> Result<ObjectVolume> {
        let keys = Keys::new(prefix)?;
        Ok(ObjectVolume {
            ahead: Mutex::new(ReadAhead::new(store.clone())),
            store,
            counts,
            keys,
            read_only,
            name,
            identity,
            trusted: Vec::new(),
        })
    }

    /// The entry types this volume shows from its metadata sidecars: its role. By
    /// default none: whoever can write the bucket can write a sidecar, so a sidecar
    /// marking an object `skill` or `tool_result` must not make it one (see
    /// [`meta`]). The host's tool-results mount (`/tool_calls`) trusts
    /// `tool_result`, the type the component stores there; `file` lets plain files
    /// keep attributes. Without any, [`Volume::keeps_entry_metadata`] is false, so
    /// the volume is refused as `/tool_calls`.
    pub fn with_trusted_entry_types(mut self, types: &[&str]) -> ObjectVolume {
        self.trusted = types.iter().map(|t| t.to_string()).collect();
        self
    }

    /// Checks that the volume's prefix can be listed (one LIST): a wrong bucket,
    /// endpoint or credential fails here with the store's reason.
    pub fn check(&self) -> Result<()> {
        let dir = self.keys.dir("/")?;
        let store = self.store.clone();
        self.run("/", "listing the volume root", async move {
            store.list_with_delimiter(dir.as_ref()).await.map(|_| ())
        })
    }

    /// [`ObjectVolume::check`] for the host's operator when a mount is opened: the
    /// spec, then what the store said (its status, code and own message; never its
    /// whole answer, see [`errors`]). A bucket that does not exist is `not-found`,
    /// naming it.
    fn check_at_start(&self, spec: &ObjectSpec) -> Result<()> {
        let what = "listing the volume root";
        let dir = self.keys.dir("/").map_err(|e| mount_error(format!("{}: {e}", spec.url())))?;
        let store = self.store.clone();
        match wait::block(async move { store.list_with_delimiter(dir.as_ref()).await }) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) if errors::is_missing_bucket(&e) => Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "{}: the bucket '{}' does not exist ({what}: {})",
                    spec.url(),
                    spec.bucket,
                    errors::startup_reason(&e)
                ),
            )),
            Ok(Err(e)) => {
                let hint = if errors::is_credentials(&e) {
                    format!(" — {}", errors::credentials_hint(spec.kind))
                } else {
                    String::new()
                };
                Err(mount_error(format!(
                    "{}: {what}: {}{hint}",
                    spec.url(),
                    errors::startup_reason(&e)
                )))
            }
            Err(why) => Err(mount_error(format!(
                "{}: {}",
                spec.url(),
                unanswered(why, "/", what).message()
            ))),
        }
    }

    /// The volume beneath `path` of this one, sharing its client and request
    /// counters (no new connection pool, no start-up check): the state store
    /// (the conversation store, `filestore-store`) roots each conversation's volumes this way. Its role
    /// (trusted entry types) starts empty.
    pub fn sub_volume(&self, path: &str, read_only: bool) -> Result<ObjectVolume> {
        let sub = self.keys.dir(path)?.map(|k| k.as_ref().to_string()).unwrap_or_default();
        let mut identity = self.identity.clone();
        identity.root.extend(path.split('/').filter(|c| !c.is_empty()).map(hash16));
        let name = format!("{}{}", self.name, path.trim_end_matches('/'));
        ObjectVolume::build(
            self.store.clone(),
            self.counts.clone(),
            &sub,
            name,
            identity,
            read_only || self.read_only,
        )
    }
}
