"""The hop scheduler (``runtime/fs/_sched.py``): hops granted oldest call first, reads before
everything else, long calls after short ones, and a long search never holding back small
reads. Orderings are checked with events and bounded waits, never with timing thresholds
(deferral limits are set to an hour where a test needs them not to fire)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.fs import IoLimiter
from pathgate.runtime.fs._sched import _CALL, MAIN, READS, FairLimiter, HopScheduler, Ticket, call_scope
from pathgate.runtime.tools import _scan

pytestmark = pytest.mark.anyio

HOUR = 3600.0


async def until(cond: object, what: str) -> None:
    """Wait (bounded) until ``cond()`` holds."""
    assert callable(cond)
    with anyio.fail_after(20):
        while not cond():
            await anyio.sleep(0.002)


async def hop(limiter: FairLimiter, fn: Callable[..., object], *args: object) -> None:
    """One worker-thread hop of ``fn(*args)`` under ``limiter``."""
    await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


@asynccontextmanager
async def opened(gate: threading.Event) -> AsyncIterator[None]:
    """Open ``gate`` on the way out, so a failing test never leaves a hop blocked."""
    try:
        yield
    finally:
        gate.set()


def scheduler(main: int = 1, reads: int = 1, long: float = HOUR, defer: float = HOUR) -> HopScheduler:
    return HopScheduler({MAIN: main, READS: reads}, long, defer)


async def _call_at(lim: FairLimiter, order: list[str], name: str, start: float) -> None:
    """One hop of a call that started at ``start``, appending ``name`` to ``order``."""
    with call_scope() as ticket:
        ticket.start = start
        await anyio.to_thread.run_sync(order.append, name, limiter=lim)


async def test_oldest_call_first(anyio_backend: str) -> None:
    sched = scheduler()
    lim = FairLimiter(sched, MAIN)
    gate = threading.Event()
    order: list[str] = []

    async with anyio.create_task_group() as tg, opened(gate):
        tg.start_soon(hop, lim, gate.wait)  # holds the token
        await until(lambda: len(sched.running) == 1, "the holder runs")
        tg.start_soon(_call_at, lim, order, "newer", 2.0)
        await until(lambda: len(sched.waiting) == 1, "newer waits")
        tg.start_soon(_call_at, lim, order, "older", 1.0)
        await until(lambda: len(sched.waiting) == 2, "older waits")
        gate.set()
    assert order == ["older", "newer"]  # the older call overtakes the earlier-queued hop
    assert not sched.running and sched.free == {MAIN: 1, READS: 1}


async def test_reads_before_other_hops(anyio_backend: str) -> None:
    """A walk step waits while a read waits (reads first), but not merely while one runs:
    once the waiting read has its token the walk step starts beside it."""
    sched = scheduler(main=2, reads=1)
    main, reads = FairLimiter(sched, MAIN), FairLimiter(sched, READS)
    gate1, gate2 = threading.Event(), threading.Event()
    order: list[str] = []

    def read(name: str, gate: threading.Event) -> None:
        gate.wait()
        order.append(name)

    async with anyio.create_task_group() as tg, opened(gate1), opened(gate2):
        tg.start_soon(hop, reads, read, "read 1", gate1)
        await until(lambda: len(sched.running) == 1, "read 1 runs")
        tg.start_soon(hop, reads, read, "read 2", gate2)
        await until(lambda: len(sched.waiting) == 1, "read 2 waits")
        # two main tokens are free, yet the walk step waits for the waiting read
        tg.start_soon(hop, main, order.append, "walk step")
        await until(lambda: len(sched.waiting) == 2, "the walk step waits")
        assert sched.free[MAIN] == 2 and order == []
        gate1.set()
        # read 2 got its token: the walk step runs beside it (a running read holds nothing back)
        await until(lambda: order == ["read 1", "walk step"], "the walk step runs while read 2 runs")
        assert not gate2.is_set() and sched.free[READS] == 0
        gate2.set()
    assert order == ["read 1", "walk step", "read 2"]


async def test_promotion_keeps_call_order(anyio_backend: str) -> None:
    """A newer call's hop that has waited out the deferral does not overtake the next hop of
    an older call asked a moment ago: promotion lifts every older call with it."""
    sched = scheduler(main=1, reads=1, defer=0.05)
    lim = FairLimiter(sched, MAIN)
    gate = threading.Event()
    order: list[str] = []

    async with anyio.create_task_group() as tg, opened(gate):
        tg.start_soon(hop, lim, gate.wait)  # holds the token
        await until(lambda: len(sched.running) == 1, "the holder runs")
        tg.start_soon(_call_at, lim, order, "newer, waited long", 2.0)
        await until(lambda: len(sched.waiting) == 1, "newer waits")
        await anyio.sleep(0.1)  # it has waited out the deferral
        tg.start_soon(_call_at, lim, order, "older, next hop", 1.0)
        await until(lambda: len(sched.waiting) == 2, "older waits")
        gate.set()
    assert order == ["older, next hop", "newer, waited long"]
    assert sched.deferrals == {"rank 1, pool full": 1}


async def test_long_call_yields_then_progresses(anyio_backend: str) -> None:
    sched = scheduler(main=2, long=1.0, defer=0.05)
    lim = FairLimiter(sched, MAIN)
    gate = threading.Event()
    order: list[str] = []

    async def long_call() -> None:
        with call_scope() as ticket:
            ticket.service = 2.0  # already long
            await anyio.to_thread.run_sync(order.append, "long hop", limiter=lim)

    async with anyio.create_task_group() as tg, opened(gate):
        with call_scope():  # a short call whose hop runs until the gate opens
            tg.start_soon(hop, lim, gate.wait)
        await until(lambda: len(sched.running) == 1, "the short hop runs")
        tg.start_soon(long_call)
        await until(lambda: len(sched.waiting) == 1, "the long hop is deferred")
        assert sched.free[MAIN] == 1  # a free token: deferred, not queued behind a full pool
        # after its deferral the long hop runs although the short hop still holds its token
        await until(lambda: order == ["long hop"], "the long hop runs anyway")
        assert not gate.is_set()
        assert sched.deferrals == {"rank 2, pool free": 1}  # held back by rank, not by a full pool
        gate.set()


async def test_cancelled_waiter_returns_its_place(anyio_backend: str) -> None:
    sched = scheduler()
    lim = FairLimiter(sched, MAIN)
    gate = threading.Event()
    async with anyio.create_task_group() as tg, opened(gate):
        tg.start_soon(hop, lim, gate.wait)
        await until(lambda: len(sched.running) == 1, "the holder runs")
        with anyio.move_on_after(0.05):
            await anyio.to_thread.run_sync(print, limiter=lim)
        assert not sched.waiting  # the cancelled hop left the queue
        gate.set()
    assert not sched.running and sched.free[MAIN] == 1
    with pytest.raises(RuntimeError, match="holds no token"):
        lim.release()


def tree(root: Path, dirs: int = 40, per: int = 20) -> None:
    for d in range(dirs):
        sub = root / f"m{d:02d}"
        sub.mkdir(parents=True)
        for i in range(per):
            (sub / f"f{i}.txt").write_text(f"line {i}\n" * 20)


@pytest.fixture(scope="module")
def sched_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``tree``, built once for the scheduling tests (they only read and search it)."""
    root = tmp_path_factory.mktemp("sched")
    tree(root)
    return root


