//! Skills in the filestore (DESIGN §8): folders holding a `SKILL.md` whose YAML
//! frontmatter follows the Agent Skills spec, optionally with a descriptor that makes
//! the skill a typed tool.
//!
//! - [`skill`]: parsing and validating `SKILL.md` (every reason, with lines), the LRU
//!   of active skills, and the rendered activation note and system-prompt block;
//! - [`descriptor`]: skill descriptors (`descriptor.yaml` or `filestore.*` metadata)
//!   validated at load and bound to the tool configuration at read.
//!
//! May use: [`crate::tools`] (a descriptor is checked against the tool configuration),
//! [`crate::vfs`] and [`crate::error`]. Activating a skill's tools for a session is
//! [`crate::invoke`]'s job.

pub mod descriptor;
pub mod skill;
