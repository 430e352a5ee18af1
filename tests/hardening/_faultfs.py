"""A fault-injecting filesystem seam for the hardening tests.

:class:`FaultFS` extends the gate tests' :class:`SeamFS` (open counting, unreadable ignore
files, hooks before open and after fstat) with:

* ``fail[(op, path)] = errno`` — raise ``OSError(errno)`` from ``op`` on ``path`` (absolute;
  ``"*"`` for any path); ``times[(op, path)] = n`` limits it to the next ``n`` calls;
* ``on_scandir[path] = hook`` — run ``hook()`` once right before ``path`` is listed (an
  ignore file rewritten or deleted during a walk); the ``"scandir"`` faults and hooks apply
  to path listings and to descriptor listings (``scandir_fd``, keyed by the directory's
  absolute path) alike;
* ``delay`` — seconds each blocking call sleeps (cancellation points inside worker threads).
"""

from __future__ import annotations

import errno as errno_mod
import os
import time
from collections.abc import Callable, Iterator

from pathgate.runtime.fs import DirEntryLike
from tests.runtime.gates._tree import SeamFS

OPS = ("lstat", "stat", "read_bytes", "scandir", "readlink", "open_fd", "open_dir", "fstat", "read_fd")


class FaultFS(SeamFS):
    def __init__(self) -> None:
        super().__init__()
        self.fail: dict[tuple[str, str], int] = {}
        self.times: dict[tuple[str, str], int] = {}
        self.on_scandir: dict[str, Callable[[], None]] = {}
        self.delay = 0.0
        self.raised: list[tuple[str, str, int]] = []

    def _check(self, op: str, path: str) -> None:
        if self.delay:
            time.sleep(self.delay)
        for key in ((op, path), (op, "*")):
            code = self.fail.get(key)
            if code is None:
                continue
            left = self.times.get(key)
            if left is not None:
                if left <= 0:
                    continue
                self.times[key] = left - 1
            self.raised.append((op, path, code))
            raise OSError(code, os.strerror(code), path)

    @staticmethod
    def _full(path: str, dir_fd: int | None) -> str:
        if dir_fd is None:
            return path
        return os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)

    def lstat(self, path: str) -> os.stat_result:
        self._check("lstat", path)
        return super().lstat(path)

    def stat(self, path: str) -> os.stat_result:
        self._check("stat", path)
        return super().stat(path)

    def read_bytes(self, path: str) -> bytes:
        self._check("read_bytes", path)
        return super().read_bytes(path)

    def scandir(self, path: str) -> Iterator[DirEntryLike]:
        hook = self.on_scandir.pop(path, None)
        if hook is not None:
            hook()
        self._check("scandir", path)
        return super().scandir(path)

    def scandir_fd(self, fd: int, path: str) -> Iterator[DirEntryLike]:
        hook = self.on_scandir.pop(path, None)
        if hook is not None:
            hook()
        self._check("scandir", path)
        return super().scandir_fd(fd, path)

    def readlink(self, path: str) -> str:
        self._check("readlink", path)
        return super().readlink(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        self._check("open_fd", self._full(path, dir_fd))
        return super().open_fd(path, dir_fd)

    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        self._check("open_dir", self._full(path, dir_fd))
        return super().open_dir(path, dir_fd)

    def fstat(self, fd: int) -> os.stat_result:
        self._check("fstat", self._fd_paths.get(fd, "?"))
        return super().fstat(fd)

    def read_fd(self, fd: int, n: int) -> bytes:
        self._check("read_fd", self._fd_paths.get(fd, "?"))
        return super().read_fd(fd, n)


ERRNOS = {
    "EACCES": errno_mod.EACCES,
    "EIO": errno_mod.EIO,
    "ENAMETOOLONG": errno_mod.ENAMETOOLONG,
    "ELOOP": errno_mod.ELOOP,
    "EMFILE": errno_mod.EMFILE,
}
