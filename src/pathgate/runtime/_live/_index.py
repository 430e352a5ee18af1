"""The live project index: discovery answered from memory, kept current by inotify.

Design (issue 15):

* **The first scan** is the discovery walk itself: one :class:`~pathgate.runtime._walk.Walker`
  below the root, whose ``descend`` hook adds an inotify watch to every kept directory
  *before* the walker opens and lists it. For each kept directory the index records the
  walker's entries verbatim (name, kind, and the ignore :class:`Match` of excluded ones),
  so an answer replayed from the index is, entry for entry and in the same order, what a
  fresh walk would yield; the tools then judge, count and budget them exactly as today.
  Nothing inside an excluded directory is watched or recorded (omission counts are still
  taken on the disk, within today's budgets).
* **Kept current without a thread**: the inotify descriptor is non-blocking and drained at
  the start of every query, under the index lock. An event names a directory: it is
  re-listed on its descriptor and re-decided (a new, renamed or re-permissioned
  subdirectory is walked afresh; a vanished one is dropped with its watches). An event on
  an ignore file re-walks the directory's whole subtree; a change to the root's ignore
  sources or to git's global ones (checked by stat signature each query) re-walks all.
* **Staleness bound**: the kernel queues an inotify event inside the system call that
  changes a watched directory, so any change made by a system call that returned before a
  query began is reflected in that query's answer (read-after-write; tested with no sleep).
  Changes inotify never reports (another host on a network filesystem) are not covered.
* **Fallback**: no inotify (``ENOSYS``), the watch limit (``ENOSPC``,
  ``fs.inotify.max_user_watches``) and event-queue overflow (``IN_Q_OVERFLOW``) make the
  query use today's walk; the first two for good, an overflow until the next query
  rescans. Each is logged once on ``pathgate.live_index``.

The index never grants anything: reads do not consult it, and every replayed entry goes
through the same gates as a walked one.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import threading
import time
from array import array
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from pathgate.runtime._live._check import seed_parts, unchanged
from pathgate.runtime._live._counts import ExcludedCounts
from pathgate.runtime._live._globs import GlobParts
from pathgate.runtime._live._inotify import Inotify
from pathgate.runtime._live._records import (
    Classify,
    GlobScan,
    Select,
    _Dir,
    replay,
)
from pathgate.runtime._live._relist import Relisting
from pathgate.runtime._live._watches import DeferredWatches
from pathgate.runtime._walk import Entry, GcPaused
from pathgate.runtime.ignore import DirNode, IgnoreIndex

if TYPE_CHECKING:
    from pathgate.runtime._links import SecretInodes

__all__ = ["INDEX_MODE", "LiveIndex", "set_index_mode"]

log = logging.getLogger("pathgate.live_index")

#: How the current tool call's discovery was answered: ``"live"`` (from the index),
#: ``"fallback"`` (walked although an index exists), ``None`` (no index). The tracing link
#: reads it into the span attribute ``pathgate.index``.
INDEX_MODE: ContextVar[str | None] = ContextVar("pathgate_index_mode", default=None)


def set_index_mode(mode: str) -> None:
    """Record how this call's discovery was answered (a fallback is never overwritten)."""
    if INDEX_MODE.get() != "fallback":
        INDEX_MODE.set(mode)

#: Relpaths each memoised path predicate remembers (:meth:`LiveIndex.memo`).
MEMO_SIZE = 1 << 21


class _WatchLimit(Exception):
    """``inotify_add_watch`` failed with ``ENOSPC``: the user's watch limit is reached."""

