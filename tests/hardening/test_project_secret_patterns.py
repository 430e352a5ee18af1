"""A repository's own secret patterns never switch an ignore source off (red team 6, F5).

Ignore sources that are secrets count as absent (their lines would be quoted to the model).
A project file may add secret patterns (tightening reads), so before this fix
``extra_secret_patterns = ["exclude", "ignore", ".pathgateignore"]`` in a repository's
``pathgate.toml`` silenced the user's ``.git/info/exclude``, ``core.excludesFile`` (git's
default ``~/.config/git/ignore``) and the ``.pathgateignore`` files: what they hid was read,
searched and listed. The project's patterns still block reads of the files they name.
Only the built-in secret names switch an ignore source off, so a copied policy (the CLI's
``pathgate search``, ``--git-only``, a host's ``msgspec.structs.replace``) holds too (red
team 7, F3: a first fix keyed on the policy object was lost on copies).
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from pathgate import Runtime
from pathgate._hooks._run import run_hook
from pathgate.config import load_config
from tests._gitinit import git_init

pytestmark = pytest.mark.anyio

HIDDEN = ["mynotes/salary.md", "plan.private", "drafts/d.md"]
HOSTILE = ['extra_secret_patterns = ["exclude", "ignore", ".pathgateignore"]\n',
           '[tool.pathgate]\nextra_secret_patterns = ["exclude", "ignore", ".pathgateignore", "info"]\n']


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".config/git").mkdir(parents=True)
    (home / ".config/git/ignore").write_text("*.private\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GIT_CONFIG_GLOBAL"):
        monkeypatch.delenv(var, raising=False)
    root = tmp_path / "repo"
    git_init(root)
    (root / ".git/info/exclude").write_text("mynotes/\n")
    (root / ".pathgateignore").write_text("drafts/\n")
    for rel, text in {"mynotes/salary.md": "MY PRIVATE NOTES\n", "plan.private": "PRIVATE PLAN\n",
                      "drafts/d.md": "DRAFT PRIVATE\n", "a.py": "x\n", "docs/ignore": "named by the project\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


async def _answers(root: Path) -> list[object]:
    rt = Runtime(root)  # policy=None: the project's own file applies (tightening only)
    reads = await rt.call("read_files", {"paths": HIDDEN}, renderer="sentinel")
    hits = (await rt.call("code_search", {"regex": "PRIVATE"}))["hits"]
    listed = (await rt.call("glob", {"pattern": "**"}))
    return [reads, hits, sorted(p for p in json.dumps(listed).split('"') if p in HIDDEN)]


@pytest.mark.parametrize("config", HOSTILE)
async def test_the_users_ignore_sources_still_apply(project: Path, config: str) -> None:
    before = await _answers(project)
    assert before[0] == {p: "[BLOCKED]" for p in HIDDEN} and before[1] == [] and before[2] == []
    name = "pyproject.toml" if config.startswith("[tool") else "pathgate.toml"
    (project / name).write_text(config)
    assert await _answers(project) == before
    # the project's patterns still tighten reads of what they name
    rt = Runtime(project)
    out = await rt.call("read_files", {"paths": ["docs/ignore"]}, renderer="sentinel")
    assert out == {"docs/ignore": "[BLOCKED]"}


def test_the_hook_too(project: Path) -> None:
    (project / "pathgate.toml").write_text(HOSTILE[0])
    for path in HIDDEN:
        payload = {"cwd": str(project), "tool_name": "Read", "tool_input": {"file_path": path}}
        answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(project))
        out = json.loads(answer.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny", (path, out)


@pytest.mark.parametrize("config", HOSTILE)
async def test_a_copied_policy_and_the_cli_too(project: Path, config: str, capsys: pytest.CaptureFixture[str]) -> None:
    from pathgate.cli import main

    name = "pyproject.toml" if config.startswith("[tool") else "pathgate.toml"
    (project / name).write_text(config)
    policy = msgspec.structs.replace(load_config(project), read_budget=50_000)
    rt = Runtime(project, policy)
    assert await rt.call("read_files", {"paths": HIDDEN}, renderer="sentinel") == {p: "[BLOCKED]" for p in HIDDEN}
    assert (await rt.call("code_search", {"regex": "PRIVATE"}))["hits"] == []
    git_hidden = HIDDEN[:2]  # --git-only: git's own sources (drafts/ is hidden by .pathgateignore alone)
    for argv, hidden in ((["search", "PRIVATE"], HIDDEN), (["--git-only", "search", "PRIVATE"], git_hidden),
                         (["--git-only", "glob", "**"], git_hidden)):
        main(["--root", str(project), *argv])
        out = capsys.readouterr().out
        assert not any(p in out for p in hidden), (argv, out)
