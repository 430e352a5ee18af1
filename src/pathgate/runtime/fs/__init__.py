"""The filesystem seam: every stat, scandir, open and read pathgate does goes through here.

Two layers:

* :class:`SyncFS` — blocking calls used by the ignore engine and the pruning walker, which
  run inside worker threads (``anyio.to_thread.run_sync``). :class:`OsFS` is the real one.
  Tests inject faults by subclassing it (``EACCES`` on one ignore file, a swap between
  check and read, ...), which also lets root exercise fault paths that chmod cannot.
* :class:`FileOps` — the blocking calls ``read_files`` makes (``lstat``/``readlink`` to
  resolve a path, ``open_fd``/``fstat``/``read_fd``/``close`` to read through one
  descriptor). :class:`OsFS` implements both protocols, so one fault-injecting subclass
  serves the engine and the reads.
* :class:`AsyncFS` — the async backends ``read_files`` uses, built on a :class:`FileOps`:
  :class:`ThreadFS` (one ``anyio.to_thread.run_sync`` hop per chunk of paths, under a
  pathgate-owned :class:`anyio.CapacityLimiter`; runs under asyncio and trio) and
  :class:`AiofilesFS` (aiofiles, one executor hop per operation; asyncio only).
  :meth:`Backends.pick` chooses one per call (aiofiles is never used under trio).

Path resolution is a plain generator (:func:`resolve_flow`) that yields the ``lstat`` /
``readlink`` operations it needs and receives their results, so the same logic is driven in
a worker thread (:func:`drive_sync`) and by aiofiles (:func:`drive_async`), like httpx's
auth flows. It resolves symlinks component by component the way the kernel does (``..``
after a symlink is taken on the real path), counts link hops to catch loops, and checks
after every requested component that the real path stays inside the root.

Reading (:func:`open_read`) walks from the root with ``openat`` + ``O_NOFOLLOW`` and confirms
the file's identity on the descriptor.

Modules: :mod:`._ops` (protocols, :class:`OsFS`), :mod:`._resolve` (sans-IO resolution),
:mod:`._read` (descriptor-anchored reads), :mod:`._backends` (limiter, async backends;
loaded on first use, as it imports anyio: `pathgate hook` decides without an event loop).
"""

from typing import TYPE_CHECKING, Any

from pathgate.runtime.fs._ops import (
    DIR_FLAGS,
    LOCAL_FS_TYPES,
    OPEN_FLAGS,
    DirEntryLike,
    FileOps,
    OsFS,
    SyncFS,
    is_local_tree,
)
from pathgate.runtime.fs._read import (
    BINARY_SNIFF,
    MAX_CONFIG_BYTES,
    MAX_IGNORE_BYTES,
    DirFds,
    Opened,
    ReadRequest,
    WouldBlock,
    decode,
    open_at,
    open_read,
    open_read_in,
    read_fstated,
    read_regular,
    resolve_in,
    resolve_plain,
)
from pathgate.runtime.fs._relink import RELINK_MARGIN_NS, links_moved, seen_links
from pathgate.runtime.fs._resolve import (
    MAX_SYMLINKS,
    MISSING_ERRNOS,
    PATH_MAX,
    Resolved,
    drive_async,
    drive_sync,
    resolve_flow,
)

if TYPE_CHECKING:
    from pathgate.runtime.fs._backends import (
        AUTO_BACKEND,
        AiofilesFS,
        AsyncFS,
        Backends,
        DirStatMemo,
        IoLimiter,
        ThreadFS,
        run_chunked,
        running_asyncio,
    )

_LAZY = frozenset({"AUTO_BACKEND", "AiofilesFS", "AsyncFS", "Backends", "DirStatMemo", "IoLimiter",
                   "ThreadFS", "run_chunked", "running_asyncio"})


def __getattr__(name: str) -> Any:
    """The async backends (:mod:`._backends`, which imports anyio) load on first use."""
    if name in _LAZY:
        from pathgate.runtime.fs import _backends

        return getattr(_backends, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AUTO_BACKEND",
    "BINARY_SNIFF",
    "DIR_FLAGS",
    "LOCAL_FS_TYPES",
    "MAX_CONFIG_BYTES",
    "MAX_IGNORE_BYTES",
    "MAX_SYMLINKS",
    "MISSING_ERRNOS",
    "OPEN_FLAGS",
    "PATH_MAX",
    "RELINK_MARGIN_NS",
    "AiofilesFS",
    "AsyncFS",
    "Backends",
    "DirEntryLike",
    "DirFds",
    "DirStatMemo",
    "FileOps",
    "IoLimiter",
    "Opened",
    "OsFS",
    "ReadRequest",
    "Resolved",
    "SyncFS",
    "ThreadFS",
    "WouldBlock",
    "decode",
    "drive_async",
    "drive_sync",
    "is_local_tree",
    "links_moved",
    "open_at",
    "open_read",
    "open_read_in",
    "read_fstated",
    "read_regular",
    "resolve_flow",
    "resolve_in",
    "resolve_plain",
    "run_chunked",
    "running_asyncio",
    "seen_links",
]
