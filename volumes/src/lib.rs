//! Volume backends: the sandbox's ([`filestore_runtime::volumes`]: memory,
//! directories, skills, quotas) and object-store volumes ([`object::ObjectVolume`]: a
//! prefix of an S3, GCS or Azure store, or `file://`, through `object_store`), with
//! the `--mount /point=SPEC` arguments that name any of them ([`MountArg`]).

pub use filestore_runtime::volumes::*;

mod arg;
pub mod object;

pub use arg::{CowUpper, IDENTITY_PLACEHOLDER, MountArg, MountSource};
