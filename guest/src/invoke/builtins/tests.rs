use std::collections::HashSet;

use serde_json::json;

use super::*;
use crate::session::Session;
use crate::vfs::limits::Limits;
use crate::vfs::memory::MemoryVolume;

/// Every entry has its own name and a whole spec: a title, a description, an input
/// schema of named parameters that refuses others, and an output schema.
#[test]
fn every_entry_is_named_once_and_fully_specified() {
    let mut seen = HashSet::new();
    for b in BUILTINS {
        assert!(seen.insert(b.name), "two entries are named {}", b.name);
        assert!(b.name.starts_with("filestore_"), "{}", b.name);
        let spec = b.spec(true);
        assert!(!spec.title.is_empty(), "{}: no title", b.name);
        assert!(!spec.description.is_empty(), "{}: no description", b.name);
        assert_eq!(spec.input_schema["type"], "object", "{}: input schema", b.name);
        assert!(spec.input_schema["properties"].is_object(), "{}: no parameters", b.name);
        assert_eq!(spec.input_schema["additionalProperties"], false, "{}", b.name);
        assert_eq!(spec.output_schema["type"], "object", "{}: output schema", b.name);
        assert_eq!(spec.annotations["title"], b.title, "{}", b.name);
        assert!(spec.annotations["readOnlyHint"].is_boolean(), "{}: annotations", b.name);
    }
    assert_eq!(BUILTINS.len(), 12);
}

/// Each entry's dispatch decodes the arguments into its own tool's request: an
/// undeclared parameter is refused naming it, never answered as an unknown tool or
/// run as another tool.
#[test]
fn every_entry_dispatches_to_its_tool() {
    let mut s = Session::new(Limits::default());
    s.mount("/w", Box::new(MemoryVolume::new()), 0, false).unwrap();
    s.enable_shell(true);
    for b in BUILTINS {
        let e = (b.run)(&s, b.name, &json!({"no_such_parameter": 1})).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{}: {e}", b.name);
        assert!(e.message().contains("no_such_parameter"), "{}: {e}", b.name);
        let via_name = run(&s, b.name, &json!({"no_such_parameter": 1})).unwrap_err();
        assert_eq!(via_name.message(), e.message(), "{}", b.name);
    }
}

/// A session lists the reads, then the writes, the diff and the shell, each only
/// when it is offered.
#[test]
fn specs_follow_the_kinds_offered() {
    let names = |w, sh, cow| specs(w, sh, cow).into_iter().map(|s| s.name).collect::<Vec<_>>();
    let reads =
        ["filestore_ls", "filestore_read", "filestore_glob", "filestore_grep", "filestore_tree"];
    let writes = [
        "filestore_write",
        "filestore_edit",
        "filestore_mkdir",
        "filestore_delete",
        "filestore_move",
    ];
    assert_eq!(names(false, false, false), reads);
    assert_eq!(names(true, false, false), [&reads[..], &writes[..]].concat());
    assert_eq!(
        names(true, true, true),
        [&reads[..], &writes[..], &["filestore_diff", "filestore_execute"]].concat()
    );
    assert_eq!(names(false, true, false), [&reads[..], &["filestore_execute"]].concat());
    // The shell's annotations follow the session's mounts.
    let shell = |w| find(SHELL_TOOL).unwrap().spec(w).annotations;
    assert_eq!(
        (shell(true)["readOnlyHint"].clone(), shell(true)["destructiveHint"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(shell(false)["readOnlyHint"], true);
    assert!(is_builtin(DIFF_TOOL) && is_builtin(SHELL_TOOL) && !is_builtin("filestore_nope"));
    assert_eq!(kind("filestore_move"), Some(Kind::Write));
}

/// A name that is no built-in is `not-found`, naming every built-in.
#[test]
fn an_unknown_tool_names_the_tools() {
    let s = Session::new(Limits::default());
    let e = run(&s, "filestore_nope", &json!({})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(
        e.message(),
        "unknown tool 'filestore_nope'; the filestore tools are filestore_ls, filestore_read, filestore_glob, filestore_grep, filestore_tree, filestore_write, filestore_edit, filestore_mkdir, filestore_delete, filestore_move, filestore_execute, filestore_diff"
    );
}
