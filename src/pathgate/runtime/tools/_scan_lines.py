"""The lines of a hit, for :mod:`._scan`: a line's text as shown (its ``\\r`` dropped, cut at
:data:`MAX_LINE` characters, decoded with replacement characters) and the context lines
before and after it."""

from __future__ import annotations

from pathgate.results import SearchHit

__all__ = ["MAX_LINE", "hit_at"]

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


def hit_at(rel: str, buf: bytes, region: tuple[int, int, int, int], line: int, tail: list[str], ctx: int,
           pending: list[tuple[int, int]] | None, index: int) -> SearchHit:
    """The hit on line ``buf[ls:le]`` of a text spanning ``buf[start:end]`` (``region``:
    ``(start, end, ls, le)``), with ``ctx`` lines of context (``tail``: the lines before the
    text); a hit whose context continues past the text is noted in ``pending`` as
    ``(index, lines still wanted)``."""
    start, end, ls, le = region
    if not ctx:
        return SearchHit(path=rel, line=line, text=_text(buf[ls:le]))
    got = _before(buf, start, ls, ctx)
    if len(got) < ctx and tail:
        got = (tail + got)[-ctx:]
    after = _after(buf, le, end, ctx)
    if pending is not None and len(after) < ctx:
        pending.append((index, ctx - len(after)))
    return SearchHit(path=rel, line=line, text=_text(buf[ls:le]),
                     context_before=tuple(got), context_after=tuple(after))
