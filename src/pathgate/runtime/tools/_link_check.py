"""Discovery's hard-link tests: is a walked or replayed file a secret's hard link?

:class:`LinkCheck` asks the secret-inode registry (:mod:`pathgate.runtime._links`) only about
multi-linked regular files; :class:`Restat` is a live-index replay's use of it (its records
hold no link counts).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pathgate.runtime._walk import FILE, Entry

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.runtime._links import SecretInodes

__all__ = ["LinkCheck", "Restat", "stat_budget"]

#: Files ``lstat``-ed that cost about one validation of the registry per project directory
#: (a validation ``lstat``-s every directory, ignored ones too, by its whole path).
FILES_PER_DIR = 3


def stat_budget(reg: SecretInodes | None) -> int | None:
    """How many files may be ``lstat``-ed (each multi-linked one put to the registry) before
    one validation of ``reg`` is the cheaper way to know no file can be a secret's alias:
    the walk's choice (``Discovery._plan_marks``), a capped search's count of what it left
    and a live replay's. ``None``: no registry snapshot yet (its size is unknown: files are
    looked at, the registry built only when a multi-linked one is met)."""
    dirs = None if reg is None else reg.dirs
    return None if dirs is None else dirs * FILES_PER_DIR


class LinkCheck:
    """Is a multi-linked regular file (its ``lstat``) a hard link of a secret? Built per
    worker-thread hop: the secret-inode registry is validated once, on the first
    multi-linked file met (none: no I/O at all); ``strict_hard_links`` answers yes for
    every one. :meth:`entry` also notes an alias's relpath in ``aliases``."""

    __slots__ = ("_check", "aliases", "runtime")

    def __init__(self, runtime: GateCore, aliases: set[str]) -> None:
        self.runtime = runtime
        self.aliases = aliases
        self._check: Callable[[os.stat_result], bool] | None = None

    def __call__(self, st: os.stat_result) -> bool:
        return self._checker()(st)

    def armed(self) -> bool:
        """Can any file be a secret's alias now (strict mode, or a multi-linked secret)?"""
        return self._checker() is not _never

    def _checker(self) -> Callable[[os.stat_result], bool]:
        check = self._check
        if check is None:
            pipeline = self.runtime.pipeline
            reg = None if pipeline.strict_hard_links else pipeline.secret_inodes(self.runtime.root)
            if pipeline.strict_hard_links:
                check = _always
            else:
                check = (None if reg is None else reg.checker()) or _never
            self._check = check
        return check

    def entry(self, e: Entry, restat: str | None = None) -> bool:
        """Is walked entry ``e`` a secret's alias (noted in ``aliases``)? ``restat`` (the
        root): a file stored with one link is ``lstat``-ed again first."""
        links = e.links
        if links is None and restat is not None and e.kind == FILE and e.error is None:
            try:
                st = os.lstat(os.path.join(restat, e.relpath))
            except OSError:
                return False
            links = st if st.st_nlink > 1 else None
        if links is None or not self(links):
            return False
        self.aliases.add(e.relpath)
        return True


class Restat:
    """A replay's hard-link test of its stored files (:meth:`Discovery._replay`): each file
    ``lstat``-ed under ``root`` (``None``: none, the records carry their marks) and asked
    about when multi-linked, until ``budget`` files were (``None``: no bound); then one
    validation of the registry decides whether files are looked at any more."""

    __slots__ = ("_budget", "_check", "_root")

    def __init__(self, check: LinkCheck, root: str | None, budget: int | None) -> None:
        self._check, self._root, self._budget = check, root, budget

    def entry(self, e: Entry) -> bool:
        """Is ``e`` a secret's alias (noted in the check's ``aliases``)?"""
        if self._root is not None and self._budget is not None and e.kind == FILE:
            if self._budget == 0:
                self._budget = None
                if not self._check.armed():
                    self._root = None
            else:
                self._budget -= 1
        return self._check.entry(e, self._root)


def _always(st: os.stat_result) -> bool:
    return True


def _never(st: os.stat_result) -> bool:
    return False
