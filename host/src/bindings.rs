//! The only module that runs `bindgen!`: Rust types for the WIT package.

wasmtime::component::bindgen!({
    path: "../wit",
    world: "filestore-component",
    with: {
        "filestore:component/volume.volume": crate::glue::volume::VolumeHandle,
    },
    imports: { default: trappable },
});
