"""The first scan's watches, added after its answer (issue 15): nothing changed between a
directory's listing and its watch is missed, and no thread outlives the runtime.

Each change is placed deterministically inside the window: the event source's
``add_watch`` makes it just before the directory's watch is added.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.runtime._live import LiveIndex, _watches
from pathgate.runtime._live._inotify import Inotify

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only"), pytest.mark.anyio]

_THREAD = "pathgate-live-watches"


def _tree(root: Path) -> None:
    (root / "src/pkg/deep").mkdir(parents=True)
    (root / "src/pkg/a.py").write_text("x = 1\n")
    (root / "src/pkg/deep/d.py").write_text("x\n")
    (root / "src/b.py").write_text("x\n")
    (root / "ign").mkdir()
    (root / "ign/c.py").write_text("x\n")
    (root / ".env").write_text("SECRET=x\n")
    (root / ".gitignore").write_text("ign/\n")


def _source(before_watch: dict[str, Callable[[], None]], threads: list[str]) -> type[Inotify]:
    """An event source that runs ``before_watch[rel]`` (once) just before watching ``rel``
    and notes which thread adds each watch."""

    class Hooked(Inotify):
        def add_watch(self, path: str, mask: int = 0) -> int:
            threads.append(threading.current_thread().name)
            for rel, hook in list(before_watch.items()):
                if path.endswith("/" + rel):
                    del before_watch[rel]
                    hook()
            return super().add_watch(path) if mask == 0 else super().add_watch(path, mask)

    return Hooked


async def _same(live: Runtime, ref: Runtime) -> None:
    for pat in ("**", "**/*.py", "src/**"):
        assert await live.glob(pat, limit=0) == await ref.glob(pat, limit=0), pat
    for d in (".", "src", "src/pkg", "src/pkg/deep", "src/pkg/new", "src/pkg/deep/x"):
        assert await live.list_directory(d) == await ref.list_directory(d), d


def _edits(root: Path) -> list[tuple[str, str, Callable[[], None]]]:
    """(the directory whose watch the edit precedes, the directory it changes, the edit)"""
    def new_subdir() -> None:
        (root / "src/pkg/new").mkdir()
        (root / "src/pkg/new/n.py").write_text("x\n")

    def replaced_dir() -> None:  # the same name, another directory: only its inode says so
        shutil.rmtree(root / "src/pkg/deep")
        (root / "src/pkg/deep/x").mkdir(parents=True)
        (root / "src/pkg/deep/x/y.py").write_text("x\n")

    return [
        ("src/pkg", "src/pkg", lambda: (root / "src/pkg/z.py").write_text("x\n")),
        ("src/pkg", "src/pkg", lambda: (root / "src/pkg/a.py").unlink()),
        ("src/pkg", "src/pkg", new_subdir),
        ("src/pkg/deep", "src/pkg", replaced_dir),
        ("src", "src", lambda: (root / "src/.gitignore").write_text("*.py\n")),
        ("src/pkg/deep", "src/pkg", lambda: os.rename(root / "src/pkg/deep", root / "moved")),
    ]


@pytest.mark.parametrize("case", range(6))
@pytest.mark.parametrize("first", ["glob", "list_directory"])
async def test_change_between_listing_and_watch(tmp_path: Path, case: int, first: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A change made after the first scan listed a directory and before its watch is added
    (no event can report it) is seen through the directory's signature: the next answers
    equal a fresh walk's. The racy rule is off (``RACY_NS = 0``): the signature alone
    must catch it."""
    monkeypatch.setattr(_watches, "RACY_NS", 0)
    _tree(tmp_path)
    at, changed, edit = _edits(tmp_path)[case]
    watched = tmp_path / changed if changed else tmp_path
    seen: dict[str, Any] = {}

    def hook() -> None:
        seen["before"] = os.lstat(watched).st_ctime_ns
        edit()
        if watched.exists():
            seen["after"] = os.lstat(watched).st_ctime_ns

    threads: list[str] = []
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.live_index = index = LiveIndex(live.index, inotify=_source({at: hook}, threads))
        if first == "glob":
            await live.glob("**", limit=0)
        else:
            await live.list_directory(".")
        await _same(live, ref)
        assert "before" in seen, "the change was not placed before the watch"
        if seen.get("after") == seen["before"]:
            pytest.skip("coarse timestamps: the change left the directory's ctime as it was")
        assert index.resets == 0 and index.disabled is None
    assert threads and threads[0] == _THREAD  # the first scan's watches: after its answer


