"""git's own ignore sources are read as bounded regular files (issue 13).

A FIFO in place of ``.git/info/exclude``, ``.git/config`` or ``core.excludesFile`` must not
hang a call; a symlink to ``/dev/zero`` must not be read without bound; a file past the cap
fails closed with the hedged "could not be read" verdict.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from pathgate.runtime.fs import MAX_CONFIG_BYTES, read_regular
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex, Match

TIMEOUT = 20.0  # generous: a hang is forever, a correct answer takes milliseconds


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n")
    (root / "a.txt").write_text("a")
    (root / "b.log").write_text("b")
    return root


def _bounded(fn: Callable[[], Match]) -> Match:
    """Run ``fn`` in a thread; fail (not hang) when it does not return in time."""
    out: list[Match] = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(TIMEOUT)
    assert not t.is_alive(), "reading a git ignore source blocked"
    return out[0]


def _place(root: Path, which: str, kind: str) -> IgnoreConfig:
    """Make ``which`` (exclude | config | excludes_file) a FIFO or a /dev/zero symlink."""
    target = {"exclude": root / ".git" / "info" / "exclude", "config": root / ".git" / "config",
              "excludes_file": root.parent / "global-ignore"}[which]
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.symlink("/dev/zero", target)
    if which == "excludes_file":
        return IgnoreConfig.git_only(excludes_file=str(target))
    return IgnoreConfig.git_only(excludes_file="/dev/null")


@pytest.mark.parametrize("kind", ["fifo", "devzero"])
@pytest.mark.parametrize("which", ["exclude", "config", "excludes_file"])
def test_special_git_sources_neither_hang_nor_flood(tmp_path: Path, which: str, kind: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    root = _repo(tmp_path)
    cfg = _place(root, which, kind)
    index = IgnoreIndex(root, cfg)
    m = _bounded(lambda: index.match("b.log"))
    if (which, kind) == ("config", "fifo"):
        # git would block reading it; pathgate refuses it (issue 17: a documented deviation)
        # and, the configuration unknown, fails closed without hanging
        assert m.ignored and m.fail_closed and m.unreadable == ".git/config"
        return
    assert m.ignored and not m.fail_closed  # the per-directory rules still apply
    assert not _bounded(lambda: index.match("a.txt")).ignored  # a special file has no rules
    sources = index.session().source_infos("a.txt")
    if which != "config":
        assert any(s.state == "special" for s in sources), sources


def test_oversize_info_exclude_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.fs import _read

    monkeypatch.setattr(_read, "MAX_IGNORE_BYTES", 64)
    monkeypatch.setattr("pathgate.runtime.fs._ops.MAX_IGNORE_BYTES", 64, raising=False)
    root = _repo(tmp_path)
    (root / ".git" / "info" / "exclude").write_text("x\n" * 100)
    index = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
    m = index.match("a.txt")
    assert m.ignored and m.fail_closed and m.unreadable == ".git/info/exclude"


def test_oversize_git_config_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    root = _repo(tmp_path)
    with open(root / ".git" / "config", "wb") as fh:
        fh.truncate(MAX_CONFIG_BYTES + 1)  # sparse: cheap
    index = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
    m = index.match("a.txt")
    assert m.ignored and m.fail_closed and m.unreadable == ".git/config"


def test_read_regular_refuses_special_and_oversize(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as e1:
        read_regular(str(fifo), 100)
    assert e1.value.errno == __import__("errno").EINVAL
    with pytest.raises(OSError) as e2:
        read_regular("/dev/zero", 100, follow=True)
    assert e2.value.errno == __import__("errno").EINVAL
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    with pytest.raises(OSError) as e3:
        read_regular(str(big), 100)
    assert e3.value.errno == __import__("errno").EFBIG
    assert read_regular(str(big), 101) == b"x" * 101
