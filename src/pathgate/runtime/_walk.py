"""The pruning walker shared by glob, list_directory and code_search, on directory descriptors.

:class:`Walker` lists a directory tree through the :class:`~pathgate.runtime.fs.SyncFS`
seam, deciding every entry with an :class:`~pathgate.runtime.ignore.IgnoreSession`:

* kept entries are yielded with ``match=None`` (files, symlinks, other special files, and
  the directories it enters);
* excluded files are yielded with their :class:`Match`, so tools can count omissions;
* excluded directories are yielded once with their :class:`Match` and **never entered**
  (git cannot re-include anything below them, and their ignore files are never read).

Every directory is entered with ``openat(parent_fd, name, O_DIRECTORY | O_NOFOLLOW)`` and
listed from that descriptor, never by a path string: a directory swapped for a symlink
between its listing and its entry fails to open (``ELOOP``/``ENOTDIR``) instead of being
followed out of the project. The start directory is opened from the root the same way,
one component at a time. The walk is depth first and keeps open only the chain of
directories it is inside (at most :data:`MAX_OPEN_DIRS`; deeper ancestors are released and
re-opened through ``..`` with their identity checked), and :meth:`Walker.close` releases
them (cancellation, early stop).

A directory that cannot be entered or listed is reported by an entry with ``error`` (the
errno name), after its own entry: it never disappears silently. A directory whose path
would exceed ``PATH_MAX`` is not entered (``ENAMETOOLONG``): no other tool could name what
is inside it.

Entries named ``.git`` are skipped everywhere (like git's own walk); directory symlinks are
reported as ``"symlink"`` entries and never followed. A directory's entries are sorted by
name and yielded together before its subdirectories are entered.

:class:`Walker` is a resumable object: :meth:`Walker.step` advances it by a bounded number
of entries (one worker-thread hop each), so no generator is shared between threads.
:func:`count_below` counts the files inside an excluded directory within an entry budget
(:mod:`pathgate.runtime._below`, re-exported here with the listing helpers).
"""

from __future__ import annotations

import errno
import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import NamedTuple

from pathgate.runtime._below import (
    DIR,
    FILE,
    MAX_OPEN_DIRS,
    OTHER,
    SYMLINK,
    ListingRecord,
    _by_name,
    _err,
    _is_git,
    _kind,
    _list_os,
    _too_long,
    count_below,
    list_files_below,
    multi_linked,
    open_below,
)
from pathgate.runtime.fs import DIR_FLAGS, PATH_MAX, DirEntryLike, OsFS, SyncFS
from pathgate.runtime.ignore import DirNode, IgnoreSession, Match

__all__ = ["DIR", "FILE", "KINDS", "MAX_OPEN_DIRS", "OTHER", "SYMLINK", "Entry", "GcPaused", "ListingRecord", "Record",
           "Walker", "count_below", "list_files_below", "multi_linked", "open_below", "walk"]

#: Entries :func:`walk` asks for per step.
STEP = 4096


class Entry(NamedTuple):
    """One walked entry.

    ``relpath`` is project-relative; ``kind`` one of ``file``/``dir``/``symlink``/``other``;
    ``match`` is ``None`` for a kept entry and the deciding :class:`Match` for an excluded
    one; ``error`` names the errno when a kept directory could not be entered or listed
    (a second entry for it, after the first; nothing below it was walked). ``links`` is
    the ``lstat`` of a regular file with more than one link (a possible hard-link alias
    of a secret: discovery asks the secret-inode registry about it), else ``None``.
    """

    relpath: str
    kind: str
    match: Match | None = None
    error: str | None = None
    links: os.stat_result | None = None

    @property
    def excluded(self) -> bool:
        return self.match is not None


#: The kinds in the order of their codes in record mode (:data:`Record`).
KINDS = (FILE, DIR, SYMLINK, OTHER)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
_FILE_CODE, _DIR_CODE, _SYMLINK_CODE, _OTHER_CODE = range(4)

#: Record mode's sink: ``record(relpath, node, names, kinds, matches, stat)`` per listed
#: directory, its entries in the walker's order: their basenames, one :data:`KINDS` code
#: each, their ignore :class:`Match` (``None`` when kept; the list itself ``None`` when
#: none is excluded) and the directory's ``fstat`` taken before its listing (``stat_dirs``).
Record = Callable[[str, DirNode, list[str], bytearray, "list[Match | None] | None", "os.stat_result | None"],
                  None]

