"""`FilestoreSandbox`: deepagents' `execute` run by filestore's shell, for real.

Every test starts a real `filestore serve --shell` over a temporary root; the agent
test runs `create_deep_agent`, whose `execute` tool deepagents adds only for a
`SandboxBackendProtocol` backend.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from deepagents import create_deep_agent
from deepagents.backends.protocol import SandboxBackendProtocol
from langchain_core.messages import AIMessage
from test_agent import ToolCallingFakeModel, call, tool_results

from filestore.deepagents import FilestoreBackend, FilestoreSandbox


@pytest.fixture
def sandbox(root: Path):
    sb = FilestoreSandbox(root)
    try:
        yield sb
    finally:
        sb.close()


def test_the_sandbox_is_a_sandbox_backend_and_the_plain_backend_is_not(sandbox: FilestoreSandbox, root: Path) -> None:
    assert isinstance(sandbox, SandboxBackendProtocol)
    assert not isinstance(FilestoreBackend.__new__(FilestoreBackend), SandboxBackendProtocol)
    assert sandbox.id.startswith("filestore-")
    assert str(root) in repr(sandbox)


def test_execute_runs_pipelines_over_the_root(sandbox: FilestoreSandbox, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("import os\n# TODO one\n")
    (root / "src" / "b.py").write_text("# TODO two\n# TODO three\n")
    r = sandbox.execute("grep -rc TODO src | sort")
    assert (r.output, r.exit_code, r.truncated) == ("src/a.py:1\nsrc/b.py:2\n", 0, False)
    r = sandbox.execute("cat > notes.md <<'EOF'\n# Notes\nfrom the shell\nEOF\nwc -l < notes.md")
    assert r.output.strip() == "2"
    assert (root / "notes.md").read_text() == "# Notes\nfrom the shell\n"
    # The file tools see what the shell wrote, and the other way round.
    assert sandbox.read("/notes.md").file_data["content"].startswith("# Notes")


def test_python3_runs_over_the_root(sandbox: FilestoreSandbox, root: Path) -> None:
    # Real CPython in an instance of its own, over the same files the shell sees.
    (root / "people.csv").write_text("name,age\nann,34\nbob,27\n")
    r = sandbox.execute(
        "python3 -c 'import csv; rows = list(csv.DictReader(open(\"people.csv\"))); "
        "open(\"total.txt\", \"w\").write(str(sum(int(r[\"age\"]) for r in rows)))' && cat total.txt"
    )
    assert (r.output, r.exit_code) == ("61", 0)
    assert (root / "total.txt").read_text() == "61"
    r = sandbox.execute("python3 -c 'open(\"/etc/passwd\")'")
    assert r.exit_code == 1 and "FileNotFoundError" in r.output


async def test_aexecute_reports_exit_codes_and_stderr(sandbox: FilestoreSandbox) -> None:
    r = await sandbox.aexecute("echo out; echo err >&2; exit 3")
    assert r.exit_code == 3
    assert r.output == "out\nerr\n"
    r = await sandbox.aexecute("cat /no/such/file")
    assert r.exit_code != 0 and "/no/such/file" in r.output


def test_execute_is_confined_to_the_root(sandbox: FilestoreSandbox, root: Path, outside: Path) -> None:
    (root / "link").symlink_to(outside)
    for command in [
        "cat ../outside/secret.txt",
        f"cat {outside}/secret.txt",
        "cd ..; cd ..; cat outside/secret.txt",
        "cat link/secret.txt",
        "cat /etc/passwd",
    ]:
        r = sandbox.execute(command)
        assert r.exit_code != 0, command
        assert "top secret" not in r.output and "root:" not in r.output, command
    r = sandbox.execute("echo planted > ../outside/planted.txt; echo x > link/planted.txt")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_a_runaway_command_is_stopped_by_a_limit_and_the_sandbox_stays_usable(sandbox: FilestoreSandbox) -> None:
    r = sandbox.execute("while true; do :; done", timeout=2)
    assert r.exit_code == 124
    assert "limit-exceeded" in r.output
    assert sandbox.execute("echo still here").output == "still here\n"


def test_a_negative_timeout_is_a_value_error(sandbox: FilestoreSandbox) -> None:
    with pytest.raises(ValueError, match="non-negative"):
        sandbox.execute("true", timeout=-1)


def test_an_agent_gets_execute_from_the_sandbox(root: Path) -> None:
    (root / "data.csv").write_text("b,2\na,1\nc,3\n")
    turns = [
        call("execute", {"command": "sort data.csv | cut -d, -f1 | tr -d '\\n'"}, "e1"),
        call("execute", {"command": "seq 3 > three.txt && wc -l three.txt"}, "e2"),
        call("execute", {"command": "exit 7"}, "e3"),
        AIMessage(content="Sorted."),
    ]
    with FilestoreSandbox(root) as sandbox:
        agent = create_deep_agent(model=ToolCallingFakeModel(messages=iter(turns)), backend=sandbox)
        result = agent.invoke({"messages": [{"role": "user", "content": "Sort the data"}]})
    out = tool_results(result)
    assert "abc" in out["e1"].content, out["e1"].content
    assert "3 three.txt" in out["e2"].content
    assert "7" in out["e3"].content
    assert (root / "three.txt").read_text() == "1\n2\n3\n"
