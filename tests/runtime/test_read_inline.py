"""A one-file ``read_files`` on the event loop (issue 19, runtime/tools/_inline.py): only
when every step is bounded, with every gate and the descriptor-anchored read; anything
larger, uncached, cold, remote or fault-injected takes the worker-thread hop as before."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate.runtime.fs import _read, is_local_tree
from pathgate.runtime.tools import _inline
from pathgate.runtime.tools._inline import INLINE_MAX, InlineReads
from tests.runtime.gates._tree import SeamFS, count_hops, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {
            "a.txt": "one\n",
            "d/b.txt": "bee\n",
            "big.txt": "x" * (INLINE_MAX + 10),
            ".gitignore": "*.log\n",
            "x.log": "log\n",
            ".env": "KEY=1\n",
            "link": "-> a.txt",
        },
    )


async def _warm(rt: Runtime) -> None:
    await rt.read_files(["a.txt", "d/b.txt"])  # the ignore index's first load, in a worker


@pytest.mark.anyio
async def test_small_cached_file_is_read_on_the_loop_with_every_gate(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = Runtime(tree, Policy())
    assert rt.inline_reads.allowed()  # pytest's tmp_path is on a local filesystem here
    await _warm(rt)
    hops = count_hops(monkeypatch)
    for path, want in (("a.txt", "one\n"), ("d/b.txt", "bee\n"), ("link", "one\n")):
        (res,) = await rt.read_files([path])
        assert res.verdict is None and res.content == want, path
    blocked = {p: (await rt.read_files([p]))[0].verdict for p in (".env", "nope.txt", "d")}
    assert hops == []  # nothing above took a worker thread
    # an ignored file's verified remedy is searched in a worker thread, never on the loop
    blocked["x.log"] = (await rt.read_files(["x.log"]))[0].verdict
    assert len(hops) == 1 and blocked["x.log"] is not None and blocked["x.log"].remedy is not None
    statuses = {p: (v.status, v.gate, v.opaque) for p, v in blocked.items() if v is not None}
    assert statuses == {
        ".env": (Status.BLOCKED, Gate.SECRETS, True),
        "x.log": (Status.BLOCKED, Gate.IGNORE, False),
        "nope.txt": (Status.FILE_DOES_NOT_EXIST, Gate.EXISTENCE, False),
        "d": (Status.NOT_A_FILE, Gate.EXISTENCE, False),
    }


@pytest.mark.anyio
async def test_large_uncached_cold_or_seamed_reads_take_the_hop(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cold = Runtime(tree, Policy())
    hops = count_hops(monkeypatch)
    (res,) = await cold.read_files(["a.txt"])  # cold ignore index: nothing read on the loop
    assert res.content == "one\n" and len(hops) == 1
    await _warm(cold)
    hops.clear()
    (res,) = await cold.read_files(["big.txt"])  # above INLINE_MAX: given up, then one hop
    assert res.content == "x" * (INLINE_MAX + 10) and len(hops) == 1
    seamed = Runtime(tree, Policy(), fs=SeamFS())  # a host's (or a test's) filesystem seam
    assert not seamed.inline_reads.allowed()
    hops.clear()
    await _warm(seamed)
    (res,) = await seamed.read_files(["a.txt"])
    assert res.content == "one\n" and len(hops) == 2

    def not_cached(fd: int, buffers: Any, offset: int, flags: int = 0) -> int:
        raise OSError(errno.EAGAIN, "not in the page cache")

    monkeypatch.setattr(_read.os, "preadv", not_cached)  # RWF_NOWAIT says: would wait
    hops.clear()
    (res,) = await cold.read_files(["d/b.txt"])
    assert res.content == "bee\n" and len(hops) == 1


@pytest.mark.anyio
async def test_giving_up_leaves_no_descriptor_open(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = Runtime(tree, Policy())
    await _warm(rt)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(20):
        (res,) = await rt.read_files(["big.txt"])
        assert res.verdict is None
    assert len(os.listdir("/proc/self/fd")) == before


def test_breaker_turns_inline_reads_off_after_a_slow_read_that_slept(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    sleeps = [0]
    monkeypatch.setattr(_inline, "_sleeps", lambda: sleeps[0])
    guard = InlineReads("/x", True, clock=lambda: now[0])
    mark = guard.start()
    now[0] += 1.0  # slow, but never slept: preempted, not blocked
    guard.took(mark)
    assert guard.allowed() and guard.slow_reads == 0
    mark = guard.start()
    now[0] += guard.slow / 2
    sleeps[0] += 1  # slept, but fast
    guard.took(mark)
    assert guard.allowed()
    mark = guard.start()
    now[0] += guard.slow * 2
    sleeps[0] += 1  # slow and slept: a blocking disk
    guard.took(mark)
    assert not guard.allowed() and guard.slow_reads == 1
    now[0] += guard.backoff
    assert guard.allowed()


def test_only_local_trees_are_read_on_the_loop(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"

    def local(root: str, *mounts: tuple[str, str]) -> bool:
        info.write_text("".join(f"{i} 1 0:{i} / {point} rw - {kind} src rw\n"
                                for i, (point, kind) in enumerate(mounts)))
        return is_local_tree(root, str(info))

    assert local("/srv/p", ("/", "ext4"))
    assert local("/srv/p", ("/", "nfs"), ("/srv", "xfs"))
    assert not local("/srv/p", ("/", "ext4"), ("/srv", "nfs4"))
    assert not local("/srv/p", ("/", "ext4"), ("/srv/p/vendor", "fuse.sshfs"))  # a mount below
    assert local("/srv/p", ("/", "ext4"), ("/srv/p/tmp", "tmpfs"))
    assert not local("/srv/p", ("/", "zz-unknown"))
    assert local("/srv/my p", ("/", "nfs"), ("/srv/my\\040p", "ext4"))  # escaped mount point
    assert not local("/", ("/", "ext4"))
    assert not is_local_tree("/srv/p", str(tmp_path / "missing"))


@pytest.mark.skipif(not getattr(os, "RWF_NOWAIT", 0), reason="no RWF_NOWAIT")
@pytest.mark.parametrize("size_hint", [0, 5, 1000, 5000, 70_000])
@pytest.mark.parametrize("actual", [0, 1, 1000, 4097, 65_536, 65_537, 100_000])
def test_cached_read_gives_the_same_bytes_whatever_the_size_hint(
        tmp_path: Path, size_hint: int, actual: int) -> None:
    """The inline read sizes its buffer from the ``fstat`` size; a file that grew or shrank
    since still gives its bytes, at most ``cap + 1`` of them."""
    data = bytes(range(256)) * (actual // 256 + 1)
    data = data[:actual]
    p = tmp_path / "f"
    p.write_bytes(data)
    p.read_bytes()  # in the page cache
    cap = INLINE_MAX
    fd = os.open(p, os.O_RDONLY)
    try:
        got = _read._read_cached(fd, cap, size_hint)
    finally:
        os.close(fd)
    assert got == data[: cap + 1]


@pytest.mark.anyio
@pytest.mark.parametrize("name", [".gitignore", ".pathgateignore"])
@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize("old", [False, True])
async def test_ignore_files_of_held_directories_are_validated_every_call(
        tmp_path: Path, name: str, batch: bool, old: bool) -> None:
    """The ignore files of the directories a read opened are ``lstat``-ed relative to those
    descriptors: created, edited (same size, old mtime put back), made unreadable-as-rules
    (a directory in its place) and removed between calls, each is seen by the next call.
    ``old``: the directories look old enough for their own ``fstat`` to stand for their
    missing ignore files (``_probe.DirAnchors``); else they are racily young."""
    root = write_tree(tmp_path / "root", {"d/e/f.txt": "eff\n", "d/e/g.txt": "gee\n", "top.txt": "t\n"})
    rt = Runtime(root, Policy())
    if old:
        rt.index._wall_ns = lambda: time.time_ns() + 60 * 10**9
    paths = ["d/e/f.txt", "d/e/g.txt", "top.txt"] if batch else ["d/e/f.txt"]

    async def verdict() -> Any:
        return (await rt.read_files(paths))[0].verdict

    assert await verdict() is None
    assert await verdict() is None  # warm: the one-file call runs on the loop
    rules = root / "d" / name
    rules.write_text("e/f.txt\n")
    v = await verdict()
    assert v is not None and v.gate is Gate.IGNORE
    st = rules.stat()
    rules.write_text("e/x.txt\n")  # the same size
    os.utime(rules, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert await verdict() is None
    rules.unlink()
    rules.mkdir()  # not a file: git reads no rules from it
    assert await verdict() is None
    rules.rmdir()
    (root / name).write_text("d/e/\n")  # the root's, excluding the directory
    v = await verdict()
    assert v is not None and v.gate is Gate.IGNORE
    (root / name).unlink()
    assert await verdict() is None
    anchors = rt.index._anchors
    assert anchors is not None and bool(anchors.record) is (old and is_local_tree(str(root)))


@pytest.mark.anyio
@pytest.mark.parametrize("young", [True, False])
async def test_racily_young_directory_does_not_stand_for_its_ignore_files(
        tmp_path: Path, young: bool) -> None:
    """A directory whose ``fstat`` is frozen (an ignore file created in the same clock tick
    as its last change leaves its timestamps as they were). Young: it is not relied on and the
    new ``.gitignore`` is seen. Old enough: its record is trusted — the case the racy guard is
    there for (a real change after that moves the directory's ctime)."""
    root = write_tree(tmp_path / "root", {"d/f.txt": "eff\n"})
    if not is_local_tree(str(root)):
        pytest.skip("not a local filesystem")
    rt = Runtime(root, Policy())
    if not young:
        rt.index._wall_ns = lambda: time.time_ns() + 60 * 10**9
    assert (await rt.read_files(["d/f.txt"]))[0].verdict is None
    anchors = rt.index._anchors
    assert anchors is not None
    frozen: dict[int, os.stat_result] = {}
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        st = real(fd)
        key = st.st_ino
        return frozen.setdefault(key, st)

    anchors.fstat = fstat
    assert (await rt.read_files(["d/f.txt"]))[0].verdict is None
    assert (await rt.read_files(["d/f.txt"]))[0].verdict is None
    (root / "d" / ".gitignore").write_text("f.txt\n")
    v = (await rt.read_files(["d/f.txt"]))[0].verdict
    assert (v is not None and v.gate is Gate.IGNORE) is young
