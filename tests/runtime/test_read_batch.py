"""The batch route of issue 19's seventh session: the worker's direct route written out in one
loop (``tools/_read_batch.py``), the directory step fused with the ignore session's proof
(``IgnoreSession.held_dir``) and the read's rest (``fs.read_rest``). Each must give what the
separate steps give."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.fs import DirFds, OsFS, is_local_tree, read_fstated
from pathgate.runtime.fs._read import read_rest
from pathgate.runtime.ignore import IgnoreSession
from pathgate.runtime.tools import _read_facts
from tests.runtime.gates._tree import write_tree

DEEP = "/".join(f"z{i}" for i in range(DirFds.CACHE_DEPTH + 3))
FILES: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n",
    "a/b/c/f.txt": "f\n",
    "a/b/.gitignore": "!keep.log\n",
    "a/b/d/g.txt": "g\n",
    "a/e/h.txt": "h\n",
    "build/x/y/o.js": "o",
    "k/l/m/n.txt": "n\n",
    "lnk": "-> a/b",
    f"{DEEP}/deep.txt": "deep\n",
}
DIRS = ["a/b/c", "a/b/d", "a/e", "", "a", "build/x/y", "build/x", "k/l/m", "a/b/c", "lnk", "lnk/c", "missing/x",
        "a/b/c/f.txt", DEEP, DEEP.rsplit("/", 5)[0], "k/l", "k/l/m", "a/b/d"]


def _node_id(node: Any) -> Any:
    return None if node is None else (node.rel, node.stop, node.sigs)


@pytest.mark.anyio
@pytest.mark.parametrize("walk", [False, True])
@pytest.mark.parametrize("cap", [256, 3])
async def test_held_dir_equals_trim_get_and_dir_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     cap: int, walk: bool) -> None:
    """``held_dir`` (and ``held_walk``'s step, ``walk``) gives, step by step, the descriptor
    (the same directory), the node and the descriptors kept that ``trim``, ``get`` and
    ``dir_node`` give one after the other, for directories in and out of walk order, excluded
    ones, a symlink, a missing one, a file, one deeper than ``CACHE_DEPTH``, and a descriptor
    cap that trims between them."""
    root = write_tree(tmp_path / "t", FILES)
    monkeypatch.setattr(DirFds, "CACHE_FDS", cap)
    rt = Runtime(root, Policy())
    await rt.read_files(["a/b/c/f.txt", "a/e/h.txt", "k/l/m/n.txt", f"{DEEP}/deep.txt"])  # the index's nodes
    index = rt.index
    for order in (DIRS, DIRS[::-1]):
        with DirFds(OsFS(), str(root)) as one, DirFds(OsFS(), str(root)) as two:
            s1 = IgnoreSession(index, dir_fd=one.held)
            s2 = IgnoreSession(index, dir_fd=two.held)
            step = s2.held_walk(two) if walk else (lambda rel, s2=s2, two=two: s2.held_dir(rel, two))
            for rel in order:
                one.trim()
                try:
                    fd1 = one.get(rel)
                except (OSError, ValueError):
                    fd1, node1 = -1, None
                else:
                    node1 = s1.dir_node(rel)
                fd2, node2 = step(rel)
                assert (fd1 < 0) == (fd2 < 0), rel
                if fd1 >= 0:
                    assert os.path.samestat(os.fstat(fd1), os.fstat(fd2)), rel
                assert _node_id(node1) == _node_id(node2), rel
                assert sorted(one._fds) == sorted(two._fds), rel
                assert len(two._fds) <= max(cap, 1) + DEEP.count("/") + 2


@pytest.mark.anyio
async def test_a_worker_batch_takes_the_batch_route(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch in a worker thread with the built-in gates runs the batch chunk, and answers
    as a runtime whose reads all take the general route (no direct route, no batch chunk)."""
    root = write_tree(tmp_path / "t", FILES)
    made: list[object] = []
    real = _read_facts.batch_chunk

    def counting(**kw: Any) -> Any:
        made.append(kw["known"])
        return real(**kw)

    monkeypatch.setattr(_read_facts, "batch_chunk", counting)
    paths = ["a/b/c/f.txt", "a/b/d/g.txt", "./a/e/h.txt", "build/x/y/o.js", "x.log", "lnk/c/f.txt", "a/b/c/f.txt",
             "missing.txt", "a/b", f"{DEEP}/deep.txt", ".git/config"]
    got = await Runtime(root, Policy()).read_files(paths)
    assert made
    # as if the filesystem were a seam: no direct route, no batch chunk (made per runtime)
    monkeypatch.setattr(_read_facts, "OsFS", _NotOs)
    made.clear()
    assert await Runtime(root, Policy()).read_files(paths) == got
    assert not made
    assert [r.content for r in got[:3]] == ["f\n", "g\n", "h\n"]


class _NotOs:
    """A type the real filesystem's ``ops`` is not (``type(ops) is OsFS`` fails)."""


def test_read_rest_gives_what_read_fstated_gives(tmp_path: Path) -> None:
    """The batch's own first read and ``read_rest`` give what ``read_fstated`` gives: a file
    that grew after its ``fstat`` is read on to its end or the limit, whatever ``short_is_end``."""
    path = tmp_path / "f.txt"
    for grow, limit in ((b"", 100), (b"more\n", 100), (b"y" * 200, 100), (b"\x00", 100)):
        for short in (False, True):
            path.write_bytes(b"line\n" * 3)
            fds = [os.open(path, os.O_RDONLY), os.open(path, os.O_RDONLY)]
            try:
                st = os.fstat(fds[0])
                with open(path, "ab") as f:
                    f.write(grow)
                want = read_fstated(fds[0], st, limit, None, short)
                data = os.read(fds[1], min(limit + 1, st.st_size + 1))
                assert read_rest(fds[1], st, data, limit, short) == want
            finally:
                for fd in fds:
                    os.close(fd)


@pytest.mark.anyio
@pytest.mark.parametrize("old", [False, True])
async def test_held_walk_proves_each_directory_again_each_batch(tmp_path: Path, old: bool) -> None:
    """A directory proven in one batch and changed before the next (an ignore file created
    in it, edited in place in another, a level swapped for a symlink) is seen changed by the
    next batch's walk: its answers are a fresh runtime's. ``old``: the directories look old
    enough to carry proofs (one ``fstat`` of each stands for its missing ignore files)."""
    root = write_tree(tmp_path / "t", {**FILES, "a/b/c/g.txt": "g\n", "k/l/m/o.txt": "o\n", "a/e/.gitignore": "zz\n"})
    paths = ["a/b/c/f.txt", "a/b/c/g.txt", "a/b/d/g.txt", "a/e/h.txt", "k/l/m/n.txt", "k/l/m/o.txt"]
    rt = Runtime(root, Policy())
    if old:
        rt.index._wall_ns = lambda: time.time_ns() + 60 * 10**9
    for _ in range(2):  # the index's nodes, and their proofs
        assert all(r.verdict is None for r in await rt.read_files(paths))
    (root / "a/b/c/.gitignore").write_text("g.txt\n")  # a new ignore file
    (root / "a/e/.gitignore").write_text("h.txt\n")  # one edited in place
    os.rename(root / "k/l", tmp_path / "out")
    os.symlink(tmp_path / "out", root / "k/l")  # a level swapped for a symlink out of the root
    got = await rt.read_files(paths)
    fresh = await Runtime(root, Policy()).read_files(paths)
    assert got == fresh
    assert [r.verdict is None for r in got] == [True, False, True, False, False, False]
    anchors = rt.index._anchors
    assert anchors is not None and bool(anchors.record) is (old and is_local_tree(str(root)))


def test_facts_of_is_lexical_name_per_spelling() -> None:
    """``read_files._facts_of`` names each spelling as ``lexical_name`` does."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pathgate.runtime.gates import PathFacts, lexical_name
    from pathgate.runtime.tools.read_files import _facts_of

    root = "/r/oot"
    parts = st.sampled_from(["a", ".", "..", "", "b.txt", ".env", "x\x00", "/", "r", "oot", "é"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.lists(parts, max_size=5).map("/".join), max_size=6))
    def check(spellings: list[str]) -> None:
        spellings = [*spellings, root + "/a", "/r/oot", "a/", "./a", "a//b", ".a", "a/.b", "a/b."]
        assert _facts_of(spellings, root) == [PathFacts(s, lexical_name(s, root)) for s in spellings]

    check()


def test_paths_size_counts_separators_as_each_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``check_paths_size`` counts the separators of all paths joined at once: it refuses
    exactly the calls whose per-path counts (``/`` and ``\\``) sum past the bound, or whose
    characters do (bounds made small; paths with and without backslashes)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pathgate.errors import ToolArgumentError
    from pathgate.runtime.tools import _arg_bounds

    monkeypatch.setattr(_arg_bounds, "MAX_PATH_COMPONENTS", 9)
    monkeypatch.setattr(_arg_bounds, "MAX_PATH_CHARS", 40)

    @settings(max_examples=600, deadline=None)
    @given(st.lists(st.text(alphabet="/\\ab", max_size=9), max_size=8))
    def check(paths: list[str]) -> None:
        chars = sum(len(p) for p in paths)
        separators = sum(p.count("/") + p.count("\\") for p in paths)
        expect = chars > 40 or separators > 9
        try:
            _arg_bounds.check_paths_size("read_files", paths)
        except ToolArgumentError:
            assert expect, paths
        else:
            assert not expect, paths

    check()
