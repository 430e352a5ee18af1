"""The filesystem seam: every stat, scandir, open and read pathgate does goes through here.

Two layers:

* :class:`SyncFS` — blocking calls used by the ignore engine and the pruning walker, which
  run inside worker threads (``anyio.to_thread.run_sync``). :class:`OsFS` is the real one.
  Tests inject faults by subclassing it (``EACCES`` on one ignore file, a swap between
  check and read, ...), which also lets root exercise fault paths that chmod cannot.
* The async backends used by ``read_files`` live further down this module (added with the
  gate pipeline).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Protocol

__all__ = ["DirEntryLike", "OsFS", "SyncFS"]


class DirEntryLike(Protocol):
    """The part of :class:`os.DirEntry` the walker uses."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_symlink(self) -> bool: ...


class SyncFS(Protocol):
    """Blocking filesystem calls. Paths are absolute ``str`` (surrogate-escaped bytes)."""

    def lstat(self, path: str) -> os.stat_result: ...
    def stat(self, path: str) -> os.stat_result: ...
    def read_bytes(self, path: str) -> bytes:
        """Read a whole small file (an ignore file, a git config). Must not follow a
        symlink at the last component (raise ``OSError(ELOOP)`` instead)."""
        ...
    def scandir(self, path: str) -> Iterator[DirEntryLike]: ...


class OsFS:
    """The real filesystem."""

    def lstat(self, path: str) -> os.stat_result:
        return os.lstat(path)

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def read_bytes(self, path: str) -> bytes:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            chunks: list[bytes] = []
            while True:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def scandir(self, path: str) -> Iterator[DirEntryLike]:
        with os.scandir(path) as it:
            yield from it
