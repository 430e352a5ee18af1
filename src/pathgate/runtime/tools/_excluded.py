"""Omission counts inside excluded directories, for :class:`~pathgate.runtime.tools._discover.Discovery`.

A discovery call does not enter excluded directories (``node_modules/``, ``target/``), but
says how many matches they would hold: each met directory is judged (opaque ones, such as a
secret-named directory, are never named or entered), then its files are listed on
descriptors, within the call's entry budget (``Discovery.count_left``, charged as if
opaque paths did not exist; a count cut by the budget is a lower bound), and each match
adds to the ignore gate's omission note. With the live index (issue 15) the listings come
from :class:`~pathgate.runtime._live._counts.ExcludedCounts` and remembered listings of
plain files are matched as one list.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pathgate.results import Unsearched
from pathgate.runtime._walk import Entry, list_files_below
from pathgate.runtime.fs import Resolved
from pathgate.runtime.gates import PathFacts
from pathgate.runtime.ignore import Match
from pathgate.runtime.tools._scan import DirChain
from pathgate.verdicts import Gate

if TYPE_CHECKING:
    from pathgate.runtime._live._records import Flat
    from pathgate.runtime.tools._discover import Discovery, Omissions, _LinkCheck

#: One excluded directory's listing: files (relpath, kind), short, as a Flat, remembered.
_Listed = tuple[list[tuple[str, str]], bool, "Flat | None", bool]

__all__ = ["MAX_UNSEARCHED", "count_in_excluded"]

#: Excluded directories named per result ("not searched" notes); the rest are counted.
MAX_UNSEARCHED = 10


async def count_in_excluded(d: Discovery, dirs: Sequence[Entry], wanted: Callable[[str], bool]) -> list[Unsearched]:
    """Name the excluded directories ``dirs`` (met by ``d``'s walk) that could hold
    matches, and count, within ``d``'s entry budget, the files inside them ``wanted``
    accepts (omitted by the ignore gate) into ``d.omissions``.

    A live glob's count (``d._count_key``: the index's records, the pattern, the start)
    made only from listings the live index remembers under the registry's validated
    snapshot is kept with that snapshot and reused while both stand (issue 15): the
    same judgements of the same directories over the same listings."""
    if not dirs:
        return []
    live, snap = d.runtime.live_index, d._snapshot
    key = (d._count_key, d.count_left)
    memo = live.counts if live is not None and snap is not None and d._count_key is not None \
        and d._host is None and not d._aliases and not d._verdicts else None
    if memo is not None:
        got = memo.outcome(snap, key)
        if got is not None:
            unsearched, part = got
            d.omissions.merge(part)
            return list(unsearched)
    part = d.omissions.empty()
    unsearched, kept = await _count(d, dirs, wanted, part)
    d.omissions.merge(part)
    if memo is not None and kept:
        memo.keep(snap, key, (tuple(unsearched), part))
    return unsearched


async def _count(d: Discovery, dirs: Sequence[Entry], wanted: Callable[[str], bool],
                 om: Omissions) -> tuple[list[Unsearched], bool]:
    """:func:`count_in_excluded` into ``om``; also whether every listing it took is
    remembered by the live index (then the outcome may be kept)."""
    verdicts = await d.judge(dirs)
    visible = [x for x, v in zip(dirs, verdicts, strict=True) if v is None or not v.opaque]
    unsearched = [
        Unsearched(path=x.relpath, rule=x.match.rule if x.match else None,
                   fail_closed=bool(x.match and x.match.fail_closed))
        for x in visible[:MAX_UNSEARCHED]
    ]
    if not visible:
        return unsearched, True
    # one worker-thread hop lists them all (the entry budget bounds it), one batch is
    # judged: a hop per directory cost more than the listing (thousands of `target/`s)
    listed = await d.runtime.run_blocking(partial(_list_all, d, [x.relpath for x in visible]))
    candidates: list[Entry] = []
    # per directory, in order: its matches selected as one list (a remembered listing of
    # plain files, issue 15: each gets its directory's ignore verdict), or its slice of
    # the candidates judged one by one
    parts: list[tuple[Match, list[str]] | slice] = []
    select = d._select if not d._aliases and not d._verdicts else None
    for x, (files, short, flat, _) in zip(visible, listed, strict=True):
        if short:
            om.lower_bound.add(Gate.IGNORE)
        if flat is not None and select is not None and x.match is not None:
            parts.append((x.match, select(flat)))
            continue
        first = len(candidates)
        candidates.extend(Entry(rel, kind, x.match) for rel, kind in files if wanted(rel))
        parts.append(slice(first, len(candidates)))
    verdicts = await d.judge(candidates)
    added = [0, 0]  # per fail_closed: matches counted by directory (no enum key per one)
    exs: dict[bool, list[str]] = {}
    for part in parts:
        if isinstance(part, slice):
            for e, v in zip(candidates[part], verdicts[part], strict=True):
                if v is not None:
                    om.add(v, e.relpath)
        elif part[1]:
            fc, hits = part[0].fail_closed, part[1]
            added[fc] += len(hits)
            ex = exs.get(fc)
            if ex is None:
                ex = exs[fc] = om.examples.setdefault((Gate.IGNORE, fc), [])
            if len(ex) < om.max_examples:
                ex.extend(hits[:om.max_examples - len(ex)])
    for fc in (False, True):
        if added[fc]:
            om.counts[(Gate.IGNORE, fc)] = om.counts.get((Gate.IGNORE, fc), 0) + added[fc]
    return unsearched, all(kept for *_, kept in listed)


def _list_all(d: Discovery, excluded_dirs: Sequence[str]) -> list[_Listed]:
    """``_list_below`` for each directory in turn, sharing the budget: per directory its
    files, whether its count is short (budget ran out in it, or before it), when they
    are a remembered listing of plain files their relpaths as a :class:`Flat`, and
    whether the live index remembers them (or the budget was spent before it)."""
    out: list[_Listed] = []
    check, mark = d._plan_marks()  # one plan (and validation at most) for them all
    linked = check if mark else None
    fs = d.runtime.index.fs
    # each directory opened from its parent's descriptor, held along the path (the
    # directories come in path order): not from the root, component by component
    parents = DirChain(fs, d.runtime.root)

    def opener(rel: str) -> int:
        parent, _, name = rel.rpartition("/")
        return fs.open_dir(name, dir_fd=parents.enter(parent))

    try:
        for rel in excluded_dirs:
            if d.count_left <= 0:
                out.append(([], True, None, True))
            else:
                out.append(_list_below(d, rel, d.count_left, linked, opener))
    finally:
        parents.close()
    return out


def _list_below(d: Discovery, excluded_dir: str, budget: int, linked: _LinkCheck | None,
                opener: Callable[[str], int] | None = None) -> _Listed:
    """Files below ``excluded_dir`` (relpath, kind), visiting at most ``budget`` entries
    on descriptors; secrets (and, with ``linked``, their hard-link aliases) are neither
    listed nor counted against the budget. Last: the files as a :class:`Flat` when a
    glob can select them as one list (:meth:`ExcludedCounts.plain`), else ``None``."""
    live = d.runtime.live_index
    flat: Flat | None = None
    kept = False
    if live is not None and d._snapshot is not None and d._host is None:
        # the live index remembers them, validated by the registry's snapshot (issue 15)
        files, seen, short, kept = live.counts.files_below(
            d.runtime.index.fs, d.runtime.root, excluded_dir, budget,
            d.pipeline.secrets.is_secret, d._snapshot)
        if d._select is not None:
            flat = live.counts.plain(excluded_dir, files, partial(_odd_in_excluded, d))
    else:
        files, seen, short = list_files_below(
            d.runtime.index.fs, d.runtime.root, excluded_dir, budget,
            opaque=_opaque_in_thread(d), linked=linked, opener=opener)
    d.count_left = 0 if short else d.count_left - seen
    return files, short, flat, kept


def _odd_in_excluded(d: Discovery, rel: str) -> bool:
    """Must a file inside an excluded directory be judged on its own (a secret, or a
    ``.git`` path), rather than take its directory's ignore verdict?"""
    is_git = d._is_git
    return d._secret_name(rel) or (is_git is not None and is_git(rel))


def _opaque_in_thread(d: Discovery) -> Callable[[str], bool]:
    """Is a path opaque by name (secret) or by the host filter? For the count inside
    excluded directories, which runs in a blocking step: a sync filter is called there,
    an async one is awaited through the driving core (``wait_in_step``: a ``Runtime``
    awaits it on the event loop, a bare ``GateCore`` runs it to its end). Fail-closed
    filter answers count as opaque, like the gate's."""
    is_secret = d._secret_name
    gate = d._host
    if gate is None:
        return is_secret
    ctx = d.ctx
    wait = d.runtime.wait_in_step

    def opaque(rel: str) -> bool:
        if is_secret(rel):
            return True
        facts = PathFacts(request=rel, name=rel, resolved=Resolved(rel, None, rel))
        verdict = gate.check(facts, ctx)
        if inspect.isawaitable(verdict):
            verdict = wait(verdict)
        return verdict is not None and verdict.opaque

    return opaque

