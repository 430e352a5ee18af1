"""Red team 23 (report-only pass on the eleventh session's changes): regressions.

N1: the secret-inode registry is validated once per tool call; a host tool that makes
calls of its own (a sub-agent) gets a fresh view in each of them, so a secret's hard link
made between two inner calls is refused by the second, as at top level.

N3: the host filter is asked about the places of a blocked path's rule chain whether a
remedy was found or not, so the names it is asked (and how many calls a slow filter
costs) do not depend on what a hidden ignore file holds."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime
from tests._gitinit import git_init

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


async def _asked(root: Path, hidden: str) -> tuple[Any, list[str]]:
    root.mkdir()
    git_init(root)
    for rel, text in {".gitignore": "sub/d/\n", "sub/d/x.txt": "x\n", "sub/.gitignore": hidden}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    asked: list[str] = []

    async def host_filter(rel: str) -> bool:
        asked.append(rel)
        return rel != "sub/.gitignore"

    rt = Runtime(root, policy=Policy(host_filter=host_filter))
    await rt.call("read_files", {"paths": ["sub/a"]}, renderer="verbose")  # warm
    asked.clear()
    out = await rt.call("read_files", {"paths": ["sub/d/x.txt"]}, renderer="verbose")
    return out, asked


async def test_filter_asked_the_same_names_whatever_a_hidden_file_holds(anyio_backend: str, tmp_path: Path) -> None:
    small = await _asked(tmp_path / "small", "zzz.txt\n")
    big = await _asked(tmp_path / "big", "".join(f"j{i}.q\n" for i in range(10_001)))
    assert small[0] == big[0]
    assert sorted(small[1]) == sorted(big[1])
    assert "sub/.gitignore" in small[1]


@pytest.mark.parametrize("name", ["MAKEFLAGS", "GNUMAKEFLAGS"])
async def test_make_include_dirs_from_settings_env_are_protected(anyio_backend: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """``{"env": {"MAKEFLAGS": "-Imk"}}`` in agent settings: make searches ``mk/`` for the
    makefiles a hook's ``make`` includes (as ``MAKEFLAGS=-Imk make`` on the command line)."""
    import json

    from tests.hardening._write_env import git_project, writable
    from tests.runtime.tools._writes import write_tree

    root = git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})
    settings = {"env": {name: "-Imk"}, "hooks": {"PreToolUse": [{"hooks": [{"type": "command",
                                                                            "command": "make lint"}]}]}}
    write_tree(root, {".claude/settings.json": json.dumps(settings), "Makefile": "include common.mk\n"})
    got = await writable(root, "mk/common.mk", "mk/other/deep.mk", "notes.md")
    assert got == {"mk/common.mk": False, "mk/other/deep.mk": False, "notes.md": True}


@pytest.mark.parametrize("exists", [False, True])
async def test_host_filtered_member_manifest_answers_the_same_whether_it_exists(
        anyio_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exists: bool) -> None:
    """A cargo workspace member's ``Cargo.toml`` the host filter hides: read by its name
    alone (nothing writable), never looked for first — the answer does not tell whether it
    exists (final review)."""
    import json

    from tests.hardening._write_env import git_project
    from tests.runtime.tools._writes import make_rt, write_tree

    root = git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})
    files = {".claude/settings.json": json.dumps({"hooks": {"PreToolUse": [{"hooks": [
                 {"type": "command", "command": "cargo test"}]}]}}),
             "Cargo.toml": "[workspace]\nmembers = ['crates/*']\n", "crates/a/src/lib.rs": "\n"}
    if exists:
        files["crates/a/Cargo.toml"] = "[package]\nname='a'\nversion='0.1.0'\n"
    write_tree(root, files)

    def host_filter(rel: str) -> bool:
        return rel != "crates/a/Cargo.toml"

    async with make_rt(root, require_read_before_write=False, host_filter=host_filter) as rt:
        got = (await rt.write_file("notes.md", "x\n")).ok
    assert got is False  # the hidden manifest cannot be checked: nothing writable, either way
