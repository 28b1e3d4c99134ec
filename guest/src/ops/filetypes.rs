//! The file-type table behind grep's `type` filter
//! (docs/architecture.md#filestore_grep).
//!
//! A type is a name (`rust`, `py`, `ts`, ...) and a list of globs matched against the
//! file *name* only, in the manner of ripgrep's `--type`: `rust` is `*.rs`, `make` is
//! `Makefile`, `*.mk` and friends. Several names are aliases of one another (`md` and
//! `markdown`, `py` and `python`, `yaml` and `yml`, ...). Matching is case-sensitive,
//! like ripgrep's; where a format is commonly spelt both ways the table lists both.
//!
//! ```
//! use filestore_guest::ops::filetypes;
//! assert_eq!(filetypes::globs_for("rust"), Some(&["*.rs"][..]));
//! let m = filetypes::TypeMatcher::new("rust,toml").unwrap();
//! assert!(m.is_match("main.rs") && m.is_match("Cargo.toml") && !m.is_match("main.py"));
//! assert!(filetypes::TypeMatcher::new("cobol-ish").is_err());
//! ```

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};

const C: &[&str] = &["*.[chH]", "*.[chH].in", "*.cats"];
const CPP: &[&str] = &[
    "*.[ChH]",
    "*.cc",
    "*.[ch]pp",
    "*.[ch]xx",
    "*.hh",
    "*.inl",
    "*.c++",
    "*.h++",
    "*.ixx",
    "*.cppm",
    "*.[ChH].in",
    "*.cc.in",
    "*.[ch]pp.in",
    "*.[ch]xx.in",
    "*.hh.in",
];
const CS: &[&str] = &["*.cs", "*.csx"];
const DOCKERFILE: &[&str] =
    &["Dockerfile", "Dockerfile.*", "*.Dockerfile", "dockerfile", "*.dockerfile", "Containerfile"];
const JS: &[&str] = &["*.js", "*.jsx", "*.cjs", "*.mjs", "*.vue"];
const MAKE: &[&str] =
    &["[Mm]akefile", "GNUmakefile", "[Mm]akefile.am", "[Mm]akefile.in", "*.mk", "*.mak", "*.make"];
const MARKDOWN: &[&str] = &["*.md", "*.markdown", "*.mdown", "*.mdwn", "*.mkd", "*.mkdn", "*.mdx"];
const PYTHON: &[&str] = &["*.py", "*.pyi", "*.pyw"];
const RUBY: &[&str] =
    &["*.rb", "*.rbw", "*.gemspec", "*.rake", "Gemfile", "Rakefile", "config.ru", ".irbrc"];
const SH: &[&str] = &[
    "*.sh",
    "*.bash",
    "*.zsh",
    "*.ksh",
    "*.csh",
    "*.tcsh",
    "*.bashrc",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
];
const TS: &[&str] = &["*.ts", "*.tsx", "*.mts", "*.cts"];
const WIT: &[&str] = &["*.wit"];
const YAML: &[&str] = &["*.yaml", "*.yml"];

