"""Concurrency and the async backends of ``read_files``.

:class:`ThreadFS` (one ``anyio.to_thread.run_sync`` hop per chunk of paths, under a
pathgate-owned :class:`anyio.CapacityLimiter`; runs under asyncio and trio) and
:class:`AiofilesFS` (aiofiles, one executor hop per operation; asyncio only).
:meth:`Backends.pick` chooses one per call (aiofiles is never used under trio).
"""

from __future__ import annotations

import errno
import math
import os
import stat as stat_mod
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from contextvars import Token
from typing import Protocol, TypeVar

import anyio
import anyio.to_thread

from pathgate.runtime.fs._calls import VIEW, enter_view
from pathgate.runtime.fs._ops import FileOps
from pathgate.runtime.fs._read import (
    _READ_CHUNK,
    DirFds,
    Opened,
    ReadRequest,
    _checked,
    decode,
    open_at,
    open_read,
)
from pathgate.runtime.fs._relink import seen_links
from pathgate.runtime.fs._resolve import Resolved, drive_async, drive_sync, resolve_flow
from pathgate.runtime.fs._sched import (
    _CALL,
    LONG_CALL_SECONDS,
    MAIN,
    MAX_DEFER_SECONDS,
    QUANTUM_SECONDS,
    READS,
    WINDOW,
    FairLimiter,
    HopScheduler,
    Ticket,
)

__all__ = [
    "AUTO_BACKEND",
    "AiofilesFS",
    "AsyncFS",
    "Backends",
    "DirStatMemo",
    "IoLimiter",
    "ThreadFS",
    "run_chunked",
    "running_asyncio",
]

# --- concurrency ---------------------------------------------------------------------------

T = TypeVar("T")
R = TypeVar("R")


def running_asyncio() -> bool:
    """True inside an asyncio event loop (aiofiles can run), False under trio.

    asyncio is not imported here (~40 ms of a command's start-up): no asyncio loop can be
    running when the module was never loaded."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class IoLimiter:
    """The worker-thread pools of one runtime, one :class:`HopScheduler` per event-loop
    library: :meth:`get` (``tokens``: walks, searches, anything long, one token per hop) and
    :meth:`reads`, a separate small pool (``read_tokens``, default ``max(2, tokens // 4)``)
    for ``read_files``' one-hop reads. Reads go first, short calls take turns hop by hop, and a
    long call's hops wait while short calls have work (:mod:`._sched`), so fifty small reads
    never queue behind a big search's hops (benchmarks/bench_calls.py, "agents")."""

    def __init__(self, tokens: int, read_tokens: int | None = None) -> None:
        self.tokens = tokens
        self.read_tokens = read_tokens if read_tokens is not None else max(2, tokens // 4)
        #: Passed to each new :class:`HopScheduler` (tests set them before the first call).
        self.long_call_seconds = LONG_CALL_SECONDS
        self.max_defer_seconds = MAX_DEFER_SECONDS
        self.window = WINDOW
        self.quantum = QUANTUM_SECONDS
        self._limiters: dict[tuple[bool, str], anyio.CapacityLimiter] = {}
        self._schedulers: dict[bool, HopScheduler] = {}

    def _limiter(self, pool: str) -> anyio.CapacityLimiter:
        asyncio = running_asyncio()
        limiter = self._limiters.get((asyncio, pool))
        if limiter is None:
            sched = self._schedulers.get(asyncio)
            if sched is None:
                sched = self._schedulers[asyncio] = HopScheduler(
                    {MAIN: self.tokens, READS: self.read_tokens}, self.long_call_seconds, self.max_defer_seconds,
                    window=self.window, quantum=self.quantum)
            limiter = self._limiters[(asyncio, pool)] = FairLimiter(sched, pool)
        return limiter

    def get(self) -> anyio.CapacityLimiter:
        """The shared pool: walks, searches, matches, writes."""
        return self._limiter(MAIN)

    def reads(self) -> anyio.CapacityLimiter:
        """The small pool of ``read_files``' resolve + match + read hops."""
        return self._limiter(READS)

    @staticmethod
    def call() -> AbstractContextManager[Ticket]:
        """Scope one tool call (``with runtime.limiter.call(): ...``): its hops are granted by
        the call's start (:func:`._sched.call_scope`, without a generator's cost per call)."""
        return _CallScope()


class _CallScope:
    """:func:`._sched.call_scope` as a plain context manager (the same ticket and context
    variable; a nested scope reuses the outer ticket and resets nothing)."""

    __slots__ = ("_token", "_view")

    def __enter__(self) -> Ticket:
        self._view = enter_view()  # every scope: a view of its own (fs/_calls.py)
        ticket = _CALL.get()
        if ticket is not None:
            self._token: Token[Ticket | None] | None = None
            return ticket
        ticket = Ticket(time.monotonic())
        self._token = _CALL.set(ticket)
        return ticket

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _CALL.reset(self._token)
        VIEW.reset(self._view)


class DirStatMemo:
    """``lstat``/``readlink`` for the resolutions of one worker-thread chunk, remembering the
    ``lstat`` of directories: paths of one batch share their leading directories, each
    checked once per chunk (as git caches the last directory it checked). Anything that is
    not a directory is asked afresh every time; the descriptor-anchored read (walked from
    the root without following symlinks) stays the guarantee against a swap."""

    def __init__(self, ops: FileOps) -> None:
        self.ops = ops
        self._dirs: dict[str, os.stat_result] = {}

    def lstat(self, path: str) -> os.stat_result:
        st = self._dirs.get(path)
        if st is None:
            st = self.ops.lstat(path)
            if stat_mod.S_ISDIR(st.st_mode):
                self._dirs[path] = st
        return st

    def readlink(self, path: str) -> str:
        return self.ops.readlink(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        return self.ops.open_fd(path, dir_fd)

    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        return self.ops.open_dir(path, dir_fd)

    def fstat(self, fd: int) -> os.stat_result:
        return self.ops.fstat(fd)

    def read_fd(self, fd: int, n: int) -> bytes:
        return self.ops.read_fd(fd, n)

    def close(self, fd: int) -> None:
        self.ops.close(fd)


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
            memo = DirStatMemo(ops)
            return [drive_sync(resolve_flow(root, r, allow_outside=allow_outside), memo) for r in reqs]

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
        self._seen = aiofiles.os.wrap(seen_links)

    async def resolve(
        self, root: str, requests: Sequence[str], *, allow_outside: bool = False
    ) -> list[Resolved]:
        limiter = self.limiter.get()

        async def one(request: str) -> Resolved:
            flow = resolve_flow(root, request, allow_outside=allow_outside)
            async with limiter:
                return await drive_async(flow, self._lstat, self._readlink)

        import asyncio

        return list(await asyncio.gather(*(one(r) for r in requests)))

    async def open_read(self, requests: Sequence[ReadRequest]) -> list[Opened]:
        limiter = self.limiter.get()

        async def one(req: ReadRequest) -> Opened:
            async with limiter:
                return await self._open_read(req)

        import asyncio

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
            if st.st_nlink == 1:  # an alias renamed away since the open: seen_links
                st = await self._seen(st, req.path, lstat=ops.lstat)
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
            return decode(b"".join(chunks), req.max_bytes, st)
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
