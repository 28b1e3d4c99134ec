//! The list of built-in tools, in the order the unknown-tool error names them (a
//! tool list groups them by kind, see [`super::specs`]). Long because it is a table:
//! each tool's description, schemas and annotations side by side, as the model reads
//! them, and its dispatch. The input schemas mirror the request types of the
//! operation modules; a test checks that every schema property decodes.

use serde_json::json;

use super::{Builtin, DIFF_TOOL, Kind, SHELL_TOOL, ToolOutput, output, serialising};
use crate::ops::builtin::{annotations, entry_schema, mutation_schema, path_prop};
use crate::ops::ls::{self, LsRequest};
use crate::ops::request::decode;
use crate::ops::{diff, edit, glob, grep, mutate, read, tree};

/// The built-in tools.
pub static BUILTINS: &[Builtin] = &[
    Builtin {
        name: "filestore_ls",
        title: "List directory",
        kind: Kind::Read,
        description: || {
            "List a directory: names, `name/` for directories; directories first, then files, by name. details=true adds size, modified time, estimated tokens and type per entry. depth>1 nests children. A missing path is an error (not an empty list).".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": {"type": "string", "default": "/", "description": "Directory to list (default /)."},
                "depth": {"type": "integer", "minimum": 1, "default": 1, "description": "Levels to descend; 1 lists direct children."},
                "limit": {"type": "integer", "minimum": 1, "maximum": crate::vfs::limits::MAX_LIST_LIMIT, "default": 1000, "description": "Most entries in total."},
                "sort_by": {"type": "string", "enum": ["name", "size", "modified"], "default": "name", "description": "Order within each directory (directories first): name, size (largest first) or modified (newest first)."},
                "details": {"type": "boolean", "default": false, "description": "Include size, modified time, estimated tokens, type and read-only flag per entry."}
            }, "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["path", "entries", "truncated"], "properties": {
                "path": {"type": "string"}, "entries": {"type": "array", "items": {"type": "object"}},
                "truncated": {"type": "boolean"}
            }})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            let req: LsRequest = decode(tool, args)?;
            let r = ls::ls(s.mounts(), &req)?;
            if req.details {
                output(&r, ls::render(&r))
            } else {
                let (json, text) = ls::lean(&r);
                Ok(ToolOutput { json, text })
            }
        },
    },
    Builtin {
        name: "filestore_read",
        title: "Read file",
        kind: Kind::Read,
        description: || {
            "Read a text file by lines, numbered like `cat -n`. Use offset/limit to page through large files (the result says which offset continues). Long lines are cut at 2000 characters; binary files are reported, not dumped. A PDF returns its pages' text (pages selects them, e.g. \"2-5\"); a page without text (a scan) comes as a PNG image, and render=\"all\" draws every page read (diagrams, figures). raw=true returns stored content untouched (e.g. JSON tool results). paths reads several files at once, each with its own result or error.".into()
        },
        input_schema: || {
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
            }, "anyOf": [{"required": ["path"]}, {"required": ["paths"]}], "additionalProperties": false})
        },
        // One file, or several with `paths` (each a read result or an error).
        output_schema: || {
            json!({"type": "object", "properties": {
                "entry": entry_schema(), "content": {"type": "string"}, "text": {"type": "string"},
                "total_lines": {"type": "integer"}, "start_line": {"type": "integer"},
                "end_line": {"type": "integer"}, "next_offset": {"type": "integer"},
                "byte_offset": {"type": "integer"}, "bytes": {"type": "integer"},
                "next_byte_offset": {"type": "integer"}, "ends_with_newline": {"type": "boolean"},
                "truncated": {"type": "boolean"}, "truncated_by": {"type": "string"},
                "cut_lines": {"type": "integer"}, "lossy_lines": {"type": "integer"},
                "activation": {"type": "object"}, "pdf": {"type": "object"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path"]}}
            }, "anyOf": [{"required": ["entry", "content", "text"]}, {"required": ["files"]}]})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            if args.get("paths").is_some() {
                return s.read_many(args);
            }
            let (r, activation) = s.read_tool(&decode(tool, args)?)?;
            let mut text = read::render(&r);
            let mut out = serde_json::to_value(&r).map_err(serialising)?;
            if let Some(act) = activation {
                text.push_str(&crate::skills::active::render_activation(&act));
                out["activation"] = serde_json::to_value(&act).unwrap_or_default();
            }
            Ok(ToolOutput { json: out, text })
        },
    },
    Builtin {
        name: "filestore_glob",
        title: "Find files by pattern",
        kind: Kind::Read,
        description: || {
            "Find files by glob pattern (*, ?, [abc], {a,b}, **), sorted by path. A pattern without '/' matches file names at any depth (*.rs finds every Rust file); otherwise it is relative to path unless it starts with '/'.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "pattern": {"type": "string", "description": "Glob pattern, e.g. **/*.json or *.md."},
                "path": {"type": "string", "default": "/", "description": "Directory to search from (default /)."},
                "limit": {"type": "integer", "minimum": 1, "default": 1000, "description": "Most files to return."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to leave out, with everything beneath a matching directory (e.g. node_modules, target/**, *.min.js)."},
                "hidden": {"type": "boolean", "default": false, "description": "Include hidden files and directories (names starting with '.'); without it they match only a pattern that names them (.env, .github/**)."}
            }, "required": ["pattern"], "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["pattern", "path", "files", "total_matches", "truncated"], "properties": {
                "pattern": {"type": "string"}, "path": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path"]}},
                "total_matches": {"type": "integer"}, "truncated": {"type": "boolean"},
                "walk_truncated": {"type": "boolean"}
            }})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            let r = glob::glob(s.mounts(), s.limits(), &decode(tool, args)?)?;
            output(&r, glob::render(&r))
        },
    },
    Builtin {
        name: "filestore_grep",
        title: "Search file contents",
        kind: Kind::Read,
        description: || {
            "Search file contents with a regular expression (Rust regex syntax, linear time) or a fixed string. Filter files with glob or type (rust, py, ts, json, md...). output_mode: files_with_matches (default), content (path:line:text with optional context), or count. Page with head_limit/offset: an offset past the last result is an error naming how many there are, as filestore_read's offset past the last line.".into()
        },
        input_schema: || {
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
            }, "required": ["pattern"], "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["pattern", "path", "output_mode", "offset", "truncated"], "properties": {
                "pattern": {"type": "string"}, "path": {"type": "string"}, "output_mode": {"type": "string"},
                "files": {"type": "array", "items": {"type": "string"}},
                "lines": {"type": "array", "items": {"type": "object"}},
                "counts": {"type": "array", "items": {"type": "object"}},
                "total_matches": {"type": "integer"}, "offset": {"type": "integer"},
                "truncated": {"type": "boolean"}, "next_offset": {"type": "integer"},
                "total_records": {"type": "integer"}
            }})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            let r = grep::grep(s.mounts(), s.limits(), &decode(tool, args)?)?;
            output(&r, grep::render(&r))
        },
    },
    Builtin {
        name: "filestore_tree",
        title: "Directory tree",
        kind: Kind::Read,
        description: || {
            "Render the directory tree (directories first, ├── └── connectors), capped per folder with [N more files]. Good for getting oriented.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": {"type": "string", "default": "/", "description": "Root of the tree (default /)."},
                "max_depth": {"type": "integer", "minimum": 1, "default": 5, "description": "Deepest level shown."},
                "max_files_per_folder": {"type": "integer", "minimum": 0, "default": 3, "description": "Files shown per folder before summarising the rest."},
                "exclude": {"type": "array", "items": {"type": "string"}, "description": "Globs to leave out, with everything beneath a matching directory (e.g. node_modules, target/**, *.min.js)."}
            }, "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["path", "tree", "truncated"], "properties": {
                "path": {"type": "string"}, "tree": {"type": "string"}, "truncated": {"type": "boolean"}
            }})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            let r = tree::tree(s.mounts(), s.limits(), &decode(tool, args)?)?;
            let text = r.tree.clone();
            output(&r, text)
        },
    },
    Builtin {
        name: "filestore_write",
        title: "Write file",
        kind: Kind::Write,
        description: || {
            "Create or replace a whole file with content (UTF-8 text, or bytes with encoding=base64); parent directories are created. create_only=true refuses to replace an existing file. Prefer filestore_edit for changes to existing files.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": path_prop("File to write."),
                "content": {"type": "string", "description": "The complete new content."},
                "create_only": {"type": "boolean", "default": false, "description": "Fail if the file already exists."},
                "encoding": {"type": "string", "enum": ["utf-8", "base64"], "default": "utf-8", "description": "base64: content is the base64 of the file's bytes (binary files, uploads)."}
            }, "required": ["path", "content"], "additionalProperties": false})
        },
        output_schema: mutation_schema,
        annotations: |_| annotations(false, true, true),
        run: |s, tool, args| {
            let r = mutate::write(s.mounts(), s.limits(), &decode(tool, args)?)?;
            let text = r.message.clone();
            output(&r, text)
        },
    },
    Builtin {
        name: "filestore_edit",
        title: "Edit file",
        kind: Kind::Write,
        description: || {
            "Replace exact text in a file. old_string must occur exactly once (include surrounding lines to make it unique) unless replace_all=true. Or pass edits: [{old_string, new_string, replace_all}] applied in order, all or nothing. dry_run=true returns the unified diff without writing. CRLF files match LF text.".into()
        },
        input_schema: || {
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
            }, "required": ["path"], "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["entry", "replacements", "diff", "written"], "properties": {
                "entry": entry_schema(), "replacements": {"type": "integer"}, "diff": {"type": "string"},
                "diff_note": {"type": "string"}, "written": {"type": "boolean"}
            }})
        },
        annotations: |_| annotations(false, true, false),
        run: |s, tool, args| {
            let r = edit::edit(s.mounts(), s.limits(), &decode(tool, args)?)?;
            output(&r, edit::render(&r))
        },
    },
    Builtin {
        name: "filestore_mkdir",
        title: "Create directory",
        kind: Kind::Write,
        description: || {
            "Create a directory, and its missing parents; an existing directory is fine. An empty directory stays listed. (Writing a file creates its parent directories by itself.)".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": path_prop("The directory to create.")
            }, "required": ["path"], "additionalProperties": false})
        },
        output_schema: mutation_schema,
        annotations: |_| annotations(false, false, true),
        run: |s, tool, args| {
            let r = mutate::mkdir(s.mounts(), &decode(tool, args)?)?;
            let text = r.message.clone();
            output(&r, text)
        },
    },
    Builtin {
        name: "filestore_delete",
        title: "Delete",
        kind: Kind::Write,
        description: || {
            "Delete a file, or a directory (recursive=true when it is not empty). Links are deleted themselves, never their targets.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": path_prop("File or directory to delete."),
                "recursive": {"type": "boolean", "default": false, "description": "Delete a non-empty directory and everything in it."}
            }, "required": ["path"], "additionalProperties": false})
        },
        output_schema: mutation_schema,
        annotations: |_| annotations(false, true, false),
        run: |s, tool, args| {
            let r = s.delete(&decode(tool, args)?)?;
            let text = r.message.clone();
            output(&r, text)
        },
    },
    Builtin {
        name: "filestore_move",
        title: "Move or rename",
        kind: Kind::Write,
        description: || {
            "Move or rename a file or directory. overwrite=true replaces an existing destination file.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "source": path_prop("What to move."),
                "destination": path_prop("Where to move it."),
                "overwrite": {"type": "boolean", "default": false, "description": "Replace an existing destination file."}
            }, "required": ["source", "destination"], "additionalProperties": false})
        },
        output_schema: mutation_schema,
        annotations: |_| annotations(false, true, false),
        run: |s, tool, args| {
            let r = s.move_entry(&decode(tool, args)?)?;
            let text = r.message.clone();
            output(&r, text)
        },
    },
    Builtin {
        name: SHELL_TOOL,
        title: "Run shell command",
        kind: Kind::Shell,
        description: || {
            use crate::shell::limits::{DEFAULT_TIMEOUT_MS, MAX_INLINE_BYTES, MAX_TIMEOUT_MS};
            format!(
                "Run a bash command line over the mounted files, inside the sandbox: no process is spawned, the commands are built in (cat head tail wc grep rg find ls tree sed awk sort uniq cut tr xargs diff jq echo printf mkdir rm mv cp touch tee basename dirname realpath stat du test seq env and more). Pipes, redirections, heredocs, && || ;, subshells, $( ), variables, globs, if/for/while/case and functions work. Paths are the virtual paths of the other tools; each call is a fresh shell starting in cwd (default: the first writable mount), so cd and variables do not carry over. Output over {MAX_INLINE_BYTES} bytes per stream is cut, the whole of it stored under /tool_calls. timeout_ms defaults to {DEFAULT_TIMEOUT_MS} (at most {MAX_TIMEOUT_MS}); a runaway loop or a huge write ends with error limit-exceeded naming the limit."
            )
        },
        input_schema: || {
            use crate::shell::limits::{DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
            json!({"type": "object", "properties": {
                "command": {"type": "string", "description": "The command line (bash syntax; several lines allowed)."},
                "cwd": {"type": "string", "description": "Directory to start in, a virtual path such as /workspace/src (default: the first writable mount)."},
                "timeout_ms": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_MS, "default": DEFAULT_TIMEOUT_MS, "description": "Wall-time limit of the command in milliseconds."},
                "stdin": {"type": "string", "description": "Text the command reads on standard input."},
                "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables for this command."}
            }, "required": ["command"], "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["stdout", "stderr", "exit_code", "truncated", "duration_ms"], "properties": {
                "stdout": {"type": "string"}, "stderr": {"type": "string"},
                "exit_code": {"type": "integer"}, "truncated": {"type": "boolean"},
                "duration_ms": {"type": "integer"}, "output_path": {"type": "string"},
                "activations": {"type": "array", "items": {"type": "object"}}
            }})
        },
        // Honest about the session: with a writable mount a command can delete
        // and overwrite; without one it only reads.
        annotations: |writable| annotations(!writable, writable, false),
        run: |s, tool, args| {
            let r = s.execute(&decode(tool, args)?)?;
            output(&r, crate::shell::render(&r))
        },
    },
    Builtin {
        name: DIFF_TOOL,
        title: "Changes of a copy-on-write mount",
        kind: Kind::Diff,
        description: || {
            "Show what changed in a copy-on-write mount (a workspace whose directory is not written until a person applies the changes): every added, modified, deleted and binary file, and the text changes as a unified diff in git's format. Nothing is applied by this tool.".into()
        },
        input_schema: || {
            json!({"type": "object", "properties": {
                "path": path_prop("A copy-on-write mount point, or a directory or file beneath it to limit the diff to (default: the one copy-on-write mount).")
            }, "additionalProperties": false})
        },
        output_schema: || {
            json!({"type": "object", "required": ["mount", "path", "files", "patch"], "properties": {
                "mount": {"type": "string"}, "path": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object", "required": ["path", "status", "binary"]}},
                "patch": {"type": "string"}
            }})
        },
        annotations: |_| annotations(true, false, true),
        run: |s, tool, args| {
            let r = diff::diff(s.mounts().cows(), &decode(tool, args)?)?;
            output(&r, diff::render(&r))
        },
    },
];
