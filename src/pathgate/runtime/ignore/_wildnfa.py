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

    __slots__ = ("_accept", "_eps", "_eps2", "_masks", "_pathname", "_tokens")

    def __init__(self, tokens: list[tuple[int, object]], pathname: bool) -> None:
        self._tokens = tokens
        self._pathname = pathname
        eps = eps2 = 0
        for k, (kind, _) in enumerate(tokens):
            if kind in (_STAR, _ANYSTAR, _DIRS):
                eps |= 1 << k
            if kind == _DIRS:
                eps2 |= 1 << k
        self._eps = eps
        self._eps2 = eps2
        self._accept = 1 << len(tokens)
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
        move = stay = 0
        code = ord(c)
        slash = c == "/"
        for k, (kind, data) in enumerate(self._tokens):
            bit = 1 << k
            if kind == _CHAR:
                if data == c:
                    move |= bit
            elif kind == _ANY:
                if not (slash and self._pathname):
                    move |= bit
            elif kind == _SET:
                if code in data:  # type: ignore[operator]
                    move |= bit
            elif kind == _STAR:
                if not (slash and self._pathname):
                    stay |= bit
            elif kind == _ANYSTAR:
                stay |= bit
            elif kind == _DIRS_LOOP:
                stay |= bit
                if slash:
                    move |= bit
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
