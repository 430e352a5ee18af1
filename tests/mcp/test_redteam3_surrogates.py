"""Red-team round 3, F4: a lone surrogate (``"\\ud800"``, valid JSON) in any argument gives an
argument error naming the field, or a verdict; never an internal error (directly or over MCP)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.runtime._dispatch import _surrogate_field

pytestmark = pytest.mark.anyio

S = "\ud800"

#: (tool, arguments, the field an argument error names — or None: a verdict, not an error)
CASES: list[tuple[str, dict[str, Any], str | None]] = [
    ("read_files", {"paths": S}, "paths"),
    ("read_files", {"paths": [1, S]}, "paths[0]"),
    ("read_files", {"paths": ["x"], S: 1}, "\\ud800"),
    ("read_files", {"paths": ["x"], "limit": S}, "limit"),
    ("glob", {"pattern": "*", "limit": S}, "limit"),
    ("glob", {"pattern": S}, "pattern"),
    ("glob", {"pattern": "*" + S}, "pattern"),
    ("code_search", {"regex": "x", "context": S}, "context"),
    ("code_search", {"regex": S}, "regex"),
    ("code_search", {"regex": "x", "glob": S}, "glob"),
    ("list_directory", {"path": [S]}, "path"),
    ("write_file", {"path": S, "content": "x"}, "path"),
    ("write_file", {"path": "new.txt", "content": S}, "content"),
    ("edit_file", {"path": "src/app.py", "old_string": S, "new_string": "y"}, "old_string"),
    ("read_files", {"paths": [S, "a" + S + "/b"]}, None),
    ("glob", {"pattern": "*", "path": S}, None),
    ("list_directory", {"path": S}, None),
    ("code_search", {"regex": "x", "path": S}, None),
]


@pytest.mark.parametrize(("tool", "args", "field"), CASES)
async def test_surrogate_argument_is_named_or_judged(project: Path, tool: str, args: dict[str, Any],
                                                     field: str | None) -> None:
    result = await Runtime(project, allow_writes=True).call(tool, args)
    if field is None:
        assert not (isinstance(result, dict) and "error_type" in result), result
        return
    assert result["error_type"] == "invalid_arguments", result
    assert result["field"] == field
    assert f"`{field}`" in result["error"]
    result["error"].encode("utf-8")  # the message itself is valid Unicode


@pytest.mark.parametrize(("tool", "args", "field"), CASES)
async def test_surrogate_argument_over_mcp(project: Path, tool: str, args: dict[str, Any],
                                           field: str | None) -> None:
    pytest.importorskip("mcp")
    from mcp import Client
    from pathgate.mcp import build_server

    async with Client(build_server(Runtime(project, allow_writes=True))) as client:
        result = await client.call_tool(tool, args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert "internal error" not in text
    assert result.is_error is (field is not None)
    if field is not None:  # an unknown key may reach the server re-encoded by the transport
        assert f"`{field}`" in text or (field == "\\ud800" and "unknown field" in text)


def test_surrogate_field_names_where_it_sits() -> None:
    assert _surrogate_field({"a": [1, {"b": S}]}, "") == "a[1].b"
    assert _surrogate_field({"a": 1, S: 2}, "") == "\\ud800"
    assert _surrogate_field({"a": 1}, "") == "arguments"
