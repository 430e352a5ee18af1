"""``read_files``: every path through the gates, then content or a verdict.

One call:

1. validates its arguments (:class:`~pathgate.errors.ToolArgumentError` names the field);
2. runs the gate pipeline over the *distinct spellings*, with a :class:`ReadFacts` source
   that fetches each kind of fact for all pending paths at once: path resolution
   (``REAL``, batched through the fs backend), ignore decisions (``MATCH``, one engine session
   per worker-thread chunk, remedies verified in the same hop) and descriptor reads
   (``OPEN``, one per distinct real file: ``a``, ``./a`` and ``d/../a`` are read once);
3. assembles one :class:`~pathgate.FileResult` per requested path, in request order, applying
   the optional line window and then the call's output budget in that order; where the
   budget cuts, the result keeps what fit and carries a ``[FILE_TOO_LARGE]`` notice
   (``gate="size"``, ``detail="budget"``, ``size``/``limit`` in characters).
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pathgate.errors import ToolArgumentError
from pathgate.runtime._remedy import suggest_remedy
from pathgate.runtime.fs import (
    AsyncFS,
    Opened,
    ReadRequest,
    run_chunked,
)
from pathgate.runtime.gates import Fact, GateContext, PathFacts, lexical_name
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.verdicts import FileResult, Gate, Remedy, Status, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["ReadFacts", "apply_window", "read_files"]

log = logging.getLogger("pathgate")

#: ``Verdict.detail`` of the notice on a result the output budget cut.
BUDGET_DETAIL = "budget"


def _check_int(value: Any, field: str, minimum: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolArgumentError(f"read_files: `{field}` must be an integer", field=field)
    if value < minimum:
        raise ToolArgumentError(f"read_files: `{field}` must be >= {minimum}", field=field)
    return value


def _check_paths(paths: Any) -> list[str]:
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise ToolArgumentError("read_files: `paths` must be a list of strings", field="paths")
    for i, p in enumerate(paths):
        if not isinstance(p, str):
            raise ToolArgumentError(f"read_files: `paths[{i}]` must be a string", field=f"paths[{i}]")
    return list(paths)


def apply_window(text: str, offset: int | None, limit: int | None) -> tuple[str, int]:
    """Lines ``offset`` (1-based) .. ``offset + limit - 1`` of ``text``, and the line count."""
    lines = text.splitlines(keepends=True)
    if offset is None and limit is None:
        return text, len(lines)
    start = (offset or 1) - 1
    end = len(lines) if limit is None else start + limit
    return "".join(lines[start:end]), len(lines)


class ReadFacts:
    """The fact source of one ``read_files`` call (per-call caches; never shared)."""

    def __init__(self, runtime: Runtime, backend: AsyncFS, ctx: GateContext) -> None:
        self.runtime = runtime
        self.backend = backend
        self.ctx = ctx

    async def fetch(self, fact: Fact, pending: Sequence[PathFacts]) -> None:
        if fact is Fact.REAL:
            await self._resolve(pending)
        elif fact is Fact.MATCH:
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

    async def _match(self, pending: Sequence[PathFacts]) -> None:
        keys: dict[str, tuple[bool, bool]] = {}
        for f in pending:
            r = f.resolved
            if r is not None and r.relpath is not None and r.relpath not in keys:
                keys[r.relpath] = (r.is_dir, self.runtime.pipeline.secrets.is_secret_facts(f))
        if not keys:
            return
        index = self.runtime.index
        agent_files = self.runtime.policy.all_agent_files
        want_remedy = self.runtime.policy.ignore_mode == "block" and bool(agent_files)
        agent_file = agent_files[0] if agent_files else ""

        def chunk(items: Sequence[tuple[str, tuple[bool, bool]]]) -> list[tuple[Match, Remedy | None]]:
            session = index.session()
            out: list[tuple[Match, Remedy | None]] = []
            for relpath, (is_dir, secret) in items:
                match = session.match(relpath, is_dir)
                remedy = None
                if want_remedy and match.ignored and not match.fail_closed and not secret:
                    remedy = _remedy(session, relpath, match, agent_file, is_dir)
                out.append((match, remedy))
            return out

        items = list(keys.items())
        results = await run_chunked(chunk, items, self.runtime.limiter.get())
        decided = {relpath: res for (relpath, _), res in zip(items, results, strict=True)}
        for f in pending:
            if f.relpath is not None:
                f.match, f.remedy = decided[f.relpath]

    async def _open(self, pending: Sequence[PathFacts]) -> None:
        requests: dict[str, ReadRequest] = {}
        for f in pending:
            r = f.resolved
            if r is None or r.real is None or r.st is None:
                error = errno.ENOENT if r is None or r.error is None else r.error
                f.opened = Opened(error=error)
            elif r.real not in requests:
                root = self.runtime.root if r.relpath is not None else None
                requests[r.real] = ReadRequest(r.real, self.ctx.size_limit, r.identity, root)
        if not requests:
            return
        results = await self.backend.open_read(list(requests.values()))
        opened = dict(zip(requests, results, strict=True))
        for f in pending:
            if f.opened is None and f.resolved is not None and f.resolved.real is not None:
                f.opened = opened[f.resolved.real]


def _remedy(
    session: IgnoreSession, relpath: str, match: Match, agent_file: str, is_dir: bool
) -> Remedy | None:
    """Integration point with the renderers' remedy module: a bug there never fails a read."""
    try:
        return suggest_remedy(session, relpath, match, agent_file, is_dir=is_dir)
    except Exception:
        log.warning("pathgate: suggest_remedy failed for an ignored path", exc_info=True)
        return None


