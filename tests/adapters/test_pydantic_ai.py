"""PydanticAI: real agent runs with ``FunctionModel`` (scripted) and ``TestModel``.

The scripted model asks for a kept file, an ignored file and a secret; the test asserts the
tool return parts the model received on its next request.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset

from pathgate import Runtime
from pathgate.adapters.pydantic_ai import PathgateToolset, PathgateWrapperToolset

pytestmark = pytest.mark.anyio

PATHS = ["src/app.py", "build/out.js", ".env"]


class Script:
    """A FunctionModel body: the scripted tool calls first, then 'done'; keeps what it saw."""

    def __init__(self, *calls: tuple[str, dict[str, Any]]) -> None:
        self.calls = calls
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        if len(self.seen) == 1:
            return ModelResponse(parts=[ToolCallPart(n, a, tool_call_id=f"call_{i}")
                                        for i, (n, a) in enumerate(self.calls)])
        return ModelResponse(parts=[TextPart("done")])

    def returned(self) -> list[Any]:
        """The tool results (returns and retry prompts) the model received."""
        last = self.seen[-1][-1]
        assert isinstance(last, ModelRequest)
        return [p for p in last.parts if p.part_kind in ("tool-return", "retry-prompt")]


async def test_agent_reads_kept_ignored_and_secret(project: Path) -> None:
    script = Script(("read_files", {"paths": PATHS}))
    agent = Agent(FunctionModel(script), toolsets=[PathgateToolset(Runtime(project))])
    result = await agent.run("read them")
    assert result.output == "done"
    (part,) = script.returned()
    assert isinstance(part, ToolReturnPart) and part.tool_name == "read_files"
    content = part.content
    assert content["src/app.py"] == "print('hello')\n"
    assert content["build/out.js"].startswith("[BLOCKED]: ")
    assert ".gitignore:1:build/" in content["build/out.js"]
    assert content[".env"] == "[BLOCKED]"
    assert "hunter2" not in part.model_response_str()
    files = part.metadata["pathgate"]["files"]
    assert [f["status"] for f in files] == ["ok", "blocked", "blocked"]
    assert files[2] == {"path": ".env", "status": "blocked"}


async def test_rendered_for_the_runs_model(project: Path) -> None:
    rt = Runtime(project, renderers=[("function:*", "sentinel")])
    script = Script(("read_files", {"paths": PATHS}))
    await Agent(FunctionModel(script), toolsets=[PathgateToolset(rt)]).run("go")
    (part,) = script.returned()
    assert part.content == {"src/app.py": "print('hello')\n", "build/out.js": "[BLOCKED]", ".env": "[BLOCKED]"}

    script = Script(("read_files", {"paths": PATHS}))
    await Agent(FunctionModel(script), toolsets=[PathgateToolset(rt, model="gpt-x", renderer="structured")]).run("go")
    (part,) = script.returned()
    assert [f["status"] for f in part.content["files"]] == ["ok", "blocked", "blocked"]


async def test_bad_argument_asks_the_model_to_retry(project: Path) -> None:
    script = Script(("read_files", {"paths": "src/app.py"}), ("glob", {"pattern": "**/*"}))
    await Agent(FunctionModel(script), toolsets=[PathgateToolset(Runtime(project))]).run("go")
    retry, found = script.returned()
    assert isinstance(retry, ToolReturnPart) and retry.outcome == "retried"
    assert "`paths`" in str(retry.content)
    assert isinstance(found, ToolReturnPart)
    assert found.content["matches"] == [".gitignore", "src/app.py"]
    assert "1 match omitted by ignore rules, e.g. build/out.js" in found.content["notes"]


async def test_test_model_calls_every_tool(project: Path) -> None:
    agent = Agent(TestModel(call_tools=["list_directory"]), toolsets=[PathgateToolset(Runtime(project))])
    result = await agent.run("go")
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    (listed,) = returns
    assert "src/" in listed.content["entries"]
    assert ".env" not in listed.content["entries"] and "build/" not in listed.content["entries"]


async def test_wrapper_gates_another_tools_path_arguments(project: Path) -> None:
    opened: list[str] = []
    tools = FunctionToolset()

    @tools.tool_plain
    def open_file(path: str) -> str:
        """Open a file the host's way."""
        opened.append(path)
        return (project / path).read_text()

    script = Script(("open_file", {"path": "src/app.py"}), ("open_file", {"path": "build/out.js"}),
                    ("open_file", {"path": ".env"}))
    agent = Agent(FunctionModel(script), toolsets=[PathgateWrapperToolset(tools, runtime=Runtime(project))])
    await agent.run("go")
    kept, ignored, secret = script.returned()
    assert opened == ["src/app.py"]
    assert kept.content == "print('hello')\n"
    assert "[BLOCKED]: " in ignored.content and ".gitignore:1:build/" in ignored.content
    assert ignored.metadata == {"pathgate_blocked": ["build/out.js"]}
    assert secret.content.endswith('{".env":"[BLOCKED]"}')
    assert "hunter2" not in secret.model_response_str()


async def test_wrapper_gates_a_write_tools_paths_with_the_write_gates(project: Path) -> None:
    written: list[str] = []
    tools = FunctionToolset()

    @tools.tool_plain
    def save_file(path: str, content: str) -> str:
        """Save a file the host's way."""
        written.append(path)
        return "saved"

    @tools.tool_plain
    def open_file(path: str) -> str:
        """Open a file the host's way."""
        return (project / path).read_text()

    (project / "pathgate.toml").write_text("read_budget = 1000\n")
    script = Script(("save_file", {"path": "src/new.py", "content": "x"}),
                    ("save_file", {"path": "pathgate.toml", "content": "enforce_secrets = false"}),
                    ("open_file", {"path": "pathgate.toml"}))
    wrapper = PathgateWrapperToolset(tools, runtime=Runtime(project), write_tools=frozenset({"save_file"}))
    await Agent(FunctionModel(script), toolsets=[wrapper]).run("go")
    saved, refused, opened = script.returned()
    assert written == ["src/new.py"] and saved.content == "saved"
    assert refused.content.startswith("save_file was not run")
    assert refused.metadata == {"pathgate_blocked": ["pathgate.toml"]}
    assert opened.content == "read_budget = 1000\n"  # reading it is fine: only the write tool is judged as a write
