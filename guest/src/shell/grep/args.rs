//! Which `grep` command lines the guest's engine runs, and how: GNU grep's options
//! parsed getopt style for the subset agents use, and the pattern translated to the
//! `regex` crate's syntax only where both mean exactly the same thing. Anything else
//! (an option outside the subset, a pattern whose meaning could differ) is `None`,
//! and bashkit's own `grep` runs the line instead.

/// A `grep` invocation the engine runs exactly.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Plan {
    /// The pattern in `regex` syntax (translated, combined, anchored for `-x`/`-w`).
    pub(crate) regex: String,
    pub(crate) ignore_case: bool,
    pub(crate) invert: bool,
    pub(crate) line_numbers: bool,
    pub(crate) count: bool,
    pub(crate) files_with_matches: bool,
    pub(crate) only_matching: bool,
    pub(crate) quiet: bool,
    pub(crate) suppress_errors: bool,
    pub(crate) recursive: bool,
    /// `-H` (true) / `-h` (false), the last given; `None`: GNU's default.
    pub(crate) with_filename: Option<bool>,
    pub(crate) before: usize,
    pub(crate) after: usize,
    /// Whether any context option was given (GNU then separates groups with `--`).
    pub(crate) context_given: bool,
    /// `--include`/`--exclude` globs in the order given (true: include).
    pub(crate) filters: Vec<(bool, String)>,
    pub(crate) exclude_dirs: Vec<String>,
    pub(crate) operands: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, Default)]
enum Syntax {
    #[default]
    Basic,
    Extended,
    Fixed,
}

/// Long options the engine handles, each with whether it takes an argument.
const LONG: &[(&str, bool)] = &[
    ("recursive", false),
    ("line-number", false),
    ("ignore-case", false),
    ("count", false),
    ("files-with-matches", false),
    ("word-regexp", false),
    ("line-regexp", false),
    ("fixed-strings", false),
    ("extended-regexp", false),
    ("basic-regexp", false),
    ("invert-match", false),
    ("only-matching", false),
    ("no-filename", false),
    ("with-filename", false),
    ("quiet", false),
    ("silent", false),
    ("no-messages", false),
    ("include", true),
    ("exclude", true),
    ("exclude-dir", true),
    ("regexp", true),
    ("after-context", true),
    ("before-context", true),
    ("context", true),
];

/// Short options, each as the long option it is (`-NUM` aside: see
/// [`Options::short_cluster`]).
const SHORT: &[(char, &str)] = &[
    ('r', "recursive"),
    ('n', "line-number"),
    ('i', "ignore-case"),
    ('y', "ignore-case"),
    ('c', "count"),
    ('l', "files-with-matches"),
    ('w', "word-regexp"),
    ('x', "line-regexp"),
    ('F', "fixed-strings"),
    ('E', "extended-regexp"),
    ('G', "basic-regexp"),
    ('v', "invert-match"),
    ('o', "only-matching"),
    ('h', "no-filename"),
    ('H', "with-filename"),
    ('q', "quiet"),
    ('s', "no-messages"),
    ('e', "regexp"),
    ('A', "after-context"),
    ('B', "before-context"),
    ('C', "context"),
];

/// The plan for `args`, or `None` when bashkit's grep must run them.
pub(crate) fn plan(args: &[String]) -> Option<Plan> {
    let mut o = Options::parse(args)?;
    if o.patterns.is_empty() {
        if o.positional.is_empty() {
            return None;
        }
        o.patterns.push(o.positional.remove(0));
    }
    let mut p = std::mem::take(&mut o.plan);
    p.operands = std::mem::take(&mut o.positional);
    p.before = o.before.or(o.context).unwrap_or(0);
    p.after = o.after.or(o.context).unwrap_or(0);
    p.context_given = o.before.is_some() || o.after.is_some() || o.context.is_some();

    // Combinations whose GNU output has subtleties the engine does not reproduce.
    let modes = [p.count, p.files_with_matches, p.quiet].iter().filter(|m| **m).count();
    if modes > 1 || (p.only_matching && (p.invert || p.context_given)) {
        return None;
    }
    p.regex = o.regex(p.ignore_case, p.only_matching)?;
    Some(p)
}

