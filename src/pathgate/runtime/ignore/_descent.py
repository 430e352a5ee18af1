"""Descriptors for a deep top-down validation: each directory opened from its parent's.

An :class:`~pathgate.runtime.ignore._session.IgnoreSession` validates a directory's ignore
files by ``lstat``-ing them. By path, a directory ``k`` levels deep costs the kernel ``k``
component lookups per ``lstat``, so validating every level of a 1,000-level path costs a
quadratic number of them (~0.1 s). :class:`Descent` hands the session, for the levels past
:data:`DEEP`, a descriptor of the directory opened from its parent's descriptor (one
component lookup), so each level costs a constant number.

Answers are the path's: a level is opened exactly as the path's resolution walks it (an
``O_PATH`` open of one component that follows a symlink, as an intermediate component of
``root/rel/.gitignore`` is followed; search permission on the parent is all either needs).
Wherever that cannot be done the same way the session falls back to the path (``None``): a
path the kernel would refuse as too long (its ``ENAMETOOLONG`` is the answer), a failed open
(the path's ``lstat`` then fails, or succeeds, just as before), a filesystem seam.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

__all__ = ["DEEP", "Descent"]

#: Levels (``/`` in the relpath) from which a descent opens directories: above them a path
#: is short and its ``lstat`` costs about what an open would.
DEEP = 16
_PATH_MAX = 4096  # Linux's, with its NUL: a longer path is refused whole
_O_PATH: int | None = getattr(os, "O_PATH", None)
_FLAGS = (_O_PATH or 0) | os.O_DIRECTORY | os.O_CLOEXEC


class Descent:
    """The descriptor of each directory of one top-down walk (``descent(rel)``), for its
    duration; :meth:`close` closes the one it holds (at most one).

    ``chain``: the directories the walk will ask for, top down (each the parent of the
    next): asked in that order, each costs no string scan (its depth is its place); asked
    otherwise, it is still answered. Once a level cannot be opened, or is too long for a
    path, the levels below it are answered ``None`` at once (their paths fail as its does)."""

    __slots__ = ("_chain", "_dead", "_depth", "_fd", "_held", "_i", "_own", "_rel", "_room",
                 "_root", "_top")

    def __init__(self, root: str, held: Callable[[str], int | None] | None, longest_name: int,
                 chain: Sequence[str] = ()) -> None:
        self._root = root
        self._held = held
        # bytes left for the relpath in ``root/rel/name`` below the kernel's limit
        self._room = _PATH_MAX - 1 - len(os.fsencode(root)) - 2 - longest_name
        self._rel: str | None = None  # the directory ``_fd`` is, and its depth
        self._depth = 0
        self._fd = -1
        self._own = False
        self._chain = chain
        self._i = 0  # the next place in the chain
        self._top = (chain[0].count("/") + 1 if chain[0] else 0) if chain else 0
        self._dead = len(chain)  # the first place in the chain known to fail

    def __call__(self, rel: str) -> int | None:
        """A descriptor of directory ``rel`` (borrowed: valid until the next call or
        :meth:`close`), or ``None``: the caller goes by path."""
        cur = self._rel
        if rel is cur or (cur is not None and len(rel) == len(cur) and rel == cur):
            return self._fd if self._fd >= 0 else None
        held = self._held
        if held is not None:
            fd = held(rel)
            if fd is not None:
                self._place(rel)
                self._keep(rel, fd, False, -1)
                return fd
        chain, i = self._chain, self._i
        placed = i < len(chain) and rel is chain[i]
        if placed:
            self._i = i + 1
            if i >= self._dead:
                return None  # (by path, as a level above it went)
            depth = self._top + i
            parent = cur is not None and i > 0 and cur is chain[i - 1]
        else:
            parent = cur is not None and rel.startswith(cur) and (
                rel.rfind("/") == len(cur) if cur else "/" not in rel)
            depth = self._depth + 1 if parent else rel.count("/") + 1 if rel else 0
        if depth < DEEP or _O_PATH is None:
            self._drop()
            return None
        fd = -1
        if len(rel) <= self._room and (rel.isascii() or len(os.fsencode(rel)) <= self._room):
            try:
                if parent and self._fd >= 0:
                    fd = os.open(rel[len(cur) + 1:] if cur else rel, _FLAGS, dir_fd=self._fd)
                else:
                    fd = os.open(f"{self._root}/{rel}", _FLAGS)
            except OSError:
                fd = -1
        if fd < 0:
            # too long for a path, or not there to open: nor is any level below it
            if placed:
                self._dead = min(self._dead, i + 1)
            self._drop()
            return None
        self._keep(rel, fd, True, depth)
        return fd

    def _place(self, rel: str) -> None:
        """Step past ``rel`` in the chain when it is the next place."""
        i = self._i
        if i < len(self._chain) and rel is self._chain[i]:
            self._i = i + 1

    def _keep(self, rel: str, fd: int, own: bool, depth: int) -> None:
        if self._own and self._fd != fd:
            os.close(self._fd)
        self._rel, self._fd, self._own = rel, fd, own
        if depth < 0:
            i = self._i
            depth = self._top + i - 1 if i and rel is self._chain[i - 1] else (
                rel.count("/") + 1 if rel else 0)
        self._depth = depth

    def _drop(self) -> None:
        if self._own:
            os.close(self._fd)
        self._rel, self._fd, self._own, self._depth = None, -1, False, 0

    def close(self) -> None:
        """Close the descriptor this walk opened last (a held one is the caller's)."""
        self._drop()
