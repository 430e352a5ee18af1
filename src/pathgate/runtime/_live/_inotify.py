"""A minimal inotify binding over :mod:`ctypes` (Linux), non-blocking, no thread.

The live index drains it at query time: :meth:`Inotify.read_events` returns whatever the
kernel has queued and never waits. Only the three system calls are bound; an
:class:`OSError` (``ENOSYS`` where the C library has no inotify) means "no events here":
the caller falls back to walking.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from typing import NamedTuple

__all__ = [
    "IN_ATTRIB", "IN_CLOSE_WRITE", "IN_CREATE", "IN_DELETE", "IN_DELETE_SELF", "IN_IGNORED",
    "IN_ISDIR", "IN_MODIFY", "IN_MOVED_FROM", "IN_MOVED_TO", "IN_MOVE_SELF", "IN_Q_OVERFLOW",
    "Event", "Inotify",
]

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

#: What a kept directory is watched for: its entries appearing, leaving, changing kind or
#: permissions, ignore files being written; the directory itself going away.
DIR_MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
            | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

_HEADER = struct.Struct("iIII")
_READ_SIZE = 1 << 16


class Event(NamedTuple):
    """One inotify event: watch descriptor, mask, rename cookie, entry name (``""``: the
    watched directory itself)."""

    wd: int
    mask: int
    cookie: int
    name: str


class Inotify:
    """One non-blocking, close-on-exec inotify descriptor."""

    def __init__(self) -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            self._init = libc.inotify_init1
            self._add = libc.inotify_add_watch
            self._rm = libc.inotify_rm_watch
        except (OSError, AttributeError):
            raise OSError(errno.ENOSYS, "inotify is not available on this platform") from None
        self._add.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
        self._rm.argtypes = (ctypes.c_int, ctypes.c_int)
        fd = self._init(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        self.fd: int | None = fd

    def add_watch(self, path: str, mask: int = DIR_MASK) -> int:
        """Watch ``path`` (never following a final symlink); its watch descriptor. Raises
        :class:`OSError` (``ENOSPC``: the user's watch limit is reached)."""
        if self.fd is None:
            raise OSError(errno.EBADF, "inotify descriptor closed")
        wd = int(self._add(self.fd, os.fsencode(path), mask))
        if wd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), path)
        return wd

    def rm_watch(self, wd: int) -> None:
        """Stop watching ``wd`` (already gone: ignored)."""
        if self.fd is not None:
            self._rm(self.fd, wd)

    def read_events(self) -> list[Event]:
        """Every event queued now (never blocks)."""
        out: list[Event] = []
        fd = self.fd
        if fd is None:
            return out
        while True:
            try:
                buf = os.read(fd, _READ_SIZE)
            except BlockingIOError:
                return out
            if not buf:
                return out
            pos = 0
            size = _HEADER.size
            while pos + size <= len(buf):
                wd, mask, cookie, length = _HEADER.unpack_from(buf, pos)
                raw = buf[pos + size:pos + size + length].split(b"\0", 1)[0]
                out.append(Event(wd, mask, cookie, os.fsdecode(raw)))
                pos += size + length

    def close(self) -> None:
        """Release the descriptor (and with it every watch)."""
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)
