//! The built-in filestore tools as an agent sees them: names, descriptions, JSON
//! Schemas and annotations (docs/architecture.md#operations). The schemas mirror the
//! request types of each operation module; a test checks that every schema property
//! decodes.

use serde::Serialize;
use serde_json::{Value, json};

/// A tool's advertised specification (MCP `tools/list` shape).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// Tool name (`filestore_read`...).
    pub name: String,
    /// What the tool does and when to use it, for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`) plus `requiresApproval` where set.
    pub annotations: Value,
    /// A short human-readable name (MCP `title`).
    pub title: String,
    /// JSON Schema of the structured result (MCP `outputSchema`): what a successful
    /// call's JSON holds (see [`output_schema`]).
    pub output_schema: Value,
}

/// The JSON Schema of a built-in tool's result: the keys every answer has, typed,
/// and the optional ones typed where present. A client (the Python MCP SDK does)
/// checks each structured result against it.
pub fn output_schema(name: &str) -> Value {
    let entry = json!({"type": "object", "required": ["path", "kind"], "properties": {
        "path": {"type": "string"}, "kind": {"type": "string"}, "size": {"type": "integer"},
        "modified_ms": {"type": ["integer", "null"]}, "read_only": {"type": "boolean"},
        "entry_type": {"type": "string"}
    }});
    let mutation = json!({"type": "object", "required": ["entry", "message"], "properties": {
        "entry": entry, "message": {"type": "string"}
    }});
    match name {
        "filestore_ls" => {
            json!({"type": "object", "required": ["path", "entries", "truncated"], "properties": {
                "path": {"type": "string"}, "entries": {"type": "array", "items": {"type": "object"}},
                "truncated": {"type": "boolean"}
            }})
        }
        // One file, or several with `paths` (each a read result or an error).
        "filestore_read" => json!({"type": "object", "properties": {
            "entry": entry, "content": {"type": "string"}, "text": {"type": "string"},
            "total_lines": {"type": "integer"}, "start_line": {"type": "integer"},
            "end_line": {"type": "integer"}, "next_offset": {"type": "integer"},
            "byte_offset": {"type": "integer"}, "bytes": {"type": "integer"},
            "next_byte_offset": {"type": "integer"}, "ends_with_newline": {"type": "boolean"},
            "truncated": {"type": "boolean"}, "truncated_by": {"type": "string"},
            "cut_lines": {"type": "integer"}, "lossy_lines": {"type": "integer"},
            "activation": {"type": "object"}, "pdf": {"type": "object"},
            "files": {"type": "array", "items": {"type": "object", "required": ["path"]}}
        }, "anyOf": [{"required": ["entry", "content", "text"]}, {"required": ["files"]}]}),
        "filestore_glob" => {
            json!({"type": "object", "required": ["pattern", "path", "files", "total_matches", "truncated"], "properties": {
                "pattern": {"type": "string"}, "path": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path"]}},
                "total_matches": {"type": "integer"}, "truncated": {"type": "boolean"},
                "walk_truncated": {"type": "boolean"}
            }})
        }
        "filestore_grep" => {
            json!({"type": "object", "required": ["pattern", "path", "output_mode", "offset", "truncated"], "properties": {
                "pattern": {"type": "string"}, "path": {"type": "string"}, "output_mode": {"type": "string"},
                "files": {"type": "array", "items": {"type": "string"}},
                "lines": {"type": "array", "items": {"type": "object"}},
                "counts": {"type": "array", "items": {"type": "object"}},
                "total_matches": {"type": "integer"}, "offset": {"type": "integer"},
                "truncated": {"type": "boolean"}, "next_offset": {"type": "integer"},
                "total_records": {"type": "integer"}
            }})
        }
        "filestore_tree" => {
            json!({"type": "object", "required": ["path", "tree", "truncated"], "properties": {
                "path": {"type": "string"}, "tree": {"type": "string"}, "truncated": {"type": "boolean"}
            }})
        }
        "filestore_edit" => {
            json!({"type": "object", "required": ["entry", "replacements", "diff", "written"], "properties": {
                "entry": entry, "replacements": {"type": "integer"}, "diff": {"type": "string"},
                "diff_note": {"type": "string"}, "written": {"type": "boolean"}
            }})
        }
        "filestore_diff" => {
            json!({"type": "object", "required": ["mount", "path", "files", "patch"], "properties": {
                "mount": {"type": "string"}, "path": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path", "status", "binary"]}},
                "patch": {"type": "string"}
            }})
        }
        "filestore_execute" => {
            json!({"type": "object", "required": ["stdout", "stderr", "exit_code", "truncated", "duration_ms"], "properties": {
                "stdout": {"type": "string"}, "stderr": {"type": "string"},
                "exit_code": {"type": "integer"}, "truncated": {"type": "boolean"},
                "duration_ms": {"type": "integer"}, "output_path": {"type": "string"},
                "activations": {"type": "array", "items": {"type": "object"}}
            }})
        }
        _ => mutation,
    }
}

