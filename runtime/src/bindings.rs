//! The only module that runs `bindgen!`: Rust types for the WIT package, and the host
//! type bindgen maps the `volume` resource to ([`VolumeHandle`], served by
//! `glue::volume`), defined here so that the generated types import no module that
//! uses them.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "filestore-component",
    with: {
        "filestore:component/volume.volume": crate::bindings::handle::VolumeHandle,
        "filestore:component/python.run": crate::python::Run,
    },
    imports: { default: trappable },
});

pub(crate) use handle::VolumeHandle;

/// Private, so the crate's `wit` re-export of these bindings names no more than before.
mod handle {
    use crate::volumes::SharedVolume;

    /// The host object behind a guest `volume` handle.
    pub struct VolumeHandle {
        /// The backend.
        pub volume: SharedVolume,
        /// Where its changes show, for the audit timeline (`None`: not audited).
        pub touch: Option<crate::audit::TouchPoint>,
    }
}
