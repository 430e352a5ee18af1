"""``code_search``'s file scanner: descriptor-anchored opens, bounded hops, byte buffers.

Every file is opened relative to its directory's descriptor, and every directory is opened
from the root's descriptor one component at a time with ``O_DIRECTORY | O_NOFOLLOW``
(:class:`DirChain`), so a directory swapped for a symlink between the walk and the open
fails the open instead of leading out of the project or into an excluded directory. The
file's type, size and link count come from ``fstat`` on its descriptor.

On Linux (``openat2(2)``, 5.6+) a file is opened in one call instead, relative to the
root's descriptor with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``: the kernel refuses a
symlink in *any* component (``ELOOP``) and any way out of the root, the same guarantee as
the chain of ``O_NOFOLLOW`` opens, without re-opening the walked directories
(:func:`open_beneath`; where it is missing or refused, the chain).

Files are scanned in path order, so only the chain of the current directory's descriptors
is open (at most :data:`KEEP_DEPTH` + 1 directories plus one file, whatever the tree), and
:meth:`Scanner.close` releases them (the async side calls it when a search ends, is
cancelled or times out).

A :class:`Scanner` works in hops (:meth:`Scanner.step`, one worker-thread call each) of a
bounded number of bytes, so cancellation and timeouts are honoured within one hop even in
the middle of a huge file. Each RE2 call searches a region of about :data:`CALL_SECONDS` of
work: the region's size follows the pattern's measured speed (:data:`MIN_REGION` to
:data:`MAX_REGION`; RE2 is linear, but a pattern with a huge program runs at well under
1 MB/s while a literal runs at hundreds), so a slow pattern gets small regions. Small files
are read whole and searched joined by ``\n`` (one call for many files); a file larger than
the current region is streamed in region-sized pieces cut at line ends, up to the search size
cap (:mod:`._scan_stream`). A hop ends after :data:`HOP_SECONDS` or :data:`HOP_BYTES`. One
line is always searched whole (a multi-megabyte single line is one call).

The search has a time limit (``seconds``, ``Policy.search_seconds``) on the work of its hops
(``worked``; a test seam: ``clock``): checked before each file and each region, it ends the
hop that reaches it, and a long line the rest of the limit cannot pay for at the measured
speed is not started (:meth:`Scanner.affordable`). The scan is then :attr:`Scanner.timed_out`:
the files from ``index`` on (and a streamed one, ``unfinished``) were not searched. So a call
ends at most about one RE2 call past its limit: a region, sized for :data:`CALL_SECONDS` at the
speed measured so far (text that turns slow for the pattern mid-file can make that call
longer, up to a region at the pattern's slowest speed). A file read whole is binary when it holds a
NUL in its first 8 KiB or is not UTF-8; a streamed one only by the NUL test (a hit's line is
decoded with replacement characters). Lines are ``\\n``-separated (like
``grep -n``); a line's trailing ``\\r`` is not shown. Line numbers are counted only up to
each hit.
"""

from __future__ import annotations

import errno
import math
import os
import re
import stat as stat_mod
import sys
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pathgate.results import SearchHit
from pathgate.runtime._links import SecretInodes
from pathgate.runtime.fs import (
    DIR_FLAGS,
    OPEN_FLAGS,
    RELINK_MARGIN_NS,
    FileOps,
    OsFS,
    _beneath,
    is_local_tree,
    links_moved,
    seen_links,
)
from pathgate.runtime.fs._beneath import KEEP_DEPTH, DirChain, DirOps, open_beneath
from pathgate.runtime.tools._scan_lines import MAX_LINE, _is_utf8, hit_at
from pathgate.runtime.tools._scan_open import ctypes_errno, raw_beneath, unopenable_secret
from pathgate.runtime.tools._scan_stream import BINARY_SNIFF, Stream, end_stream, stream_piece
from pathgate.runtime.tools._search_budget import enough, hit_chars

if TYPE_CHECKING:  # annotations only: RE2 loads with code_search, not with glob's DirChain
    from pathgate.runtime.tools._regex import Regex

__all__ = [
    "CALL_SECONDS",
    "HOP_BYTES",
    "HOP_SECONDS",
    "KEEP_DEPTH",
    "MAX_LINE",
    "MAX_REGION",
    "MIN_REGION",
    "DirChain",
    "DirOps",
    "LinkedSecret",
    "Scanner",
]

