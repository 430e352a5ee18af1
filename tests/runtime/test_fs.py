from __future__ import annotations

import errno
import os
from pathlib import Path

import aiofiles.os
import anyio
import pytest

from pathgate.runtime.fs import (
    PATH_MAX,
    AiofilesFS,
    Backends,
    IoLimiter,
    OsFS,
    ReadRequest,
    Resolved,
    ThreadFS,
    drive_async,
    drive_sync,
    open_read,
    resolve_flow,
    run_chunked,
)
from tests.runtime.gates._tree import SeamFS, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("outside")
    return write_tree(
        tmp_path / "root",
        {
            "a": "hi\n",
            "d/sub/f": "f\n",
            "lfile": "-> ../out/x",
            "ldir": "-> ../out",
            "chain": "-> lfile",
            "dang": "-> nowhere",
            "dango": "-> /nonexistent-pathgate/zz",
            "loop1": "-> loop2",
            "loop2": "-> loop1",
            "self": "-> self",
            "innocent": "-> .env",
            ".env": "SECRET=1\n",
            "lsub": "-> d/sub",
            "abs_in": "-> " + str(tmp_path / "root" / "a"),
            "up": "-> ..",
        },
    )


def resolve(root: Path, request: str) -> Resolved:
    return drive_sync(resolve_flow(os.path.realpath(root), request), OsFS())


CASES: list[tuple[str, str | None, str | None, bool | None]] = [
    # request, relpath, outside, exists
    ("a", "a", None, True),
    ("./a", "a", None, True),
    ("d/../a", "a", None, True),
    ("d//sub/./f", "d/sub/f", None, True),
    ("d/", "d", None, True),
    (".", "", None, True),
    ("x/../a", "a", None, False),  # a missing directory does not vanish before ..
    ("a/..", "", None, False),  # a file is not a directory
    ("../x", None, "escape", None),
    ("..", None, "escape", None),
    ("a/../../x", None, "escape", False),
    ("d/../../root/a", None, "escape", None),  # leaving the root even to come back
    ("/etc/passwd", None, "absolute", True),
    ("lfile", None, "symlink", None),
    ("ldir/x", None, "symlink", None),
    ("chain", None, "symlink", None),
    ("dang", "nowhere", None, False),
    ("dango", None, "symlink", False),
    ("loop1", None, "loop", None),
    ("self", None, "loop", None),
    ("innocent", ".env", None, True),
    ("lsub/../a", "d/a", None, False),  # .. after a symlink is taken on the real path
    ("lsub/..", "d", None, True),
    ("lsub/f", "d/sub/f", None, True),
    ("abs_in", "a", None, True),
    ("up", None, "symlink", None),
    ("a/b", "a/b", None, False),
    ("", None, "empty", None),
    ("a\x00", None, "nul", None),
    ("b" * 300, "b" * 300, None, False),
    ("..\\..\\x", "..\\..\\x", None, False),  # a plain name on POSIX
    (".env:$DATA", ".env:$DATA", None, False),
]


@pytest.mark.parametrize(("request_", "relpath", "outside", "exists"), CASES)
def test_resolve(
    tree: Path, request_: str, relpath: str | None, outside: str | None, exists: bool | None
) -> None:
    r = resolve(tree, request_)
    assert (r.relpath, r.outside, r.exists) == (relpath, outside, exists)


def test_resolve_absolute_inside(tree: Path) -> None:
    r = resolve(tree, str(tree / "d" / "sub" / "f"))
    assert r.relpath == "d/sub/f" and r.exists
    assert r.identity == (os.lstat(tree / "d/sub/f").st_dev, os.lstat(tree / "d/sub/f").st_ino)


