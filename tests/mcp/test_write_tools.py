"""The MCP server serves write_file / edit_file only with writes enabled."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import mcp_types as types
from mcp.client.stdio import StdioServerParameters

from mcp import Client
from pathgate import Runtime
from pathgate.mcp import build_server
from tests.mcp.test_server import SRC, TOOLS

pytestmark = pytest.mark.anyio


def _text(result: types.CallToolResult) -> object:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


async def test_read_only_by_default(project: Path) -> None:
    async with Client(build_server(Runtime(project))) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "x"})
    assert result.is_error is True and not (project / "a.txt").exists()


async def test_writes_enabled_in_memory(project: Path) -> None:
    async with Client(build_server(Runtime(project, allow_writes=True))) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS | {"write_file", "edit_file"}
        for name in ("write_file", "edit_file"):
            ann = tools[name].annotations
            assert ann is not None and ann.read_only_hint is False and ann.destructive_hint is True
            assert tools[name].output_schema is not None and tools[name].output_schema["type"] == "object"
        assert tools["read_files"].annotations.read_only_hint is True  # type: ignore[union-attr]
        not_read = await client.call_tool("edit_file", {"path": "src/app.py", "old_string": "TOKEN",
                                                        "new_string": "T"})
        assert not_read.is_error is False
        assert _text(not_read)["src/app.py"].startswith("[FILE_NOT_READ]")  # type: ignore[index]
        assert not_read.structured_content == {"files": [{"path": "src/app.py", "status": "file_not_read",
                                                          "gate": "write"}]}
        await client.call_tool("read_files", {"paths": ["src/app.py"]})
        done = await client.call_tool("edit_file", {"path": "src/app.py", "old_string": "TOKEN",
                                                    "new_string": "T", "replace_all": True})
        assert done.structured_content["files"][0]["replacements"] == 2  # type: ignore[index]
        secret = await client.call_tool("write_file", {"path": ".env", "content": "x"})
        assert _text(secret) == {".env": "[BLOCKED]"}
    assert (project / "src/app.py").read_text() == "T = 'from app'\nprint(T)\n"
    assert (project / ".env").read_text() == "TOKEN=hunter2\n"


async def test_cli_allow_writes_over_stdio(project: Path) -> None:
    env = {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    args = ["-m", "pathgate", "mcp", "--root", str(project), "--allow-writes"]
    async with Client(StdioServerParameters(command=sys.executable, args=args, env=env),
                      read_timeout_seconds=60) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("write_file", {"path": "new.txt", "content": "hi\n"})
    assert {"write_file", "edit_file"} <= names
    assert result.structured_content == {"files": [{"path": "new.txt", "status": "ok", "created": True,
                                                    "size": 3, "replacements": 0}]}
    assert (project / "new.txt").read_text() == "hi\n"
