//! Tool configuration: MCP Toolbox `tools.yaml` files, v2 and v1, YAML or JSON
//! (docs/architecture.md#configuration-files).
//!
//! **v2** is a stream of YAML documents, one resource each: `kind` (`source`,
//! `authService`, `tool`, `toolset`, or their plurals `sources`, `authServices`,
//! `tools`, `toolsets`), `name`, and for all but toolsets a `type`.
//!
//! **v1** is one document of top-level maps — `sources:`, `authServices:` (or the
//! older `authSources:`), `tools:`, `toolsets:` — keyed by name. It is converted on load,
//! as the Toolbox does: each entry becomes a v2 document whose `kind` key is renamed
//! `type`, and each toolset's list becomes its `tools:`. v1 and v2 documents may be
//! mixed, across files and within a stream. [`Config::to_v2_yaml`] writes the v2 file
//! (`filestore migrate`), keeping the order of the resources and of their fields.
//!
//! Loading checks the structure and collects **every** error, each located by file,
//! document (1-based index in the stream), line and column, with the field it concerns:
//! unknown kinds, missing names or types, invalid names (1–128 of `[A-Za-z0-9_.-]`),
//! duplicate names within a kind (within and across files), unknown fields, tools naming
//! a missing source or auth service, toolsets naming a missing tool, invalid parameters
//! (types, defaults that do not validate, misplaced fields), malformed templates.
//!
//! Fields are checked strictly where this host knows the type: the tool types it runs
//! ([`RUNNABLE_TOOL_TYPES`]), the common `*-sql` statement tools (`postgres-sql`,
//! `mysql-sql`, `mssql-sql`) and the sources it runs. Other tool, source and auth types
//! are structurally valid when their common fields are; their type-specific fields are
//! kept unchecked in `fields`. Such tools load and are listed, but are reported as not
//! runnable here ([`Config::check_report`]).
//!
//! Sources stay with the host: their fields (which may hold `${VAR}` references or
//! secrets) are kept for it and never copied into a manifest or an error message.
//!
//! ```
//! use filestore_guest::tools::config::Config;
//! let text = "kind: sources\nname: db\ntype: sqlite\ndatabase: /data/app.db\n---\n\
//!             kind: tools\nname: count_users\ntype: sqlite-sql\nsource: db\n\
//!             description: Count users.\nstatement: SELECT count(*) FROM users;\n";
//! let cfg = Config::load(&[("tools.yaml", text)]).unwrap();
//! assert_eq!(cfg.tool("count_users").unwrap().source.as_deref(), Some("db"));
//! assert!(cfg.is_runnable(cfg.tool("count_users").unwrap()));
//!
//! let errs = Config::load(&[("tools.yaml", "kind: tools\nname: t\ntype: sqlite-sql\n\
//!     source: nope\ndescription: d\nstatement: SELECT 1\n")]).unwrap_err();
//! assert_eq!(errs[0].to_string(),
//!     "tools.yaml: document 1, line 4, column 9: field 'source': tool 't' names source 'nope', which is not defined");
//! ```

mod families;
mod load;
pub mod prebuilt;
#[cfg(test)]
mod tests;
pub mod typos;
pub mod variables;
pub(crate) mod yaml;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::tools::params::{
    ParamRole, Parameter, Template, ValidatedCall, VerifiedClaims, check_auth_required,
    check_scopes_required, percent_encode, validate_args,
};

/// Deepest nesting of mappings and sequences accepted in a configuration document.
/// Every pass over a document recurses; a hostile `[[[[...` must not exhaust the stack.
pub const MAX_CONFIG_DEPTH: usize = 64;

/// Longest resource or parameter name.
pub const MAX_NAME_LEN: usize = 128;

pub use families::{
    CONNECTOR_SOURCES, MYSQL_SOURCES, POSTGRES_SOURCES, RUNNABLE_TOOL_TYPES, RunnableType,
    dialect_of, protocol_of, runnable_type, source_support,
};

