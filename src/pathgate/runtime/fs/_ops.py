"""The blocking filesystem seam: protocols and the real implementation.

:class:`SyncFS` is what the ignore engine and the walker call (inside worker threads);
:class:`FileOps` what descriptor-anchored reads call. :class:`OsFS` implements both, so one
fault-injecting subclass (tests) serves the engine, the walk and the reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Protocol, runtime_checkable

__all__ = ["DIR_FLAGS", "LOCAL_FS_TYPES", "OPEN_FLAGS", "DirEntryLike", "FileOps", "OsFS", "SyncFS",
           "is_local_tree"]


class DirEntryLike(Protocol):
    """The part of :class:`os.DirEntry` the walker uses."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> str: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_symlink(self) -> bool: ...
    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result: ...


class SyncFS(Protocol):
    """Blocking filesystem calls. Paths are absolute ``str`` (surrogate-escaped bytes)."""

    def lstat(self, path: str) -> os.stat_result: ...
    def stat(self, path: str) -> os.stat_result: ...
    def read_bytes(self, path: str) -> bytes:
        """Read a whole small regular file (an ignore file), bounded. Must not follow a
        symlink at the last component (raise ``OSError(ELOOP)`` instead), never block on
        a FIFO and never read a special file (``EINVAL``; ``EISDIR`` for a directory) nor
        more than the cap (``EFBIG``): see :func:`~pathgate.runtime.fs.read_regular`."""
        ...
    def scandir(self, path: str) -> Iterator[DirEntryLike]: ...
    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        """Open a directory with ``O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`` (relative to
        ``dir_fd`` when given): a symlink in its place fails (``ELOOP``/``ENOTDIR``)."""
        ...
    def scandir_fd(self, fd: int, path: str) -> Iterator[DirEntryLike]:
        """List the directory open on ``fd`` (``path`` is its absolute spelling, for
        messages and fault injection only: it is never opened)."""
        ...
    def fstat(self, fd: int) -> os.stat_result: ...
    def close(self, fd: int) -> None: ...


@runtime_checkable
class FileOps(Protocol):
    """Blocking calls of ``read_files`` (run in worker threads, or wrapped by aiofiles)."""

    def lstat(self, path: str) -> os.stat_result: ...
    def readlink(self, path: str) -> str: ...
    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        """Open a file for reading with ``O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`` (relative to
        ``dir_fd`` when given); return the fd."""
        ...
    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        """Open a directory with ``O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC`` (relative to
        ``dir_fd`` when given): a symlink in its place fails."""
        ...
    def fstat(self, fd: int) -> os.stat_result: ...
    def read_fd(self, fd: int, n: int) -> bytes:
        """One ``read(2)`` of at most ``n`` bytes (may be short; ``b""`` at end of file)."""
        ...
    def close(self, fd: int) -> None: ...


OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OsFS:
    """The real filesystem (both :class:`SyncFS` and :class:`FileOps`)."""

    def lstat(self, path: str) -> os.stat_result:
        return os.lstat(path)

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def read_bytes(self, path: str) -> bytes:
        from pathgate.runtime.fs import _read

        return _read.read_regular(path, _read.MAX_IGNORE_BYTES)

    def scandir(self, path: str) -> Iterator[DirEntryLike]:
        with os.scandir(path) as it:
            yield from it

    def scandir_fd(self, fd: int, path: str) -> Iterator[DirEntryLike]:
        with os.scandir(fd) as it:  # listed at once: no generator frame per entry (walks)
            return iter(list(it))

    def readlink(self, path: str) -> str:
        return os.readlink(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        return os.open(path, OPEN_FLAGS, dir_fd=dir_fd)

    def open_dir(self, path: str, dir_fd: int | None = None) -> int:
        return os.open(path, DIR_FLAGS, dir_fd=dir_fd)

    def fstat(self, fd: int) -> os.stat_result:
        return os.fstat(fd)

    def read_fd(self, fd: int, n: int) -> bytes:
        return os.read(fd, n)

    def close(self, fd: int) -> None:
        os.close(fd)



#: Filesystem types (``/proc/self/mountinfo``) whose ``lstat``/``open`` of a cached entry
#: never waits on a network: the only ones a read may be done on the event loop for
#: (``read_files``' inline one-file read). NFS, SMB/CIFS, FUSE (sshfs, ...), 9p, Ceph,
#: GlusterFS, Lustre and anything unknown are not in it.
LOCAL_FS_TYPES = frozenset({
    "ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "overlay", "zfs", "f2fs",
    "bcachefs", "jfs", "reiserfs", "nilfs2",
})


def _unescape(field: str) -> str:
    """A mountinfo path field (``\\040`` for a space, octal escapes)."""
    if "\\" not in field:
        return field
    out = bytearray()
    raw = field.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(raw):
        digits = raw[i + 1 : i + 4]
        if raw[i] == 0x5C and len(digits) == 3 and all(0x30 <= c <= 0x37 for c in digits):
            out.append(int(digits, 8) & 0xFF)
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return os.fsdecode(bytes(out))


def is_local_tree(root: str, mountinfo: str = "/proc/self/mountinfo") -> bool:
    """Is every filesystem that serves paths at or below the real path ``root`` a local one
    (:data:`LOCAL_FS_TYPES`): the mount holding ``root`` and every mount below it? ``False``
    when it cannot be told (no ``/proc``, not Linux, ``root`` is ``/``)."""
    if root == "/":
        return False
    try:
        with open(mountinfo, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().splitlines()
    except OSError:
        return False
    holder: tuple[int, str] = (-1, "")
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split(" ")
        if not sep or len(fields) < 5 or not right:
            return False
        point, fstype = _unescape(fields[4]), right.split(" ", 1)[0]
        if point == root or root.startswith(point.rstrip("/") + "/"):
            if len(point) >= holder[0]:  # the deepest mount point above: the last one wins ties
                holder = (len(point), fstype)
        elif point.startswith(root + "/") and fstype not in LOCAL_FS_TYPES:
            return False
    return holder[1] in LOCAL_FS_TYPES
