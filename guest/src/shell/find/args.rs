//! Which `find` command lines the walk runs: GNU find's expression parsed for the
//! tests and actions agents use, into an [`Expr`] with GNU's precedence (`( )`, then
//! `!`, then `-a` or juxtaposition, then `-o`, then `,`). Anything else (an action
//! that runs or writes something, `-printf`, time and permission tests, link
//! options, a malformed expression, whose GNU error bashkit's `find` prints) is
//! `None`, and bashkit's own `find` runs the line instead.

use super::expr::{Cmp, Expr, Glob, Kinds};

/// A `find` invocation the walk runs exactly.
#[derive(Debug)]
pub(crate) struct Plan {
    /// Starting points as given (`.` when none is).
    pub(crate) starts: Vec<String>,
    /// The expression, with GNU's implicit `-print` added when it has no action.
    pub(crate) expr: Expr,
    pub(crate) max_depth: Option<usize>,
    pub(crate) min_depth: usize,
    /// Whether `-empty` is tested (a directory's emptiness may then cost a listing).
    pub(crate) tests_empty: bool,
}

/// GNU's rule: the starting points end at the first word that begins with `-` (and is
/// more than `-`) or is an operator.
fn is_expr_start(arg: &str) -> bool {
    (arg.starts_with('-') && arg.len() > 1) || matches!(arg, "(" | ")" | "!" | ",")
}

/// The plan for `args`, or `None` when bashkit's find must run them.
pub(crate) fn plan(args: &[String]) -> Option<Plan> {
    let mut i = 0;
    // `-P` (never follow links) is what the sandbox does anyway.
    while args.get(i).is_some_and(|a| a == "-P") {
        i += 1;
    }
    let mut starts: Vec<String> = Vec::new();
    while i < args.len() && !is_expr_start(&args[i]) {
        starts.push(args[i].clone());
        i += 1;
    }
    if starts.is_empty() {
        starts.push(".".to_string());
    }
    let mut p = Parser {
        toks: &args[i..],
        pos: 0,
        max_depth: None,
        min_depth: 0,
        action: false,
        empty: false,
    };
    let expr = if p.toks.is_empty() {
        Expr::Print { nul: false }
    } else {
        let e = p.comma()?;
        if p.pos != p.toks.len() {
            return None;
        }
        if p.action { e } else { Expr::And(Box::new(e), Box::new(Expr::Print { nul: false })) }
    };
    Some(Plan {
        starts,
        expr,
        max_depth: p.max_depth,
        min_depth: p.min_depth,
        tests_empty: p.empty,
    })
}

struct Parser<'a> {
    toks: &'a [String],
    pos: usize,
    max_depth: Option<usize>,
    min_depth: usize,
    /// Whether an action (`-print`, `-print0`) was given: no implicit `-print` then.
    action: bool,
    empty: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }

    fn take(&mut self) -> Option<&str> {
        let t = self.toks.get(self.pos).map(String::as_str);
        self.pos += usize::from(t.is_some());
        t
    }

    fn at_operand_end(&self) -> bool {
        matches!(self.peek(), None | Some(")" | "," | "-o" | "-or" | "-a" | "-and"))
    }

    fn comma(&mut self) -> Option<Expr> {
        let mut left = self.or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            if self.at_operand_end() {
                return None;
            }
            left = Expr::Comma(Box::new(left), Box::new(self.or()?));
        }
        Some(left)
    }

    fn or(&mut self) -> Option<Expr> {
        let mut left = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.pos += 1;
            if self.at_operand_end() {
                return None;
            }
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Some(left)
    }

    fn and(&mut self) -> Option<Expr> {
        let mut left = self.unary()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => {
                    self.pos += 1;
                    if self.at_operand_end() {
                        return None;
                    }
                }
                None | Some(")" | "," | "-o" | "-or") => return Some(left),
                Some(_) => {}
            }
            left = Expr::And(Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Option<Expr> {
        let tok = self.take()?.to_string();
        match tok.as_str() {
            "!" | "-not" => {
                if self.at_operand_end() {
                    return None;
                }
                Some(Expr::Not(Box::new(self.unary()?)))
            }
            "(" => {
                if self.peek() == Some(")") {
                    return None;
                }
                let inner = self.comma()?;
                (self.take() == Some(")")).then_some(inner)
            }
            _ => self.primary(&tok),
        }
    }

    fn primary(&mut self, tok: &str) -> Option<Expr> {
        Some(match tok {
            "-name" | "-iname" => {
                let pat = self.take()?;
                // GNU warns that such a name never matches a base name; bashkit's
                // find says the same.
                if pat.contains('/') {
                    return None;
                }
                Expr::Name(Glob::new(pat, tok == "-iname")?)
            }
            "-path" | "-wholename" | "-ipath" | "-iwholename" => {
                Expr::Path(Glob::new(self.take()?, tok.starts_with("-i"))?)
            }
            "-type" => Expr::Type(Kinds::parse(self.take()?)?),
            "-size" => {
                let (cmp, n, unit) = size(self.take()?)?;
                Expr::Size { cmp, n, unit }
            }
            "-empty" => {
                self.empty = true;
                Expr::Empty
            }
            "-true" => Expr::Const(true),
            "-false" => Expr::Const(false),
            "-maxdepth" => {
                self.max_depth = Some(depth(self.take()?)?);
                Expr::Const(true)
            }
            "-mindepth" => {
                self.min_depth = depth(self.take()?)?;
                Expr::Const(true)
            }
            "-print" | "-print0" => {
                self.action = true;
                Expr::Print { nul: tok == "-print0" }
            }
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            _ => return None,
        })
    }
}

