"""The secret-inode registry under concurrent links and renames (a third red-team pass).

A regular file sharing its inode with a secret is a secret (SPEC §2). The registry used to
record only secrets with more than one link *at the moment its build looked at them*, and
used a fresh build without validating it: a ``ln .env d/alias`` landing between the
secret's ``lstat`` and its directory's, or a ``mv`` of a not-yet-listed directory into a
listed one, left the alias served by read_files, code_search and glob until some other
change. Each test places the concurrent change deterministically inside the build.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

import pathgate.runtime._links as links
from pathgate import Runtime
from pathgate.runtime._links import SecretInodes
from pathgate.runtime.tools import _scan
from tests._gitinit import git_init

SECRET = "API_KEY=sk-live-SECRET\n"


def _is_secret(relpath: str) -> bool:
    return relpath.rsplit("/", 1)[-1] == ".env"


class _OsWith:
    """``os`` as the registry sees it, with one hooked function."""

    def __init__(self, **hooks: Any) -> None:
        self._hooks = hooks

    def __getattr__(self, name: str) -> Any:
        return self._hooks.get(name) or getattr(os, name)


class _Listed(list[Any]):
    """A directory's entries, already listed, usable as ``with os.scandir(...)``."""

    def __enter__(self) -> _Listed:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def _git_init(root: Path) -> None:
    git_init(root)


def test_link_made_after_the_secret_was_looked_at(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / ".env").write_text(SECRET)
    armed = [True]

    def lstat(path: Any, *a: Any, **k: Any) -> os.stat_result:
        if armed[0] and os.fspath(path) == str(tmp_path / "d"):
            armed[0] = False
            os.link(tmp_path / ".env", tmp_path / "d" / "alias.txt")  # another process, now
        return os.lstat(path, *a, **k)

    monkeypatch.setattr(links, "os", _OsWith(lstat=lstat))
    reg = SecretInodes(str(tmp_path), _is_secret)
    reg.current()
    assert not armed[0], "the hook never ran: the test no longer places the race"
    monkeypatch.setattr(links, "os", os)
    assert reg.linked_secret(os.stat(tmp_path / "d" / "alias.txt"))
    assert reg.checker() is not None


def test_link_made_from_elsewhere_after_a_snapshot(tmp_path: Path) -> None:
    # the secret's own directory does not change when a link to it is made elsewhere
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / ".env").write_text(SECRET)
    reg = SecretInodes(str(tmp_path), _is_secret)
    assert reg.checker() is None  # nothing multi-linked: nothing can alias a secret
    os.link(tmp_path / "a" / ".env", tmp_path / "b" / "alias.txt")
    assert reg.linked_secret(os.stat(tmp_path / "b" / "alias.txt"))


def test_rename_during_a_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d1").mkdir()
    (tmp_path / "v").mkdir()
    (tmp_path / "d1" / ".env").write_text(SECRET)
    os.link(tmp_path / "d1" / ".env", tmp_path / "d1" / "alias.txt")
    (tmp_path / "v" / "ok.txt").write_text("x\n")
    reg = SecretInodes(str(tmp_path), _is_secret)
    assert reg.linked_secret(os.stat(tmp_path / "d1" / "alias.txt"))
    (tmp_path / "v" / "new.txt").write_text("")  # the next question rebuilds
    visited: set[str] = set()
    armed = [True]

    def scandir(path: Any) -> Any:
        rel = os.path.relpath(os.fspath(path), tmp_path)
        visited.add(rel)
        with os.scandir(path) as it:
            entries = _Listed(it)  # listed now, before the rename
        if armed[0] and rel == "v" and "d1" not in visited:
            armed[0] = False
            os.rename(tmp_path / "d1", tmp_path / "v" / "d1")  # `mv d1 v/` lands now
        return entries

    monkeypatch.setattr(links, "os", _OsWith(scandir=scandir))
    alias = os.stat(tmp_path / "d1" / "alias.txt")
    verdict = reg.linked_secret(alias)
    if armed[0]:
        pytest.skip("the walk listed d1 before v: the rename could not be placed")
    assert verdict


def test_a_tree_that_never_holds_still_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / "plain.txt").write_text("x\n")
    os.link(tmp_path / "plain.txt", tmp_path / "other.txt")
    n = [0]

    def scandir(path: Any) -> Any:
        n[0] += 1
        (tmp_path / f"churn{n[0]}").write_text("")  # the root changes during every build
        return os.scandir(path)

    monkeypatch.setattr(links, "os", _OsWith(scandir=scandir))
    reg = SecretInodes(str(tmp_path), _is_secret)
    assert reg.linked_secret(os.stat(tmp_path / "plain.txt"))  # unknown: fail closed
    monkeypatch.setattr(links, "os", os)
    builds = reg.builds
    assert not reg.linked_secret(os.stat(tmp_path / "plain.txt"))  # quiet again: exact
    assert reg.builds == builds + 1


