"""Glob patterns for the ``glob`` and ``code_search`` tools (not ignore rules).

Semantics (the ones agents expect from a ``glob`` tool, and git's ``:(glob)`` pathspec):
the pattern is matched against paths relative to the search directory.

* ``*`` matches any run of characters within one path segment, ``?`` one character;
* ``[...]`` a character class (``[!...]`` / ``[^...]`` negate; ranges and the POSIX classes
  such as ``[[:digit:]]`` work; ``\\`` escapes inside it);
* ``**`` as a whole segment matches zero or more directories (``**/*.py``, ``src/**``);
  elsewhere it is ``*``;
* a pattern without ``/`` matches at the top level only (``*.py``); use ``**/*.py`` for
  any depth;
* ``\\`` escapes the next character; a ``[`` that opens no class (``foo[1.txt``) and a
  lone trailing ``\\`` are literal.

There is one glob engine in pathgate: the ignore engine's port of git's ``wildmatch``
(:mod:`pathgate.runtime.ignore._wildmatch`) with ``WM_PATHNAME``. A tool pattern is
normalised into wildmatch segments once (the forgiving cases above made literal, empty and
``.`` segments dropped, ``**`` runs collapsed); each segment is compiled exactly as an
ignore line: a regex when it cannot backtrack badly, git's ``dowild`` (memoized, no
recursion) when it holds :data:`~pathgate.runtime.ignore.WILD_STAR_RUNS` or more runs of
``*``. A pattern with fewer runs of ``*`` than that is matched as one regex over the whole
path (exactly the ignore engine's choice for a line). Beyond, a path is matched segment by
segment (never by ``dowild`` over the whole path: its per-path cost in Python is ten
times a regex's): the segments between ``**`` are fixed-length
blocks, the first anchored at the start, the last at the end, the others placed leftmost
(the classic wildcard algorithm over segments: O(path segments × pattern segments) segment
tests, so no backtracking across ``/`` and the same answers as wildmatch on the whole).
Like git, it matches bytes: paths and patterns are compared as the latin-1 view of their
file-system bytes, so ``?`` and a class match one byte of a non-ASCII name.

Compilation is linear in the pattern's length (a class is parsed within
:data:`MAX_CLASS` bytes; a ``[`` after the last ``]`` is literal without a parse), and the
tools always run it in a worker thread.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from pathgate.errors import ToolArgumentError
from pathgate.runtime.ignore import WILD_STAR_RUNS, Wildmatch, star_runs, translate_wildmatch
from pathgate.runtime.ignore._wildmatch import bracket_members

__all__ = ["MAX_CLASS", "MAX_GLOB", "GlobPattern", "compile_glob"]

#: Characters a glob pattern may have. A pattern is compiled in one worker hop that no other
#: call's hop can interrupt; 200 KB of ``[a-z]`` took 12.5 s there and 200 KB of ``?`` 0.8 s
#: (red team 18 J6). At this bound the worst measured is ~0.25 s; ordinary patterns are far
#: shorter (a brace list of a few hundred file names fits).
MAX_GLOB = 8_192
#: Bytes a character class may span (``[`` to ``]``); a longer one is a literal ``[``.
MAX_CLASS = 256

_MAGIC = re.compile(r"[*?\[\\]")


def _view(s: str) -> str:
    """The latin-1 view of ``s``'s file-system bytes (what wildmatch compares)."""
    return s if s.isascii() else os.fsencode(s).decode("latin-1")


def _shown(view: str) -> str:
    return os.fsdecode(view.encode("latin-1"))


def _class_end(seg: str, i: int, last_close: int) -> int:
    """The index after the class opened at ``seg[i] == "["``, or -1 (a literal ``[``): the
    ignore engine's own bracket parser decides, within :data:`MAX_CLASS` bytes."""
    if i > last_close:
        return -1
    res = bracket_members(seg[i:i + MAX_CLASS], 0, True, False)
    return -1 if res is None else i + res[1]


def _normalise(seg: str) -> str:
    """One pattern segment (latin-1 view, not ``**``) as a wildmatch pattern of the same
    meaning: runs of ``*`` made one, a ``[`` that opens no class and a lone trailing
    backslash escaped."""
    out: list[str] = []
    i, n = 0, len(seg)
    last_close = seg.rfind("]")
    while i < n:
        c = seg[i]
        if c == "\\":
            out.append(seg[i:i + 2] if i + 1 < n else "\\\\")
            i += 2
        elif c == "*":
            while i < n and seg[i] == "*":
                i += 1
            out.append("*")
        elif c == "[":
            end = _class_end(seg, i, last_close)
            out.append(seg[i:end] if end > 0 else "\\[")
            i = end if end > 0 else i + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


#: A fullmatch test over a latin-1 view (truthy when it matches).
Matcher = Callable[[str], object]


def _matcher(p: str) -> Matcher:
    """The fullmatch test over latin-1 views for the wildmatch pattern ``p`` (valid)."""
    if star_runs(p) >= WILD_STAR_RUNS:
        return Wildmatch(p, True)
    body = translate_wildmatch(p, True)
    assert body is not None, p  # normalised: every class closed, every escape complete
    return re.compile(body, re.DOTALL).fullmatch


