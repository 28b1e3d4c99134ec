//! A configured prompt (Toolbox `kind: prompt`) as the component lists it: what an MCP
//! server shows in `prompts/list` (see `wit/tools.wit`, `list-prompts`).

/// One configured prompt.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptSpec {
    /// Its name.
    pub name: String,
    /// What it is for (may be empty).
    pub description: String,
    /// Its arguments, in declared order.
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a [`PromptSpec`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it means (may be empty).
    pub description: String,
    /// Whether a caller must give it.
    pub required: bool,
}