/// Whether `name` is a valid resource name: 1–128 characters of `[A-Za-z0-9_.-]`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The kinds of resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// A data source (database, API) the host connects to.
    Source,
    /// A token issuer whose verified claims feed auth parameters.
    AuthService,
    /// A tool.
    Tool,
    /// A named selection of tools.
    Toolset,
    /// An MCP prompt: messages with `{{.arg}}` templates (Toolbox's `custom` prompts).
    Prompt,
    /// An embedding model (Toolbox's `embeddingModels`) that `embeddedBy` parameters
    /// name. Checked and kept; this host runs none.
    EmbeddingModel,
}

impl ResourceKind {
    /// Every kind.
    pub const ALL: [ResourceKind; 6] = [
        ResourceKind::Source,
        ResourceKind::AuthService,
        ResourceKind::Tool,
        ResourceKind::Toolset,
        ResourceKind::Prompt,
        ResourceKind::EmbeddingModel,
    ];

    /// The singular `kind` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ResourceKind::Source => "source",
            ResourceKind::AuthService => "authService",
            ResourceKind::Tool => "tool",
            ResourceKind::Toolset => "toolset",
            ResourceKind::Prompt => "prompt",
            ResourceKind::EmbeddingModel => "embeddingModel",
        }
    }

    /// The plural spelling (also the v1 section name): read, never written (Toolbox
    /// ≥ v0.31 refuses it; [`Config::to_v2_yaml`] writes [`ResourceKind::as_str`]).
    pub fn plural(self) -> &'static str {
        match self {
            ResourceKind::Source => "sources",
            ResourceKind::AuthService => "authServices",
            ResourceKind::Tool => "tools",
            ResourceKind::Toolset => "toolsets",
            ResourceKind::Prompt => "prompts",
            ResourceKind::EmbeddingModel => "embeddingModels",
        }
    }

    /// Parses a `kind` value, singular or plural.
    pub fn parse(kind: &str) -> Option<ResourceKind> {
        ResourceKind::ALL.into_iter().find(|k| k.as_str() == kind || k.plural() == kind)
    }

    /// A lowercase noun for messages.
    pub fn noun(self) -> &'static str {
        match self {
            ResourceKind::Source => "source",
            ResourceKind::AuthService => "auth service",
            ResourceKind::Tool => "tool",
            ResourceKind::Toolset => "toolset",
            ResourceKind::Prompt => "prompt",
            ResourceKind::EmbeddingModel => "embedding model",
        }
    }
}

impl fmt::Display for ResourceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where something is in the configuration: file name, document (1-based index in the
/// file's YAML stream; a v1 file is one document), 1-based line and column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Location {
    /// The file name given to [`Config::load`].
    pub file: String,
    /// 1-based document index within the file.
    pub document: usize,
    /// 1-based line in the file.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl Location {
    /// `mark` in document `document` of `file`.
    pub(crate) fn at(file: &str, document: usize, mark: yaml::Mark) -> Location {
        Location { file: file.to_string(), document, line: mark.line, column: mark.column }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: document {}, line {}, column {}",
            self.file, self.document, self.line, self.column
        )
    }
}

