"""The filesystem seam: every stat, scandir, open and read pathgate does goes through here.

Two layers:

* :class:`SyncFS` — blocking calls used by the ignore engine and the pruning walker, which
  run inside worker threads (``anyio.to_thread.run_sync``). :class:`OsFS` is the real one.
  Tests inject faults by subclassing it (``EACCES`` on one ignore file, a swap between
  check and read, ...), which also lets root exercise fault paths that chmod cannot.
* :class:`FileOps` — the blocking calls ``read_files`` makes (``lstat``/``readlink`` to
  resolve a path, ``open_fd``/``fstat``/``read_fd``/``close`` to read through one
  descriptor). :class:`OsFS` implements both protocols, so one fault-injecting subclass
  serves the engine and the reads.
* :class:`AsyncFS` — the async backends ``read_files`` uses, built on a :class:`FileOps`:
  :class:`ThreadFS` (one ``anyio.to_thread.run_sync`` hop per chunk of paths, under a
  pathgate-owned :class:`anyio.CapacityLimiter`; runs under asyncio and trio) and
  :class:`AiofilesFS` (aiofiles, one executor hop per operation; asyncio only).
  :meth:`Backends.pick` chooses one per call (aiofiles is never used under trio).

Path resolution is a plain generator (:func:`resolve_flow`) that yields the ``lstat`` /
``readlink`` operations it needs and receives their results, so the same logic is driven in
a worker thread (:func:`drive_sync`) and by aiofiles (:func:`drive_async`), like httpx's
auth flows. It resolves symlinks component by component the way the kernel does (``..``
after a symlink is taken on the real path), counts link hops to catch loops, and checks
after every requested component that the real path stays inside the root.

Reading (:func:`open_read`) is the check that decides: walk from the root to the file one
component at a time (``openat`` with ``O_NOFOLLOW``, directories with ``O_DIRECTORY``), so a
directory swapped for a symlink after resolution fails instead of being followed out of the
root; open the file with ``O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC``, ``fstat`` the descriptor,
compare ``(st_dev, st_ino)`` with what resolution approved, and read at most
``max_bytes + 1`` bytes — a file swapped, grown or deleted between check and read never
yields unapproved content.
"""

from __future__ import annotations

import asyncio
import errno
import math
import os
import stat as stat_mod
from collections.abc import Awaitable, Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

import anyio
import anyio.to_thread

__all__ = [
    "AiofilesFS",
    "AsyncFS",
    "Backends",
    "DirEntryLike",
    "DirFds",
    "FileOps",
    "IoLimiter",
    "Opened",
    "OsFS",
    "ReadRequest",
    "Resolved",
    "SyncFS",
    "ThreadFS",
    "drive_async",
    "drive_sync",
    "open_read",
    "resolve_flow",
    "run_chunked",
    "running_asyncio",
]


