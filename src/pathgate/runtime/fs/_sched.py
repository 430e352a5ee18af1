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
  and the descriptor-anchored read of a batch, bounded work); a short call's hop does not
  start while a read *waits* (it may run beside one), so a whole-tree search never makes
  small reads queue;
- rank 1, short calls; rank 2, **long calls**: a call that has used more than
  :data:`LONG_CALL_SECONDS` of hop time (its share of it, when hops run side by side) waits
  while hops of reads or short calls run or wait;
- within rank 1, **calls take turns**: the hops of the :data:`WINDOW` oldest calls with a hop
  waiting go first, the call granted a hop longest ago first (window 1: strictly oldest call
  first); a call's start is its :class:`Ticket`, set by :func:`call_scope` (a hop outside any
  scope is a call of its own); a call keeps its place in that order for :data:`QUANTUM_SECONDS`
  of hop time (a *turn*), then goes behind the others: a big call gets whole slices per round,
  not one hop (a scan step of a few milliseconds) per round of every call in flight, which is
  what kept the biggest searches in the tail (a closed-loop simulation of the benchmark's 2,000
  calls with their measured hop times: p99 3.4x Little's mean with one hop per turn, 2.3x with
  75 ms turns; benchmarks/RESULTS.md);
- no hop waits more than :data:`MAX_DEFER_SECONDS` for more urgent ones: a short call's hop
  then no longer waits for reads, a long call's hop runs first; promotion never reorders
  short calls' hops among themselves (measured: when it did, a big call's every next hop
  waited out the deferral behind newer calls' promoted hops — the tail, benchmarks/RESULTS.md);
- each pool bounds its running hops (``max_concurrency`` for :data:`MAIN`, a small one for
  :data:`READS`).

Why one main hop at a time by default (``Policy.max_concurrency``): hops share one
interpreter lock, so two Python-bound hops at once finish no sooner than one after the other,
and on a machine with a second free CPU the hand-offs of the lock cost more than the work
(measured: a concurrent call cost 2.2× the CPU of the same call alone at 8 tokens, 1.1× at
one). Turn-taking, not threads, is what keeps a big search from delaying small calls.

The limiters are :class:`anyio.CapacityLimiter` s to their callers (``anyio.to_thread``
under asyncio and trio uses only ``acquire``/``release`` on behalf of a borrower).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType

import anyio
from anyio import get_current_task

from pathgate.runtime.fs._calls import CALL, VIEW, enter_view

__all__ = [
    "LONG_CALL_SECONDS",
    "MAIN",
    "MAX_DEFER_SECONDS",
    "QUANTUM_SECONDS",
    "READS",
    "FairLimiter",
    "HopScheduler",
    "Ticket",
    "call_scope",
]

#: Hop time (seconds, the call's share when hops run side by side) after which a call is
#: long and yields to short calls.
LONG_CALL_SECONDS = 0.25
#: Longest a hop waits for more urgent hops (reads, short calls) before it runs anyway.
MAX_DEFER_SECONDS = 0.2
#: How many of the oldest calls take turns hop by hop (1: strictly oldest call first; the
#: default, larger than any number of calls in flight measured, lets every call take turns).
WINDOW = 1024
#: Hop time (seconds) a call may use per turn: its next hops keep its place in the turn order
#: until it has used this much since its turn began, then it goes behind every other call.
QUANTUM_SECONDS = 0.075
#: The pool of ``read_files``' one-hop reads: its hops come first (rank 0).
READS = "reads"
#: The pool of everything else (walks, searches, matches, writes).
MAIN = "main"


@dataclass(eq=False)
class Ticket:
    """One tool call as the scheduler sees it: when it started and the hop time it used;
    ``hops``, ``waited`` (seconds between asking for a token and getting it) and ``deferred``
    (hops that waited out :data:`MAX_DEFER_SECONDS` and were promoted) are kept for
    diagnostics (benchmarks/bench_concurrency.py reads them)."""

    start: float
    service: float = 0.0
    hops: int = 0
    waited: float = 0.0
    deferred: int = 0
    #: When the call's current turn began (a counter; -1: never granted a hop): the calls of
    #: the window take turns by it.
    turn: int = -1
    #: ``service`` when the current turn began.
    turn_service: float = 0.0


