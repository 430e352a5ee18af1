"""Glob rules tested together on one text (a basename or a base-relative path), pure.

A :class:`GlobGroup` answers "the last of these rules that matches", as git's
``last_matching_pattern_from_list`` does rule by rule, at a cost that stays close to git's
however many rules a (possibly hostile) ignore file holds:

* a few rules (:data:`CHUNK`) are one regex, their alternatives in reverse rule order,
  each a capturing group: the first alternative that matches is the last rule that
  matches, and ``lastindex`` says which (no regex per rule);
* more rules are indexed by the literal text every match starts with (the rule's literal
  prefix) or, when there is none, ends with (its literal suffix): a text looks up only the
  buckets its own prefixes and suffixes name; the rules with neither are chunked;
* every regex is compiled on first use, so a rule nobody's path can reach costs no
  compilation (``re`` compiles ~100 µs per rule: a 50,000-rule file compiled eagerly
  costs seconds).

A bucket is only a necessary condition: the rules in it are still decided by their own
regex or git's ``wildmatch``, so the decisions are the rules' own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pathgate.runtime.ignore._wildmatch import _fold

if TYPE_CHECKING:
    from pathgate.runtime.ignore._rules import Pattern

__all__ = ["CHUNK", "GlobGroup", "glob_group"]

#: Rules per regex; a group of more rules is indexed by literal prefix / suffix.
CHUNK = 64


class _Chunk:
    """At most :data:`CHUNK` rules (ascending index): one regex, compiled on first use,
    and the rules git's ``wildmatch`` port decides (``Pattern.wild``)."""

    __slots__ = ("ids", "quick", "rules", "rx", "top", "wild")

    def __init__(self, rules: list[tuple[int, Pattern]]) -> None:
        self.rules = rules
        # once built, and when no rule needs the wildmatch port: the regex's ``fullmatch``,
        # a caller's test before calling :meth:`best` (no Python call for a miss)
        self.quick: Callable[[str], object] | None = None
        self.top = rules[-1][0]
        self.rx: re.Pattern[str] | None = None
        self.ids: list[int] = []
        self.wild: list[tuple[int, Pattern]] = []

    def _build(self) -> re.Pattern[str]:
        # built aside and published regex last: a thread that sees ``rx`` sees the rest
        # (two threads building at once build equal values)
        parts: list[str] = []
        ids: list[int] = []
        wild: list[tuple[int, Pattern]] = []
        for idx, pt in reversed(self.rules):
            if pt.wild is not None:
                wild.append((idx, pt))
            elif pt.body is not None:
                parts.append(f"({pt.body})")
                ids.append(idx)
        # a rule that can match nothing is left out; no alternative at all: never matches
        rx = re.compile("|".join(parts) if parts else "(?!)", re.DOTALL)
        self.ids = ids
        self.wild = wild
        self.rx = rx
        if not wild:
            self.quick = rx.fullmatch
        return rx

    def best(self, text: str, best: int) -> int:
        """The larger of ``best`` and the index of the last rule here matching ``text``."""
        if self.top <= best:
            return best
        rx = self.rx or self._build()
        m = rx.fullmatch(text)
        if m is not None:
            idx = self.ids[m.lastindex - 1]  # type: ignore[operator]  # a group matched
            if idx > best:
                best = idx
        for idx, pt in self.wild:
            if idx <= best:
                break
            if pt.wild(text):  # type: ignore[misc]  # wild is set for these
                return idx
        return best


class _Chunks:
    """Rules (ascending index) cut into chunks, the last chunk tested first."""

    __slots__ = ("chunks",)

    def __init__(self, rules: list[tuple[int, Pattern]]) -> None:
        self.chunks = [_Chunk(rules[k:k + CHUNK]) for k in range(0, len(rules), CHUNK)]
        self.chunks.reverse()

    def best(self, text: str, best: int) -> int:
        for chunk in self.chunks:
            if chunk.top <= best:
                break
            got = chunk.best(text, best)
            if got != best:
                return got  # every earlier chunk holds lower indices only
        return best


