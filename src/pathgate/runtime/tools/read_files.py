"""``read_files``: every path through the gates, then content or a verdict.

One call:

1. validates its arguments (:class:`~pathgate.errors.ToolArgumentError` names the field);
2. runs the gate pipeline over the *distinct spellings*, with a :class:`ReadFacts` source
   that fetches each kind of fact for all pending paths at once: path resolution
   (``REAL``, batched through the fs backend), ignore decisions (``MATCH``, one engine session
   per worker-thread chunk, remedies verified in the same hop) and descriptor reads
   (``OPEN``, one per distinct real file: ``a``, ``./a`` and ``d/../a`` are read once);
3. for a line window (``offset``/``limit``) of a file over the size limit, streams just that
   window from a descriptor (:mod:`pathgate.runtime.tools._window`), so the size verdict's
   hint ("read a line window") works;
4. assembles one :class:`~pathgate.FileResult` per requested path, in request order, applying
   the optional line window and then the call's output budget in that order; where the
   budget cuts, the result keeps what fit and carries a ``[FILE_TOO_LARGE]`` notice
   (``gate="size"``, ``detail="budget"``, ``size``/``limit`` in characters). A file is
   given and charged once per call: a later spelling of the same real file (``a`` again,
   ``./a``, ``d/../a``) gets ``same_as`` (the first spelling) and no content.

Lines are ``\n``-separated everywhere (``total_lines``, windows), as ``sed``/``grep`` count
them; ``\r\n`` is returned as is.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from stat import S_ISDIR
from typing import TYPE_CHECKING, Any

import anyio.from_thread
import anyio.lowlevel

from pathgate.errors import ToolArgumentError
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
from pathgate.runtime.gates import Fact, GateCheck, GateContext, PathFacts, lexical_name
from pathgate.runtime.gates.existence import ExistenceGate
from pathgate.runtime.gates.ignore import IgnoreGate
from pathgate.runtime.gates.path import PathGate
from pathgate.runtime.gates.read import ReadGate
from pathgate.runtime.gates.secrets import LinkedSecretGate, SecretsGate
from pathgate.runtime.gates.size import SizeGate
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.runtime.tools._window import MAX_SCAN, Window, read_window
from pathgate.verdicts import FileResult, Gate, Remedy, Status, Verdict

if TYPE_CHECKING:
    from pathgate.config import Policy
    from pathgate.runtime._runtime import Runtime

__all__ = ["ReadFacts", "apply_window", "count_lines", "read_files"]


#: ``Verdict.detail`` of the notice on a result the output budget cut.
BUDGET_DETAIL = "budget"
#: ``Verdict.detail`` of a window that starts beyond :data:`MAX_SCAN` bytes of an oversize file.
WINDOW_SCAN_DETAIL = "window"


def _check_int(value: Any, field: str, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolArgumentError(f"read_files: `{field}` must be an integer", field=field)
    if value < minimum:
        raise ToolArgumentError(f"read_files: `{field}` must be >= {minimum}", field=field)
    return value


def _check_paths(paths: Any) -> list[str]:
    if type(paths) is list and all(type(p) is str for p in paths):
        return list(paths)  # the common case, without the ABC check and a call per path
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise ToolArgumentError("read_files: `paths` must be a list of strings", field="paths")
    for i, p in enumerate(paths):
        if not isinstance(p, str):
            raise ToolArgumentError(f"read_files: `paths[{i}]` must be a string", field=f"paths[{i}]")
    return list(paths)


def count_lines(text: str) -> int:
    """Lines as ``sed``/``grep -n`` count them: ``\n``-separated only (a form feed, ``\x85``
    or U+2028 is an ordinary character), a last line without ``\n`` included; equal to
    ``wc -l`` for a file that ends with a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def apply_window(text: str, offset: int | None, limit: int | None) -> tuple[str, int]:
    """Lines ``offset`` (1-based) .. ``offset + limit - 1`` of ``text`` (``sed -n
    'offset,+(limit-1)p'``: ``\n``-separated, ``\r\n`` kept as is), and the line count."""
    total = count_lines(text)
    if offset is None and limit is None:
        return text, total
    start = (offset or 1) - 1
    begin = 0
    for _ in range(start):
        nl = text.find("\n", begin)
        if nl < 0:
            return "", total
        begin = nl + 1
    if limit is None:
        return text[begin:], total
    end = begin
    for _ in range(limit):
        nl = text.find("\n", end)
        if nl < 0:
            return text[begin:], total
        end = nl + 1
    return text[begin:end], total


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


