"""OpenAI Agents SDK: real ``Runner`` loops with the SDK's ``ScriptedModel`` (no network).

The scripted model asks for a kept file, an ignored file and a secret; the test asserts the
``function_call_output`` items the model received on its next call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

from pathgate import Runtime
from pathgate.adapters.openai_agents import path_guardrail, pathgate_tools

pytestmark = pytest.mark.anyio

PATHS = ["src/app.py", "build/out.js", ".env"]
#: No trace export (it would need the network).
OFFLINE = RunConfig(tracing_disabled=True)


def script(*calls: tuple[str, dict[str, Any]]) -> ScriptedModel:
    first = ModelStep(output=[function_call(n, a, call_id=f"call_{i}") for i, (n, a) in enumerate(calls)])
    return ScriptedModel([first, ModelStep(output=[assistant_message("done")])])


def outputs(model: ScriptedModel) -> dict[str, str]:
    """What the model received back, by call id."""
    last = model.last_call
    assert last is not None and len(model.calls) == 2
    return {item["call_id"]: item["output"] for item in last.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"}


async def test_agent_reads_kept_ignored_and_secret(project: Path) -> None:
    model = script(("read_files", {"paths": PATHS}))
    agent = Agent(name="coder", model=model, tools=pathgate_tools(Runtime(project)))
    result = await Runner.run(agent, "read them", run_config=OFFLINE)
    assert result.final_output == "done"
    content = json.loads(outputs(model)["call_0"])
    assert content["src/app.py"] == "print('hello')\n"
    assert content["build/out.js"].startswith("[BLOCKED]: ")
    assert ".gitignore:1:build/" in content["build/out.js"]
    assert content[".env"] == "[BLOCKED]"
    assert "hunter2" not in outputs(model)["call_0"]


async def test_rendered_for_the_agents_model_name(project: Path) -> None:
    rt = Runtime(project, renderers=[("legacy-*", "sentinel")])
    model = script(("read_files", {"paths": PATHS}))
    agent = Agent(name="coder", model=model, tools=pathgate_tools(rt, model="legacy-2"))
    await Runner.run(agent, "read them", run_config=OFFLINE)
    assert json.loads(outputs(model)["call_0"]) == {
        "src/app.py": "print('hello')\n", "build/out.js": "[BLOCKED]", ".env": "[BLOCKED]"}


async def test_bad_argument_and_discovery_omissions(project: Path) -> None:
    model = script(("read_files", {"paths": "src/app.py"}), ("glob", {"pattern": "**/*"}))
    agent = Agent(name="coder", model=model, tools=pathgate_tools(Runtime(project)))
    await Runner.run(agent, "go", run_config=OFFLINE)
    out = outputs(model)
    assert "`paths`" in out["call_0"] and "Expected `array`" in out["call_0"]
    found = json.loads(out["call_1"])
    assert found["matches"] == [".gitignore", "src/app.py"]
    assert "1 match omitted by ignore rules, e.g. build/out.js" in found["notes"]


async def test_guardrail_gates_another_tools_path(project: Path) -> None:
    opened: list[str] = []
    guard = path_guardrail(Runtime(project))

    @function_tool(tool_input_guardrails=[guard])
    def open_file(path: str) -> str:
        """Open a file the host's way."""
        opened.append(path)
        return (project / path).read_text()

    model = script(("open_file", {"path": "src/app.py"}), ("open_file", {"path": "build/out.js"}),
                   ("open_file", {"path": ".env"}), ("open_file", {"path": "../outside.txt"}))
    agent = Agent(name="coder", model=model, tools=[open_file])
    result = await Runner.run(agent, "go", run_config=OFFLINE)
    out = outputs(model)
    assert opened == ["src/app.py"]
    assert out["call_0"] == "print('hello')\n"
    assert out["call_1"].startswith("open_file was not run")
    assert "[BLOCKED]: " in out["call_1"] and ".gitignore:1:build/" in out["call_1"]
    assert out["call_2"].endswith('{".env":"[BLOCKED]"}')
    assert "hunter2" not in json.dumps(out)
    assert "[FILE_OUTSIDE_PROJECT]" in out["call_3"]
    rejected = [r for r in result.tool_input_guardrail_results if r.output.behavior["type"] == "reject_content"]
    assert sorted(b for r in rejected for b in r.output.output_info["blocked"]) == [
        "../outside.txt", ".env", "build/out.js"]


async def test_guardrail_in_write_mode_refuses_what_an_agent_may_not_write(project: Path) -> None:
    written: list[str] = []

    @function_tool(tool_input_guardrails=[path_guardrail(Runtime(project), writes=True)])
    def save_file(path: str, content: str) -> str:
        """Save a file the host's way."""
        written.append(path)
        return "saved"

    model = script(("save_file", {"path": "src/new.py", "content": "x"}),
                   ("save_file", {"path": ".claude/settings.json", "content": "{}"}),
                   ("save_file", {"path": ".env", "content": "x"}))
    agent = Agent(name="coder", model=model, tools=[save_file])
    await Runner.run(agent, "go", run_config=OFFLINE)
    out = outputs(model)
    assert written == ["src/new.py"] and out["call_0"] == "saved"
    assert out["call_1"].startswith("save_file was not run")
    assert out["call_2"].endswith('{".env":"[BLOCKED]"}')
