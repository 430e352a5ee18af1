"""Omission counts inside excluded directories, for :class:`~pathgate.runtime.tools._discover.Discovery`.

A discovery call does not enter excluded directories (``node_modules/``, ``target/``), but
says how many matches they would hold: each met directory is judged (opaque ones, such as a
secret-named directory, are never named or entered), then its files are listed on
descriptors, within the call's entry budget (``Discovery.count_left``, charged as if
opaque paths did not exist; a count cut by the budget is a lower bound), and each match
adds to the ignore gate's omission note. With the live index (issue 15) the listings come
from :class:`~pathgate.runtime._live._counts.ExcludedCounts` and remembered listings of
plain files are matched as one list.

On a plain runtime (no live index) a call may name a ``key`` (code_search: its start and
glob): its whole count is then kept (:class:`_PlainCounts`) and reused by a later call
with the same key, the same excluded directories (same decisions) and the same budget,
while every directory the count listed has the ``(st_dev, st_ino, st_mtime_ns,
st_ctime_ns)`` it had (``fstat``-ed on its descriptor *before* it was listed; creating,
removing or renaming an entry, or a permission change, moves them) and every regular file
it counted still has one link (a file with one link cannot share a secret's inode; a
count that met a multi-linked file is not kept). Nothing is kept with a host filter or
host gates (their answers may change without the disk changing), with aliases or
prejudged verdicts in the call, on a file-system seam other than the real one, on a core
that makes one call (:func:`~pathgate.runtime.tools._discover.one_call`), when a
directory could not be listed or the depth cap was hit, or when a listed directory changed
within :data:`RACY_NS` of the listing (it could change again without its times moving:
git's "racily clean"). Checking costs one ``lstat`` per listed directory and counted file
instead of listing, deciding and judging them again.
"""

from __future__ import annotations

import inspect
import os
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from pathgate.results import Unsearched
from pathgate.runtime._walk import FILE, SYMLINK, Entry, ListingRecord, _entry, list_files_below
from pathgate.runtime.fs import OsFS, Resolved
from pathgate.runtime.fs._beneath import DirChain
from pathgate.runtime.gates import PathFacts
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Gate

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.runtime._live._records import Flat
    from pathgate.runtime.tools._discover import Discovery, Omissions
    from pathgate.runtime.tools._link_check import LinkCheck

#: One excluded directory's listing: files (relpath, kind), short, as a Flat, remembered.
_Listed = tuple[list[tuple[str, str]], bool, "Flat | None", bool]

__all__ = ["MAX_UNSEARCHED", "count_in_excluded"]

#: Excluded directories named per result ("not searched" notes); the rest are counted.
MAX_UNSEARCHED = 10
#: A directory changed this close to (or after) the listing keeps the count from being kept.
RACY_NS = 2_000_000_000
#: Counts kept per plain runtime (most recent first out when full).
MAX_KEPT = 8
#: Counted files the kept counts of one runtime may name together (each checked on reuse).
MAX_KEPT_FILES = 200_000

_Sig = tuple[int, int, int, int]


def _sig(st: os.stat_result) -> _Sig:
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


class _Kept(NamedTuple):
    """One kept count: what it added, and what must not have changed for it to stand."""

    unsearched: tuple[Unsearched, ...]
    part: Omissions
    count_left: int
    dirs: tuple[tuple[str, _Sig], ...]
    files: tuple[str, ...]


class _Taking:
    """What one count's listings saw (filled in the worker thread)."""

    __slots__ = ("files", "records", "started")

    def __init__(self) -> None:
        self.started = time.time_ns()
        self.records: list[ListingRecord] = []
        self.files: list[str] = []