def _prefix(pt: Pattern) -> str:
    """The literal text every match of ``pt`` starts with (folded as the text is)."""
    return pt.head


def _suffix(pt: Pattern) -> str:
    """The literal tail of ``pt``'s wildmatch pattern: what follows its last special
    character (``*?[]\\``), folded as the text is. Every text it matches ends with it (a
    malformed pattern matches nothing, and an escaped upper-case letter nothing folded:
    any tail will do)."""
    glob = pt.glob
    last = max(map(glob.rfind, "*?[]\\"))  # (rfind: linear on any line)
    tail = glob[last + 1:]
    if tail.startswith("/") and glob[last - 1:last + 1] == "**":
        # ``**/`` matches zero directories too: ``**/foo/bar`` matches ``foo/bar``, so the
        # slash is not part of every match
        tail = tail[1:]
    return _fold(tail) if pt.fold else tail


def _bucket(index: dict[str, list[tuple[int, Pattern]] | _Chunks], key: str,
            got: list[tuple[int, Pattern]] | _Chunks) -> _Chunks:
    """The chunks of bucket ``key`` (built on first use)."""
    if isinstance(got, list):
        got = index[key] = _Chunks(got)
    return got


class GlobGroup:
    """The glob rules (``(index, pattern)``, ascending) tested on one text: ``best``."""

    __slots__ = ("plens", "pmap", "quick", "rest", "slens", "smap", "top")

    def __init__(self, rules: list[tuple[int, Pattern]]) -> None:
        self.top = rules[-1][0] if rules else -1
        self.quick: Callable[[str], object] | None = None  # (no single test)
        # bucket → its rules, turned into chunks when a text first reaches it
        self.pmap: dict[str, list[tuple[int, Pattern]] | _Chunks] = {}
        self.smap: dict[str, list[tuple[int, Pattern]] | _Chunks] = {}
        self.plens: tuple[int, ...] = ()
        self.slens: tuple[int, ...] = ()
        self.rest: _Chunks | _Chunk | None = None
        if len(rules) <= CHUNK:
            self.rest = _Chunk(rules) if rules else None
            return
        byp: dict[str, list[tuple[int, Pattern]]] = {}
        bys: dict[str, list[tuple[int, Pattern]]] = {}
        rest: list[tuple[int, Pattern]] = []
        for idx, pt in rules:
            pre = _prefix(pt)
            if pre:
                byp.setdefault(pre, []).append((idx, pt))
                continue
            suf = _suffix(pt)
            if suf:
                bys.setdefault(suf, []).append((idx, pt))
            else:
                rest.append((idx, pt))
        self.pmap = dict(byp)
        self.smap = dict(bys)
        self.plens = tuple(sorted({len(k) for k in byp}))
        self.slens = tuple(sorted({len(k) for k in bys}))
        if rest:
            self.rest = _Chunks(rest)

    def best(self, text: str, best: int = -1) -> int:
        """The larger of ``best`` and the index of the last rule matching ``text``."""
        if self.top <= best:
            return best
        n = len(text)
        if self.plens:
            pmap = self.pmap
            for k in self.plens:
                if k > n:
                    break
                got = pmap.get(text[:k])
                if got is not None:
                    best = _bucket(pmap, text[:k], got).best(text, best)
        if self.slens:
            smap = self.smap
            for k in self.slens:
                if k > n:
                    break
                got = smap.get(text[n - k:])
                if got is not None:
                    best = _bucket(smap, text[n - k:], got).best(text, best)
        rest = self.rest
        if rest is not None:
            best = rest.best(text, best)
        return best


def glob_group(rules: list[tuple[int, Pattern]]) -> GlobGroup | _Chunk:
    """The matcher of ``rules`` (non-empty, ascending): one chunk when they fit in one
    (fewer calls per path), else a :class:`GlobGroup`."""
    return _Chunk(rules) if len(rules) <= CHUNK else GlobGroup(rules)
