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
from dataclasses import dataclass

from pathgate.errors import ToolArgumentError

__all__ = ["GlobPattern", "compile_glob"]


def _translate_segment(seg: str, field: str) -> str:
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        if c == "*":
            while i + 1 < n and seg[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\":
            if i + 1 < n:
                i += 1
                out.append(re.escape(seg[i]))
            else:
                out.append(re.escape("\\"))
        elif c == "[":
            j = i + 1
            if j < n and seg[j] in "!^":
                j += 1
            if j < n and seg[j] == "]":
                j += 1
            while j < n and seg[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape("["))
            else:
                body = seg[i + 1 : j]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("[", "\\[")
                if body.startswith("]"):
                    body = "\\" + body
                cls = ("[^/" if negate else "[") + body + "]"
                try:
                    re.compile(cls)
                except re.error as exc:
                    raise ToolArgumentError(
                        f"{field}: invalid character class {seg[i : j + 1]!r}: {exc}", field=field
                    ) from None
                out.append(cls)
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


_MAGIC = re.compile(r"[*?\[\\]")


@dataclass(frozen=True, slots=True)
class GlobPattern:
    """A compiled glob: ``match(relpath)`` for files, ``could_match_below(dir)`` for pruning."""

    pattern: str
    regex: re.Pattern[str]
    segments: tuple[str, ...]
    segment_regexes: tuple[re.Pattern[str] | None, ...]  # None for "**"
    literal_prefix: str  # leading directories without glob characters ("" if none)
    has_globstar: bool

    def match(self, relpath: str) -> bool:
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
            if rx.fullmatch(part) is None:
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
    segments = tuple(s for s in pat.split("/") if s not in ("", "."))
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
    )
