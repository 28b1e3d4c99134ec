//! Toolbox's prebuilt tool types that are one fixed SQL statement with fixed
//! parameters (`postgres-list-tables`, `postgres-list-views`, ...), as data: a
//! configuration naming such a type gets that statement, those parameters (with
//! Toolbox's defaults and descriptions) and Toolbox's default description, and runs
//! like a `postgres-sql` tool. The table is generated from Toolbox's sources
//! ([`postgres`]; see `scripts/toolbox_postgres_tools.py`), so the SQL is Toolbox's own.

pub mod postgres;

use serde_json::Value;

use crate::tools::params::{ParamRole, ParamType, Parameter};

/// One prebuilt tool type.
#[derive(Debug, PartialEq, Eq)]
pub struct PrebuiltTool {
    /// The tool `type`.
    pub tool_type: &'static str,
    /// Toolbox's description when the configuration gives none; empty where Toolbox
    /// requires one.
    pub description: &'static str,
    /// The statement; `$N` binds the N-th parameter.
    pub statement: &'static str,
    /// The parameters, in binding order.
    pub parameters: &'static [PrebuiltParam],
}

/// One parameter of a prebuilt tool.
#[derive(Debug, PartialEq, Eq)]
pub struct PrebuiltParam {
    /// Name.
    pub name: &'static str,
    /// Type.
    pub param_type: ParamType,
    /// The default, as JSON text.
    pub default: Option<&'static str>,
    /// Whether the caller must give it (else absent means the default, or NULL).
    pub required: bool,
    /// Toolbox's description.
    pub description: &'static str,
}

impl PrebuiltParam {
    /// As a declared (bound) parameter.
    pub fn to_parameter(&self) -> Parameter {
        Parameter {
            description: self.description.to_string(),
            required: self.required,
            default: self
                .default
                .map(|d| serde_json::from_str::<Value>(d).expect("generated JSON")),
            role: ParamRole::Parameter,
            ..Parameter::new(self.name, self.param_type)
        }
    }
}

/// The prebuilt tool of `tool_type`, when there is one.
pub fn find(tool_type: &str) -> Option<&'static PrebuiltTool> {
    postgres::TOOLS.iter().find(|t| t.tool_type == tool_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::placeholders::{Dialect, check};

    #[test]
    fn every_prebuilt_statement_binds_exactly_its_parameters() {
        assert!(postgres::TOOLS.len() >= 20);
        for t in postgres::TOOLS {
            let names: Vec<&str> = t.parameters.iter().map(|p| p.name).collect();
            check(t.statement, Dialect::Postgres, &names)
                .unwrap_or_else(|e| panic!("{}: {}", t.tool_type, e.message));
            for p in t.parameters {
                let _ = p.to_parameter();
            }
        }
        assert!(find("postgres-list-views").is_some());
        assert!(find("postgres-sql").is_none());
    }
}