/// A built-in tool's title (MCP `title`).
pub fn title(name: &str) -> &'static str {
    match name {
        "filestore_ls" => "List directory",
        "filestore_read" => "Read file",
        "filestore_glob" => "Find files by pattern",
        "filestore_grep" => "Search file contents",
        "filestore_tree" => "Directory tree",
        "filestore_write" => "Write file",
        "filestore_edit" => "Edit file",
        "filestore_delete" => "Delete",
        "filestore_mkdir" => "Create directory",
        "filestore_move" => "Move or rename",
        "filestore_execute" => "Run shell command",
        "filestore_diff" => "Changes of a copy-on-write mount",
        _ => "",
    }
}

/// Names of the read-side tools.
pub const READ_TOOLS: [&str; 5] =
    ["filestore_ls", "filestore_read", "filestore_glob", "filestore_grep", "filestore_tree"];
/// Names of the mutating tools (offered only with a writable mount).
pub const WRITE_TOOLS: [&str; 5] =
    ["filestore_write", "filestore_edit", "filestore_mkdir", "filestore_delete", "filestore_move"];

/// The shell tool (crate::shell): offered only where a session enables it.
pub const SHELL_TOOL: &str = "filestore_execute";

/// The diff tool (crate::ops::diff): offered only where a copy-on-write mount is.
pub const DIFF_TOOL: &str = "filestore_diff";

/// Whether `name` is a built-in filestore tool.
pub fn is_builtin(name: &str) -> bool {
    READ_TOOLS.contains(&name)
        || WRITE_TOOLS.contains(&name)
        || name == SHELL_TOOL
        || name == DIFF_TOOL
}

fn path_prop(what: &str) -> Value {
    json!({"type": "string", "description": format!("{what} Absolute virtual path such as /workspace/src/main.rs; relative paths are taken from /.")})
}

