//! The shell over memory volumes, natively: the interpreter, the adapter, the
//! limits. The component and real directories are tested in
//! tests/integration/shell.rs.

use serde_json::json;

use crate::error::ErrorKind;
use crate::session::Session;
use crate::vfs::limits::Limits;
use crate::vfs::memory::MemoryVolume;
use crate::vfs::mounts::MountTable;

fn session() -> Session {
    let w = MemoryVolume::new();
    w.insert("/notes.txt", "b\na\nc\na\n");
    w.insert("/src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    let ro = MemoryVolume::new();
    ro.insert("/readme.md", "# read only\n");
    let mut s = Session::new(Limits::default());
    s.mount("/w", Box::new(w), 0, false).unwrap();
    s.mount("/ro", Box::new(ro), 0, true).unwrap();
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    s.enable_shell(true);
    s
}

fn run(s: &Session, command: &str) -> super::ExecuteResult {
    s.execute(&super::ExecuteRequest { command: command.into(), ..Default::default() })
        .unwrap_or_else(|e| panic!("{command}: {e}"))
}

#[test]
fn runs_pipelines_over_the_mounts() {
    let s = session();
    let r = run(&s, "sort notes.txt | uniq -c | sort -rn | head -1");
    assert_eq!(r.stdout, "      2 a\n");
    assert_eq!(r.exit_code, 0);
    assert_eq!(run(&s, "pwd").stdout, "/w\n", "the first writable mount is the default cwd");
    assert_eq!(run(&s, "cat /ro/readme.md").stdout, "# read only\n");
    assert_eq!(run(&s, "grep -c fn src/main.rs").stdout, "1\n");
}

#[test]
fn every_call_sees_each_builtin_once_and_the_shells_own_over_bashkits() {
    // bashkit's stateless builtins are made once and shared by every call's
    // interpreter, under the ones each interpreter makes (bashkit's
    // interpreter/builtin_table.rs): `grep`, `find`, `wc` and `python3` are the
    // shell's own, `date` and `source` made per interpreter, `echo` shared.
    let s = session();
    for _ in 0..3 {
        assert_eq!(run(&s, "compgen -b | sort | uniq -d").stdout, "", "a name listed twice");
        let listed =
            run(&s, "compgen -b | grep -x -e echo -e grep -e find -e wc -e python3 -e source");
        assert_eq!(listed.stdout, "echo\nfind\ngrep\npython3\nsource\nwc\n");
        assert_eq!(run(&s, "type -t echo grep date source").stdout, "builtin\n".repeat(4));
    }
    // The shell's grep, not bashkit's: it reads the mounts directly and names a
    // missing file as GNU grep does.
    let r = run(&s, "grep -c fn src/main.rs nope.rs");
    assert_eq!(r.stdout, "src/main.rs:1\n");
    assert!(r.stderr.contains("grep: nope.rs: No such file or directory"), "{}", r.stderr);
    assert_eq!(r.exit_code, 2);
}

#[test]
fn the_default_cwd_is_the_first_writable_mount_in_the_order_mounted() {
    // As `filestore call --mount /w=DIR` mounts: the user's mount first, then serve's
    // default `/scratch` (which sorts before `/w`).
    let mut t = MountTable::new();
    t.add("/w", Box::new(MemoryVolume::new()), 0, false).unwrap();
    t.add("/workspace", Box::new(MemoryVolume::new()), 0, true).unwrap();
    t.add("/scratch", Box::new(MemoryVolume::new()), 0, false).unwrap();
    assert_eq!(super::default_cwd(&t), "/w");
    let mut ro = MountTable::new();
    ro.add("/workspace", Box::new(MemoryVolume::new()), 0, true).unwrap();
    assert_eq!(super::default_cwd(&ro), "/");
}

#[test]
fn writes_land_in_the_volume_and_read_only_mounts_refuse() {
    let s = session();
    let r = run(&s, "mkdir -p out && printf 'x\\ny\\n' > out/f.txt && wc -l < out/f.txt");
    assert_eq!(r.stdout.trim(), "2");
    let read = s.call("filestore_read", &json!({"path": "/w/out/f.txt", "raw": true})).unwrap();
    assert_eq!(read.json["text"], "x\ny\n");
    let r = run(&s, "echo no > /ro/new.txt");
    assert_ne!(r.exit_code, 0);
    assert!(r.stderr.contains("Read-only file system"), "{}", r.stderr);
    let r = run(&s, "rm /tool_calls/x 2>&1; echo $?");
    assert!(!r.stdout.ends_with("0\n"), "{}", r.stdout);
}

#[test]
fn cd_cannot_leave_the_virtual_root() {
    let s = session();
    assert_eq!(run(&s, "cd ../../..; pwd").stdout, "/\n");
    assert_eq!(run(&s, "cd /; ls").stdout, "ro\ntool_calls\nw\n");
    let r = run(&s, "cat /etc/passwd /proc/self/environ");
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert_eq!(r.exit_code, 1);
}

#[test]
fn the_environment_is_the_requests_and_nothing_of_the_host() {
    let s = session();
    let req = super::ExecuteRequest {
        command: "echo $GREETING $USER $HOME; hostname".into(),
        env: [("GREETING".to_string(), "hello".to_string())].into(),
        ..Default::default()
    };
    let r = s.execute(&req).unwrap();
    assert_eq!(r.stdout, "hello agent /w\nfilestore\n");
}

#[test]
fn a_runaway_loop_ends_with_limit_exceeded() {
    let s = session();
    let e = s
        .execute(&super::ExecuteRequest {
            command: "while true; do :; done".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    // Which limit ends it first depends on the machine's speed (a loaded machine
    // reaches the wall time before the command count); each is named.
    let m = e.message();
    assert!(m.contains("command count") || m.contains("loop") || m.contains("timeout"), "{e}");
    // The session goes on.
    assert_eq!(run(&s, "echo ok").stdout, "ok\n");
}

#[test]
fn a_fork_bomb_ends_at_the_function_depth() {
    let s = session();
    let e = s
        .execute(&super::ExecuteRequest { command: "f(){ f|f; }; f".into(), ..Default::default() })
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    assert!(e.message().contains("depth"), "{e}");
}

#[test]
fn long_output_is_cut_and_stored_whole() {
    let s = session();
    let r = run(&s, "seq 1 20000");
    assert!(r.truncated);
    let path = r.output_path.clone().expect("stored");
    assert!(path.starts_with("/tool_calls/filestore_execute/call_"), "{path}");
    assert!(
        r.stdout.contains("[stdout truncated: the first 30000 of 108894 bytes"),
        "{}",
        &r.stdout[r.stdout.len() - 200..]
    );
    let whole = s.call("filestore_read", &json!({"path": path, "raw": true})).unwrap();
    let v: serde_json::Value = serde_json::from_str(whole.json["text"].as_str().unwrap()).unwrap();
    assert!(v["stdout"].as_str().unwrap().ends_with("19999\n20000\n"));
}

#[test]
fn the_tool_is_listed_only_when_enabled() {
    let mut s = Session::new(Limits::default());
    s.mount("/w", Box::new(MemoryVolume::new()), 0, false).unwrap();
    let names = |s: &Session| s.tool_specs().into_iter().map(|t| t.name).collect::<Vec<_>>();
    assert!(!names(&s).contains(&"filestore_execute".to_string()));
    let e = s.call("filestore_execute", &json!({"command": "true"})).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    s.enable_shell(true);
    let spec = s.tool_specs().into_iter().find(|t| t.name == "filestore_execute").unwrap();
    assert_eq!(spec.annotations["destructiveHint"], true);
    let out = s.call("filestore_execute", &json!({"command": "echo hi; exit 3"})).unwrap();
    assert_eq!(out.json["exit_code"], 3);
    assert_eq!(out.text, "hi\n[exit code 3]\n");
}

#[test]
fn reading_a_skill_through_the_shell_activates_it() {
    use crate::vfs::volume::{Volume, WriteOptions};
    let skills = MemoryVolume::new();
    let opts = WriteOptions {
        read_only: true,
        entry_type: Some(crate::skills::skill::TYPE_SKILL.into()),
        ..Default::default()
    };
    skills
        .write(
            "/demo/SKILL.md",
            b"---\nname: demo\ndescription: A demo skill.\nallowed-tools: filestore_grep\n---\nUse it.\n",
            &opts,
        )
        .unwrap();
    let mut s = session();
    s.mount("/skills", Box::new(skills), 0, true).unwrap();
    s.enable_shell(true);
    let r = run(&s, "head -3 /skills/demo/SKILL.md >/dev/null; cat /w/notes.txt | wc -l");
    assert_eq!(r.stdout.trim(), "4");
    assert_eq!(r.activations.len(), 1, "{r:?}");
    assert_eq!(r.activations[0].skill, "demo");
    let out = s
        .call("filestore_execute", &json!({"command": "grep -c name /skills/demo/SKILL.md"}))
        .unwrap();
    assert_eq!(out.json["activations"][0]["skill"], "demo", "{}", out.json);
    assert!(
        out.text.contains("Skill 'demo'")
            || out.json["activations"][0]["added"].as_array().is_some(),
        "{}",
        out.text
    );
    // Reading other files activates nothing.
    assert!(run(&s, "cat /w/notes.txt").activations.is_empty());
}

#[test]
fn a_skill_that_cannot_be_activated_does_not_lose_the_output() {
    use crate::vfs::volume::{Volume, WriteOptions};
    let skills = MemoryVolume::new();
    let opts = WriteOptions {
        read_only: true,
        entry_type: Some(crate::skills::skill::TYPE_SKILL.into()),
        ..Default::default()
    };
    skills.write("/bad/SKILL.md", b"---\nname: bad\nallowed-tools: [x]\n---\n", &opts).unwrap();
    let mut s = session();
    s.mount("/skills", Box::new(skills), 0, true).unwrap();
    s.enable_shell(true);
    let r = run(&s, "cat /skills/bad/SKILL.md > /dev/null; echo made > /w/made.txt; echo done");
    assert_eq!(r.stdout, "done\n");
    assert!(r.stderr.contains("[skill /skills/bad/SKILL.md not activated: error["), "{}", r.stderr);
}

#[test]
fn chmod_bits_last_the_session_so_scripts_run_by_path() {
    let s = session();
    let r = run(&s, "printf '#!/bin/bash\\necho ran \"$@\"\\n' > s.sh; ./s.sh a; echo $?");
    assert_eq!(r.stdout, "126\n", "not executable before chmod: {r:?}");
    assert_eq!(run(&s, "chmod +x s.sh && ./s.sh a b").stdout, "ran a b\n");
    // A later call of the same session still knows the bits; a write keeps them.
    assert_eq!(
        run(&s, "echo 'echo again' >> s.sh; ./s.sh x; stat -c %a s.sh").stdout,
        "ran x\nagain\n755\n"
    );
    // They follow a move and go with a removal.
    assert_eq!(run(&s, "mv s.sh t.sh; ./t.sh; stat -c %a t.sh").stdout, "ran\nagain\n755\n");
    assert_eq!(run(&s, "cp t.sh u.sh; rm t.sh; echo x > t.sh; stat -c %a t.sh").stdout, "644\n");
}

#[test]
fn chmod_bits_go_with_a_delete_and_follow_a_move_by_the_file_tools() {
    let s = session();
    run(
        &s,
        "echo 'echo old' > s.sh; chmod +x s.sh; mkdir d; echo 'echo in d' > d/x.sh; chmod +x d/x.sh",
    );
    // Deleted by the tool and written anew: a new file, not executable.
    s.call("filestore_delete", &json!({"path": "/w/s.sh"})).unwrap();
    s.call("filestore_write", &json!({"path": "/w/s.sh", "content": "echo new\n"})).unwrap();
    assert_eq!(run(&s, "stat -c %a s.sh; ./s.sh; echo $?").stdout, "644\n126\n");
    // Moved by the tool (a directory, with what is beneath it): the bits follow, and
    // a file written later at the old path does not inherit them.
    s.call("filestore_move", &json!({"source": "w/d/", "destination": "/w/e"})).unwrap();
    s.call("filestore_write", &json!({"path": "/w/d/x.sh", "content": "echo stale\n"})).unwrap();
    assert_eq!(run(&s, "./e/x.sh; stat -c %a e/x.sh d/x.sh").stdout, "in d\n755\n644\n");
}

#[test]
fn grep_reads_a_process_substitution() {
    let s = session();
    let r = run(&s, "grep -c a <(sort notes.txt); grep b < <(cat notes.txt)");
    assert_eq!(r.stdout, "2\nb\n", "{r:?}");
}

#[test]
fn an_endless_producer_ends_when_its_reader_does() {
    let s = session();
    let r = run(&s, "while :; do echo x; done | head -n 2; echo \"${PIPESTATUS[*]}\"");
    assert_eq!(r.stdout, "x\nx\n141 0\n", "{r:?}");
    let r = run(&s, "sleep 5 & kill %1; wait; echo done");
    assert_eq!(r.stdout, "done\n", "{r:?}");
}

#[test]
fn recursive_grep_goes_in_path_order_and_past_the_walk_limit() {
    let w = MemoryVolume::new();
    for p in ["/t/a/x.txt", "/t/a.txt", "/t/b/c/d.txt", "/t/b/e.txt", "/t/skip/f.txt", "/t/z.txt"] {
        w.insert(p, "hit\n");
    }
    // A walk limit below the tree's size: directories are listed and walked in turn.
    let limits = Limits { walk_entries: 2, ..Limits::default() };
    let mut s = Session::new(limits);
    s.mount("/w", Box::new(w), 0, false).unwrap();
    s.enable_shell(true);
    let r = run(&s, "cd t && grep -r hit --exclude-dir=skip . && grep -rl hit");
    assert_eq!(
        r.stdout,
        "./a.txt:hit\n./a/x.txt:hit\n./b/c/d.txt:hit\n./b/e.txt:hit\n./z.txt:hit\n\
         a.txt\na/x.txt\nb/c/d.txt\nb/e.txt\nskip/f.txt\nz.txt\n",
        "{r:?}"
    );
}

/// A tree whose names sort differently by path and by component (`a.txt` before
/// `a/x` byte-wise), with empty files and directories.
fn find_session() -> Session {
    let w = MemoryVolume::new();
    for (p, c) in [
        ("/t/a/x.rs", "fn x() {}\n"),
        ("/t/a/y/z.rs", ""),
        ("/t/a.txt", "text\n"),
        ("/t/a-b/c.md", &"m".repeat(3000)),
        ("/t/B.TXT", "upper\n"),
        ("/t/.git/config", "[core]\n"),
        ("/t/with space.txt", "s\n"),
    ] {
        w.insert(p, c);
    }
    let mut s = Session::new(Limits::default());
    s.mount("/w", Box::new(w), 0, false).unwrap();
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    s.enable_shell(true);
    s.execute(&super::ExecuteRequest { command: "mkdir /w/t/empty".into(), ..Default::default() })
        .unwrap();
    s
}

#[test]
fn find_on_the_walk_answers_as_bashkits_find() {
    let s = find_session();
    for args in [
        "t",
        ".",
        "t/",
        "t -name '*.rs'",
        "t -iname '*.txt'",
        "t -type d",
        "t -type f,l",
        "t -maxdepth 1",
        "t -mindepth 2 -maxdepth 3",
        "t -empty",
        "t ! -empty -type f",
        "t -size +2k",
        "t -size -1k",
        "t -path 't/a*' -prune -o -print",
        "t -path '*/.git' -prune -o -type f -print0",
        "t \\( -name '*.md' -o -name '*.rs' \\) -print",
        "t -name a -print -quit",
        "t -name '*.rs' , -name '*.md' -print",
        "t/a t/a.txt -print",
        "t/nope t/a",
        "t -not -path '*/.*'",
        "t -name '[!a]*'",
    ] {
        // `-noleaf` (a no-op) is left to bashkit's find.
        let ours = run(&s, &format!("cd /w; find {args}; echo \"rc=$?\""));
        let theirs = run(&s, &format!("cd /w; find {args} -noleaf; echo \"rc=$?\""));
        assert_eq!(ours.stdout, theirs.stdout, "find {args}");
        assert_eq!(ours.stderr, theirs.stderr, "find {args}");
    }
}

#[test]
fn find_streams_into_a_closed_pipe_and_falls_back_for_exec() {
    let s = find_session();
    assert_eq!(run(&s, "find /w | head -2").stdout, "/w\n/w/t\n");
    let r = run(&s, "cd /w/t; find . -name '*.rs' -exec grep -l fn {} +");
    assert_eq!(r.stdout, "./a/x.rs\n");
    let r = run(&s, "cd /w/t; find . -name x.rs -delete; find . -name '*.rs'");
    assert_eq!(r.stdout, "./a/y/z.rs\n");
}

#[test]
fn wc_counts_lines_and_bytes_as_gnu_and_falls_back_for_the_rest() {
    let s = session();
    assert_eq!(run(&s, "wc -l notes.txt").stdout, "4 notes.txt\n");
    assert_eq!(
        run(&s, "wc -lc notes.txt src/main.rs").stdout,
        " 4  8 notes.txt\n 3 34 src/main.rs\n 7 42 total\n"
    );
    assert_eq!(run(&s, "cat notes.txt | wc -l").stdout, "4\n");
    assert_eq!(run(&s, "cat notes.txt | wc -lc").stdout, "      4       8\n");
    // bashkit's own wc: words, and a missing file named on stderr.
    assert_eq!(run(&s, "wc -w notes.txt").stdout, "4 notes.txt\n");
    let r = run(&s, "wc -l nope.txt");
    assert_eq!((r.stdout.as_str(), r.exit_code), ("", 1));
    assert!(r.stderr.contains("nope.txt"), "{}", r.stderr);
}

/// A command given a missing file among others reports it, still processes the
/// others and exits 1 (`ls` 2), as coreutils do: the others' output was lost.
#[test]
fn a_missing_operand_keeps_the_others_output() {
    let s = session();
    for (command, stdout, code) in [
        ("wc -l notes.txt nosuch", "4 notes.txt\n4 total\n", 1),
        ("wc -l nosuch notes.txt", "4 notes.txt\n4 total\n", 1),
        ("cut -c1 nosuch notes.txt", "b\na\nc\na\n", 1),
        ("nl -ba notes.txt nosuch | head -1", "     1\tb\n", 0),
        ("tac notes.txt nosuch", "a\nc\na\nb\n", 1),
        ("rev nosuch notes.txt", "b\na\nc\na\n", 1),
        ("od -An -c nosuch notes.txt | wc -w", "8\n", 0),
        ("md5sum nosuch notes.txt | cut -c34-", " notes.txt\n", 0),
        ("cksum notes.txt nosuch | wc -l", "1\n", 0),
        ("stat -c %n nosuch notes.txt", "notes.txt\n", 1),
        ("ls nosuch notes.txt", "notes.txt\n", 2),
        ("ls src notes.txt nosuch", "notes.txt\n\nsrc:\nmain.rs\n", 2),
    ] {
        let r = run(&s, command);
        assert_eq!((r.stdout.as_str(), r.exit_code), (stdout, code), "{command}: {}", r.stderr);
        if code != 0 {
            assert!(r.stderr.contains("nosuch"), "{command}: {}", r.stderr);
            assert!(!r.stderr.contains("/w/"), "the operand as typed: {}", r.stderr);
        }
    }
}

/// A brace expansion of more words than the interpreter makes is refused with the
/// limit named, not cut short; a range up to the limit expands whole.
#[test]
fn a_brace_product_past_the_limit_is_refused() {
    let s = session();
    for command in ["echo {1..400}{1..400}", "for x in {a..z}{a..z}{a..z}{a..z}; do :; done"] {
        let e = s
            .execute(&super::ExecuteRequest { command: command.into(), ..Default::default() })
            .expect_err(command);
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{command}: {e}");
        assert!(e.to_string().contains("brace expansion too large"), "{command}: {e}");
    }
    assert_eq!(run(&s, "echo {1..300}{1..300} | wc -w").stdout, "90000\n");
    assert_eq!(run(&s, "echo {1..20000} | wc -w").stdout, "20000\n");
    assert_eq!(run(&s, "echo x{a,b{1..3},c}y{1..2} | wc -w").stdout, "10\n");
}