/// Every known type: `(name, globs)`, sorted by name. Globs match a file name.
#[rustfmt::skip]
pub const TYPES: &[(&str, &[&str])] = &[
    ("asm", &["*.asm", "*.s", "*.S"]),
    ("awk", &["*.awk"]),
    ("bazel", &["*.bazel", "*.bzl", "BUILD", "WORKSPACE", "MODULE.bazel"]),
    ("c", C),
    ("clojure", &["*.clj", "*.cljc", "*.cljs", "*.edn"]),
    ("cmake", &["*.cmake", "CMakeLists.txt"]),
    ("config", &["*.cfg", "*.conf", "*.config", "*.ini"]),
    ("cpp", CPP),
    ("cs", CS),
    ("csharp", CS),
    ("css", &["*.css", "*.scss"]),
    ("csv", &["*.csv", "*.tsv"]),
    ("cuda", &["*.cu", "*.cuh"]),
    ("dart", &["*.dart"]),
    ("diff", &["*.diff", "*.patch"]),
    ("docker", DOCKERFILE),
    ("dockerfile", DOCKERFILE),
    ("elixir", &["*.ex", "*.exs", "*.eex", "*.heex"]),
    ("elm", &["*.elm"]),
    ("erlang", &["*.erl", "*.hrl"]),
    ("fish", &["*.fish"]),
    ("fsharp", &["*.fs", "*.fsi", "*.fsx"]),
    ("go", &["*.go"]),
    ("gradle", &["*.gradle", "*.gradle.kts"]),
    ("graphql", &["*.graphql", "*.gql"]),
    ("groovy", &["*.groovy", "*.gradle"]),
    ("h", &["*.h", "*.hh", "*.hpp"]),
    ("haskell", &["*.hs", "*.lhs"]),
    ("hcl", &["*.hcl", "*.tf", "*.tfvars"]),
    ("html", &["*.htm", "*.html", "*.xhtml", "*.ejs"]),
    ("java", &["*.java", "*.jsp", "*.jspx", "*.properties"]),
    ("jinja", &["*.j2", "*.jinja", "*.jinja2"]),
    ("js", JS),
    ("json", &["*.json", "*.jsonc", "*.json5", "composer.lock", "*.sarif"]),
    ("jsonl", &["*.jsonl", "*.ndjson"]),
    ("julia", &["*.jl"]),
    ("jupyter", &["*.ipynb"]),
    ("kotlin", &["*.kt", "*.kts"]),
    ("less", &["*.less"]),
    ("lisp", &["*.lisp", "*.lsp", "*.el", "*.scm", "*.ss"]),
    ("lock", &["*.lock", "package-lock.json"]),
    ("log", &["*.log"]),
    ("lua", &["*.lua"]),
    ("make", MAKE),
    ("markdown", MARKDOWN),
    ("md", MARKDOWN),
    ("nix", &["*.nix"]),
    ("ocaml", &["*.ml", "*.mli", "*.mll", "*.mly"]),
    ("perl", &["*.pl", "*.pm", "*.t", "*.pod", "*.PL"]),
    ("php", &["*.php", "*.php3", "*.php4", "*.php5", "*.php7", "*.php8", "*.phtml"]),
    ("proto", &["*.proto"]),
    ("protobuf", &["*.proto"]),
    ("ps", &["*.ps1", "*.psm1", "*.psd1"]),
    ("py", PYTHON),
    ("python", PYTHON),
    ("r", &["*.R", "*.r", "*.Rmd", "*.Rnw"]),
    ("rb", RUBY),
    ("rst", &["*.rst"]),
    ("ruby", RUBY),
    ("rust", &["*.rs"]),
    ("sass", &["*.sass", "*.scss"]),
    ("scala", &["*.scala", "*.sc", "*.sbt"]),
    ("sh", SH),
    ("solidity", &["*.sol"]),
    ("sql", &["*.sql", "*.psql"]),
    ("svelte", &["*.svelte"]),
    ("svg", &["*.svg"]),
    ("swift", &["*.swift"]),
    ("tex", &["*.tex", "*.ltx", "*.cls", "*.sty", "*.bib"]),
    ("tf", &["*.tf", "*.tfvars", "*.tf.json"]),
    ("toml", &["*.toml", "Cargo.lock"]),
    ("ts", TS),
    ("txt", &["*.txt"]),
    ("typescript", TS),
    ("vim", &["*.vim", ".vimrc", "vimrc"]),
    ("vue", &["*.vue"]),
    ("wasm-wit", WIT),
    ("wat", &["*.wat", "*.wast"]),
    ("wit", WIT),
    ("xml", &[
        "*.xml", "*.xml.dist", "*.dtd", "*.xsd", "*.xsl", "*.xslt", "*.xjb", "*.rng", "*.sch",
        "*.xhtml", "*.plist", "*.csproj", "*.props", "*.targets",
    ]),
    ("yaml", YAML),
    ("yml", YAML),
    ("zig", &["*.zig", "*.zon"]),
];

