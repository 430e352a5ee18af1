"""A huge ignore file's compile lets other threads run: it is cut into slices with the
interpreter lock offered between them, and it leaves no object the garbage collector walks
(a full collection over millions of compiled rules held the lock for up to a second)."""

from __future__ import annotations

import gc

import pytest

from pathgate.runtime.ignore import IgnoreList, Match, Pattern, _rules, compile_pattern
from pathgate.verdicts import Rule


def big(n: int) -> bytes:
    """Path literals, basename globs, path globs, negations, dir-only lines."""
    out = []
    for i in range(n):
        k = i % 5
        out.append(b"gen/out_%06d.tmp" % i if k == 0 else b"*x%06d*.log" % i if k == 1 else
                   b"src/*/m%06d.c" % i if k == 2 else b"!keep%06d" % i if k == 3 else b"dir%06d/" % i)
    return b"\n".join(out) + b"\n"


def test_a_big_compile_offers_the_lock_between_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    offers: list[float] = []
    monkeypatch.setattr(_rules, "_pause", offers.append)
    n = 5 * _rules.SLICE + 7
    lst = IgnoreList.from_bytes(".gitignore", "", big(n), False)
    assert len(lst) == n
    assert len(offers) >= 5 and set(offers) == {0}
    offers.clear()
    IgnoreList.from_bytes(".gitignore", "", big(_rules.SLICE // 2), False)
    assert offers == []  # a small file: no offer


def test_slices_change_no_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    data = big(3000)
    whole = IgnoreList.from_bytes(".gitignore", "", data, False)
    monkeypatch.setattr(_rules, "SLICE", 7)
    sliced = IgnoreList.from_bytes(".gitignore", "", data, False)
    paths = [("gen/out_000000.tmp", False), ("a/gen/out_000000.tmp", False), ("ax000001y.log", False),
             ("src/q/m000002.c", False), ("src/q/r/m000002.c", False), ("keep000003", False),
             ("dir000004", True), ("dir000004", False), ("x/dir000004", True), ("nothing", False)]
    for path, is_dir in paths:
        assert whole.decide(path, is_dir) == sliced.decide(path, is_dir), path
    assert [whole.decide(p, d).ignored for p, d in paths] == [
        True, False, True, True, False, False, True, False, True, False]


def test_compiled_rules_are_not_tracked_by_the_collector() -> None:
    n = 20_000
    data = big(n)
    gc.collect()
    before = len(gc.get_objects())
    lst = IgnoreList.from_bytes(".gitignore", "", data, False)
    for path in ("gen/out_000000.tmp", "src/a/m000002.c", "dir000004"):
        lst.decide(path, True)  # (tables and regexes built on first use too)
    gc.collect()
    grown = len(gc.get_objects()) - before
    assert grown < n // 20  # (was ~7.7 per line)
    pt = compile_pattern("a/*.c", Rule(".gitignore", 1, "a/*.c"))
    assert isinstance(pt, Pattern) and not gc.is_tracked(pt) and not gc.is_tracked(pt.match)
    assert isinstance(pt.match, Match) and pt.match.ignored and pt.regex is not None
    assert pt != compile_pattern("a/*.c", Rule(".gitignore", 1, "a/*.c"))  # (identity)