def _start(t: Ticket) -> float:
    return t.start


def _waiter_key(w: _Waiter) -> tuple[int, int, float, float, int]:
    return w.key


_CALL = CALL  # (its own module: read without importing the event loop)


@contextmanager
def call_scope() -> Iterator[Ticket]:
    """Mark one tool call: hops inside share one :class:`Ticket` (nested scopes reuse the
    outer one, so ``rt.call`` → ``rt.read_files`` is one call; tasks started inside inherit it)."""
    view = enter_view()  # every call scope: a view of its own (fs/_calls.py)
    try:
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
    finally:
        VIEW.reset(view)


@dataclass(eq=False)
class _Waiter:
    pool: str
    ticket: Ticket
    borrower: object
    seq: int
    event: anyio.Event
    rank: int
    asked: float
    promoted: bool = False
    granted: bool = False
    #: Its place in the order (:meth:`HopScheduler._key`): set when it starts waiting and
    #: when it is promoted (a ticket's turn does not change while its hop waits).
    key: tuple[int, int, float, float, int] = (0, 0, 0.0, 0.0, 0)


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
    #: How many of the oldest calls with a short hop waiting take turns (hop by hop).
    window: int = WINDOW
    #: Hop time a call may use per turn (:data:`QUANTUM_SECONDS`).
    quantum: float = QUANTUM_SECONDS
    free: dict[str, int] = field(init=False)
    waiting: list[_Waiter] = field(default_factory=list)
    #: How many of :attr:`waiting` wait for each pool.
    waits: dict[str, int] = field(init=False)
    running: dict[object, _Running] = field(default_factory=dict)
    #: Hops promoted after waiting out the deferral, by the rank they waited with and whether
    #: a token of their pool was free then (diagnostics: "pool full" is plain queueing).
    deferrals: dict[str, int] = field(default_factory=dict)
    _seq: Iterator[int] = field(default_factory=itertools.count)
    _turns: Iterator[int] = field(default_factory=itertools.count)
    _vclock: float = 0.0
    _vlast: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.free = dict(self.sizes)
        self.waits = dict.fromkeys(self.sizes, 0)

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

    def _start(self, borrower: object, pool: str, ticket: Ticket, rank: int) -> None:
        if borrower in self.running:
            raise RuntimeError("this borrower already holds a token of the hop scheduler")
        self.running[borrower] = _Running(pool, ticket, rank, self._tick())
        self.free[pool] -= 1
        ticket.hops += 1
        if ticket.turn < 0 or ticket.service - ticket.turn_service >= self.quantum:
            ticket.turn, ticket.turn_service = next(self._turns), ticket.service

    def _dequeue(self, w: _Waiter) -> None:
        self.waiting.remove(w)
        self.waits[w.pool] -= 1

    def _promote(self, w: _Waiter) -> None:
        why = f"rank {w.rank}, pool {'free' if self.free[w.pool] else 'full'}"
        self.deferrals[why] = self.deferrals.get(why, 0) + 1
        w.ticket.deferred += 1
        w.promoted = True
        w.key = self._key(w)

    def _age(self) -> None:
        """Promote the hops that have waited out the deferral (before a token is freed, so
        the cause recorded says whether their pool was full)."""
        if not self.waiting:
            return
        since = time.monotonic() - self.max_defer_seconds
        for w in self.waiting:  # in the order they asked
            if w.asked > since:
                break
            if not w.promoted and w.rank > 0:
                self._promote(w)

    def _order(self) -> list[tuple[int, _Waiter]]:
        """The waiters, most urgent first, with their rank: reads (0) by call start, then a
        long call's hop that has waited out the deferral (0), then short calls' hops (1) —
        those of the :attr:`window` oldest calls first, taking turns (the call granted a hop
        longest ago first), the rest by call start — then long calls' hops (2)."""
        if len(self.waiting) <= self.window:  # every call waiting is in the window
            ranked = sorted(self.waiting, key=_waiter_key)
        else:
            short = {id(w.ticket): w.ticket for w in self.waiting if w.rank == 1}
            window = set(map(id, sorted(short.values(), key=_start)[: self.window]))
            ranked = sorted(self.waiting, key=lambda w: w.key if w.rank != 1 or id(w.ticket) in window
                            else (1, 1, w.ticket.start, 0, w.seq))
        return [(0 if w.rank == 0 or (w.promoted and w.rank == 2) else w.rank, w) for w in ranked]

    @staticmethod
    def _key(w: _Waiter) -> tuple[int, int, float, float, int]:
        """Reads and promoted long calls' hops by call start, short calls' hops by the start
        of their call's turn, then long calls' hops by call start."""
        t = w.ticket
        if w.rank == 0 or (w.rank == 2 and w.promoted):
            return (0, w.rank, t.start, 0, w.seq)
        if w.rank == 1:
            return (1, 0, t.turn, t.start, w.seq)
        return (2, 0, t.start, 0, w.seq)

    def _dispatch(self) -> None:
        """Grant free tokens to waiters, most urgent first (see the module doc): a short
        call's hop does not start while a read waits (unless it has waited out the deferral)
        and a pool's hops start in order; a long call's hop does not start while a hop of a
        read or a short call runs or waits."""
        if not any(n and self.free[pool] > 0 for pool, n in self.waits.items()):
            return  # nothing to grant (most calls: a hop asked while its pool was full)
        reads_waiting = False
        short_busy = any(r.rank < 2 for r in self.running.values())
        blocked: set[str] = set()
        for rank, w in self._order():
            if rank == 2 and (short_busy or reads_waiting):
                break  # the rest are long calls' hops, held back by shorter work
            if w.pool in blocked:
                continue
            if rank == 1 and reads_waiting and not w.promoted:
                blocked.add(w.pool)
                short_busy = True
                continue
            if self.free[w.pool] > 0:
                self._dequeue(w)
                w.granted = True
                self._start(w.borrower, w.pool, w.ticket, w.rank)  # running from now on
                w.event.set()
            else:
                blocked.add(w.pool)
                reads_waiting = reads_waiting or w.pool == READS
            short_busy = short_busy or w.rank < 2

    # -- the limiter protocol ----------------------------------------------------------------

    def try_acquire(self, pool: str, borrower: object) -> bool:
        if self.waiting or self.free[pool] <= 0:
            return False
        ticket = _CALL.get() or Ticket(time.monotonic())
        rank = self._rank(pool, ticket)
        if rank == 2 and any(r.rank < 2 for r in self.running.values()):
            return False
        self._start(borrower, pool, ticket, rank)
        return True

    async def acquire(self, pool: str, borrower: object) -> None:
        if self.try_acquire(pool, borrower):
            return
        ticket = _CALL.get() or Ticket(time.monotonic())
        asked = time.monotonic()
        w = _Waiter(pool, ticket, borrower, next(self._seq), anyio.Event(), self._rank(pool, ticket), asked)
        w.key = self._key(w)
        self._age()
        self.waiting.append(w)
        self.waits[pool] += 1
        self._dispatch()
        if w.granted:
            return
        try:
            if w.rank == 2:  # held back by shorter work: at most for the deferral
                with anyio.move_on_after(self.max_defer_seconds):
                    await w.event.wait()
                if not w.granted:
                    if not w.promoted:
                        self._promote(w)
                    self._dispatch()
            await w.event.wait()
            ticket.waited += time.monotonic() - asked
        except BaseException:
            if w.granted:
                self.release(borrower)
            else:
                self._dequeue(w)
                self._dispatch()  # a less urgent waiter may have been held back by this one
            raise

    def release(self, borrower: object) -> None:
        run = self.running.get(borrower)
        if run is None:
            raise RuntimeError("this borrower holds no token of the hop scheduler")
        run.ticket.service += self._tick() - run.vstart
        self._age()
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