def test_runtime_never_serves_the_alias(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _git_init(tmp_path)
    (tmp_path / "d").mkdir()
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / "d" / "x.txt").write_text("x\n")
    os.link(tmp_path / "d" / "x.txt", tmp_path / "d" / "x2.txt")  # a multi-linked file builds the registry
    armed = [True]

    def lstat(path: Any, *a: Any, **k: Any) -> os.stat_result:
        if armed[0] and os.fspath(path) == str(tmp_path / "d"):
            armed[0] = False
            os.link(tmp_path / ".env", tmp_path / "d" / "alias.txt")
        return os.lstat(path, *a, **k)

    monkeypatch.setattr(links, "os", _OsWith(lstat=lstat))

    async def main() -> list[Any]:
        rt = Runtime(tmp_path)
        out = [await rt.call("read_files", {"paths": ["d/x.txt"]})]
        for _ in range(2):
            out.append(await rt.call("read_files", {"paths": ["d/alias.txt"]}))
            out.append(await rt.call("code_search", {"regex": "API_KEY"}))
            out.append(await rt.call("glob", {"pattern": "d/*"}))
        return out

    out = anyio.run(main)
    assert not armed[0], "the hook never ran: the test no longer places the race"
    assert "sk-live" not in repr(out)
    assert all("alias" not in repr(o) or "[BLOCKED]" in repr(o) for o in out), out


def test_alias_renamed_away_between_open_and_fstat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A descriptor opened on ``d/a.txt`` while it was a hard link to ``.env``: the alias is
    replaced (``mv tmp d/a.txt``) before the tool's ``fstat``, which then shows one link;
    the descriptor still reads the secret, so it is still a secret. (code_search's walk saw
    a plain ``d/a.txt``; the alias is swapped in just before the scan opens it.)"""
    _git_init(tmp_path)
    d = tmp_path / "d"
    d.mkdir()
    (tmp_path / ".env").write_text(SECRET)
    (d / "x.txt").write_text("x\n")
    os.link(d / "x.txt", d / "x2.txt")  # a multi-linked file builds the registry
    (d / "a.txt").write_text("good\n")
    secret_ino = os.stat(tmp_path / ".env").st_ino
    real_fstat, real_open = os.fstat, os.open
    swaps = [0]

    def alias_in() -> None:
        os.link(tmp_path / ".env", d / "a.tmp")
        os.replace(d / "a.tmp", d / "a.txt")

    def open_(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if os.fspath(path) in ("a.txt", str(d / "a.txt")) or os.fspath(path).endswith("/d/a.txt"):
            if os.stat(d / "a.txt").st_ino != secret_ino:
                alias_in()
        return real_open(path, flags, mode, dir_fd=dir_fd)

    def fstat(fd: int) -> os.stat_result:
        st = real_fstat(fd)
        if st.st_ino == secret_ino and st.st_nlink > 1:
            swaps[0] += 1
            (d / ".tmp").write_text("good\n")
            os.rename(d / ".tmp", d / "a.txt")  # the alias is gone
            st = real_fstat(fd)
            assert st.st_nlink == 1
        return st

    real_beneath = _scan.open_beneath()

    def beneath(dir_fd: int, rel: str) -> int:  # the scan's one-call open (openat2)
        if rel == "d/a.txt" and os.stat(d / "a.txt").st_ino != secret_ino:
            alias_in()
        assert real_beneath is not None
        return real_beneath(dir_fd, rel)

    async def main() -> list[Any]:
        rt = Runtime(tmp_path)
        out = [await rt.call("read_files", {"paths": ["d/x.txt"]})]  # the registry exists
        for tool, args in (("read_files", {"paths": ["d/a.txt"]}), ("code_search", {"regex": "API_KEY"})):
            with monkeypatch.context() as m:
                m.setattr(os, "fstat", fstat)
                m.setattr(os, "open", open_)
                if real_beneath is not None:
                    m.setattr(_scan, "open_beneath", lambda: beneath)
                out.append(await rt.call(tool, args))
        return out

    out = anyio.run(main)
    assert swaps[0] >= 2, "the race was not placed in both tools"
    assert "sk-live" not in repr(out), out


def test_link_made_while_the_live_index_seeds_the_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The live index seeds the registry's first snapshot from its first scan (issue 15),
    in the watch thread after the first answer. A ``ln .env node_modules/p/alias.js``
    landing right after the seed looked at ``.env`` must be seen before the snapshot is
    used: a seeded snapshot is validated like a rebuild, so the next glob neither lists nor
    counts the alias (it equals a fresh walk's answer on the tree with the link)."""
    _git_init(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.js").write_text("x\n")
    (tmp_path / "node_modules/p").mkdir(parents=True)
    (tmp_path / "node_modules/p/i.js").write_text("x\n")
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    real = SecretInodes.seed
    placed: list[bool] = []

    def seed(self: SecretInodes, *args: Any, **kwargs: Any) -> Any:
        got = real(self, *args, **kwargs)
        placed.append(True)
        os.link(tmp_path / ".env", tmp_path / "node_modules/p/alias.js")  # lands now
        return got

    monkeypatch.setattr(SecretInodes, "seed", seed)

    async def main() -> list[Any]:
        async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
            got = [await live.call("glob", {"pattern": "**/*.js"})]  # the first answer
            got.append(await live.call("glob", {"pattern": "**/*.js"}))  # (the seed taken in)
            assert placed, "the seed never ran: the test no longer places the race"
            want = await ref.call("glob", {"pattern": "**/*.js"})
            assert got[1] == want
            return got

    out = anyio.run(main)
    assert "alias" not in repr(out)