/// What is wrong with a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file is larger than [`crate::vfs::limits::MAX_CONFIG_BYTES`].
    TooLarge,
    /// The YAML (or JSON) does not parse, nests too deep, or has duplicate keys.
    Syntax,
    /// A document is neither a v2 resource (no `kind`) nor a v1 file, or not a mapping.
    InvalidDocument,
    /// `kind` is not one of the known kinds.
    UnknownKind,
    /// A required field (`name`, `type`, `source`, ...) is missing.
    MissingField,
    /// A field has the wrong type or an invalid value.
    InvalidValue,
    /// A field is not known for this resource.
    UnknownField,
    /// A resource or parameter name breaks the naming rule.
    InvalidName,
    /// A name is defined twice (within a kind, or within a tool's parameters).
    DuplicateName,
    /// A tool names a source that is not defined.
    MissingSource,
    /// A toolset names a tool that is not defined.
    MissingTool,
    /// A tool or parameter names an auth service that is not defined.
    MissingAuthService,
    /// A parameter's `embeddedBy` names an embedding model that is not defined.
    MissingEmbeddingModel,
    /// A tool's source has a type that tool type cannot use.
    SourceMismatch,
    /// A statement or path template is malformed or names an undeclared parameter.
    InvalidTemplate,
    /// An agent configuration's provider entry names a server it does not declare.
    MissingServer,
    /// An agent entry names a connection that does not exist.
    MissingConnection,
    /// An agent entry names a connection that exists but cannot be used.
    InactiveConnection,
    /// An agent entry's connection could not be checked or reached.
    ConnectionFailed,
    /// An agent entry names a tool the session does not have, or two tools would
    /// share a name.
    UnknownTool,
    /// An upstream action's input schema cannot be used to check its arguments.
    InvalidSchema,
    /// A Toolbox feature this host does not implement (a group's `prompts`,
    /// `resources`...): refused, naming it, rather than loaded and silently ignored.
    Unsupported,
}

/// One configuration error, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The category.
    pub kind: ConfigErrorKind,
    /// Where.
    pub location: Location,
    /// The field concerned, as a path inside the resource (`parameters[1].type`), when
    /// there is one.
    pub field: Option<String>,
    /// What is wrong, lowercase.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: field '{}': {}", self.location, field, self.message),
            None => write!(f, "{}: {}", self.location, self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// An error of `kind` at `location`, naming `field` when given: how the YAML
    /// readers (tools.yaml and agent configurations) report what they find.
    pub(crate) fn at(
        kind: ConfigErrorKind,
        location: Location,
        field: Option<&str>,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError { kind, location, field: field.map(str::to_string), message: message.into() }
    }

    /// The error as a filestore [`Error`] (`invalid-argument`).
    pub fn to_error(&self) -> Error {
        Error::new(ErrorKind::InvalidArgument, self.to_string())
    }
}

/// All errors of a load as one filestore [`Error`] (`invalid-argument`), one per line.
pub fn errors_to_error(errors: &[ConfigError]) -> Error {
    let lines: Vec<String> = errors.iter().map(ConfigError::to_string).collect();
    let head = match errors.len() {
        1 => "invalid configuration".to_string(),
        n => format!("invalid configuration ({n} errors)"),
    };
    Error::new(ErrorKind::InvalidArgument, format!("{head}:\n{}", lines.join("\n")))
}

/// A `source` resource. Its fields are opaque to the guest and kept for the host.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceConfig {
    /// Name.
    pub name: String,
    /// `type` (`sqlite`, `http`, `postgres`, `cloud-sql-postgres`, ...).
    pub source_type: String,
    /// Every other field, in order, unresolved (`${VAR}` references intact).
    pub fields: Map<String, Value>,
    /// Where it is defined.
    pub location: Location,
    /// Where each of `fields` starts (its value), so that the host, which resolves
    /// their `${VAR}` references, can say where an unset one is written.
    pub field_locations: Vec<(String, Location)>,
}

impl SourceConfig {
    /// Where the field `name` (a top-level field) is written; the source's own
    /// location when it has no such field.
    pub fn field_location(&self, name: &str) -> &Location {
        self.field_locations.iter().find(|(f, _)| f == name).map_or(&self.location, |(_, l)| l)
    }
}

/// An `authService` resource.
#[derive(Clone, Debug, PartialEq)]
pub struct AuthServiceConfig {
    /// Name, referenced by `authRequired` and auth parameters.
    pub name: String,
    /// `type` (`google`, ...).
    pub service_type: String,
    /// Every other field, in order (`clientId`, ...).
    pub fields: Map<String, Value>,
    /// Where it is defined.
    pub location: Location,
}