async def test_same_tick_change_is_relisted_by_the_racy_rule(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A change within the timestamp tick of the listing keeps the directory's signature
    (as a coarse clock would: simulated here); a directory changed that recently before
    the scan is re-listed whatever its signature says."""
    _tree(tmp_path)
    pkg = tmp_path / "src/pkg"
    sig = os.lstat(pkg)
    real_lstat = os.lstat

    def same_tick_lstat(path: Any, *a: Any, **k: Any) -> os.stat_result:
        st = real_lstat(path, *a, **k)
        if os.fspath(path) == str(pkg):
            # the directory as a coarse clock leaves it: the signature of its listing
            return os.stat_result((st.st_mode, sig.st_ino, st.st_dev, st.st_nlink, st.st_uid,
                                   st.st_gid, st.st_size, int(sig.st_atime), int(sig.st_mtime),
                                   int(sig.st_ctime), sig.st_atime, sig.st_mtime, sig.st_ctime,
                                   sig.st_atime_ns, sig.st_mtime_ns, sig.st_ctime_ns))
        return st

    class _Os:
        def __getattr__(self, name: str) -> Any:
            return same_tick_lstat if name == "lstat" else getattr(os, name)

    monkeypatch.setattr(_watches, "os", _Os())
    threads: list[str] = []
    hooks = {"src/pkg": lambda: (pkg / "z.py").write_text("x\n")}
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.live_index = LiveIndex(live.index, inotify=_source(hooks, threads))
        await live.glob("**", limit=0)
        await _same(live, ref)
        assert "src/pkg/z.py" in (await live.glob("**", limit=0)).matches
    assert not hooks, "the change was not placed"


async def test_watch_thread_joined_when_the_runtime_stops(tmp_path: Path) -> None:
    """Stopping the runtime while the watches are being added stops and joins the thread:
    no thread and no descriptor is left, and the index answers nothing more."""
    _tree(tmp_path)
    entered, go = threading.Event(), threading.Event()

    def wait() -> None:
        entered.set()
        go.wait(30)

    threads: list[str] = []
    fds = len(os.listdir("/proc/self/fd"))
    live = Runtime(tmp_path, live_index=True)
    live.live_index = index = LiveIndex(live.index, inotify=_source({"src/pkg": wait}, threads))
    await live.glob("**", limit=0)
    assert entered.wait(30)
    closing = threading.Thread(target=index.close)
    closing.start()
    go.set()
    closing.join(30)
    await live.aclose()
    assert not closing.is_alive()
    assert not any(t.name == _THREAD for t in threading.enumerate())
    assert index.watches == 0 and len(os.listdir("/proc/self/fd")) == fds
    assert (await live.glob("**/*.py", limit=0)).total == 3  # walked


async def test_watches_added_inline_when_the_next_query_comes_first(tmp_path: Path) -> None:
    """A first scan whose watches were never started (its registry seed still pending: the
    index asked directly) has them added by the next query, before it drains."""
    _tree(tmp_path)
    threads: list[str] = []
    hooks = {"src": lambda: (tmp_path / "src/late.py").write_text("x\n")}
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.live_index = index = LiveIndex(live.index, inotify=_source(hooks, threads))
        assert index.entries("") is not None and not threads
        await _same(live, ref)
        assert "src/late.py" in (await live.glob("**", limit=0)).matches
    assert threads and _THREAD not in threads


def _budget_tree(root: Path) -> None:
    _tree(root)
    for i in range(3):
        (root / f"m{i}/sub").mkdir(parents=True)
        (root / f"m{i}/a.py").write_text("x\n")
        (root / f"m{i}/b.log").write_text("x\n")
        (root / f"m{i}/sub/c.py").write_text("x\n")
        (root / f"m{i}/.env").write_text("S=1\n")  # secrets are never charged
        (root / f"m{i}/node_modules/q").mkdir(parents=True)
        (root / f"m{i}/node_modules/q/n.py").write_text("x\n")
    (root / "m1/link.py").symlink_to("../src/b.py")
    (root / "m2/out.py").symlink_to("/etc/hostname")
    (root / ".gitignore").write_text("ign/\n*.log\nnode_modules/\n")


@pytest.mark.parametrize("pattern", ["**", "**/*.py", "m1/**", "**/sub/*"])
async def test_stored_verdicts_stop_where_the_walk_budget_stops(
        tmp_path: Path, pattern: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the walk budget the live glob's stored-verdict route (no per-entry judging)
    stops at the entry a walk stops at: for every budget the answer (matches, omission
    counts and first examples, excluded directories counted, ``walk_stopped_early``) equals
    a fresh walk's, and the route taken is the stored verdicts', not a replay."""
    import pathgate.runtime.tools._discover as discover
    from pathgate.runtime._live import _records

    _budget_tree(tmp_path)
    budgeted: list[int] = []
    real = _records.scan_glob

    def spy(*a: Any, **k: Any) -> Any:
        if k.get("budget") is not None:
            budgeted.append(k["budget"])
        return real(*a, **k)

    monkeypatch.setattr("pathgate.runtime._live._globs.scan_glob", spy)
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        total = (await ref.glob(pattern, limit=0))
        assert not total.walk_stopped_early
        for budget in range(0, 40):
            monkeypatch.setattr(discover, "WALK_BUDGET", budget)
            a, b = await live.glob(pattern, limit=0), await ref.glob(pattern, limit=0)
            assert a == b, (pattern, budget)
            assert await live.glob(pattern, limit=0) == b  # (known over budget: at once)
            if b.walk_stopped_early:
                assert budgeted and budgeted[-1] == budget
            budgeted.clear()


@pytest.mark.parametrize("extra", [2, 40])
async def test_registry_bound_scales_with_the_index(tmp_path: Path, extra: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A live index raises the secret-inode registry's entry bound by the entries it holds
    (a 1M-file tree no longer fails closed for being indexed), never further: an ignored
    subtree larger than the base bound beyond them still fails closed (every multi-linked
    file then counts as a secret's alias). The answers equal a fresh walk's under the same
    bound."""
    from pathgate.runtime import _links

    monkeypatch.setattr(_links, "MAX_ENTRIES", 20)
    _budget_tree(tmp_path)
    (tmp_path / "ign/many").mkdir()
    for i in range(extra):
        (tmp_path / f"ign/many/f{i}").write_text("x\n")
    os.link(tmp_path / "src/b.py", tmp_path / "src/b2.py")  # a multi-linked file, no secret
    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        reg, ref_reg = live.pipeline.secret_inodes(live.root), ref.pipeline.secret_inodes(ref.root)
        assert reg is not None and ref_reg is not None and reg is not ref_reg
        reg.max_entries = 20
        first = await live.glob("**", limit=0)
        index = live.live_index
        assert index is not None
        held = sum(len(d.names) for d in index._dirs.values())
        assert reg.max_entries == 20 + held
        ref_reg.max_entries = reg.max_entries  # the same bound: the same answers
        assert first == await ref.glob("**", limit=0)
        for pat in ("**", "**/*.py"):
            assert await live.glob(pat, limit=0) == await ref.glob(pat, limit=0)
        assert reg.current().overflow is (extra > 20)
        assert ("src/b2.py" in first.matches) is (extra <= 20)