_NONE: frozenset[str] = frozenset()
#: ``_entry(Entry, (relpath, kind, match, error, links))`` is ``Entry(relpath, kind, match,
#: error, links)`` without the named tuple's Python-level ``__new__`` (per walked entry)
_entry = tuple.__new__


_gc_lock = threading.Lock()
_gc_paused = 0  # steps running now with the cyclic collector paused by :func:`_pause_gc`
_gc_since = 0.0  # when the current pause began (monotonic seconds)
#: Seconds the steps of several threads may keep the collector paused without a break
#: (walks without end, one after another) before a step ending collects anyway.
GC_MAX_PAUSE = 5.0


def _pause_gc() -> bool:
    """Pause the cyclic garbage collector for one bounded walker step (``True``: paused
    here, :func:`_resume_gc` must follow). A step allocates thousands of small containers
    that are never cyclic garbage (listings, nodes, records); each full collection the
    allocations trigger meanwhile traverses every object the process holds (measured: a
    fifth of a first scan's CPU). Steps of several threads nest: the collector runs again
    when the last one ends, and is left alone if the process had turned it off."""
    global _gc_paused, _gc_since
    with _gc_lock:
        if _gc_paused == 0:
            if not gc.isenabled():
                return False
            gc.disable()
            _gc_since = time.monotonic()
        _gc_paused += 1
        return True


def _resume_gc() -> None:
    """End one step's pause: the collector runs again when no step holds it; while steps
    of other threads have held it for :data:`GC_MAX_PAUSE` seconds on end, this one
    collects (cyclic garbage made meanwhile is not kept without bound)."""
    global _gc_paused, _gc_since
    with _gc_lock:
        _gc_paused -= 1
        if _gc_paused == 0:
            gc.enable()
            return
        now = time.monotonic()
        if now - _gc_since < GC_MAX_PAUSE:
            return
        _gc_since = now
    gc.collect()


class GcPaused:
    """``with GcPaused():`` the cyclic collector paused as one walker step pauses it
    (:func:`_pause_gc`): for a caller that builds a whole walk's records in one go."""

    __slots__ = ("_paused",)

    def __enter__(self) -> None:
        self._paused = _pause_gc()

    def __exit__(self, *exc: object) -> None:
        if self._paused:
            _resume_gc()


class _Frame:
    """A listed directory whose subdirectories are still to be entered: its descriptor
    (``None`` once released over :data:`MAX_OPEN_DIRS`; then ``ident`` is checked when it
    is re-opened from the root) and those subdirectories, ``(name, relpath, decision)``,
    the next one last."""

    __slots__ = ("fd", "ident", "node", "rel", "todo")

    def __init__(self, rel: str, fd: int, node: DirNode, todo: list[tuple[str, str, Match]]) -> None:
        self.rel = rel
        self.fd: int | None = fd
        self.ident: tuple[int, int] | None = None
        self.node = node
        self.todo = todo


