"""``read_files``' fact source: resolution, ignore decisions and descriptor reads, fetched in
one worker-thread hop per chunk of paths (or on the event loop for one small file).

:class:`ReadFacts` is what :meth:`GatePipeline.run <pathgate.runtime.gates.GatePipeline.run>`
asks for the facts of ``read_files`` (and of the runtime's ``read_verdicts``/``check_paths``
and the write tools' checks): ``REAL``, ``MATCH`` and ``OPEN`` for the pending paths. On the
thread backend, with the built-in gates, fetching ``REAL`` does all three in one hop
(:meth:`ReadFacts._fused`): each path is resolved, matched and -- when every gate before the
first ``OPEN`` gate lets it through -- opened and read through its parent's descriptor, and
the built-in gates on the open descriptor run right after the read; the pipeline skips the
gates the worker saw pass (``PathFacts.cleared``) and alone decides the rest. A worker's chunk
with the built-in gates alone on the real filesystem is :mod:`._read_batch`'s loop (the same
steps written out, no frame per file).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Sequence
from stat import S_ISDIR, S_ISREG
from time import time_ns
from typing import TYPE_CHECKING

import anyio.from_thread
import anyio.lowlevel

from pathgate.runtime._remedy import Decider, ignore_decider
from pathgate.runtime.fs import (
    OPEN_FLAGS,
    PATH_MAX,
    RELINK_MARGIN_NS,
    AsyncFS,
    DirFds,
    DirStatMemo,
    Opened,
    OsFS,
    ReadRequest,
    Resolved,
    ThreadFS,
    WouldBlock,
    drive_sync,
    is_local_tree,
    open_read,
    open_read_in,
    read_fstated,
    resolve_flow,
    resolve_in,
    run_chunked,
    seen_links,
)
from pathgate.runtime.gates import Fact, GateCheck, GateContext, PathFacts
from pathgate.runtime.gates.existence import ExistenceGate
from pathgate.runtime.gates.ignore import IgnoreGate
from pathgate.runtime.gates.path import PathGate, is_git_internal
from pathgate.runtime.gates.read import ReadGate
from pathgate.runtime.gates.secrets import LinkedSecretGate, SecretsGate
from pathgate.runtime.gates.size import SizeGate
from pathgate.runtime.ignore import DirNode, IgnoreSession, Match
from pathgate.runtime.tools._read_batch import batch_chunk
from pathgate.runtime.tools._read_checks import (
    _checks,
    _ChunkState,
    _discard,
    _Gates,
    _KnownGates,
    _no_cancel,
    _passes_before_open,
    _tail_passed,
)
from pathgate.verdicts import Remedy

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["ReadFacts"]


#: Paths of a batch read in one worker-thread hop on a local tree (more: hops of at least
#: this many, side by side under the reads pool).
ONE_HOP_LOCAL = 4096
#: Built-in gates that are sync, pure functions of the facts: the one-hop read may run them in
#: its worker thread to decide whether to open a file ahead of the pipeline.
_INLINE_GATES: tuple[type, ...] = (PathGate, SecretsGate, IgnoreGate)
#: Built-in gates on the open descriptor that the one-hop read runs in its worker too, right
#: after the read, on the same facts (the pipeline does not run again those that passed): pure
#: functions of the facts, except a multi-linked file's secret-inode check, which must await
#: (the worker then stops and leaves it and the gates after it to the pipeline).
_TAIL_GATES: tuple[type, ...] = (LinkedSecretGate, ExistenceGate, SizeGate, ReadGate)
#: id(gate tuple) -> (the tuple, its inline gates, the tail gates after them): keeping the
#: tuple makes the id safe.
_INLINE_OF: dict[int, tuple[_Gates, _Gates | None, _Gates]] = {}
#: (id(policy), purpose) -> (the policy, its ignore decider): keeping the policy makes the id safe.
_DECIDER_OF: dict[tuple[int, str, bool], tuple[object, Decider]] = {}
#: A runtime's chunk functions (``runtime._read_chunks``): (ids of the read context, backend,
#: inline and tail gate tuples, the path gate's ``git_dirs``, ``on_loop``, the cancel check) ->
#: (those objects, the chunk function made for them): keeping the objects makes the ids safe.
_Chunks = dict[tuple[object, ...], tuple[tuple[object, ...], Callable[[Sequence[PathFacts]], list[None]]]]


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
                 one_hop: bool = False, on_loop: bool = False, fused: bool = False) -> None:
        """``fused``: the caller already ran this source's fused step (:meth:`loop_chunk`) on
        the pending paths: fetching ``REAL`` and ``MATCH`` finds them there."""
        self.runtime = runtime
        self.backend = backend
        self.ctx = ctx
        self._inline: _Gates | None = None
        self._tail: _Gates = ()
        if one_hop and isinstance(backend, ThreadFS):
            self._inline, self._tail = self._inline_gates()
        self._on_loop = on_loop  # try the fused step on the event loop first (runtime/tools/_inline.py)
        self._matched = self._fused_done = fused

    def loop_chunk(self) -> Callable[[Sequence[PathFacts]], list[None]] | None:
        """The fused step on the event loop (``one_hop``; the inline bound is the runtime's
        ``inline_reads.max_bytes``) when the gates are the built-in ones alone
        (:class:`_KnownGates`), else ``None``: ``read_files`` runs it on one file itself, ahead
        of the pipeline, as :meth:`_on_loop_first` would (``WouldBlock``: the facts must be
        reset and the read hops)."""
        inline = self._inline
        if inline is None or _KnownGates.of(inline, self._tail) is None:
            return None
        return self._fused_chunk(inline, _no_cancel, self.runtime.inline_reads.max_bytes)

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
            if self._fused_done:
                return  # fetched by the caller's own fused step (``loop_chunk``)
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

    def _decider(self, on_loop: bool = False) -> Decider:
        """The ignore decision (and verified remedy) of one real relpath, for a worker thread
        (made once per policy and purpose: a policy does not change); ``on_loop``: one that
        raises ``WouldBlock`` where a remedy would be searched (unbounded work: the read
        hops to a worker thread)."""
        policy, purpose = self.runtime.policy, self.ctx.purpose
        got = _DECIDER_OF.get((id(policy), purpose, on_loop))
        if got is not None and got[0] is policy:
            return got[1]
        decider = ignore_decider(policy, purpose, on_loop=on_loop)
        if len(_DECIDER_OF) > 64:
            _DECIDER_OF.clear()
        _DECIDER_OF[id(policy), purpose, on_loop] = (policy, decider)
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
            # one hop on a local tree: its reads seldom wait, so hops side by side would only
            # take turns with the interpreter lock (a hand-over per system call)
            reads = runtime.limiter.reads()
            if _is_local(runtime):
                chunks = await run_chunked(chunk, pending, reads, min_chunk=ONE_HOP_LOCAL)
            else:
                chunks = await run_chunked(chunk, pending, reads)
            await anyio.lowlevel.checkpoint_if_cancelled()  # a hop may end after its call's cancel
            if len(chunks) > 1:
                self._one_read_per_file(pending, len(inline))
        self._matched = True

    @staticmethod
    def _one_read_per_file(pending: Sequence[PathFacts], cleared: int) -> None:
        """After more than one chunk: each real file keeps one descriptor read (a chunk
        reads each real file once; two chunks may each have read it)."""
        first: dict[str, Opened] = {}
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
        with ``on_loop`` = the inline read bound in bytes).

        A plain spelling (its own lexical normalisation) on the real filesystem takes the
        direct route (:meth:`_plain_route`): its parent is opened through the chunk's
        :class:`DirFds` and validated by the ignore session once per run of spellings in one
        directory; then the file is decided as a non-directory, judged by the gates before the
        first ``OPEN`` gate, and only then opened from the parent's descriptor (``O_NOFOLLOW``:
        no symlink is followed) and ``fstat``-ed -- the descriptor's ``fstat`` is its
        resolution (a regular file, not a symlink, found under that very name). Anything else
        (a symlink, a directory, a missing name, a path a gate blocks) takes the general
        route (:meth:`_general_route`), as if the direct one had not been tried.

        Made once per runtime, read context, backend, gates and ``on_loop`` (what it holds
        does not change after the runtime's construction; nothing of a call's own)."""
        runtime, ctx, backend, tail = self.runtime, self.ctx, self.backend, self._tail
        git_dirs = getattr(inline[0], "git_dirs", None) if inline else None
        made: _Chunks | None = getattr(runtime, "_read_chunks", None)  # kept by the runtime itself
        if made is None:
            made = {}
            runtime._read_chunks = made  # type: ignore[attr-defined]
        key = (id(ctx), id(backend), id(inline), id(tail), id(git_dirs), on_loop, cancelled)
        got = made.get(key)
        if got is not None and got[0] == (ctx, backend, inline, tail, git_dirs):
            return got[1]
        if len(made) > 64:
            made.clear()
        chunk = self._make_chunk(inline, cancelled, on_loop)
        made[key] = ((ctx, backend, inline, tail, git_dirs), chunk)
        return chunk

    def _make_chunk(self, inline: tuple[GateCheck, ...], cancelled: Callable[[], None],
                    on_loop: int | None) -> Callable[[Sequence[PathFacts]], list[None]]:
        """:meth:`_fused_chunk`, made."""
        runtime = self.runtime
        backend = self.backend
        assert isinstance(backend, ThreadFS)  # one_hop is only set up on the thread backend
        root, ops, index = runtime.root, backend.ops, runtime.index
        # a plain spelling is resolved through its parent's descriptor (the real filesystem, a
        # root other than "/"), and that descriptor opens it
        by_fd = type(ops) is OsFS and root != "/"
        general = self._general_route(inline, on_loop)
        local = is_local_tree(root)  # (once per made chunk: per runtime and gates)
        known = _KnownGates.of(inline, self._tail)
        if on_loop is None and by_fd and known is not None:  # a worker's batch: the direct route inline
            return batch_chunk(root=root, ops=ops, index=index, ctx=self.ctx, known=known, cleared=len(inline),
                               tail_checks=_checks(self._tail), is_secret=runtime.pipeline.secrets.is_secret_facts,
                               general=general, cancelled=cancelled, relink_local=local,
                               short_is_end=_local_tree(runtime))
        plain = self._plain_route(inline, on_loop)

        def chunk(items: Sequence[PathFacts]) -> list[None]:
            state = _ChunkState(time_ns() - RELINK_MARGIN_NS if local else 0)
            with DirFds(ops, root) as dirs:
                # ignore files lstat-ed relative to the directories this chunk opened anyway
                session = IgnoreSession(index, dir_fd=dirs.held)  # index.session(dirs.held)
                held_dir = session.held_dir
                last: str | None = None  # the parent of the last plain spelling, its fd and node
                dir_fd = -1
                node: DirNode | None = None
                for k, f in enumerate(items):
                    if not k & 15:
                        cancelled()  # a cancelled call stops within 16 files
                    request = f.request
                    if by_fd and request == f.name and request and len(request) <= PATH_MAX:
                        parent, _, name = request.rpartition("/")
                        if parent != last:
                            last = parent
                            # ``dirs.trim()`` (no descriptor of ``dirs`` is held here), ``dirs.get``
                            # and ``session.dir_node`` in one walk
                            dir_fd, node = held_dir(parent, dirs)
                        if node is not None and plain(f, name, dir_fd, node, session, state):
                            continue
                        general(f, session, dirs, state, dir_fd, name)
                    else:
                        if dirs.trim():  # descriptors bounded for any spelling (between directories)
                            last = None  # the direct route's parent was closed: opened again when needed
                        general(f, session, dirs, state, -1, "")
            return [None]  # one per chunk: ``_fused`` counts the chunks

        return chunk

    def _plain_route(self, inline: tuple[GateCheck, ...], on_loop: int | None
                     ) -> Callable[[PathFacts, str, int, DirNode, IgnoreSession, _ChunkState], bool]:
        """The direct route of a plain spelling ``f.request`` = ``name`` in the directory
        open as ``dir_fd`` whose validated ignore node is ``node``: ``True`` when it filled in
        every fact, ``False`` (the facts left as they were) when the general route must. The
        gates are asked as :class:`_KnownGates` says, or run before the open and after it."""
        runtime, ctx = self.runtime, self.ctx
        root = runtime.root
        is_secret = runtime.pipeline.secrets.is_secret_facts
        croot = ctx.root
        cleared = len(inline)
        inline_checks = _checks(inline)
        tail_checks = _checks(self._tail)
        everything = cleared + len(tail_checks)
        known = _KnownGates.of(inline, self._tail)
        git_dirs = known.git_dirs if known is not None else ()
        linked = known.linked if known is not None else None
        size_limit = ctx.size_limit
        prefix = root + "/"
        no_fd = -1
        local = _local_tree(runtime)  # a short read is the end of the file (``read_fstated``)

        def plain(f: PathFacts, name: str, dir_fd: int, node: DirNode, session: IgnoreSession,
                  state: _ChunkState) -> bool:
            request = f.request
            match = node.stop
            if match is None:
                try:
                    match = session.decide_entry(node, request, name, False)
                except ValueError:  # an unencodable name: the general route says what it is
                    return False
            if match.ignored:
                return False  # blocked (or a directory's rule): the general route, with its remedy
            secret = f.plain_secret
            if secret is None:
                secret = is_secret(f, croot)
            if secret:
                return False
            real = prefix + request
            if known is None:  # other gates: run on the facts before the open
                if not _passes_before_open(f, real, match, inline_checks, ctx):
                    return False
            elif is_git_internal(request, git_dirs):
                return False
            fd = no_fd
            try:
                fd = os.open(name, OPEN_FLAGS, dir_fd=dir_fd)
                st = os.fstat(fd)
                if st.st_nlink == 1 and st.st_ctime_ns >= state.relink_since:
                    st = seen_links(st, name, dir_fd)  # an alias renamed away since the open
                if S_ISDIR(st.st_mode) or not st.st_nlink:  # a directory, or unlinked since the open:
                    return False  # the general route decides it
                opened = read_fstated(fd, st, size_limit, on_loop, local) if S_ISREG(st.st_mode) else Opened(st=st)
            except OSError:  # a symlink (ELOOP), missing, unreadable: the general route's answer
                return False
            finally:
                if fd >= 0:
                    os.close(fd)
            f.resolved = Resolved(request, real, request, st=st)
            f.match = match
            f.secret = secret  # what ``is_secret_facts`` keeps once the real path is known
            f.opened = state.opened[real] = opened
            if known is not None and opened.text is not None and st.st_nlink == 1:
                if linked is None:
                    f.cleared = everything
                    return True
                verdict = linked(f, ctx)  # (one gate, without a helper frame)
                if verdict is None:
                    f.cleared = everything
                    return True
                _discard(verdict)
            f.cleared = cleared + _tail_passed(tail_checks, f, ctx)  # the pipeline skips these
            return True

        return plain

    def _general_route(self, inline: tuple[GateCheck, ...], on_loop: int | None
                       ) -> Callable[[PathFacts, IgnoreSession, DirFds, _ChunkState, int, str], None]:
        """Every fact of one spelling the general way: resolved through its parent's
        descriptor when it is plain and that opened (``dir_fd`` >= 0; ``name`` its last
        component: ``resolve_in``), else component by component (``resolve_flow``); decided
        on the real relpath (with a verified remedy); judged by the gates before the first
        ``OPEN`` gate, then opened and read (once per real file per chunk) and judged by the
        tail gates."""
        runtime, ctx = self.runtime, self.ctx
        backend = self.backend
        assert isinstance(backend, ThreadFS)
        root, ops = runtime.root, backend.ops
        allow_outside = runtime.policy.allow_outside_root
        is_secret = runtime.pipeline.secrets.is_secret_facts
        decide = self._decider(on_loop is not None)
        cleared = len(inline)
        inline_checks = _checks(inline)
        tail_checks = _checks(self._tail)
        size_limit = ctx.size_limit
        croot = ctx.root

        def general(f: PathFacts, session: IgnoreSession, dirs: DirFds, state: _ChunkState, dir_fd: int,
                    name: str) -> None:
            request = f.request
            r = resolve_in(root, request, dir_fd, name) if dir_fd >= 0 else None
            if r is None:
                dir_fd = -1
                if state.memo is None:
                    state.memo = DirStatMemo(ops)
                r = drive_sync(resolve_flow(root, request, allow_outside=allow_outside), state.memo)
            f.resolved = r
            relpath = r.relpath
            st = r.st
            if relpath is not None:
                got = state.matches.get(relpath)
                if got is None:
                    is_dir = st is not None and S_ISDIR(st.st_mode)
                    got = state.matches[relpath] = decide(session, relpath, is_dir, is_secret(f, croot))
                f.match, f.remedy = got
            real = r.real
            if real is None or st is None:
                return
            if _tail_passed(inline_checks, f, ctx) < cleared:  # blocked, or must await
                return  # the pipeline runs the gates again on the loop
            got_open = state.opened.get(real)
            if got_open is None:
                req = ReadRequest(real, size_limit, (st.st_dev, st.st_ino), root if relpath is not None else None)
                if dir_fd >= 0:  # resolved through the parent's descriptor: opened from it
                    got_open = open_read_in(ops, req, dir_fd, name, inline=on_loop)
                else:
                    got_open = open_read(ops, req, dirs, inline=on_loop)
                state.opened[real] = got_open
            f.opened = got_open
            f.cleared = cleared + _tail_passed(tail_checks, f, ctx)  # the pipeline skips these

        return general

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


def _is_local(runtime: Runtime) -> bool:
    """Is the runtime's tree on a local filesystem (:func:`~pathgate.runtime.fs.is_local_tree`,
    decided once per runtime; a filesystem seam is not)?"""
    local: bool | None = getattr(runtime, "_read_local", None)
    if local is None:
        local = runtime._read_local = type(runtime.backends.ops) is OsFS and is_local_tree(runtime.root)  # type: ignore[attr-defined]
    return local


def _local_tree(runtime: Runtime) -> bool:
    """Is the runtime's tree local (:func:`~pathgate.runtime.fs.is_local_tree`)? Taken from
    ``InlineReads`` once it decided (``False`` there also when inline reads are off), else
    decided here."""
    local = runtime.inline_reads.enabled
    return is_local_tree(runtime.root) if local is None else local
