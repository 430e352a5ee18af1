"""``glob(pattern, path=".")``: the files below ``path`` whose relative path matches.

Only files every path-only gate lets through are listed, sorted, up to ``limit``. The
result counts the matches each non-opaque gate omitted (with up to three examples) and
names the excluded directories it did not enter when they could hold matches. Secrets and
host-filtered paths are neither listed nor counted. Pattern syntax:
:mod:`pathgate.runtime.tools._pattern`.

The same code runs on a :class:`~pathgate.Runtime` (each blocking step a worker-thread hop)
and on a bare :class:`~pathgate.runtime._gating.GateCore` (every step in the calling thread,
driven by :func:`~pathgate.runtime._gating.run_now`: ``pathgate glob``, no event loop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathgate.errors import ToolArgumentError
from pathgate.results import GlobResult
from pathgate.runtime._walk import DIR, Entry
from pathgate.runtime.tools._arg_bounds import check_path_size
from pathgate.runtime.tools._compiled import compiled
from pathgate.runtime.tools._discover import Discovery
from pathgate.runtime.tools._pattern import compile_glob

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["DEFAULT_GLOB_LIMIT", "glob"]

#: Matches returned when the caller gives no limit (``limit=0``: no limit).
DEFAULT_GLOB_LIMIT = 500


def _rel_to(start: str) -> int:
    return len(start) + 1 if start else 0


async def glob(
    runtime: GateCore,
    pattern: str,
    path: str = ".",
    *,
    limit: int | None = None,
    model: str | None = None,
) -> GlobResult:
    """See :meth:`pathgate.Runtime.glob`."""
    if not isinstance(path, str):
        raise ToolArgumentError("glob: `path` must be a string", field="path")
    check_path_size("glob", path)  # (red team 19 K2)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ToolArgumentError("glob: `limit` must be an integer >= 0", field="limit")
    # never on the event loop: a model-supplied pattern may be long (linear, but not free)
    pat = await compiled(runtime.run_blocking, compile_glob, pattern)
    cap = DEFAULT_GLOB_LIMIT if limit is None else (limit or None)
    d = Discovery(runtime, model=model)
    start, verdict = await d.start_dir(path)
    if verdict is not None:
        return GlobResult(pattern=pattern, path=path, matches=(), verdict=verdict, limit=cap)

    cut = _rel_to(start)

    def descend(rel: str) -> bool:
        return pat.could_match_below(rel[cut:])

    def want(rel: str) -> bool:  # runs in the walk, before any ignore decision
        return pat.match(rel[cut:])

    prunes = pat.prunes  # "**/…": every directory may hold a match, skip the pre-filter
    excluded_dirs: list[Entry] = []
    fast = await d.live_glob(start, descend if prunes else None, want, pat)
    if fast is not None:  # the live index with its stored verdicts (issue 15)
        matches, met = fast
        excluded_dirs = [e for e in met if not prunes or pat.could_match_below(e.relpath[cut:])]
    else:
        chunks = await d.walk(start, descend if prunes else None, want)
        if d.start_error is not None:
            return GlobResult(pattern=pattern, path=path, matches=(), verdict=d.start_error, limit=cap)
        candidates: list[Entry] = []
        for chunk in chunks:
            for e in chunk:
                if e.kind == DIR:
                    if e.match is not None and (not prunes or pat.could_match_below(e.relpath[cut:])):
                        excluded_dirs.append(e)
                    continue
                candidates.append(e)
        matches = []
        for e, v in zip(candidates, await d.judge(candidates), strict=True):
            if v is None:
                matches.append(e.relpath)
            else:
                d.omissions.add(v, e.relpath)
    unsearched = await d.count_excluded(excluded_dirs, lambda rel: pat.match(rel[cut:]))
    matches.sort()
    truncated = cap is not None and len(matches) > cap
    return GlobResult(
        pattern=pattern,
        path=path,
        matches=tuple(matches[:cap] if cap is not None else matches),
        total=len(matches),
        truncated=truncated,
        limit=cap,
        omitted=d.omissions.freeze(),
        unsearched=tuple(unsearched),
        walk_stopped_early=d.stopped_early,
    )