class DirEntryLike(Protocol):
    """The part of :class:`os.DirEntry` the walker uses."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_symlink(self) -> bool: ...


class SyncFS(Protocol):
    """Blocking filesystem calls. Paths are absolute ``str`` (surrogate-escaped bytes)."""

    def lstat(self, path: str) -> os.stat_result: ...
    def stat(self, path: str) -> os.stat_result: ...
    def read_bytes(self, path: str) -> bytes:
        """Read a whole small file (an ignore file, a git config). Must not follow a
        symlink at the last component (raise ``OSError(ELOOP)`` instead)."""
        ...
    def scandir(self, path: str) -> Iterator[DirEntryLike]: ...


@runtime_checkable
class FileOps(Protocol):
    """Blocking calls of ``read_files`` (run in worker threads, or wrapped by aiofiles)."""

    def lstat(self, path: str) -> os.stat_result: ...
    def readlink(self, path: str) -> str: ...
    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        """Open a file for reading with ``O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`` (relative to
        ``dir_fd`` when given); return the fd."""
        ...
    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        """Open a directory with ``O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`` (relative to
        ``dir_fd`` when given): a symlink in its place fails."""
        ...
    def fstat(self, fd: int) -> os.stat_result: ...
    def read_fd(self, fd: int, n: int) -> bytes:
        """One ``read(2)`` of at most ``n`` bytes (may be short; ``b""`` at end of file)."""
        ...
    def close(self, fd: int) -> None: ...


OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OsFS:
    """The real filesystem (both :class:`SyncFS` and :class:`FileOps`)."""

    def lstat(self, path: str) -> os.stat_result:
        return os.lstat(path)

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def read_bytes(self, path: str) -> bytes:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            chunks: list[bytes] = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def scandir(self, path: str) -> Iterator[DirEntryLike]:
        with os.scandir(path) as it:
            yield from it

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        return os.open(path, OPEN_FLAGS, dir_fd=dir_fd)

    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        return os.open(path, DIR_FLAGS, dir_fd=dir_fd)

    def fstat(self, fd: int) -> os.stat_result:
        return os.fstat(fd)

    def read_fd(self, fd: int, n: int) -> bytes:
        return os.read(fd, n)

    def close(self, fd: int) -> None:
        os.close(fd)


# --- path resolution ----------------------------------------------------------------------

#: Symlink hops allowed while resolving one path (Linux's limit); more is a loop.
MAX_SYMLINKS = 40
#: Longest path (bytes) the kernel accepts; longer spellings are ENAMETOOLONG without I/O.
PATH_MAX = 4096

#: Errnos that mean "no such file" (as opposed to "could not look").
MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.EILSEQ})


@dataclass(frozen=True, slots=True)
class Resolved:
    """Where one requested spelling leads, with symlinks resolved.

    * ``real``: the absolute real path (``None`` for an empty, NUL or unencodable spelling).
    * ``relpath``: ``real`` relative to the root (``""`` is the root), ``None`` when outside.
    * ``outside``: why the path gate must refuse it, or ``None``: ``"empty"``, ``"nul"``,
      ``"escape"`` (``..`` above the root), ``"absolute"``, ``"symlink"`` (a link leads
      out), ``"loop"`` (too many link hops: cannot be proven inside).
    * ``st``: ``lstat`` of ``real`` (never a symlink) when it exists, else ``None``.
    * ``error``: the errno that stopped resolution (``ENOENT``, ``ENOTDIR``,
      ``ENAMETOOLONG``, ``EILSEQ``, ``EACCES`` …), ``None`` when ``st`` is set.
    """

    request: str
    real: str | None
    relpath: str | None
    outside: str | None = None
    st: os.stat_result | None = None
    error: int | None = None

    @property
    def exists(self) -> bool | None:
        """``True`` when an lstat confirmed it, ``False`` when it cannot exist, else ``None``."""
        if self.st is not None:
            return True
        if self.error in MISSING_ERRNOS:
            return False
        return None

    @property
    def is_dir(self) -> bool:
        return self.st is not None and stat_mod.S_ISDIR(self.st.st_mode)

    @property
    def identity(self) -> tuple[int, int] | None:
        """``(st_dev, st_ino)`` the read must find on its descriptor."""
        return None if self.st is None else (self.st.st_dev, self.st.st_ino)


# A flow yields ("lstat" | "readlink", absolute path) and is sent the result or the OSError.
Op = tuple[str, str]
Flow = Generator[Op, "os.stat_result | str | OSError", Resolved]
_Step = Generator[Op, "os.stat_result | str | OSError", tuple[str, "os.stat_result | None", int | None]]


def _within(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def _rel(path: str, root: str) -> str:
    if path == root:
        return ""
    return path[1:] if root == "/" else path[len(root) + 1 :]


def _parent(path: str) -> str:
    return os.path.dirname(path) or "/"


def _lexical(cur: str, parts: Sequence[str]) -> str:
    for part in parts:
        if part in ("", "."):
            continue
        cur = _parent(cur) if part == ".." else os.path.join(cur, part)
    return cur


def _component(cur: str, name: str, hops: list[int]) -> _Step:
    """Resolve ``cur/name`` (``cur`` real): return (real path, lstat, errno)."""
    path = os.path.join(cur, name)
    res = yield ("lstat", path)
    if isinstance(res, OSError):
        return path, None, res.errno or errno.EIO
    assert isinstance(res, os.stat_result)
    if not stat_mod.S_ISLNK(res.st_mode):
        return path, res, None
    hops[0] += 1
    if hops[0] > MAX_SYMLINKS:
        return path, None, errno.ELOOP
    target = yield ("readlink", path)
    if isinstance(target, OSError):
        return path, None, target.errno or errno.EIO
    assert isinstance(target, str)
    new = "/" if target.startswith("/") else cur
    st: os.stat_result | None = None
    parts = target.split("/")
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        if st is not None and not stat_mod.S_ISDIR(st.st_mode):
            return _lexical(new, parts[i:]), None, errno.ENOTDIR
        if part == "..":
            new, st = _parent(new), None
            continue
        new, st, err = yield from _component(new, part, hops)
        if err is not None:
            return _lexical(new, parts[i + 1 :]), None, err
    if st is None:
        res = yield ("lstat", new)
        if isinstance(res, OSError):
            return new, None, res.errno or errno.EIO
        assert isinstance(res, os.stat_result)
        st = res
    return new, st, None


def resolve_flow(root: str, request: str, *, allow_outside: bool = False) -> Flow:
    """Resolve ``request`` (relative to the real ``root``, or absolute) to a :class:`Resolved`.

    Relative spellings must stay inside the root after every component (``../main/a`` is an
    escape even though it comes back); absolute ones are judged by their final real path
    (an alias of the root, e.g. through a symlinked parent, is fine). Once a component is
    missing, the rest is applied lexically and the result does not exist — ``missing/../a``
    is not ``a``, as in the kernel. With ``allow_outside`` the walk goes on after leaving the
    root (``outside`` still says why), so the real path and its ``lstat`` are known.
    """
    if request == "":
        return Resolved(request, None, None, outside="empty")
    if "\x00" in request:
        return Resolved(request, None, None, outside="nul")
    try:
        size = len(os.fsencode(request))
    except UnicodeEncodeError:
        return Resolved(request, None, None, error=errno.EILSEQ)
    relative = True
    body = request
    if request.startswith("/"):
        if _within(request, root):
            body = _rel(request, root)
        else:
            relative = False
    start = root if relative else "/"
    if size > PATH_MAX:
        return Resolved(request, None, None, error=errno.ENAMETOOLONG)

    cur = start
    st: os.stat_result | None = None
    error: int | None = None
    outside: str | None = None
    hops = [0]
    for part in body.split("/"):
        if part in ("", "."):
            continue
        was_link = False
        if error is not None:
            cur = _parent(cur) if part == ".." else os.path.join(cur, part)
        elif st is not None and not stat_mod.S_ISDIR(st.st_mode):
            cur, st, error = _lexical(cur, [part]), None, errno.ENOTDIR
        elif part == "..":
            cur, st = _parent(cur), None
        else:
            before = hops[0]
            cur, st, error = yield from _component(cur, part, hops)
            was_link = hops[0] != before
            if error == errno.ELOOP:
                return Resolved(request, cur, None, outside="loop", error=error)
        if relative and outside is None and not _within(cur, root):
            outside = "symlink" if was_link else "escape"
            if not allow_outside:
                return Resolved(request, cur, None, outside=outside, error=error)
    if error is None and st is None:
        res = yield ("lstat", cur)
        if isinstance(res, OSError):
            error = res.errno or errno.EIO
        else:
            assert isinstance(res, os.stat_result)
            st = res
    if not _within(cur, root):
        return Resolved(request, cur, None, outside=outside or "absolute", st=st, error=error)
    return Resolved(request, cur, _rel(cur, root), outside=outside, st=st, error=error)


def drive_sync(flow: Flow, ops: FileOps) -> Resolved:
    """Run a resolution flow with blocking calls."""
    try:
        op = next(flow)
        while True:
            kind, path = op
            result: os.stat_result | str | OSError
            try:
                result = ops.lstat(path) if kind == "lstat" else ops.readlink(path)
            except OSError as exc:
                result = exc
            op = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


async def drive_async(
    flow: Flow,
    lstat: Callable[[str], Awaitable[os.stat_result]],
    readlink: Callable[[str], Awaitable[str]],
) -> Resolved:
    """Run a resolution flow with async calls."""
    try:
        op = next(flow)
        while True:
            kind, path = op
            result: os.stat_result | str | OSError
            try:
                result = await (lstat(path) if kind == "lstat" else readlink(path))
            except OSError as exc:
                result = exc
            op = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


# --- reading through one descriptor ---------------------------------------------------------

#: Bytes inspected for a NUL to call content binary.
BINARY_SNIFF = 8192
_READ_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class ReadRequest:
    """Open ``path`` (a real path the gates approved), expecting ``identity``; read at most
    ``max_bytes + 1`` bytes, and nothing when ``fstat`` shows more than ``max_bytes``.

    With ``root`` (``path`` inside it), the open walks from ``root`` component by component
    without following any symlink."""

    path: str
    max_bytes: int
    identity: tuple[int, int] | None
    root: str | None = None


class DirFds:
    """Directory descriptors opened from the root without following symlinks, shared by the
    reads of one chunk (one thread) and closed with it."""

    def __init__(self, ops: FileOps, root: str) -> None:
        self.ops = ops
        self.root = root
        self._fds: dict[str, int] = {}

    #: Directories deeper than this are opened on the way down and closed at once (only the
    #: target is kept), so a path thousands of levels deep costs two descriptors, not one per
    #: level.
    CACHE_DEPTH = 32

    def get(self, reldir: str) -> int:
        """The descriptor of ``reldir``, opened level by level from the deepest cached
        ancestor (iteratively: any depth)."""
        fd = self._fds.get(reldir)
        if fd is not None:
            return fd
        parts = reldir.split("/") if reldir else []
        k = len(parts)
        while k > 0 and "/".join(parts[:k]) not in self._fds:
            k -= 1
        cur = self._fds.get("/".join(parts[:k]))
        if cur is None:
            cur = self._fds[""] = self.ops.open_dir(self.root)
        transient: int | None = None
        try:
            for i in range(k, len(parts)):
                nxt = self.ops.open_dir(parts[i], dir_fd=cur)
                if transient is not None:
                    self.ops.close(transient)
                    transient = None
                if i < self.CACHE_DEPTH or i == len(parts) - 1:
                    self._fds["/".join(parts[: i + 1])] = nxt
                else:
                    transient = nxt
                cur = nxt
        except BaseException:
            if transient is not None:
                self.ops.close(transient)
            raise
        return cur

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            self.ops.close(fd)

    def __enter__(self) -> DirFds:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_at(ops: FileOps, req: ReadRequest, dirs: DirFds | None = None) -> int:
    """Open the file of ``req``: by path, or walked from ``req.root`` (through ``dirs``)."""
    root = req.root
    if root is None or not _within(req.path, root) or req.path == root:
        return ops.open_fd(req.path)
    parent, _, name = _rel(req.path, root).rpartition("/")
    if dirs is not None and dirs.root == root:
        return ops.open_fd(name, dir_fd=dirs.get(parent))
    with DirFds(ops, root) as own:
        return ops.open_fd(name, dir_fd=own.get(parent))


@dataclass(frozen=True, slots=True)
class Opened:
    """What the descriptor said. Facts only; the existence/size/read gates decide.

    * ``error``: errno of ``open``/``fstat``/``read`` (``ELOOP``: the last component became a
      symlink after the check).
    * ``st``: ``fstat`` of the descriptor.
    * ``changed``: the descriptor is not the file resolution approved (nothing was read).
    * ``data``: the bytes read (at most ``max_bytes + 1``), ``None`` when not read.
    * ``text``: ``data`` decoded as UTF-8 when it is text; ``binary``: NUL in the first
      8 KiB or invalid UTF-8.
    """

    error: int | None = None
    st: os.stat_result | None = None
    changed: bool = False
    data: bytes | None = None
    text: str | None = None
    binary: bool = False

    @property
    def size(self) -> int | None:
        if self.data is not None:
            return max(len(self.data), self.st.st_size if self.st else 0)
        return None if self.st is None else self.st.st_size


def decode(data: bytes, max_bytes: int) -> Opened:
    """Classify bytes read within the limit (helper of :func:`open_read` and backends)."""
    if len(data) > max_bytes:
        return Opened(data=data)
    if b"\x00" in data[:BINARY_SNIFF]:
        return Opened(data=data, binary=True)
    try:
        return Opened(data=data, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return Opened(data=data, binary=True)


def _checked(st: os.stat_result, req: ReadRequest) -> Opened | None:
    """The decision-free part of the descriptor check: ``None`` means go on and read."""
    if not stat_mod.S_ISREG(st.st_mode):
        return Opened(st=st)
    if req.identity is not None and (st.st_dev, st.st_ino) != req.identity:
        return Opened(st=st, changed=True)
    if st.st_size > req.max_bytes:
        return Opened(st=st)
    return None


def _with_st(opened: Opened, st: os.stat_result) -> Opened:
    return Opened(st=st, data=opened.data, text=opened.text, binary=opened.binary)


def open_read(ops: FileOps, req: ReadRequest, dirs: DirFds | None = None) -> Opened:
    """Open, fstat, confirm and read one file with blocking calls."""
    try:
        fd = open_at(ops, req, dirs)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    try:
        st = ops.fstat(fd)
        early = _checked(st, req)
        if early is not None:
            return early
        remaining = req.max_bytes + 1
        chunks: list[bytes] = []
        while remaining > 0:
            chunk = ops.read_fd(fd, min(remaining, _READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return _with_st(decode(b"".join(chunks), req.max_bytes), st)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    finally:
        ops.close(fd)


# --- concurrency ---------------------------------------------------------------------------

T = TypeVar("T")
R = TypeVar("R")


def running_asyncio() -> bool:
    """True inside an asyncio event loop (aiofiles can run), False under trio."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class IoLimiter:
    """A pathgate-owned :class:`anyio.CapacityLimiter`, one per event-loop library."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self._limiters: dict[bool, anyio.CapacityLimiter] = {}

    def get(self) -> anyio.CapacityLimiter:
        key = running_asyncio()
        limiter = self._limiters.get(key)
        if limiter is None:
            limiter = self._limiters[key] = anyio.CapacityLimiter(self.tokens)
        return limiter


#: Smallest chunk of paths handed to one worker-thread hop.
MIN_CHUNK = 128


async def run_chunked(
    fn: Callable[[Sequence[T]], list[R]],
    items: Sequence[T],
    limiter: anyio.CapacityLimiter,
    *,
    min_chunk: int = MIN_CHUNK,
) -> list[R]:
    """Run ``fn`` over chunks of ``items`` in worker threads, concurrently under ``limiter``;
    return the concatenated results in order. One thread hop per chunk."""
    if not items:
        return []
    size = max(min_chunk, math.ceil(len(items) / max(1, int(limiter.total_tokens))))
    if len(items) <= size:
        return await anyio.to_thread.run_sync(fn, items, limiter=limiter)
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    out: list[list[R]] = [[] for _ in chunks]

    async def one(i: int) -> None:
        out[i] = await anyio.to_thread.run_sync(fn, chunks[i], limiter=limiter)

    async with anyio.create_task_group() as tg:
        for i in range(len(chunks)):
            tg.start_soon(one, i)
    return [r for part in out for r in part]


# --- async backends ------------------------------------------------------------------------


class AsyncFS(Protocol):
    """The async filesystem of ``read_files``: batched, so a backend can amortise hops."""

    @property
    def name(self) -> str: ...
    async def resolve(
        self, root: str, requests: Sequence[str], *, allow_outside: bool = False
    ) -> list[Resolved]: ...
    async def open_read(self, requests: Sequence[ReadRequest]) -> list[Opened]: ...


class ThreadFS:
    """Blocking :class:`FileOps` in worker threads: one ``anyio.to_thread`` hop per chunk.

    Runs under asyncio and trio. Cancellation waits for the running hops to finish, so no
    descriptor is left open."""

    name = "thread"

    def __init__(self, ops: FileOps, limiter: IoLimiter, *, min_chunk: int = MIN_CHUNK) -> None:
        self.ops = ops
        self.limiter = limiter
        self.min_chunk = min_chunk

    async def resolve(
        self, root: str, requests: Sequence[str], *, allow_outside: bool = False
    ) -> list[Resolved]:
        ops = self.ops

        def chunk(reqs: Sequence[str]) -> list[Resolved]:
            return [drive_sync(resolve_flow(root, r, allow_outside=allow_outside), ops) for r in reqs]

        return await run_chunked(chunk, requests, self.limiter.get(), min_chunk=self.min_chunk)

    async def open_read(self, requests: Sequence[ReadRequest]) -> list[Opened]:
        ops = self.ops

        def chunk(reqs: Sequence[ReadRequest]) -> list[Opened]:
            root = next((r.root for r in reqs if r.root is not None), None)
            if root is None:
                return [open_read(ops, r) for r in reqs]
            with DirFds(ops, root) as dirs:
                return [open_read(ops, r, dirs) for r in reqs]

        return await run_chunked(chunk, requests, self.limiter.get(), min_chunk=self.min_chunk)


class AiofilesFS:
    """aiofiles: every ``lstat``/``readlink``/``open``/``fstat``/``read`` is its own executor
    hop, all paths at once through ``asyncio.gather``, each path under the limiter.
    asyncio only (aiofiles needs an asyncio loop)."""

    name = "aiofiles"

    def __init__(self, ops: FileOps, limiter: IoLimiter) -> None:
        import aiofiles.os

        self.ops = ops
        self.limiter = limiter
        self._lstat = aiofiles.os.wrap(ops.lstat)
        self._readlink = aiofiles.os.wrap(ops.readlink)
        self._fstat = aiofiles.os.wrap(ops.fstat)

    async def resolve(
        self, root: str, requests: Sequence[str], *, allow_outside: bool = False
    ) -> list[Resolved]:
        limiter = self.limiter.get()

        async def one(request: str) -> Resolved:
            flow = resolve_flow(root, request, allow_outside=allow_outside)
            async with limiter:
                return await drive_async(flow, self._lstat, self._readlink)

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def open_read(self, requests: Sequence[ReadRequest]) -> list[Opened]:
        limiter = self.limiter.get()

        async def one(req: ReadRequest) -> Opened:
            async with limiter:
                return await self._open_read(req)

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def _open_read(self, req: ReadRequest) -> Opened:
        import aiofiles

        ops = self.ops

        def opener(path: str, flags: int) -> int:
            return open_at(ops, req)

        try:
            f = await aiofiles.open(req.path, "rb", buffering=0, opener=opener)
        except OSError as exc:
            return Opened(error=exc.errno or errno.EIO)
        try:
            st = await self._fstat(f.fileno())
            early = _checked(st, req)
            if early is not None:
                return early
            remaining = req.max_bytes + 1
            chunks: list[bytes] = []
            while remaining > 0:
                chunk = await f.read(min(remaining, _READ_CHUNK))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            return _with_st(decode(b"".join(chunks), req.max_bytes), st)
        except OSError as exc:
            return Opened(error=exc.errno or errno.EIO)
        finally:
            await f.close()


#: The backend ``fs_backend="auto"`` uses (the faster one in benchmarks/bench_fs_backends.py).
AUTO_BACKEND = "thread"


class Backends:
    """Both backends of one runtime, built once; :meth:`pick` chooses per call."""

    def __init__(self, ops: FileOps, limiter: IoLimiter) -> None:
        self.ops = ops
        self.limiter = limiter
        self.thread = ThreadFS(ops, limiter)
        self._aiofiles: AiofilesFS | None = None

    def pick(self, choice: str) -> AsyncFS:
        """``"auto"`` → :data:`AUTO_BACKEND`; ``"aiofiles"`` only under asyncio (threads
        under trio, where aiofiles cannot run)."""
        if choice == "auto":
            choice = AUTO_BACKEND
        if choice == "aiofiles" and running_asyncio():
            if self._aiofiles is None:
                self._aiofiles = AiofilesFS(self.ops, self.limiter)
            return self._aiofiles
        return self.thread
