"""One ``openat2(2)`` per file beneath a directory descriptor (Linux 5.6+, x86-64/aarch64).

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
from collections.abc import Callable

from pathgate.runtime.fs._ops import OPEN_FLAGS

__all__ = ["open_beneath"]

#: ``openat2``'s number where it is known to be the generic one (not alpha, mips...).
_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_beneath: list[Callable[[int, str], int] | None] = []  # decided once per process
_beneath_lock = threading.Lock()


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
    syscall.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    how = _How(OPEN_FLAGS, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS)
    where, size = ctypes.addressof(how), ctypes.sizeof(how)
    get_errno, fsencode = ctypes.get_errno, os.fsencode

    def beneath(dir_fd: int, rel: str, _keep: object = how) -> int:
        fd = syscall(nr, dir_fd, fsencode(rel), where, size)
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