#: Bytes one worker-thread hop may read and search (plus :data:`FILE_COST` per file).
HOP_BYTES = 4 << 20
#: What opening one file counts against :data:`HOP_BYTES` (so a hop holds a bounded
#: number of small files).
FILE_COST = 16 << 10
#: Seconds of work after which a hop ends (checked between files and pieces).
HOP_SECONDS = 0.05
#: Seconds of RE2 work one search call aims at (sets the region size from the pattern's speed).
CALL_SECONDS = 0.02
#: Bounds of the region searched per call (bytes): small files joined up to it, larger files
#: streamed in pieces of it. The first region is 64 KiB (an unknown pattern may be slow).
MIN_REGION = 16 << 10
MAX_REGION = 256 << 10
#: A status time no inode has: no second look at any name.
_NEVER = 1 << 62
#: ``read(2)`` size after the first read of a file (which asks for its fstat size + 1).
READ_STEP = 1 << 16

_TEXT_ANCHOR = re.compile(r"\\[Az]|\(\?[a-zA-Z]*-")

#: The search deadline's clock (a test seam: a fake clock drives the time limit).
_clock: Callable[[], float] = time.monotonic

#: Called with the ``fstat`` of every regular file the scan opens: True when it shares its
#: inode with a secret (the file is then skipped silently, never counted).
LinkedSecret = Callable[[os.stat_result], bool]