async def read_files(
    runtime: Runtime,
    paths: Sequence[str],
    *,
    offset: int | None = None,
    limit: int | None = None,
    budget: int | None = None,
    model: str | None = None,
) -> list[FileResult]:
    """Read ``paths`` through the gates; see :meth:`pathgate.Runtime.read_files`."""
    requested = _check_paths(paths)
    offset = _check_int(offset, "offset", 1)
    limit = _check_int(limit, "limit", 0)
    budget = _check_int(budget, "budget", 1)
    if model is not None and not isinstance(model, str):
        raise ToolArgumentError("read_files: `model` must be a string", field="model")
    if not requested:
        return []
    policy = runtime.policy
    ctx = GateContext(policy=policy, purpose="read", model=model, size_limit=policy.size_limit_for(model))

    spellings = list(dict.fromkeys(requested))
    facts = [PathFacts(request=s, name=lexical_name(s, runtime.root)) for s in spellings]
    source = ReadFacts(runtime, runtime.backends.pick(policy.fs_backend), ctx)
    verdicts = await runtime.pipeline.run(facts, ctx, source)
    by_spelling = dict(zip(spellings, zip(facts, verdicts, strict=True), strict=True))

    remaining = budget if budget is not None else policy.read_budget
    call_budget = remaining
    results: list[FileResult] = []
    for path in requested:
        f, verdict = by_spelling[path]
        relpath = _shown_relpath(f)
        if verdict is not None:
            inside = None if verdict.opaque or f.relpath is None else relpath
            results.append(FileResult(path=path, verdict=verdict, relpath=inside))
            continue
        assert f.opened is not None and f.opened.text is not None
        text, total = apply_window(f.opened.text, offset, limit)
        if len(text) <= remaining:
            remaining -= len(text)
            results.append(FileResult(path=path, content=text, relpath=relpath, total_lines=total))
            continue
        cut = text[:remaining]
        newline = cut.rfind("\n")
        if newline >= 0:
            cut = cut[: newline + 1]
        remaining = 0
        notice = Verdict(
            status=Status.FILE_TOO_LARGE,
            gate=Gate.SIZE,
            exists=True,
            size=len(text),
            limit=call_budget,
            detail=BUDGET_DETAIL,
        )
        results.append(
            FileResult(
                path=path, content=cut, verdict=notice, relpath=relpath, truncated=True, total_lines=total
            )
        )
    return results


def _shown_relpath(facts: PathFacts) -> str | None:
    r = facts.resolved
    if r is None:
        return facts.name
    if r.relpath is not None:
        return r.relpath or "."
    return r.real