/// The globs of the type called `name`, or `None` when there is no such type.
pub fn globs_for(name: &str) -> Option<&'static [&'static str]> {
    TYPES.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| TYPES[i].1)
}

/// Every type name, sorted.
pub fn names() -> impl Iterator<Item = &'static str> {
    TYPES.iter().map(|(n, _)| *n)
}

/// Whether `name` is a known type.
pub fn is_known(name: &str) -> bool {
    globs_for(name).is_some()
}

/// A compiled matcher for one or more types, tested against file names.
#[derive(Clone, Debug)]
pub struct TypeMatcher {
    names: Vec<&'static str>,
    set: GlobSet,
}

impl TypeMatcher {
    /// Compiles the types named in `spec`: one name, or several separated by commas
    /// (`"rust,toml"`; a file matches when it is of any of them).
    ///
    /// An unknown or empty name is `invalid-argument` (parameter `type`), listing every
    /// known type so the caller can correct it.
    pub fn new(spec: &str) -> Result<TypeMatcher> {
        let mut names: Vec<&'static str> = Vec::new();
        let mut builder = GlobSetBuilder::new();
        for raw in spec.split(',') {
            let name = raw.trim();
            let Some(i) = TYPES.iter().position(|(n, _)| *n == name) else {
                let shown =
                    if name.is_empty() { "(empty)".to_string() } else { format!("'{name}'") };
                return Err(Error::invalid_argument(
                    "type",
                    format!("unknown file type {shown}; known types: {}", names_joined()),
                ));
            };
            let (static_name, globs) = TYPES[i];
            if names.contains(&static_name) {
                continue;
            }
            names.push(static_name);
            for g in globs {
                // The table is tested to compile; a failure here is a bug in the table.
                let glob = GlobBuilder::new(g).literal_separator(true).build().map_err(|e| {
                    Error::invalid_argument(
                        "type",
                        format!("file type '{name}' has a bad glob: {e}"),
                    )
                })?;
                builder.add(glob);
            }
        }
        let set = builder.build().map_err(|e| {
            Error::invalid_argument("type", format!("cannot compile file types: {e}"))
        })?;
        Ok(TypeMatcher { names, set })
    }

    /// Whether a file called `file_name` (the last path component) has one of the types.
    pub fn is_match(&self, file_name: &str) -> bool {
        self.set.is_match(file_name)
    }

    /// The type names this matcher was built from, in the order given.
    pub fn names(&self) -> &[&'static str] {
        &self.names
    }
}

