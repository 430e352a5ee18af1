"""Red team 20 L6/L13: other MCP hosts' and agent CLIs' project files that start commands
(or confine the agent) are never writable, and the scripts their JSON names are protected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening._write_env import git_project, writable

pytestmark = pytest.mark.anyio

HOST_FILES = [".roo/mcp.json", "opencode.json", "opencode.jsonc", "pkg/opencode.json", ".opencode/plugin/evil.js",
              ".opencode/plugins/evil.ts", ".kiro/settings/mcp.json", ".kiro/hooks/on-save.kiro.hook",
              ".amazonq/mcp.json", ".amazonq/agents/default.json", ".continue/mcpServers/evil.yaml",
              ".continue/config.yaml", ".zed/settings.json", ".zed/tasks.json", ".aider.conf.yml",
              ".clinerules/hooks/PreToolUse", ".codex/config.toml", ".cursor/worktrees.json",
              "pkg/.cursor/worktrees.json", ".gemini/sandbox-macos-custom.sb", ".gemini/sandbox.Dockerfile"]


async def test_host_files_are_not_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = git_project(tmp_path, monkeypatch, {"notes.md": "x\n"})
    got = await writable(root, *HOST_FILES, "notes.md", ".cursor/rules/a.mdc", "docs/opencode.md")
    assert [p for p in HOST_FILES if got[p]] == []
    assert got["notes.md"] and got["docs/opencode.md"] and got[".cursor/rules/a.mdc"]


@pytest.mark.parametrize(("settings", "doc"), [
    (".roo/mcp.json", {"mcpServers": {"x": {"command": "sh", "args": ["tools/srv.sh"]}}}),
    (".kiro/settings/mcp.json", {"mcpServers": {"x": {"command": "./tools/srv.sh"}}}),
    (".amazonq/mcp.json", {"mcpServers": {"x": {"command": "./tools/srv.sh"}}}),
    (".cursor/worktrees.json", {"setup-worktree": ["./tools/srv.sh"]}),
    (".cursor/worktrees.json", {"setup-worktree-unix": "sh tools/srv.sh"}),
], ids=["roo", "kiro", "amazonq", "cursor-worktree", "cursor-worktree-unix"])
async def test_scripts_their_json_names_are_protected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      settings: str, doc: dict[str, object]) -> None:
    root = git_project(tmp_path, monkeypatch, {settings: json.dumps(doc), "tools/srv.sh": "#!/bin/sh\n",
                                               "tools/other.sh": "#!/bin/sh\n"})
    got = await writable(root, "tools/srv.sh", "tools/other.sh")
    assert got == {"tools/srv.sh": False, "tools/other.sh": True}
