//! Sizes the documentation states are sizes a test measures: each sentence that gives
//! the component's size (or the npm tarball's, checked where `node_host` packs it)
//! names what this build makes, to the precision it is written in.

use std::path::Path;

use crate::common::repo_root;

/// The megabytes (10^6 bytes) stated in `file` right after `before` (one decimal or
/// none, then ` MB`), with the precision the text gives them.
pub fn stated_mb(file: &Path, before: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(file).unwrap();
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at =
        text.find(before).unwrap_or_else(|| panic!("{} no longer says {before:?}", file.display()));
    let rest = &text[at + before.len()..];
    let number: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    assert!(
        rest[number.len()..].starts_with(" MB"),
        "{}: {before:?} is not followed by a size in MB: {:?}",
        file.display(),
        &rest[..rest.len().min(40)]
    );
    let precision = if number.contains('.') { 0.1 } else { 1.0 };
    (number.parse().unwrap(), precision)
}

/// `measured` bytes are what `file` states after `before`, within half a unit of the
/// last digit written (and a little over, so a few KB of new code do not fail it).
#[track_caller]
pub fn assert_stated(file: &Path, before: &str, measured: usize) {
    let (stated, precision) = stated_mb(file, before);
    let mb = measured as f64 / 1e6;
    assert!(
        (mb - stated).abs() <= precision * 0.5 + 0.1,
        "{} says {stated} MB after {before:?}; the build makes {mb:.2} MB: write what it measures",
        file.display()
    );
}

/// The component's size, wherever the docs state it.
#[test]
fn the_component_size_the_docs_state_is_the_built_one() {
    let root = repo_root();
    let measured = filestore::component().len();
    for (file, before) in [
        ("docs/architecture.md", "part of the component ("),
        ("docs/embedding.md", "Compiling the component ("),
        ("docs/shell.md", "of the component's "),
        ("BENCHMARKS.md", "| component size | "),
    ] {
        assert_stated(&root.join(file), before, measured);
    }
}