/// A `tool` resource.
#[derive(Clone, Debug)]
pub struct ToolConfig {
    /// Name (what the model calls).
    pub name: String,
    /// `type` (`sqlite-sql`, `http`, `postgres-sql`, ...).
    pub tool_type: String,
    /// The source it runs against.
    pub source: Option<String>,
    /// Description for the model.
    pub description: String,
    /// The statement of statement tools (`*-sql`).
    pub statement: Option<String>,
    /// Every declared parameter, of every role, in field then declaration order:
    /// `parameters`, `templateParameters`, `queryParams`, `bodyParams`, `headerParams`,
    /// `pathParams`.
    pub parameters: Vec<Parameter>,
    /// Auth services of which any one must have verified the caller.
    pub auth_required: Vec<String>,
    /// `scopesRequired` (Toolbox 1.12): OAuth scopes the caller's bearer token must
    /// all carry in its `scope` claim.
    pub scopes_required: Vec<String>,
    /// The auth services whose claims are the bearer token's: the configuration's
    /// `generic` services with `mcpEnabled: true` (set when the configuration loads;
    /// a tool with `scopesRequired` needs one).
    pub scope_services: Vec<String>,
    /// Behaviour hints (`annotations:`) and `requiresApproval`.
    pub annotations: ToolAnnotations,
    /// `outputSchema` (filestore's; not in Toolbox): the JSON Schema a successful
    /// result's data must match. Checked when loaded (it compiles) and on every
    /// result; MCP clients see it as the tool's `outputSchema` (around the envelope).
    pub output_schema: Option<Value>,
    /// Type-specific fields not modelled above (http `method`, `path`, `headers`,
    /// `requestBody`; anything of types this host does not know), in order.
    pub fields: Map<String, Value>,
    /// The tool's v2 document as loaded (`kind`, `name`, then its fields in order,
    /// `${VAR}` references unresolved). Tools hold no source secrets, so this is what
    /// travels to the host with each call (WIT `tool-call.config`).
    pub document: Map<String, Value>,
    /// Where it is defined.
    pub location: Location,
}

impl ToolConfig {
    /// The parameters of one role, in order.
    pub fn parameters_with_role(&self, role: ParamRole) -> impl Iterator<Item = &Parameter> {
        self.parameters.iter().filter(move |p| p.role == role)
    }

    /// The parameter called `name`.
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Validates one call of this tool: `authRequired`, `scopesRequired`, every
    /// parameter of every role, then template substitution into the statement.
    pub fn validate_call(&self, args: &Value, claims: &VerifiedClaims) -> Result<ValidatedCall> {
        let tool = self;
        check_auth_required(&tool.name, &tool.auth_required, claims)?;
        check_scopes_required(&tool.name, &tool.scopes_required, &tool.scope_services, claims)?;
        let args = validate_args(&tool.parameters, args, claims)?;
        let statement = match &tool.statement {
            Some(s) if tool.parameters.iter().any(|p| p.role == ParamRole::Template) => {
                let template = Template::parse(s).map_err(|e| {
                    Error::new(
                        ErrorKind::InvalidArgument,
                        format!("tool '{}': statement: {e}", tool.name),
                    )
                })?;
                Some(template.render(&args)?)
            }
            Some(s) => Some(s.clone()),
            // A redis or valkey tool's statement is its commands, values in place.
            None => match tool.fields.get("commands") {
                Some(c)
                    if runnable_type(&tool.tool_type).is_some_and(|r| r.source_type == "redis") =>
                {
                    Some(crate::tools::commands::render(&tool.name, c, &args)?)
                }
                _ => None,
            },
        };
        let path = match tool.fields.get("path") {
            Some(Value::String(p)) if tool.tool_type == "http" => {
                let template = Template::parse(p).map_err(|e| {
                    Error::new(
                        ErrorKind::InvalidArgument,
                        format!("tool '{}': path: {e}", tool.name),
                    )
                })?;
                Some(template.render_with(&args, percent_encode)?)
            }
            _ => None,
        };
        Ok(ValidatedCall { tool: tool.name.clone(), args, statement, path })
    }
}