/// Every type name, comma-separated, for error messages.
fn names_joined() -> String {
    names().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn table_is_sorted_unique_and_compiles() {
        for w in TYPES.windows(2) {
            assert!(w[0].0 < w[1].0, "{} must sort before {}", w[0].0, w[1].0);
        }
        for (name, globs) in TYPES {
            assert!(!globs.is_empty(), "{name} has no globs");
            for g in *globs {
                assert!(!g.contains('/'), "{name}: glob {g} must match a file name");
                GlobBuilder::new(g).literal_separator(true).build().unwrap();
            }
            TypeMatcher::new(name).unwrap();
        }
    }

    #[test]
    fn required_types_exist() {
        for name in [
            "c",
            "cpp",
            "cs",
            "css",
            "go",
            "h",
            "html",
            "java",
            "js",
            "json",
            "jsonl",
            "kotlin",
            "lua",
            "make",
            "md",
            "markdown",
            "php",
            "py",
            "python",
            "rb",
            "ruby",
            "rust",
            "scala",
            "sh",
            "sql",
            "swift",
            "toml",
            "ts",
            "typescript",
            "txt",
            "xml",
            "yaml",
            "yml",
            "wasm-wit",
            "proto",
            "dockerfile",
        ] {
            assert!(is_known(name), "missing type {name}");
        }
        assert_eq!(names().count(), TYPES.len());
    }

    macro_rules! type_cases {
        ($($ty:expr => yes [$($y:expr),*] no [$($n:expr),*];)*) => {
            $(
                let m = TypeMatcher::new($ty).unwrap();
                $(assert!(m.is_match($y), "{} should match {}", $ty, $y);)*
                $(assert!(!m.is_match($n), "{} should not match {}", $ty, $n);)*
            )*
        };
    }

    #[test]
    fn matching_by_name() {
        type_cases! {
            "rust" => yes ["main.rs", ".hidden.rs"] no ["main.rs.bak", "rs", "main.py"];
            "ts" => yes ["a.ts", "a.tsx", "a.mts", "a.cts"] no ["a.js", "a.ts.map"];
            "typescript" => yes ["index.d.ts"] no ["x.tsv"];
            "make" => yes ["Makefile", "makefile", "GNUmakefile", "rules.mk", "Makefile.in"] no ["Makefile.bak", "make.rs"];
            "dockerfile" => yes ["Dockerfile", "build.dockerfile", "Dockerfile.dev"] no ["docker-compose.yml"];
            "md" => yes ["README.md", "x.markdown"] no ["x.mdl"];
            "markdown" => yes ["README.md"] no ["README"];
            "py" => yes ["a.py", "a.pyi"] no ["a.pyc"];
            "python" => yes ["a.py"] no ["a.pyc"];
            "c" => yes ["a.c", "a.h", "a.H"] no ["a.cc"];
            "cpp" => yes ["a.cpp", "a.hpp", "a.cc", "a.C"] no ["a.c"];
            "yaml" => yes ["a.yaml", "a.yml"] no ["a.yamlx"];
            "yml" => yes ["a.yaml", "a.yml"] no ["a.toml"];
            "toml" => yes ["Cargo.toml", "Cargo.lock"] no ["a.lock"];
            "json" => yes ["package.json", "composer.lock"] no ["a.jsonl"];
            "jsonl" => yes ["a.jsonl"] no ["a.json"];
            "wasm-wit" => yes ["world.wit"] no ["world.wat"];
            "proto" => yes ["api.proto"] no ["api.protobuf"];
            "rb" => yes ["Gemfile", "a.rb"] no ["a.rbx"];
            "sh" => yes ["run.sh", ".bashrc"] no ["sh"];
            "txt" => yes ["notes.txt"] no ["notes.text"];
        }
    }

    #[test]
    fn several_types_and_duplicates() {
        let m = TypeMatcher::new(" rust , toml,rust").unwrap();
        assert_eq!(m.names(), &["rust", "toml"]);
        assert!(m.is_match("a.rs") && m.is_match("a.toml") && !m.is_match("a.json"));
    }

    #[test]
    fn unknown_type_lists_known_types() {
        for spec in ["cobol-ish", "rust,nope", "", "rust,"] {
            let e = TypeMatcher::new(spec).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{spec}");
            let msg = e.to_string();
            assert!(msg.contains("parameter 'type'"), "{msg}");
            assert!(msg.contains("known types: asm, awk,"), "{msg}");
            assert!(msg.contains("rust") && msg.contains("yaml"), "{msg}");
        }
        let e = TypeMatcher::new("cobol-ish").unwrap_err();
        assert!(e.to_string().contains("unknown file type 'cobol-ish'"), "{e}");
    }

    #[test]
    fn globs_for_lookups() {
        assert_eq!(globs_for("rust"), Some(&["*.rs"][..]));
        assert_eq!(globs_for("md"), globs_for("markdown"));
        assert_eq!(globs_for("wit"), Some(&["*.wit"][..]));
        assert_eq!(globs_for("Rust"), None);
        assert_eq!(globs_for(""), None);
    }
}
