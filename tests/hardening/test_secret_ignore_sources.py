"""A secret is never read as an ignore source (red-team rt4 F4).

``git config core.excludesFile .env`` (or ``.git/info/exclude`` linked to ``.env``) made
pathgate read the secret as rules: its lines were quoted ("`.env:2:DEBUG=*` matches it"),
the remedy said to edit ``.env``, and glob's answer changed with the secret. In the runtime
and the hook routes such a source counts as absent, so every answer equals the same tree's
without the secret. ``pathgate check-ignore`` (the git oracle) still reads it, as git does.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate._hooks._run import run_hook
from tests._gitinit import git_init
from tests.oracle._git import GIT_ENV, pathgate_check_ignore

SECRET = "API_KEY=sk-live-123\nDEBUG=*\n*.log\n"


@pytest.fixture(autouse=True)
def _no_host_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, env=GIT_ENV)


def _base(root: Path) -> Path:
    root.mkdir(parents=True)
    git_init(root, env=GIT_ENV)
    (root / "app.py").write_text("hi x\n")
    (root / "DEBUG=1").write_text("x\n")
    (root / "notes.log").write_text("x\n")
    (root / "sub").mkdir()
    (root / "sub" / "a.log").write_text("x\n")
    return root


def _layout(root: Path, case: str, secret: bool) -> None:
    """One way of making a secret an ignore source; ``secret`` false: the same tree
    without the secret."""
    outside = root.parent / f"{root.name}-outside"
    if case == "excludes_relative":
        _git(root, "config", "core.excludesFile", ".env")
    elif case == "excludes_absolute":
        _git(root, "config", "core.excludesFile", str(root / ".env"))
    elif case == "excludes_written":  # the configured path passes through a secret directory
        _git(root, "config", "core.excludesFile", ".env.d/../rules")
        (root / "rules").write_text("DEBUG=*\n")  # not resolvable without .env.d: absent there
        if secret:
            (root / ".env.d").mkdir()
            (root / ".env.d" / "k").write_text(SECRET)
        return
    elif case == "excludes_secret_dir":  # git: "cannot use .env.d as an exclude file"
        _git(root, "config", "core.excludesFile", ".env.d")
        if secret:
            (root / ".env.d").mkdir()
            (root / ".env.d" / "k").write_text(SECRET)
        return
    elif case == "excludes_symlink":
        _git(root, "config", "core.excludesFile", "rules")
        (root / "rules").symlink_to(".env")  # dangling without the secret
    elif case == "info_exclude_symlink":
        (root / ".git" / "info" / "exclude").unlink()
        (root / ".git" / "info" / "exclude").symlink_to("../../.env")
    elif case == "excludes_outside":
        outside.mkdir()
        _git(root, "config", "core.excludesFile", str(outside / ".env"))
        if secret:
            (outside / ".env").write_text(SECRET)
        return
    elif case == "info_exclude_hard_link":  # without the secret: no info/exclude at all
        (root / ".git" / "info" / "exclude").unlink()
        if secret:
            (root / ".env").write_text(SECRET)
            os.link(root / ".env", root / ".git" / "info" / "exclude")
        return
    if secret:
        (root / ".env").write_text(SECRET)


CASES = ["excludes_relative", "excludes_absolute", "excludes_written", "excludes_secret_dir",
         "excludes_symlink", "info_exclude_symlink", "excludes_outside", "info_exclude_hard_link"]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_files", {"paths": ["DEBUG=1", "notes.log", "sub/a.log", "app.py"]}),
    ("glob", {"pattern": "**"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "sub"}),
    ("code_search", {"regex": "x"}),
]


def _answers(root: Path, live: bool) -> list[object]:
    async def main() -> list[object]:
        out: list[object] = []
        async with Runtime(root, Policy(), live_index=live) as rt:
            for tool, args in CALLS:
                for renderer in ("verbose", "structured"):
                    out.append(await rt.call(tool, args, renderer=renderer))
        return out

    answers = anyio.run(main)
    for path in ("DEBUG=1", "notes.log"):  # the hook route (a bare GateCore, no event loop)
        payload = {"cwd": str(root), "tool_name": "Read", "tool_input": {"file_path": path}}
        answers.append(run_hook("claude-code", json.dumps(payload).encode(), root=str(root)).stdout)
    return answers


@pytest.mark.parametrize("live", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_a_secret_ignore_source_counts_as_absent(tmp_path: Path, case: str, live: bool) -> None:
    trees = []
    for secret in (True, False):
        root = _base(tmp_path / ("with" if secret else "without") / "proj")
        _layout(root, case, secret)
        trees.append(_answers(root, live))
    assert trees[0] == trees[1]
    text = json.dumps(trees[0])
    assert "sk-live" not in text and ".env" not in text and ":DEBUG=*" not in text
    assert trees[0][0] == {"DEBUG=1": "x\n", "notes.log": "x\n", "sub/a.log": "x\n", "app.py": "hi x\n"}


def test_check_ignore_still_reads_it_as_git_does(tmp_path: Path) -> None:
    root = _base(tmp_path / "proj")
    _layout(root, "excludes_relative", True)
    args = ["-v", "--no-index", "DEBUG=1", "notes.log", "app.py"]
    git = subprocess.run(["git", "check-ignore", *args], cwd=root, capture_output=True, env=GIT_ENV, check=False)
    assert git.stdout == b".env:2:DEBUG=*\tDEBUG=1\n.env:3:*.log\tnotes.log\n"
    assert pathgate_check_ignore(root, ["--git-only", *args], git_only=False) == (git.returncode, git.stdout)


def test_a_host_declared_secret_gitignore_counts_as_absent(tmp_path: Path) -> None:
    """A per-directory ``.gitignore`` whose path the host declares secret is never read."""
    policy = Policy(extra_secret_patterns=("sub/.gitignore",))
    outs = []
    for secret in (True, False):
        root = _base(tmp_path / str(secret) / "proj")
        if secret:
            (root / "sub" / ".gitignore").write_text("*.log\nDEBUG=*\n")

        async def main(root: Path = root) -> list[object]:
            rt = Runtime(root, policy)
            return [await rt.call(tool, args) for tool, args in CALLS]

        outs.append(anyio.run(main))
    assert outs[0] == outs[1]


def test_the_remedy_of_an_excludes_file_rule_names_the_agent_file(tmp_path: Path) -> None:
    """A rule of a relative ``core.excludesFile`` (``myrules``) gets the normal remedy: the
    root's agent ignore file, never the excludes file itself."""
    root = _base(tmp_path / "proj")
    (root / "myrules").write_text("DEBUG=*\n")
    _git(root, "config", "core.excludesFile", "myrules")

    async def main() -> Any:
        return (await Runtime(root).read_files(["DEBUG=1"]))[0].verdict

    verdict = anyio.run(main)
    assert verdict.rule.location() == "myrules:1:DEBUG=*"
    assert verdict.remedy.file == ".pathgateignore" and verdict.remedy.lines == ("!/DEBUG=1",)