/// What a command line says, before its patterns are translated.
#[derive(Default)]
struct Options {
    /// The flags and lists that go into the plan as they are.
    plan: Plan,
    syntax: Syntax,
    word: bool,
    line: bool,
    patterns: Vec<String>,
    before: Option<usize>,
    after: Option<usize>,
    context: Option<usize>,
    positional: Vec<String>,
}

impl Options {
    /// `None` for an option outside the subset or a value the engine does not take.
    fn parse(args: &[String]) -> Option<Options> {
        let mut o = Options::default();
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            i += 1;
            if a == "--" {
                o.positional.extend(args[i..].iter().cloned());
                break;
            }
            if let Some(long) = a.strip_prefix("--") {
                let (name, value) = long_option(long, args, &mut i)?;
                o.apply(name, value)?;
            } else if a.len() < 2 || !a.starts_with('-') {
                o.positional.push(a.clone());
            } else {
                o.short_cluster(&a[1..], args, &mut i)?;
            }
        }
        Some(o)
    }

    /// A cluster of short options: `-rn`, `-A2`, `-e PAT`, `-5`. An option taking a
    /// value takes the rest of the cluster, or else the next argument (`args[*i]`).
    fn short_cluster(&mut self, cluster: &str, args: &[String], i: &mut usize) -> Option<()> {
        let chars: Vec<char> = cluster.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            if c.is_ascii_digit() {
                // `-NUM` is `-C NUM`; the digits run to the end of the cluster.
                let digits: String =
                    chars[j - 1..].iter().take_while(|c| c.is_ascii_digit()).collect();
                j += digits.len() - 1;
                self.apply("context", Some(digits))?;
                continue;
            }
            let &(_, name) = SHORT.iter().find(|(s, _)| *s == c)?;
            let takes = LONG.iter().any(|&(n, takes)| n == name && takes);
            let value = if !takes {
                None
            } else if j < chars.len() {
                let v = chars[j..].iter().collect();
                j = chars.len();
                Some(v)
            } else {
                *i += 1;
                Some(args.get(*i - 1)?.clone())
            };
            self.apply(name, value)?;
        }
        Some(())
    }

    /// Records the long option `name` (with its value, if it takes one).
    fn apply(&mut self, name: &str, value: Option<String>) -> Option<()> {
        let p = &mut self.plan;
        match (name, value) {
            ("recursive", _) => p.recursive = true,
            ("line-number", _) => p.line_numbers = true,
            ("ignore-case", _) => p.ignore_case = true,
            ("count", _) => p.count = true,
            ("files-with-matches", _) => p.files_with_matches = true,
            ("word-regexp", _) => self.word = true,
            ("line-regexp", _) => self.line = true,
            ("fixed-strings", _) => self.syntax = Syntax::Fixed,
            ("extended-regexp", _) => self.syntax = Syntax::Extended,
            ("basic-regexp", _) => self.syntax = Syntax::Basic,
            ("invert-match", _) => p.invert = true,
            ("only-matching", _) => p.only_matching = true,
            ("no-filename", _) => p.with_filename = Some(false),
            ("with-filename", _) => p.with_filename = Some(true),
            ("quiet" | "silent", _) => p.quiet = true,
            ("no-messages", _) => p.suppress_errors = true,
            ("include", Some(g)) => p.filters.push((true, simple_glob(g)?)),
            ("exclude", Some(g)) => p.filters.push((false, simple_glob(g)?)),
            ("exclude-dir", Some(g)) => p.exclude_dirs.push(simple_glob(g)?),
            ("regexp", Some(e)) => self.patterns.push(e),
            ("after-context", Some(n)) => self.after = Some(number(&n)?),
            ("before-context", Some(n)) => self.before = Some(number(&n)?),
            ("context", Some(n)) => self.context = Some(number(&n)?),
            _ => return None,
        }
        Some(())
    }

    /// The patterns as one `regex` pattern, or `None` where its matches could differ
    /// from GNU's.
    fn regex(&self, ignore_case: bool, only_matching: bool) -> Option<String> {
        let (syntax, word) = (self.syntax, self.word);
        // `-e a -e b` is one pattern per line of each; an empty one matches every line.
        let lines: Vec<&str> = self.patterns.iter().flat_map(|s| s.split('\n')).collect();
        if lines.iter().any(|l| l.is_empty()) {
            return None;
        }
        let mut alternatives = Vec::new();
        for l in &lines {
            let t = translate(l, syntax)?;
            if ignore_case && !l.is_ascii() {
                return None;
            }
            if word {
                // Exact for a literal with word characters at both ends: GNU's
                // "shorter match, then the next start" search finds the same lines.
                let literal = syntax == Syntax::Fixed || !l.chars().any(is_meta);
                let ends =
                    l.chars().next().is_some_and(is_word) && l.chars().last().is_some_and(is_word);
                if !literal || !ends {
                    return None;
                }
            }
            // `-o` prints the leftmost-longest match; the `regex` crate's is
            // leftmost-first. They agree when every match has one length.
            if only_matching && (lines.len() > 1 || !fixed_length(l, syntax)) {
                return None;
            }
            alternatives.push(t);
        }
        let body = alternatives.iter().map(|t| format!("(?:{t})")).collect::<Vec<_>>().join("|");
        Some(if self.line {
            format!("^(?:{body})$")
        } else if word {
            format!(r"\b(?:{body})\b")
        } else {
            body
        })
    }
}

