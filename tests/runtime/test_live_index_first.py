"""The live index's first answer asks no secret-inode registry (issue 15).

The first scan records names and kinds only. Its own answer (the first ``list_directory``
or ``code_search`` on a fresh runtime) ``lstat``-s the files it replays, as a walk marks
them, and asks the registry only about a multi-linked one; the registry's first snapshot
is seeded from the scan in the watch thread, after the answer. Each test would fail if the
replayed files were not looked at again (an alias of a secret listed), if a file gone
since the scan were replayed (a secret's former alias named), or if the seed ignored
``aclose``.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.runtime._links import SecretInodes
from pathgate.runtime._live import LiveIndex, _watches
from tests._gitinit import git_init

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only"), pytest.mark.anyio]

SECRET = "API_KEY=sk-live-SECRET\n"
_THREAD = "pathgate-live-watches"


def _tree(root: Path) -> None:
    git_init(root)
    (root / "src/d").mkdir(parents=True)
    (root / "src/d/x.txt").write_text("x\n")
    (root / "src/a.txt").write_text("a\n")
    (root / "notes.txt").write_text("n\n")
    (root / "node_modules/p").mkdir(parents=True)
    (root / "node_modules/p/i.js").write_text("x\n")
    (root / "node_modules/p/.env").write_text(SECRET)
    (root / ".gitignore").write_text("node_modules/\n*.log\n")


def _no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch thread never starts: its work (watches, then the seed) is done inline by
    the next query, so what the first answer did is seen alone."""
    monkeypatch.setattr(_watches.DeferredWatches, "start", lambda self: None)


@pytest.mark.parametrize("first", ["list_directory", "code_search"])
async def test_first_answer_builds_no_registry_then_seeds_it(
        tmp_path: Path, first: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    _no_thread(monkeypatch)
    seeded: list[Any] = []
    real = SecretInodes.seed

    def spy(self: SecretInodes, *args: Any, **kwargs: Any) -> Any:
        seeded.append(got := real(self, *args, **kwargs))
        return got

    monkeypatch.setattr(SecretInodes, "seed", spy)
    args = {"list_directory": {"path": "."}, "code_search": {"regex": "x"}}[first]
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        assert await live.call(first, args) == await ref.call(first, args)
        reg = live.pipeline.secret_inodes(live.root)
        assert reg is not None and reg.builds == 0 and reg.dirs is None  # not asked
        assert not seeded
        # the next query takes the watches in: the seed ran after them, from the scan
        assert await live.glob("**", limit=0) == await ref.glob("**", limit=0)
        assert len(seeded) == 1 and seeded[0] is not None and reg.builds == 1
        own = SecretInodes(live.root, reg.is_secret)._build()
        assert reg.current().inodes == own.inodes and reg.builds == 1


@pytest.mark.parametrize("first", [("list_directory", {"path": "."}), ("list_directory", {"path": "src"}),
                                   ("code_search", {"regex": "."}), ("glob", {"pattern": "**"})])
@pytest.mark.parametrize("change", ["linked_before", "alias_removed_after_scan"])
async def test_first_answer_never_shows_a_secret_alias(
        tmp_path: Path, first: tuple[str, dict[str, Any]], change: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kept file sharing its inode with a secret inside an ignored directory (no
    registry snapshot exists yet): the first answer neither lists, counts nor searches
    it, and equals a fresh walk made after the change."""
    _tree(tmp_path)
    _no_thread(monkeypatch)
    secret = tmp_path / "node_modules/p/.env"
    where = tmp_path / ("src" if first[1].get("path") == "src" else "") / "alias.txt"

    os.link(secret, where)
    after = None if change == "linked_before" else where.unlink
    real = LiveIndex._scan

    def scan(self: LiveIndex) -> None:
        real(self)
        if after is not None:
            after()  # another process, between the scan's listing and the answer

    monkeypatch.setattr(LiveIndex, "_scan", scan)
    tool, args = first
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        got = await live.call(tool, args)
        assert got == await ref.call(tool, args)
        assert "alias" not in repr(got) and "sk-live" not in repr(got)
        for tool2, args2 in (("list_directory", {"path": "."}), ("list_directory", {"path": "src"}),
                             ("glob", {"pattern": "**"}), ("code_search", {"regex": "."})):
            assert await live.call(tool2, args2) == await ref.call(tool2, args2), (tool2, args2)


async def test_a_file_linked_to_a_secret_after_the_scan_is_hidden(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ln notes.txt node_modules/p/.npmrc`` after the scan listed ``notes.txt``: its
    bytes are now a secret's, and the first answer leaves it out as a walk now would
    (the scan's listing alone would have shown it)."""
    _tree(tmp_path)
    _no_thread(monkeypatch)
    real = LiveIndex._scan

    def scan(self: LiveIndex) -> None:
        real(self)
        os.link(tmp_path / "notes.txt", tmp_path / "node_modules/p/.npmrc")

    monkeypatch.setattr(LiveIndex, "_scan", scan)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        got = await live.list_directory(".")
        assert "notes.txt" not in [e.name for e in got.entries]
        assert got == await ref.list_directory(".")


async def test_aclose_stops_the_seed_in_the_watch_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry's seed runs in the watch thread after the first answer; ``aclose``
    while it runs stops it (no snapshot left half made, no thread left)."""
    _tree(tmp_path)
    seeding, go = threading.Event(), threading.Event()
    outcome: list[Any] = []
    real = SecretInodes.seed

    def slow(self: SecretInodes, *args: Any, **kwargs: Any) -> Any:
        seeding.set()
        go.wait(10)
        outcome.append(got := real(self, *args, **kwargs))
        return got

    monkeypatch.setattr(SecretInodes, "seed", slow)
    live = Runtime(tmp_path, live_index=True)
    await live.list_directory(".")
    assert seeding.wait(10), "the seed never ran in the watch thread"
    index = live.live_index
    assert index is not None
    w = index._deferred
    assert w is not None
    closer = threading.Thread(target=index.close)
    closer.start()
    for _ in range(1000):
        if w.stopping:
            break
        threading.Event().wait(0.01)
    go.set()
    closer.join(10)
    await live.aclose()
    assert not closer.is_alive()
    assert outcome == [None]  # stopped, nothing kept
    reg = live.pipeline.secret_inodes(live.root)
    assert reg is not None and reg.dirs is None and reg.builds == 0
    assert not any(t.name == _THREAD for t in threading.enumerate())


def test_the_seed_waits_for_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``first_scan`` leaves the registry to the watch thread's work, after the watches:
    nothing is seeded by the scan or its answer."""
    _tree(tmp_path)
    _no_thread(monkeypatch)
    rt = Runtime(tmp_path)
    index = LiveIndex(rt.index)
    reg = SecretInodes(str(tmp_path), rt.pipeline.secrets.is_secret)
    try:
        assert index.first_scan(reg) is True
        assert reg.builds == 0 and reg.dirs is None
        got = index.entries("", lambda _r: False, scanned=True)
        assert got is not None and reg.builds == 0
        w = index._deferred
        assert w is not None
        w.finish()
        assert reg.builds == 1 and reg.dirs is not None
    finally:
        index.close()
