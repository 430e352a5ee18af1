"""The runtime side of the git-exact layout and configuration cases.

Where ``git check-ignore`` exits 128 (a broken configuration or layout), ``pathgate
check-ignore`` does too (see ``test_layout.py``); the runtime's ignore index instead
*fails closed*: every path is blocked (``Match.fail_closed``, ``unreadable`` naming the
file at fault) and the reason is warned once. Fixing the file lifts the block on the next
session. A FIFO where git expects a config file would hang git; the runtime refuses it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from tests.oracle.test_layout import LAYOUT, _env, _process

BROKEN = {
    "excludesfile-bare": ".git/config",
    "ignorecase-maybe": None,
    "quotepath-bad": None,
    "config-bad-line": ".git/config",
    "info-exclude-dir": ".git/info/exclude",
    "gitfile-garbage": "r/.git",
    "gitfile-missing-target": "r/.git",
    "config-dir": ".git/config",
}


def _index(tmp: Path, root: Path, warnings: list[str]) -> IgnoreIndex:
    index = IgnoreIndex(root, IgnoreConfig.git_only())
    index.on_warning = warnings.append
    return index


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_runtime_fails_closed_where_git_exits_128(name: str, git_bin: str, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    LAYOUT[name](git_bin, tmp_path)
    root = tmp_path / "r"
    warnings: list[str] = []
    with _process(_env(tmp_path, {}), root, b""):
        index = _index(tmp_path, root, warnings)
        m = index.match("src/app.py")
        assert m.ignored and m.fail_closed and m.rule is None
        source = BROKEN[name]
        if source is not None:
            assert m.unreadable is not None and m.unreadable.endswith(source)
        assert len(warnings) == 1 and warnings[0].startswith("fatal: ")
        assert index.match("a").fail_closed  # every path, not only unmatched ones
    logged = [r for r in caplog.records if r.name == "pathgate.git"]
    assert len(logged) == 1 and "fail closed" in logged[0].getMessage()


def test_runtime_recovers_when_the_config_is_fixed(git_bin: str, tmp_path: Path) -> None:
    LAYOUT["excludesfile-bare"](git_bin, tmp_path)
    root = tmp_path / "r"
    with _process(_env(tmp_path, {}), root, b""):
        index = _index(tmp_path, root, [])
        assert index.match("x.x").fail_closed
        cfg = root / ".git" / "config"
        cfg.write_text(cfg.read_text().replace("\texcludesFile\n", "\texcludesFile = \n"))
        m = index.match("x.x")
        assert m.ignored and not m.fail_closed and m.rule is not None
        assert not index.match("src/app.py").ignored


def test_runtime_follows_includes_and_env_config(git_bin: str, tmp_path: Path) -> None:
    """``[include]`` and ``GIT_CONFIG_PARAMETERS`` change what the runtime ignores, and a
    change of the included file is seen by the next session."""
    LAYOUT["include-path"](git_bin, tmp_path)
    root = tmp_path / "r"
    with _process(_env(tmp_path, {}), root, b""):
        index = _index(tmp_path, root, [])
        assert index.match("c").ignored
        (tmp_path / "ex").write_text("d\n")
        os.utime(tmp_path / "ex", ns=(1, 1))
        assert not index.match("c").ignored and index.match("d").ignored
    (tmp_path / "ex2").write_text("e\n")
    env = _env(tmp_path, {"GIT_CONFIG_PARAMETERS": f"'core.excludesfile'='{tmp_path / 'ex2'}'"})
    with _process(env, root, b""):
        index = _index(tmp_path, root, [])
        assert index.match("e").ignored and not index.match("d").ignored


def test_fifo_config_never_hangs(git_bin: str, tmp_path: Path) -> None:
    """git would block reading a FIFO ``core.excludesFile`` include; pathgate refuses it:
    the runtime fails closed, ``check-ignore`` exits 128 (documented deviation)."""
    from pathgate._check_ignore import main as check_ignore_main

    LAYOUT["include-path"](git_bin, tmp_path)
    root = tmp_path / "r"
    (root / ".git" / "inc.cfg").unlink()
    os.mkfifo(root / ".git" / "inc.cfg")
    with _process(_env(tmp_path, {}), root, b"") as (out, err):
        assert _index(tmp_path, root, []).match("a").fail_closed
        assert check_ignore_main(["--git-only", "a"]) == 128
    assert out.getvalue() == b""
    assert b"inc.cfg': Invalid argument" in err.getvalue()
