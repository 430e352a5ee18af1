"""Bringing the live index's records up to date: the walk that records kept directories,
and the re-listing of the directories queued events (or the first scan's racy window)
name. A mixin of :class:`~pathgate.runtime._live._index.LiveIndex`, whose state
(``_dirs``, ``_ruled``, ``_wds``, ``_names`` …) these methods read and write; split out so
one file holds the index's queries and another its upkeep."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pathgate.runtime._live._events import plan_events
from pathgate.runtime._live._nodes import ancestors, depth, parent, same_root
from pathgate.runtime._live._records import _Dir
from pathgate.runtime._walk import Walker

if TYPE_CHECKING:
    from pathgate.runtime._live._inotify import Inotify
    from pathgate.runtime.ignore import DirNode, IgnoreIndex, IgnoreSession, Match

__all__ = ["Relisting"]


class Relisting:
    """The index's upkeep (see the module docstring)."""

    # the index's state (set by ``LiveIndex.__init__`` and its scan)
    _ignore: IgnoreIndex
    _root: str
    _ino: Inotify | None
    _dirs: dict[str, _Dir]
    _wds: dict[int, str]
    _unwatched: set[str]
    _root_node: DirNode | None
    _ruled: dict[str, DirNode]
    _names: frozenset[str]
    _sigs: dict[str, os.stat_result] | None
    _dirty: set[str]
    _gen: int
    epoch: int
    relists: int

    def _watch(self, rel: str) -> None:
        raise NotImplementedError

    def _drop(self, rel: str) -> None:
        raise NotImplementedError

    def _reset(self, why: str) -> None:
        raise NotImplementedError

    def _walk(self, session: IgnoreSession, start: str, enter: Callable[[str], bool]) -> None:
        """Walk below kept directory ``start`` (its record already reset), recording the
        entries of it and of every subdirectory ``enter`` lets the walker enter (those are
        dropped and watched afresh first). During the first scan (:attr:`_sigs` set) every
        kept directory is entered, its record started when it is listed, and its
        signature, taken on its descriptor before its listing, kept in :attr:`_sigs`."""
        self._gen += 1
        dirs = self._dirs
        ruled = self._ruled
        ruled.pop(start, None)
        sigs = self._sigs
        descend: Callable[[str], bool] | None = None
        if sigs is None:
            def descend(rel: str) -> bool:
                if not enter(rel):
                    return False
                self._drop(rel)
                self._watch(rel)
                return True

        none = self._ignore._no_sigs  # (a node without ignore files: the shared tuple)

        def record(rel: str, node: DirNode, names: list[str], kinds: bytearray,
                   matches: list[Match | None] | None, st: os.stat_result | None) -> None:
            d = dirs.get(rel)
            if d is None:
                if sigs is None:
                    return  # (never: a re-list's subdirectories are watched first)
                d = dirs[rel] = _Dir(-1)
            elif d.error is not None:
                return
            d.listed(names, kinds, matches)
            if st is not None and sigs is not None:
                sigs[rel] = st
            if node.sigs is not none and any(sig is not None for sig in node.sigs):
                ruled[rel] = node

        walker = Walker(session, start, descend=descend, record=record, stat_dirs=sigs is not None)
        try:
            while not walker.done:
                for e in walker.step():  # error entries, or the start itself, excluded now
                    rp = e.relpath
                    if e.error is None:
                        if rp == start:
                            self._drop(start)
                            return
                        continue
                    d = dirs.get(rp)
                    if d is None and sigs is not None:
                        # (no signature: re-listed once watched, as it may be listable by then)
                        d = dirs[rp] = _Dir(-1)
                    if d is not None:
                        d.clear(e)
        finally:
            walker.close()

    # -- at query time ---------------------------------------------------------------------

    def _refresh(self) -> bool:
        """Drain the queued events and bring the touched directories up to date; ``False``
        after an overflow (the index is reset: this query walks)."""
        assert self._ino is not None
        events = self._ino.read_events()
        if events or self._unwatched:
            self.epoch += 1
        session = self._ignore.session()
        root = session.dir_node("")
        if not same_root(root, self._root_node):
            # the root's ignore files or git's global sources changed: everything is re-decided
            self._root_node = root
            if "" not in self._dirs:
                # the root itself was not kept (excluded or fail-closed): nothing to re-list
                self._reset("the root's ignore decision changed")
                return False
            self._relist(session, "", deep=True)
            return True
        plan = plan_events(events, self._wds, self._names, self._unwatched)
        if plan is None:
            self._reset("event queue overflow")
            return False
        shallow, deep, force = plan
        if self._dirty:
            self._relist_dirty(session)
        # ignore files edited with no event on their directory's watch (through another
        # hard link): their nodes, validated by stat as a walk's are, say so
        deep.update(rel for rel, node in self._ruled.items() if not self._ignore.own_files_unchanged(rel, node))
        done: set[str] = set()
        for rel in sorted(shallow | deep, key=depth):
            if rel not in self._dirs or any(a in done for a in ancestors(rel)):
                continue
            is_deep = rel in deep
            self._relist(session, rel, deep=is_deep, force=force)
            if is_deep:
                done.add(rel)
        return True

    def _relist_dirty(self, session: IgnoreSession) -> None:
        """Re-list the directories that changed between the first scan's listing and their
        watch (or too recently to tell): each on its own (its subdirectories are checked
        by their own signatures), its subtree too when the ignore files it holds are not
        the same names (an edit in place is seen by :attr:`_ruled`'s stat check)."""
        dirty, self._dirty = self._dirty, set()
        self.epoch += 1
        names, dirs = self._names, self._dirs
        for rel in sorted(dirty, key=depth):
            d = dirs.get(rel)
            if d is None:
                continue
            had = names.intersection(d.names)
            self._relist(session, rel, deep=False)
            d = dirs.get(rel)
            if d is not None and names.intersection(d.names) != had:
                self._relist(session, rel, deep=True)

    def _relist(self, session: IgnoreSession, rel: str, *, deep: bool,
                force: set[str] | None = None) -> None:
        """Re-list kept directory ``rel`` on its descriptor and re-decide its entries;
        ``deep``: its whole subtree. Subdirectories that are new, in ``force`` or could not
        be entered before are walked afresh; those gone are dropped."""
        d = self._dirs[rel]
        old = d.kept_subdirs(rel)
        self._gen += 1
        d.clear()
        dirs, forced = self._dirs, force or set()
        self.relists += 1

        def enter(crel: str) -> bool:
            if deep or crel in forced:
                return True
            known = dirs.get(crel)
            return known is None or known.error is not None

        try:
            self._walk(session, rel, enter)
        except OSError:
            if not rel:
                raise  # the root cannot be listed: the caller resets
            # it vanished or cannot be entered: its parent's walk says how
            if parent(rel) in dirs:
                self._relist(session, parent(rel), deep=False, force={rel})
            else:
                self._drop(rel)
            return
        if rel not in dirs:
            if rel and parent(rel) in dirs:
                # its own walk found the start excluded (an ignore file of its own that now
                # fails closed): the parent's record still names it, so the parent decides
                # it afresh, as a scan from above does
                self._relist(session, parent(rel), deep=False, force={rel})
            return
        kept = set(dirs[rel].kept_subdirs(rel))
        for sub in old:
            if sub not in kept:
                self._drop(sub)
