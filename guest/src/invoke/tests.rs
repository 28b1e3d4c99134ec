//! Unit tests of invocation through a real [`Session`] over memory volumes.

use super::*;
use crate::session::Session;
use crate::vfs::memory::MemoryVolume;

const YAML: &str = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
kind: tool\nname: find\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ?\n\
parameters:\n  - {name: id, type: integer, description: x}\n---\n\
kind: tool\nname: drop\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: DELETE FROM t\n\
requiresApproval: true\n---\n\
kind: tool\nname: secret\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ?\n\
authRequired: [g]\nparameters:\n  - {name: email, type: string, description: x, authServices: [{name: g, field: email}]}\n---\n\
kind: authService\nname: g\ntype: google\nclientId: x\n---\n\
kind: toolset\nname: small\ntools: [find]\n";

fn session() -> Session {
    let mut s = Session::new(Default::default());
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    s.mount("/w", Box::new(MemoryVolume::new()), 0, false).unwrap();
    load_config(&s, &[("t.yaml", YAML)], &Default::default()).unwrap();
    s
}

fn echo(c: &ExternalCall) -> Result<String> {
    Ok(json!({"args": c.arguments, "positional": c.positional, "claims": c.claims}).to_string())
}

#[test]
fn configured_tool_runs_and_is_stored() {
    let s = session();
    let ctx = InvokeContext { tool_call_id: Some("abc".into()), ..Default::default() };
    let out = invoke(&s, "find", &json!({"id": 3}), &ctx, &echo);
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(out.envelope["data"]["positional"], json!([3]));
    let path = out.result_path.unwrap();
    assert_eq!(path, "/tool_calls/find/abc/result-1.json");
    let read = s.call("filestore_read", &json!({"path": path, "raw": true})).unwrap();
    assert!(read.json["text"].as_str().unwrap().contains("\"positional\""));
    // Validation errors are failed envelopes naming the parameter.
    let bad = invoke(&s, "find", &json!({"id": "x"}), &ctx, &echo);
    assert_eq!(bad.status, InvokeStatus::Failed);
    assert_eq!(bad.envelope["error"]["code"], "invalid-argument");
    assert!(bad.text.contains("'id'"), "{}", bad.text);
}

/// A result nested deeper than [`MAX_RESULT_DEPTH`] is answered as its text, never
/// as JSON that readers on the way refuse (or turn into `null`).
#[test]
fn deeply_nested_results_are_answered_as_text() {
    let s = session();
    let ctx = InvokeContext::default();
    let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    for (n, as_json) in [(MAX_RESULT_DEPTH, true), (MAX_RESULT_DEPTH + 1, false), (127, false)] {
        let text = nested(n);
        let answer = |_: &ExternalCall| Ok(text.clone());
        let out = invoke(&s, "find", &json!({"id": 1}), &ctx, &answer);
        assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
        let data = &out.envelope["data"];
        if as_json {
            assert!(data.is_array(), "depth {n}: {data}");
        } else {
            assert_eq!(data, &Value::String(text.clone()), "depth {n}");
        }
    }
}

#[test]
fn builtins_run_inside_and_are_not_stored() {
    let s = session();
    let out = invoke(&s, "filestore_ls", &json!({"path": "/"}), &InvokeContext::default(), &echo);
    assert_eq!(out.status, InvokeStatus::Completed);
    assert_eq!(out.envelope["success"], true);
    assert!(out.result_path.is_none());
}

#[test]
fn generated_ids_are_unique() {
    let s = session();
    let ctx = InvokeContext::default();
    let a = invoke(&s, "find", &json!({"id": 1}), &ctx, &echo).result_path.unwrap();
    let b = invoke(&s, "find", &json!({"id": 2}), &ctx, &echo).result_path.unwrap();
    assert_ne!(a, b);
}

