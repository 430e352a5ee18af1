"""Glob patterns for the ``glob`` and ``code_search`` tools (not ignore rules).

Semantics (the ones agents expect from a ``glob`` tool): the pattern is matched against
paths relative to the search directory, segment by segment.

* ``*`` matches any run of characters within one path segment, ``?`` one character;
* ``[...]`` a character class (``[!...]`` / ``[^...]`` negate; ranges work);
* ``**`` as a whole segment matches zero or more directories (``**/*.py``, ``src/**``);
* a pattern without ``/`` matches at the top level only (``*.py``); use ``**/*.py`` for
  any depth;
* ``\\`` escapes the next character.

A pattern is compiled once into one regular expression, plus what the walker needs to
prune: the literal leading directories and whether a directory could hold a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pathgate.errors import ToolArgumentError

__all__ = ["GlobPattern", "compile_glob"]


def _bracket_end(seg: str, i: int) -> int:
    """Index of the ``]`` closing the class opened at ``seg[i] == "["``, or -1 (a literal ``[``)."""
    n = len(seg)
    j = i + 1
    if j < n and seg[j] in "!^":
        j += 1
    if j < n and seg[j] == "]":
        j += 1
    while j < n and seg[j] != "]":
        j += 1
    return j if j < n else -1


_STAR = object()
_ANY = object()


def _class(seg: str, i: int, j: int, field: str) -> re.Pattern[str]:
    """The character class ``seg[i : j + 1]`` (``[...]``) as a one-character regex."""
    body = seg[i + 1 : j]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\").replace("[", "\\[")
    if body.startswith("]"):
        body = "\\" + body
    cls = ("[^/" if negate else "[") + body + "]"
    try:
        return re.compile(cls, re.DOTALL)
    except re.error as exc:
        raise ToolArgumentError(
            f"{field}: invalid character class {seg[i : j + 1]!r}: {exc}", field=field
        ) from None


def _tokens(seg: str, field: str = "pattern") -> list[object]:
    """A segment as tokens: ``_STAR``, ``_ANY``, a literal ``str`` or a class ``re.Pattern``
    (the one parser of segment syntax; the regex and the linear matcher both use it).

    Linear time: a ``[`` after the last ``]`` is a literal without scanning (thousands of
    unclosed ``[`` would otherwise cost a scan each), and a closed class is skipped whole."""
    out: list[object] = []
    i, n = 0, len(seg)
    last_close = seg.rfind("]")
    while i < n:
        c = seg[i]
        if c == "*":
            while i + 1 < n and seg[i + 1] == "*":
                i += 1
            out.append(_STAR)
        elif c == "?":
            out.append(_ANY)
        elif c == "\\":
            i += 1
            out.append(seg[i] if i < n else "\\")
        elif c == "[" and i < last_close and (j := _bracket_end(seg, i)) >= 0:
            out.append(_class(seg, i, j, field))
            i = j
        else:
            out.append(c)
        i += 1
    return out


def _translate_segment(seg: str, field: str) -> str:
    """The regex for one segment (``*`` and ``?`` never match ``/``)."""
    parts: list[str] = []
    for tok in _tokens(seg, field):
        if tok is _STAR:
            parts.append("[^/]*")
        elif tok is _ANY:
            parts.append("[^/]")
        elif isinstance(tok, str):
            parts.append(re.escape(tok))
        else:
            assert isinstance(tok, re.Pattern)
            parts.append(tok.pattern)
    return "".join(parts)


_MAGIC = re.compile(r"[*?\[\\]")

#: Wildcards in one segment, or ``**`` segments in a pattern, above which the pattern is
#: matched by the linear-time matcher below instead of a backtracking regex: a
#: model-supplied ``*a*a*a…*b`` must not pin a worker thread.
MAX_REGEX_STARS = 3
MAX_REGEX_GLOBSTARS = 4


def _greedy(tokens: list[object], items: list[str] | str, one: Callable[[object, str], bool]) -> bool:
    """Wildcard matching in O(len(tokens) × len(items)): ``_STAR`` matches any run of items,
    every other token exactly one item (the classic single-backtrack-point algorithm)."""
    t = i = 0
    star = -1
    mark = 0
    nt, ni = len(tokens), len(items)
    while i < ni:
        if t < nt and tokens[t] is not _STAR and one(tokens[t], items[i]):
            t += 1
            i += 1
        elif t < nt and tokens[t] is _STAR:
            star, mark = t, i
            t += 1
        elif star >= 0:
            t = star + 1
            mark += 1
            i = mark
        else:
            return False
    while t < nt and tokens[t] is _STAR:
        t += 1
    return t == nt


def _one_char(token: object, ch: str) -> bool:
    if token is _ANY:
        return ch != "/"
    if isinstance(token, str):
        return token == ch
    assert isinstance(token, re.Pattern)
    return token.fullmatch(ch) is not None


def _segment_pred(seg: str) -> Callable[[str], bool]:
    """A predicate for one segment: a regex when cheap, else the linear matcher."""
    if seg.count("*") <= MAX_REGEX_STARS:
        rx = re.compile(_translate_segment(seg, "pattern"), re.DOTALL)
        return lambda name: rx.fullmatch(name) is not None
    toks = _tokens(seg)
    return lambda name: _greedy(toks, name, _one_char)


def _ANY_SEGMENT(name: str) -> bool:
    return True


def _one_segment(token: object, name: str) -> bool:
    return bool(token(name))  # type: ignore[operator]


@dataclass(frozen=True, slots=True)
class GlobPattern:
    """A compiled glob: ``match(relpath)`` for files, ``could_match_below(dir)`` for pruning."""

    pattern: str
    regex: re.Pattern[str]
    segments: tuple[str, ...]
    segment_regexes: tuple[re.Pattern[str] | None, ...]  # None for "**"
    literal_prefix: str  # leading directories without glob characters ("" if none)
    has_globstar: bool
    linear: tuple[object, ...] | None = None  # segment tokens when the regex would backtrack

    def match(self, relpath: str) -> bool:
        if self.linear is not None:
            return _greedy(list(self.linear), relpath.split("/"), _one_segment)
        return self.regex.fullmatch(relpath) is not None

    @property
    def prunes(self) -> bool:
        """Can :meth:`could_match_below` ever say no? Not when the pattern starts with
        ``**``: then every directory may hold a match, and walks need no pre-filter."""
        return self.segment_regexes[0] is not None

    def could_match_below(self, dirpath: str) -> bool:
        """Could a path strictly below directory ``dirpath`` (relative, no slash) match?"""
        if not dirpath:
            return True
        parts = dirpath.split("/")
        for i, part in enumerate(parts):
            if i >= len(self.segments):
                return False
            rx = self.segment_regexes[i]
            if rx is None:  # "**": anything below may match
                return True
            if i == len(self.segments) - 1:
                return False  # the last segment names files, not a directory to enter
            if not _segment_pred(self.segments[i])(part) if self.linear is not None else (
                    rx.fullmatch(part) is None):
                return False
        return True


def compile_glob(pattern: str, *, field: str = "pattern") -> GlobPattern:
    """Compile ``pattern``; raise :class:`ToolArgumentError` naming ``field`` when invalid."""
    if not isinstance(pattern, str) or not pattern:
        raise ToolArgumentError(f"{field}: must be a non-empty glob pattern", field=field)
    if "\x00" in pattern:
        raise ToolArgumentError(f"{field}: must not contain a NUL character", field=field)
    pat = pattern
    while pat.startswith("./"):
        pat = pat[2:]
    if pat.startswith("/"):
        raise ToolArgumentError(
            f"{field}: must be relative to the search directory (no leading '/')", field=field
        )
    parts = [s for s in pat.split("/") if s not in ("", ".")]
    # consecutive "**" segments mean what one does (and would nest backtracking groups)
    segments = tuple(s for k, s in enumerate(parts) if not (s == "**" and k and parts[k - 1] == "**"))
    if not segments:
        raise ToolArgumentError(f"{field}: must name something to match", field=field)
    if any(s == ".." for s in segments):
        raise ToolArgumentError(f"{field}: must not contain '..'", field=field)
    regex_parts: list[str] = []
    seg_rx: list[re.Pattern[str] | None] = []
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == "**":
            seg_rx.append(None)
            regex_parts.append(".*" if last else "(?:[^/]+/)*")
            continue
        body = _translate_segment(seg, field)
        seg_rx.append(re.compile(body, re.DOTALL))
        regex_parts.append(body if last else body + "/")
    regex = re.compile("".join(regex_parts), re.DOTALL)
    linear: tuple[object, ...] | None = None
    if (max(s.count("*") if s != "**" else 0 for s in segments) > MAX_REGEX_STARS
            or segments.count("**") > MAX_REGEX_GLOBSTARS):
        toks: list[object] = []
        for i, seg in enumerate(segments):
            if seg == "**":
                toks += [_ANY_SEGMENT, _STAR] if i == len(segments) - 1 else [_STAR]
            else:
                toks.append(_segment_pred(seg))
        linear = tuple(toks)
    prefix: list[str] = []
    for seg in segments[:-1]:
        if seg == "**" or _MAGIC.search(seg):
            break
        prefix.append(seg)
    return GlobPattern(
        pattern=pattern,
        regex=regex,
        segments=segments,
        segment_regexes=tuple(seg_rx),
        literal_prefix="/".join(prefix),
        has_globstar=any(r is None for r in seg_rx),
        linear=linear,
    )