async def test_search_does_not_hold_back_reads(anyio_backend: str, sched_tree: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Fifty one-file reads issued while a whole-tree search is mid-way all finish while
    the search still has most of its hops to go: only the search hop already running, and
    one in a moment when no read has a hop queued, overlap them (25 on the FIFO limiter)."""
    root = sched_tree
    steps: list[int] = []
    orig = _scan.Scanner.step

    def small_step(self: _scan.Scanner, budget: int = _scan.HOP_BYTES) -> None:
        steps.append(self.index)
        orig(self, 2 * _scan.FILE_COST)  # two files a hop: 400 hops for the whole tree

    monkeypatch.setattr(_scan.Scanner, "step", small_step)
    rt = Runtime(root, policy=Policy(max_concurrency=2))
    rt.limiter.max_defer_seconds = HOUR
    files = [f"m{d:02d}/f0.txt" for d in range(40)] + [f"m{d:02d}/f1.txt" for d in range(10)]
    done = anyio.Event()

    async def search() -> None:
        await rt.code_search("no such text", ".", max_results=0)
        done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(search)
        await until(lambda: len(steps) >= 3, "the search is scanning")
        before = len(steps)

        async def read(p: str) -> None:
            out = await rt.call("read_files", {"paths": [p]})
            assert out == {p: "".join(f"line {p[-5]}\n" for _ in range(20))}

        async with anyio.create_task_group() as reads:
            for p in files:
                reads.start_soon(read, p)
        during = len(steps) - before
        assert not done.is_set()
        assert during <= 5, during  # the search waited for the reads (a hop in a gap at most)
        await done.wait()
    assert len(steps) > before + 100  # it was mid-way: most of its hops came after the reads


async def test_io_limiter_pools(anyio_backend: str) -> None:
    limiter = IoLimiter(6)
    assert limiter.get() is limiter.get() and limiter.get().total_tokens == 6
    assert limiter.reads().total_tokens == 2 and limiter.get().borrowed_tokens == 0
    async with limiter.get():
        assert limiter.get().borrowed_tokens == 1 and limiter.get().available_tokens == 5
    with call_scope() as outer, call_scope() as inner:
        assert inner is outer  # nested scopes are one call


async def test_short_calls_wait_at_most_one_search_hop_each(anyio_backend: str, sched_tree: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """With a single worker token, lists and globs issued while a whole-tree search is
    mid-way take turns with it: the search runs at most one hop per hop of theirs (plus the
    one already running), so a short call never waits behind the long one's remaining work."""
    root = sched_tree
    steps: list[int] = []
    orig = _scan.Scanner.step

    def small_step(self: _scan.Scanner, budget: int = _scan.HOP_BYTES) -> None:
        steps.append(self.index)
        orig(self, 2 * _scan.FILE_COST)

    monkeypatch.setattr(_scan.Scanner, "step", small_step)
    rt = Runtime(root, policy=Policy(max_concurrency=1))
    rt.limiter.max_defer_seconds = HOUR
    done = anyio.Event()
    short: list[tuple[str, int]] = []

    async def search() -> None:
        await rt.code_search("no such text", ".", max_results=0)
        done.set()

    async def one(tool: str, args: dict[str, object]) -> None:
        with call_scope() as ticket:
            out = await rt.call(tool, args)
        assert "error" not in out, out
        short.append((tool, ticket.hops))

    async with anyio.create_task_group() as tg:
        tg.start_soon(search)
        await until(lambda: len(steps) >= 3, "the search is scanning")
        before = len(steps)
        async with anyio.create_task_group() as calls:
            for d in range(10):
                calls.start_soon(one, "list_directory", {"path": f"m{d:02d}"})
                calls.start_soon(one, "glob", {"pattern": "*.txt", "path": f"m{d + 10:02d}"})
        during = len(steps) - before
        assert not done.is_set()
        hops = sum(h for _, h in short)
        assert len(short) == 20 and hops >= 20  # every short call hopped at least once
        assert during <= hops + 1, (during, hops)
        await done.wait()
    assert len(steps) > before + 100


async def test_ticket_counts_hops_and_waits(anyio_backend: str) -> None:
    sched = scheduler()
    lim = FairLimiter(sched, MAIN)
    gate = threading.Event()
    async with anyio.create_task_group() as tg, opened(gate):
        tg.start_soon(hop, lim, gate.wait)
        await until(lambda: len(sched.running) == 1, "the holder runs")
        with call_scope() as ticket:
            tg.start_soon(hop, lim, print)
            await until(lambda: len(sched.waiting) == 1, "the second hop waits")
            gate.set()
            await until(lambda: not sched.running and not sched.waiting, "both ran")
    assert ticket.hops == 1 and ticket.waited > 0 and ticket.deferred == 0


async def _granted_order(window: int, quantum: float = 0.0, hops: int = 2) -> list[str]:
    """Two calls, A (older) and B, each with ``hops`` hops, one token: the order hops are
    granted in, each hop released before its call asks the next one (the scheduler driven
    directly, so a hop's service is only the moment between its grant and its release)."""
    sched = HopScheduler({MAIN: 1, READS: 1}, HOUR, HOUR, window=window, quantum=quantum)
    names = {c: [f"{c}{i}" for i in range(1, hops + 1)] for c in "ab"}
    granted: list[str] = []
    asks = {name: anyio.Event() for mine in names.values() for name in mine}

    async def call(ticket: Ticket, mine: list[str]) -> None:
        _CALL.set(ticket)  # this task's own context: its hops belong to ``ticket``
        for name in mine:
            await asks[name].wait()
            await sched.acquire(MAIN, name)
            granted.append(name)

    def pending() -> int:
        return sum(1 for mine in names.values() if not set(mine) <= set(granted))

    assert sched.try_acquire(MAIN, "holder")
    async with anyio.create_task_group() as tg:
        tg.start_soon(call, Ticket(1.0), names["a"])
        tg.start_soon(call, Ticket(2.0), names["b"])
        asks["a1"].set()
        asks["b1"].set()
        await until(lambda: len(sched.waiting) == 2, "a1 and b1 wait")
        held = "holder"
        for _ in range(2 * hops):
            n = len(granted)
            sched.release(held)
            await until(lambda n=n: len(granted) == n + 1, "a hop is granted")
            held = granted[-1]
            mine = names[held[0]]
            if held != mine[-1]:
                asks[mine[mine.index(held) + 1]].set()  # the call asks its next hop
            await until(lambda: len(sched.waiting) == pending(), "every call with hops left waits")
        sched.release(held)
    return granted


async def test_window_calls_take_turns(anyio_backend: str) -> None:
    """Window 1: strictly oldest call first (the older call's next hop overtakes the newer
    call's first); window 2: the two oldest calls take turns hop by hop."""
    assert await _granted_order(1) == ["a1", "a2", "b1", "b2"]
    assert await _granted_order(2) == ["a1", "b1", "a2", "b2"]


async def test_quantum_keeps_a_calls_turn(anyio_backend: str) -> None:
    """With a quantum a call keeps its place in the turn order until it has used that much
    hop time (so a big call gets whole slices, not one hop per round): A's second and third
    hops go before B's second; without one, the calls alternate hop by hop."""
    assert await _granted_order(1024, 0.0, 3) == ["a1", "b1", "a2", "b2", "a3", "b3"]
    assert await _granted_order(1024, HOUR, 3) == ["a1", "b1", "a2", "a3", "b2", "b3"]
    assert await _granted_order(1, 0.0, 3) == ["a1", "a2", "a3", "b1", "b2", "b3"]
