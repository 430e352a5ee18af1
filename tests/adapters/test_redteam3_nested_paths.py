"""Red-team round 3, F3: path arguments nested under a path key, and ``~`` paths.

``{"files": [{"path": ".env"}]}`` and ``{"source": {"path": ".env"}}`` used to pass the
guard unjudged (the host tool then read the secret); a path key holding a value the guard
cannot judge refuses the call; ``~/x`` is judged as the home path a host tool may expand it to.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.adapters._common import guard_arguments, path_arguments, scan_arguments

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("args", "paths"), [
    ({"files": [{"path": ".env"}]}, [".env"]),
    ({"source": {"path": ".env"}}, [".env"]),
    ({"files": [{"path": "a"}, {"file_path": "b", "size": 3}], "dir": None}, ["a", "b"]),
    ({"paths": [["a", ["b"]], {"path": "c"}]}, ["a", "b", "c"]),
    ({"source": {"repo": "x", "paths": ["a"]}}, ["a"]),
    ({"req": {"sub": [{"target_file": "t"}]}}, ["t"]),
    ({"path": PurePosixPath(".env")}, [".env"]),
    ({"files": (".env", "a")}, [".env", "a"]),
    ({"path": 3, "file": True, "dir": 1.5, "paths": [None]}, []),
    ({"name": ".env", "other": [".env"]}, []),
])
def test_scan_finds_nested_paths(args: dict[str, Any], paths: list[str]) -> None:
    scan = scan_arguments(args)
    assert scan.paths == paths and scan.unjudged == []
    assert path_arguments(args) == paths


class _Opaque:
    path = ".env"


@pytest.mark.parametrize(("args", "where"), [
    ({"path": _Opaque()}, ["path"]),
    ({"files": [{"path": "a"}, _Opaque()]}, ["files[1]"]),
    ({"source": {"path": b".env"}}, ["source.path"]),
])
def test_scan_fails_closed_on_a_value_it_cannot_judge(args: dict[str, Any], where: list[str]) -> None:
    assert scan_arguments(args).unjudged == where
    with pytest.raises(ValueError, match="cannot check"):
        path_arguments(args)


async def test_guard_refuses_unjudged_and_nested_secrets(project: Path) -> None:
    rt = Runtime(project)
    nested = await guard_arguments(rt, {"files": [{"path": "src/app.py"}, {"path": ".env"}]})
    assert nested.blocked == {".env": "[BLOCKED]"}
    opaque = await guard_arguments(rt, {"req": _Opaque()})  # not a path key: nothing to judge
    assert opaque.allowed
    assert (await guard_arguments(rt, {"req": _Opaque(), "path": "src/app.py"})).allowed
    refused = await guard_arguments(rt, {"path": _Opaque()})
    assert not refused.allowed and ".env" not in refused.message("t") and "hunter2" not in refused.message("t")


async def test_tilde_is_judged_as_the_home_path(project: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    rt = Runtime(project)
    monkeypatch.setenv("HOME", str(project))
    inside = await guard_arguments(rt, {"paths": ["~/.env", "~/src/app.py", "~"]})
    assert inside.blocked == {"~/.env": "[BLOCKED]"}
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    outside = await guard_arguments(rt, {"path": "~/notes.txt"})
    assert list(outside.blocked) == ["~/notes.txt"]
    assert "[FILE_OUTSIDE_PROJECT]" in outside.blocked["~/notes.txt"]
    assert str(tmp_path) not in outside.message("open_file")  # the expanded path is not shown


# -- through the frameworks ----------------------------------------------------------------

try:
    from pydantic import BaseModel
except ModuleNotFoundError:  # pragma: no cover - the pydantic test is skipped then
    BaseModel = object  # type: ignore[assignment,misc]


class FileRef(BaseModel):  # type: ignore[misc]
    path: str


@dataclasses.dataclass
class Source:
    path: str



async def test_pydantic_wrapper_gates_paths_in_models_and_dataclasses(project: Path) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.toolsets import FunctionToolset

    from pathgate.adapters.pydantic_ai import PathgateWrapperToolset
    from tests.adapters.test_pydantic_ai import Script

    opened: list[str] = []
    tools = FunctionToolset()

    @tools.tool_plain
    def read_many(files: list[FileRef]) -> str:
        """Read several files."""
        opened.extend(f.path for f in files)
        return "".join((project / f.path).read_text() for f in files)

    @tools.tool_plain
    def read_one(source: Source) -> str:
        """Read one file."""
        opened.append(source.path)
        return (project / source.path).read_text()

    script = Script(("read_many", {"files": [{"path": "src/app.py"}, {"path": ".env"}]}),
                    ("read_one", {"source": {"path": ".env"}}),
                    ("read_one", {"source": {"path": "src/app.py"}}))
    agent = Agent(FunctionModel(script), toolsets=[PathgateWrapperToolset(tools, runtime=Runtime(project))])
    await agent.run("go")
    many, one, kept = script.returned()
    assert opened == ["src/app.py"]
    assert many.content.endswith('{".env":"[BLOCKED]"}') and many.metadata == {"pathgate_blocked": [".env"]}
    assert one.content.endswith('{".env":"[BLOCKED]"}')
    assert kept.content == "print('hello')\n"
    assert all("hunter2" not in p.model_response_str() for p in (many, one))


async def test_openai_guardrail_gates_nested_paths(project: Path) -> None:
    pytest.importorskip("agents")
    from agents import Agent, Runner, function_tool

    from tests.adapters.test_openai_agents import OFFLINE, outputs, script

    opened: list[str] = []
    guard = path_guardrail_for(project)

    @function_tool(tool_input_guardrails=[guard])
    def read_many(files: list[FileRef]) -> str:
        """Read several files."""
        opened.extend(f.path for f in files)
        return "".join((project / f.path).read_text() for f in files)

    model = script(("read_many", {"files": [{"path": ".env"}]}),
                   ("read_many", {"files": [{"path": "src/app.py"}]}))
    await Runner.run(Agent(name="coder", model=model, tools=[read_many]), "go", run_config=OFFLINE)
    out = outputs(model)
    assert opened == ["src/app.py"]
    assert out["call_0"].endswith('{".env":"[BLOCKED]"}') and "hunter2" not in json.dumps(out)
    assert out["call_1"] == "print('hello')\n"


def path_guardrail_for(project: Path) -> Any:
    from pathgate.adapters.openai_agents import path_guardrail
    return path_guardrail(Runtime(project))


async def test_pydantic_wrapper_refuses_arguments_it_cannot_look_into(project: Path) -> None:
    pytest.importorskip("pydantic_ai")
    from types import SimpleNamespace

    from pydantic_ai.toolsets import FunctionToolset

    from pathgate.adapters.pydantic_ai import PathgateWrapperToolset

    wrapper = PathgateWrapperToolset(FunctionToolset(), runtime=Runtime(project))
    ctx = SimpleNamespace(model=None, tool_call_id="call_0")
    result = await wrapper.call_tool("open_file", {"req": _Opaque()}, ctx, None)  # type: ignore[arg-type]
    assert result.return_value.startswith("open_file was not run: pathgate refused")
    assert result.metadata == {"pathgate_blocked": ["arguments"]}
    assert ".env" not in result.return_value
