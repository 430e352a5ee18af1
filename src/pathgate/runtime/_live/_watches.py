"""The first scan's inotify watches, installed after its answer (issue 15).

Adding a watch costs ~10 µs per kept directory (35k on eugenp): the first scan records
each kept directory's signature ``(st_ino, st_mtime_ns, st_ctime_ns)`` *before* listing
it and answers at once; :class:`DeferredWatches` then adds the watches in one thread and,
right after each one, ``lstat``-s the directory again. A change made after the watch was
added sends an event; one made between the listing and the watch shows as a different
signature (every entry created, removed or renamed moves the directory's mtime and
ctime; a permission change its ctime; a different directory at that path its inode), and
the directory is re-listed. A directory whose ctime was within :data:`RACY_NS` of the
scan's start is re-listed whatever its signature says (a change in the same timestamp tick
would keep it: git's "racy" rule). The thread is joined (or its work done inline) before
any later query touches the index, and by :meth:`stop` (the runtime's ``aclose``): no
query ever sees a half-installed state and no thread outlives the index. The same thread
then runs the index's ``then`` work, if any (the secret-inode registry's first snapshot,
seeded from the scan's listings while nothing else touches them), which asks
:attr:`stopping` as it goes.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable

__all__ = ["RACY_NS", "DeferredWatches"]

#: A directory changed this close (ns) before the scan began is re-listed after its watch
#: is added: a later change within the same timestamp tick could leave its signature as is.
RACY_NS = 2_000_000_000



class DeferredWatches:
    """Add a watch to each of ``todo`` (relpaths; ``sigs``: the ``fstat`` of each taken
    before its listing, where there is one) below ``root`` with ``add_watch``, in a thread
    started by :meth:`start` (or inline by :meth:`finish`); ``since_ns``: the wall clock when
    the scan began. Results, read after
    :meth:`finish`: ``added`` (relpath, watch descriptor), ``failed`` (relpaths that could
    not be watched), ``dirty`` (relpaths to re-list: changed since listed, racy, or gone),
    ``limit`` (the user's watch limit was reached: nothing after it was watched)."""

    def __init__(self, add_watch: Callable[[str], int], root: str,
                 todo: list[str], sigs: dict[str, os.stat_result], since_ns: int) -> None:
        self._add = add_watch
        self._root = root
        self._todo = todo
        self._sigs = sigs
        self._racy = since_ns - RACY_NS
        self.added: list[tuple[str, int]] = []
        self.failed: list[str] = []
        self.dirty: list[str] = []
        self.limit = False
        #: every directory was tried (or the limit was reached): else the index rescans
        self.complete = False
        self._stop = False
        self._thread: threading.Thread | None = None
        self._done = False
        #: run after the last watch was added (in the thread), unless stopped
        self.then: Callable[[], None] | None = None

    @property
    def stopping(self) -> bool:
        """Has :meth:`stop` been called (the work should end now)?"""
        return self._stop

    @property
    def started(self) -> bool:
        """Has :meth:`start` (or :meth:`finish`) begun the work?"""
        return self._thread is not None or self._done

    def start(self) -> None:
        """Install the watches in a thread (once)."""
        if self._thread is None and not self._done:
            self._thread = threading.Thread(target=self._run, name="pathgate-live-watches", daemon=True)
            self._thread.start()

    def finish(self) -> None:
        """Wait for the thread (or do its work here if it never started)."""
        if self._thread is not None:
            self._thread.join()
        elif not self._done:
            self._run()

    def stop(self) -> None:
        """Stop adding watches and wait for the thread (the index is being released)."""
        self._stop = True
        if self._thread is not None:
            self._thread.join()
        self._done = True

    def _run(self) -> None:
        root, add, lstat, racy = self._root, self._add, os.lstat, self._racy
        join = os.path.join
        sigs = self._sigs
        try:
            for rel in self._todo:
                if self._stop:
                    return
                path = join(root, rel) if rel else root
                try:
                    wd = add(path)
                except OSError as exc:
                    if exc.errno == errno.ENOSPC:
                        self.limit = self.complete = True
                        return
                    self.failed.append(rel)  # re-listed at every query, as when scanned
                    continue
                self.added.append((rel, wd))
                try:
                    st = lstat(path)
                except OSError:
                    self.dirty.append(rel)
                    continue
                sig = sigs.get(rel)
                if sig is None or sig.st_ctime_ns >= racy or st.st_ino != sig.st_ino \
                        or st.st_mtime_ns != sig.st_mtime_ns or st.st_ctime_ns != sig.st_ctime_ns:
                    self.dirty.append(rel)
            self.complete = True
            then, self.then = self.then, None
            if then is not None and not self._stop:
                then()
        finally:
            self._done = True
