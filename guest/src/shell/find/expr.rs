//! A `find` expression and its evaluation on one entry, as GNU find evaluates it:
//! left to right, `-a` and `-o` short-circuiting, actions printing as they are
//! reached.

use globset::{GlobBuilder, GlobMatcher};

/// What kind of entry a node is (`-type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Dir,
    Link,
    /// A device, socket or pipe a directory volume lists (never opened).
    Other,
}

/// One entry as `find` sees it.
pub(crate) struct Node<'a> {
    /// The path printed: the starting point as given, then `/name` per level.
    pub(crate) display: &'a str,
    pub(crate) depth: usize,
    pub(crate) kind: Kind,
    pub(crate) size: u64,
    /// For a directory, whether it has no entries (known only when `-empty` is
    /// tested or the walk showed it); for a file, whether it is 0 bytes.
    pub(crate) empty: bool,
}

impl Node<'_> {
    /// The name `-name` tests: the last component, trailing slashes ignored (`/`
    /// for the root).
    fn name(&self) -> &str {
        let trimmed = self.display.trim_end_matches('/');
        if trimmed.is_empty() {
            return "/";
        }
        trimmed.rsplit('/').next().unwrap_or(trimmed)
    }
}

/// A comparison of `-size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Lt,
    Eq,
    Gt,
}

impl Cmp {
    fn test(self, v: u64, n: u64) -> bool {
        match self {
            Cmp::Lt => v < n,
            Cmp::Eq => v == n,
            Cmp::Gt => v > n,
        }
    }
}

/// The kinds of `-type` (`f`, `d`, `l`, or a comma list of them).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Kinds {
    file: bool,
    dir: bool,
    link: bool,
}

impl Kinds {
    /// `None` for a kind volumes never hold (`p`, `s`, `b`, `c`, `D`) or a bad
    /// argument: bashkit's find answers those.
    pub(crate) fn parse(arg: &str) -> Option<Kinds> {
        let mut k = Kinds::default();
        for part in arg.split(',') {
            match part {
                "f" => k.file = true,
                "d" => k.dir = true,
                "l" => k.link = true,
                _ => return None,
            }
        }
        Some(k)
    }

    fn has(self, kind: Kind) -> bool {
        match kind {
            Kind::File => self.file,
            Kind::Dir => self.dir,
            Kind::Link => self.link,
            Kind::Other => false,
        }
    }
}

/// A shell pattern of `-name`/`-path` as `fnmatch` without flags reads it (`*` and
/// `?` match `/` and a leading `.`), matched by globset.
#[derive(Debug)]
pub(crate) struct Glob(GlobMatcher);

impl Glob {
    /// `None` for a pattern globset would read differently and that is not simply
    /// translated (POSIX classes, a backslash inside brackets, an unclosed bracket,
    /// a trailing backslash).
    pub(crate) fn new(pattern: &str, nocase: bool) -> Option<Glob> {
        let translated = translate(pattern)?;
        let g = GlobBuilder::new(&translated)
            .literal_separator(false)
            .backslash_escape(true)
            .case_insensitive(nocase)
            .build()
            .ok()?;
        Some(Glob(g.compile_matcher()))
    }

    fn is_match(&self, s: &str) -> bool {
        self.0.is_match(s)
    }
}

/// `pattern` in globset's syntax with fnmatch's meaning: runs of `*` become one (in
/// globset `**` is a recursive wildcard), `{`, `}` and `,` are escaped (globset
/// alternation), brackets are copied when globset reads them as fnmatch does.
fn translate(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                out.push('*');
                while chars.get(i + 1) == Some(&'*') {
                    i += 1;
                }
            }
            '\\' => {
                out.push('\\');
                out.push(*chars.get(i + 1)?);
                i += 1;
            }
            '{' | '}' | ',' => {
                out.push('\\');
                out.push(chars[i]);
            }
            '[' => {
                let len = bracket(&chars[i..])?;
                out.extend(&chars[i..i + len]);
                i += len - 1;
            }
            c => out.push(c),
        }
        i += 1;
    }
    Some(out)
}

/// The length of the bracket expression at the start of `chars` when globset reads it
/// as fnmatch does: an optional `!`/`^`, a `]` first taken literally, then anything
/// but `\` and `[` up to the closing `]`.
fn bracket(chars: &[char]) -> Option<usize> {
    let mut i = 1;
    if matches!(chars.get(i), Some('!' | '^')) {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    loop {
        match chars.get(i)? {
            ']' => return Some(i + 1),
            '\\' | '[' => return None,
            _ => i += 1,
        }
    }
}

/// A parsed expression.
#[derive(Debug)]
pub(crate) enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Const(bool),
    Name(Glob),
    Path(Glob),
    Type(Kinds),
    Size { cmp: Cmp, n: u64, unit: u64 },
    Empty,
    Print { nul: bool },
    Prune,
    Quit,
}

