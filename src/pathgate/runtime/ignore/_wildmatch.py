"""git's ``wildmatch``, pure: pattern → regex translation and the ``dowild`` port.

Compare with git's ``wildmatch.c``. :func:`translate_wildmatch` turns one pattern into a
regex over the latin-1 view of a path's bytes (``fullmatch``, ``re.DOTALL``);
:class:`Wildmatch` is ``dowild`` itself, for lines whose regex could backtrack. Both take
``WM_PATHNAME`` (``pathname``) and ``WM_CASEFOLD`` (``fold``, ASCII only). No I/O here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Sequence

from pathgate.runtime.ignore._wildnfa import compile_nfa

__all__ = [
    "WILD_STAR_RUNS",
    "WM_ABORT_ALL",
    "WM_ABORT_TO_STARSTAR",
    "WM_MATCH",
    "WM_NOMATCH",
    "Wildmatch",
    "bracket_members",
    "literal_regex",
    "star_runs",
    "translate_wildmatch",
]

# ---------------------------------------------------------------------------------------
# wildmatch → regex
# ---------------------------------------------------------------------------------------

_GLOB_SPECIAL = frozenset("*?[\\")


def _cls(test: Callable[[int], bool]) -> frozenset[int]:
    return frozenset(c for c in range(128) if test(c))


def _isalpha(c: int) -> bool:
    return 65 <= c <= 90 or 97 <= c <= 122


def _isdigit(c: int) -> bool:
    return 48 <= c <= 57


def _islower(c: int) -> bool:
    return 97 <= c <= 122


def _isupper(c: int) -> bool:
    return 65 <= c <= 90


# git's sane_ctype (ASCII only; isspace is \t \n \r and space, not \v \f).
_CLASSES: dict[str, frozenset[int]] = {
    "alnum": _cls(lambda c: _isalpha(c) or _isdigit(c)),
    "alpha": _cls(_isalpha),
    "blank": frozenset((9, 32)),
    "cntrl": _cls(lambda c: c < 32 or c == 127),
    "digit": _cls(_isdigit),
    "graph": _cls(lambda c: 33 <= c <= 126),
    "lower": _cls(_islower),
    "print": _cls(lambda c: 32 <= c <= 126),
    "punct": _cls(lambda c: 33 <= c <= 126 and not _isalpha(c) and not _isdigit(c)),
    "space": frozenset((9, 10, 13, 32)),
    "upper": _cls(_isupper),
    "xdigit": _cls(lambda c: _isdigit(c) or 65 <= c <= 70 or 97 <= c <= 102),
}

_NEVER = "(?!)"
_ANY_DIRS = "(?:.*/)?"  # a ``**/`` component: zero or more whole directories


def _esc(ch: str) -> str:
    return f"\\x{ord(ch):02x}"


# A literal character outside a bracket: itself when it is no regex metacharacter (ASCII
# letters, digits and a few safe punctuation marks), else ``\xNN``. Plain characters keep
# the regex short and ``re``'s parser fast (it parses one ``\xNN`` escape ~4x slower).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/,:;=@%!~'\"<>`&")
_LITERALS = tuple(chr(c) if chr(c) in _PLAIN else _esc(chr(c)) for c in range(256))


def _literal(c: str) -> str:
    o = ord(c)
    return _LITERALS[o] if o < 256 else re.escape(c)


def literal_regex(s: str) -> str:
    """A regex matching exactly the latin-1 view ``s``."""
    return "".join(map(_literal, s))


def _charset(codes: Sequence[int]) -> str:
    if not codes:
        return _NEVER
    parts: list[str] = []
    codes = sorted(codes)
    start = prev = codes[0]
    for c in [*codes[1:], -2]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(_esc(chr(start)) if start == prev else f"{_esc(chr(start))}-{_esc(chr(prev))}")
        start = prev = c
    return "[" + "".join(parts) + "]"


def _bracket(p: str, i: int, pathname: bool, fold: bool) -> tuple[str, int] | None:
    """Translate the bracket expression starting at ``p[i] == '['``; ``None`` if malformed."""
    res = bracket_members(p, i, pathname, fold)
    if res is None:
        return None
    members, end = res
    return _charset(members), end


def bracket_members(p: str, i: int, pathname: bool, fold: bool
                     ) -> tuple[list[int], int] | None:
    """The byte values (of a folded text when ``fold``) that the bracket expression starting
    at ``p[i] == '['`` matches, and the index after its ``]``; ``None`` if malformed."""
    n = len(p)
    i += 1
    ch = p[i] if i < n else ""
    if ch == "^":
        ch = "!"
    negated = ch == "!"
    if negated:
        i += 1
        ch = p[i] if i < n else ""
    prev = ""
    singles: set[int] = set()
    ranges: list[tuple[int, int]] = []
    classes: list[str] = []
    while True:
        if not ch:
            return None
        if ch == "\\":
            i += 1
            if i >= n:
                return None
            ch = p[i]
            singles.add(ord(ch))
        elif ch == "-" and prev and i + 1 < n and p[i + 1] != "]":
            i += 1
            ch = p[i]
            if ch == "\\":
                i += 1
                if i >= n:
                    return None
                ch = p[i]
            ranges.append((ord(prev), ord(ch)))
            ch = ""
        elif ch == "[" and i + 1 < n and p[i + 1] == ":":
            s = i + 2
            j = s
            while j < n and p[j] != "]":
                j += 1
            if j >= n:
                return None
            length = j - s - 1
            if length < 0 or p[j - 1] != ":":
                i = s - 2
                ch = "["
                singles.add(ord("["))
            else:
                name = p[s:s + length]
                if name not in _CLASSES:
                    return None
                classes.append(name)
                i = j
                ch = ""
        else:
            singles.add(ord(ch))
        prev = ch
        i += 1
        ch = p[i] if i < n else ""
        if ch == "]":
            break
    return _members(singles, ranges, classes, negated, pathname, fold), i + 1


#: Every byte value, the upper- and lower-case ASCII letters (as sets, for :func:`_members`).
_ALL = frozenset(range(256))
_UPPER = frozenset(range(65, 91))
_LOWER = frozenset(range(97, 123))


def _members(singles: set[int], ranges: list[tuple[int, int]], classes: list[str],
             negated: bool, pathname: bool, fold: bool) -> list[int]:
    """The sorted byte values a parsed bracket matches (:func:`bracket_members`), by set
    arithmetic: a per-byte loop cost ~0.3 ms a bracket, so a line of 20,000 brackets took
    seconds to compile (red team 18 J6/J7). With ``fold`` the text is lower-cased: an
    upper-case letter is never a member, and a lower-case one is when its upper case is."""
    hits = {t for t in singles if t < 256}
    for lo, hi in ranges:
        if lo <= hi and lo < 256:
            hits.update(range(lo, min(hi, 255) + 1))
            if fold:  # a folded text's lower case letter matches the range's upper case
                hits.update(u + 32 for u in range(max(lo, 65), min(hi, 90) + 1))
    for name in classes:
        hits |= _CLASSES[name]
        if fold and name == "upper":
            hits |= _LOWER
    if negated:
        hits = set(_ALL - hits)
    if fold:
        hits -= _UPPER
    if pathname:
        hits.discard(47)
    return sorted(hits)


def translate_wildmatch(p: str, pathname: bool, fold: bool = False) -> str | None:
    """git's ``wildmatch(p, text, WM_PATHNAME if pathname)`` as a regex over the latin-1
    view of ``text`` (to be used with ``fullmatch`` and ``re.DOTALL``).

    ``None`` when the pattern can match nothing at all (lone trailing backslash, malformed
    bracket). With ``fold`` the text must have been ASCII-lower-cased first.
    The start of ``p`` counts as a component boundary for ``**`` (git calls wildmatch on
    what follows the literal prefix, which makes ``foo**/bar`` match ``foox/y/bar``).
    """
    out: list[str] = []
    i = 0
    n = len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i += 1
            if i >= n:
                return None
            ch = p[i]
            if fold and "A" <= ch <= "Z":
                out.append(_NEVER)
            else:
                out.append(_literal(ch))
            i += 1
        elif c == "?":
            out.append("[^/]" if pathname else ".")
            i += 1
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            if not pathname:
                out.append(".*")
                i = j
                continue
            if (j - i >= 2 and (i == 0 or p[i - 1] == "/")
                    and (j == n or p[j] == "/" or (p[j] == "\\" and j + 1 < n and p[j + 1] == "/"))):
                # Consecutive components collapse, by regular-language identities (checked
                # against git): ``**/**/`` is ``**/`` and a trailing ``**/**`` is ``**``.
                # Otherwise the nested groups backtrack O(depth^k) on deep paths.
                if j == n:
                    if out and out[-1] == _ANY_DIRS:
                        out.pop()
                    out.append(".*")
                    i = j
                elif p[j] == "/":
                    if not (out and out[-1] == _ANY_DIRS):
                        out.append(_ANY_DIRS)
                    i = j + 1
                else:
                    out.append(".*")
                    i = j
            else:
                out.append("[^/]*")
                i = j
        elif c == "[":
            res = _bracket(p, i, pathname, fold)
            if res is None:
                return None
            piece, i = res
            out.append(piece)
        else:
            if fold and "A" <= c <= "Z":
                c = c.lower()
            out.append(_literal(c))
            i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------
# wildmatch, ported: for lines whose regex could backtrack
# ---------------------------------------------------------------------------------------

# git's wildmatch.h return codes
WM_MATCH = 0
WM_NOMATCH = 1
WM_ABORT_ALL = -1
WM_ABORT_TO_STARSTAR = -2

# A line whose wildmatch part has this many runs of ``*`` is matched by :class:`Wildmatch`,
# not by a regex: with k unbounded ``.*``/``[^/]*`` pieces a backtracking regex costs up to
# O(n^k) on an n-byte name or path (k = 3 already takes seconds on a 1,000-byte path);
# with at most 2 it stays O(n^2).
WILD_STAR_RUNS = 3

_Frame = Generator[tuple[int, int], int, int]


def star_runs(p: str) -> int:
    """How many runs of ``*`` the wildmatch pattern ``p`` holds, outside escapes and
    brackets (after ``**/`` components were collapsed, as the regex translation does)."""
    runs = 0
    i = 0
    n = len(p)
    prev_any_dirs = False
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            prev_any_dirs = False
        elif c == "[":
            res = bracket_members(p, i, True, False)
            if res is None:
                return runs
            i = res[1]
            prev_any_dirs = False
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            boundary = j - i >= 2 and (i == 0 or p[i - 1] == "/")
            if boundary and j < n and p[j] == "/":
                if not prev_any_dirs:
                    runs += 1
                prev_any_dirs = True
                i = j + 1
                continue
            if not (boundary and j == n and prev_any_dirs):
                runs += 1
            prev_any_dirs = False
            i = j
        else:
            prev_any_dirs = False
            i += 1
    return runs


class Wildmatch:
    """git 2.39's ``wildmatch(p, text, flags)`` (``wildmatch.c``: ``dowild``), ported.

    The control flow, including the early aborts ``WM_ABORT_ALL`` ("nothing later can
    match, stop every ``*``") and ``WM_ABORT_TO_STARSTAR`` ("only a ``**`` may try
    further"), is git's, statement by statement. Two changes keep it bounded on any input
    without changing a single result: each ``dowild(p, text)`` call is a pure function of
    its two offsets, so results are memoized per call (polynomial, where git itself is
    exponential on ``**/**/…/q``); and recursion is driven by an explicit stack, so no
    pattern is too long. Brackets are decided by the translator's parser
    (:func:`bracket_members`), which follows git's, on a set precomputed per bracket.

    ``p`` and the text are latin-1 views of bytes; ``pathname`` is ``WM_PATHNAME``,
    ``fold`` is ``WM_CASEFOLD`` (ASCII only). ``lit`` is a literal prefix the text must
    start with (already folded), tested before ``p`` runs on the rest, like
    ``match_pathname``. A malformed pattern (``valid`` false) matches nothing.
    """

    __slots__ = ("brackets", "fold", "lit", "nfa", "p", "pathname", "valid")

    def __init__(self, p: str, pathname: bool, fold: bool = False, lit: str = "", *,
                 translated: bool = False) -> None:
        self.p = p
        self.pathname = pathname
        self.fold = fold
        self.lit = lit
        self.brackets: dict[int, tuple[frozenset[int], int]] = {}
        # (``translated``: the caller's own translate_wildmatch said the pattern is valid)
        self.valid = translated or translate_wildmatch(p, pathname, fold) is not None
        i = 0
        n = len(p)
        while self.valid and i < n:
            c = p[i]
            if c == "\\":
                i += 2
            elif c == "[":
                res = bracket_members(p, i, pathname, fold)
                if res is None:  # pragma: no cover - translate_wildmatch said valid
                    self.valid = False
                    break
                members, end = res
                self.brackets[i] = (frozenset(members), end)
                i = end
            else:
                i += 1
        #: the same decisions in linear time (:mod:`._wildnfa`), where it models the pattern
        self.nfa = compile_nfa(p, pathname, fold, self.brackets) if self.valid else None

    def __call__(self, text: str) -> bool:
        """Does the pattern match ``text`` (the whole of it)?"""
        if not self.valid:
            return False
        lit = self.lit
        if lit:
            if not text.startswith(lit):
                return False
            text = text[len(lit):]
        nfa = self.nfa
        if nfa is not None:
            return nfa.match(_fold(text) if self.fold else text)
        return self.dowild(text) == WM_MATCH

    def dowild(self, text: str) -> int:
        """git's ``dowild(p, text, flags)`` return code."""
        if self.fold:
            # git folds each text character where it compares it; folding all of them up
            # front is the same (every test of ``t_ch`` goes through the fold)
            text = _fold(text)
        memo: dict[tuple[int, int], int] = {}
        stack: list[tuple[tuple[int, int], _Frame]] = [((0, 0), self._frame(0, 0, text))]
        sent: int | None = None
        while True:
            key, frame = stack[-1]
            try:
                call = frame.send(sent)  # type: ignore[arg-type]  # None starts a frame
            except StopIteration as done:
                result: int = done.value
                memo[key] = result
                stack.pop()
                if not stack:
                    return result
                sent = result
                continue
            known = memo.get(call)
            if known is not None:
                sent = known
            else:
                stack.append((call, self._frame(call[0], call[1], text)))
                sent = None

    def _frame(self, pi: int, ti: int, t: str) -> _Frame:
        """One ``dowild(p + pi, text + ti)`` call; ``yield (pi, ti)`` is a nested call."""
        p = self.p
        np_ = len(p)
        nt = len(t)
        fold = self.fold
        pathname = self.pathname
        start = pi  # dowild's ``pattern``: where this call's pattern begins
        while pi < np_:
            p_ch = p[pi]
            t_ch = t[ti] if ti < nt else ""
            if not t_ch and p_ch != "*":
                return WM_ABORT_ALL
            if fold and "A" <= p_ch <= "Z":  # (the text is folded already)
                p_ch = p_ch.lower()
            if p_ch == "\\":
                # literal match with the following character (never folded)
                pi += 1
                p_ch = p[pi] if pi < np_ else ""
                if t_ch != p_ch:
                    return WM_NOMATCH
            elif p_ch == "?":
                if pathname and t_ch == "/":
                    return WM_NOMATCH
            elif p_ch == "[":
                members, end = self.brackets[pi]
                if ord(t_ch) not in members:  # '/' is never a member with WM_PATHNAME
                    return WM_NOMATCH
                pi = end - 1  # at the ']'
            elif p_ch == "*":
                pi += 1
                if pi < np_ and p[pi] == "*":
                    prev = pi - 2
                    pi += 1
                    while pi < np_ and p[pi] == "*":
                        pi += 1
                    if not pathname:
                        match_slash = True  # without WM_PATHNAME, '*' == '**'
                    elif ((prev < start or p[prev] == "/")
                          and (pi == np_ or p[pi] == "/"
                               or (p[pi] == "\\" and pi + 1 < np_ and p[pi + 1] == "/"))):
                        # at <star star slash>, first assume it matches nothing
                        if pi < np_ and p[pi] == "/" and (yield (pi + 1, ti)) == WM_MATCH:
                            return WM_MATCH
                        match_slash = True
                    else:
                        match_slash = False
                else:
                    match_slash = not pathname
                if pi == np_:
                    # trailing "**" matches everything, trailing "*" no more slashes
                    if not match_slash and t.find("/", ti) >= 0:
                        return WM_NOMATCH
                    return WM_MATCH
                if not match_slash and p[pi] == "/":
                    # one asterisk then a slash, with WM_PATHNAME: the next directory
                    slash = t.find("/", ti)
                    if slash < 0:
                        return WM_NOMATCH
                    ti = slash
                    pi += 1  # the slash is consumed by the loop's increment
                    ti += 1
                    continue
                while True:
                    if not t_ch:
                        break
                    c = p[pi]
                    if c not in _GLOB_SPECIAL:
                        # advance faster to the literal that follows the asterisk
                        # (not past a slash unless match_slash: it cannot belong to '*')
                        if fold and "A" <= c <= "Z":
                            c = c.lower()
                        found = t.find(c, ti)
                        if found < 0 or (not match_slash and 0 <= t.find("/", ti, found)):
                            return WM_NOMATCH
                        ti = found
                        t_ch = c
                    matched = yield (pi, ti)
                    if matched != WM_NOMATCH:
                        if not match_slash or matched != WM_ABORT_TO_STARSTAR:
                            return matched
                    elif not match_slash and t_ch == "/":
                        return WM_ABORT_TO_STARSTAR
                    ti += 1
                    t_ch = t[ti] if ti < nt else ""
                return WM_ABORT_ALL
            elif t_ch != p_ch:
                return WM_NOMATCH
            pi += 1
            ti += 1
        return WM_NOMATCH if ti < nt else WM_MATCH


_GLOB_SPECIAL_RX = re.compile(r"[*?\[\\]")


def _simple_length(s: str) -> int:
    """The length of the literal start of ``s`` (up to its first ``*?[\\``)."""
    m = _GLOB_SPECIAL_RX.search(s)
    return len(s) if m is None else m.start()


def _fold(s: str) -> str:
    return s.encode("latin-1").lower().decode("latin-1")

