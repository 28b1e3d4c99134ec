//! Outside test suites (a Python `unittest` or `pytest` run, `node --test`, the MCP
//! conformance runner) judged by the summary their runner prints, so that a suite
//! which ran nothing, or fewer tests than it has, fails instead of passing: every
//! run states the least number of tests it must run ([`Tally::check`]).
//!
//! A runner's exit status alone cannot tell: `unittest` over an empty directory
//! prints "Ran 0 tests ... OK" and exits 0 on Python 3.11, pytest's run of a
//! directory whose tests are not collected exits 5 only when nothing at all ran, and
//! a file that stops defining its tests drops them without a word.

use std::collections::BTreeSet;

use super::cmd::Ran;

/// The runners whose summaries are read.
#[derive(Clone, Copy, Debug)]
pub enum Runner {
    /// `python -m unittest`: `Ran N tests in Ts` then `OK (skipped=K)` or
    /// `FAILED (failures=F, errors=E)`, on stderr.
    Unittest,
    /// pytest: `P passed, F failed, S skipped, X xfailed in Ts` (its last summary
    /// line), on stdout.
    Pytest,
    /// `node --test`: the reporter's closing counts, `ℹ tests N` / `ℹ pass P` /
    /// `ℹ fail F` ... (spec) or `# tests N` ... (tap), on stdout.
    NodeTest,
    /// `@modelcontextprotocol/conformance server`: a line per check
    /// (`[check-id] SUCCESS|FAILURE description`) and `Passed: P/T, F failed`.
    Conformance,
}

/// What one or more runs of a suite ran. Tallies of several runs of one suite (a
/// scenario per process) add up with `+=`.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Tests that passed.
    pub passed: usize,
    /// Tests that failed or errored, an unexpected success among them.
    pub failed: usize,
    /// Tests that failed as they are marked to (pytest's xfailed, unittest's
    /// expected failures).
    pub expected_failures: usize,
    /// Tests the runner skipped (not counted as run).
    pub skipped: usize,
    /// The names of the failed checks, where the runner prints them one a line
    /// (the conformance runner).
    pub failed_names: BTreeSet<String>,
    /// The summary lines read, for the messages.
    pub summary: Vec<String>,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.expected_failures += other.expected_failures;
        self.skipped += other.skipped;
        self.failed_names.extend(other.failed_names);
        self.summary.extend(other.summary);
    }
}

impl Tally {
    /// The tests that ran: passed, failed, or failed as marked.
    pub fn ran(&self) -> usize {
        self.passed + self.failed + self.expected_failures
    }

    /// A tally of a suite this harness runs itself: `ran` checks of which `failed`
    /// failed (the contract answers another host gives, say).
    pub fn counted(ran: usize, failed: usize) -> Tally {
        Tally {
            passed: ran - failed,
            failed,
            summary: vec![format!("{ran} run, {failed} failed")],
            ..Tally::default()
        }
    }

    /// The suite `suite` ran at least `minimum` tests and none failed; otherwise the
    /// test fails naming the suite, its minimum and what it ran, with `context`
    /// (the command's output) after.
    #[track_caller]
    pub fn check(&self, suite: &str, minimum: usize, context: &str) {
        self.check_allowing(suite, minimum, &[], context);
    }

    /// [`Tally::check`] for a suite some of whose checks are known to fail (named in
    /// `known`, which needs a runner that names its failures): those, and only
    /// those, may fail, and each of them must (a known failure that passes, or no
    /// longer runs, fails the test so the list stays true).
    #[track_caller]
    pub fn check_allowing(&self, suite: &str, minimum: usize, known: &[&str], context: &str) {
        let ran = self.ran();
        let summary = self.summary.join(" | ");
        let known_failed = self.failed_names.iter().filter(|n| known.contains(&n.as_str())).count();
        let unexpected = self.failed - known_failed;
        assert!(
            unexpected == 0,
            "{suite}: {unexpected} failed ({summary}){}\n{context}",
            if known.is_empty() {
                String::new()
            } else {
                let names: Vec<&String> =
                    self.failed_names.iter().filter(|n| !known.contains(&n.as_str())).collect();
                format!("; not known to fail: {names:?}")
            }
        );
        let gone: Vec<&&str> = known.iter().filter(|k| !self.failed_names.contains(**k)).collect();
        assert!(
            gone.is_empty(),
            "{suite}: listed as known failures but did not fail: {gone:?} ({summary})\n{context}"
        );
        assert!(
            ran >= minimum,
            "{suite}: ran {ran} tests, fewer than its stated minimum of {minimum} \
             ({} passed, {} failed as marked, {} skipped; {summary})\n{context}",
            self.passed,
            self.expected_failures,
            self.skipped
        );
    }
}