def test_resolve_too_long_without_io(tree: Path) -> None:
    class NoIO(OsFS):
        def lstat(self, path: str) -> os.stat_result:
            raise AssertionError("no I/O for an over-long path")

    r = drive_sync(resolve_flow(os.path.realpath(tree), "a/" * (PATH_MAX // 2 + 1)), NoIO())
    assert r.error == errno.ENAMETOOLONG and r.exists is False


def test_resolve_unencodable(tree: Path) -> None:
    r = resolve(tree, "bad\ud800name")
    assert r.error == errno.EILSEQ and r.exists is False and r.outside is None


def test_resolve_lstat_error_is_no_claim(tree: Path) -> None:
    class Denied(OsFS):
        def lstat(self, path: str) -> os.stat_result:
            if path.endswith("/d"):
                raise PermissionError(errno.EACCES, "denied", path)
            return super().lstat(path)

    r = drive_sync(resolve_flow(os.path.realpath(tree), "d/sub/f"), Denied())
    assert r.error == errno.EACCES and r.exists is None


def test_resolve_async_driver_agrees(tree: Path) -> None:
    async def main() -> None:
        root = os.path.realpath(tree)
        for request, *_ in CASES:
            lstat = aiofiles.os.wrap(os.lstat)
            a = await drive_async(resolve_flow(root, request), lstat, aiofiles.os.readlink)
            b = resolve(tree, request)
            assert (a.relpath, a.outside, a.error, a.identity) == (b.relpath, b.outside, b.error, b.identity)

    anyio.run(main)


def req(path: Path, limit: int = 100, identity: tuple[int, int] | None = None) -> ReadRequest:
    if identity is None and path.exists():
        st = os.lstat(path)
        identity = (st.st_dev, st.st_ino)
    return ReadRequest(str(path), limit, identity)


def test_open_read_text(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("héllo\n")
    o = open_read(OsFS(), req(tmp_path / "t"))
    assert o.text == "héllo\n" and not o.binary and o.error is None and o.size == 7


def test_open_read_too_large_reads_nothing(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 101)

    class NoRead(OsFS):
        def read_fd(self, fd: int, n: int) -> bytes:
            raise AssertionError("must not read past the fstat size check")

    o = open_read(NoRead(), req(tmp_path / "big"))
    assert o.data is None and o.size == 101


def test_open_read_grown_after_fstat_reads_at_most_limit_plus_one(tmp_path: Path) -> None:
    path = tmp_path / "g"
    path.write_bytes(b"x" * 10)
    seam = SeamFS()
    seam.after_fstat[str(path)] = lambda: path.write_bytes(b"y" * 5000)
    o = open_read(seam, req(path, limit=100))
    assert o.data is not None and len(o.data) == 101
    assert o.text is None and o.size is not None and o.size > 100


@pytest.mark.parametrize(("data", "binary"), [(b"ab\x00c", True), (b"\xff\xfe\xfa", True), (b"plain", False)])
def test_open_read_binary(tmp_path: Path, data: bytes, binary: bool) -> None:
    (tmp_path / "b").write_bytes(data)
    assert open_read(OsFS(), req(tmp_path / "b")).binary is binary


def test_nul_after_sniff_window_with_valid_utf8_is_text(tmp_path: Path) -> None:
    (tmp_path / "b").write_bytes(b"a" * 8192 + b"\x00")
    o = open_read(OsFS(), req(tmp_path / "b", limit=10_000))
    assert not o.binary and o.text is not None


def test_open_read_directory_and_fifo_do_not_hang(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name in ("dir", "fifo"):
        o = open_read(OsFS(), req(tmp_path / name))
        assert o.st is not None and o.data is None and o.error is None


def test_open_read_refuses_a_symlink_at_the_last_component(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("x")
    (tmp_path / "l").symlink_to(tmp_path / "t")
    assert open_read(OsFS(), req(tmp_path / "l", identity=(0, 0))).error == errno.ELOOP


def test_open_read_identity_mismatch_reads_nothing(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("not approved")
    o = open_read(OsFS(), req(tmp_path / "t", identity=(0, 0)))
    assert o.changed and o.data is None and o.text is None


def test_open_read_missing(tmp_path: Path) -> None:
    assert open_read(OsFS(), req(tmp_path / "nope", identity=(0, 0))).error == errno.ENOENT


def test_open_read_eio_is_reported_and_fd_closed(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("x")
    closed: list[int] = []

    class Broken(OsFS):
        def read_fd(self, fd: int, n: int) -> bytes:
            raise OSError(errno.EIO, "I/O error")

        def close(self, fd: int) -> None:
            closed.append(fd)
            super().close(fd)

    assert open_read(Broken(), req(tmp_path / "t")).error == errno.EIO
    assert len(closed) == 1


@pytest.mark.anyio
async def test_run_chunked_keeps_order() -> None:
    items = list(range(1000))
    limiter = anyio.CapacityLimiter(4)
    hops: list[int] = []

    def chunk(xs: list[int]) -> list[int]:
        hops.append(len(xs))
        return [x * 2 for x in xs]

    assert await run_chunked(chunk, items, limiter, min_chunk=10) == [x * 2 for x in items]
    assert len(hops) == 4  # 1000 items over 4 tokens: one hop per chunk


@pytest.mark.anyio
async def test_backend_pick(anyio_backend: str) -> None:
    backends = Backends(OsFS(), IoLimiter(4))
    assert isinstance(backends.pick("auto"), ThreadFS)
    assert isinstance(backends.pick("thread"), ThreadFS)
    aio = backends.pick("aiofiles")
    if anyio_backend == "asyncio":
        assert isinstance(aio, AiofilesFS) and backends.pick("aiofiles") is aio
    else:
        assert isinstance(aio, ThreadFS)  # aiofiles cannot run under trio


@pytest.mark.anyio
@pytest.mark.parametrize("choice", ["thread", "aiofiles"])
async def test_backends_agree(tree: Path, choice: str) -> None:
    backend = Backends(OsFS(), IoLimiter(4)).pick(choice)
    root = os.path.realpath(tree)
    requests = [c[0] for c in CASES]
    resolved = await backend.resolve(root, requests)
    assert [(r.relpath, r.outside, r.exists) for r in resolved] == [c[1:] for c in CASES]
    reads = [req(Path(r.real)) for r in resolved if r.st is not None and r.real]
    opened = await backend.open_read(reads)
    assert [o.text for o in opened] == [open_read(OsFS(), q).text for q in reads]


@pytest.mark.anyio
async def test_limiter_is_per_event_loop_library(anyio_backend: str) -> None:
    limiter = IoLimiter(3)
    got = limiter.get()
    assert got is limiter.get() and got.total_tokens == 3


def test_resolve_plain_agrees_with_resolve_flow_or_defers(tmp_path: Path) -> None:
    """The descriptor route of plain spellings finds what the lstat walk finds, and defers
    (``None``) on every symlink, missing or odd component."""
    from pathgate.runtime.fs import DirFds, OsFS, drive_sync, resolve_flow, resolve_plain

    root = tmp_path / "r"
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "e" / "f.txt").write_text("f")
    (root / "a.txt").write_text("a")
    (root / "d" / "ln").symlink_to("e")
    (root / "d" / "lf").symlink_to("e/f.txt")
    (root / "d" / "out").symlink_to(tmp_path)
    (root / "d" / "e" / "sock").mkdir()
    real = os.path.realpath(root)
    ops = OsFS()
    ESCAPED, LONE = "d/" + chr(0xDCFF), "d/" + chr(0xD800)  # an undecodable byte; a lone surrogate
    spellings = ["a.txt", "d", "d/e", "d/e/f.txt", "d/ln", "d/ln/f.txt", "d/lf", "d/out", "d/out/r",
                 "nope", "a.txt/x", "d/nope/x", "d/e/sock", ESCAPED, LONE]
    with DirFds(ops, real) as dirs:
        deferred = set()
        for s in spellings:
            fast = resolve_plain(dirs, s)
            if fast is None:
                deferred.add(s)
                continue
            slow = drive_sync(resolve_flow(real, s), ops)
            assert (fast.real, fast.relpath, fast.outside, fast.error, fast.identity, fast.is_dir) == (
                slow.real, slow.relpath, slow.outside, slow.error, slow.identity, slow.is_dir), s
    assert deferred == {"d/ln", "d/ln/f.txt", "d/lf", "d/out", "d/out/r", "nope", "a.txt/x", "d/nope/x",
                        ESCAPED, LONE}