/// Behaviour hints of a tool. The first five are MCP tool annotations (unset hints keep
/// MCP's defaults: not read-only, destructive, not idempotent, open world);
/// `requires_approval` is filestore's: an invocation waits for the host to approve it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(default, rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// The tool interacts with external entities.
    #[serde(default, rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
    /// Every invocation returns a pending outcome until the host approves it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_approval: bool,
}

impl ToolAnnotations {
    /// Whether the tool is declared read-only (MCP default: no).
    pub fn is_read_only(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// Whether the tool may be destructive (MCP default: yes, unless read-only).
    pub fn is_destructive(&self) -> bool {
        self.destructive.unwrap_or(!self.is_read_only())
    }
}

/// A `toolset` resource, or a `group` (Toolbox 1.12's name for the same resource: one
/// decoder, one namespace, served at the same endpoints; groups carry a `description`
/// that `toolbox skills-generate` uses).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsetConfig {
    /// Name.
    pub name: String,
    /// Tool names, in order.
    pub tools: Vec<String>,
    /// `description`, when given.
    pub description: Option<String>,
    /// Whether it was written `kind: group` (kept so `migrate` writes it back so).
    pub group: bool,
    /// Where it is defined.
    pub location: Location,
}

/// A `prompt` resource (Toolbox's `custom` prompt type): messages whose content is a
/// template over the prompt's arguments, served as an MCP prompt.
#[derive(Clone, Debug)]
pub struct PromptConfig {
    /// Name.
    pub name: String,
    /// Description (may be empty).
    pub description: String,
    /// `(role, content template)`, role `user` or `assistant`.
    pub messages: Vec<(String, String)>,
    /// Arguments (`type` defaults to string), validated like tool parameters.
    pub arguments: Vec<Parameter>,
    /// Where it is defined.
    pub location: Location,
}

impl PromptConfig {
    /// The messages with `arguments` (a JSON object) validated and substituted into
    /// each template, as Toolbox renders them; errors name the argument or message.
    pub fn render(&self, arguments: &Value) -> Result<Vec<(String, String)>> {
        let args = validate_args(&self.arguments, arguments, &VerifiedClaims::new())
            .map_err(|e| Error::new(e.kind(), format!("prompt '{}': {e}", self.name)))?;
        self.messages
            .iter()
            .enumerate()
            .map(|(i, (role, content))| {
                let t = Template::parse(content).map_err(|e| {
                    Error::new(
                        ErrorKind::InvalidArgument,
                        format!("prompt '{}' messages[{i}]: {e}", self.name),
                    )
                })?;
                Ok((role.clone(), t.render(&args)?))
            })
            .collect()
    }
}

/// An `embeddingModel` resource: kept and referenced by `embeddedBy`, not run here.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddingModelConfig {
    /// Name.
    pub name: String,
    /// Model `type` (`gemini`...).
    pub model_type: String,
    /// Where it is defined.
    pub location: Location,
}

/// A loaded, checked configuration.
#[derive(Clone, Debug, Default)]
pub struct Config {
    prompts: Vec<PromptConfig>,
    embedding_models: Vec<EmbeddingModelConfig>,
    sources: Vec<SourceConfig>,
    auth_services: Vec<AuthServiceConfig>,
    tools: Vec<ToolConfig>,
    toolsets: Vec<ToolsetConfig>,
    /// Every resource in load order as its v2 document (names and descriptions with
    /// `${VAR}` substituted).
    documents: Vec<Value>,
    /// The same documents as written (`${VAR}` kept everywhere), for
    /// [`Config::to_v2_yaml`]: a migration must not write this environment's values.
    written: Vec<Value>,
}

impl Config {
    /// Loads and checks `(file name, text)` pairs as one configuration (names are unique
    /// across all of them). Returns every error found, in file and document order.
    pub fn load<N: AsRef<str>, T: AsRef<str>>(
        files: &[(N, T)],
    ) -> std::result::Result<Config, Vec<ConfigError>> {
        load::load(files.iter().map(|(n, t)| (n.as_ref(), t.as_ref())), None)
    }

