"""Omission counts inside excluded directories, remembered between queries (issue 15).

A glob counts the matches an excluded directory (``node_modules/``, ``target/``) would
hold, within an entry budget, by listing it on the disk: with the live index that listing
was most of a warm glob's time. The live index keeps no watch inside excluded directories,
so a remembered listing is validated another way, at no cost of its own: by the
**secret-inode registry's snapshot** (:mod:`pathgate.runtime._links`), which every such
query validates anyway by ``lstat``-ing every project directory, excluded ones included
(``st_ino``, ``st_mtime_ns``, ``st_ctime_ns``). A listing is reused only while

* the registry's validated snapshot is the very object it was taken under (no project
  directory's signature changed since: creating, removing or renaming an entry changes
  its directory's ``ctime``, and so does a permission change of the directory itself), and
* every directory the listing visited (or failed to open) had, in that snapshot, a
  ``ctime`` older than the listing by :data:`RACY_NS` — a directory changed within a
  timestamp tick of the listing could change again without its ``ctime`` moving (git's
  "racily clean" entries); such a listing is taken again until it is old enough.

So a remembered count is exactly what a fresh listing would give, for every change whose
system call returned before the query validated the registry (the same bound as the
index's). Without a registry (secrets not enforced), with a host filter (its answers may
change without the disk changing) or while a secret is multi-linked, nothing is
remembered: the directory is listed as before. Listings with the walk's depth cap hit are
not remembered either. The budget is charged exactly as a fresh listing would charge it:
a remembered listing is reused with the budget it was taken with, or with any budget when
it saw the whole directory within it; otherwise the directory is listed again.

A glob's whole count (the excluded directories its records meet, judged, their remembered
listings matched) is kept too (:meth:`ExcludedCounts.keep`), under a key naming the
records' generation, the pattern and the start, when every listing it used is remembered:
it is derived from nothing else, so it stands exactly as long as they do.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from pathgate.runtime._live._records import Flat
from pathgate.runtime._walk import FILE, list_files_below
from pathgate.runtime.fs import DirEntryLike, SyncFS

__all__ = ["MAX_OUTCOMES", "MAX_REMEMBERED", "RACY_NS", "ExcludedCounts"]

#: A directory whose ``ctime`` is this close to (or after) the listing is not trusted.
RACY_NS = 2_000_000_000
#: Files remembered in all listings together; past it the oldest are forgotten.
MAX_REMEMBERED = 200_000
#: Counts (one per glob pattern and start) kept under one snapshot.
MAX_OUTCOMES = 64


class _Listing(NamedTuple):
    files: list[tuple[str, str]]
    seen: int
    short: bool
    budget: int  # the budget it was taken with


class _Recorder:
    """The file-system seam of one listing, noting each directory listed."""

    def __init__(self, fs: SyncFS, root: str) -> None:
        self.fs = fs
        self.cut = len(root.rstrip("/")) + 1
        self.listed: list[str] = []

    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        return self.fs.open_dir(path, dir_fd=dir_fd)

    def close(self, fd: int) -> None:
        self.fs.close(fd)

    def scandir_fd(self, fd: int, path: str) -> Iterator[DirEntryLike]:
        self.listed.append(path[self.cut:])
        return self.fs.scandir_fd(fd, path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fs, name)


class ExcludedCounts:
    """Remembered listings of excluded directories, valid under one registry snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snap: object = None
        self._items: dict[str, _Listing] = {}
        self._files = 0
        #: per remembered listing (by identity): its relpaths as a :class:`Flat`, or None
        self._views: dict[str, tuple[list[tuple[str, str]], Flat | None]] = {}
        #: counts derived from remembered listings only (see :meth:`keep`), by key
        self._outcomes: dict[object, object] = {}
        #: listings taken on the disk / answered from memory, counts reused (tests, benchmarks)
        self.listed = 0
        self.reused = 0
        self.reused_outcomes = 0

    def files_below(self, fs: SyncFS, root: str, rel: str, budget: int,
                    opaque: Callable[[str], bool], snap: Any,
                    ) -> tuple[list[tuple[str, str]], int, bool, bool]:
        """:func:`~pathgate.runtime._below.list_files_below` of excluded directory ``rel``
        (``opaque``: the secret matcher), from memory when ``snap`` (the registry's
        snapshot validated by this query) vouches for it; last, whether the listing is
        remembered under ``snap`` (reused, or taken and kept)."""
        with self._lock:
            self._under(snap)
            got = self._items.get(rel)
            if got is not None and _usable(got, budget):
                self.reused += 1
                return got.files, got.seen, got.short, True  # never mutated by the caller
        started = time.time_ns()
        rec = _Recorder(fs, root)
        errors: list[str] = []
        files, seen, short = list_files_below(
            rec, root, rel, budget, on_error=lambda r, _e: errors.append(r), opaque=opaque)
        self.listed += 1
        if short and seen < budget:
            return files, seen, short, False  # the depth cap, not the budget: not remembered
        newest = _newest_ctime(snap, [*rec.listed, *errors, rel])
        if newest is None or newest + RACY_NS > started:
            return files, seen, short, False  # racy (or unknown to the snapshot): not remembered
        with self._lock:
            if snap is not self._snap:
                return files, seen, short, False
            if self._files + len(files) > MAX_REMEMBERED:
                self._items, self._files, self._views = {}, 0, {}
            self._items[rel] = _Listing(files, seen, short, budget)
            self._files += len(files)
        return files, seen, short, True

    def outcome(self, snap: Any, key: object) -> Any:
        """What :meth:`keep` stored under ``key`` while ``snap`` is the registry's snapshot
        (``None``: nothing)."""
        with self._lock:
            self._under(snap)
            got = self._outcomes.get(key)
            if got is not None:
                self.reused_outcomes += 1
            return got

    def keep(self, snap: Any, key: object, outcome: object) -> None:
        """Keep ``outcome`` (immutable by contract) under ``key`` while ``snap`` stays the
        registry's snapshot: a count derived only from listings this object remembered
        under ``snap`` (every :meth:`files_below` said so) and from the fixed policy, so it
        is valid exactly as long as they are."""
        with self._lock:
            if snap is self._snap:
                if len(self._outcomes) >= MAX_OUTCOMES:
                    self._outcomes.clear()
                self._outcomes[key] = outcome

    def _under(self, snap: Any) -> None:
        """Forget everything taken under another snapshot (under the lock)."""
        if snap is not self._snap:
            self._snap, self._items, self._files, self._views, self._outcomes = snap, {}, 0, {}, {}

    def plain(self, rel: str, files: list[tuple[str, str]],
              odd: Callable[[str], bool]) -> Flat | None:
        """The relpaths of ``files`` (a listing of ``rel`` this object remembers, as
        :meth:`files_below` returned it) as a :class:`Flat` a glob's list-at-once select
        takes, when every one is a regular file none of which ``odd`` (a pure predicate of
        the fixed policy: secret, ``.git``) holds; else ``None`` (judged file by file).
        Decided once per remembered listing; ``None`` for a listing not remembered."""
        with self._lock:
            got = self._items.get(rel)
            if got is None or got.files is not files:
                return None
            view = self._views.get(rel)
            if view is not None and view[0] is files:
                return view[1]
        rels = [r for r, _ in files]
        clean = all(kind == FILE for _, kind in files) and not any(map(odd, rels))
        flat = Flat(rels, all(map(str.isascii, rels)), 0, []) if clean else None
        with self._lock:
            if self._items.get(rel) is got:
                self._views[rel] = (files, flat)
        return flat


def _usable(got: _Listing, budget: int) -> bool:
    """Would a listing with ``budget`` give the same? Yes when it is the same budget, or
    when the remembered one saw the whole directory within this budget."""
    return budget == got.budget or (not got.short and got.seen <= budget)


def _newest_ctime(snap: Any, rels: list[str]) -> int | None:
    dirs = getattr(snap, "dirs", None)
    if dirs is None:
        return None
    newest = 0
    for r in rels:
        sig = dirs.get(r)
        if sig is None:
            return None
        newest = max(newest, sig[2])
    return newest