impl Runner {
    /// What `ran` ran, from its runner's summary; a run with no summary (the runner
    /// crashed, or printed nothing) fails the test naming `suite`.
    #[track_caller]
    pub fn tally(self, ran: &Ran, suite: &str) -> Tally {
        let text = match self {
            Runner::Unittest => ran.stderr(),
            Runner::Pytest | Runner::NodeTest => ran.stdout(),
            Runner::Conformance => without_colors(&format!("{}{}", ran.stdout(), ran.stderr())),
        };
        let tally = match self {
            Runner::Unittest => unittest(&text),
            Runner::Pytest => pytest(&text),
            Runner::NodeTest => node_test(&text),
            Runner::Conformance => conformance(&text),
        };
        tally.unwrap_or_else(|| {
            panic!(
                "{suite}: the {self:?} runner printed no summary of what it ran\n{}",
                ran.describe()
            )
        })
    }

    /// [`Runner::tally`], then [`Tally::check`] of `suite` against `minimum`, and
    /// the command exited 0. Prints the summary (for a CI log).
    #[track_caller]
    pub fn check(self, ran: &Ran, suite: &str, minimum: usize) -> Tally {
        let tally = self.tally(ran, suite);
        tally.check(suite, minimum, &ran.describe());
        assert!(ran.output.status.success(), "{suite}: the runner failed\n{}", ran.describe());
        eprintln!("{suite}: {} (minimum {minimum})", tally.summary.join(" | "));
        tally
    }
}

/// `N name` pairs of a summary line (`3 passed, 1 skipped`, `failures=2`).
fn counts(line: &str) -> Vec<(String, usize)> {
    let words: Vec<&str> = line
        .split(|c: char| c == ',' || c == '(' || c == ')' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some((name, n)) = w.split_once('=')
            && let Ok(n) = n.parse()
        {
            out.push((name.to_string(), n));
        } else if let Ok(n) = w.parse::<usize>()
            && let Some(name) = words.get(i + 1)
        {
            out.push((name.to_string(), n));
        }
    }
    out
}

fn count_of(pairs: &[(String, usize)], names: &[&str]) -> usize {
    pairs.iter().filter(|(k, _)| names.contains(&k.as_str())).map(|(_, n)| n).sum()
}

/// unittest: `Ran N tests in Ts`, a blank line, then `OK`, `OK (skipped=1,
/// expected failures=2)`, `FAILED (failures=1, errors=1, unexpected successes=1)`
/// or `NO TESTS RAN`.
fn unittest(text: &str) -> Option<Tally> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().rposition(|l| l.starts_with("Ran ") && l.contains(" test"))?;
    let total: usize = lines[at].split_whitespace().nth(1)?.parse().ok()?;
    let status = lines[at + 1..].iter().map(|l| l.trim()).find(|l| !l.is_empty())?;
    // "expected failures=2" splits into "expected" "failures=2": read the status
    // with those names joined.
    let status_counts = counts(
        &status
            .replace("expected failures", "expected_failures")
            .replace("unexpected successes", "unexpected_successes"),
    );
    let skipped = count_of(&status_counts, &["skipped"]);
    let expected_failures = count_of(&status_counts, &["expected_failures"]);
    let mut failed = count_of(&status_counts, &["failures", "errors", "unexpected_successes"]);
    if !status.starts_with("OK") && failed == 0 {
        // FAILED without counts, or NO TESTS RAN: not a pass.
        failed = usize::from(status.starts_with("FAILED"));
    }
    let passed = total.saturating_sub(skipped + expected_failures + failed);
    Some(Tally {
        passed,
        failed,
        expected_failures,
        skipped,
        failed_names: BTreeSet::new(),
        summary: vec![format!("{} {status}", lines[at])],
    })
}

/// pytest: the last line naming counts and a duration (`342 passed, 6 skipped, 72
/// xfailed in 31.02s`, between `=` signs without `-q`), or `no tests ran in 0.01s`.
fn pytest(text: &str) -> Option<Tally> {
    let line = text.lines().rev().map(|l| l.trim_matches(|c| c == '=' || c == ' ')).find(|l| {
        l.contains(" in ")
            && (l.starts_with("no tests ran")
                || [" passed", " failed", " error", " skipped", " xfailed", " xpassed"]
                    .iter()
                    .any(|w| l.contains(w)))
    })?;
    let pairs = counts(line);
    Some(Tally {
        passed: count_of(&pairs, &["passed"]),
        failed: count_of(&pairs, &["failed", "error", "errors", "xpassed"]),
        expected_failures: count_of(&pairs, &["xfailed"]),
        skipped: count_of(&pairs, &["skipped"]),
        failed_names: BTreeSet::new(),
        summary: vec![line.to_string()],
    })
}

