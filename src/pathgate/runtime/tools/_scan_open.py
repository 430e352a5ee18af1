"""The scan's one-call open, for :mod:`._scan`'s loop over small files: ``openat2(2)`` with
``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`` — the call :func:`~pathgate.runtime.fs._beneath.open_beneath`
makes, with the same flags — through ``ctypes`` with its constant arguments built once as C
values, so a file costs no Python frame and no ``argtypes`` conversion. Only where
``open_beneath`` works (it probes the kernel once per process)."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable

from pathgate.runtime.fs import OPEN_FLAGS, FileOps, _beneath

__all__ = ["ctypes_errno", "raw_beneath", "unopenable_secret"]

_Raw = tuple[Callable[..., int], object, object, object, object]


#: ``(syscall, nr, how pointer, size, how)``: ``openat2`` through ``ctypes`` with its constant arguments
#: built once (no per-call argument conversion), for the scan's own loop (:meth:`._scan.Scanner._fill`)
_raw: list[_Raw | None] = []
_raw_lock = threading.Lock()


def raw_beneath() -> _Raw | None:
    """:func:`open_beneath`'s system call as ``syscall(nr, dir_fd, path_bytes, how, size)``
    returning the descriptor or ``-1`` (``ctypes.get_errno()`` then says why): the same call,
    the same flags, without a Python frame and ``argtypes`` conversions per file. ``None``
    where :func:`open_beneath` is (probed there)."""
    with _raw_lock:
        if not _raw:
            _raw.append(_make_raw() if _beneath.open_beneath() is not None else None)
        return _raw[0]


def _make_raw() -> _Raw | None:
    import ctypes  # loaded already: open_beneath succeeded

    nr = _beneath._OPENAT2.get(os.uname().machine)
    if nr is None:
        return None

    class _How(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

    how = _How(OPEN_FLAGS, 0, _beneath._RESOLVE_BENEATH | _beneath._RESOLVE_NO_SYMLINKS)
    # a function object of its own (open_beneath's keeps its argtypes); every argument is
    # passed as a ctypes value of the C type (the descriptor as a C int, the path as char *)
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    # (the structure is kept with its pointer)
    return syscall, ctypes.c_long(nr), ctypes.c_void_p(ctypes.addressof(how)), ctypes.c_size_t(ctypes.sizeof(how)), how


def ctypes_errno() -> Callable[[], int]:
    import ctypes  # loaded already: the raw call exists

    return ctypes.get_errno


def unopenable_secret(ops: FileOps, root: str, rel: str, linked_secret: Callable[[os.stat_result], object] | None
                      ) -> bool:
    """Is ``rel`` (below ``root``), which could not be opened (no permission), a secret's
    hard link by its ``lstat``? Counted as unreadable it would tell the model the secret
    exists."""
    if linked_secret is None:
        return False
    try:
        st = ops.lstat(os.path.join(root, rel))
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and bool(linked_secret(st))