/// What evaluating an entry did besides its truth value.
#[derive(Default)]
pub(crate) struct Effects {
    /// `-prune` was reached: a directory is not descended into.
    pub(crate) prune: bool,
    /// `-quit` was reached: nothing more is visited.
    pub(crate) quit: bool,
}

impl Expr {
    /// Evaluates `self` on `n`, printing into `out`. `None` once `-quit` is reached
    /// (GNU stops evaluating there).
    pub(crate) fn eval(&self, n: &Node<'_>, out: &mut Vec<u8>, fx: &mut Effects) -> Option<bool> {
        Some(match self {
            Expr::And(a, b) => a.eval(n, out, fx)? && b.eval(n, out, fx)?,
            Expr::Or(a, b) => a.eval(n, out, fx)? || b.eval(n, out, fx)?,
            Expr::Comma(a, b) => {
                a.eval(n, out, fx)?;
                b.eval(n, out, fx)?
            }
            Expr::Not(a) => !a.eval(n, out, fx)?,
            Expr::Const(v) => *v,
            Expr::Name(g) => g.is_match(n.name()),
            Expr::Path(g) => g.is_match(n.display),
            Expr::Type(k) => k.has(n.kind),
            Expr::Size { cmp, n: want, unit } => cmp.test(n.size.div_ceil(*unit), *want),
            Expr::Empty => match n.kind {
                Kind::Dir => n.empty,
                Kind::File => n.size == 0,
                _ => false,
            },
            Expr::Print { nul } => {
                out.extend_from_slice(n.display.as_bytes());
                out.push(if *nul { 0 } else { b'\n' });
                true
            }
            Expr::Prune => {
                fx.prune = true;
                true
            }
            Expr::Quit => {
                fx.quit = true;
                return None;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(display: &str) -> Node<'_> {
        Node { display, depth: 1, kind: Kind::File, size: 3, empty: false }
    }

    #[test]
    fn globs_match_as_fnmatch() {
        let g = |p: &str| Glob::new(p, false).unwrap();
        assert!(g("*.rs").is_match("main.rs"));
        assert!(!g("*.rs").is_match("main.rsx"));
        assert!(g("./**/x").is_match("./a/x"));
        assert!(!g("./**/x").is_match("./x"), "** is two stars, not a recursive wildcard");
        assert!(g("*/.git/*").is_match("./.git/config"));
        assert!(g("{a,b}").is_match("{a,b}"));
        assert!(!g("{a,b}").is_match("a"));
        assert!(g("[!a]?").is_match("bc"));
        assert!(g("[]x]").is_match("]"));
        assert!(g(r"\*").is_match("*"));
        assert!(Glob::new("*.TXT", true).unwrap().is_match("notes.txt"));
        for bad in ["[[:alpha:]]", "[a\\]]", "[abc", "x\\"] {
            assert!(Glob::new(bad, false).is_none(), "{bad}");
        }
    }

    #[test]
    fn names_are_the_last_component() {
        assert_eq!(node("./src/main.rs").name(), "main.rs");
        assert_eq!(node("src/").name(), "src");
        assert_eq!(node(".").name(), ".");
        assert_eq!(node("/").name(), "/");
    }

    #[test]
    fn evaluation_short_circuits_and_quit_stops() {
        let n = node("./a.txt");
        let mut out = Vec::new();
        let mut fx = Effects::default();
        let e = Expr::Or(Box::new(Expr::Print { nul: false }), Box::new(Expr::Print { nul: true }));
        assert_eq!(e.eval(&n, &mut out, &mut fx), Some(true));
        assert_eq!(out, b"./a.txt\n");
        let q = Expr::And(Box::new(Expr::Quit), Box::new(Expr::Print { nul: false }));
        assert_eq!(q.eval(&n, &mut out, &mut fx), None);
        assert!(fx.quit);
        assert_eq!(out, b"./a.txt\n");
        let size = Expr::Size { cmp: Cmp::Eq, n: 1, unit: 512 };
        assert_eq!(size.eval(&n, &mut out, &mut fx), Some(true), "3 bytes round up to 1 block");
    }
}
