//! The shell as an agent meets it: `filestore_execute` over ONE MCP stdio session of
//! the real `filestore serve --shell` binary, case by case against spawning `bash -c
//! CASE` for the same case, in the same run (`BENCHMARKS.md`, "Shell over MCP").
//!
//! ```sh
//! cargo bench --locked -p filestore --bench shell_mcp
//! ```
//!
//! `$FILESTORE_BENCH_BIN` names another `filestore` binary to measure (default: the
//! one cargo built with the bench, the release profile's). `$FILESTORE_BENCH_RUNS`
//! sets the timed runs per case (default 15; the median counts).
//!
//! - The cases: bashkit's own interpreter benchmark set (`crates/bashkit-bench`,
//!   MIT, Everruns: startup, variables, arithmetic, control flow, strings, arrays,
//!   pipes, tools), run as written, plus a few on files in the mounted directory.
//!   Each case's stdout through filestore is compared with bash's: a case whose
//!   output differs is marked and still timed.
//! - Per case: the median wall time of a `tools/call` (request written to the
//!   server's stdin until its answer is read back) against the median of spawning
//!   `/bin/bash -c CASE` and waiting for it; the report is each ratio and their
//!   geometric mean, overall and per category.
//! - The one-shot process: `filestore call filestore_execute '{"command":"true"}'`
//!   (process start, engine, component from the compiled cache, session, call, exit)
//!   against `bash -c true`, the two spawned in turn 61 times each: the median times
//!   and each process's minor page faults, which do not move with the machine.
//!
//! The client is a synchronous JSON-RPC loop written here (one request in flight,
//! one line out, one line back), as in `benches/mcp.rs`: its own cost is a few
//! microseconds a call.

mod mcp_stdio;
#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;
mod timing;

use std::path::Path;
use std::process::{Command, Stdio};

use mcp_stdio::Server;
use serde_json::json;
use timing::{median, median_us, us};

/// `filestore_execute` of `command` in `/w`: its stdout.
fn execute(s: &mut Server, command: &str) -> String {
    let r = s.call("filestore_execute", &json!({"command": command, "cwd": "/w"}));
    r["structuredContent"]["stdout"].as_str().unwrap_or_default().to_string()
}

/// `bash -c command` in `dir` in the shell's locale: its stdout.
fn bash(dir: &Path, command: &str) -> String {
    support::bash::bash(dir, command, support::bash::Locale::Utf8).0
}

