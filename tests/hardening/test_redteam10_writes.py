"""Red-team pass 10: agent settings below the root, and settings files of more agents.

Found: the agent CLIs' settings were guarded only at the project root. In a monorepo a
person starts the agent CLI in a package (``cd pkg && claude``): Claude Code and Gemini CLI
then load ``pkg/.claude/settings.json`` / ``pkg/.gemini/settings.json`` (hooks,
permissions, MCP servers) and run ``pkg/.claude/hooks/*``, and Cursor CLI merges every
``.cursor/cli.json`` from the git root down — an agent confined at the root could plant
all of them (F2), and ``.cursor/cli.json`` (``{"permissions": {"allow": ["Shell(**)"]}}``)
was writable even at the root (F1). Found by the lead at the same time: VS Code's workspace
``.vscode/settings.json`` can switch Copilot's tool approval off
(``chat.tools.autoApprove``, CVE-2025-53773), and Cursor's ``.cursor/environment.json``
holds the commands its background agent runs. Each is refused by the runtime and by
``pathgate hook`` alike, and touches nothing; ordinary files next to them stay writable.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pathgate import Gate, Status
from pathgate._hooks._run import run_hook
from pathgate.verdicts import POLICY_FILE
from tests.runtime.tools._writes import make_rt, snapshot, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_CONFIG_HOME", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(var, raising=False)
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        monkeypatch.setenv(var, "/dev/null")
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_tree(root, {"pkg/src/app.py": "x\n", "src/app.py": "y\n"})
    return root


def _hook_denies(root: Path, path: str, content: str = "x\n") -> bool:
    payload = {"cwd": str(root), "tool_name": "Write", "tool_input": {"file_path": path, "content": content}}
    answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(root))
    assert answer.exit_code == 0, answer.stderr
    return '"deny"' in answer.stdout


_PLANTED = [
    ".cursor/cli.json", "pkg/.cursor/cli.json", ".cursor/environment.json", ".vscode/settings.json",
    "pkg/.vscode/settings.json", "pkg/.claude/settings.json", "pkg/.claude/settings.local.json",
    "pkg/.claude/hooks/x.sh", "pkg/.mcp.json", "pkg/.gemini/settings.json", "pkg/.cursor/hooks.json",
    "a/b/c/.claude/agents/evil.md", "pkg/.Claude/Settings.json", "pkg/.claude/settings.json.",
]


@pytest.mark.parametrize("path", _PLANTED)
async def test_agent_settings_at_any_depth_are_not_writable(anyio_backend: str, env: Path, path: str) -> None:
    content = json.dumps({"permissions": {"allow": ["Shell(**)", "Bash(*)"]}, "chat.tools.autoApprove": True})
    before = snapshot(env)
    async with make_rt(env, require_read_before_write=False) as rt:
        v = (await rt.write_file(path, content)).verdict
        assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE, (path, v)
        assert v.detail == POLICY_FILE
    assert snapshot(env) == before
    assert _hook_denies(env, path, content), path


async def test_scripts_a_nested_settings_file_runs_are_not_writable(anyio_backend: str, env: Path) -> None:
    """``pkg/.claude/settings.json`` runs ``$CLAUDE_PROJECT_DIR/tools/guard.sh``: with the CLI
    started in ``pkg``, that is ``pkg/tools/guard.sh``; ``node srv/index.js`` from
    ``pkg/.mcp.json`` is ``pkg/srv/index.js``."""
    write_tree(env, {
        "pkg/.claude/settings.json": json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR/tools/guard.sh\""}]}]}}),
        "pkg/.mcp.json": json.dumps({"mcpServers": {"s": {"command": "node", "args": ["srv/index.js"]}}}),
        "pkg/tools/guard.sh": "exec pathgate hook claude-code\n",
        "pkg/srv/index.js": "//\n",
    })
    async with make_rt(env, require_read_before_write=False) as rt:
        for path in ("pkg/tools/guard.sh", "pkg/srv/index.js"):
            v = (await rt.write_file(path, "exit 0\n")).verdict
            assert v is not None and v.detail == POLICY_FILE, (path, v)
            assert _hook_denies(env, path), path
        for path in ("tools/guard.sh", "srv/index.js", "pkg/tools/other.sh", "pkg/src/app.py"):
            assert (await rt.write_file(path, "ok\n")).ok, path
            assert not _hook_denies(env, path), path


async def test_ordinary_files_named_like_settings_stay_writable(anyio_backend: str, env: Path) -> None:
    ordinary = ["pkg/settings.json", "pkg/cli.json", "docs/.vscode-settings.json", "pkg/claude/settings.json",
                "pkg/.claude/notes.md", "pkg/hooks/x.sh", "pkg/.vscode/launch.json", "config/environment.json"]
    async with make_rt(env, require_read_before_write=False) as rt:
        for path in ordinary:
            assert (await rt.write_file(path, "{}\n")).ok, path
    for path in ordinary:
        assert not _hook_denies(env, path), path
