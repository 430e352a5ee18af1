"""Fair scheduling of one runtime's worker-thread hops (issue 19, "concurrency that scales").

Every blocking step of a tool call is a *hop*: one ``anyio.to_thread.run_sync`` under a
limiter of this module. Hops are pure Python most of the time (walks, ignore matching,
gates), so they share one interpreter lock: two hops running at once do not finish sooner
than one after the other, and a short hop that runs beside a long one is slowed far more
than half (each system call it makes gives the lock away, and getting it back waits for the
other thread's switch interval). A first-in-first-out queue of hops also lets a big search
put a hop between every two hops of fifty small reads.

:class:`HopScheduler` grants hops by *rank*, then by *call*:

- rank 0, **reads first**: a hop of the ``read_files`` pool (:data:`READS`: resolve, match
  and the descriptor-anchored read of a batch, bounded work) starts before any other, and no
  other hop starts while one *waits*, so a whole-tree search never holds back small reads;
- rank 1, short calls; rank 2, **long calls**: a call that has used more than
  :data:`LONG_CALL_SECONDS` of hop time (its share of it, when hops run side by side) waits
  while shorter calls have hops running or waiting;
- a *running* hop holds back long calls' hops only: a read or short hop that runs never
  keeps the other tokens of the pool idle (it did: with fifty agents some read or deferred
  hop was nearly always running, a third of all hops waited out :data:`MAX_DEFER_SECONDS`,
  and most of a call's latency was waiting for a token while tokens were free —
  benchmarks/bench_concurrency.py, RESULTS.md 2026-12-01);
- within a rank, **oldest call first**: a waiting hop of a call that started earlier goes
  first (a call's start is its :class:`Ticket`, set by :func:`call_scope`; a hop outside any
  scope is a call of its own), so a call that has begun is not overtaken by newer ones;
- no hop waits more than :data:`MAX_DEFER_SECONDS` for more urgent ones: then a long call's
  hop joins the short calls, and a short call's hop kept from a free token by waiting reads
  joins the reads (it still runs with its own rank), so every call progresses; a hop that
  only waits for a full pool keeps its place in call order;
- each pool bounds its running hops (``max_concurrency`` for :data:`MAIN`, a small one for
  :data:`READS`).

The limiters are :class:`anyio.CapacityLimiter` s to their callers (``anyio.to_thread``
under asyncio and trio uses only ``acquire``/``release`` on behalf of a borrower).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import TracebackType

import anyio
from anyio import get_current_task

__all__ = [
    "LONG_CALL_SECONDS",
    "MAIN",
    "MAX_DEFER_SECONDS",
    "READS",
    "FairLimiter",
    "HopScheduler",
    "Ticket",
    "call_scope",
]

#: Hop time (seconds, the call's share when hops run side by side) after which a call is
#: long and yields to short calls.
LONG_CALL_SECONDS = 1.0
#: Longest a hop waits for more urgent hops (reads, short calls) before it runs anyway.
MAX_DEFER_SECONDS = 0.2
#: The pool of ``read_files``' one-hop reads: its hops come first (rank 0).
READS = "reads"
#: The pool of everything else (walks, searches, matches, writes).
MAIN = "main"


@dataclass(eq=False)
class Ticket:
    """One tool call as the scheduler sees it: when it started and the hop time it used;
    ``hops``, ``waited`` (seconds between asking for a token and getting it) and ``deferred``
    (hops that waited out :data:`MAX_DEFER_SECONDS` behind more urgent ones) are kept for
    diagnostics (benchmarks/bench_concurrency.py reads them)."""

    start: float
    service: float = 0.0
    hops: int = 0
    waited: float = 0.0
    deferred: int = 0


_CALL: ContextVar[Ticket | None] = ContextVar("pathgate_call", default=None)


@contextmanager
def call_scope() -> Iterator[Ticket]:
    """Mark one tool call: hops inside share one :class:`Ticket` (nested scopes reuse the
    outer one, so ``rt.call`` → ``rt.read_files`` is one call; tasks started inside inherit it)."""
    ticket = _CALL.get()
    if ticket is not None:
        yield ticket
        return
    ticket = Ticket(time.monotonic())
    token = _CALL.set(ticket)
    try:
        yield ticket
    finally:
        _CALL.reset(token)


@dataclass(eq=False)
class _Waiter:
    pool: str
    ticket: Ticket
    borrower: object
    seq: int
    event: anyio.Event
    rank: int
    granted: bool = False
    #: The rank the hop runs with (``rank`` becomes 0 once it has waited long enough).
    natural: int = -1

    def __post_init__(self) -> None:
        if self.natural < 0:
            self.natural = self.rank

    def key(self) -> tuple[int, float, int]:
        return (self.rank, self.ticket.start, self.seq)


@dataclass(eq=False)
class _Running:
    pool: str
    ticket: Ticket
    rank: int
    vstart: float


@dataclass(eq=False)
class HopScheduler:
    """The hop queue of one runtime under one event-loop library (see the module doc)."""

    sizes: dict[str, int]
    long_call_seconds: float = LONG_CALL_SECONDS
    max_defer_seconds: float = MAX_DEFER_SECONDS
    free: dict[str, int] = field(init=False)
    waiting: list[_Waiter] = field(default_factory=list)
    running: dict[object, _Running] = field(default_factory=dict)
    #: Hops that waited out the deferral, by the rank they waited with and whether a token
    #: of their pool was free then (diagnostics).
    deferrals: dict[str, int] = field(default_factory=dict)
    _seq: Iterator[int] = field(default_factory=itertools.count)
    _vclock: float = 0.0
    _vlast: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.free = dict(self.sizes)

    def _rank(self, pool: str, ticket: Ticket) -> int:
        """0: a read hop; 1: a hop of a short call; 2: a hop of a long call."""
        if pool == READS:
            return 0
        return 2 if ticket.service >= self.long_call_seconds else 1

    # -- service accounting: each running hop is charged its share of the elapsed time ----

    def _tick(self) -> float:
        now = time.monotonic()
        if self.running:
            self._vclock += (now - self._vlast) / len(self.running)
        self._vlast = now
        return self._vclock

    def _running_bar(self) -> int:
        """The least urgent rank that may start beside the running hops: a running read or
        short hop holds back long calls (2 → 1); nothing else (3)."""
        return 1 if any(r.rank <= 1 for r in self.running.values()) else 3

    def _top_rank(self) -> int:
        """The least urgent rank that may start now: the running bar, and no hop starts while
        a more urgent one waits."""
        return min(self._running_bar(), min((w.rank for w in self.waiting), default=3))

    def _start(self, borrower: object, pool: str, ticket: Ticket, rank: int) -> None:
        if borrower in self.running:
            raise RuntimeError("this borrower already holds a token of the hop scheduler")
        self.running[borrower] = _Running(pool, ticket, rank, self._tick())
        self.free[pool] -= 1
        ticket.hops += 1

    def _dispatch(self) -> None:
        """Grant free tokens to waiters: most urgent rank first, then oldest call first; a
        hop never starts while a more urgent one waits (or, for a long call's, runs)."""
        if not self.waiting:
            return
        top = self._running_bar()
        for w in sorted(self.waiting, key=_Waiter.key):
            if w.rank > top:
                break  # the rest are less urgent than a hop still waiting (or running)
            if self.free[w.pool] > 0:
                self.waiting.remove(w)
                w.granted = True
                self._start(w.borrower, w.pool, w.ticket, w.natural)  # running from now on
                w.event.set()
                top = min(top, self._running_bar())
            else:
                top = min(top, w.rank)  # it waits on: nothing less urgent starts

    # -- the limiter protocol ----------------------------------------------------------------

    def try_acquire(self, pool: str, borrower: object) -> bool:
        ticket = _CALL.get() or Ticket(time.monotonic())
        rank = self._rank(pool, ticket)
        if not any(w.pool == pool for w in self.waiting) and self.free[pool] > 0 and rank <= self._top_rank():
            self._start(borrower, pool, ticket, rank)
            return True
        return False

    def _promote(self, w: _Waiter) -> None:
        """``w`` has waited :data:`MAX_DEFER_SECONDS`. A long call's hop joins the short
        calls (in call order, it is older than most); a short call's hop held back by waiting
        reads while a token of its pool is free becomes as urgent as they are. A hop that
        merely waits for a full pool keeps its rank: queueing is oldest call first, and a
        newer call's hop promoted to rank 0 would overtake it (a call of twelve hops paid
        the deferral at each hop — benchmarks/bench_concurrency.py, RESULTS.md 2026-12-01)."""
        held_back = self.free[w.pool] > 0
        if w.rank == 1 and not held_back:
            return
        why = f"rank {w.rank}, pool {'free' if held_back else 'full'}"
        self.deferrals[why] = self.deferrals.get(why, 0) + 1
        w.rank = 1 if w.rank == 2 else 0
        w.ticket.deferred += 1
        self._dispatch()

    async def acquire(self, pool: str, borrower: object) -> None:
        if self.try_acquire(pool, borrower):
            return
        ticket = _CALL.get() or Ticket(time.monotonic())
        asked = time.monotonic()
        w = _Waiter(pool, ticket, borrower, next(self._seq), anyio.Event(), self._rank(pool, ticket))
        self.waiting.append(w)
        self._dispatch()
        try:
            while w.rank > 0 and not w.granted:
                with anyio.move_on_after(self.max_defer_seconds):
                    await w.event.wait()
                if not w.granted:
                    self._promote(w)
            await w.event.wait()
            ticket.waited += time.monotonic() - asked
        except BaseException:
            if w.granted:
                self.release(borrower)
            else:
                self.waiting.remove(w)
                self._dispatch()  # a less urgent waiter may have been held back by this one
            raise

    def release(self, borrower: object) -> None:
        run = self.running.get(borrower)
        if run is None:
            raise RuntimeError("this borrower holds no token of the hop scheduler")
        run.ticket.service += self._tick() - run.vstart
        del self.running[borrower]
        self.free[run.pool] += 1
        self._dispatch()


class FairLimiter(anyio.CapacityLimiter):
    """One pool of a :class:`HopScheduler`, as the :class:`anyio.CapacityLimiter` that
    ``anyio.to_thread.run_sync(..., limiter=)`` takes (asyncio and trio)."""

    def __new__(cls, scheduler: HopScheduler, pool: str) -> FairLimiter:
        return object.__new__(cls)

    def __init__(self, scheduler: HopScheduler, pool: str) -> None:
        self._sched = scheduler
        self._pool = pool

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc_val: BaseException | None,
                        exc_tb: TracebackType | None) -> None:
        self.release()

    @property
    def total_tokens(self) -> float:
        return self._sched.sizes[self._pool]

    @total_tokens.setter
    def total_tokens(self, value: float) -> None:
        raise AttributeError("the hop scheduler's pools are sized once (Policy.max_concurrency)")

    @property
    def borrowed_tokens(self) -> int:
        return self._sched.sizes[self._pool] - self._sched.free[self._pool]

    @property
    def available_tokens(self) -> float:
        return self._sched.free[self._pool]

    def acquire_nowait(self) -> None:
        self.acquire_on_behalf_of_nowait(get_current_task())

    def acquire_on_behalf_of_nowait(self, borrower: object) -> None:
        if not self._sched.try_acquire(self._pool, borrower):
            raise anyio.WouldBlock

    async def acquire(self) -> None:
        await self.acquire_on_behalf_of(get_current_task())

    async def acquire_on_behalf_of(self, borrower: object) -> None:
        await self._sched.acquire(self._pool, borrower)

    def release(self) -> None:
        self.release_on_behalf_of(get_current_task())

    def release_on_behalf_of(self, borrower: object) -> None:
        self._sched.release(borrower)

    def statistics(self) -> anyio.CapacityLimiterStatistics:  # pragma: no cover - diagnostics
        return anyio.CapacityLimiterStatistics(
            borrowed_tokens=self.borrowed_tokens, total_tokens=self.total_tokens,
            borrowers=tuple(b for b, r in self._sched.running.items() if r.pool == self._pool),
            tasks_waiting=sum(1 for w in self._sched.waiting if w.pool == self._pool))