async def read_files(
    runtime: Runtime,
    paths: Sequence[str],
    *,
    offset: int | None = None,
    limit: int | None = None,
    budget: int | None = None,
    model: str | None = None,
    agent: str | None = None,
) -> list[FileResult]:
    """Read ``paths`` through the gates; see :meth:`pathgate.Runtime.read_files`."""
    requested = _check_paths(paths)
    if offset is not None:
        offset = _check_int(offset, "offset", 1)
    if limit is not None:
        limit = _check_int(limit, "limit", 0)
    if budget is not None:
        budget = _check_int(budget, "budget", 1)
    if model is not None and not isinstance(model, str):
        raise ToolArgumentError("read_files: `model` must be a string", field="model")
    if not requested:
        return []
    policy = runtime.policy
    ctx = _read_context(policy, runtime.root, model)

    spellings = list(dict.fromkeys(requested))
    facts = [PathFacts(request=s, name=lexical_name(s, runtime.root)) for s in spellings]
    on_loop = len(facts) == 1 and _may_run_on_loop(runtime, facts[0])
    source = ReadFacts(runtime, runtime.backends.pick(policy.fs_backend), ctx, one_hop=True, on_loop=on_loop)
    verdicts = await runtime.pipeline.run(facts, ctx, source)
    if runtime.allow_writes and limit != 0:  # what this agent saw, for the no-lost-update check
        runtime.versions.record_reads(agent, facts, verdicts)
    call_budget = budget if budget is not None else policy.read_budget
    windows: dict[int, Window] = {}
    if offset is not None or limit is not None:
        windows = await _oversize_windows(runtime, facts, verdicts, offset or 1, limit, call_budget,
                                          ctx.size_limit)
    # without a repeated spelling, a request's position is its spelling's
    by_spelling = {s: i for i, s in enumerate(spellings)} if len(spellings) != len(requested) else None
    return _assemble(requested, by_spelling, facts, verdicts, windows, offset, limit, call_budget)


#: (id(policy), root, model) -> (the policy, the read context): a ``GateContext`` is frozen and
#: holds only these, so calls may share it; keeping the policy makes the id safe.
_CTX_OF: dict[tuple[int, str, str | None], tuple[object, GateContext]] = {}


def _read_context(policy: Policy, root: str, model: str | None) -> GateContext:
    """The ``GateContext`` of a read by ``model`` (built once per policy, root and model)."""
    key = (id(policy), root, model)
    got = _CTX_OF.get(key)
    if got is not None and got[0] is policy:
        return got[1]
    ctx = GateContext(policy=policy, purpose="read", model=model, size_limit=policy.size_limit_for(model),
                      root=root)
    if len(_CTX_OF) > 256:
        _CTX_OF.clear()
    _CTX_OF[key] = (policy, ctx)
    return ctx


def _may_run_on_loop(runtime: Runtime, facts: PathFacts) -> bool:
    """A one-file call may try the loop (runtime/tools/_inline.py): a plain spelling whose
    directory the ignore index holds, on a runtime whose guard allows it."""
    name = facts.name
    if not name or name != facts.request or not runtime.inline_reads.allowed():
        return False
    return runtime.index.is_warm(name.rpartition("/")[0])


