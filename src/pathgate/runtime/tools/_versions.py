"""What each agent last read, and one lock per file: the no-lost-update check of writes.

:class:`VersionStore` keeps, per ``(agent, real relpath)``, the :class:`Version` the agent
last saw — recorded by ``read_files`` (from the ``fstat`` of the descriptor it read and the
bytes it read) and by a successful write (the new version). A write compares the file's
current version with the writer's record inside :class:`FileLocks`, so the compare and the
replace are one atomic step within the runtime: of two agents that read the same version,
the first write wins and the second is refused (``[FILE_CHANGED_SINCE_READ]``).

Both are plain ``threading`` structures: the compare-and-replace runs in a worker thread,
and one runtime may serve several event loops. The store is bounded (oldest records are
dropped first; a dropped record only means "read it again").
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from pathgate.runtime.tools._write_io import Version

if TYPE_CHECKING:
    from pathgate.runtime.gates import PathFacts
    from pathgate.verdicts import Verdict

__all__ = ["FileLocks", "VersionStore"]

#: Records kept per runtime (all agents together).
MAX_RECORDS = 65536
#: Seconds a waiting writer sleeps between cancellation checks.
LOCK_POLL = 0.02


def _key(agent: str | None) -> str:
    return "" if agent is None else agent


class VersionStore:
    """``(agent, relpath) -> Version`` of the agent's last read or write. Thread-safe."""

    def __init__(self, max_records: int = MAX_RECORDS) -> None:
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], Version] = {}
        self.max_records = max_records

    def get(self, agent: str | None, relpath: str) -> Version | None:
        """The version ``agent`` last read or wrote (``None``: never, or forgotten)."""
        return self._records.get((_key(agent), relpath))

    def record(self, agent: str | None, relpath: str, version: Version) -> None:
        key = (_key(agent), relpath)
        with self._lock:
            self._records.pop(key, None)
            self._records[key] = version
            while len(self._records) > self.max_records:
                del self._records[next(iter(self._records))]

    def record_reads(
        self, agent: str | None, facts: Sequence[PathFacts], verdicts: Sequence[Verdict | None]
    ) -> None:
        """``read_files``' hook: record every file served as content (a budget-cut file was
        read too: the agent saw its version)."""
        for f, verdict in zip(facts, verdicts, strict=True):
            if verdict is not None:
                continue
            opened, relpath = f.opened, f.relpath
            if opened is None or opened.st is None or opened.data is None or not relpath:
                continue
            self.record(agent, relpath, Version.of(opened.st, opened.data))

    def __len__(self) -> int:
        return len(self._records)


class FileLocks:
    """One lock per real relpath, created on demand and dropped when no one holds or waits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, relpath: str, cancelled: Callable[[], None]) -> Iterator[None]:
        """Hold ``relpath``'s lock (in a worker thread); ``cancelled`` is polled while
        waiting, so a cancelled writer stops waiting."""
        with self._lock:
            lock, users = self._locks.get(relpath, (threading.Lock(), 0))
            self._locks[relpath] = (lock, users + 1)
        try:
            while not lock.acquire(timeout=LOCK_POLL):
                cancelled()
            try:
                yield
            finally:
                lock.release()
        finally:
            with self._lock:
                lock, users = self._locks[relpath]
                if users <= 1:
                    del self._locks[relpath]
                else:
                    self._locks[relpath] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