    /// [`Config::load`], substituting `${VAR}` in the shaping fields (names,
    /// descriptions, toolset members; see [`variables`]) from `vars`: a reference to a
    /// variable missing from `vars` without a default is an error at its place.
    pub fn load_with_variables<N: AsRef<str>, T: AsRef<str>>(
        files: &[(N, T)],
        vars: &variables::Variables,
    ) -> std::result::Result<Config, Vec<ConfigError>> {
        load::load(files.iter().map(|(n, t)| (n.as_ref(), t.as_ref())), Some(vars))
    }

    /// Loads one file.
    pub fn load_str(file: &str, text: &str) -> std::result::Result<Config, Vec<ConfigError>> {
        Config::load(&[(file, text)])
    }

    /// Decodes a standalone list of parameters (`node`, a YAML sequence) declared in
    /// `file` under `field`, with the rules of a tool's `parameters` (types, defaults,
    /// allowed values, bounds, unique names). `authServices` is refused. Used for the
    /// typed inputs of skill descriptors ([`crate::skills::descriptor`]).
    pub(crate) fn parse_parameters(
        file: &str,
        node: &yaml::Node,
        field: &str,
    ) -> std::result::Result<Vec<crate::tools::params::Parameter>, Vec<ConfigError>> {
        load::decode_parameters(file, node, field)
    }

    /// Sources, in load order.
    pub fn sources(&self) -> &[SourceConfig] {
        &self.sources
    }

    /// Auth services, in load order.
    pub fn auth_services(&self) -> &[AuthServiceConfig] {
        &self.auth_services
    }

    /// Tools, in load order.
    pub fn tools(&self) -> &[ToolConfig] {
        &self.tools
    }

    /// Toolsets, in load order.
    pub fn toolsets(&self) -> &[ToolsetConfig] {
        &self.toolsets
    }

    /// Prompts, in load order.
    pub fn prompts(&self) -> &[PromptConfig] {
        &self.prompts
    }

    /// The prompt called `name`.
    pub fn prompt(&self, name: &str) -> Option<&PromptConfig> {
        self.prompts.iter().find(|p| p.name == name)
    }

    /// Embedding models, in load order.
    pub fn embedding_models(&self) -> &[EmbeddingModelConfig] {
        &self.embedding_models
    }

    /// The source called `name`.
    pub fn source(&self, name: &str) -> Option<&SourceConfig> {
        self.sources.iter().find(|s| s.name == name)
    }

    /// The auth service called `name`.
    pub fn auth_service(&self, name: &str) -> Option<&AuthServiceConfig> {
        self.auth_services.iter().find(|s| s.name == name)
    }