/// A long option (`name` or `name=value`) the engine handles, with its value: the
/// inline one or else the next argument (`args[*i]`). `None` for another option.
fn long_option(
    long: &str,
    args: &[String],
    i: &mut usize,
) -> Option<(&'static str, Option<String>)> {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    // Exact names only: GNU's unique prefixes are left to bashkit's grep.
    let &(name, takes) = LONG.iter().find(|(n, _)| *n == name)?;
    let value = match (takes, inline) {
        (true, Some(v)) => Some(v),
        (true, None) => {
            *i += 1;
            Some(args.get(*i - 1)?.clone())
        }
        (false, Some(_)) => return None,
        (false, None) => None,
    };
    Some((name, value))
}

fn number(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A glob the engine matches as GNU does (`*`, `?` and literal characters, no `/`),
/// else `None`.
fn simple_glob(g: String) -> Option<String> {
    (!g.is_empty() && !g.contains(['/', '[', ']', '\\', '{'])).then_some(g)
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Characters that are special in GNU BRE or ERE or in `regex`.
fn is_meta(c: char) -> bool {
    matches!(c, '\\' | '.' | '[' | ']' | '*' | '^' | '$' | '+' | '?' | '{' | '}' | '(' | ')' | '|')
}

/// `pattern` (one line of it) in `regex` syntax with GNU's meaning under `syntax`,
/// or `None` where the meaning could differ. Handled: literals, `.`, `*` after an
/// atom, `^` first, `$` last, escaped punctuation, simple bracket expressions; ERE
/// adds `+ ? | ( )`. Left to bashkit: back-references and GNU escapes (`\w`, `\<`,
/// `\|` in BRE...), intervals, character classes beyond plain ranges.
fn translate(pattern: &str, syntax: Syntax) -> Option<String> {
    if syntax == Syntax::Fixed {
        return Some(regex::escape(pattern));
    }
    let ere = syntax == Syntax::Extended;
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    // Whether the previous item is an atom a repetition may follow.
    let mut atom = false;
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let next = *chars.get(i + 1)?;
                // Escaped punctuation that is literal in both; GNU's `\w`, `\<`,
                // `\1`, BRE's `\(` `\|` `\{` and the like are left to bashkit.
                let literal_in_both =
                    matches!(next, '.' | '*' | '[' | ']' | '^' | '$' | '\\' | '/' | '-');
                let literal_in_ere = ere && matches!(next, '+' | '?' | '(' | ')' | '|' | '{' | '}');
                if !(literal_in_both || literal_in_ere) {
                    return None;
                }
                out.push_str(&regex::escape(&next.to_string()));
                atom = true;
                i += 2;
                continue;
            }
            '.' => {
                out.push('.');
                atom = true;
            }
            '*' => {
                if !atom {
                    return None;
                }
                out.push('*');
                atom = false;
            }
            '^' => {
                if i != 0 {
                    return None;
                }
                out.push('^');
            }
            '$' => {
                if i != chars.len() - 1 {
                    return None;
                }
                out.push('$');
            }
            '[' => {
                let (class, len) = bracket(&chars[i..])?;
                out.push_str(&class);
                atom = true;
                i += len;
                continue;
            }
            '+' | '?' if ere => {
                if !atom {
                    return None;
                }
                out.push(c);
                atom = false;
            }
            '|' if ere => {
                if i == 0
                    || i == chars.len() - 1
                    || chars[i - 1] == '('
                    || chars.get(i + 1) == Some(&')')
                {
                    return None;
                }
                out.push('|');
                atom = false;
            }
            '(' if ere => {
                if matches!(chars.get(i + 1), Some('?' | '*' | '+' | ')')) {
                    return None;
                }
                depth += 1;
                out.push_str("(?:");
                atom = false;
            }
            ')' if ere => {
                depth = depth.checked_sub(1)?;
                out.push(')');
                atom = true;
            }
            '{' | '}' if ere => return None,
            _ => {
                out.push_str(&regex::escape(&c.to_string()));
                atom = true;
            }
        }
        i += 1;
    }
    (depth == 0).then_some(out)
}

