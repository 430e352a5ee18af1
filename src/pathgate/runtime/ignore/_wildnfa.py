"""git's ``wildmatch`` as a bit-parallel automaton: linear in the text, for any pattern.

:class:`~._wildmatch.Wildmatch` ports ``dowild`` (memoized, so polynomial): each of its
``(pattern, text)`` states may scan the rest of the text again, O(|p|·|t|²) Python steps,
and a repository's ``*a*a*a*a*a*a*a*a*a*a*a*b`` line took about a second per long name.
:func:`compile_nfa` reads the same pattern into positions of a Thompson automaton whose
states are the bits of one integer: a text is matched one character at a time, O(|t|)
integer operations. It takes the pattern as ``dowild`` does (with ``WM_PATHNAME``: ``*``,
``?`` and brackets never match ``/``; ``**`` at the start of a component and followed by
``/`` matches zero or more whole directories, at the end of a pattern after ``/`` anything;
elsewhere ``**`` is ``*``; without ``WM_PATHNAME``, ``*`` matches ``/`` too), and declines
(``None``) what it does not model, which ``dowild`` keeps deciding. Tests compare both on
generated patterns and texts. Pure; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["Nfa", "compile_nfa"]

# token kinds; ``**/`` is two: an entry that may skip both (zero directories) or go on to a
# loop that takes any character and leaves on a ``/`` (``(.*/)?``)
_CHAR, _ANY, _SET, _STAR, _ANYSTAR, _DIRS, _DIRS_LOOP = range(7)


class Nfa:
    """A compiled pattern: :meth:`match` (the text folded already when the pattern folds)."""

    __slots__ = ("_accept", "_any", "_anystar", "_chars", "_eps", "_eps2", "_loop", "_masks", "_n",
                 "_pathname", "_sets", "_star", "_tokens")

    def __init__(self, tokens: list[tuple[int, object]], pathname: bool) -> None:
        self._tokens = tokens
        self._pathname = pathname
        n = self._n = len(tokens)
        by_kind: dict[int, list[int]] = {}
        chars: dict[str, list[int]] = {}
        self._sets: list[tuple[int, frozenset[int]]] = []
        for k, (kind, data) in enumerate(tokens):
            by_kind.setdefault(kind, []).append(k)
            if kind == _CHAR:
                chars.setdefault(data, []).append(k)  # type: ignore[arg-type]
            elif kind == _SET:
                self._sets.append((k, data))  # type: ignore[arg-type]
        # each kind's positions as one integer, built once: a mask built bit by bit
        # (`1 << k` for every token) was quadratic in a long line, per character of the text
        # (red team 19 K5: a 100 KB line of `*a` cost 9.7 s)
        self._eps = _bits(by_kind.get(_STAR, []) + by_kind.get(_ANYSTAR, []) + by_kind.get(_DIRS, []), n)
        self._eps2 = _bits(by_kind.get(_DIRS, []), n)
        self._any = _bits(by_kind.get(_ANY, []), n)
        self._star = _bits(by_kind.get(_STAR, []), n)
        self._anystar = _bits(by_kind.get(_ANYSTAR, []), n)
        self._loop = _bits(by_kind.get(_DIRS_LOOP, []), n)
        self._chars = {c: _bits(ks, n) for c, ks in chars.items()}
        self._accept = 1 << n
        self._masks: dict[str, tuple[int, int]] = {}

    def _closure(self, s: int) -> int:
        eps, eps2 = self._eps, self._eps2
        while True:
            more = s | ((s & eps) << 1) | ((s & eps2) << 2)
            if more == s:
                return s
            s = more

    def _mask(self, c: str) -> tuple[int, int]:
        """``(positions that move on c, positions that stay on c)``."""
        code = ord(c)
        slash = c == "/"
        free = not (slash and self._pathname)  # `?` and `*` take it
        move = self._chars.get(c, 0)
        if self._sets:
            move |= _bits([k for k, members in self._sets if code in members], self._n)
        if free:
            move |= self._any
        if slash:
            move |= self._loop
        stay = (self._star if free else 0) | self._anystar | self._loop
        if len(self._masks) < 4096:
            self._masks[c] = (move, stay)
        return move, stay

    def match(self, text: str) -> bool:
        """Does the pattern match the whole of ``text``?"""
        s = self._closure(1)
        masks = self._masks
        for c in text:
            got = masks.get(c)
            move, stay = got if got is not None else self._mask(c)
            s = (s & move) << 1 | (s & stay)
            if not s:
                return False
            s = self._closure(s)
        return bool(s & self._accept)


def _bits(positions: list[int], n: int) -> int:
    """The integer with bit ``k`` set for each of ``positions`` (all below ``n``), built in
    linear time (from its binary digits)."""
    if not positions:
        return 0
    digits = bytearray(b"0" * n)
    for k in positions:
        digits[n - 1 - k] = 49  # "1"
    return int(digits, 2)


def compile_nfa(p: str, pathname: bool, fold: bool,
                brackets: Mapping[int, tuple[frozenset[int], int]]) -> Nfa | None:
    """The automaton of the wildmatch pattern ``p`` (``brackets``: each ``[`` at its index,
    its members and the index after its ``]``, as :class:`~._wildmatch.Wildmatch` parsed
    them), or ``None`` for what it does not model (a trailing ``\\``)."""
    tokens: list[tuple[int, object]] = []
    i = 0
    n = len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            if i + 1 >= n:
                return None
            tokens.append((_CHAR, p[i + 1]))
            i += 2
        elif c == "?":
            tokens.append((_ANY, None))
            i += 1
        elif c == "[":
            members, end = brackets[i]
            tokens.append((_SET, members))
            i = end
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            if j - i == 1 or not pathname:
                tokens.append((_STAR if pathname else _ANYSTAR, None))
            elif i == 0 or p[i - 1] == "/":
                if j == n:
                    tokens.append((_ANYSTAR, None))
                elif p[j] == "/":
                    tokens += [(_DIRS, None), (_DIRS_LOOP, None)]
                    j += 1  # the slash is the directories' own
                elif p[j] == "\\" and j + 1 < n and p[j + 1] == "/":
                    # dowild tries no zero-directory branch before an escaped slash: ``**``
                    # is any text, then the slash is read as an escaped character
                    tokens.append((_ANYSTAR, None))
                else:
                    tokens.append((_STAR, None))
            else:
                tokens.append((_STAR, None))
            i = j
        else:
            tokens.append((_CHAR, c.lower() if fold and "A" <= c <= "Z" else c))
            i += 1
    return Nfa(tokens, pathname)
