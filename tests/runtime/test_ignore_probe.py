"""The probe of the repository-wide ignore sources (``runtime/ignore/_probe.py``): as exact as
the full check — every source created, edited or removed between two sessions is seen by
the second, the environment too — while it stats no missing config file (their nearest
existing directory stands for them), and a directory changed too recently to be told apart
by its timestamps is not relied on."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathgate.runtime.fs import OsFS
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from pathgate.runtime.ignore._gitconfig import ENV_KEYS

LATER = 60 * 10**9  # a wall clock this far ahead: every directory looks old enough to trust


class _Env:
    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "repo"
        self.home = tmp / "home"
        self.system = tmp / "etc" / "gitconfig"
        (self.root / ".git" / "info").mkdir(parents=True)
        (self.root / ".git" / "objects").mkdir()
        (self.root / ".git" / "refs").mkdir()
        (self.root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        self.home.mkdir()
        self.system.parent.mkdir()
        self.excludes = tmp / "excludes"
        self.excludes.write_text("*.tmp\n")

    def sources(self) -> dict[str, Path]:
        """Each repository-wide source, by what it is."""
        return {
            "system config": self.system,
            "xdg config": self.home / ".config" / "git" / "config",
            "home config": self.home / ".gitconfig",
            "repository config": self.root / ".git" / "config",
            "xdg excludes": self.home / ".config" / "git" / "ignore",
            "info/exclude": self.root / ".git" / "info" / "exclude",
        }


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _Env:
    e = _Env(tmp_path)
    monkeypatch.setenv("HOME", str(e.home))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(e.system))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL",
                 "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(name, raising=False)
    return e


def _index(e: _Env, fs: OsFS | None = None, ahead: int = LATER) -> IgnoreIndex:
    index = IgnoreIndex(e.root, IgnoreConfig.git_only(), fs=fs)
    index._wall_ns = lambda: time.time_ns() + ahead
    if fs is not None:
        index.trusts_dir = lambda path, st: True
    return index


def _content(kind: str, e: _Env) -> str:
    if kind.endswith("config"):
        return f"[core]\n\texcludesFile = {e.excludes}\n"
    return "*.tmp\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("kind", ["system config", "xdg config", "home config",
                                  "repository config", "xdg excludes", "info/exclude"])
def test_each_source_created_edited_removed_is_seen_by_the_next_session(env: _Env, kind: str) -> None:
    index = _index(env)
    path = env.sources()[kind]
    for _ in range(2):
        assert not index.match("x.tmp").ignored
    assert index._probe is not None  # the probe answers from here on
    _write(path, _content(kind, env))
    assert index.match("x.tmp").ignored  # created
    assert index.match("x.tmp").ignored
    st = path.stat()
    # an edit of the same size, with the old mtime put back (only ctime tells)
    path.write_text(_content(kind, env).replace("tmp", "bak") if kind.endswith("exclude")
                    or kind.endswith("excludes") else f"[core]\n\texcludesFile = {env.excludes}x\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not index.match("x.tmp").ignored  # edited
    _write(path, _content(kind, env))
    assert index.match("x.tmp").ignored
    path.unlink()
    assert not index.match("x.tmp").ignored  # removed
    assert not index.match("x.tmp").ignored


def test_directories_on_the_way_created_later(env: _Env) -> None:
    """``~/.config`` does not exist: its parent stands for it; making ``~/.config``, then
    ``git/``, then the file is each seen."""
    index = _index(env)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    (env.home / ".config").mkdir()
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored  # probe rebuilt on the new anchor
    (env.home / ".config" / "git").mkdir()
    assert not index.match("x.tmp").ignored
    (env.home / ".config" / "git" / "ignore").write_text("*.tmp\n")
    assert index.match("x.tmp").ignored


def test_dangling_symlink_on_the_way_is_not_an_anchor(env: _Env, tmp_path: Path) -> None:
    """``~/.config`` is a dangling symlink: creating its target does not touch ``~``, so the
    files below stay on their own stat."""
    target = tmp_path / "elsewhere"
    (env.home / ".config").symlink_to(target)
    index = _index(env)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    _write(target / "git" / "ignore", "*.tmp\n")
    assert index.match("x.tmp").ignored


def test_environment_changes_are_seen(env: _Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index(env)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    other = tmp_path / "home2"
    _write(other / ".gitconfig", f"[core]\n\texcludesFile = {env.excludes}\n")
    monkeypatch.setenv("HOME", str(other))
    assert index.match("x.tmp").ignored
    monkeypatch.setenv("HOME", str(env.home))
    assert not index.match("x.tmp").ignored
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.excludesfile'='{env.excludes}'")
    assert index.match("x.tmp").ignored
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    assert not index.match("x.tmp").ignored
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")  # the numbered variables: the exact check
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.excludesFile")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(env.excludes))
    assert index.match("x.tmp").ignored
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(env.excludes) + "-none")
    assert not index.match("x.tmp").ignored


class _Counting(OsFS):
    """The real filesystem, counting ``stat`` calls by path; ``frozen`` paths report the
    first ``stat`` they had (a change in the same clock tick, as far as timestamps go)."""

    def __init__(self) -> None:
        self.stats: list[str] = []
        self.frozen: dict[str, os.stat_result | None] = {}

    def stat(self, path: str) -> os.stat_result:
        self.stats.append(path)
        if path in self.frozen:
            st = self.frozen[path]
            if st is None:
                st = self.frozen[path] = os.stat(path)
            return st
        return os.stat(path)


def _missing(env: _Env) -> set[str]:
    return {str(p) for k, p in env.sources().items() if k not in ("info/exclude",)} | {
        str(env.root / ".git" / "commondir")}


def test_probe_stats_no_missing_file(env: _Env) -> None:
    fs = _Counting()
    index = _index(env, fs)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    fs.stats.clear()
    assert not index.match("x.tmp").ignored
    assert fs.stats and not set(fs.stats) & _missing(env)
    assert str(env.home) in fs.stats  # the anchor of the home and XDG files


def test_untrusted_directories_keep_each_file_on_its_own_stat(env: _Env) -> None:
    fs = _Counting()
    index = _index(env, fs)
    index.trusts_dir = lambda path, st: False  # a network filesystem, say
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    fs.stats.clear()
    assert not index.match("x.tmp").ignored
    assert _missing(env) - {str(env.system)} <= set(fs.stats) | {str(env.root / ".git" / "config")}


def test_real_filesystem_default_trusts_local_directories(env: _Env) -> None:
    index = _index(env)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    pr = index._probe
    assert pr is not None
    from pathgate.runtime.fs import is_local_tree

    if is_local_tree(str(env.home)):
        assert str(env.home) in dict(pr.items)
    else:
        assert str(env.home) not in dict(pr.items)


@pytest.mark.parametrize("young", [True, False])
def test_racily_young_anchor_is_not_trusted(env: _Env, young: bool) -> None:
    """The home directory's stat is frozen (a file created in the same clock tick as its
    last change leaves its timestamps as they were). Just changed (``young``): the probe
    keeps the home files on their own stat and the new ``~/.gitconfig`` is seen. Old enough:
    the probe trusts the frozen stat — the case the racy guard exists for (a real change
    after a directory is old enough moves its ``ctime``)."""
    fs = _Counting()
    fs.frozen[str(env.home)] = None
    index = _index(env, fs, ahead=0 if young else LATER)
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    pr = index._probe
    assert pr is not None and (pr.retry_ns > 0) is young
    _write(env.home / ".gitconfig", f"[core]\n\texcludesFile = {env.excludes}\n")
    assert index.match("x.tmp").ignored is young


def test_racy_anchor_is_trusted_once_old_enough(env: _Env) -> None:
    fs = _Counting()
    index = _index(env, fs, ahead=0)
    now = [time.time_ns()]
    index._wall_ns = lambda: now[0]
    assert not index.match("x.tmp").ignored
    assert not index.match("x.tmp").ignored
    pr = index._probe
    assert pr is not None and pr.retry_ns > now[0]
    now[0] = pr.retry_ns + 1
    assert not index.match("x.tmp").ignored  # rebuilt: the anchor is trusted now
    pr2 = index._probe
    assert pr2 is not None and pr2 is not pr and pr2.retry_ns == 0
    fs.stats.clear()
    assert not index.match("x.tmp").ignored
    assert not set(fs.stats) & _missing(env)


def _sessions(index: IgnoreIndex, n: int) -> Iterator[bool]:
    for _ in range(n):
        yield index.match("x.tmp").ignored


def test_anchor_changed_while_building_gives_no_probe(env: _Env) -> None:
    """Building a probe re-stats each existing file: one edited since it was recorded means
    no probe (the exact check runs again next time)."""
    exclude = env.sources()["info/exclude"]
    exclude.write_text("*.bak\n")
    fs = _Counting()
    index = _index(env, fs)
    assert not any(_sessions(index, 2))
    g = index._globals
    assert g is not None and index._probe is not None
    exclude.write_text("*.tmp\n")
    assert index._make_probe(g) is None
    assert index.match("x.tmp").ignored
    # a missing file created while building: found there after its anchor's stat, no anchor
    (env.home / ".gitconfig").write_text(f"[core]\n\texcludesFile = {env.excludes}\n")
    g = index._globals
    assert g is not None
    pr = index._make_probe(g)
    assert pr is not None and dict(pr.items)[str(env.home / ".gitconfig")] is None
    assert not pr.check(fs.stat, ENV_KEYS)  # so the exact check runs and sees it
    assert index.match("x.tmp").ignored and index._globals is not g  # reloaded