def _assemble(
    requested: Sequence[str],
    by_spelling: dict[str, int] | None,
    facts: Sequence[PathFacts],
    verdicts: Sequence[Verdict | None],
    windows: dict[int, Window],
    offset: int | None,
    limit: int | None,
    call_budget: int,
) -> list[FileResult]:
    """One result per requested path, in request order; each real file's content is given
    (and charged to the budget) once, at its first spelling; later ones refer to it.
    ``by_spelling``: each spelling's index in ``facts`` (``None``: the request's own order)."""
    remaining = call_budget
    first_of: dict[str, str] = {}
    results: list[FileResult] = []
    whole = offset is None and limit is None
    for k, path in enumerate(requested):
        i = k if by_spelling is None else by_spelling[path]
        f, verdict = facts[i], verdicts[i]
        relpath = f.shown_relpath
        text: str | None = None
        total: int | None = None
        if verdict is not None and i in windows:
            verdict, text, total = _window_outcome(windows[i], verdict)
        if verdict is not None:
            inside = None if verdict.opaque or f.relpath is None else relpath
            results.append(FileResult(path=path, verdict=verdict, relpath=inside))
            continue
        key = f.resolved.real if f.resolved is not None and f.resolved.real is not None else path
        if key in first_of:
            results.append(FileResult(path=path, relpath=relpath, same_as=first_of[key]))
            continue
        first_of[key] = path
        if text is None:
            assert f.opened is not None and f.opened.text is not None
            if whole:  # no window: the whole text and its line count (``count_lines``)
                text = f.opened.text
                total = text.count("\n") + (1 if text and text[-1] != "\n" else 0)
            else:
                text, total = apply_window(f.opened.text, offset, limit)
        if len(text) <= remaining:
            remaining -= len(text)
            results.append(FileResult(path=path, content=text, relpath=relpath, total_lines=total))
            continue
        results.append(_cut(path, relpath, text, remaining, total, call_budget))
        remaining = 0
    return results


def _cut(path: str, relpath: str | None, text: str, remaining: int, total: int | None,
         call_budget: int) -> FileResult:
    """The part of ``text`` that fits (cut at a line end), with the budget notice."""
    cut = text[:remaining]
    newline = cut.rfind("\n")
    if newline >= 0:
        cut = cut[: newline + 1]
    notice = Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, exists=True, size=len(text),
                     limit=call_budget, detail=BUDGET_DETAIL)
    return FileResult(path=path, content=cut, verdict=notice, relpath=relpath, truncated=True,
                      total_lines=total)


async def _oversize_windows(
    runtime: Runtime,
    facts: Sequence[PathFacts],
    verdicts: Sequence[Verdict | None],
    offset: int,
    limit: int | None,
    call_budget: int,
    size_limit: int,
) -> dict[int, Window]:
    """Stream the requested window of each file the size gate refused (one read per real
    file; output bounded by the call budget, never the whole file in memory)."""
    todo: dict[str, tuple[list[int], ReadRequest]] = {}
    for i, (f, v) in enumerate(zip(facts, verdicts, strict=True)):
        r = f.resolved
        if v is None or v.gate is not Gate.SIZE or v.status is not Status.FILE_TOO_LARGE:
            continue
        if r is None or r.real is None:
            continue
        root = runtime.root if r.relpath is not None else None
        entry = todo.setdefault(r.real, ([], ReadRequest(r.real, 0, r.identity, root)))
        entry[0].append(i)
    if not todo:
        return {}
    ops = runtime.backends.ops
    max_out = min(size_limit, 4 * call_budget + 4)

    def chunk(reqs: Sequence[ReadRequest]) -> list[Window]:
        return [read_window(ops, req, offset, limit, max_out) for req in reqs]

    items = list(todo.values())
    found = await run_chunked(chunk, [req for _, req in items], runtime.limiter.get())
    return {i: w for (idx, _), w in zip(items, found, strict=True) for i in idx}


def _window_outcome(window: Window, refused: Verdict) -> tuple[Verdict | None, str | None, int | None]:
    """A streamed window as (verdict, text, total_lines)."""
    if window.text is not None:
        return None, window.text, window.total_lines
    if window.binary:
        return Verdict(status=Status.BINARY_FILE, gate=Gate.READ, exists=True, size=refused.size), None, None
    if window.changed:
        return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail="CHANGED"), None, None
    if window.error is not None:
        name = errno.errorcode.get(window.error, str(window.error))
        return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail=name), None, None
    detail = WINDOW_SCAN_DETAIL if window.scan_capped else refused.detail
    return Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, exists=True, size=refused.size,
                   limit=MAX_SCAN if window.scan_capped else refused.limit, detail=detail), None, None
