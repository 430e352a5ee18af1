"""The pruning walker shared by glob, list_directory and code_search.

:func:`walk` lists a directory tree through the :class:`~pathgate.runtime.fs.SyncFS`
seam (``os.scandir``), deciding every entry with an
:class:`~pathgate.runtime.ignore.IgnoreSession` as it goes:

* kept entries are yielded with ``match=None`` (files, symlinks, other special files, and
  the directories it enters);
* excluded files are yielded with their :class:`Match`, so tools can count omissions;
* excluded directories are yielded once with their :class:`Match` and **never entered**
  (git cannot re-include anything below them, and their ignore files are never read).

Entries named ``.git`` are skipped everywhere (like git's own walk); directory symlinks
are reported as ``"symlink"`` entries and never followed. Each directory's listing also
tells the ignore engine which of its ignore files exist, so absent ones cost no ``lstat``.
The walk is depth first, a directory's entries sorted by name and yielded together before
its subdirectories are entered. It is synchronous: tools run it in a worker thread.

:func:`count_below` counts the files inside an excluded directory within an entry budget,
for "N matches omitted by ignore rules" notes.
"""

from __future__ import annotations

import errno
import operator
import os
from collections.abc import Callable, Iterator
from typing import NamedTuple

from pathgate.runtime.fs import DirEntryLike
from pathgate.runtime.ignore import DirNode, IgnoreSession, Match

__all__ = ["DIR", "FILE", "OTHER", "SYMLINK", "Entry", "count_below", "walk"]

FILE = "file"
DIR = "dir"
SYMLINK = "symlink"
OTHER = "other"


class Entry(NamedTuple):
    """One walked entry.

    ``relpath`` is project-relative; ``kind`` one of ``file``/``dir``/``symlink``/``other``;
    ``match`` is ``None`` for a kept entry and the deciding :class:`Match` for an excluded
    one; ``error`` names the errno when a kept directory could not be listed (it was
    yielded but not entered).
    """

    relpath: str
    kind: str
    match: Match | None = None
    error: str | None = None

    @property
    def excluded(self) -> bool:
        return self.match is not None


_by_name = operator.attrgetter("name")


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


def walk(session: IgnoreSession, start: str = "", *,
         descend: Callable[[str], bool] | None = None,
         want: Callable[[str], bool] | None = None) -> Iterator[Entry]:
    """Walk the tree below directory ``start`` (project-relative, ``""`` = root).

    ``descend(relpath)`` is consulted for every kept directory before entering it
    (a glob's directory pre-filter); the directory itself is still yielded.
    ``want(relpath)`` filters non-directory entries before anything is decided about them:
    an unwanted file is neither decided nor yielded (a glob's file filter: cheap checks
    before costly ones). Directories are always decided and yielded.
    ``start`` itself is not yielded unless it is excluded (then it is the only entry).
    Listing errors below ``start`` are reported on the directory's entry, not raised;
    an error listing ``start`` itself propagates.
    """
    index = session.index
    fs = index.fs
    root = index.root
    fold = session.ignore_case
    ignore_names = session.ignore_names
    root_slash = root if root.endswith("/") else root + "/"
    start = start.strip("/")
    node = session.dir_node(start)
    if node.stop is not None:
        yield Entry(start, DIR, node.stop)
        return
    first = True
    # stack of (relpath, node-or-None, parent node, name, parent's decision)
    stack: list[tuple[str, DirNode | None, DirNode | None, str, Match | None]] = [
        (start, node, None, "", None)]
    match_in = session.decide_entry
    while stack:
        rel, dnode, parent, dname, decided = stack.pop()
        path = f"{root_slash}{rel}" if rel else root
        try:
            listing = sorted(fs.scandir(path), key=_by_name)
        except OSError as exc:
            if first:
                raise
            yield Entry(rel, DIR, None, errno.errorcode.get(exc.errno or 0, str(exc.errno)))
            continue
        first = False
        if dnode is None:
            assert parent is not None and decided is not None
            present = frozenset(e.name for e in listing if e.name in ignore_names)
            dnode = session.enter_child(parent, rel, dname, decided, present)
        if dnode.stop is not None:
            # fail-closed directory: every entry is blocked, nothing below is entered
            for e in listing:
                name = e.name
                if name == ".git" or (fold and name.lower() == ".git"):
                    continue
                kind, is_dir = _kind(e)
                crel = f"{rel}/{name}" if rel else name
                if want is not None and not is_dir and not want(crel):
                    continue
                yield Entry(crel, kind, dnode.stop)
            continue
        subdirs: list[tuple[str, DirNode | None, DirNode | None, str, Match | None]] = []
        prefix = rel + "/" if rel else ""
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
                kind = _kind(e)[0]
            m = match_in(dnode, crel, name, is_dir)
            if m.ignored:
                yield Entry(crel, kind, m)
                continue
            yield Entry(crel, kind, None)
            if is_dir and (descend is None or descend(crel)):
                subdirs.append((crel, None, dnode, name, m))
        subdirs.reverse()
        stack.extend(subdirs)


def count_below(session: IgnoreSession, excluded_dir: str, budget: int = 10000,
                max_examples: int = 3) -> tuple[int, list[str], bool]:
    """Count the files (non-directories) below ``excluded_dir`` without any ignore
    decision, visiting at most ``budget`` directory entries.

    Returns ``(count, examples, is_lower_bound)``: up to ``max_examples`` relpaths in walk
    order, and whether the budget ran out (then ``count`` is a lower bound). ``.git`` is
    skipped and symlinks are not followed; unlistable directories are skipped.
    """
    fs = session.index.fs
    root = session.index.root
    count = 0
    seen = 0
    examples: list[str] = []
    stack = [excluded_dir.strip("/")]
    while stack:
        rel = stack.pop()
        try:
            listing = sorted(fs.scandir(os.path.join(root, rel) if rel else root),
                             key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[str] = []
        for e in listing:
            if seen >= budget:
                return count, examples, True
            seen += 1
            if e.name == ".git":
                continue
            crel = f"{rel}/{e.name}" if rel else e.name
            if _kind(e)[1]:
                subdirs.append(crel)
            else:
                count += 1
                if len(examples) < max_examples:
                    examples.append(crel)
        subdirs.reverse()
        stack.extend(subdirs)
    return count, examples, False
