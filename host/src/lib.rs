//! (in progress)
pub mod volumes;