/// The spec of one built-in tool.
// Long because it is a table (each tool's description, schema and annotations side by
// side, as the model reads them); there is no logic to split out.
pub fn spec(name: &str) -> Option<ToolSpec> {
    let (description, schema, ann) = match name {
        "filestore_ls" => (
            "List a directory: names, `name/` for directories; directories first, then files, by name. details=true adds size, modified time, estimated tokens and type per entry. depth>1 nests children. A missing path is an error (not an empty list).",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "default": "/", "description": "Directory to list (default /)."},
                "depth": {"type": "integer", "minimum": 1, "default": 1, "description": "Levels to descend; 1 lists direct children."},
                "limit": {"type": "integer", "minimum": 1, "maximum": crate::vfs::limits::MAX_LIST_LIMIT, "default": 1000, "description": "Most entries in total."},
                "sort_by": {"type": "string", "enum": ["name", "size", "modified"], "default": "name", "description": "Order within each directory (directories first): name, size (largest first) or modified (newest first)."},
                "details": {"type": "boolean", "default": false, "description": "Include size, modified time, estimated tokens, type and read-only flag per entry."}
            }, "additionalProperties": false}),
            annotations(true, false, true),
        ),
        "filestore_read" => (
            "Read a text file by lines, numbered like `cat -n`. Use offset/limit to page through large files (the result says which offset continues). Long lines are cut at 2000 characters; binary files are reported, not dumped. A PDF returns its pages' text (pages selects them, e.g. \"2-5\"); a page without text (a scan) comes as a PNG image, and render=\"all\" draws every page read (diagrams, figures). raw=true returns stored content untouched (e.g. JSON tool results). paths reads several files at once, each with its own result or error.",
            json!({"type": "object", "properties": {
                "path": path_prop("File to read."),
                "paths": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": crate::ops::read::MAX_READ_PATHS, "description": "Several files to read instead of path, with the same options; each gets its own result or error. PDFs are read as text (render \"all\" is refused; \"auto\" draws nothing here)."},
                "offset": {"type": "integer", "minimum": 1, "default": 1, "description": "First line to return (1-based); past the last line it is an error naming the line count."},
                "limit": {"type": "integer", "minimum": 1, "default": 2000, "description": "Number of lines to return."},
                "raw": {"type": "boolean", "default": false, "description": "Return the stored content without numbering or paging."},
                "tail": {"type": "integer", "minimum": 1, "description": "Return the last N lines (e.g. the end of a log), numbered as in the whole file; instead of offset."},
                "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8", "description": "base64 returns the file's bytes (any file, binary too) as base64 in text, paged by byte_offset/max_bytes; next_byte_offset continues."},
                "byte_offset": {"type": "integer", "minimum": 0, "default": 0, "description": "First byte of a base64 page."},
                "max_bytes": {"type": "integer", "minimum": 1, "maximum": crate::vfs::limits::MAX_READ_PAGE_BYTES, "default": crate::ops::read::DEFAULT_BYTE_PAGE, "description": "Most bytes in a base64 page."},
                "pages": {"type": "string", "description": "Pages of a PDF to read as text: \"3\", \"2-5\", \"1,4-6\" or \"7-\" (default: from page 1, as many as fit)."},
                "render": {"type": "string", "enum": ["auto", "all", "none"], "default": "auto", "description": "Which pages of a PDF are drawn as PNG images (at most 4 per call): auto those without text (scans), all every page read, none no page."}
            }, "anyOf": [{"required": ["path"]}, {"required": ["paths"]}], "additionalProperties": false}),
            annotations(true, false, true),
        ),
        "filestore_glob" => (
            "Find files by glob pattern (*, ?, [abc], {a,b}, **), sorted by path. A pattern without '/' matches file names at any depth (*.rs finds every Rust file); otherwise it is relative to path unless it starts with '/'.",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.json or *.md."},
                "path": {"type": "string", "default": "/", "description": "Directory to search from (default /)."},
                "limit": {"type": "integer", "minimum": 1, "default": 1000, "description": "Most files to return."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to leave out, with everything beneath a matching directory (e.g. node_modules, target/**, *.min.js)."},
                "hidden": {"type": "boolean", "default": false, "description": "Include hidden files and directories (names starting with '.'); without it they match only a pattern that names them (.env, .github/**)."}
            }, "required": ["pattern"], "additionalProperties": false}),
            annotations(true, false, true),
        ),
        "filestore_grep" => (
            "Search file contents with a regular expression (Rust regex syntax, linear time) or a fixed string. Filter files with glob or type (rust, py, ts, json, md...). output_mode: files_with_matches (default), content (path:line:text with optional context), or count. Page with head_limit/offset: an offset past the last result is an error naming how many there are, as filestore_read's offset past the last line.",
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Regular expression, or literal text with fixed=true."},
                "path": {"type": "string", "default": "/", "description": "File or directory to search (default /)."},
                "glob": {"type": "string", "description": "Only files matching this glob (e.g. *.rs or src/**/*.ts)."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to leave out, with everything beneath a matching directory (e.g. node_modules, target/**, *.min.js)."},
                "type": {"type": "string", "description": "Only files of this type: rust, py, ts, js, json, md, go, java, c, cpp, yaml, toml, sh, html, css..."},
                "fixed": {"type": "boolean", "default": false, "description": "Treat pattern as a literal string."},
                "case_insensitive": {"type": "boolean", "default": false, "description": "Ignore case."},
                "multiline": {"type": "boolean", "default": false, "description": "Allow matches to span lines ('.' matches newline)."},
                "before": {"type": "integer", "minimum": 0, "default": 0, "description": "Context lines before each match (content mode)."},
                "after": {"type": "integer", "minimum": 0, "default": 0, "description": "Context lines after each match (content mode)."},
                "context": {"type": "integer", "minimum": 0, "default": 0, "description": "Context lines before and after each match (content mode)."},
                "output_mode": {"type": "string", "enum": ["files_with_matches", "content", "count"], "default": "files_with_matches", "description": "What to return."},
                "head_limit": {"type": "integer", "minimum": 1, "default": 250, "description": "Most records (files, lines or counts) per page."},
                "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Records to skip, to fetch the next page (next_offset); past the last record it is an error naming the count."},
                "hidden": {"type": "boolean", "default": false, "description": "Search hidden files and directories too (names starting with '.'); skipped otherwise unless glob names them."}
            }, "required": ["pattern"], "additionalProperties": false}),
            annotations(true, false, true),
        ),
        "filestore_tree" => (
            "Render the directory tree (directories first, ├── └── connectors), capped per folder with [N more files]. Good for getting oriented.",
            json!({"type": "object", "properties": {
                "path": {"type": "string", "default": "/", "description": "Root of the tree (default /)."},
                "max_depth": {"type": "integer", "minimum": 1, "default": 5, "description": "Deepest level shown."},
                "max_files_per_folder": {"type": "integer", "minimum": 0, "default": 3, "description": "Files shown per folder before summarising the rest."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to leave out, with everything beneath a matching directory (e.g. node_modules, target/**, *.min.js)."}
            }, "additionalProperties": false}),
            annotations(true, false, true),
        ),
        "filestore_write" => (
            "Create or replace a whole file with content (UTF-8 text, or bytes with encoding=base64); parent directories are created. create_only=true refuses to replace an existing file. Prefer filestore_edit for changes to existing files.",
            json!({"type": "object", "properties": {
                "path": path_prop("File to write."),
                "content": {"type": "string", "description": "The complete new content."},
                "create_only": {"type": "boolean", "default": false, "description": "Fail if the file already exists."},
                "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8", "description": "base64: content is the base64 of the file's bytes (binary files, uploads)."}
            }, "required": ["path", "content"], "additionalProperties": false}),
            annotations(false, true, true),
        ),
        "filestore_edit" => (
            "Replace exact text in a file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all=true. Or pass edits: [{old_string, new_string, replace_all}] applied in order, all or nothing. dry_run=true returns the unified diff without writing. CRLF files match LF text.",
            json!({"type": "object", "properties": {
                "path": path_prop("File to edit."),
                "old_string": {"type": "string", "description": "Exact text to replace (non-empty)."},
                "new_string": {"type": "string", "description": "Replacement text (must differ)."},
                "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence."},
                "edits": {"type": "array", "description": "Several edits applied in order, all or nothing.", "items": {
                    "type": "object", "properties": {
                        "old_string": {"type": "string"},
                        "new_string": {"type": "string"},
                        "replace_all": {"type": "boolean", "default": false}
                    }, "required": ["old_string", "new_string"], "additionalProperties": false}},
                "dry_run": {"type": "boolean", "default": false, "description": "Return the diff without writing."}
            }, "required": ["path"], "additionalProperties": false}),
            annotations(false, true, false),
        ),
        "filestore_mkdir" => (
            "Create a directory, and its missing parents; an existing directory is fine. An empty directory stays listed. (Writing a file creates its parent directories by itself.)",
            json!({"type": "object", "properties": {
                "path": path_prop("The directory to create.")
            }, "required": ["path"], "additionalProperties": false}),
            annotations(false, false, true),
        ),
        "filestore_delete" => (
            "Delete a file, or a directory (recursive=true when it is not empty). Links are deleted themselves, never their targets.",
            json!({"type": "object", "properties": {
                "path": path_prop("File or directory to delete."),
                "recursive": {"type": "boolean", "default": false, "description": "Delete a non-empty directory and everything in it."}
            }, "required": ["path"], "additionalProperties": false}),
            annotations(false, true, false),
        ),
        "filestore_move" => (
            "Move or rename a file or directory. overwrite=true replaces an existing destination file.",
            json!({"type": "object", "properties": {
                "source": path_prop("What to move."),
                "destination": path_prop("Where to move it."),
                "overwrite": {"type": "boolean", "default": false, "description": "Replace an existing destination file."}
            }, "required": ["source", "destination"], "additionalProperties": false}),
            annotations(false, true, false),
        ),
        "filestore_diff" => (
            "Show what changed in a copy-on-write mount (a workspace whose directory is not written until a person applies the changes): every added, modified, deleted and binary file, and the text changes as a unified diff in git's format. Nothing is applied by this tool.",
            json!({"type": "object", "properties": {
                "path": path_prop("A copy-on-write mount point, or a directory or file beneath it to limit the diff to (default: the one copy-on-write mount).")
            }, "additionalProperties": false}),
            annotations(true, false, true),
        ),
        _ => return None,
    };
    let mut ann = ann;
    ann["title"] = json!(title(name));
    Some(ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        input_schema: schema,
        annotations: ann,
        title: title(name).to_string(),
        output_schema: output_schema(name),
    })
}

/// Specs of the built-in tools; mutating tools only when `writable`. The shell's spec
/// is `crate::shell::spec` (offered only where a session enables it).
pub fn specs(writable: bool) -> Vec<ToolSpec> {
    let mut names: Vec<&str> = READ_TOOLS.to_vec();
    if writable {
        names.extend(WRITE_TOOLS);
    }
    names.into_iter().filter_map(spec).collect()
}

/// The MCP annotations of a tool.
pub fn annotations(read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": false
    })
}