    /// The tool called `name`.
    pub fn tool(&self, name: &str) -> Option<&ToolConfig> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The tools of toolset `name`, in its order. `""` is the default toolset: every
    /// tool, in load order. An unknown toolset is `not-found`.
    pub fn toolset(&self, name: &str) -> Result<Vec<&ToolConfig>> {
        if name.is_empty() {
            return Ok(self.tools.iter().collect());
        }
        let set = self.toolsets.iter().find(|s| s.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.toolsets.iter().map(|s| s.name.as_str()).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            Error::new(ErrorKind::NotFound, format!("unknown toolset '{name}' (defined: {known})"))
        })?;
        // Loading checked that every member exists.
        Ok(set.tools.iter().filter_map(|t| self.tool(t)).collect())
    }

    /// Whether this host can run `tool`: its type is one of [`RUNNABLE_TOOL_TYPES`] (or
    /// a prebuilt one), its source has a type that tool type accepts, and that source
    /// is one this host reaches ([`source_support`]).
    pub fn is_runnable(&self, tool: &ToolConfig) -> bool {
        self.why_not_runnable(tool).is_none()
    }

    /// Why this host cannot run `tool` (`None` when it can): the feature it lacks,
    /// named, so a user sees which part of a Toolbox configuration is not supported.
    fn why_not_runnable(&self, tool: &ToolConfig) -> Option<String> {
        // No handler here embeds values (Toolbox's `embeddedBy`).
        if tool.parameters.iter().any(|p| p.embedded_by.is_some()) {
            return Some("a parameter is embeddedBy a model, and no handler here embeds".into());
        }
        let source = tool.source.as_deref().and_then(|s| self.source(s));
        if let Some(s) = source
            && let Err(why) = source_support(&s.name, &s.source_type, &s.fields)
        {
            return Some(why);
        }
        let Some(runnable) = runnable_type(&tool.tool_type) else {
            return Some(format!("type {} is not one this host runs", tool.tool_type));
        };
        match source {
            Some(s) if runnable.sources.contains(&s.source_type.as_str()) => None,
            Some(s) => {
                Some(format!("type {} does not run on a {} source", tool.tool_type, s.source_type))
            }
            None => Some(format!("type {} needs a source", tool.tool_type)),
        }
    }

    /// What `filestore check` reports: counts, and every tool with whether it runs here.
    pub fn check_report(&self) -> CheckReport {
        CheckReport {
            sources: self.sources.len(),
            auth_services: self.auth_services.len(),
            toolsets: self.toolsets.len(),
            tools: self
                .tools
                .iter()
                .map(|t| ToolStatus {
                    name: t.name.clone(),
                    tool_type: t.tool_type.clone(),
                    source: t.source.clone(),
                    runnable: self.is_runnable(t),
                    why_not: self.why_not_runnable(t),
                    location: t.location.clone(),
                })
                .collect(),
        }
    }

    /// The configuration as a v2 YAML stream (`filestore migrate`): one document per
    /// resource in load order, `kind` (plural spelling, as the Toolbox writes it),
    /// `name`, then the resource's fields in their original order. Values are written
    /// as loaded: `${VAR}` references are not resolved.
    pub fn to_v2_yaml(&self) -> String {
        yaml::emit_documents(&self.written)
    }
}

/// The result of checking a configuration, for `filestore check`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Number of sources.
    pub sources: usize,
    /// Number of auth services.
    pub auth_services: usize,
    /// Number of toolsets.
    pub toolsets: usize,
    /// Every tool, in load order.
    pub tools: Vec<ToolStatus>,
}

/// One tool in a [`CheckReport`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolStatus {
    /// Name.
    pub name: String,
    /// Type.
    pub tool_type: String,
    /// Source name.
    pub source: Option<String>,
    /// Whether this host has a handler for it.
    pub runnable: bool,
    /// When not runnable, why: the unsupported source type or tool type, named.
    pub why_not: Option<String>,
    /// Where it is defined.
    pub location: Location,
}

impl CheckReport {
    /// The tools this host cannot run.
    pub fn not_runnable(&self) -> impl Iterator<Item = &ToolStatus> {
        self.tools.iter().filter(|t| !t.runnable)
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        writeln!(
            f,
            "ok: {}, {}, {}, {}",
            plural(self.sources, "source", "sources"),
            plural(self.auth_services, "auth service", "auth services"),
            plural(self.tools.len(), "tool", "tools"),
            plural(self.toolsets, "toolset", "toolsets"),
        )?;
        for t in &self.tools {
            if t.runnable {
                writeln!(f, "tool '{}' ({}): runnable", t.name, t.tool_type)?;
            } else {
                writeln!(
                    f,
                    "tool '{}' ({}): valid, but not runnable by this host: {} [{}]",
                    t.name,
                    t.tool_type,
                    t.why_not.as_deref().unwrap_or("no handler"),
                    t.location,
                )?;
            }
        }
        if self.not_runnable().next().is_some() {
            // Once, not per tool: what runs is a table of the docs.
            writeln!(
                f,
                "(the tool and source types this host runs: docs/configured-tools.md#tool-types-this-binary-runs)"
            )?;
        }
        Ok(())
    }
}