/// A `-maxdepth`/`-mindepth` argument: a plain decimal number.
fn depth(v: &str) -> Option<usize> {
    (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())).then(|| v.parse().ok()).flatten()
}

/// `-size [+-]N[cwbkMG]`: the comparison, N and the unit in bytes (512 when none).
fn size(arg: &str) -> Option<(Cmp, u64, u64)> {
    let (cmp, rest) = match arg.as_bytes().first() {
        Some(b'+') => (Cmp::Gt, &arg[1..]),
        Some(b'-') => (Cmp::Lt, &arg[1..]),
        _ => (Cmp::Eq, arg),
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let unit = match &rest[digits..] {
        "" | "b" => 512,
        "c" => 1,
        "w" => 2,
        "k" => 1024,
        "M" => 1024 * 1024,
        "G" => 1024 * 1024 * 1024,
        _ => return None,
    };
    let n = rest[..digits].parse().ok()?;
    Some((cmp, n, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn the_expressions_agents_write_are_planned() {
        let p = plan(&args(&["src", "lib", "-name", "*.rs", "-type", "f"])).unwrap();
        assert_eq!(p.starts, ["src", "lib"]);
        assert!(matches!(p.expr, Expr::And(..)));
        let p = plan(&args(&["-maxdepth", "2", "-mindepth", "1"])).unwrap();
        assert_eq!(
            (p.starts.as_slice(), p.max_depth, p.min_depth),
            (&[".".to_string()][..], Some(2), 1)
        );
        for a in [
            &[".", "-path", "./real", "-prune", "-o", "-type", "f", "-print"][..],
            &[".", "(", "-name", "*.md", "-o", "-name", "*.json", ")", "-print0"],
            &["!", "-empty", "-size", "+2k"],
            &[".", "-not", "-iname", "*.TXT", "-a", "-type", "d,f", "-quit"],
        ] {
            assert!(plan(&args(a)).is_some(), "{a:?}");
        }
    }

    #[test]
    fn what_the_walk_does_not_reproduce_is_left_to_bashkit() {
        for a in [
            &[".", "-exec", "echo", "{}", ";"][..],
            &[".", "-delete"],
            &[".", "-printf", "%p\n"],
            &[".", "-mtime", "-1"],
            &["-L", "."],
            &[".", "-type", "p"],
            &[".", "-name", "a/b"],
            &[".", "-name"],
            &[".", "(", "-name", "x"],
            &[".", "-o", "-name", "x"],
            &[".", "-name", "x", "extra"],
            &[".", "-size", "3q"],
            &[".", "-maxdepth", "+1"],
            &[".", "-name", "[[:alpha:]]*"],
            &[".", "-bogus"],
        ] {
            assert!(plan(&args(a)).is_none(), "{a:?}");
        }
    }

    #[test]
    fn sizes_are_parsed_as_gnu_does() {
        assert_eq!(size("+2k"), Some((Cmp::Gt, 2, 1024)));
        assert_eq!(size("-1M"), Some((Cmp::Lt, 1, 1 << 20)));
        assert_eq!(size("10"), Some((Cmp::Eq, 10, 512)));
        assert_eq!(size("5c"), Some((Cmp::Eq, 5, 1)));
        assert_eq!(size("k"), None);
        assert_eq!(size("3q"), None);
    }
}