class GlobPattern:
    """A compiled glob: ``match(relpath)`` for files, ``could_match_below(dir)`` for pruning.

    ``segments`` are the normalised wildmatch segments (latin-1 views); ``wildmatch`` is
    their join (what git's wildmatch would run on the whole path). Immutable, compared and
    hashed by its fields. (A plain slotted class, not a frozen dataclass: defining one costs
    about a millisecond and a half of every ``pathgate glob`` start.)"""

    __slots__ = ("_blocks", "_parts", "_whole", "has_globstar", "literal_prefix", "pattern", "segments",
                 "wildmatch")
    _FIELDS = ("pattern", "wildmatch", "segments", "literal_prefix", "has_globstar", "_parts", "_blocks", "_whole")

    pattern: str
    wildmatch: str
    segments: tuple[str, ...]
    literal_prefix: str  # leading directories without glob characters ("" if none)
    has_globstar: bool
    _parts: tuple[Matcher | None, ...]  # None for "**"
    _blocks: tuple[tuple[Matcher, ...], ...]  # the segments between "**"
    _whole: Matcher | None  # one regex over the whole path, when safe

    def __init__(self, *, pattern: str, wildmatch: str, segments: tuple[str, ...], literal_prefix: str,
                 has_globstar: bool, _parts: tuple[Matcher | None, ...], _blocks: tuple[tuple[Matcher, ...], ...],
                 _whole: Matcher | None) -> None:
        put = object.__setattr__
        put(self, "pattern", pattern)
        put(self, "wildmatch", wildmatch)
        put(self, "segments", segments)
        put(self, "literal_prefix", literal_prefix)
        put(self, "has_globstar", has_globstar)
        put(self, "_parts", _parts)
        put(self, "_blocks", _blocks)
        put(self, "_whole", _whole)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, f) for f in self._FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not GlobPattern:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "GlobPattern(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._FIELDS) + ")"

    def match(self, relpath: str) -> bool:
        """Does the path (relative to the search directory) match?"""
        if self._whole is not None:
            return bool(self._whole(_view(relpath)))
        names = _view(relpath).split("/")
        blocks = self._blocks
        n = len(names)
        first = blocks[0]
        if len(blocks) == 1:
            return len(first) == n and all(map(_call, first, names))
        last = blocks[-1]
        lo, hi = len(first), n - len(last)
        if hi < lo or not all(map(_call, first, names)) or not all(map(_call, last, names[hi:])):
            return False
        end = hi - 1 if not last else hi  # a trailing "**" keeps at least one segment
        pos = lo
        for block in blocks[1:-1]:
            k = len(block)
            while pos + k <= end and not all(map(_call, block, names[pos:pos + k])):
                pos += 1
            if pos + k > end:
                return False
            pos += k
        return pos <= end

    @property
    def prunes(self) -> bool:
        """Can :meth:`could_match_below` ever say no? Not when the pattern starts with
        ``**``: then every directory may hold a match, and walks need no pre-filter."""
        return self._parts[0] is not None

    def could_match_below(self, dirpath: str) -> bool:
        """Could a path strictly below directory ``dirpath`` (relative, no slash) match?"""
        if not dirpath:
            return True
        parts = self._parts
        last = len(parts) - 1
        for i, name in enumerate(_view(dirpath).split("/")):
            if i > last:
                return False
            part = parts[i]
            if part is None:  # "**": anything below may match
                return True
            if i == last or not part(name):
                return False  # the last segment names files, not a directory to enter
        return True


def _call(pred: Matcher, name: str) -> bool:
    return bool(pred(name))


def _segments(pattern: str, field: str) -> list[str]:
    """The pattern's segments (latin-1 views), checked: relative, no ``..``, not empty."""
    if not isinstance(pattern, str) or not pattern:
        raise ToolArgumentError(f"{field}: must be a non-empty glob pattern", field=field)
    if "\x00" in pattern:
        raise ToolArgumentError(f"{field}: must not contain a NUL character", field=field)
    if len(pattern) > MAX_GLOB:
        raise ToolArgumentError(
            f"{field}: the pattern is {len(pattern):,} characters long; the limit is {MAX_GLOB:,} "
            "(split it into several calls)", field=field)
    try:
        pat = _view(pattern)
    except UnicodeEncodeError:
        raise ToolArgumentError(f"{field}: is not encodable as a file name", field=field) from None
    while pat.startswith("./"):
        pat = pat[2:]
    if pat.startswith("/"):
        raise ToolArgumentError(
            f"{field}: must be relative to the search directory (no leading '/')", field=field)
    parts = [s for s in pat.split("/") if s not in ("", ".")]
    # consecutive "**" segments mean what one does
    segments = [s for k, s in enumerate(parts) if not (s == "**" and k and parts[k - 1] == "**")]
    if not segments:
        raise ToolArgumentError(f"{field}: must name something to match", field=field)
    if ".." in segments:
        raise ToolArgumentError(f"{field}: must not contain '..'", field=field)
    return segments


def compile_glob(pattern: str, *, field: str = "pattern") -> GlobPattern:
    """Compile ``pattern``; raise :class:`ToolArgumentError` naming ``field`` when invalid."""
    segments = [s if s == "**" else _normalise(s) for s in _segments(pattern, field)]
    wild = "/".join(segments)
    matchers: dict[str, Matcher] = {}  # each distinct pattern compiled once

    def matcher(p: str) -> Matcher:
        if p not in matchers:
            matchers[p] = _matcher(p)
        return matchers[p]

    parts = tuple(None if s == "**" else matcher(s) for s in segments)
    blocks: list[list[Matcher]] = [[]]  # (lists: a tuple grown by += is quadratic)
    for part in parts:
        if part is None:
            blocks.append([])
        else:
            blocks[-1].append(part)
    prefix: list[str] = []
    for seg in segments[:-1]:
        if seg == "**" or _MAGIC.search(seg):
            break
        prefix.append(seg)
    return GlobPattern(
        pattern=pattern,
        wildmatch=wild,
        segments=tuple(segments),
        literal_prefix=_shown("/".join(prefix)),
        has_globstar="**" in segments,
        _parts=parts,
        _blocks=tuple(map(tuple, blocks)),
        _whole=matcher(wild) if star_runs(wild) < WILD_STAR_RUNS else None,
    )
