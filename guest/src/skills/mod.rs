//! Skills in the filestore (docs/architecture.md#skills): folders holding a `SKILL.md`
//! whose YAML frontmatter follows the Agent Skills spec, optionally with a descriptor
//! that makes the skill a typed tool.
//!
//! - [`skill`]: parsing and validating `SKILL.md` (every reason, with lines);
//! - [`active`]: the LRU of skills a session has read and what each activated;
//! - [`prompt`]: discovering skills and rendering the system-prompt block;
//! - [`descriptor`]: skill descriptors (`descriptor.yaml` or `filestore.*` metadata)
//!   validated at load and bound to the tool configuration at read.
//!
//! May use: [`crate::tools`] (a descriptor is checked against the tool configuration),
//! [`crate::vfs`] and [`crate::error`]. Activating a skill's tools for a session is
//! [`crate::invoke`]'s job.

pub mod active;
pub mod descriptor;
pub mod prompt;
pub mod skill;
#[cfg(test)]
mod tests;