class LiveIndex(Relisting):
    """The in-memory index of one runtime's project (thread-safe; one lock).

    :meth:`entries` is what :meth:`Discovery.walk` asks first: the walked entries below
    ``start`` or ``None`` (then the caller walks, exactly as without an index).
    ``inotify`` builds the event source (tests inject failures here).
    """

    def __init__(self, index: IgnoreIndex, *, inotify: Callable[[], Inotify] = Inotify) -> None:
        self._ignore = index
        self._root = index.root
        self._factory = inotify
        self._lock = threading.Lock()
        self._ino: Inotify | None = None
        self._dirs: dict[str, _Dir] = {}
        self._wds: dict[int, str] = {}
        self._unwatched: set[str] = set()
        self._root_node: DirNode | None = None
        #: kept directories holding ignore files, with the node their records were decided
        #: by: validated by ``stat`` at every query (an edit through another hard link of an
        #: ignore file sends no event to its directory's watch)
        self._ruled: dict[str, DirNode] = {}
        self._names: frozenset[str] = frozenset()
        #: why the index answers nothing any more (``None``: it is live)
        self.disabled: str | None = None
        self._closed = False
        self._memos: dict[str, Callable[[str], bool]] = {}
        self._class_key: object = None
        #: remembered listings of excluded directories (omission counts)
        self.counts = ExcludedCounts()
        #: bumped by every drain that saw an event, every scan and reset
        self.epoch = 0
        #: (registry snapshot, the epoch it was validated at, the directories the index does
        #: not watch, their inode numbers, their mtimes and ctimes)
        self._reg: tuple[Any, int, list[bytes], array[int], array[int]] | None = None
        #: bumped by every change of the records (or of their verdict classes)
        self._gen = 0
        #: what warm globs keep of the records (the flattened plain records, the odd part)
        self._globs = GlobParts()
        #: the first scan's directory signatures while it runs, then for the registry
        #: (``fstat`` results: no tuple per directory for the collector to trace)
        self._sigs: dict[str, os.stat_result] | None = None
        self._seed: tuple[tuple[int, int, int], dict[str, os.stat_result]] | None = None
        #: the registry to seed in the watch thread, after the first answer (:meth:`first_scan`)
        self._seed_reg: SecretInodes | None = None
        #: the first scan's watches, installed after its answer (:meth:`_finish_watches`)
        self._deferred: DeferredWatches | None = None
        #: kept directories to re-list at the next drain (changed before their watch)
        self._dirty: set[str] = set()
        #: counters for tests and benchmarks
        self.scans = 0
        self.relists = 0
        self.resets = 0

    # -- public ----------------------------------------------------------------------------

    @property
    def dirs(self) -> int:
        """Kept directories indexed now."""
        return len(self._dirs)

    @property
    def odd_scans(self) -> int:
        """Odd records' parts of warm globs computed so far (tests)."""
        return self._globs.odd_scans

    @property
    def watches(self) -> int:
        """inotify watches held now."""
        return len(self._wds)

    def entries(self, start: str, descend: Callable[[str], bool] | None = None,
                want: Callable[[str], bool] | None = None, *,
                limit: int | None = None, uncounted: Callable[[Entry], bool] | None = None,
                scanned: bool = False) -> list[Entry] | None:
        """The entries a :class:`Walker` below ``start`` with these filters would yield,
        from memory after draining pending events; ``None``: walk instead (fallback).
        ``limit``: stop after that many entries that are neither error entries nor
        ``uncounted`` (the caller's budget would stop there). ``scanned``: this query's
        own :meth:`first_scan` scanned (its records are as fresh as the query: they are
        replayed before the scan's watches are installed), and the caller asks the
        registry only about the files marked here: each regular file replayed is
        ``lstat``-ed now and carries that ``lstat`` in :attr:`Entry.links` when it has
        more than one link, as a walker's marked files do; one gone since the scan is
        left out (as a walk now would: it may have been a secret's hard link).
        :func:`replay` stats only what the answer holds (a directory's listing: its own
        files), so the scan itself stats no file."""
        with self._lock:
            if not self._ready(fresh=scanned):
                return None
            try:
                if not scanned:
                    return self._replay(start, descend, want, limit, uncounted)
                # a multi-linked file met: the caller asks the registry about it, so its
                # first snapshot is seeded now (a build of its own would list it all again)
                test = uncounted
                if test is not None:
                    def uncounted(e: Entry) -> bool:
                        if e.links is not None and self._seed_reg is not None:
                            self._seed_now()
                        return test(e)

                out = self._replay(start, descend, want, limit, uncounted, restat=True)
                if out and self._seed_reg is not None and any(e.links is not None for e in out):
                    self._seed_now()
                return out
            finally:
                self._start_watches()

    def glob_scan(self, start: str, descend: Callable[[str], bool] | None,
                  want: Callable[[str], bool] | None, classify: Classify, key: object,
                  examples: int, select: Select | None = None,
                  memo: object = None, budget: int | None = None) -> GlobScan | None:
        """A glob's walk below ``start`` with every stored entry's verdict class known
        (``classify``, cached per record while ``key`` is the same object): no per-entry
        gate work at query time; ``None``: walk or replay instead. ``select``: the
        pattern's test over a list of relpaths (for a glob that does not prune): the
        plain records' files are then kept flattened and sorted (:class:`Flat`) until the
        next change of the records, and matched as one list; with a ``memo`` too (a
        hashable key naming ``want`` and ``select``, e.g. the normalised pattern), the
        other records' part is kept as well (same lifetime), and the scan's ``key`` names
        its outcome: ``(generation, start, memo)``. ``budget``: a scan that would charge
        more is taken again in walk order and stops where the walk would (``stopped``).
        ``None`` too while the index has not scanned: the first scan is answered by the
        replay (:meth:`first_scan`), whose files are ``lstat``-ed as a walk's are; stored
        verdicts vouched for by a registry snapshot of a later moment than the scan's
        listings could name a secret's hard link removed in between."""
        with self._lock:
            if self._ino is None or not self._ready():
                return None
            if key is not self._class_key:
                self._class_key = key
                self._gen += 1
                for d in self._dirs.values():
                    d.kinds = bytes(k & 3 for k in d.kinds)
            try:
                return self._scan_glob(start, descend, want, classify, examples, select, memo, budget)
            finally:
                self._start_watches()

    def validated(self, registry: SecretInodes) -> Any:
        """``registry.current()`` (the secret-inode registry's validated snapshot), with
        the index's help: while no event arrived since this index last validated it, the
        kept, watched directories cannot have changed signature (any entry created,
        removed or renamed, any permission change of a directory sends an event to its or
        its parent's watch), so only the directories the index does not watch (inside
        excluded ones, unwatchable ones) are ``lstat``-ed. Call it after a query's drain."""
        with self._lock:
            got = self._reg
            if got is not None and got[1] == self.epoch and self._ino is not None \
                    and unchanged(self._root, got[2], got[3], got[4]):
                return got[0]
            # a seeded snapshot is validated like a rebuild before it is used
            self._seeded(registry)
            snap = registry.current()
            if self._deferred is not None:
                # the first query: its watches are installed next (then this is rebuilt)
                self._reg = None
                self._start_watches()
                return snap
            dirs = self._dirs
            rels: list[bytes] = []
            inos: array[int] = array("Q")
            times: array[int] = array("q")
            for rel, (ino, mtime, ctime) in snap.dirs.items():
                if rel in self._unwatched or (d := dirs.get(rel)) is None or d.wd < 0:
                    rels.append(os.fsencode(rel) if rel else b".")
                    inos.append(ino)
                    times.extend((mtime, ctime))
            self._reg = (snap, self.epoch, rels, inos, times)
            return snap

    def first_scan(self, registry: SecretInodes | None) -> bool:
        """Scan now if the index has not; ``True``: scanned now (pass it to this query's
        :meth:`entries` as ``scanned``: the answer's own files are ``lstat``-ed for their
        link counts, as a fresh walk's are, and the registry is asked only about a
        multi-linked one). ``registry`` gets its first snapshot from that scan
        (:meth:`_seeded`; the registry still validates it when asked) in the watch
        thread, after the answer: the first answer does not wait for it."""
        with self._lock:
            if self._ino is not None or not self._ready():
                return False
            if registry is None:
                self._seed = None  # (no registry in use: nothing to seed)
            else:
                self._scale(registry)  # (before the answer may ask it)
                self._seed_reg = registry
            return True

    def _seed_now(self) -> None:
        """:meth:`_seeded` now, for the registry :meth:`first_scan` left to the watch thread."""
        reg, self._seed_reg = self._seed_reg, None
        if reg is not None:
            self._seeded(reg)

    def _seed_after(self, registry: SecretInodes, w: DeferredWatches) -> None:
        """:meth:`_seeded` in the watch thread, after the first answer (nothing touches the
        records until that thread is joined); it stops when the thread is stopped."""
        self._seeded(registry, cancelled=lambda: w.stopping)

    def _seeded(self, registry: SecretInodes, cancelled: Callable[[], bool] | None = None) -> Any:
        """The registry's first snapshot built from the first scan's listings (issue 15:
        the registry's own walk would list every kept directory again), when nothing was
        re-listed since and no event arrived: its kept directories' signatures were taken
        before they were listed, the rest (ignored, unlistable) is walked now. ``None``:
        not possible (the registry builds or validates its own)."""
        self._scale(registry)
        seed, self._seed = self._seed, None
        if seed is None or seed[0] != (self.scans, self.relists, self.epoch) \
                or self._ino is None or registry.root != self._root or "" not in self._dirs:
            return None  # (no root record: the root itself is excluded, nothing was listed)
        parts = seed_parts(self._dirs, seed[1])
        return registry.seed(*parts) if cancelled is None else registry.seed(*parts, cancelled=cancelled)

    def _scale(self, registry: SecretInodes) -> None:
        if registry.root == self._root:
            # its rebuilds may visit as much as this index holds (1M files: not failed closed)
            registry.scale_to(sum(len(d.names) for d in self._dirs.values()))

    def _ready(self, fresh: bool = False) -> bool:
        """Scan or drain pending events (under the lock); ``False``: answer by walking.
        ``fresh``: the records come from this query's own scan, whose watches are not
        being installed yet (nothing to drain: answer from them as they are)."""
        if self._closed or self.disabled is not None:
            return False
        try:
            if self._ino is None:
                self._scan()
            elif fresh and self._deferred is not None and not self._deferred.started:
                pass
            elif not (self._finish_watches() and self._refresh()):
                return False
        except _WatchLimit:
            self._disable("inotify watch limit reached (fs.inotify.max_user_watches)")
            return False
        except OSError as exc:
            if self._ino is None:
                self._disable(f"no file-system events: {exc.strerror or exc}")
            else:
                self._reset(f"root not listable: {exc.strerror or exc}")
            return False
        return True

    def memo(self, name: str, fn: Callable[[str], bool]) -> Callable[[str], bool]:
        """``fn`` (a pure, path-only predicate of the runtime's fixed policy, such as
        "is this relpath a secret") memoised across calls under ``name``: a warm query
        decides nothing twice. Bounded (least recently used)."""
        cached = self._memos.get(name)
        if cached is None:
            cached = self._memos[name] = functools.lru_cache(maxsize=MEMO_SIZE)(fn)
        return cached

    def close(self) -> None:
        """Stop watching: the inotify descriptor is closed, the index dropped."""
        with self._lock:
            self._closed = True
            self._release()

    # -- state changes -------------------------------------------------------------------------

    def _start_watches(self) -> None:
        """After the first scan's answer (and its registry seed): its watches, in a thread
        (which seeds the registry after them when :meth:`first_scan` left it that)."""
        w = self._deferred
        if w is None or w.started:
            return
        reg, self._seed_reg = self._seed_reg, None
        if reg is not None and self._seed is not None:
            w.then = functools.partial(self._seed_after, reg, w)
        elif self._seed is not None:
            return  # the query seeds it first (:meth:`validated`)
        w.start()

    def _finish_watches(self) -> bool:
        """Take in the first scan's watches (waiting for their thread) before anything
        else touches the index: each directory's watch, those to re-list (changed between
        their listing and their watch), those unwatchable. ``False``: the thread did not
        finish (the index is reset; this query walks)."""
        w, self._deferred = self._deferred, None
        if w is None:
            return True
        w.finish()
        self._seed_reg = None
        if w.limit:
            raise _WatchLimit
        if not w.complete:
            self._reset("watches not installed")
            return False
        dirs, wds = self._dirs, self._wds
        for rel, wd in w.added:
            d = dirs.get(rel)
            if d is not None:  # (always: nothing touches the records before this)
                d.wd = wd
                wds[wd] = rel
        self._unwatched.update(w.failed)
        self._dirty.update(w.dirty)
        self.epoch += 1  # the registry check's unwatched directories are watched now
        return True

    def _release(self) -> None:
        w, self._deferred = self._deferred, None
        if w is not None:
            w.stop()  # (before the descriptor it adds watches to is closed)
        self._dirty.clear()
        self._seed_reg = None
        ino, self._ino = self._ino, None
        self.epoch += 1
        self._gen += 1
        self._globs = GlobParts()
        self._seed = None
        self._reg = None
        self._dirs.clear()
        self._wds.clear()
        self._unwatched.clear()
        self._ruled.clear()
        self._root_node = None
        self.counts = ExcludedCounts()
        if ino is not None:
            ino.close()

    def _disable(self, why: str) -> None:
        log.warning("pathgate live index off for %s: %s; discovery walks the tree", self._root, why)
        self.disabled = why
        self._release()

    def _reset(self, why: str) -> None:
        log.warning("pathgate live index reset for %s: %s; this query walks, the next rescans",
                    self._root, why)
        self.resets += 1
        self._release()

    def _scan(self) -> None:
        """The first scan (or a rescan after a reset): watch and walk from the root."""
        self._ino = self._factory()
        self.scans += 1
        self.epoch += 1
        session = self._ignore.session()
        self._names = session.ignore_names
        self._root_node = session.dir_node("")
        # each kept directory's signature before it is listed (``fstat`` on the walker's
        # descriptor): its watch is added after the answer (:class:`DeferredWatches`,
        # checked against it) and the registry's first snapshot is seeded from it
        # (:meth:`_seeded`; not where the walker skips more than ".git")
        sigs: dict[str, os.stat_result] = {}
        self._sigs = sigs
        since = time.time_ns()
        with GcPaused():  # (tens of thousands of records, none of them garbage)
            try:
                self._walk(session, "", lambda _rel: True)
            finally:
                self._sigs = None
            self._deferred = DeferredWatches(self._ino.add_watch, self._root, list(self._dirs), sigs, since)
        self._seed = None if session.ignore_case else ((self.scans, self.relists, self.epoch), sigs)

    def _watch(self, rel: str) -> None:
        """Watch ``rel`` and start its record (before the walker lists it)."""
        assert self._ino is not None
        path = os.path.join(self._root, rel) if rel else self._root
        try:
            wd = self._ino.add_watch(path)
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise _WatchLimit from None
            wd = -1
            self._unwatched.add(rel)  # re-listed at every query while it is kept
        else:
            self._unwatched.discard(rel)
            self._wds[wd] = rel
        self._dirs[rel] = _Dir(wd)

    def _drop(self, rel: str) -> None:
        """Forget ``rel`` and every kept directory below it, with their watches."""
        self._gen += 1
        stack = [rel]
        dirs, wds = self._dirs, self._wds
        while stack:
            r = stack.pop()
            d = dirs.pop(r, None)
            self._ruled.pop(r, None)
            if d is None:
                continue
            if d.wd >= 0 and wds.get(d.wd) == r:  # (a renamed directory keeps its wd)
                del wds[d.wd]
                if self._ino is not None:
                    self._ino.rm_watch(d.wd)
            stack.extend(d.kept_subdirs(r))
        self._unwatched.discard(rel)

    def _stops_at(self, start: str) -> bool:
        """Would a walk from kept directory ``start`` stop at ``start`` itself? (Its own
        ignore file fails closed: a walk started there reports the directory, a walk from
        above reports its entries; the record is the latter, so such a start walks.)"""
        node = self._ruled.get(start) if start else None
        return node is not None and node.stop is not None

    def _replay(self, start: str, descend: Callable[[str], bool] | None,
                want: Callable[[str], bool] | None, limit: int | None = None,
                uncounted: Callable[[Entry], bool] | None = None, restat: bool = False) -> list[Entry] | None:
        """:func:`replay` of the records (``None``: walk instead)."""
        if self._stops_at(start):
            return None
        try:
            return replay(self._dirs, start, descend, want, limit, uncounted,
                          restat=self._root.rstrip("/") + "/" if restat else None)
        except KeyError:  # never expected: answer by walking, rescan at the next query
            self._reset("index inconsistent")
            return None

    def _scan_glob(self, start: str, descend: Callable[[str], bool] | None,
                   want: Callable[[str], bool] | None, classify: Classify,
                   n_examples: int, select: Select | None, memo: object,
                   budget: int | None) -> GlobScan | None:
        """:meth:`glob_scan` under the lock (:class:`GlobParts`)."""
        if self._stops_at(start):
            return None
        try:
            return self._globs.scan(self._dirs, self._gen, start, descend, want, classify,
                                    n_examples, select, memo, budget)
        except KeyError:  # never expected: answer by walking, rescan at the next query
            self._reset("index inconsistent")
            return None
