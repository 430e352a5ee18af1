"""The write tools reach frameworks only when the host enables writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.adapters._common import BUILTIN_TOOLS, WRITE_TOOLS, call_tool_twice_rendered, tool_infos

pytestmark = pytest.mark.anyio


def test_tool_infos_list_writes_only_when_enabled(project: Path) -> None:
    assert [i.name for i in tool_infos(Runtime(project))] == list(BUILTIN_TOOLS)
    infos = tool_infos(Runtime(project, allow_writes=True))
    assert [i.name for i in infos] == list(BUILTIN_TOOLS + WRITE_TOOLS)
    by_name = {i.name: i for i in infos}
    assert by_name["write_file"].schema["required"] == ["path", "content"]
    assert set(by_name["edit_file"].schema["properties"]) == {"path", "old_string", "new_string", "replace_all"}
    with pytest.raises(ValueError, match="write_file"):
        tool_infos(Runtime(project), ["write_file"])


async def test_one_run_two_renders(anyio_backend: str, project: Path) -> None:
    rt = Runtime(project, Policy(allow_writes=True))
    text, structured = await call_tool_twice_rendered(rt, "write_file", {"path": "src/new.py", "content": "x\n"},
                                                      agent="A")
    assert text == {"src/new.py": "[OK]: Created src/new.py (2 bytes)."}
    assert structured["files"][0]["status"] == "ok"
    text, structured = await call_tool_twice_rendered(rt, "write_file", {"path": ".env", "content": "x"})
    assert text == {".env": "[BLOCKED]"} and structured == {"files": [{"path": ".env", "status": "blocked"}]}


def test_langchain_tools_follow_the_runtime(project: Path) -> None:
    pytest.importorskip("langchain")
    from pathgate.adapters.langchain import pathgate_tools

    assert "write_file" not in {t.name for t in pathgate_tools(Runtime(project))}
    tools = {t.name: t for t in pathgate_tools(Runtime(project, allow_writes=True), agent="A")}
    assert {"write_file", "edit_file"} <= set(tools)
    out = json.loads(tools["write_file"].invoke({"path": "n.txt", "content": "hi"}))
    assert out == {"n.txt": "[OK]: Created n.txt (2 bytes)."}
    assert (project / "n.txt").read_text() == "hi"
