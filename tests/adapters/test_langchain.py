"""LangChain 1.x: a real ``create_agent`` loop with a scripted fake chat model.

The fake model asks for a kept file, an ignored file and a secret; the test asserts what the
model received back (the ``ToolMessage`` it reads on its next turn).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import Field

from pathgate import Runtime
from pathgate.adapters.langchain import PathgateMiddleware, pathgate_tools

PATHS = ["src/app.py", "build/out.js", ".env"]


class ScriptedModel(FakeMessagesListChatModel):
    """Answers with the scripted messages in turn and remembers what it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(calls: list[tuple[str, dict[str, Any]]], model_name: str | None = None) -> ScriptedModel:
    meta = {"model_name": model_name} if model_name else {}
    first = AIMessage(content="", response_metadata=meta,
                      tool_calls=[{"name": n, "args": a, "id": f"call_{i}"} for i, (n, a) in enumerate(calls)])
    return ScriptedModel(responses=[first, AIMessage(content="done")])


def tool_messages(model: ScriptedModel) -> list[ToolMessage]:
    assert len(model.seen) == 2, "the model is called again after the tools ran"
    return [m for m in model.seen[1] if isinstance(m, ToolMessage)]


pytestmark = pytest.mark.anyio


async def test_agent_reads_kept_ignored_and_secret(project: Path) -> None:
    model = scripted([("read_files", {"paths": PATHS})])
    agent = create_agent(model, middleware=[PathgateMiddleware(Runtime(project))])
    await agent.ainvoke({"messages": [HumanMessage("read them")]})
    (msg,) = tool_messages(model)
    assert msg.status == "success"
    assert msg.tool_call_id == "call_0" and msg.name == "read_files"
    content = json.loads(str(msg.content))
    assert content["src/app.py"] == "print('hello')\n"
    assert content["build/out.js"].startswith("[BLOCKED]: ")
    assert ".gitignore:1:build/" in content["build/out.js"]
    assert content[".env"] == "[BLOCKED]"
    assert "hunter2" not in str(msg.content)
    files = msg.artifact["files"]
    assert [f["status"] for f in files] == ["ok", "blocked", "blocked"]
    assert files[1]["rule"]["pattern"] == "build/" and files[2] == {"path": ".env", "status": "blocked"}


def test_sync_agent_gets_the_same_answer(project: Path) -> None:
    model = scripted([("read_files", {"paths": PATHS})])
    agent = create_agent(model, middleware=[PathgateMiddleware(Runtime(project))])
    agent.invoke({"messages": [HumanMessage("read them")]})
    (msg,) = tool_messages(model)
    content = json.loads(str(msg.content))
    assert content["src/app.py"] == "print('hello')\n"
    assert content["build/out.js"].startswith("[BLOCKED]: ")
    assert content[".env"] == "[BLOCKED]"


async def test_rendered_for_the_model_that_called(project: Path) -> None:
    rt = Runtime(project, renderers=[("gpt-4o-mini*", "structured"), ("legacy-*", "sentinel")])
    model = scripted([("read_files", {"paths": PATHS})], model_name="gpt-4o-mini-2024-07-18")
    agent = create_agent(model, middleware=[PathgateMiddleware(rt)])
    await agent.ainvoke({"messages": [HumanMessage("read them")]})
    (msg,) = tool_messages(model)
    files = json.loads(str(msg.content))["files"]
    assert [f["status"] for f in files] == ["ok", "blocked", "blocked"]
    assert files[1]["gate"] == "ignore"
    assert files[2] == {"path": ".env", "status": "blocked"}

    # No model name on the message: the middleware's own default decides.
    model = scripted([("read_files", {"paths": PATHS})])
    agent = create_agent(model, middleware=[PathgateMiddleware(rt, model="legacy-1")])
    await agent.ainvoke({"messages": [HumanMessage("read them")]})
    (msg,) = tool_messages(model)
    assert json.loads(str(msg.content))["build/out.js"] == "[BLOCKED]"


async def test_bad_arguments_fail_the_call_and_discovery_notes_omissions(project: Path) -> None:
    model = scripted([("read_files", {"paths": "src/app.py"}), ("glob", {"pattern": "**/*"})])
    agent = create_agent(model, middleware=[PathgateMiddleware(Runtime(project))])
    await agent.ainvoke({"messages": [HumanMessage("go")]})
    bad, found = tool_messages(model)
    assert bad.status == "error" and "`paths`" in str(bad.content)
    assert found.status == "success"
    data = json.loads(str(found.content))
    assert data["matches"] == [".gitignore", "src/app.py"]
    assert "1 match omitted by ignore rules, e.g. build/out.js" in data["notes"]


async def test_other_tools_pass_through(project: Path) -> None:
    @tool
    def shout(text: str) -> str:
        """Shout the text."""
        return text.upper()

    model = scripted([("shout", {"text": "hi"}), ("list_directory", {"path": "."})])
    agent = create_agent(model, tools=[shout], middleware=[PathgateMiddleware(Runtime(project))])
    await agent.ainvoke({"messages": [HumanMessage("go")]})
    shouted, listed = tool_messages(model)
    assert shouted.content == "HI"
    entries = json.loads(str(listed.content))["entries"]
    assert "src/" in entries and ".env" not in entries and "build/" not in entries


async def test_pathgate_tools_without_the_middleware(project: Path) -> None:
    tools = {t.name: t for t in pathgate_tools(Runtime(project))}
    assert set(tools) == {"read_files", "glob", "list_directory", "code_search"}
    assert tools["read_files"].args == tools["read_files"].args_schema["properties"]  # type: ignore[index]
    out = json.loads(await tools["read_files"].ainvoke({"paths": PATHS}))
    assert out["src/app.py"] == "print('hello')\n" and out[".env"] == "[BLOCKED]"
    out = json.loads(tools["read_files"].invoke({"paths": [".env"]}))
    assert out == {".env": "[BLOCKED]"}
    model = scripted([("read_files", {"paths": PATHS})])
    agent = create_agent(model, tools=pathgate_tools(Runtime(project), model="x"))
    await agent.ainvoke({"messages": [HumanMessage("go")]})
    (msg,) = tool_messages(model)
    assert json.loads(str(msg.content))[".env"] == "[BLOCKED]"
