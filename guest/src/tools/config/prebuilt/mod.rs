//! Toolbox's prebuilt tool types that are one fixed SQL statement with fixed
//! parameters (`postgres-list-tables`, `mysql-list-tables`, ...), as data: a
//! configuration naming such a type gets that statement, those parameters (with
//! Toolbox's defaults and descriptions) and Toolbox's description when it gives none
//! ([`default_description`]), and runs
//! like a `postgres-sql` tool on a `postgres` source, or through the host's MySQL
//! catalog handler on a `mysql` source. The tables hold Toolbox's own SQL: [`postgres`]
//! is generated from its sources (see `scripts/toolbox_postgres_tools.py`), [`mysql`]
//! from its release binary (`scripts/toolbox_mysql_tools.py`).

mod descriptions;
pub mod mysql;
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
    find_with_source(tool_type).map(|(t, _)| t)
}

/// The description a `tool_type` tool without `description` gets: Toolbox's default
/// where its code has one, else the text of Toolbox's prebuilt configurations.
pub fn default_description(tool_type: &str) -> Option<&'static str> {
    let own = find(tool_type).map(|t| t.description).filter(|d| !d.is_empty());
    own.or_else(|| {
        descriptions::DESCRIPTIONS.iter().find(|(t, _)| *t == tool_type).map(|(_, d)| *d)
    })
}

/// The prebuilt tool of `tool_type` and the source type it runs on.
pub fn find_with_source(tool_type: &str) -> Option<(&'static PrebuiltTool, &'static str)> {
    let pg = postgres::TOOLS.iter().find(|t| t.tool_type == tool_type).map(|t| (t, "postgres"));
    pg.or_else(|| {
        mysql::TOOLS.iter().find(|t| t.tool.tool_type == tool_type).map(|t| (&t.tool, "mysql"))
    })
}

/// Every prebuilt tool type, PostgreSQL's then MySQL's.
pub fn all_types() -> impl Iterator<Item = &'static str> {
    postgres::TOOLS.iter().map(|t| t.tool_type).chain(mysql::TOOLS.iter().map(|t| t.tool.tool_type))
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

    #[test]
    fn every_mysql_statement_binds_its_placeholders_to_declared_parameters() {
        assert_eq!(mysql::TOOLS.len(), 8);
        for t in mysql::TOOLS {
            let names: Vec<&str> = t.tool.parameters.iter().map(|p| p.name).collect();
            let marks = crate::tools::placeholders::scan(t.tool.statement, Dialect::Mysql).len();
            assert_eq!(marks, t.binds.len(), "{}", t.tool.tool_type);
            for b in t.binds {
                assert!(names.contains(b), "{}: {b}", t.tool.tool_type);
            }
            for p in t.tool.parameters {
                let _ = p.to_parameter();
            }
        }
        assert_eq!(find_with_source("mysql-list-tables").map(|(_, s)| s), Some("mysql"));
        assert_eq!(find_with_source("postgres-list-views").map(|(_, s)| s), Some("postgres"));
        assert!(find("mysql-sql").is_none());
    }
}