/// A bracket expression at the start of `chars` made only of letters, digits, `_`,
/// space and ranges between two of a kind (a leading `^` negates): the `regex` class
/// and how many characters it took. `None` for anything else (POSIX classes,
/// a literal `]` or `\`, collating elements).
fn bracket(chars: &[char]) -> Option<(String, usize)> {
    let mut i = 1;
    let mut out = String::from("[");
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    let start = i;
    while let Some(&c) = chars.get(i) {
        if c == ']' && i > start {
            out.push(']');
            return Some((out, i + 1));
        }
        if c.is_ascii_alphanumeric() || c == '_' || c == ' ' {
            out.push(c);
        } else if c == '-' && i > start && chars.get(i + 1) != Some(&']') {
            let (lo, hi) = (chars[i - 1], *chars.get(i + 1)?);
            let same = |f: fn(&char) -> bool| f(&lo) && f(&hi);
            if !(same(char::is_ascii_digit)
                || same(char::is_ascii_lowercase)
                || same(char::is_ascii_uppercase))
                || lo > hi
            {
                return None;
            }
            out.push('-');
        } else {
            return None;
        }
        i += 1;
    }
    None
}

/// Whether every match of `pattern` has the same length (no repetition, no
/// alternation), so leftmost-first and leftmost-longest agree.
fn fixed_length(pattern: &str, syntax: Syntax) -> bool {
    match syntax {
        Syntax::Fixed => true,
        Syntax::Basic => !pattern.contains('*'),
        Syntax::Extended => !pattern.contains(['*', '+', '?', '|']),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn the_flags_agents_use_are_planned() {
        let p = plan(&args(&["-rn", "--include=*.rs", "-A2", "fn main", "src", "lib"])).unwrap();
        assert!(p.recursive && p.line_numbers && p.context_given);
        assert_eq!((p.before, p.after), (0, 2));
        assert_eq!(p.operands, ["src", "lib"]);
        assert_eq!(p.filters, [(true, "*.rs".to_string())]);
        assert_eq!(p.regex, "(?:fn main)");
        let p = plan(&args(&["-E", "WARN|ERR(OR)?", "f"])).unwrap();
        assert_eq!(p.regex, "(?:WARN|ERR(?:OR)?)");
        assert_eq!(plan(&args(&["-F", "a+b", "f"])).unwrap().regex, r"(?:a\+b)");
        // `+` is a literal in a basic regular expression.
        assert_eq!(plan(&args(&["a+b", "f"])).unwrap().regex, r"(?:a\+b)");
        assert_eq!(plan(&args(&["-w", "apple", "f"])).unwrap().regex, r"\b(?:(?:apple))\b");
        assert_eq!(plan(&args(&["-3", "x"])).unwrap().before, 3);
    }

    #[test]
    fn what_could_differ_is_left_to_bashkit() {
        for a in [
            &["-P", "x"][..],
            &["-m1", "x", "f"],
            &["--colour=always", "x"],
            &[r"a\|b", "f"],
            &[r"\w+", "f"],
            &["-E", "a{2}", "f"],
            &["[[:alpha:]]", "f"],
            &["-o", "-E", "a|ab", "f"],
            &["-w", "a.b", "f"],
            &["", "f"],
            &["-c", "-l", "x", "f"],
            &["x^y", "f"],
            &["--include=src/*.rs", "x"],
        ] {
            assert_eq!(plan(&args(a)), None, "{a:?}");
        }
    }
}
