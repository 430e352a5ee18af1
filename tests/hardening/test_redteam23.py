"""Red team 23 (report-only pass on the eleventh session's changes): regressions.

N1: the secret-inode registry is validated once per tool call; a host tool that makes
calls of its own (a sub-agent) gets a fresh view in each of them, so a secret's hard link
made between two inner calls is refused by the second, as at top level."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime

pytestmark = pytest.mark.anyio


def _tree(root: Path) -> None:
    root.mkdir()
    (root / ".env").write_text("OLD=1\n")
    (root / "a.txt").write_text("shared\n")
    os.link(root / "a.txt", root / "b.txt")  # a multi-linked pair: the registry is asked


def _link_a_new_secret(root: Path) -> None:
    (root / ".env.local").write_text("TOKEN=s3cr3t\n")
    os.link(root / ".env.local", root / "notes.txt")


async def _inner(rt: Runtime, root: Path) -> list[Any]:
    first = await rt.call("read_files", {"paths": ["a.txt"]})
    _link_a_new_secret(root)
    return [first, await rt.call("read_files", {"paths": ["notes.txt"]}),
            await rt.call("code_search", {"regex": "TOKEN"}),
            await rt.call("glob", {"pattern": "*.txt"})]


async def test_calls_inside_a_host_tool_each_see_links_made_before_them(anyio_backend: str, tmp_path: Path) -> None:
    nested_root, top_root = tmp_path / "nested", tmp_path / "top"
    _tree(nested_root)
    _tree(top_root)
    rt = Runtime(nested_root)
    got: list[Any] = []

    async def subagent(args: dict[str, Any]) -> str:
        got.extend(await _inner(rt, nested_root))
        return "done"

    rt.register_tool("subagent", subagent)
    await rt.call("subagent", {})
    top = await _inner(Runtime(top_root), top_root)
    assert got == top
    assert "s3cr3t" not in repr(got)