class Scanner:
    """Search ``files`` (project-relative, in path order) for ``rx``, a hop at a time.

    ``step()`` runs in a worker thread; ``close()`` after the last hop (or on cancellation,
    once no hop runs). Results accumulate in ``hits`` and the skip counters; the scan stops
    after ``cap + 1`` hits (``cap`` None: no limit), or once the hits' characters
    (``chars``, :func:`~._search_budget.hit_chars`) pass ``budget`` with a hit past the
    first (``budget`` None: no budget; :mod:`._search_budget` makes the exact cut)."""

    def __init__(self, ops: FileOps, root: str, files: Sequence[str], rx: Regex, *,
                 search_limit: int, context: int = 0, cap: int | None = None,
                 linked_secret: LinkedSecret | None = None, budget: int | None = None,
                 seconds: float | None = None, clock: Callable[[], float] | None = None) -> None:
        self.ops = ops
        self.files = files
        self.rx = rx
        self.search_limit = search_limit
        self.context = context
        self.stop_at = None if cap is None else cap + 1
        self.budget = budget
        #: characters of ``hits`` (what the output budget charges; collection stops past
        #: it), counted only under a budget
        self.chars = 0
        self.linked_secret = linked_secret
        self.dirs = DirChain(ops, root)
        native = type(ops) is OsFS  # the real filesystem: its calls without a frame each
        self._open: Callable[..., int] = partial(os.open, flags=OPEN_FLAGS) if native else ops.open_fd
        self._fstat: Callable[[int], os.stat_result] = os.fstat if native else ops.fstat
        self._read: Callable[[int, int], bytes] = os.read if native else ops.read_fd
        self._close: Callable[[int], None] = os.close if native else ops.close
        #: one ``openat2`` per file from the root's descriptor (the chain where it fails)
        self._beneath = open_beneath() if native else None
        #: the same ``openat2`` called from :meth:`_fill`'s loop, while ``_beneath`` is the
        #: real one (a test seam replacing it, or the chain, takes :meth:`_file`)
        real = _beneath.open_beneath() if native else None
        self._fast_if: object = real if real is not None and self._beneath is real else False
        # the registry's own test: a file with one link is asked about only once the
        # registry has a snapshot (``SecretInodes.linked_secret`` answers no before)
        owner = getattr(linked_secret, "__self__", None)
        self._reg: SecretInodes | None = owner if isinstance(owner, SecretInodes) and getattr(
            linked_secret, "__func__", None) is SecretInodes.linked_secret else None
        self._root = root
        self._root_fd = -1
        #: :func:`~pathgate.runtime._links.seen_links`' bound: a single-link file whose
        #: status changed after it (or on a tree not known to be local: any) has its name
        #: looked at again, so an alias renamed away between open and ``fstat`` is seen
        self._relink_since: int = (_NEVER if linked_secret is None
                                   else time.time_ns() - RELINK_MARGIN_NS if native and is_local_tree(root) else 0)
        self._native = native
        self.hits: list[SearchHit] = []
        self.binary = self.too_large = self.unreadable = 0
        #: files skipped as a secret's hard link (``linked_secret``): never searched
        self.linked = 0
        self.index = 0
        self._stream: Stream | None = None
        #: Texts can be searched joined (no text anchors such as ``\A``/``\z``/``(?-m)``).
        self.rx_batches = _TEXT_ANCHOR.search(rx.pattern) is None
        #: Measured search speed (bytes/second, smoothed): sets the region size.
        self.rate = (64 << 10) / CALL_SECONDS
        #: Bytes to search per RE2 call (about :data:`CALL_SECONDS` at the measured speed).
        self.region = max(MIN_REGION, min(MAX_REGION, int(self.rate * CALL_SECONDS)))
        #: The search's time limit (``Policy.search_seconds``; ``None``: none), against the
        #: seconds of work its hops have run (``worked``: time waiting for a turn is not work)
        self.seconds = math.inf if seconds is None else seconds
        self.worked = 0.0
        self._clock = _clock if clock is None else clock
        #: :attr:`_clock` time past which the current hop may start no RE2 call it cannot afford
        self._stop_by = math.inf
        #: The time limit stopped the search (``index``: the first file not opened;
        #: ``unfinished``: 1 when a streamed file was left before its end)
        self.timed_out = False
        self.unfinished = 0

    def _learn(self, nbytes: int, seconds: float) -> None:
        if nbytes >= 1024:
            self.rate = 0.5 * self.rate + 0.5 * nbytes / max(seconds, 1e-6)
            # bytes to search per RE2 call (about CALL_SECONDS at the measured speed)
            self.region = max(MIN_REGION, min(MAX_REGION, int(self.rate * CALL_SECONDS)))

    @property
    def done(self) -> bool:
        if self.timed_out:
            return True
        n, stop_at, budget = len(self.hits), self.stop_at, self.budget  # ``_full``, inlined (per file)
        if (stop_at is not None and n >= stop_at) or (budget is not None and n >= 2 and self.chars > budget):
            # a hit of the streamed file may still wait for its context lines (the next piece)
            return self._stream is None or not self._stream.pending
        return self._stream is None and self.index >= len(self.files)

    @property
    def _full(self) -> bool:
        """Enough hits collected (``max_results`` + 1, or the output budget spent)."""
        return enough(len(self.hits), self.chars, self.stop_at, self.budget)

    def step(self, budget: int = HOP_BYTES) -> None:
        """One hop: scan files (or pieces of a streamed one) until ``budget`` bytes or
        :data:`HOP_SECONDS` are spent, or the search's time limit (``seconds`` of work in
        all its hops) runs out: then it is :attr:`timed_out` (checked between files and
        regions, so a hop ends at most one RE2 call, a region, past it).

        Small files are read first and searched together once they fill a region
        (:meth:`_flush`): one RE2 call for many files."""
        spent = pending = 0
        clock = self._clock
        began = clock()
        left = self.seconds - self.worked
        self._stop_by = began + left
        deadline = began + min(HOP_SECONDS, left)
        batch: list[tuple[str, bytes | str]] = []
        files, count = self.files, len(self.files)
        while spent < budget and not self.done and clock() < deadline:
            if self._stream is not None:
                self._flush(batch)
                batch, pending = [], 0
                if not self.done:
                    spent += stream_piece(self, self._stream)
                continue
            if self.index >= count:
                break
            if self._beneath is self._fast_if:
                spent, pending = self._fill(batch, spent, pending, budget, deadline)
                if pending >= self.region:
                    self._flush(batch)
                    batch, pending = [], 0
                continue
            rel = files[self.index]
            self.index += 1
            outcome = self._file(rel)
            if outcome is not None:
                batch.append((rel, outcome))
                if isinstance(outcome, bytes):
                    spent += len(outcome)
                    pending += len(outcome)
                    if pending >= self.region:
                        self._flush(batch)
                        batch, pending = [], 0
            spent += FILE_COST
        self._flush(batch)
        self.worked += clock() - began
        if self.worked >= self.seconds and not self.done:
            self._time_out()

    def _time_out(self) -> None:
        """Stop the search at its time limit: the files from ``index`` on are not searched
        (nor the streamed one past its current piece)."""
        self.unfinished = int(self._stream is not None)
        self.timed_out = True

    def affordable(self, nbytes: int) -> bool:
        """May one RE2 call search ``nbytes`` (a long line, whole) before the time limit, at
        the measured speed? When not, the search times out instead of starting it."""
        if nbytes <= 2 * self.region or nbytes / self.rate <= self._stop_by - self._clock():
            return True
        self._time_out()
        return False

    def _fill(self, batch: list[tuple[str, bytes | str]], spent: int, pending: int, budget: int,
              deadline: float) -> tuple[int, int]:
        """:meth:`step`'s loop over small files, one ``openat2`` each (:func:`~._scan_open.raw_beneath`)
        and the rest of :meth:`_file` inline: the same outcomes in the same order, the same
        checks between files (it returns before the next file when the region is full, a
        file is streamed, the hop's bytes or time are spent, or the files are done: the
        hits only change in :meth:`_flush`). A file ``openat2`` refuses with anything but
        ``ENOENT`` is decided by :meth:`_file` (the chain)."""
        raw = raw_beneath()
        if raw is None:  # never here when open_beneath works
            self._fast_if = False
            return spent, pending
        syscall, nr, where, size_arg, _ = raw
        if self._root_fd < 0:
            self._root_fd = os.open(self._root, DIR_FLAGS)
        root_fd = self._root_fd
        files, count, i = self.files, len(self.files), self.index
        fstat, read, close = self._fstat, self._read, self._close
        linked, reg = self.linked_secret, self._reg
        limit, region = self.search_limit, self.region
        enc, errs = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()  # os.fsencode's
        get_errno = ctypes_errno()
        is_reg, monotonic = stat_mod.S_ISREG, self._clock
        since = self._relink_since
        outcome: bytes | str | None
        while True:
            rel = files[i]
            i += 1
            fd = syscall(nr, root_fd, rel.encode(enc, errs), where, size_arg)
            if fd < 0:
                code = get_errno()
                if code == errno.ENOENT:  # gone since the walk
                    outcome = None
                else:
                    self.index = i
                    outcome = self._file(rel)  # the chain decides, as _open_file does
            else:
                try:
                    st = fstat(fd)
                    if st.st_ctime_ns >= since and st.st_nlink == 1:
                        st = seen_links(st, rel, root_fd)
                    size = st.st_size
                    if not is_reg(st.st_mode) or not st.st_nlink:  # no link left: gone since the walk
                        outcome = None
                    elif linked is not None and (st.st_nlink > 1 or reg is None or reg._snap is not None) \
                            and (linked(st) or links_moved(st, fstat(fd))):
                        self.linked += 1
                        outcome = None  # a secret under another name: never read, never counted
                    elif size > limit:
                        outcome = "too_large"
                    elif size > region:
                        self._stream, fd, outcome = Stream(rel, fd, size), -1, None
                    else:
                        data = read(fd, size + 1)
                        if len(data) != size:
                            data = self._read_rest(fd, data)  # type: ignore[assignment]
                        if data is None:
                            outcome = "too_large"
                        elif data.find(b"\x00", 0, BINARY_SNIFF) >= 0 or not (data.isascii() or _is_utf8(data)):
                            outcome = "binary"
                        else:
                            batch.append((rel, data))  # its text, to search
                            spent += len(data)
                            pending += len(data)
                            outcome = None
                except OSError as exc:
                    outcome = None if exc.errno == errno.ENOENT else "unreadable"
                finally:
                    if fd >= 0:
                        close(fd)
            if outcome is not None:
                batch.append((rel, outcome))
                if isinstance(outcome, bytes):
                    spent += len(outcome)
                    pending += len(outcome)
            spent += FILE_COST
            if (pending >= region or self._stream is not None or i >= count or spent >= budget
                    or monotonic() >= deadline):
                self.index = i
                return spent, pending

    def close(self) -> None:
        """Release every descriptor (idempotent)."""
        end_stream(self)
        self.dirs.close()
        root_fd, self._root_fd = self._root_fd, -1
        if root_fd >= 0:
            os.close(root_fd)

    # -- one file ------------------------------------------------------------------------

    def _file(self, rel: str) -> bytes | str | None:
        """Open and read a small file, or start streaming a large one. The outcome: its
        text (bytes) to search, a skip reason to count (``"binary"``, ``"too_large"``,
        ``"unreadable"``), or ``None`` (nothing to say: gone, not a regular file, a linked
        secret, or streamed)."""
        try:
            fd = self._open_file(rel)
        except OSError as exc:
            if exc.errno == errno.ENOENT:  # gone since the walk
                return None
            if exc.errno in (errno.EACCES, errno.EPERM) and unopenable_secret(self.ops, self._root, rel,
                                                                               self.linked_secret):
                self.linked += 1
                return None  # a secret's other name the agent may not open either: never counted
            return "unreadable"
        try:
            st = self._fstat(fd)
            if not stat_mod.S_ISREG(st.st_mode) or not st.st_nlink:  # no link left: gone since the walk
                return None
            if st.st_nlink == 1 and self._relink_since != _NEVER and (
                    not self._native or st.st_ctime_ns >= self._relink_since):  # a seam: always, by its lstat
                st = seen_links(st, os.path.join(self._root, rel), lstat=None if self._native else self.ops.lstat)
            if self.linked_secret is not None and (self.linked_secret(st) or (
                    st.st_nlink > 1 and links_moved(st, self._fstat(fd)))):
                self.linked += 1
                return None  # a secret under another name: never read, never counted
            size = st.st_size
            if size > self.search_limit:
                return "too_large"
            if size > self.region:
                self._stream, fd = Stream(rel, fd, size), -1
                return None
            first = self._read(fd, size + 1)  # what fstat promised, +1 to see growth
            # a different length: it changed since; read to its end (or the cap)
            data = first if len(first) == size else self._read_rest(fd, first)
        except OSError as exc:
            return None if exc.errno == errno.ENOENT else "unreadable"
        finally:
            if fd >= 0:
                self._close(fd)
        if data is None:
            return "too_large"
        if b"\x00" in data[:BINARY_SNIFF] or not _is_utf8(data):
            return "binary"
        return data

    def _count(self, outcome: str) -> None:
        if outcome == "binary":
            self.binary += 1
        elif outcome == "too_large":
            self.too_large += 1
        else:
            self.unreadable += 1

    def _flush(self, batch: Sequence[tuple[str, bytes | str]]) -> None:
        """Search the texts of ``batch`` and count its skips, in path order, stopping (and
        counting nothing further) once ``stop_at`` hits are found."""
        texts = [(rel, o) for rel, o in batch if isinstance(o, bytes)]
        found = self._search_many(texts) if self.rx_batches else self._search_each(texts)
        if not found:  # no hit: only the skips to count (the common batch)
            if len(texts) < len(batch):
                for skip in [o for _, o in batch if isinstance(o, str)]:
                    self._count(skip)
            return
        for rel, outcome in batch:
            if isinstance(outcome, str):
                self._count(outcome)
                continue
            got = found.pop(rel, None)
            for hit in got or ():
                self.hits.append(hit)
                if self.budget is not None:
                    self.chars += hit_chars(hit)
                if enough(len(self.hits), self.chars, self.stop_at, self.budget):
                    return

    def _search_each(self, texts: Sequence[tuple[str, bytes]]) -> dict[str, list[SearchHit]]:
        out: dict[str, list[SearchHit]] = {}
        n, chars = len(self.hits), self.chars
        for rel, data in texts:
            hits: list[SearchHit] = []
            self._search(rel, data, 0, len(data), 1, [], into=hits, base=(n, chars))
            if hits:
                out[rel] = hits
                n += len(hits)
                if self.budget is not None:
                    chars += sum(map(hit_chars, hits))
                if enough(n, chars, self.stop_at, self.budget):
                    break
        return out

    def _search_many(self, texts: Sequence[tuple[str, bytes]]) -> dict[str, list[SearchHit]]:
        """One search over the texts joined by ``\n`` (a match never spans lines, so never
        files); a match is mapped back to its file by offset."""
        out: dict[str, list[SearchHit]] = {}
        if not texts:
            return out
        buf = b"\n".join(data for _, data in texts)
        starts: list[int] = []
        pos = 0
        for _, data in texts:
            starts.append(pos)
            pos += len(data) + 1
        search = self.rx.search
        total, chars = len(self.hits), self.chars
        stop_at, budget = self.stop_at, self.budget
        pos, end = 0, len(buf)
        began = time.perf_counter()
        while pos < end:
            span = search(buf, pos, end)
            if span is None:
                break
            i = bisect_right(starts, span[0]) - 1
            rel, data = texts[i]
            a, b = starts[i], starts[i] + len(data)
            ls = max(buf.rfind(b"\n", a, span[0]) + 1, a) if span[0] > a else a
            if ls >= b:  # the empty line joining two files, or an empty file
                pos = b + 1
                continue
            le = buf.find(b"\n", span[0], b)
            le = b if le < 0 else le
            hit = hit_at(rel, buf, (a, b, ls, le), buf.count(b"\n", a, ls) + 1, [], self.context, None, 0)
            out.setdefault(rel, []).append(hit)
            total += 1
            if budget is not None:
                chars += hit_chars(hit)
                if total >= 2 and chars > budget:
                    break
            if stop_at is not None and total >= stop_at:  # ``enough``, inlined (per hit)
                break
            pos = le + 1
        self._learn(pos, time.perf_counter() - began)
        return out

    def _open_file(self, rel: str) -> int:
        """A descriptor of file ``rel``, no symlink followed on the way: one ``openat2``
        from the root; where that fails for any reason but ``ENOENT``, the directory chain
        decides (the same answer the chain alone would give)."""
        beneath = self._beneath
        if beneath is not None:
            try:
                if self._root_fd < 0:
                    self._root_fd = os.open(self._root, DIR_FLAGS)
                return beneath(self._root_fd, rel)
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise
        parent, _, name = rel.rpartition("/")
        return self._open(name, dir_fd=self.dirs.enter(parent))

    def _read_rest(self, fd: int, first: bytes) -> bytes | None:
        """The rest of a file whose first read did not return what fstat said (it grew or
        shrank since): read to its end; ``None`` past the cap (counted as too large)."""
        chunks: list[bytes] = [first]
        want = self.search_limit + 1 - len(first)
        while want > 0 and first:
            first = self._read(fd, min(want, READ_STEP))
            chunks.append(first)
            want -= len(first)
        data = b"".join(chunks)
        if len(data) > self.search_limit:
            return None
        return data

    # -- one buffer ----------------------------------------------------------------------

    def _search(self, rel: str, buf: bytes, start: int, end: int, line: int, tail: list[str],
                pending: list[tuple[int, int]] | None = None, *, into: list[SearchHit] | None = None,
                base: tuple[int, int] = (0, 0)) -> int:
        """Add the hits in ``buf[start:end]`` (whole lines; its first line is number
        ``line``; ``tail``: the lines before it, for context) to ``into`` (default: the
        scanner's hits, charged to ``chars``; ``base``: the hits and characters found before
        ``into``). Returns the number of lines in the region."""
        search = self.rx.search
        hits = self.hits if into is None else into
        n0, chars = (0, self.chars) if into is None else base
        pos = counted = start
        lines = 0
        began = time.perf_counter()
        while pos < end:
            span = search(buf, pos, end)
            if span is None:
                break
            s = span[0]
            ls = max(buf.rfind(b"\n", start, s) + 1, start) if s > start else start
            if ls >= end:  # an empty match after the region's last \n: no line there
                break
            le = buf.find(b"\n", s, end)
            le = end if le < 0 else le
            lines += buf.count(b"\n", counted, ls)
            counted = ls
            hit = hit_at(rel, buf, (start, end, ls, le), line + lines, tail, self.context,
                         pending, len(self.hits))
            hits.append(hit)
            if self.budget is not None:
                chars += hit_chars(hit)
                if into is None:
                    self.chars = chars
                if n0 + len(hits) >= 2 and chars > self.budget:
                    return lines
            if self.stop_at is not None and n0 + len(hits) >= self.stop_at:  # ``enough``, inlined
                return lines
            pos = le + 1
        self._learn(end - start, time.perf_counter() - began)
        return lines + buf.count(b"\n", counted, end)

