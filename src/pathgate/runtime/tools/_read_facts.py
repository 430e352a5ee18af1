"""``read_files``' fact source: resolution, ignore decisions and descriptor reads, fetched in
one worker-thread hop per chunk of paths (or on the event loop for one small file).

:class:`ReadFacts` is what :meth:`GatePipeline.run <pathgate.runtime.gates.GatePipeline.run>`
asks for the facts of ``read_files`` (and of the runtime's ``read_verdicts``/``check_paths``
and the write tools' checks): ``REAL``, ``MATCH`` and ``OPEN`` for the pending paths. On the
thread backend, with the built-in gates, fetching ``REAL`` does all three in one hop
(:meth:`ReadFacts._fused`): each path is resolved, matched and -- when every gate before the
first ``OPEN`` gate lets it through -- opened and read through its parent's descriptor, and
the built-in gates on the open descriptor run right after the read; the pipeline skips the
gates the worker saw pass (``PathFacts.cleared``) and alone decides the rest.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from stat import S_ISDIR
from typing import TYPE_CHECKING

import anyio.from_thread
import anyio.lowlevel

from pathgate.runtime._remedy import Decider, ignore_decider
from pathgate.runtime.fs import (
    PATH_MAX,
    AsyncFS,
    DirFds,
    DirStatMemo,
    Opened,
    OsFS,
    ReadRequest,
    ThreadFS,
    WouldBlock,
    drive_sync,
    open_read,
    open_read_in,
    resolve_flow,
    resolve_in,
    run_chunked,
)
from pathgate.runtime.gates import Fact, GateCheck, GateContext, PathFacts
from pathgate.runtime.gates.existence import ExistenceGate
from pathgate.runtime.gates.ignore import IgnoreGate
from pathgate.runtime.gates.path import PathGate
from pathgate.runtime.gates.read import ReadGate
from pathgate.runtime.gates.secrets import LinkedSecretGate, SecretsGate
from pathgate.runtime.gates.size import SizeGate
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.verdicts import Remedy, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["ReadFacts"]


#: Built-in gates that are sync, pure functions of the facts: the one-hop read may run them in
#: its worker thread to decide whether to open a file ahead of the pipeline.
_INLINE_GATES: tuple[type, ...] = (PathGate, SecretsGate, IgnoreGate)
#: Built-in gates on the open descriptor that the one-hop read runs in its worker too, right
#: after the read, on the same facts (the pipeline does not run again those that passed): pure
#: functions of the facts, except a multi-linked file's secret-inode check, which must await
#: (the worker then stops and leaves it and the gates after it to the pipeline).
_TAIL_GATES: tuple[type, ...] = (LinkedSecretGate, ExistenceGate, SizeGate, ReadGate)
_Gates = tuple[GateCheck, ...]
#: id(gate tuple) -> (the tuple, its inline gates, the tail gates after them): keeping the
#: tuple makes the id safe.
_INLINE_OF: dict[int, tuple[_Gates, _Gates | None, _Gates]] = {}
_Check = Callable[[PathFacts, GateContext], object]
#: id(gate tuple) -> (the tuple, its gates' bound ``check`` methods): keeping the tuple makes
#: the id safe (the tuples are those kept in ``_INLINE_OF``).
_CHECKS_OF: dict[int, tuple[_Gates, tuple[_Check, ...]]] = {}
#: (id(policy), purpose) -> (the policy, its ignore decider): keeping the policy makes the id safe.
_DECIDER_OF: dict[tuple[int, str], tuple[object, Decider]] = {}


class ReadFacts:
    """The fact source of one ``read_files`` call (per-call caches; never shared).

    With ``one_hop`` (``read_files`` on the thread backend), fetching ``REAL`` resolves,
    matches and -- for each path every gate before the first ``OPEN`` gate lets through --
    opens and reads it, all in one worker-thread hop per chunk (:meth:`_fused`). Those gates
    are run again on the loop by the pipeline, which alone decides; a path the worker judged
    blocked is never opened (and is opened by a later ``OPEN`` fetch if the pipeline lets it
    through, which only a gate outside :data:`_INLINE_GATES` could do: then no path is opened
    ahead)."""

    def __init__(self, runtime: Runtime, backend: AsyncFS, ctx: GateContext, *,
                 one_hop: bool = False, on_loop: bool = False) -> None:
        self.runtime = runtime
        self.backend = backend
        self.ctx = ctx
        self._inline: _Gates | None = None
        self._tail: _Gates = ()
        if one_hop and isinstance(backend, ThreadFS):
            self._inline, self._tail = self._inline_gates()
        self._on_loop = on_loop  # try the fused step on the event loop first (runtime/tools/_inline.py)
        self._matched = False

    def _inline_gates(self) -> tuple[_Gates | None, _Gates]:
        """The gates before the first one needing ``OPEN``, when all are built-in sync gates,
        and the built-in ``OPEN`` gates right after them (:data:`_TAIL_GATES`, up to the first
        other gate); derived once per gate tuple: the runtime's pipeline is fixed after
        construction."""
        gates = self.runtime.pipeline.gates
        got = _INLINE_OF.get(id(gates))
        if got is not None and got[0] is gates:
            return got[1], got[2]
        before: list[GateCheck] = []
        result: _Gates | None = None
        for gate in gates:
            if Fact.OPEN in gate.needs:
                result = tuple(before)
                break
            if type(gate) not in _INLINE_GATES:
                break
            before.append(gate)
        else:
            result = tuple(before)
        tail: list[GateCheck] = []
        if result is not None:
            for gate in gates[len(result):]:
                if type(gate) not in _TAIL_GATES:
                    break
                tail.append(gate)
        if len(_INLINE_OF) > 64:
            _INLINE_OF.clear()
        _INLINE_OF[id(gates)] = (gates, result, tuple(tail))
        return result, tuple(tail)

    async def fetch(self, fact: Fact, pending: Sequence[PathFacts]) -> None:
        if fact is Fact.REAL:
            if self._inline is not None:
                await self._fused(pending, self._inline)
            else:
                await self._resolve(pending)
        elif fact is Fact.MATCH:
            if not self._matched:
                await self._match(pending)
        elif fact is Fact.OPEN:
            await self._open(pending)

    async def _resolve(self, pending: Sequence[PathFacts]) -> None:
        todo = [f for f in pending if f.resolved is None]
        results = await self.backend.resolve(
            self.runtime.root, [f.request for f in todo], allow_outside=self.runtime.policy.allow_outside_root
        )
        for facts, resolved in zip(todo, results, strict=True):
            facts.resolved = resolved

    def _decider(self) -> Decider:
        """The ignore decision (and verified remedy) of one real relpath, for a worker thread
        (made once per policy and purpose: a policy does not change)."""
        policy, purpose = self.runtime.policy, self.ctx.purpose
        got = _DECIDER_OF.get((id(policy), purpose))
        if got is not None and got[0] is policy:
            return got[1]
        decider = ignore_decider(policy, purpose)
        if len(_DECIDER_OF) > 64:
            _DECIDER_OF.clear()
        _DECIDER_OF[id(policy), purpose] = (policy, decider)
        return decider

    async def _match(self, pending: Sequence[PathFacts]) -> None:
        keys: dict[str, tuple[bool, bool]] = {}
        for f in pending:
            r = f.resolved
            if r is not None and r.relpath is not None and r.relpath not in keys:
                keys[r.relpath] = (r.is_dir, self.runtime.pipeline.secrets.is_secret_facts(f, self.ctx.root))
        if not keys:
            return
        index = self.runtime.index
        decide = self._decider()

        def chunk(items: Sequence[tuple[str, tuple[bool, bool]]]) -> list[tuple[Match, Remedy | None]]:
            session = index.session()
            return [decide(session, relpath, is_dir, secret) for relpath, (is_dir, secret) in items]

        items = list(keys.items())
        results = await run_chunked(chunk, items, self.runtime.limiter.get())
        decided = {relpath: res for (relpath, _), res in zip(items, results, strict=True)}
        for f in pending:
            if f.relpath is not None:
                f.match, f.remedy = decided[f.relpath]

    async def _fused(self, pending: Sequence[PathFacts], inline: tuple[GateCheck, ...]) -> None:
        """``REAL`` + ``MATCH`` + ``OPEN`` (where the inline gates pass) in one hop per chunk.
        The facts belong to this call and the loop awaits the hop: the worker fills them in.
        With ``on_loop``, a bounded attempt on the loop first (:mod:`._inline`)."""
        runtime = self.runtime
        if self._on_loop and not self._on_loop_first(pending, inline):
            self._on_loop = False
        if not self._on_loop:
            chunk = self._fused_chunk(inline, anyio.from_thread.check_cancelled, None)
            await run_chunked(chunk, pending, runtime.limiter.reads())
            await anyio.lowlevel.checkpoint_if_cancelled()  # a hop may end after its call's cancel
        self._matched = True
        first: dict[str, Opened] = {}  # one descriptor read per real file, across chunks too
        cleared = len(inline)
        for f in pending:
            if f.opened is not None and f.resolved is not None and f.resolved.real is not None:
                got = first.setdefault(f.resolved.real, f.opened)
                if got is not f.opened:  # another chunk's read: its tail gates judged another
                    f.opened = got
                    f.cleared = min(f.cleared, cleared)

    def _on_loop_first(self, pending: Sequence[PathFacts], inline: tuple[GateCheck, ...]) -> bool:
        """The fused step on the event loop, bounded (``WouldBlock``: a file too large or not
        in the page cache); ``False`` when it gave up (the facts are reset)."""
        guard = self.runtime.inline_reads
        chunk = self._fused_chunk(inline, _no_cancel, guard.max_bytes)
        mark = guard.start()
        try:
            chunk(pending)
        except WouldBlock:
            for f in pending:
                f.resolved = f.match = f.remedy = f.opened = f.secret = None
                f.cleared = 0
            return False
        finally:
            guard.took(mark)
        # no checkpoint: a yield costs a whole event-loop iteration (as much as the read), and
        # a cancel lands at the call's next one, as for any await that did not block
        return True

    def _fused_chunk(self, inline: tuple[GateCheck, ...], cancelled: Callable[[], None],
                     on_loop: int | None) -> Callable[[Sequence[PathFacts]], list[None]]:
        """The blocking body of :meth:`_fused` for one chunk (a worker thread, or the loop
        with ``on_loop`` = the inline read bound in bytes)."""
        runtime, ctx = self.runtime, self.ctx
        backend = self.backend
        assert isinstance(backend, ThreadFS)  # one_hop is only set up on the thread backend
        root, ops, index = runtime.root, backend.ops, runtime.index
        allow_outside = runtime.policy.allow_outside_root
        is_secret = runtime.pipeline.secrets.is_secret_facts
        decide = self._decider()
        cleared = len(inline)
        inline_checks = _checks(inline)
        tail_checks = _checks(self._tail)
        size_limit = ctx.size_limit

        # a plain spelling is resolved through its parent's descriptor (``resolve_in``: the
        # real filesystem, a root other than "/"), and that descriptor opens it
        by_fd = type(ops) is OsFS and root != "/"
        croot = ctx.root

        def chunk(items: Sequence[PathFacts]) -> list[None]:
            memo: DirStatMemo | None = None  # made when a spelling needs resolve_flow
            matches: dict[str, tuple[Match, Remedy | None]] = {}
            opened: dict[str, Opened] = {}
            with DirFds(ops, root) as dirs:
                # ignore files lstat-ed relative to the directories this chunk opened anyway
                session = IgnoreSession(index, dir_fd=dirs.held)  # index.session(dirs.held)
                get_dir = dirs.get
                for k, f in enumerate(items):
                    if not k & 15:
                        cancelled()  # a cancelled call stops within 16 files
                    request = f.request
                    r = None
                    dir_fd = -1
                    if by_fd and request == f.name and request and len(request) <= PATH_MAX:
                        parent, _, name = request.rpartition("/")
                        try:
                            dir_fd = get_dir(parent)
                        except (OSError, ValueError):
                            dir_fd = -1
                        else:
                            r = resolve_in(root, request, dir_fd, name)
                    if r is None:
                        dir_fd = -1
                        if memo is None:
                            memo = DirStatMemo(ops)
                        r = drive_sync(resolve_flow(root, request, allow_outside=allow_outside), memo)
                    f.resolved = r
                    relpath = r.relpath
                    st = r.st
                    if relpath is not None:
                        got = matches.get(relpath)
                        if got is None:
                            is_dir = st is not None and S_ISDIR(st.st_mode)
                            got = matches[relpath] = decide(session, relpath, is_dir, is_secret(f, croot))
                        f.match, f.remedy = got
                    real = r.real
                    if real is None or st is None:
                        continue
                    if _tail_passed(inline_checks, f, ctx) < len(inline_checks):  # blocked, or must await
                        continue  # the pipeline runs the gates again on the loop
                    got_open = opened.get(real)
                    if got_open is None:
                        req = ReadRequest(real, size_limit, (st.st_dev, st.st_ino),
                                          root if relpath is not None else None)
                        if dir_fd >= 0:  # resolved through the parent's descriptor: opened from it
                            got_open = open_read_in(ops, req, dir_fd, name, inline=on_loop)
                        else:
                            got_open = open_read(ops, req, dirs, inline=on_loop)
                        opened[real] = got_open
                    f.opened = got_open
                    f.cleared = cleared + _tail_passed(tail_checks, f, ctx)  # the pipeline skips these
            return [None] * len(items)

        return chunk

    async def _open(self, pending: Sequence[PathFacts]) -> None:
        requests: dict[str, ReadRequest] = {}
        known: dict[str, Opened] = {}
        for f in pending:
            r = f.resolved
            if f.opened is not None:
                if r is not None and r.real is not None:
                    known.setdefault(r.real, f.opened)
            elif r is None or r.real is None or r.st is None:
                error = errno.ENOENT if r is None or r.error is None else r.error
                f.opened = Opened(error=error)
            elif r.real not in requests:
                root = self.runtime.root if r.relpath is not None else None
                requests[r.real] = ReadRequest(r.real, self.ctx.size_limit, r.identity, root)
        todo = [req for real, req in requests.items() if real not in known]
        if todo:
            results = await self.backend.open_read(todo)
            known.update((req.path, res) for req, res in zip(todo, results, strict=True))
        for f in pending:
            if f.opened is None and f.resolved is not None and f.resolved.real is not None:
                f.opened = known[f.resolved.real]


def _checks(gates: _Gates) -> tuple[_Check, ...]:
    """The bound ``check`` methods of ``gates`` (made once per gate tuple)."""
    got = _CHECKS_OF.get(id(gates))
    if got is not None and got[0] is gates:
        return got[1]
    checks = tuple(g.check for g in gates)
    if len(_CHECKS_OF) > 128:
        _CHECKS_OF.clear()
    _CHECKS_OF[id(gates)] = (gates, checks)
    return checks


def _tail_passed(tail: tuple[_Check, ...], facts: PathFacts, ctx: GateContext) -> int:
    """How many of the leading ``tail`` gates (their ``check`` methods) pass ``facts`` without
    awaiting (the first that blocks or must await stops the count; an awaitable it returned is
    closed unawaited: the pipeline runs that gate again on the loop)."""
    n = 0
    for check in tail:
        result = check(facts, ctx)
        if result is not None:
            close = getattr(result, "close", None)
            if close is not None and not isinstance(result, Verdict):
                close()
            break
        n += 1
    return n


def _no_cancel() -> None:
    """On the loop, cancellation is checked at the next checkpoint, not between files."""


