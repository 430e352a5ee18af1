"""Non-UTF-8 file names over MCP: every tool answers (no internal error), the structured
content validates against the declared output schema, and the spelled names read back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import mcp_types as types

from mcp import Client
from pathgate import Policy, Runtime
from pathgate.mcp import build_server

pytestmark = pytest.mark.anyio

SPELLED = '"docs/r\\351sum\\351.txt"'


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    os.makedirs(os.fsencode(root) + b"/docs")
    with open(os.fsencode(root) + b"/docs/r\xe9sum\xe9.txt", "wb") as fh:
        fh.write(b"needle one\n")
    (root / "docs" / "plain.txt").write_text("needle two\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[remote]\n\turl = needle in git\n")  # valid: else fail closed
    return root


def _text(result: types.CallToolResult) -> object:
    assert result.is_error is False, result
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("renderer", ["sentinel", "verbose", "structured"])
async def test_non_utf8_names_through_mcp(tree: Path, mode: str, renderer: str) -> None:
    rt = Runtime(tree, Policy(ignore_mode="discovery"), span_mode="enrich")
    async with Client(build_server(rt, renderer), mode=mode) as client:  # type: ignore[arg-type]
        globbed = await client.call_tool("glob", {"pattern": "**"})
        listed = await client.call_tool("list_directory", {"path": "docs"})
        searched = await client.call_tool("code_search", {"regex": "needle"})
        read = await client.call_tool("read_files", {"paths": [SPELLED, 'docs/"r\\351sum\\351.txt"',
                                                               ".git/config"]})
    for result in (globbed, listed, searched, read):
        _text(result)
    assert globbed.structured_content is not None
    assert SPELLED in globbed.structured_content["matches"]
    assert '"r\\351sum\\351.txt"' in [e["name"] for e in listed.structured_content["entries"]]
    assert sorted(h["path"] for h in searched.structured_content["hits"]) == sorted([SPELLED, "docs/plain.txt"])
    files = read.structured_content["files"]
    assert files[0]["path"] == SPELLED and files[0]["content"] == "needle one\n"
    assert files[1]["same_as"] == SPELLED and files[1]["content"] == ""  # read and charged once
    assert files[2]["status"] == "blocked" and files[2]["detail"] == "git_internals"
    assert "needle in git" not in read.model_dump_json() + searched.model_dump_json()
