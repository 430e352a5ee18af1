"""A git config file edited while pathgate reads it is noticed by a later call.

The files git's layout and configuration resolution reads are ``stat``-ed to key the
resolved settings; an edit landing between the read and that ``stat`` used to key the old
settings (here: the old ``core.excludesFile``) on the new file's signature, so no later call
ever looked again and answers differed from ``git check-ignore`` until a restart.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Runtime
from pathgate.runtime.ignore import _gitconfig
from tests._gitinit import git_init

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")


def _git_ignored(root: Path, rel: str) -> bool:
    return subprocess.run(["git", "-C", str(root), "check-ignore", "-q", rel]).returncode == 0


def test_config_edited_during_its_read_is_seen_later(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, root = tmp_path / "home", tmp_path / "t"
    home.mkdir()
    root.mkdir()
    gitconfig = home / "gitconfig"
    for k, v in {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                 "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}.items():
        monkeypatch.setenv(k, v)
    (home / "ex1").write_text("nothing-here\n")
    (home / "ex2").write_text("*.tmp\n")
    old = f"[core]\n\texcludesFile = {home}/ex1\n"
    new = f"[core]\n\texcludesFile = {home}/ex2\n"
    gitconfig.write_text(old)
    git_init(root)
    (root / "scratch.tmp").write_text("x\n")
    (root / "a.txt").write_text("y\n")

    real = _gitconfig._read_small
    edits = {"left": 1}

    def read_small(path: str, *a: object, **k: object) -> object:
        data = real(path, *a, **k)  # type: ignore[arg-type]
        if edits["left"] and os.path.realpath(path) == os.path.realpath(gitconfig):
            edits["left"] -= 1
            gitconfig.write_text(new)  # the user's editor saves, right after pathgate read it
        return data

    monkeypatch.setattr(_gitconfig, "_read_small", read_small)

    async def main() -> list[list[str]]:
        rt = Runtime(root)
        seen = []
        for _ in range(3):
            seen.append(list((await rt.glob("*")).matches))
        return seen

    answers = anyio.run(main)
    assert edits["left"] == 0, "the config was never read through _read_small"
    assert _git_ignored(root, "scratch.tmp")
    # the call during which the edit landed may show either version; every later call
    # shows git's answer
    assert answers[1] == answers[2] == ["a.txt"], answers
