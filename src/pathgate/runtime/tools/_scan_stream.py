"""The region reader of :mod:`._scan`: a file larger than the scan's region is read and
searched piece by piece (:func:`stream_piece`), across hops.

Each piece is one region (:attr:`~._scan.Scanner.region` bytes, at most the rest of the search
size cap) read from the file's descriptor; it is searched up to its last line end, and the
partial line after it is carried into the next piece, so every line is searched whole and a
match (never spanning lines) is found exactly as in one buffer. A hit near a piece's end waits
(``pending``) for its context lines from the next piece. Only the NUL test calls a streamed
file binary (its first :data:`BINARY_SNIFF` bytes); a file that grows past the cap while read
is counted as over the size limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathgate.results import SearchHit
from pathgate.runtime.tools._scan_lines import _after, _before
from pathgate.runtime.tools._search_budget import hit_chars

if TYPE_CHECKING:
    from pathgate.runtime.tools._scan import Scanner

__all__ = ["BINARY_SNIFF", "Stream", "end_stream", "stream_piece"]

#: Bytes inspected for a NUL to call a file binary.
BINARY_SNIFF = 8192


class Stream:
    """A file larger than the region, scanned piece by piece across hops. (A plain slotted
    class: a dataclass costs about a millisecond and a half of every ``pathgate search`` start.)"""

    __slots__ = ("carry", "fd", "line", "pending", "read", "rel", "size", "tail")

    def __init__(self, rel: str, fd: int, size: int) -> None:
        self.rel = rel
        self.fd = fd
        self.size = size
        self.carry = b""
        self.line = 1  # number of the first line of ``carry``
        self.read = 0
        self.tail: list[str] = []  # last context lines before ``carry``
        self.pending: list[tuple[int, int]] = []  # (hit index, lines wanted)


def stream_piece(sc: Scanner, s: Stream) -> int:
    """Read and search the next piece of ``sc``'s streamed file ``s``; bytes read."""
    try:
        chunk = sc.ops.read_fd(s.fd, min(sc.region, sc.search_limit + 1 - s.read))
    except OSError:
        sc.unreadable += 1
        chunk = b""
        s.carry = b""
    first = s.read == 0
    s.read += len(chunk)
    if first and b"\x00" in chunk[:BINARY_SNIFF]:
        sc.binary += 1
        end_stream(sc)
        return len(chunk)
    if s.read > sc.search_limit:  # grew past the cap while read: stop there
        sc.too_large += 1
        end_stream(sc)
        return len(chunk)
    buf = s.carry + chunk if s.carry else chunk
    end = len(buf) if not chunk else buf.rfind(b"\n") + 1
    if end > 0:
        _fill_pending(sc, s, buf, end)
        if not sc._full:  # once full, a piece only completes the hits' context
            if not sc.affordable(end):  # a long line the time limit cannot pay for: not searched
                return len(chunk)
            s.line += sc._search(s.rel, buf, 0, end, s.line, s.tail, s.pending)
            if sc.context:
                s.tail = (s.tail + _before(buf, 0, end, sc.context))[-sc.context:]
    s.carry = buf[end:]
    if not chunk:
        end_stream(sc)
    return len(chunk)


def end_stream(sc: Scanner) -> None:
    """Close ``sc``'s streamed file, if any (idempotent)."""
    stream, sc._stream = sc._stream, None
    if stream is not None:
        sc.ops.close(stream.fd)


def _fill_pending(sc: Scanner, s: Stream, buf: bytes, end: int) -> None:
    """Give hits of the previous piece the context lines this piece starts with."""
    if not s.pending:
        return
    first = _after(buf, -1, end, sc.context)
    for i, want in s.pending:
        h = sc.hits[i]
        extra = tuple(first[:want])
        if sc.budget is not None:
            sc.chars -= hit_chars(h)
        sc.hits[i] = h = SearchHit(path=h.path, line=h.line, text=h.text, context_before=h.context_before,
                                   context_after=h.context_after + extra)
        if sc.budget is not None:
            sc.chars += hit_chars(h)
    s.pending = [(i, w - len(first)) for i, w in s.pending if w > len(first)]
