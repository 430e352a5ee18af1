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

The rules git's ``wildmatch`` port decides (``Pattern.wild``: star runs a backtracking regex
would choke on, many brackets) are one Python automaton run each, ~30 µs: a chunk of them
asked about many texts first runs one RE2 regex of all of them (linear time, no
backtracking; built after :data:`FILTER_AFTER` texts, so a one-shot hook asking about three
paths compiles nothing). When it does not match, none of them can (their regex translations
decide as the automaton does: a generated-pattern differential in the tests), so only the
few it leaves out (longer than :data:`FILTER_GLOB` characters) run; when it matches, every
rule runs as before, so a filter can only save work, never change a decision (red team 20
L1: 5,000 lines like ``*a*b*c*`` made a glob over 100 files take 31 s).
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
#: Texts a chunk's automaton rules are tested on one by one before their RE2 filter is built.
FILTER_AFTER = 4
#: Longest wildmatch pattern (characters) put in a chunk's RE2 filter (longer ones always run).
FILTER_GLOB = 4096
#: Program memory of one filter (bytes); a filter that does not fit is not used.
FILTER_MEM = 32 << 20


def _re2_filter(rules: list[tuple[int, Pattern]]) -> tuple[Callable[[str], bool] | None, list[tuple[int, Pattern]]]:
    """One RE2 regex matching a text when any of ``rules`` (automaton rules, descending) may
    (``None``: no filter), and the rules it leaves out (too long, or the regex did not
    compile: then all), which always run."""
    import re2  # type: ignore[import-untyped]  # (only when a chunk has such rules and many texts)

    parts: list[str] = []
    left: list[tuple[int, Pattern]] = []
    for idx, pt in rules:
        body = pt.filter_body() if len(pt.glob) <= FILTER_GLOB else ""
        if body is None or "(?!)" in body:
            continue  # it can match nothing (the automaton agrees: never true)
        if body:
            parts.append(f"(?:{body})")
        else:
            left.append((idx, pt))
    if not parts:
        return None, left
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.dot_nl = True
    options.never_capture = True
    options.log_errors = False
    options.max_mem = FILTER_MEM
    rx = re2._re2.RE2("|".join(parts).encode("latin-1"), options)
    if not rx.ok():
        return None, rules
    match = rx.Match
    both = re2._Anchor.ANCHOR_BOTH

    def may_match(text: str) -> bool:
        try:
            data = text.encode("latin-1")
        except UnicodeEncodeError:  # (a latin-1 view never has such a character)
            return True
        return bool(match(both, data, 0, len(data))[0][0] >= 0)

    return may_match, left


class _Chunk:
    """At most :data:`CHUNK` rules (ascending index): one regex, compiled on first use,
    and the rules git's ``wildmatch`` port decides (``Pattern.wild``)."""

    __slots__ = ("asked", "filt", "ids", "quick", "rules", "rx", "top", "unfiltered", "wild")

    def __init__(self, rules: list[tuple[int, Pattern]]) -> None:
        self.rules = rules
        # once built, and when no rule needs the wildmatch port: the regex's ``fullmatch``,
        # a caller's test before calling :meth:`best` (no Python call for a miss)
        self.quick: Callable[[str], object] | None = None
        self.top = rules[-1][0]
        self.rx: re.Pattern[str] | None = None
        self.ids: list[int] = []
        self.wild: list[tuple[int, Pattern]] = []
        # the automaton rules' RE2 filter (:func:`_re2_filter`): texts asked before it is
        # built, the filter (False: none), the rules it leaves out (descending)
        self.asked = 0
        self.filt: Callable[[str], bool] | bool | None = None
        self.unfiltered: list[tuple[int, Pattern]] = []

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
        wild = self.wild
        if wild and wild[0][0] > best:
            filt = self.filt
            if filt is None:
                self.asked += 1  # (a race only builds the filter a text early or late)
                if self.asked > FILTER_AFTER:
                    got, self.unfiltered = _re2_filter(wild)
                    filt = self.filt = got if got is not None else False
            if filt and not filt(text):  # type: ignore[operator]  # a filter when truthy
                wild = self.unfiltered  # none of the others can match
            for idx, pt in wild:
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
