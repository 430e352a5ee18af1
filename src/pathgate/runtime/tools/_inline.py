"""When a one-file ``read_files`` may skip the worker-thread hop and run on the event loop.

A worker-thread hop (``anyio.to_thread.run_sync``) costs 50-150 µs of wake-ups on its own,
more than everything else a one-file read does. Doing the read on the loop instead is only
safe when no step of it can wait for long, because while it runs no other agent's call
moves. :class:`InlineReads` allows it only when every step is bounded:

* the project lives on a **local filesystem** (:func:`~pathgate.runtime.fs.is_local_tree`:
  the mount holding the root and every mount below it is ext4, xfs, btrfs, tmpfs, overlay,
  ...): never NFS, SMB, FUSE or anything unknown, where an ``lstat`` or ``open`` is a network
  round trip that may hang;
* the runtime uses the real filesystem (``OsFS`` itself; a host's own filesystem seam may be
  remote, and fault-injecting test seams may sleep);
* the ignore index is **warm** for the file's directory (no ignore file is read unless one
  changed since the last call; one that did — just written, so small and page-cached — is
  read again on the loop, as is a git config file edited since the last validation);
* the file is **at most** :data:`INLINE_MAX` bytes and **every byte is in the page cache**
  (``preadv`` with ``RWF_NOWAIT``); otherwise the inline attempt stops, closes its
  descriptors and the call does the whole read in a worker thread, as before;
* a **circuit breaker**: an inline read that took more than :data:`INLINE_SLOW` of wall time
  *and* slept in the kernel on the way (a voluntary context switch of the loop's thread:
  a cold ``lstat`` on a spinning disk, a lock; being preempted by another process does not
  count) turns inline reads off for :data:`INLINE_BACKOFF`, so a slow disk costs at most one
  such stall per second. Without per-thread ``getrusage`` (not Linux), wall time alone.

What remains on the loop is a handful of ``lstat``/``openat``/``fstat`` calls on cached
directory entries (a few µs each) and a copy of at most 64 KiB. Every gate still runs, and
the read is the same descriptor-anchored one (``openat`` from the root with ``O_NOFOLLOW``,
identity checked on the descriptor).
"""

from __future__ import annotations

import time
from collections.abc import Callable

try:
    import resource

    _RUSAGE_THREAD: int | None = resource.RUSAGE_THREAD
except (ImportError, AttributeError):  # not Linux
    _RUSAGE_THREAD = None

from pathgate.runtime.fs import is_local_tree

__all__ = ["INLINE_BACKOFF", "INLINE_MAX", "INLINE_SLOW", "InlineReads"]

#: Largest file (bytes) a one-file call reads on the event loop.
INLINE_MAX = 64 << 10
#: An inline read slower than this (seconds, wall clock) that slept turns inline reads off
#: (above the interpreter's 5 ms GIL switch interval: waiting for a worker thread's GIL turn
#: is not a slow disk) ...
INLINE_SLOW = 0.010
#: ... for this many seconds.
INLINE_BACKOFF = 1.0


class InlineReads:
    """Whether a one-file read may run on the event loop, for one runtime (see the module
    docstring). ``enabled``: ``None`` decides on first use (real filesystem and a local
    tree); ``False`` always hops. ``slow_reads`` counts the inline reads that tripped the
    breaker."""

    def __init__(self, root: str, enabled: bool | None = None, *, max_bytes: int = INLINE_MAX,
                 slow: float = INLINE_SLOW, backoff: float = INLINE_BACKOFF,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.root = root
        self.enabled = enabled
        self.max_bytes = max_bytes
        self.slow = slow
        self.backoff = backoff
        self.clock = clock
        self.slow_reads = 0
        self._off_until = float("-inf")

    def allowed(self) -> bool:
        """May the next one-file read try the loop?"""
        if self.enabled is None:
            self.enabled = is_local_tree(self.root)
        return self.enabled and self.clock() >= self._off_until

    def start(self) -> tuple[float, int]:
        """Mark the start of an inline attempt (pass the result to :meth:`took`)."""
        return self.clock(), _sleeps()

    def took(self, mark: tuple[float, int]) -> None:
        """Record an inline attempt started at ``mark``: a slow one that slept trips the
        breaker."""
        if self.clock() - mark[0] > self.slow and (mark[1] < 0 or _sleeps() != mark[1]):
            self.slow_reads += 1
            self._off_until = self.clock() + self.backoff


def _sleeps() -> int:
    """Voluntary context switches of this thread so far (``-1``: unknown, then any slow
    attempt counts as one that slept)."""
    if _RUSAGE_THREAD is None:
        return -1
    return resource.getrusage(_RUSAGE_THREAD).ru_nvcsw