@pytest.mark.parametrize("live", [False, True])
def test_a_source_that_stops_or_starts_being_a_secret_is_seen_at_once(tmp_path: Path, live: bool) -> None:
    """The absent source is still watched: retargeting ``.git/info/exclude`` between a secret
    and a plain file changes the next answer (no stale rules, no stale absence)."""
    root = _base(tmp_path / "proj")
    (root / ".env").write_text(SECRET)
    (root / "rules").write_text("DEBUG=*\n")
    exclude = root / ".git" / "info" / "exclude"
    exclude.unlink()
    exclude.symlink_to("../../.env")

    async def main() -> list[Any]:
        out: list[Any] = []
        async with Runtime(root, live_index=live) as rt:
            for target in ("../../rules", "../../.env", "../../rules"):
                out.append((await rt.call("read_files", {"paths": ["DEBUG=1"]}))["DEBUG=1"])
                exclude.unlink()
                exclude.symlink_to(target)
            out.append((await rt.call("read_files", {"paths": ["DEBUG=1"]}))["DEBUG=1"])
        return out

    served, blocked, served2, blocked2 = anyio.run(main)
    assert served == served2 == "x\n"
    assert blocked == blocked2
    assert blocked.startswith("[BLOCKED]: Excluded by ignore rules: `.git/info/exclude:1:DEBUG=*`")


@pytest.mark.parametrize("target", ["../.env", ".env", "keys/server.pem"])
def test_a_config_include_naming_a_secret_is_read_as_missing(tmp_path: Path, target: str) -> None:
    """``[include] path = ../.env`` in ``.git/config``: git would parse the secret as config (a
    ``KEY=value`` line is a fatal error, so every path would fail closed and the answer would
    change with the secret's existence); the runtime reads such an include as missing."""
    answers = []
    for secret in (True, False):
        root = _base(tmp_path / ("with" if secret else "without"))
        _git(root, "config", "include.path", target)
        if secret:
            where = (root / ".git" / target).resolve() if target.startswith("..") else root / ".git" / target
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(SECRET)

        async def calls(root: Path = root) -> list[Any]:
            async with Runtime(root) as rt:
                return [await rt.call("read_files", {"paths": ["app.py", "notes.log"]}),
                        await rt.call("glob", {"pattern": "**"})]

        answers.append(anyio.run(calls))
    assert answers[0] == answers[1]
    assert answers[0][0]["app.py"] == "hi x\n"