/// node:test: the reporter's closing `tests`, `pass`, `fail`, `cancelled`,
/// `skipped`, `todo` counts, each on a line after `ℹ ` (spec) or `# ` (tap).
fn node_test(text: &str) -> Option<Tally> {
    let mut found = std::collections::HashMap::new();
    for line in text.lines() {
        let rest = line.strip_prefix("ℹ ").or_else(|| line.strip_prefix("# "));
        if let Some((name, n)) = rest.and_then(|r| r.split_once(' '))
            && let Ok(n) = n.trim().parse::<usize>()
        {
            found.insert(name.to_string(), n);
        }
    }
    let get = |k: &str| found.get(k).copied();
    let (tests, pass, fail) = (get("tests")?, get("pass")?, get("fail")?);
    let cancelled = get("cancelled").unwrap_or(0);
    let skipped = get("skipped").unwrap_or(0) + get("todo").unwrap_or(0);
    Some(Tally {
        passed: pass,
        failed: fail + cancelled,
        expected_failures: 0,
        skipped,
        failed_names: BTreeSet::new(),
        summary: vec![format!("tests {tests}, pass {pass}, fail {fail}, cancelled {cancelled}")],
    })
}

/// The conformance runner: `Passed: P/T, F failed, W warnings`, and a line per
/// check, `TIME [check-id   ] FAILURE description` for each failure.
fn conformance(text: &str) -> Option<Tally> {
    let line = text.lines().find(|l| l.starts_with("Passed: "))?;
    let (passed, rest) = line.strip_prefix("Passed: ")?.split_once('/')?;
    let passed: usize = passed.parse().ok()?;
    let failed = count_of(&counts(rest), &["failed"]);
    let failed_names = text
        .lines()
        .filter(|l| l.contains("] FAILURE "))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next())
        .map(|id| id.trim().to_string())
        .collect();
    Some(Tally {
        passed,
        failed,
        expected_failures: 0,
        skipped: 0,
        failed_names,
        summary: vec![line.to_string()],
    })
}

/// `text` without ANSI colour sequences (`ESC [ ... m`): the conformance runner
/// colours its lines even with `NO_COLOR`.
pub fn without_colors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn summaries_are_read() {
        let u = super::unittest("x ... ok\n----\nRan 55 tests in 104.077s\n\nOK (skipped=2)\n")
            .unwrap();
        assert_eq!((u.passed, u.failed, u.skipped, u.ran()), (53, 0, 2, 53));
        let u = super::unittest("Ran 7 tests in 1s\n\nFAILED (failures=1, errors=2)\n").unwrap();
        assert_eq!((u.passed, u.failed), (4, 3));
        let u = super::unittest("Ran 3 tests in 1s\n\nOK (expected failures=1)\n").unwrap();
        assert_eq!((u.passed, u.expected_failures, u.failed), (2, 1, 0));
        let u = super::unittest("\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n").unwrap();
        assert_eq!(u.ran(), 0);
        assert!(super::unittest("Traceback ...\n").is_none());

        let p = super::pytest("...\n342 passed, 6 skipped, 72 xfailed in 31.02s\n").unwrap();
        assert_eq!((p.passed, p.skipped, p.expected_failures, p.ran()), (342, 6, 72, 414));
        let p = super::pytest("== 1 failed, 2 passed, 1 xpassed, 3 errors in 0.1s ==\n").unwrap();
        assert_eq!((p.passed, p.failed), (2, 5));
        assert_eq!(super::pytest("\nno tests ran in 0.01s\n").unwrap().ran(), 0);

        let n = super::node_test("✔ a (1ms)\nℹ tests 50\nℹ suites 0\nℹ pass 49\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\n").unwrap();
        assert_eq!((n.passed, n.failed, n.ran()), (49, 1, 50));
        let n = super::node_test("# tests 3\n# pass 3\n# fail 0\n").unwrap();
        assert_eq!(n.ran(), 3);

        let c = super::conformance(
            "t [a  ] SUCCESS x\nt [b ] FAILURE y\nPassed: 1/2, 1 failed, 0 warnings\n",
        )
        .unwrap();
        assert_eq!(
            (c.passed, c.failed, c.failed_names.iter().map(String::as_str).collect::<Vec<_>>()),
            (1, 1, vec!["b"])
        );
    }

    #[test]
    #[should_panic(expected = "suite s: ran 0 tests, fewer than its stated minimum of 1")]
    fn too_few_fails() {
        super::Tally::counted(0, 0).check("suite s", 1, "");
    }

    #[test]
    #[should_panic(expected = "listed as known failures but did not fail: [\"b\"]")]
    fn a_known_failure_that_passes_fails() {
        let c = super::conformance("t [a] FAILURE y\nPassed: 1/2, 1 failed\n").unwrap();
        c.check_allowing("s", 1, &["a", "b"], "");
    }
}