fn main() {
    let bin = std::env::var("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_filestore").to_string());
    let runs: usize =
        std::env::var("FILESTORE_BENCH_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(15);
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    let mut server = Server::start({
        let mut c = Command::new(&bin);
        c.args(["serve", "--shell", "--mount"]).arg(format!("/w={}", dir.path().display()));
        c
    });

    println!("| category | case | filestore (MCP call) | bash -c | ratio |");
    println!("|---|---|---|---|---|");
    let mut ratios: Vec<(&str, f64)> = Vec::new();
    let mut differ = Vec::new();
    for (category, name, script) in cases() {
        let ours_out = execute(&mut server, script);
        let bash_out = bash(dir.path(), script);
        let same = ours_out == bash_out;
        if !same {
            differ.push(name);
        }
        let ours = median_us(2, runs, || {
            execute(&mut server, script);
        });
        let base = median_us(1, runs, || {
            bash(dir.path(), script);
        });
        let ratio = ours / base;
        ratios.push((category, ratio));
        let mark = if same { "" } else { " (output differs)" };
        println!("| {category} | {name}{mark} | {} | {} | {ratio:.3}× |", us(ours), us(base));
    }

    println!("\n| category | cases | geometric mean ratio |");
    println!("|---|---|---|");
    let mut categories: Vec<&str> = ratios.iter().map(|(c, _)| *c).collect();
    categories.dedup();
    for c in categories {
        let of: Vec<f64> = ratios.iter().filter(|(k, _)| *k == c).map(|(_, r)| *r).collect();
        println!("| {c} | {} | {:.3}× |", of.len(), geomean(&of));
    }
    let all: Vec<f64> = ratios.iter().map(|(_, r)| *r).collect();
    println!("| **all** | {} | **{:.3}×** |", all.len(), geomean(&all));
    if !differ.is_empty() {
        println!("\noutput differs from bash in: {}", differ.join(", "));
    }
    drop(server);

    // One process per call, as a script or a CI step would run it.
    let call_args = ["call", "filestore_execute", r#"{"command":"true"}"#];
    let out = Command::new(&bin).args(call_args).current_dir(dir.path()).output().expect("call");
    assert!(out.status.success(), "filestore call: {}", String::from_utf8_lossy(&out.stderr));
    let one_shot = || {
        Command::new(&bin)
            .args(call_args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("filestore call");
    };
    let (ours, base) = interleaved(61, one_shot, || {
        bash(dir.path(), "true");
    });
    println!("\n| one-shot process | filestore | bash -c true | ratio |");
    println!("|---|---|---|---|");
    println!(
        "| `filestore call filestore_execute '{{\"command\":\"true\"}}'` | {} | {} | {:.2}× |",
        us(ours.median_us),
        us(base.median_us),
        ours.median_us / base.median_us
    );
    if let (Some(f), Some(b)) = (ours.minor_faults, base.minor_faults) {
        println!("| minor page faults per process | {f:.0} | {b:.0} | {:.2}× |", f / b);
    }
    // The one-shot's start maps this file; README.md states its size.
    let size = std::fs::metadata(&bin).map(|m| m.len() as f64 / 1e6).unwrap_or(f64::NAN);
    println!("\nbinary: {bin} ({size:.1} MB)");
}

/// A process's median wall time over interleaved runs, and its minor page faults.
struct Spawned {
    median_us: f64,
    /// Per process, from the waited-for children's count in `/proc/self/stat`: the
    /// same for every run of the same binary, where the time moves with the machine
    /// (a page fault's price varies with the virtual machine's host). `None` off Linux.
    minor_faults: Option<f64>,
}

/// `a` and `b` run in turn `n` times each (after one untimed run each), so a moment
/// of the machine's weighs on both alike.
fn interleaved(n: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Spawned, Spawned) {
    a();
    b();
    let (mut ta, mut tb) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut fa, mut fb) = (Some(0), Some(0));
    for _ in 0..n {
        for (f, times, faults) in
            [(&mut a as &mut dyn FnMut(), &mut ta, &mut fa), (&mut b, &mut tb, &mut fb)]
        {
            let before = children_minor_faults();
            let t = std::time::Instant::now();
            f();
            times.push(t.elapsed().as_secs_f64() * 1e6);
            *faults = match (*faults, before, children_minor_faults()) {
                (Some(sum), Some(x), Some(y)) => Some(sum + (y - x)),
                _ => None,
            };
        }
    }
    let spawned = |times: Vec<f64>, faults: Option<u64>| Spawned {
        median_us: median(times),
        minor_faults: faults.map(|f| f as f64 / n as f64),
    };
    (spawned(ta, fa), spawned(tb, fb))
}

/// The minor page faults of this process's waited-for children so far (`cminflt`,
/// the ninth field after the command name in `/proc/self/stat`).
fn children_minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(8)?.parse().ok()
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// A small tree in the mounted directory for the file cases.
fn fixture(dir: &Path) {
    let lines: String =
        (0..1000).map(|i| format!("line {i} {}\n", ["alpha", "beta", "gamma"][i % 3])).collect();
    std::fs::write(dir.join("file.txt"), lines).unwrap();
    for d in ["src", "src/a", "notes"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    for (i, f) in
        ["src/main.rs", "src/a/lib.rs", "src/a/util.rs", "notes/guide.md"].iter().enumerate()
    {
        std::fs::write(dir.join(f), format!("// file {i}\nfn f{i}() {{}}\n// TODO {i}\n")).unwrap();
    }
}

/// `(category, name, script)`. The first eight groups are bashkit's benchmark cases
/// (crates/bashkit-bench/src/cases.rs, MIT), scripts unchanged; `files` are ours.
fn cases() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        ("startup", "startup_true", "true"),
        ("startup", "startup_echo", "echo hello"),
        ("startup", "startup_exit", "exit 0"),
        ("variables", "var_assign_simple", "x=hello; echo $x"),
        (
            "variables",
            "var_assign_many",
            "\na=1; b=2; c=3; d=4; e=5\nf=6; g=7; h=8; i=9; j=10\necho \"$a$b$c$d$e$f$g$h$i$j\"\n",
        ),
        ("variables", "var_default", "echo ${UNDEFINED:-default}"),
        ("variables", "var_length", "x=hello; echo ${#x}"),
        ("variables", "var_substring", "x=hello_world; echo ${x:0:5}"),
        ("variables", "var_replace", "x=hello_world; echo ${x/world/bash}"),
        ("variables", "var_nested", "\na=inner\ninner=value\necho ${!a}\n"),
        ("variables", "var_export", "export FOO=bar; echo $FOO"),
        ("arithmetic", "arith_basic", "echo $((1 + 2))"),
        ("arithmetic", "arith_complex", "echo $((10 * 5 + 3 - 2 / 1))"),
        ("arithmetic", "arith_variables", "x=10; y=20; echo $((x + y * 2))"),
        ("arithmetic", "arith_increment", "x=5; ((x++)); ((x++)); echo $x"),
        ("arithmetic", "arith_modulo", "echo $((17 % 5))"),
        (
            "arithmetic",
            "arith_loop_sum",
            "\nsum=0\nfor i in 1 2 3 4 5 6 7 8 9 10; do\n    sum=$((sum + i))\ndone\necho $sum\n",
        ),
        ("control", "ctrl_if_simple", "if true; then echo yes; fi"),
        ("control", "ctrl_if_else", "if false; then echo no; else echo yes; fi"),
        ("control", "ctrl_for_list", "for i in a b c d e; do echo -n $i; done; echo"),
        ("control", "ctrl_for_range", "\nfor ((i=0; i<5; i++)); do\n    echo -n $i\ndone\necho\n"),
        (
            "control",
            "ctrl_while",
            "\ni=0\nwhile [ $i -lt 5 ]; do\n    echo -n $i\n    i=$((i + 1))\ndone\necho\n",
        ),
        (
            "control",
            "ctrl_case",
            "\nx=two\ncase $x in\n    one) echo 1 ;;\n    two) echo 2 ;;\n    *) echo other ;;\nesac\n",
        ),
        ("control", "ctrl_function", "\ngreet() {\n    echo \"Hello, $1!\"\n}\ngreet World\n"),
        (
            "control",
            "ctrl_function_return",
            "\nadd() {\n    echo $(($1 + $2))\n}\nresult=$(add 3 4)\necho $result\n",
        ),
        (
            "control",
            "ctrl_nested_loops",
            "\nfor i in 1 2 3; do\n    for j in a b c; do\n        echo -n \"$i$j \"\n    done\ndone\necho\n",
        ),
        ("strings", "str_concat", "\na=\"Hello\"\nb=\"World\"\necho \"$a $b\"\n"),
        ("strings", "str_printf", "printf '%s=%d\\n' name 42"),
        ("strings", "str_printf_pad", "printf '%05d\\n' 42"),
        ("strings", "str_echo_escape", "echo -e 'line1\\nline2'"),
        ("strings", "str_prefix_strip", "x=/path/to/file.txt; echo ${x##*/}"),
        ("strings", "str_suffix_strip", "x=file.txt; echo ${x%.txt}"),
        ("strings", "str_uppercase", "x=hello; echo ${x^^}"),
        ("strings", "str_lowercase", "x=HELLO; echo ${x,,}"),
        ("arrays", "arr_create", "arr=(a b c); echo ${arr[0]}"),
        ("arrays", "arr_all", "arr=(one two three); echo ${arr[@]}"),
        ("arrays", "arr_length", "arr=(a b c d e); echo ${#arr[@]}"),
        (
            "arrays",
            "arr_iterate",
            "\narr=(apple banana cherry)\nfor item in \"${arr[@]}\"; do\n    echo \"$item\"\ndone\n",
        ),
        ("arrays", "arr_slice", "arr=(1 2 3 4 5); echo ${arr[@]:1:3}"),
        ("arrays", "arr_assign_index", "arr=(); arr[0]=a; arr[2]=c; echo ${arr[@]}"),
        ("pipes", "pipe_simple", "echo hello | cat"),
        ("pipes", "pipe_multi", "echo 'a b c' | cat | cat | cat"),
        ("pipes", "pipe_command_subst", "result=$(echo hello); echo $result"),
        ("pipes", "pipe_heredoc", "\ncat <<EOF\nline1\nline2\nEOF\n"),
        ("pipes", "pipe_herestring", "cat <<< 'hello world'"),
        ("pipes", "pipe_redirect_out", "echo test > /dev/null; echo done"),
        ("tools", "tool_grep_simple", "echo -e 'apple\\nbanana\\napricot' | grep 'ap'"),
        ("tools", "tool_grep_case", "echo -e 'Apple\\nBANANA\\napple' | grep -i 'apple'"),
        ("tools", "tool_grep_count", "echo -e 'a\\nb\\na\\nc\\na' | grep -c 'a'"),
        ("tools", "tool_grep_invert", "echo -e 'yes\\nno\\nyes' | grep -v 'no'"),
        ("tools", "tool_grep_regex", "echo -e 'cat\\ndog\\ncot' | grep -E 'c[ao]t'"),
        ("tools", "tool_sed_replace", "echo 'hello world' | sed 's/world/bash/'"),
        ("tools", "tool_sed_global", "echo 'aaa' | sed 's/a/b/g'"),
        ("tools", "tool_sed_delete", "echo -e 'a\\nb\\nc' | sed '/b/d'"),
        ("tools", "tool_sed_lines", "echo -e '1\\n2\\n3\\n4\\n5' | sed -n '2,4p'"),
        ("tools", "tool_sed_backrefs", "echo 'hello' | sed 's/\\(hel\\)lo/\\1p/'"),
        ("tools", "tool_awk_print", "echo 'a b c' | awk '{print $2}'"),
        ("tools", "tool_awk_sum", "echo -e '1\\n2\\n3\\n4\\n5' | awk '{sum+=$1} END {print sum}'"),
        (
            "tools",
            "tool_awk_pattern",
            "echo -e 'apple 1\\nbanana 2\\napricot 3' | awk '/^a/ {print $2}'",
        ),
        ("tools", "tool_awk_fieldsep", "echo 'a:b:c' | awk -F: '{print $2}'"),
        ("tools", "tool_awk_nf", "echo 'one two three four' | awk '{print NF}'"),
        ("tools", "tool_awk_compute", "echo '10 20' | awk '{print $1 + $2, $1 * $2}'"),
        ("tools", "tool_jq_identity", r#"echo '{"a":1}' | jq '.'"#),
        ("tools", "tool_jq_field", r#"echo '{"name":"test","value":42}' | jq '.value'"#),
        ("tools", "tool_jq_array", r#"echo '[1,2,3,4,5]' | jq '.[2]'"#),
        ("tools", "tool_jq_filter", r#"echo '[1,2,3,4,5]' | jq '[.[] | select(. > 2)]'"#),
        ("tools", "tool_jq_map", r#"echo '[1,2,3]' | jq '[.[] * 2]'"#),
        (
            "complex",
            "complex_fibonacci",
            "\nfib() {\n    local n=$1\n    if [ $n -le 1 ]; then\n        echo $n\n    else\n        local a=$(fib $((n-1)))\n        local b=$(fib $((n-2)))\n        echo $((a + b))\n    fi\n}\nfib 10\n",
        ),
        (
            "complex",
            "complex_fibonacci_iter",
            "\na=0\nb=1\nfor i in 1 2 3 4 5 6 7 8 9 10; do\n    c=$((a + b))\n    a=$b\n    b=$c\ndone\necho $a\n",
        ),
        ("complex", "complex_nested_subst", "\necho $(echo $(echo $(echo deep)))\n"),
        (
            "complex",
            "complex_loop_compute",
            "\nsum=0\nfor i in 1 2 3 4 5 6 7 8 9 10; do\n    sq=$((i * i))\n    sum=$((sum + sq))\ndone\necho $sum\n",
        ),
        (
            "complex",
            "complex_string_build",
            "\nresult=\"\"\nfor c in a b c d e; do\n    result=\"$result$c\"\ndone\necho $result\n",
        ),
        (
            "complex",
            "complex_json_transform",
            "\necho '[{\"name\":\"alice\",\"score\":85},{\"name\":\"bob\",\"score\":92}]' | jq '.[0].name'\n",
        ),
        (
            "complex",
            "complex_pipeline_text",
            "\necho -e \"apple\\nbanana\\napricot\\ncherry\" | grep \"^a\" | sed 's/a/A/g'\n",
        ),
        ("files", "wc -l FILE", "wc -l file.txt"),
        ("files", "grep -c X FILE", "grep -c beta file.txt"),
        (
            "files",
            "sort | uniq -c | sort -rn",
            "awk '{print $3}' file.txt | sort | uniq -c | sort -rn",
        ),
        ("files", "head, tail, cut", "head -50 file.txt | tail -5 | cut -d' ' -f2"),
        ("files", "grep -rn TODO .", "grep -rn TODO src notes | sort"),
        ("files", "find -name | sort", "find . -name '*.rs' | sort"),
        ("files", "ls -1 src/a", "ls -1 src/a"),
        (
            "files",
            "write, append, read, rm",
            "echo a > t.txt; echo b >> t.txt; cat t.txt; rm t.txt",
        ),
        (
            "files",
            "200 appends in a loop",
            "for i in $(seq 200); do echo $i >> log; done; wc -l < log; rm log",
        ),
        ("files", "/dev/urandom | base64 | wc -c", "head -c 16 /dev/urandom | base64 | wc -c"),
        ("files", "/dev/zero, 1 MiB", "head -c 1M /dev/zero | wc -c"),
    ]
}
