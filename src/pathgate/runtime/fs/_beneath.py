"""Opening beneath the root without following any symlink: a chain of ``O_NOFOLLOW``
directory opens (:class:`DirChain`), or one ``openat2(2)`` per file (Linux 5.6+,
x86-64/aarch64: :func:`open_beneath`).

:class:`DirChain` holds the descriptors of the current directory's chain from the root,
each directory opened from its parent's descriptor with ``O_DIRECTORY | O_NOFOLLOW``; used
in path order (code_search's scan, the count inside excluded directories), it keeps at most
:data:`KEEP_DEPTH` + 1 of them open.

``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``: the kernel refuses a symlink in *any* component
(``ELOOP``) and any way out of the directory, the guarantee of a chain of ``O_NOFOLLOW``
opens in one call. Reached through ``ctypes`` (loaded only when first asked); decided once
per process, ``None`` where the kernel or a sandbox lacks it (callers then walk the chain).
"""

from __future__ import annotations

import os
import platform
import sys
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol

from pathgate.runtime.fs._ops import DIR_FLAGS, OPEN_FLAGS, OsFS

__all__ = ["KEEP_DEPTH", "DirChain", "DirOps", "open_beneath"]

#: Directory levels kept open below the root; deeper ones are opened on the way down and
#: closed at once (only the current directory is kept), so descriptors stay bounded.
KEEP_DEPTH = 32

#: ``openat2``'s number where it is known to be the generic one (not alpha, mips...).
_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_beneath: list[Callable[[int, str], int] | None] = []  # decided once per process
_beneath_lock = threading.Lock()


class DirOps(Protocol):
    """What :class:`DirChain` needs: opening a directory (no symlink followed), closing."""

    def open_dir(self, path: str, dir_fd: int | None = None) -> int: ...
    def close(self, fd: int) -> None: ...


class DirChain:
    """The descriptors of the current directory's chain from the root (path order: moving
    to the next directory closes what is no longer on its path)."""

    def __init__(self, ops: DirOps, root: str) -> None:
        self.ops = ops
        self.root = root
        # the real filesystem's calls without a Python frame each (the scan opens ~one
        # directory per file on source trees); any other ``ops`` is called as given
        native = type(ops) is OsFS
        self._open: Callable[..., int] = partial(os.open, flags=DIR_FLAGS) if native else ops.open_dir
        self._close: Callable[[int], None] = os.close if native else ops.close
        self._root_fd: int | None = None
        self._parts: list[str] = []
        self._fds: list[int] = []  # _fds[i]: descriptor of _parts[:i + 1] (None-free)
        self._deep: int | None = None  # the current directory below KEEP_DEPTH
        self._cur: tuple[str, int] | None = None  # (reldir, descriptor) of the last enter()

    def enter(self, reldir: str) -> int:
        """The descriptor of ``reldir`` ('' is the root), opened without following links."""
        cur = self._cur
        if cur is not None and cur[0] == reldir:
            return cur[1]
        self._cur = None
        fd = self._enter(reldir)
        self._cur = (reldir, fd)
        return fd

    def _enter(self, reldir: str) -> int:
        if self._root_fd is None:
            self._root_fd = self.ops.open_dir(self.root)
        parts = reldir.split("/") if reldir else []
        if self._deep is not None:
            if parts == self._parts:
                return self._deep
            self.ops.close(self._deep)
            self._deep = None
        keep = min(len(parts), KEEP_DEPTH)
        common = 0
        limit = min(keep, len(self._fds))
        while common < limit and self._parts[common] == parts[common]:
            common += 1
        fds, close = self._fds, self._close
        while len(fds) > common:
            close(fds.pop())
        self._parts = parts
        cur = fds[-1] if fds else self._root_fd
        open_dir = self._open
        for i in range(common, keep):
            cur = open_dir(parts[i], dir_fd=cur)
            fds.append(cur)
        if len(parts) > keep:
            self._deep = self._open_below(cur, parts[keep:])
            return self._deep
        return cur

    def _open_below(self, fd: int, names: Sequence[str]) -> int:
        transient: int | None = None
        try:
            for name in names:
                nxt = self.ops.open_dir(name, dir_fd=fd)
                if transient is not None:
                    self.ops.close(transient)
                transient = fd = nxt
        except BaseException:
            if transient is not None:
                self.ops.close(transient)
            raise
        return fd

    @property
    def open_count(self) -> int:
        """Descriptors held (for tests)."""
        return (self._root_fd is not None) + len(self._fds) + (self._deep is not None)

    def close(self) -> None:
        fds = [*self._fds, *(x for x in (self._deep, self._root_fd) if x is not None)]
        self._fds, self._parts, self._deep, self._root_fd, self._cur = [], [], None, None, None
        for fd in fds:
            self.ops.close(fd)



def open_beneath() -> Callable[[int, str], int] | None:
    """``open(dir_fd, relpath)``: ``openat2(dir_fd, relpath, OPEN_FLAGS, RESOLVE_BENEATH |
    RESOLVE_NO_SYMLINKS)`` (no symlink followed in any component, nothing outside
    ``dir_fd``), raising :class:`OSError`; ``None`` where the kernel or a sandbox lacks it."""
    with _beneath_lock:
        if not _beneath:
            _beneath.append(_make_beneath())
        return _beneath[0]


def _make_beneath() -> Callable[[int, str], int] | None:
    nr = _OPENAT2.get(platform.machine()) if sys.platform == "linux" else None
    if nr is None:
        return None
    import ctypes  # only here: glob and the CLI's start-up never load it

    class _How(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    syscall.restype = ctypes.c_long
    how = _How(OPEN_FLAGS, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS)
    # no ``argtypes`` (a conversion object per argument per call: a fifth of the call's
    # cost): the number, the address and the size are C values made once, the descriptor
    # goes as a C int (the kernel reads an int), the path as the bytes' ``char *``
    number = ctypes.c_long(nr)
    where = ctypes.c_void_p(ctypes.addressof(how))
    size = ctypes.c_size_t(ctypes.sizeof(how))
    get_errno = ctypes.get_errno
    enc, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()  # (os.fsencode's)

    def beneath(dir_fd: int, rel: str, _keep: object = how) -> int:
        if "\x00" in rel:  # (as ``os.open``: a C string would end there)
            raise ValueError("embedded null byte")
        fd = syscall(number, dir_fd, rel.encode(enc, errors), where, size)
        if fd < 0:
            code = get_errno()
            raise OSError(code, os.strerror(code), rel)
        return int(fd)

    probe = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:  # a kernel without it says ENOSYS, a sandbox EPERM
        os.close(beneath(probe, "."))
    except OSError:
        return None
    finally:
        os.close(probe)
    return beneath