#[test]
fn auth_params_come_from_claims() {
    let s = session();
    let out = invoke(&s, "secret", &json!({}), &InvokeContext::default(), &echo);
    assert_eq!(out.envelope["error"]["code"], "unauthorized");
    let ctx = InvokeContext { claims: json!({"g": {"email": "a@b.c"}}), ..Default::default() };
    let out = invoke(&s, "secret", &json!({}), &ctx, &echo);
    assert_eq!(out.envelope["data"]["positional"], json!(["a@b.c"]));
}

fn add_skill(vol: &MemoryVolume, name: &str, front: &str, sidecar: Option<&str>) {
    use crate::vfs::volume::Volume;
    let ro = |t: &str| crate::vfs::volume::WriteOptions {
        read_only: true,
        entry_type: Some(t.to_string()),
        ..Default::default()
    };
    let md = format!("---\nname: {name}\ndescription: Skill {name}\n{front}---\nDo it.\n");
    vol.write(&format!("/{name}/SKILL.md"), md.as_bytes(), &ro(crate::skills::skill::TYPE_SKILL))
        .unwrap();
    if let Some(d) = sidecar {
        vol.write(&format!("/{name}/descriptor.yaml"), d.as_bytes(), &ro("skill_reference"))
            .unwrap();
    }
}

#[test]
fn skill_descriptors_make_skills_callable() {
    let mut s = Session::new(Default::default());
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    let vol = MemoryVolume::new();
    s.mount("/skills", Box::new(vol.clone()), 0, false).unwrap();
    load_config(&s, &[("t.yaml", YAML)], &Default::default()).unwrap();
    select_toolset(&s, Some("small")).unwrap();
    add_skill(
        &vol,
        "lookup",
        "",
        Some(
            "tool: find\nrequiresApproval: true\ninputs:\n  - {name: id, type: integer, minValue: 1, description: Which row}\n",
        ),
    );
    add_skill(
        &vol,
        "seven",
        "metadata:\n  filestore.tool: find\n  filestore.arguments: '{id: 7}'\n",
        None,
    );
    add_skill(&vol, "broken", "", Some("tool: missing_tool\n"));
    add_skill(&vol, "find", "", Some("tool: find\n"));
    let ctx = InvokeContext::default();

    // Not callable until read.
    let out = invoke(&s, "lookup", &json!({"id": 1}), &ctx, &echo);
    assert_eq!(out.error.unwrap().kind(), ErrorKind::NotFound);

    let read = s.call("filestore_read", &json!({"path": "/skills/lookup/SKILL.md"})).unwrap();
    assert_eq!(read.json["activation"]["callable"], "lookup");
    assert!(read.text.contains("can be called as tool 'lookup'"), "{}", read.text);
    let listed = list_tools(&s, None).unwrap();
    let spec = listed.iter().find(|t| t["name"] == "lookup").expect("listed");
    assert_eq!(spec["description"], "Skill lookup");
    assert_eq!(spec["inputSchema"]["properties"]["id"]["type"], "integer");
    assert_eq!(spec["inputSchema"]["required"], json!(["id"]));
    assert_eq!(spec["annotations"]["requiresApproval"], true, "{spec}");

    // The skill's inputs are validated first, naming the skill's parameter.
    let bad = invoke(&s, "lookup", &json!({"id": 0}), &ctx, &echo);
    let e = bad.error.unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(e.to_string().contains("id"), "{e}");
    let bad = invoke(&s, "lookup", &json!({}), &ctx, &echo);
    assert!(bad.error.unwrap().to_string().contains("id"));
    // Approval, then the target runs with the validated inputs; stored under the skill.
    let out = invoke(&s, "lookup", &json!({"id": 3}), &ctx, &echo);
    assert_eq!(out.status, InvokeStatus::Pending);
    let done = approve(&s, &out.approval_id.unwrap(), &echo).unwrap();
    assert_eq!(done.status, InvokeStatus::Completed);
    assert_eq!(done.envelope["data"]["positional"], json!([3]));
    assert!(done.result_path.unwrap().starts_with("/tool_calls/lookup/"));

    // Metadata descriptor: fixed arguments the model cannot set; no approval.
    let read = s.call("filestore_read", &json!({"path": "/skills/seven/SKILL.md"})).unwrap();
    assert_eq!(read.json["activation"]["callable"], "seven");
    let out = invoke(&s, "seven", &json!({}), &ctx, &echo);
    assert_eq!(out.status, InvokeStatus::Completed, "{:?}", out.error);
    assert_eq!(out.envelope["data"]["positional"], json!([7]));
    let out = invoke(&s, "seven", &json!({"id": 8}), &ctx, &echo);
    assert_eq!(out.error.unwrap().kind(), ErrorKind::InvalidArgument);

    // A descriptor that does not bind: reported, the skill still reads.
    let read = s.call("filestore_read", &json!({"path": "/skills/broken/SKILL.md"})).unwrap();
    let why = read.json["activation"]["not_callable"].as_str().unwrap();
    assert!(why.contains("runs tool 'missing_tool'"), "{why}");
    assert!(read.text.contains("cannot be called"), "{}", read.text);
    // A skill named like an existing tool never shadows it.
    let read = s.call("filestore_read", &json!({"path": "/skills/find/SKILL.md"})).unwrap();
    assert!(read.json["activation"]["not_callable"].as_str().unwrap().contains("already exists"));
    let out = invoke(&s, "find", &json!({"id": 2}), &ctx, &echo);
    assert_eq!(out.envelope["data"]["args"], json!({"id": 2}));

    // An invalid sidecar written later fails the read with every reason.
    add_skill(&vol, "bad", "", Some("tool: find\nrequiresApproval: maybe\ncolour: red\n"));
    let e = s.call("filestore_read", &json!({"path": "/skills/bad/SKILL.md"})).unwrap_err();
    assert!(e.to_string().contains("requiresApproval must be true or false"), "{e}");
    assert!(e.to_string().contains("unknown field 'colour'"), "{e}");
}

