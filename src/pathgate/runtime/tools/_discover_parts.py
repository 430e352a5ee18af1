"""Pieces of a discovery walk (:mod:`._discover`): the hard-link test of walked files
(:class:`_LinkCheck`) and a walk's first step taken in its start directory's hop
(:class:`_Ahead`, what a tool's :data:`WalkPlan` lets :meth:`Discovery.start_dir
<pathgate.runtime.tools._discover.Discovery.start_dir>` do)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pathgate.runtime._walk import FILE, Entry, Walker

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["WalkPlan"]


#: What a tool's walk plan gives for its start directory's relpath: ``descend``, ``want``,
#: ``kept_links`` (:meth:`Discovery.walk`'s arguments).
WalkPlan = Callable[[str], tuple[Callable[[str], bool] | None, Callable[[str], bool] | None, bool]]


class _Ahead:
    """A walk's first step run in its start directory's hop (:meth:`Discovery._walk_ahead`):
    the walker, its hard-link test, the step's entries or its error."""

    __slots__ = ("check", "chunk", "error", "kept_links", "start", "walker")

    def __init__(self, start: str, kept_links: bool, walker: Walker, check: _LinkCheck | None,
                 chunk: list[Entry], error: OSError | None) -> None:
        self.start = start
        self.kept_links = kept_links
        self.walker = walker
        self.check = check
        self.chunk = chunk
        self.error = error


class _LinkCheck:
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


def _always(st: os.stat_result) -> bool:
    return True


def _never(st: os.stat_result) -> bool:
    return False