class _PlainCounts:
    """The kept counts of one plain runtime (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[object, _Kept] = {}
        #: counts reused (tests, benchmarks)
        self.reused = 0

    def get(self, root: str, key: object) -> _Kept | None:
        """The count kept under ``key`` if it still stands (worker thread: ``lstat``-s)."""
        with self._lock:
            kept = self._kept.get(key)
        if kept is None or not _stands(root, kept):
            return None
        with self._lock:
            self.reused += 1
        return kept

    def keep(self, key: object, taking: _Taking, unsearched: list[Unsearched], part: Omissions,
             count_left: int) -> None:
        """Keep a fresh count when everything it listed allows it."""
        if any(r.failed or r.multi for r in taking.records):
            return
        dirs = tuple((rel, _sig(st)) for r in taking.records for rel, st in r.dirs)
        if any(max(s[2], s[3]) + RACY_NS > taking.started for _, s in dirs):
            return
        kept = _Kept(tuple(unsearched), part, count_left, dirs, tuple(taking.files))
        with self._lock:
            self._kept.pop(key, None)
            while self._kept and (len(self._kept) >= MAX_KEPT or sum(
                    len(k.files) for k in self._kept.values()) + len(kept.files) > MAX_KEPT_FILES):
                del self._kept[next(iter(self._kept))]
            if len(kept.files) <= MAX_KEPT_FILES:
                self._kept[key] = kept


def _stands(root: str, kept: _Kept) -> bool:
    """Does every directory still have its signature, every counted file one link?"""
    base = root.rstrip("/") + "/"
    lstat = os.lstat
    try:
        for rel, sig in kept.dirs:
            st = lstat(base + rel if rel else root)
            if (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns) != sig:
                return False
        for rel in kept.files:
            if lstat(base + rel).st_nlink != 1:
                return False
    except OSError:
        return False
    return True


_PLAIN: weakref.WeakKeyDictionary[GateCore, _PlainCounts] = weakref.WeakKeyDictionary()
_PLAIN_LOCK = threading.Lock()


def _plain_counts(d: Discovery) -> _PlainCounts | None:
    """The runtime's kept counts when ``d``'s count may be kept (see the module docstring)."""
    rt = d.runtime
    if (rt.live_index is not None or d._host is not None or not d._inline or d._aliases
            or d._verdicts or type(rt.index.fs) is not OsFS or d._one_call):
        return None
    with _PLAIN_LOCK:
        got = _PLAIN.get(rt)
        if got is None:
            got = _PLAIN[rt] = _PlainCounts()
        return got


async def count_in_excluded(d: Discovery, dirs: Sequence[Entry], wanted: Callable[[str], bool],
                            key: object = None) -> list[Unsearched]:
    """Name the excluded directories ``dirs`` (met by ``d``'s walk) that could hold
    matches, and count, within ``d``'s entry budget, the files inside them ``wanted``
    accepts (omitted by the ignore gate) into ``d.omissions``.

    A live glob's count (``d._count_key``: the index's records, the pattern, the start)
    made only from listings the live index remembers under the registry's validated
    snapshot is kept with that snapshot and reused while both stand (issue 15): the
    same judgements of the same directories over the same listings.

    ``key`` (hashable, naming what ``wanted`` accepts; ``None``: nothing kept): on a plain
    runtime the count is kept under it (see the module docstring)."""
    if not dirs:
        return []
    plain = None if key is None else _plain_counts(d)
    if plain is not None:
        return await _plain_count(d, plain, dirs, wanted, key)
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


async def _plain_count(d: Discovery, plain: _PlainCounts, dirs: Sequence[Entry],
                       wanted: Callable[[str], bool], key: object) -> list[Unsearched]:
    """:func:`count_in_excluded` on a plain runtime: reused when kept and still standing,
    else counted and kept."""
    full = (key, d._enforce, d.count_left, tuple((x.relpath, x.kind, x.match) for x in dirs))
    got = await d.runtime.run_blocking(partial(plain.get, d.runtime.root, full))
    if got is not None:
        d.omissions.merge(got.part)
        d.count_left = got.count_left
        return list(got.unsearched)
    part = d.omissions.empty()
    taking = _Taking()
    unsearched, _ = await _count(d, dirs, wanted, part, taking)
    d.omissions.merge(part)
    plain.keep(full, taking, unsearched, part, d.count_left)
    return unsearched


async def _count(d: Discovery, dirs: Sequence[Entry], wanted: Callable[[str], bool],
                 om: Omissions, taking: _Taking | None = None) -> tuple[list[Unsearched], bool]:
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
    listed = await d.runtime.run_blocking(partial(_list_all, d, [x.relpath for x in visible], taking=taking))
    candidates: list[Entry] = []
    # per directory, in order: its matches selected as one list (a remembered listing of
    # plain files, issue 15: each gets its directory's ignore verdict), or its slice of
    # the candidates judged one by one
    parts: list[tuple[Match, list[str]] | slice] = []
    select = d._select if not d._aliases and not d._verdicts else None
    # a directory's plain entries holding no "git" take its ignore verdict as one list
    # (what judging each gives: see _by_verdict); links and the others are judged one by one
    whole = d._inline and not d._aliases and not d._verdicts and d._is_git_batchable()
    for x, (files, short, flat, _) in zip(visible, listed, strict=True):
        if short:
            om.lower_bound.add(Gate.IGNORE)
        if flat is not None and select is not None and x.match is not None:
            parts.append((x.match, select(flat)))
            continue
        m = x.match
        if whole and m is not None:
            _by_verdict(m, [(rel, kind) for rel, kind in files if wanted(rel)], candidates, parts)
            continue
        first = len(candidates)
        candidates.extend([_entry(Entry, (rel, kind, m, None, None)) for rel, kind in files if wanted(rel)])
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


def _by_verdict(m: Match, files: list[tuple[str, str]], candidates: list[Entry],
                parts: list[tuple[Match, list[str]] | slice]) -> None:
    """Parts of one excluded directory's wanted files (decided by ``m``), in order: each run
    of plain entries whose path holds no "git" as one list taking ``m``'s ignore verdict —
    what :meth:`Discovery._judge_inline` gives each of them when no alias, prejudged
    verdict or git directory is in play and the count's secret test already dropped the
    secrets (no git path, no secret: ``m``'s verdict) — and each other entry (a symlink,
    judged by its target; a path holding "git") as a candidate of its own."""
    run: list[str] = []
    for rel, kind in files:
        if kind != SYMLINK and "git" not in rel.casefold():
            run.append(rel)
            continue
        if run:
            parts.append((m, run))
            run = []
        candidates.append(_entry(Entry, (rel, kind, m, None, None)))
        parts.append(slice(len(candidates) - 1, len(candidates)))
    if run:
        parts.append((m, run))


def _list_all(d: Discovery, excluded_dirs: Sequence[str], taking: _Taking | None = None) -> list[_Listed]:
    """``_list_below`` for each directory in turn, sharing the budget: per directory its
    files, whether its count is short (budget ran out in it, or before it), when they
    are a remembered listing of plain files their relpaths as a :class:`Flat`, and
    whether the live index remembers them (or the budget was spent before it).
    ``taking``: each listing's record and counted regular files are added to it."""
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
                out.append(_list_below(d, rel, d.count_left, linked, opener, taking))
    finally:
        parents.close()
    return out


def _list_below(d: Discovery, excluded_dir: str, budget: int, linked: LinkCheck | None,
                opener: Callable[[str], int] | None = None, taking: _Taking | None = None) -> _Listed:
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
        record = None if taking is None else ListingRecord()
        files, seen, short = list_files_below(
            d.runtime.index.fs, d.runtime.root, excluded_dir, budget,
            opaque=_opaque_in_thread(d), opener=opener, record=record,
            # a count to keep stats every regular file (one with more links is not kept)
            linked=linked if record is None or linked is not None else _unlinked)
        if taking is not None and record is not None:
            record.failed = record.failed or (short and seen < budget)  # the depth cap
            taking.records.append(record)
            taking.files.extend(rel for rel, kind in files if kind == FILE)
    d.count_left = 0 if short else d.count_left - seen
    return files, short, flat, kept


def _unlinked(st: os.stat_result) -> bool:
    return False


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

