//! Conversions between the exported WIT `tools` interface and the host's records
//! ([`crate::tools`]).

use serde_json::Value;

use filestore_guest::tools::config::Location;

use crate::bindings::exports::filestore::component::tools as wit;
use crate::glue::types::from_wit_error;
use crate::tools::{
    ConfigIssue, ConfigReport, InvokeOutcome, InvokeStatus, ToolStatus, UnresolvedSource,
};

/// A WIT config error as a host record.
pub fn from_wit_config_error(e: wit::ConfigError) -> ConfigIssue {
    ConfigIssue {
        file: e.file,
        document: e.document,
        line: e.line,
        column: e.column,
        field: e.field,
        kind: e.kind,
        message: e.message,
        rendered: e.rendered,
    }
}

/// A WIT config report as a host record.
pub fn from_wit_report(r: wit::ConfigReport) -> ConfigReport {
    ConfigReport {
        sources: r
            .sources
            .into_iter()
            .map(|s| UnresolvedSource {
                name: s.name,
                source_type: s.source_type,
                fields: match serde_json::from_str(&s.fields) {
                    Ok(Value::Object(m)) => m,
                    _ => Default::default(),
                },
            })
            .collect(),
        auth_services: r.auth_services,
        toolsets: r.toolsets,
        tools: r
            .tools
            .into_iter()
            .map(|t| ToolStatus {
                location: Location {
                    file: t.file,
                    document: t.document as usize,
                    line: t.line as usize,
                    column: t.column as usize,
                },
                name: t.name,
                tool_type: t.tool_type,
                source: t.source,
                runnable: t.runnable,
                // The reason is in `rendered`; the WIT record carries the flag only.
                why_not: None,
            })
            .collect(),
        rendered: r.rendered,
        v2_yaml: r.v2_yaml,
    }
}

/// A WIT invoke outcome as a host record.
pub fn from_wit_outcome(o: wit::InvokeOutcome) -> InvokeOutcome {
    InvokeOutcome {
        status: match o.status {
            wit::InvokeStatus::Completed => InvokeStatus::Completed,
            wit::InvokeStatus::Failed => InvokeStatus::Failed,
            wit::InvokeStatus::Pending => InvokeStatus::Pending,
        },
        envelope: serde_json::from_str(&o.envelope).unwrap_or(Value::Null),
        text: o.text,
        error: o.error.map(from_wit_error),
        approval_id: o.approval_id,
        result_path: o.result_path,
        offloaded: o.offloaded,
    }
}

/// A WIT agent report as a host record.
pub fn from_wit_agent_report(r: wit::AgentReport) -> crate::tools::AgentReport {
    use crate::tools::ServerDecl;
    use crate::tools::{AgentEntryInfo, AgentReport};
    AgentReport {
        name: r.name,
        description: r.description,
        servers: r
            .servers
            .into_iter()
            .map(|s| ServerDecl {
                location: format!("line {}, column {}", s.line, s.column),
                name: s.name,
                transport: s.transport,
                fields: match serde_json::from_str(&s.fields) {
                    Ok(Value::Object(m)) => m,
                    _ => Default::default(),
                },
            })
            .collect(),
        entries: r
            .entries
            .into_iter()
            .map(|e| AgentEntryInfo {
                section: e.section,
                index: e.index,
                text: e.text,
                call_ref: e.call_ref,
                optional: e.optional,
                line: e.line,
                column: e.column,
            })
            .collect(),
        offered: r.offered,
        available: r.available,
        warnings: r.warnings,
        rendered: r.rendered,
    }
}

/// A configured prompt as the host's own type.
pub fn from_wit_prompt(p: wit::PromptSpec) -> crate::tools::PromptSpec {
    crate::tools::PromptSpec {
        name: p.name,
        description: p.description,
        arguments: p
            .arguments
            .into_iter()
            .map(|a| crate::tools::PromptArgument {
                name: a.name,
                description: a.description,
                required: a.required,
            })
            .collect(),
    }
}
