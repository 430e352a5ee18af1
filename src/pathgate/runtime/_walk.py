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
:func:`count_below` counts the files inside an excluded directory within an entry budget.
"""

from __future__ import annotations

import errno
import operator
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from pathgate.runtime.fs import PATH_MAX, DirEntryLike, SyncFS
from pathgate.runtime.ignore import DirNode, IgnoreSession, Match

__all__ = ["DIR", "FILE", "MAX_OPEN_DIRS", "OTHER", "SYMLINK", "Entry", "Walker", "count_below", "walk"]

FILE = "file"
DIR = "dir"
SYMLINK = "symlink"
OTHER = "other"

#: Directory descriptors one walk keeps open at most (the chain it is inside).
MAX_OPEN_DIRS = 64
#: Entries :func:`walk` asks for per step.
STEP = 4096


class Entry(NamedTuple):
    """One walked entry.

    ``relpath`` is project-relative; ``kind`` one of ``file``/``dir``/``symlink``/``other``;
    ``match`` is ``None`` for a kept entry and the deciding :class:`Match` for an excluded
    one; ``error`` names the errno when a kept directory could not be entered or listed
    (a second entry for it, after the first; nothing below it was walked).
    """

    relpath: str
    kind: str
    match: Match | None = None
    error: str | None = None

    @property
    def excluded(self) -> bool:
        return self.match is not None


_by_name = operator.attrgetter("name")


def _err(code: int | None) -> str:
    return errno.errorcode.get(code or 0, str(code))


def _kind(e: DirEntryLike) -> tuple[str, bool]:
    try:
        if e.is_dir(follow_symlinks=False):
            return DIR, True
        if e.is_symlink():
            return SYMLINK, False
        if e.is_file(follow_symlinks=False):
            return FILE, False
    except OSError:
        pass
    return OTHER, False


def _is_git(name: str, fold: bool) -> bool:
    return name == ".git" or (fold and name.lower() == ".git")


def _too_long(root: str, rel: str) -> bool:
    return len(os.fsencode(root)) + 1 + len(os.fsencode(rel)) > PATH_MAX


def open_below(fs: SyncFS, root: str, rel: str) -> int:
    """A descriptor of directory ``rel`` opened from ``root`` one component at a time with
    ``O_NOFOLLOW``: a symlink anywhere on the way fails instead of being followed."""
    fd = fs.open_dir(root)
    try:
        for part in rel.split("/") if rel else ():
            nxt = fs.open_dir(part, dir_fd=fd)
            fs.close(fd)
            fd = nxt
    except BaseException:
        fs.close(fd)
        raise
    return fd


@dataclass(slots=True)
class _Frame:
    """A directory the walk is inside: its descriptor (``None`` once released), identity
    and the subdirectories still to enter."""

    rel: str
    fd: int | None
    ident: tuple[int, int]
    node: DirNode
    subdirs: list[tuple[str, str, Match]] = field(default_factory=list)
    next: int = 0


class Walker:
    """A resumable, descriptor-anchored walk below directory ``start`` (``""``: the root).

    ``descend(relpath)`` is consulted for every kept directory before entering it (a glob's
    directory pre-filter); the directory itself is still yielded. ``want(relpath)`` filters
    non-directory entries before anything is decided about them. ``start`` itself is not
    yielded unless it is excluded (then it is the only entry). An error opening or listing
    ``start`` propagates from the first :meth:`step`; deeper ones become error entries.

    One thread advances it at a time; :meth:`close` may come from another thread: if a step
    is running, that step releases the descriptors when it returns.
    """

    def __init__(self, session: IgnoreSession, start: str = "", *,
                 descend: Callable[[str], bool] | None = None,
                 want: Callable[[str], bool] | None = None,
                 max_open: int = MAX_OPEN_DIRS) -> None:
        self.session = session
        self.fs: SyncFS = session.index.fs
        self.root = session.index.root
        self.start = start.strip("/")
        self.descend = descend
        self.want = want
        self.max_open = max(2, max_open)
        self._fold = session.ignore_case
        self._names = session.ignore_names
        self._stack: list[_Frame] = []
        self._started = False
        self._closed = False
        self._lock = threading.Lock()
        self._running = False

    @property
    def open_fds(self) -> int:
        """Descriptors held now (tests: none after :meth:`close`)."""
        return sum(1 for f in self._stack if f.fd is not None)

    def step(self, n: int = STEP) -> list[Entry]:
        """At least ``n`` more entries (a directory's entries come together), or ``[]`` when
        the walk is done or closed."""
        with self._lock:
            if self._closed:
                return []
            self._running = True
        try:
            out: list[Entry] = []
            if not self._started:
                self._started = True
                self._begin(out)
            while len(out) < n and self._stack:
                top = self._stack[-1]
                if top.next < len(top.subdirs):
                    name, crel, decided = top.subdirs[top.next]
                    top.next += 1
                    self._enter(top, name, crel, decided, out)
                else:
                    self._pop()
            return out
        except BaseException:
            self._release()
            raise
        finally:
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
        for f in stack:
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
            listing = self._list(fd, self.start)
            self._push(self.start, fd, node, listing, out)
        except BaseException:
            if not (self._stack and self._stack[-1].fd == fd):
                self.fs.close(fd)
            raise

    def _list(self, fd: int, rel: str) -> list[DirEntryLike]:
        path = f"{self.root}/{rel}" if rel else self.root
        return sorted(self.fs.scandir_fd(fd, path), key=_by_name)

    def _enter(self, parent: _Frame, name: str, rel: str, decided: Match, out: list[Entry]) -> None:
        if _too_long(self.root, rel):
            out.append(Entry(rel, DIR, None, _err(errno.ENAMETOOLONG)))
            return
        fs = self.fs
        try:
            pfd = self._parent_fd(parent)
            fd = fs.open_dir(name, dir_fd=pfd)
        except OSError as exc:
            out.append(Entry(rel, DIR, None, _err(exc.errno)))
            return
        try:
            listing = self._list(fd, rel)
        except OSError as exc:
            fs.close(fd)
            out.append(Entry(rel, DIR, None, _err(exc.errno)))
            return
        except BaseException:
            fs.close(fd)
            raise
        present = frozenset(e.name for e in listing if e.name in self._names)
        try:
            node = self.session.enter_child(parent.node, rel, name, decided, present)
        except BaseException:
            fs.close(fd)
            raise
        self._push(rel, fd, node, listing, out)

    def _push(self, rel: str, fd: int, node: DirNode, listing: list[DirEntryLike],
              out: list[Entry]) -> None:
        """Yield one listed directory's entries; keep its descriptor while it has
        subdirectories to enter."""
        subdirs = self._entries(rel, node, listing, out)
        if not subdirs:
            self.fs.close(fd)
            return
        try:
            st = self.fs.fstat(fd)
        except BaseException:
            self.fs.close(fd)
            raise
        self._stack.append(_Frame(rel, fd, (st.st_dev, st.st_ino), node, subdirs))
        held = [f for f in self._stack if f.fd is not None]
        if len(held) > self.max_open:  # release the outermost held ancestor
            victim = held[0]
            assert victim.fd is not None
            self.fs.close(victim.fd)
            victim.fd = None

    def _parent_fd(self, frame: _Frame) -> int:
        """``frame``'s descriptor, re-opened through its child's ``..`` when released."""
        if frame.fd is not None:
            return frame.fd
        raise OSError(errno.EBADF, "released ancestor re-opened only from a child")

    def _pop(self) -> None:
        frame = self._stack.pop()
        fd = frame.fd
        if fd is None:
            return
        try:
            if self._stack and self._stack[-1].fd is None:
                parent = self._stack[-1]
                try:
                    pfd = self.fs.open_dir("..", dir_fd=fd)
                except OSError:
                    parent.next = len(parent.subdirs)  # cannot go back safely: stop there
                    return
                st = self.fs.fstat(pfd)
                if (st.st_dev, st.st_ino) != parent.ident:
                    self.fs.close(pfd)
                    parent.next = len(parent.subdirs)  # moved during the walk: stop there
                    return
                parent.fd = pfd
        finally:
            self.fs.close(fd)

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
                out.append(Entry(crel, kind, node.stop))
            return []
        decide = self.session.decide_entry
        descend = self.descend
        subdirs: list[tuple[str, str, Match]] = []
        for e in listing:
            name = e.name
            if _is_git(name, fold):
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
                kind = _kind(e)[0]
            m = decide(node, crel, name, is_dir)
            if m.ignored:
                out.append(Entry(crel, kind, m))
                continue
            out.append(Entry(crel, kind, None))
            if is_dir and (descend is None or descend(crel)):
                subdirs.append((name, crel, m))
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


def list_files_below(fs: SyncFS, root: str, start: str, budget: int,
                     on_error: Callable[[str, str], None] | None = None,
                     opaque: Callable[[str], bool] | None = None,
                     ) -> tuple[list[tuple[str, str]], int, bool]:
    """Files (non-directories) below directory ``start`` as ``(relpath, kind)``, without any
    ignore decision, visiting at most ``budget`` entries, on descriptors like the walk
    (depth first, only the open chain held). Returns ``(files, seen, short)``: ``short``
    when the budget ran out. ``.git`` is skipped, symlinks are never followed; a directory
    that cannot be entered is passed to ``on_error(relpath, errno name)`` and skipped.
    ``opaque(relpath)`` true: the entry (and all below it) is skipped before the budget
    sees it, so counts are what they would be without it."""
    out: list[tuple[str, str]] = []
    seen = 0
    try:
        fd = open_below(fs, root, start)
    except OSError as exc:
        if on_error is not None:
            on_error(start, _err(exc.errno))
        return out, 0, False
    # stack of (descriptor, relpath, sorted subdirectory names still to enter)
    stack: list[tuple[int, str, list[str]]] = []
    deep = False
    try:
        cur: tuple[int, str] | None = (fd, start)
        while True:
            if cur is not None:
                cfd, rel = cur
                cur = None
                try:
                    listing = sorted(fs.scandir_fd(cfd, f"{root}/{rel}" if rel else root), key=_by_name)
                except OSError as exc:
                    fs.close(cfd)
                    if on_error is not None:
                        on_error(rel, _err(exc.errno))
                    listing = None
                if listing is not None:
                    subdirs: list[str] = []
                    for e in listing:
                        if e.name == ".git":
                            continue
                        crel = f"{rel}/{e.name}" if rel else e.name
                        if opaque is not None and opaque(crel):
                            continue
                        if seen >= budget:
                            fs.close(cfd)
                            return out, seen, True
                        seen += 1
                        kind, is_dir = _kind(e)
                        if is_dir:
                            subdirs.append(e.name)
                        else:
                            out.append((crel, FILE if kind == FILE else kind))
                    subdirs.reverse()
                    if subdirs and len(stack) < MAX_OPEN_DIRS:
                        stack.append((cfd, rel, subdirs))
                    else:
                        fs.close(cfd)
                        deep = deep or bool(subdirs)  # too deep to count: a lower bound
            if not stack:
                return out, seen, deep
            pfd, prel, names = stack[-1]
            if not names:
                stack.pop()
                fs.close(pfd)
                continue
            name = names.pop()
            crel = f"{prel}/{name}" if prel else name
            if _too_long(root, crel):
                if on_error is not None:
                    on_error(crel, _err(errno.ENAMETOOLONG))
                continue
            try:
                cur = (fs.open_dir(name, dir_fd=pfd), crel)
            except OSError as exc:
                if on_error is not None:
                    on_error(crel, _err(exc.errno))
    finally:
        for sfd, _, _ in stack:
            fs.close(sfd)


def count_below(session: IgnoreSession, excluded_dir: str, budget: int = 10000,
                max_examples: int = 3) -> tuple[int, list[str], bool]:
    """Count the files (non-directories) below ``excluded_dir`` without any ignore
    decision, visiting at most ``budget`` directory entries.

    Returns ``(count, examples, is_lower_bound)``: up to ``max_examples`` relpaths in walk
    order, and whether the budget ran out (then ``count`` is a lower bound). ``.git`` is
    skipped and symlinks are not followed; unlistable directories are skipped.
    """
    files, _, short = list_files_below(session.index.fs, session.index.root, excluded_dir.strip("/"), budget)
    return len(files), [rel for rel, _ in files[:max_examples]], short