#[test]
fn approval_parks_then_runs_or_drops() {
    let s = session();
    let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
    assert_eq!(out.status, InvokeStatus::Pending);
    let id = out.approval_id.unwrap();
    let done = approve(&s, &id, &echo).unwrap();
    assert_eq!(done.status, InvokeStatus::Completed);
    assert_eq!(approve(&s, &id, &echo).unwrap_err().kind(), ErrorKind::NotFound);
    let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
    let id = out.approval_id.unwrap();
    reject(&s, &id).unwrap();
    assert_eq!(reject(&s, &id).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn toolsets_and_activation() {
    let s = session();
    let v0 = tools_version(&s);
    select_toolset(&s, Some("small")).unwrap();
    assert!(tools_version(&s) > v0);
    let names: Vec<String> = list_tools(&s, None)
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.contains(&"find".to_string()) && !names.contains(&"drop".to_string()));
    let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
    assert!(out.text.contains("not in the selected toolset"), "{}", out.text);
    assert_eq!(activate(&s, &["drop"]).unwrap(), 1);
    let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
    assert_eq!(out.status, InvokeStatus::Pending);
    assert_eq!(select_toolset(&s, Some("nope")).unwrap_err().kind(), ErrorKind::NotFound);
    let out = invoke(&s, "nope", &json!({}), &InvokeContext::default(), &echo);
    assert_eq!(out.envelope["error"]["code"], "not-found");
}

#[test]
fn large_results_are_offloaded() {
    let s = session();
    let big = |_: &ExternalCall| -> Result<String> {
        let rows: Vec<Value> = (0..5000).map(|i| json!({"i": i, "pad": "x".repeat(40)})).collect();
        Ok(Value::Array(rows).to_string())
    };
    let out = invoke(&s, "find", &json!({"id": 1}), &InvokeContext::default(), &big);
    assert!(out.offloaded);
    assert!(out.text.len() < 10_000);
    assert!(out.text.contains(out.result_path.as_deref().unwrap()));
    assert!(out.envelope.get("data").is_none());
    let err = |_: &ExternalCall| -> Result<String> { Err(Error::new(ErrorKind::Backend, "boom")) };
    let out = invoke(
        &s,
        "find",
        &json!({"id": 1}),
        &InvokeContext { tool_call_id: Some("e".into()), ..Default::default() },
        &err,
    );
    assert_eq!(out.envelope["error"]["code"], "backend");
    assert!(!results::call_dir_exists(s.mounts(), "find", "e"));
}

fn tool_names(s: &Session) -> Vec<String> {
    list_tools(s, None).unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

/// A skill's authority comes from the mount the host gave that role, `/skills`, so a
/// file an agent can write elsewhere cannot grant tools. A `SKILL.md` typed `skill` anywhere else (a workspace an
/// embedder's volume types so, a volume at `/` holding a `skills` folder) reads as
/// text and enables nothing.
#[test]
fn skills_activate_only_from_the_skills_mount() {
    let mut s = Session::new(Default::default());
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    let (root, work, skills) = (MemoryVolume::new(), MemoryVolume::new(), MemoryVolume::new());
    s.mount("/", Box::new(root.clone()), 0, true).unwrap();
    s.mount("/w", Box::new(work.clone()), 0, false).unwrap();
    load_config(&s, &[("t.yaml", YAML)], &Default::default()).unwrap();
    select_toolset(&s, Some("small")).unwrap();
    let front = "allowed-tools: drop filestore_delete\n";
    add_skill(&work, "evil", front, Some("tool: drop\n"));
    let typed = crate::vfs::volume::WriteOptions {
        entry_type: Some(crate::skills::skill::TYPE_SKILL.into()),
        ..Default::default()
    };
    let md = format!("---\nname: evil\ndescription: Skill evil\n{front}---\nDo it.\n");
    crate::vfs::volume::Volume::write(&root, "/skills/evil/SKILL.md", md.as_bytes(), &typed)
        .unwrap();
    let before = tool_names(&s);
    assert!(!before.contains(&"drop".to_string()), "{before:?}");
    for path in ["/w/evil/SKILL.md", "/skills/evil/SKILL.md"] {
        let read = s.call("filestore_read", &json!({"path": path})).unwrap();
        assert!(read.json.get("activation").is_none(), "{path}: {}", read.json);
        assert_eq!(tool_names(&s), before, "{path}");
    }
    // The same skill served by the /skills mount is one.
    s.mount("/skills", Box::new(skills.clone()), 0, true).unwrap();
    add_skill(&skills, "good", front, None);
    let read = s.call("filestore_read", &json!({"path": "/skills/good/SKILL.md"})).unwrap();
    assert_eq!(read.json["activation"]["added"], json!(["drop"]), "{}", read.json);
}

/// A `descriptor.yaml` beside a loaded skill that was not loaded
/// with it (a plain file from another overlay layer at `/skills`) is not the
/// skill's: it cannot make the skill a tool running what its writer chose.
#[test]
fn a_descriptor_not_loaded_with_its_skill_is_ignored() {
    use crate::vfs::volume::Volume;
    let mut s = Session::new(Default::default());
    s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
    let (loaded, layer) = (MemoryVolume::new(), MemoryVolume::new());
    s.mount("/skills", Box::new(loaded.clone()), 0, true).unwrap();
    s.mount("/skills", Box::new(layer.clone()), 1, false).unwrap();
    load_config(&s, &[("t.yaml", YAML)], &Default::default()).unwrap();
    add_skill(&loaded, "plain", "", None);
    layer
        .write(
            "/plain/descriptor.yaml",
            b"tool: drop\n",
            &crate::vfs::volume::WriteOptions::default(),
        )
        .unwrap();
    let read = s.call("filestore_read", &json!({"path": "/skills/plain/SKILL.md"})).unwrap();
    assert!(read.json["activation"].get("callable").is_none(), "{}", read.json);
    assert!(!tool_names(&s).contains(&"plain".to_string()));
    let out = invoke(&s, "plain", &json!({}), &InvokeContext::default(), &echo);
    assert_eq!(out.error.unwrap().kind(), ErrorKind::NotFound);
}
