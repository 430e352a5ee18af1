"""Listing on directory descriptors, without any ignore decision: what the pruning walker
(:mod:`pathgate.runtime._walk`) shares with the count inside excluded directories.

:func:`list_files_below` lists the files below a directory depth first, on descriptors
like the walk (only the open chain held), within an entry budget: the omission counts of
glob, list_directory and code_search, and the live index's remembered listings of
excluded directories. The helpers here (kinds of entries, link marks, the ``PATH_MAX``
test, a sorted listing, opening below the root without following links) are the walker's
too.
"""

from __future__ import annotations

import errno
import operator
import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from pathgate.runtime.fs import DIR_FLAGS, PATH_MAX, DirEntryLike, OsFS, SyncFS

if TYPE_CHECKING:
    from pathgate.runtime.ignore import IgnoreSession

__all__ = ["DIR", "FILE", "MAX_OPEN_DIRS", "OTHER", "SYMLINK", "ListingRecord", "count_below", "list_files_below",
           "multi_linked", "open_below"]

FILE = "file"
DIR = "dir"
SYMLINK = "symlink"
OTHER = "other"

#: Directory descriptors one walk keeps open at most (the chain it is inside).
MAX_OPEN_DIRS = 64

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


def multi_linked(e: DirEntryLike) -> os.stat_result | None:
    """The ``lstat`` of regular-file entry ``e`` when it has more than one link (one
    ``fstatat`` on the listed directory's descriptor), else ``None``. Unstat-able: ``None``
    (it vanished; opening it later fails or is judged on its descriptor)."""
    try:
        st = e.stat(follow_symlinks=False)
    except OSError:
        return None
    return st if st.st_nlink > 1 else None


def _is_git(name: str, fold: bool) -> bool:
    return name == ".git" or (fold and name.lower() == ".git")


def _too_long(root_len: int, rel: str) -> bool:
    """Would ``root/rel`` (``root_len``: bytes of the root) exceed ``PATH_MAX``?"""
    if root_len + 1 + 4 * len(rel) <= PATH_MAX:  # a character is at most 4 bytes encoded
        return False
    return root_len + 1 + (len(rel) if rel.isascii() else len(os.fsencode(rel))) > PATH_MAX


def _list_os(fd: int, path: str) -> list[DirEntryLike]:
    """The real filesystem's listing of the directory open on ``fd``, sorted by name."""
    with os.scandir(fd) as it:
        return sorted(it, key=_by_name)


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


class ListingRecord:
    """What :func:`list_files_below` saw, for remembering its result: each listed
    directory's relpath and ``fstat`` (taken on its descriptor *before* it was listed),
    whether a regular file it counted had more than one link (or could not be ``lstat``-ed),
    and whether some directory could not be entered or listed."""

    __slots__ = ("dirs", "failed", "multi")

    def __init__(self) -> None:
        self.dirs: list[tuple[str, os.stat_result]] = []
        self.multi = False
        self.failed = False


def list_files_below(fs: SyncFS, root: str, start: str, budget: int,
                     on_error: Callable[[str, str], None] | None = None,
                     opaque: Callable[[str], bool] | None = None,
                     linked: Callable[[os.stat_result], bool] | None = None,
                     opener: Callable[[str], int] | None = None,
                     record: ListingRecord | None = None,
                     ) -> tuple[list[tuple[str, str]], int, bool]:
    """Files (non-directories) below directory ``start`` as ``(relpath, kind)``, without any
    ignore decision, visiting at most ``budget`` entries, on descriptors like the walk
    (depth first, only the open chain held). Returns ``(files, seen, short)``: ``short``
    when the budget ran out. ``.git`` is skipped, symlinks are never followed; a directory
    that cannot be entered is passed to ``on_error(relpath, errno name)`` and skipped.
    ``opaque(relpath)`` true: the entry (and all below it) is skipped before the budget
    sees it, so counts are what they would be without it; so is a multi-linked regular file
    whose ``lstat`` ``linked`` says is a secret's hard link. ``opener(start)``: a new
    descriptor of ``start`` opened without following links (default: from the root, one
    component at a time; a caller counting many directories opens each from a held parent).
    ``record``: filled with what the listing saw (see :class:`ListingRecord`); with it,
    every counted regular file is ``lstat``-ed when ``linked`` is given."""
    out: list[tuple[str, str]] = []
    seen = 0
    root_len = len(os.fsencode(root))
    native = type(fs) is OsFS  # as in Walker: the real filesystem's calls without a frame each
    listdir = _list_os if native else (lambda fd, path: sorted(fs.scandir_fd(fd, path), key=_by_name))
    open_dir: Callable[..., int] = partial(os.open, flags=DIR_FLAGS) if native else fs.open_dir
    close: Callable[[int], None] = os.close if native else fs.close
    fstat: Callable[[int], os.stat_result] = os.fstat if native else fs.fstat
    if record is not None:
        on_error = _noting(record, on_error)
    try:
        fd = open_below(fs, root, start) if opener is None else opener(start)
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
                    if record is not None:
                        record.dirs.append((rel, fstat(cfd)))
                    listing = listdir(cfd, f"{root}/{rel}" if rel else root)
                except OSError as exc:
                    close(cfd)
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
                        kind, is_dir = _kind(e)
                        if linked is not None and kind == FILE:
                            links = multi_linked(e) if record is None else _noted_links(e, record)
                            if links is not None and linked(links):
                                continue
                        if seen >= budget:
                            close(cfd)
                            return out, seen, True
                        seen += 1
                        if is_dir:
                            subdirs.append(e.name)
                        else:
                            out.append((crel, FILE if kind == FILE else kind))
                    subdirs.reverse()
                    if subdirs and len(stack) < MAX_OPEN_DIRS:
                        stack.append((cfd, rel, subdirs))
                    else:
                        close(cfd)
                        deep = deep or bool(subdirs)  # too deep to count: a lower bound
            if not stack:
                return out, seen, deep
            pfd, prel, names = stack[-1]
            if not names:
                stack.pop()
                close(pfd)
                continue
            name = names.pop()
            crel = f"{prel}/{name}" if prel else name
            if _too_long(root_len, crel):
                if on_error is not None:
                    on_error(crel, _err(errno.ENAMETOOLONG))
                continue
            try:
                cur = (open_dir(name, dir_fd=pfd), crel)
            except OSError as exc:
                if on_error is not None:
                    on_error(crel, _err(exc.errno))
    finally:
        for sfd, _, _ in stack:
            close(sfd)


def _noting(record: ListingRecord, on_error: Callable[[str, str], None] | None) -> Callable[[str, str], None]:
    """``on_error`` that also marks ``record`` as failed."""
    def noted(rel: str, err: str) -> None:
        record.failed = True
        if on_error is not None:
            on_error(rel, err)
    return noted


def _noted_links(e: DirEntryLike, record: ListingRecord) -> os.stat_result | None:
    """:func:`multi_linked`, noting in ``record`` a file with more than one link or none
    to be found."""
    try:
        st = e.stat(follow_symlinks=False)
    except OSError:
        record.multi = True
        return None
    if st.st_nlink > 1:
        record.multi = True
        return st
    return None


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
