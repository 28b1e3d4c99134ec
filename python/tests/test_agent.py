"""A deepagents agent whose file tools run on a FilestoreBackend.

The model is langchain_core's `GenericFakeChatModel` scripted to call the agent's
tools (no network, no API key): it writes a file, reads it back, edits it, lists
and greps, then answers. The file must be on disk under the backend's root, and the
tool results the model saw must be the backend's answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from filestore.deepagents import FilestoreBackend


class ToolCallingFakeModel(GenericFakeChatModel):
    """`GenericFakeChatModel` that accepts tools (deepagents binds its file tools)."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """The scripted answers do not depend on the tools: return the model itself."""
        return self


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    """An assistant turn that calls one tool."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


def script() -> list[AIMessage]:
    """The model's turns: write, read, edit, ls, grep, then a final answer."""
    return [
        call("write_file", {"file_path": "/notes/plan.md", "content": "# Plan\n- write the backend\n"}, "c1"),
        call("read_file", {"file_path": "/notes/plan.md"}, "c2"),
        call("edit_file", {"file_path": "/notes/plan.md", "old_string": "write", "new_string": "test"}, "c3"),
        call("ls", {"path": "/notes"}, "c4"),
        call("grep", {"pattern": "backend"}, "c5"),
        AIMessage(content="Done: /notes/plan.md holds the plan."),
    ]


def tool_results(result: dict[str, Any]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in result["messages"] if isinstance(m, ToolMessage)}


def test_agent_writes_and_reads_through_filestore(root: Path) -> None:
    with FilestoreBackend(root) as backend:
        agent = create_deep_agent(model=ToolCallingFakeModel(messages=iter(script())), backend=backend)
        result = agent.invoke({"messages": [{"role": "user", "content": "Write a plan to /notes/plan.md"}]})
    assert (root / "notes" / "plan.md").read_text() == "# Plan\n- test the backend\n"
    out = tool_results(result)
    assert set(out) == {"c1", "c2", "c3", "c4", "c5"}
    assert all(m.status == "success" for m in out.values()), {k: m.content for k, m in out.items()}
    assert "- write the backend" in out["c2"].content  # read before the edit, with deepagents' line numbers
    assert "/notes/plan.md" in out["c4"].content
    assert "/notes/plan.md" in out["c5"].content
    assert result["messages"][-1].content == "Done: /notes/plan.md holds the plan."


async def test_agent_runs_async_through_filestore(root: Path) -> None:
    (root / "data.txt").write_text("forty-two\n")
    turns = [
        call("read_file", {"file_path": "/data.txt"}, "r1"),
        call("write_file", {"file_path": "/answer.txt", "content": "42\n"}, "w1"),
        AIMessage(content="The answer is 42."),
    ]
    with FilestoreBackend(root) as backend:
        agent = create_deep_agent(model=ToolCallingFakeModel(messages=iter(turns)), backend=backend)
        result = await agent.ainvoke({"messages": [{"role": "user", "content": "Read /data.txt"}]})
    out = tool_results(result)
    assert "forty-two" in out["r1"].content
    assert out["w1"].status == "success"
    assert (root / "answer.txt").read_text() == "42\n"


def test_agent_sees_a_refused_escape_as_a_tool_error(root: Path, outside: Path) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    turns = [
        call("read_file", {"file_path": "/link.txt"}, "x1"),
        call("write_file", {"file_path": "/../outside/planted.txt", "content": "x"}, "x2"),
        AIMessage(content="Could not."),
    ]
    with FilestoreBackend(root) as backend:
        agent = create_deep_agent(model=ToolCallingFakeModel(messages=iter(turns)), backend=backend)
        result = agent.invoke({"messages": [{"role": "user", "content": "Read the secret"}]})
    out = tool_results(result)
    assert "top secret" not in out["x1"].content
    assert out["x2"].status == "error"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
