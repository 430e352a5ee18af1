"""git's ``wildmatch`` decided by a bit-parallel automaton (red team 15, R6).

``Wildmatch`` ported ``dowild`` with memoization: polynomial, but each state could scan the
rest of the text again, and a repository's ``*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b0`` line cost
about a second per 250-byte name (a glob over a directory of long names ran for minutes).
The automaton must decide exactly as ``dowild`` (itself checked against git by the
ignore-oracle tests) on every pattern it models."""

from __future__ import annotations

import random

import pytest

from pathgate.runtime.ignore._wildmatch import WM_MATCH, Wildmatch, _fold

_ATOMS = ["a", "b", "A", "/", "*", "**", "?", "[ab]", "[!a]", "[a-z]", "[[:alpha:]]", "\\*", "\\a", ".",
          "**/", "/**", "/**/", "***", "**\\/", "/**\\/", "\\/"]
_TEXT = "abAB/.*x"


@pytest.mark.parametrize("seed", range(4))
def test_the_automaton_decides_as_dowild(seed: int) -> None:
    rnd = random.Random(seed)
    checked = 0
    for _ in range(600):
        p = "".join(rnd.choice(_ATOMS) for _ in range(rnd.randint(1, 7)))
        for pathname in (True, False):
            for fold in (False, True):
                w = Wildmatch(p, pathname, fold)
                if not w.valid or w.nfa is None:
                    continue
                for _ in range(6):
                    t = "".join(rnd.choice(_TEXT) for _ in range(rnd.randint(0, 9)))
                    got = w.nfa.match(_fold(t) if fold else t)
                    assert got == (w.dowild(t) == WM_MATCH), (p, pathname, fold, t)
                    checked += 1
    assert checked > 10_000


def test_star_heavy_lines_use_the_automaton() -> None:
    starry = "*a" * 16 + "*b0"
    w = Wildmatch(starry, True)
    assert w.nfa is not None
    name = "a" * 250 + "b0"
    assert w(name) and w.dowild(name) == WM_MATCH
    assert not w("a" * 250 + "000") and not w("a" * 10 + "/" + "a" * 10 + "b0")
    assert Wildmatch("**/" + starry, True)("x/y/" + name)


def test_what_it_does_not_model_stays_with_dowild() -> None:
    assert Wildmatch("a\\", True).nfa is None or not Wildmatch("a\\", True)("a")


def test_escaped_slash_after_globstar_uses_the_automaton() -> None:
    """``**\\/`` (red team 16 G1): dowild tries no zero-directory branch before an escaped
    slash, so it is any text then ``/``; a star-heavy line behind it stays linear."""
    for p in ("**\\/x", "a/**\\/x", "**\\/" + "*a" * 16 + "*b0"):
        w = Wildmatch(p, True)
        assert w.nfa is not None, p
        for t in ("x", "/x", "a/x", "a/b/x", "ax", "a/x/x", "a/" + "a" * 30 + "b0", "/" + "a" * 40 + "b0"):
            assert w.nfa.match(t) == (w.dowild(t) == WM_MATCH), (p, t)
    w = Wildmatch("**\\/x", True)
    assert not w("x") and w("a/x")  # no zero-directory match, unlike ``**/x``
    assert Wildmatch("**/x", True)("x")
