"""glob from the live index's stored verdicts (issue 15): the walk, the per-entry verdicts
and the omission notes of :class:`~pathgate.runtime.tools._discover.Discovery` for a glob,
answered from :meth:`LiveIndex.glob_scan` with no per-entry gate work."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from itertools import compress, repeat
from typing import TYPE_CHECKING

from pathgate.runtime._live import set_index_mode
from pathgate.runtime._live._index import LiveIndex
from pathgate.runtime._live._records import (
    C_DIR,
    C_GIT,
    C_IGNORE,
    C_IGNORE_FC,
    C_LINK,
    C_MATCH,
    C_OPAQUE,
    SECRET,
    Flat,
    GlobScan,
    Select,
)
from pathgate.runtime._walk import DIR, SYMLINK, Entry
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Gate

if TYPE_CHECKING:
    from pathgate.runtime.tools._discover import Discovery
    from pathgate.runtime.tools._pattern import GlobPattern

__all__ = ["live_glob", "select_for"]

#: A glob segment character that is not literal (a normalised segment escapes the rest).
_MAGIC = re.compile(r"[*?\[\\]")


async def live_glob(d: Discovery, start: str, descend: Callable[[str], bool] | None,
                    want: Callable[[str], bool], budget: int,
                    pattern: GlobPattern | None = None) -> tuple[list[str], list[Entry]] | None:
    """glob's walk and verdicts from the live index's stored verdict classes (issue 15):
    the matches (unsorted) and the excluded directories met, the omissions noted as
    :meth:`Discovery.judge` would (same counts, same first examples in walk order); ``None``:
    use :meth:`Discovery.walk` (no index, host gates, a multi-linked secret). Past the walk
    budget the scan stops where a walk stops (``walk_stopped_early``, the same entries).
    ``pattern``: the compiled glob ``want`` tests (then most paths are matched as one list)."""
    live = d.runtime.live_index
    if live is None or not d._inline:
        return None
    # the flattened records hold relpaths from the root: a select over them needs start ""
    select = None if pattern is None or start else select_for(pattern)
    scan = await d.runtime.run_blocking(partial(_glob_scan, d, live, start, descend, want, budget, select, pattern))
    if scan is None:
        return None
    d._select = select  # the excluded directories' remembered listings are matched so too
    d._count_key = scan.key  # their count's outcome is kept under it (with the registry's snapshot)
    set_index_mode("live")
    d.walked = scan.counted
    d.stopped_early = scan.stopped  # cut where the walk budget cuts a walk
    d.unlisted.extend(scan.errors)
    om = d.omissions
    pending: dict[tuple[Gate, bool], list[tuple[int, str]]] = {}
    for cls, key in ((C_GIT, (Gate.PATH, False)), (C_IGNORE, (Gate.IGNORE, False)),
                     (C_IGNORE_FC, (Gate.IGNORE, True))):
        if scan.counts[cls]:
            om.counts[key] = om.counts.get(key, 0) + scan.counts[cls]
            pending.setdefault(key, []).extend(scan.examples[cls])
    matches = scan.matches
    for (pos, e), v in zip(scan.links, await d.judge([e for _, e in scan.links]), strict=True):
        if v is None:
            matches.append(e.relpath)
        elif not v.opaque:
            key = (v.gate, v.fail_closed)
            om.counts[key] = om.counts.get(key, 0) + 1
            pending.setdefault(key, []).append((pos, e.relpath))
    for key, items in pending.items():
        ex = om.examples.setdefault(key, [])
        ex.extend(rel for _, rel in sorted(items)[:max(0, om.max_examples - len(ex))])
    return matches, scan.excluded

def _glob_scan(d: Discovery, live: LiveIndex, start: str, descend: Callable[[str], bool] | None,
               want: Callable[[str], bool], budget: int, select: Select | None,
               pattern: GlobPattern | None) -> GlobScan | None:
    """:func:`live_glob`'s worker-thread part."""
    pipeline = d.runtime.pipeline
    if pipeline.strict_hard_links:
        return None  # every multi-linked file is judged per entry: replay
    memo = None if pattern is None else ("glob", pattern.wildmatch)
    scan = live.glob_scan(start, descend, want, partial(_classify, d), pipeline,
                          d.omissions.max_examples, select, memo, budget)
    reg = pipeline.secret_inodes(d.runtime.root)
    if scan is not None and reg is not None:
        snap = live.validated(reg)  # after the drain; lstat only what is not watched
        if snap.linked or snap.overflow:
            return None  # a secret is multi-linked: its aliases are judged per entry
        d._snapshot = snap  # vouches for remembered listings of excluded directories
    return scan

def select_for(pattern: GlobPattern) -> Select | None:
    """``pattern.match`` over the index's flattened relpaths (:class:`Flat`, from the root)
    at C speed where it can be: ``**`` takes them all (every non-empty path), ``**/*SUFFIX``
    (a literal ASCII suffix, no ``/``) is ``str.endswith``, other patterns run their
    whole-path regex over ASCII paths (their own latin-1 views); non-ASCII paths are
    matched one by one. ``None``: matched path by path (a pattern that prunes,
    or one with no single regex)."""
    if pattern.prunes:
        return None
    segs = pattern.segments
    if segs == ("**",):
        return lambda f: list(f.plain)
    whole, match = pattern._whole, pattern.match
    suffix = segs[1][1:] if len(segs) == 2 and segs[1][:1] == "*" else ""
    if suffix and suffix.isascii() and not _MAGIC.search(suffix):
        # "**/*.java": a path matches exactly when it ends with ".java" (no "/" in it)
        def by_suffix(f: Flat) -> list[str]:
            if f.ascii:
                return list(compress(f.plain, map(str.endswith, f.plain, repeat(suffix))))
            return [p for p in f.plain if match(p)]

        return by_suffix
    if whole is None:
        return None

    def select(f: Flat) -> list[str]:
        if f.ascii:
            return list(compress(f.plain, map(whole, f.plain)))
        return [p for p in f.plain if match(p)]

    return select


def _classify(d: Discovery, rel: str, kind: str, m: Match | None) -> int:
    """An entry's verdict class for the live index (what :meth:`Discovery._judge_inline` would
    decide, a pure function of the policy; symlinks are judged per query)."""
    secret = d._secret_name(rel)
    bit = SECRET if secret else 0
    if kind == DIR:
        return C_DIR | bit
    if kind == SYMLINK:
        return C_LINK | bit
    is_git = d._is_git
    if is_git is not None and is_git(rel) and not secret:
        return C_GIT
    if m is None:
        return C_OPAQUE | bit if secret and d._enforce else C_MATCH | bit
    return C_OPAQUE | bit if secret else (C_IGNORE_FC if m.fail_closed else C_IGNORE)
