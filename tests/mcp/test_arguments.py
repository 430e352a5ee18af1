"""MCP argument errors and defaults (issue 16): every argument error names its tool and
argument the same way, and the advertised defaults are the ones applied (and documented)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import mcp_types as types

from mcp import Client
from pathgate import Runtime
from pathgate.mcp import build_server
from pathgate.runtime.tools.code_search import DEFAULT_MAX_RESULTS
from pathgate.runtime.tools.glob import DEFAULT_GLOB_LIMIT

pytestmark = pytest.mark.anyio

README = Path(__file__).resolve().parents[2] / "README.md"


def _error_text(result: types.CallToolResult) -> str:
    assert result.is_error is True and result.structured_content is None
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.parametrize(("tool", "args", "expected"), [
    ("glob", {"pattern": ""}, "glob: argument `pattern`: must be a non-empty glob pattern"),
    ("glob", {"pattern": "/abs"}, "glob: argument `pattern`: must be relative"),
    ("code_search", {"regex": "x", "glob": ""}, "code_search: argument `glob`: must be a non-empty glob pattern"),
    ("glob", {"pattern": "*", "limit": -1}, "glob: argument `limit`: "),
    ("code_search", {"regex": ""}, "code_search: `regex` must be a non-empty string"),
])
async def test_every_argument_error_starts_with_its_tool(
    tmp_path: Path, tool: str, args: dict[str, Any], expected: str
) -> None:
    async with Client(build_server(Runtime(tmp_path))) as client:
        text = _error_text(await client.call_tool(tool, args))
    assert text.startswith(expected), text


async def test_advertised_defaults_are_applied_and_documented(tmp_path: Path) -> None:
    for k in range(DEFAULT_GLOB_LIMIT + 1):
        (tmp_path / f"f{k:04}.txt").write_text("needle\n")
    async with Client(build_server(Runtime(tmp_path))) as client:
        schemas = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        by_default = (await client.call_tool("glob", {"pattern": "*.txt"})).structured_content
        by_null = (await client.call_tool("glob", {"pattern": "*.txt", "limit": None})).structured_content
        hits = (await client.call_tool("code_search", {"regex": "needle"})).structured_content
    assert schemas["glob"]["properties"]["limit"]["default"] == DEFAULT_GLOB_LIMIT
    assert schemas["code_search"]["properties"]["max_results"]["default"] == DEFAULT_MAX_RESULTS
    assert by_default is not None and by_null is not None and hits is not None
    assert len(by_default["matches"]) == len(by_null["matches"]) == DEFAULT_GLOB_LIMIT
    assert by_default["truncated"] and by_default["total"] == DEFAULT_GLOB_LIMIT + 1
    assert len(hits["hits"]) == DEFAULT_MAX_RESULTS and hits["truncated"]
    readme = README.read_text()
    assert re.search(rf"\| `glob` \| [^|]*`limit` \(default {DEFAULT_GLOB_LIMIT}\b", readme)
    assert re.search(rf"\| `code_search` \| [^|]*`max_results` \(default {DEFAULT_MAX_RESULTS}\b", readme)
