"""Red-team pass 4: an agent may not write what configures the guard or git.

Found: the runtime's write_file wrote the agent CLIs' hook settings (the hook refused
them); with the project root at ``$HOME`` (or ``XDG_CONFIG_HOME`` inside the project) the
host's own ``~/.config/pathgate/config.toml`` was writable, and the next hook process or
MCP start loaded ``enforce_secrets = false`` from it; a ``.gitconfig`` reached through the
repository's ``[include] path``, and a ``core.hooksPath`` directory in the work tree, were
writable: the agent could drop the excludes file or make ``git status`` run its command.
Each write below is refused by the runtime and by ``pathgate hook`` alike, and touches
nothing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate._hooks._run import run_hook
from tests._backends import alternating
from tests._gitinit import git_init
from tests.runtime.tools._writes import make_rt, snapshot, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    root = write_tree(home, {
        "proj/app.py": "old\n",
        "proj/.gitconfig": "[alias]\n\tst = status\n",
        "proj/.githooks/pre-commit": "#!/bin/sh\nexit 0\n",
        "proj/tools/attrs": "*.bin binary\n",
        "proj/.claude/settings.json": "{}\n",
        ".config/pathgate/config.toml": "size_limit = 1000000\n",
    }) / "proj"
    git_init(root)
    for key, value in (("include.path", "../.gitconfig"), ("core.hooksPath", ".githooks"),
                       ("core.attributesFile", "tools/attrs")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        monkeypatch.setenv(var, "/dev/null")
    return root


STEERING = [".gitconfig", ".githooks/pre-commit", ".githooks/post-checkout", "tools/attrs",
            ".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json",
            ".cursor/mcp.json", ".gemini/settings.json", ".mcp.json", "./.GITCONFIG/../.gitconfig"]


def _hook_reason(root: Path, tool_input: dict[str, str]) -> str | None:
    payload = {"cwd": str(root), "tool_name": "Write", "tool_input": tool_input}
    answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(root))
    assert answer.exit_code == 0, answer.stderr
    if not answer.stdout.strip():
        return None
    return str(json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecisionReason"])


@pytest.mark.parametrize(("path", "anyio_backend"), alternating(STEERING))  # a loop per path: see _backends
async def test_steering_files_are_not_writable(anyio_backend: str, project: Path, path: str) -> None:
    before = snapshot(project)
    async with make_rt(project, require_read_before_write=False) as rt:
        result = await rt.write_file(path, "PWNED\n")
        v = result.verdict
        assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE, (path, v)
        assert (await rt.write_file("app.py", "new\n")).ok  # an ordinary file stays writable
    assert {k: v for k, v in snapshot(project).items() if k != "app.py"} == \
        {k: v for k, v in before.items() if k != "app.py"}
    reason = _hook_reason(project, {"file_path": path, "content": "PWNED\n"})
    assert reason is not None and reason.startswith("[BLOCKED]")


async def test_the_host_config_is_not_writable_when_the_root_holds_it(
        anyio_backend: str, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")  # git's global files are ~/.gitconfig and XDG's
    home = project.parent
    git_init(home)
    config = home / ".config/pathgate/config.toml"
    async with make_rt(home, require_read_before_write=False) as rt:
        for path in (".config/pathgate/config.toml", ".config/pathgate/../pathgate/config.toml",
                     ".gitconfig", ".config/git/ignore"):
            v = (await rt.write_file(path, "enforce_secrets = false\n")).verdict
            assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE, (path, v)
        assert (await rt.write_file("proj/app.py", "new\n")).ok
    assert config.read_text() == "size_limit = 1000000\n"
    assert not (home / ".gitconfig").exists() and not (home / ".config/git/ignore").exists()
    reason = _hook_reason(home, {"file_path": str(config), "content": "enforce_secrets = false\n"})
    assert reason is not None and reason.startswith("[BLOCKED]")


async def test_a_host_config_passed_by_name_is_not_writable(anyio_backend: str, project: Path) -> None:
    from pathgate.config import load_host_config

    (project / "ops").mkdir()
    host = project / "ops/pathgate-host.toml"
    host.write_text("size_limit = 1000000\n")
    policy = load_host_config(host)
    async with Runtime(project, Policy(allow_writes=True, require_read_before_write=False,
                                       size_limit=policy.size_limit)) as rt:
        v = (await rt.write_file("ops/pathgate-host.toml", "enforce_secrets = false\n")).verdict
        assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE
    assert host.read_text() == "size_limit = 1000000\n"
