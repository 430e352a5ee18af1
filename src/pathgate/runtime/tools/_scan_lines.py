"""The lines of a hit, for :mod:`._scan`: a line's text as shown (its ``\\r`` dropped, cut at
:data:`MAX_LINE` characters, decoded with replacement characters) and the context lines
before and after it."""

from __future__ import annotations

__all__ = ["MAX_LINE"]

#: Longest line text returned in a hit (characters); longer lines are cut with "…".
MAX_LINE = 500


def _text(line: bytes) -> str:
    if line.endswith(b"\r"):
        line = line[:-1]
    s = line[: MAX_LINE * 4 + 4].decode("utf-8", "replace")
    return s if len(s) <= MAX_LINE else s[:MAX_LINE] + "…"


def _before(buf: bytes, start: int, ls: int, n: int) -> list[str]:
    """Up to ``n`` lines of ``buf[start:ls]`` (``ls`` is a line start), last ones."""
    out: list[str] = []
    end = ls - 1
    while len(out) < n and end >= start:
        b = buf.rfind(b"\n", start, end) + 1
        b = max(b, start)
        out.append(_text(buf[b:end]))
        end = b - 1
    out.reverse()
    return out


def _after(buf: bytes, le: int, end: int, n: int) -> list[str]:
    """Up to ``n`` lines after the line ending at ``le`` within ``buf[:end]``."""
    out: list[str] = []
    pos = le + 1
    while len(out) < n and pos < end:
        e = buf.find(b"\n", pos, end)
        e = end if e < 0 else e
        out.append(_text(buf[pos:e]))
        pos = e + 1
    return out


def _is_utf8(data: bytes) -> bool:
    """Is ``data`` valid UTF-8 (ASCII at once)?"""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