class Walker:
    """A resumable, descriptor-anchored walk below directory ``start`` (``""``: the root).

    ``descend(relpath)`` is consulted for every kept directory before entering it (a glob's
    directory pre-filter); the directory itself is still yielded. ``want(relpath)`` filters
    non-directory entries before anything is decided about them. ``start`` itself is not
    yielded unless it is excluded (then it is the only entry). An error opening or listing
    ``start`` propagates from the first :meth:`step`; deeper ones become error entries.

    A directory's descriptor is held only while some of its subdirectories are still to be
    entered (a chain of single subdirectories costs one or two descriptors at any depth);
    past ``max_open`` the oldest held one is released and later re-opened from the root,
    component by component with ``O_NOFOLLOW``, its ``(st_dev, st_ino)`` checked.

    ``links``: mark regular files with more than one link (:attr:`Entry.links`, one
    ``fstatat`` per file: discovery asks for it only while some secret is multi-linked);
    with ``kept_links`` false only excluded ones (a caller that opens every kept file
    anyway, code_search, tests its descriptor's ``fstat`` instead).

    ``record`` (record mode, the live index's): each listed directory's entries go to
    ``record`` as one listing (:data:`Record`) instead of :class:`Entry` tuples; a step's
    list then holds only the error entries (and an excluded ``start``); no ``want``, no
    link marks. ``stat_dirs``: each directory's ``fstat`` is taken on its descriptor
    before it is listed and passed along.

    One thread advances it at a time; :meth:`close` may come from another thread: if a step
    is running, that step releases the descriptors when it returns.
    """

    def __init__(self, session: IgnoreSession, start: str = "", *,
                 descend: Callable[[str], bool] | None = None,
                 want: Callable[[str], bool] | None = None,
                 max_open: int = MAX_OPEN_DIRS, links: bool = False, kept_links: bool = True,
                 record: Record | None = None, stat_dirs: bool = False) -> None:
        self.session = session
        self.links = links
        self.kept_links = kept_links
        self.record = record
        self.stat_dirs = stat_dirs
        self._seen = 0  # entries recorded by the current step (record mode)
        self.fs: SyncFS = session.index.fs
        # per directory: open, list, close. The real filesystem's calls are made without a
        # Python frame each (a walk enters tens of thousands of directories); any other
        # ``fs`` (a test seam) is called as given
        native = type(self.fs) is OsFS
        self._open_dir: Callable[..., int] = partial(os.open, flags=DIR_FLAGS) if native else self.fs.open_dir
        self._close: Callable[[int], None] = os.close if native else self.fs.close
        self._list: Callable[[int, str], list[DirEntryLike]] = _list_os if native else self._list_fs
        self._fstat: Callable[[int], os.stat_result] = os.fstat if native else self.fs.fstat
        self.root = session.index.root
        self.start = start.strip("/")
        self.descend = descend
        self.want = want
        self.max_open = max(1, max_open)
        self._fold = session.ignore_case
        self._names = session.ignore_names
        # the listed directories with subdirectories still to enter, the innermost last
        self._stack: list[_Frame] = []
        self._held = 0  # frames holding a descriptor
        self._root_len = len(os.fsencode(self.root))
        self._root_slash = self.root.rstrip("/") + "/"
        self._started = False
        self._closed = False
        self._lock = threading.Lock()
        self._running = False

    def _list_fs(self, fd: int, rel: str) -> list[DirEntryLike]:
        return sorted(self.fs.scandir_fd(fd, self._root_slash + rel if rel else self.root), key=_by_name)

    @property
    def done(self) -> bool:
        """Is the walk over (or closed)? (In record mode a step may return no entry
        before the end.)"""
        return self._closed or (self._started and not self._stack)

    @property
    def open_fds(self) -> int:
        """Descriptors held now (tests: none after :meth:`close`)."""
        return self._held

    def step(self, n: int = STEP) -> list[Entry]:
        """At least ``n`` more entries (a directory's entries come together), or ``[]`` when
        the walk is done or closed."""
        with self._lock:
            if self._closed:
                return []
            self._running = True
        paused = _pause_gc()
        try:
            out: list[Entry] = []
            self._seen = 0
            if not self._started:
                self._started = True
                self._begin(out)
            stack = self._stack
            enter = self._enter
            record = self.record is not None  # (then ``out`` holds only error entries)
            while stack and (len(out) + self._seen if record else len(out)) < n:
                parent = stack[-1]
                todo = parent.todo
                name, rel, decided = todo.pop()
                if not todo:
                    stack.pop()  # its last subdirectory (its descriptor: closed in ``_enter``)
                enter(parent, name, rel, decided, out)
            return out
        except BaseException:
            self._release()
            raise
        finally:
            if paused:
                _resume_gc()
            with self._lock:
                self._running = False
                closed = self._closed
            if closed:
                self._release()

    def close(self) -> None:
        """Release every descriptor (now, or when the running step returns)."""
        with self._lock:
            self._closed = True
            if self._running:
                return
        self._release()

    def _release(self) -> None:
        stack, self._stack = self._stack, []
        self._held = 0
        for f in stack:  # every held frame has a pending subdirectory here
            if f.fd is not None:
                self.fs.close(f.fd)
                f.fd = None

    # -- one directory -------------------------------------------------------------------

    def _begin(self, out: list[Entry]) -> None:
        node = self.session.dir_node(self.start)
        if node.stop is not None:
            out.append(Entry(self.start, DIR, node.stop))
            return
        fd = open_below(self.fs, self.root, self.start)
        try:
            st = self.fs.fstat(fd) if self.stat_dirs else None
            path = self._root_slash + self.start if self.start else self.root
            listing = sorted(self.fs.scandir_fd(fd, path), key=_by_name)
        except BaseException:
            self.fs.close(fd)
            raise
        self._keep(self.start, fd, node, listing, out, st)

    def _enter(self, parent: _Frame, name: str, rel: str, decided: Match, out: list[Entry]) -> None:
        """Open, list and decide one subdirectory of ``parent``."""
        close = self._close
        fd = -1
        try:
            if self._root_len + 1 + 4 * len(rel) > PATH_MAX and _too_long(self._root_len, rel):
                raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
            pfd = parent.fd
            fd = self._open_dir(name, dir_fd=pfd if pfd is not None else self._reopen(parent))
        except OSError as exc:
            out.append(Entry(rel, DIR, None, _err(exc.errno)))
        if not parent.todo and parent.fd is not None:  # its last subdirectory: let go
            close(parent.fd)
            parent.fd = None
            self._held -= 1
        if fd < 0:
            return
        try:
            # its signature before its listing (the live index's first scan)
            st = self._fstat(fd) if self.stat_dirs else None
            listing = self._list(fd, rel)
            # the ignore files its listing shows (absent ones then cost no lstat)
            names = self._names
            present = _NONE if names.isdisjoint(map(_by_name, listing)) else \
                names.intersection(map(_by_name, listing))
            node = self.session.enter_child(parent.node, rel, name, decided, present)
        except OSError as exc:
            close(fd)
            out.append(Entry(rel, DIR, None, _err(exc.errno)))
            return
        except BaseException:
            close(fd)
            raise
        self._keep(rel, fd, node, listing, out, st)

    def _keep(self, rel: str, fd: int, node: DirNode, listing: list[DirEntryLike],
              out: list[Entry], st: os.stat_result | None = None) -> None:
        """Emit (or record) one listed directory's entries; hold its descriptor while
        subdirectories of it are pending."""
        try:
            if self.record is None:
                subdirs = self._entries(rel, node, listing, out)
            else:
                subdirs = self._recorded(rel, node, listing, st)
        except BaseException:
            self._close(fd)
            raise
        if not subdirs:
            self._close(fd)
            return
        subdirs.reverse()
        frame = _Frame(rel, fd, node, subdirs)
        self._stack.append(frame)
        self._held += 1
        if self._held > self.max_open:
            self._evict(frame)

    def _evict(self, keep: _Frame) -> None:
        """Release the outermost held descriptor but ``keep``'s, remembering its identity
        (rare: only a walk inside more than ``max_open`` branching levels gets here)."""
        frame = next(f for f in self._stack if f.fd is not None and f is not keep)
        fd, frame.fd = frame.fd, None
        self._held -= 1
        assert fd is not None
        try:
            st = self.fs.fstat(fd)
            frame.ident = (st.st_dev, st.st_ino)
        except OSError:
            frame.ident = None  # re-opening it will fail (reported on its subdirectories)
        finally:
            self.fs.close(fd)

    def _reopen(self, frame: _Frame) -> int:
        """Re-open a released directory from the root (``O_NOFOLLOW`` per component) and
        confirm it is the same directory; hold it again."""
        if frame.ident is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        fd = open_below(self.fs, self.root, frame.rel)
        try:
            st = self.fs.fstat(fd)
        except BaseException:
            self.fs.close(fd)
            raise
        if (st.st_dev, st.st_ino) != frame.ident:
            self.fs.close(fd)
            raise OSError(errno.ENOENT, "directory moved during the walk")
        frame.fd = fd
        self._held += 1
        if self._held > self.max_open:
            self._evict(frame)
        return fd

    def _entries(self, rel: str, node: DirNode, listing: list[DirEntryLike],
                 out: list[Entry]) -> list[tuple[str, str, Match]]:
        """Decide and emit one directory's entries; return the subdirectories to enter."""
        fold = self._fold
        want = self.want
        prefix = rel + "/" if rel else ""
        if node.stop is not None:
            # fail-closed directory: every entry is blocked, nothing below is entered
            for e in listing:
                if _is_git(e.name, fold):
                    continue
                kind, is_dir = _kind(e)
                crel = prefix + e.name
                if want is not None and not is_dir and not want(crel):
                    continue
                out.append(Entry(crel, kind, node.stop, None,
                                 multi_linked(e) if self.links and kind == FILE else None))
            return []
        decide = self.session.decide_entry
        # (folded or non-ASCII views: decide_entry makes them)
        plan = None if fold or not rel.isascii() else node.plan
        descend = self.descend
        marks, kept_marks = self.links, self.kept_links
        subdirs: list[tuple[str, str, Match]] = []
        for e in listing:
            name = e.name
            if name == ".git" or (fold and name.lower() == ".git"):
                continue
            crel = prefix + name
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                kind = DIR
            elif want is not None and not want(crel):
                continue  # cheap filter first: an unwanted file is never decided
            else:
                try:  # _kind(e) knowing it is not a directory
                    kind = SYMLINK if e.is_symlink() else FILE if e.is_file(follow_symlinks=False) else OTHER
                except OSError:
                    kind = OTHER
            # an ASCII path is its own view: the node's plan decides it (``decide_entry``'s
            # own route, without its call)
            m = plan.decide(crel, name, is_dir) if plan is not None and name.isascii() else \
                decide(node, crel, name, is_dir)
            links = None
            if marks and kind is FILE and (kept_marks or m.ignored):  # multi_linked(e), inline
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    pass
                else:
                    links = st if st.st_nlink > 1 else None
            if m.ignored:
                out.append(_entry(Entry, (crel, kind, m, None, links)))
                continue
            out.append(_entry(Entry, (crel, kind, None, None, links)))
            if is_dir and (descend is None or descend(crel)):
                subdirs.append((name, crel, m))
        return subdirs


    def _recorded(self, rel: str, node: DirNode, listing: list[DirEntryLike],
                  st: os.stat_result | None) -> list[tuple[str, str, Match]]:
        """Record mode: decide one directory's entries as :meth:`_entries` does (no
        ``want``, no link marks) and hand them to :attr:`record` as one listing; return
        the subdirectories to enter."""
        fold = self._fold
        prefix = rel + "/" if rel else ""
        names: list[str] = []
        kinds = bytearray()
        matches: list[Match | None] | None = None
        subdirs: list[tuple[str, str, Match]] = []
        if node.stop is not None:  # fail-closed directory: every entry is blocked
            for e in listing:
                if _is_git(e.name, fold):
                    continue
                names.append(e.name)
                kinds.append(_KIND_CODE[_kind(e)[0]])
            matches = [node.stop] * len(names)
        else:
            decide = self.session.decide_entry
            plan = None if fold or not rel.isascii() else node.plan
            descend = self.descend
            for e in listing:
                name = e.name
                if name == ".git" or (fold and name.lower() == ".git"):
                    continue
                crel = prefix + name
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    code = _DIR_CODE
                else:
                    try:  # _kind(e) knowing it is not a directory
                        code = _SYMLINK_CODE if e.is_symlink() else \
                            _FILE_CODE if e.is_file(follow_symlinks=False) else _OTHER_CODE
                    except OSError:
                        code = _OTHER_CODE
                m = plan.decide(crel, name, is_dir) if plan is not None and name.isascii() else \
                    decide(node, crel, name, is_dir)  # (as in _entries)
                if m.ignored:
                    if matches is None:
                        matches = [None] * len(names)
                    matches.append(m)
                else:
                    if matches is not None:
                        matches.append(None)
                    if is_dir and (descend is None or descend(crel)):
                        subdirs.append((name, crel, m))
                names.append(name)
                kinds.append(code)
        self._seen += len(names)
        assert self.record is not None
        self.record(rel, node, names, kinds, matches, st)
        return subdirs


def walk(session: IgnoreSession, start: str = "", *,
         descend: Callable[[str], bool] | None = None,
         want: Callable[[str], bool] | None = None) -> Iterator[Entry]:
    """:class:`Walker` as an iterator (single-threaded callers); closing it releases the
    walk's descriptors."""
    w = Walker(session, start, descend=descend, want=want)
    try:
        while True:
            chunk = w.step()
            if not chunk:
                return
            yield from chunk
    finally:
        w.close()
