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


@pytest.mark.parametrize(("source", "files"), [
    ("./mkt.json", {"mkt.json": "", "fmt/hooks/hooks.json": "{}"}),
    ("./market/plugins.json", {"market/plugins.json": "", "market/fmt/hooks/hooks.json": "{}"}),
    ("./mp/.claude-plugin/marketplace.json",
     {"mp/.claude-plugin/marketplace.json": "", "mp/fmt/hooks/hooks.json": "{}"}),
], ids=["root-file", "named-file", "usual-place"])
async def test_file_marketplace_anywhere_is_read_where_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            source: str, files: dict[str, str]) -> None:
    """L12: a ``file`` marketplace source names its JSON wherever it is; the guard looked
    for ``<dir>/.claude-plugin/marketplace.json`` instead, leaving the file (whose entries
    may carry inline hooks) and the plugins it lists writable."""
    market = json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "fmt", "source": "./fmt"}]})
    settings = json.dumps({"enabledPlugins": {"fmt@m": True},
                           "extraKnownMarketplaces": {"m": {"source": {"source": "file", "path": source}}}})
    files = {k: (market if k.endswith(".json") and "hooks" not in k else v) for k, v in files.items()}
    root = git_project(tmp_path, monkeypatch, {".claude/settings.json": settings, "notes.md": "x\n", **files})
    got = await writable(root, *files, "notes.md")
    assert got == {**dict.fromkeys(files, False), "notes.md": True}
