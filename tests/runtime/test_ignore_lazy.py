"""Lazy ignore lists (``_lazy``): the same decisions as the whole compile of the same bytes.

The candidate expression is a necessary condition only: every line whose rule matches a
basename or path must be among the candidates (checked rule by rule), and a lazy list must
decide every path as ``IgnoreList.from_bytes`` does -- the same deciding line, negations,
dir-only rules and case folding included -- whether it stays lazy or compiles whole.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate.runtime.ignore import _lazy, _rules
from pathgate.runtime.ignore._lazy import (
    LazyIgnoreList,
    _pieces_fit,
    candidates_rx,
    expecting,
    lazy_list,
    one_shot,
)
from pathgate.runtime.ignore._rules import IgnoreList, clean_line, decide, line_pattern
from pathgate.runtime.ignore._wildmatch import _fold

ATOMS = ["a", "b", "A", "ab", "**", "*", "?", "src", "SRC", "gen", "x.py", "*.py", "[ab]", "[!a]", "[a-c]",
         "[]a]", "[[:alpha:]]", "[a", "\\*", "\\[x]", "\\!n", "\\#c", "\\", "é", "a b", "x**", "**x", "c0",
         "verylongcomponentname-0123456789abcdefghijklmnopqrstuvwxyz-0123456789", "cache1", "y.tmp1", "\\ ",
         ".env", "#c", "!n", "q?", "\\a"]
NAMES = ["a", "b", "A", "ab", "src", "SRC", "gen", "x.py", "X.PY", "é", "a b", "#c", "!n", "[x]", "*x", "c0", "q?",
         "verylongcomponentname-0123456789abcdefghijklmnopqrstuvwxyz-0123456789", "cache1", "y.tmp1", ".env", "a ",
         "\\a", "xx"]


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 10)) == 0:
        return draw(st.sampled_from([b"", b"# comment", b"   ", b"!", b"/", b"\\", b"\t", b"\r", b"a\0b*",
                                     b"*\0", b"\0", b"#", b"!#x", b" a", b"\xef\xbb\xbfa"]))
    text = "/".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4)))
    if draw(st.integers(0, 3)) == 0:
        text = "/" + text
    if draw(st.integers(0, 3)) == 0:
        text += "/"
    if draw(st.integers(0, 4)) == 0:
        text = "!" + text
    text += draw(st.sampled_from(["", "", "", "  ", "\\ ", "\t", " \\ ", "\\", "\r", " \r", "/ ", "\0x"]))
    return text.encode()


@st.composite
def files(draw: st.DrawFn) -> bytes:
    data = b"\n".join(draw(st.lists(lines(), min_size=1, max_size=40)))
    if draw(st.booleans()):
        data += b"\n"
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=4).map("/".join)


def _views(path: str, fold: bool) -> tuple[str, str]:
    view = os.fsencode(path).decode("latin-1")
    if fold:
        view = _fold(view)
    return view, view.rpartition("/")[2]


def _answer(lst: IgnoreList, path: str, is_dir: bool | None, fold: bool) -> tuple[object, ...] | None:
    path_v, name_v = _views(path, fold)
    pt = decide((lst,), path_v, name_v, is_dir, lambda _: True, path)
    return None if pt is None else (pt.rule, pt.negated, pt.dir_only, pt.match)


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(files(), st.lists(paths, min_size=1, max_size=8), st.booleans(), st.sampled_from(["", "src/", "é/"]),
       st.sampled_from([0, 1, 2]))
def test_lazy_list_decides_as_the_whole_compile(data: bytes, asked: list[str], fold: bool, base: str,
                                                 announced: int) -> None:
    base_v = os.fsencode(base).decode("latin-1")
    full = IgnoreList.from_bytes(".gitignore", base_v, data, fold)
    lazy = LazyIgnoreList(".gitignore", base_v, data, fold)
    assert len(lazy) == len(full)
    assert lazy.nlines == full.nlines
    # announced: 0 nothing, 1 the paths asked (one scan for them all), 2 other paths
    told = [] if not announced else [base + p for p in asked] if announced == 1 else [base + "a/b", "x", "src/é"]
    with expecting(told), pytest.MonkeyPatch.context() as mp:
        mp.setattr(_lazy, "NARROW", 0 if announced else 32)  # each text narrows the lines found for all
        for path in asked:
            path = base + path
            for is_dir in (False, True, None):
                assert _answer(lazy, path, is_dir, fold) == _answer(full, path, is_dir, fold), (path, is_dir)
    assert lazy._full is None  # (a few texts: decided without compiling the whole list)
    assert [p.rule for p in lazy.patterns] == [p.rule for p in full.patterns]
    assert [p.rule for p in reversed(lazy.patterns)] == [p.rule for p in reversed(full.patterns)]


@SETTINGS
@given(lines(), paths, st.booleans())
def test_a_line_that_matches_is_a_candidate(line: bytes, path: str, fold: bool) -> None:
    cleaned = clean_line(line)
    if cleaned is None:
        return
    pt = line_pattern("f", 1, cleaned, fold)
    rel, name = _views(path, fold)
    if pt.matches(name, rel):
        rx = candidates_rx(name.encode("latin-1"), rel.encode("latin-1"), fold)
        assert rx.match(b"\n" + line) is not None, (line, path)
        assert rx.search(b"x\n" + line + b"\nz") is not None
        assert _pieces_fit(pt, rel), (line, path)  # the literal runs' test, before translating


def test_candidates_leave_out_lines_that_cannot_match() -> None:
    data = b"".join(b"gen/**/cache%d*/*.tmp%d\n" % (i, i % 97) for i in range(2000))
    rx = candidates_rx(b"a.py", b"src/a.py", False)
    assert rx.search(data) is None
    rx = candidates_rx(b"y.tmp1", b"gen/x/cache1/y.tmp1", False)
    assert 0 < len(rx.findall(data)) < 40  # only the lines ending as the path does


def test_long_texts_and_special_characters_in_the_path() -> None:
    name = "n" * 300
    for path in (f"d/{name}", "a*b/[x]/\\q", "x\ny/z", "-^]/a"):
        data = b"\n".join([path.encode(), b"*" + path[-3:].encode(), b"other", b"!" + path.encode() + b"/"])
        full = IgnoreList.from_bytes("f", "", data, False)
        lazy = LazyIgnoreList("f", "", data, False)
        for is_dir in (False, True):
            assert _answer(lazy, path, is_dir, False) == _answer(full, path, is_dir, False)


def test_many_texts_compile_the_whole_list_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lazy, "MAX_SCANS", 3)
    data = b"\n".join(b"d%d/*.log\n!d%d/keep.log" % (i, i) for i in range(200))
    full = IgnoreList.from_bytes("f", "", data, False)
    lazy = LazyIgnoreList("f", "", data, False)
    asked = [f"d{i}/{n}" for i in range(0, 200, 7) for n in ("a.log", "keep.log", "x")]
    for path in asked:
        assert _answer(lazy, path, False, False) == _answer(full, path, False, False)
    assert lazy._full is not None


def test_many_candidates_are_decided_without_compiling_them() -> None:
    data = b"\n".join(b"*%d*" % i for i in range(1000))  # every line may match "x1x"
    full = IgnoreList.from_bytes("f", "", data, False)
    lazy = LazyIgnoreList("f", "", data, False)
    assert _answer(lazy, "x1x", False, False) == _answer(full, "x1x", False, False)
    assert _answer(lazy, "x1000x", False, False) == _answer(full, "x1000x", False, False)
    assert lazy._full is None
    assert len(lazy._pats) == 2  # (only the deciding lines: "*1*" and "*100*")


def test_compiled_is_lazy_only_inside_one_shot(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"".join(b"gen/%d/*.tmp\n" % i for i in range(20000))
    assert len(data) >= _rules.LAZY_MIN_BYTES
    assert type(IgnoreList.compiled("g1", "", data, False)) is IgnoreList
    with one_shot():
        got = IgnoreList.compiled("g2", "", data, False)
        assert type(got) is LazyIgnoreList
        assert IgnoreList.compiled("g2", "", data, False) is got  # shared while it lives
        small = IgnoreList.compiled("g3", "", data[:1000], False)
        assert type(small) is IgnoreList
    assert type(IgnoreList.compiled("g4", "", data, False)) is IgnoreList


def test_a_whole_compile_already_made_is_reused_inside_one_shot() -> None:
    data = b"".join(b"gen/%d/*.tmp\n" % i for i in range(20000))
    whole = IgnoreList.compiled("h1", "", data, False)
    with one_shot():
        assert IgnoreList.compiled("h1", "", data, False) is whole


def test_lazy_list_shared_by_key() -> None:
    data = b"a\n" * 10
    assert lazy_list("s", "", data, False) is lazy_list("s", "", bytes(data), False)
    assert lazy_list("s", "", data, True) is not lazy_list("s", "", data, False)


def test_rule_count_matches_the_whole_compile() -> None:
    for data in (b"\xef\xbb\xbf#c\n\n\na\n#\nb", b"\n\n", b"#", b"\xef\xbb\xbf", b"a\r\n\r\n \n", b"x\n\n#\n\n"):
        assert len(LazyIgnoreList("f", "", data, False)) == len(IgnoreList.from_bytes("f", "", data, False))


def test_announced_paths_are_scanned_for_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"".join(b"gen/**/cache%d*/*.tmp%d\n" % (i, i % 97) for i in range(3000)) + b"a/b/\n!a/b/c/*.py\n"
    full = IgnoreList.from_bytes("f", "", data, False)
    lazy = LazyIgnoreList("f", "", data, False)
    asked = ["a/b/c/d.py", "gen/x/cache12z/y.tmp12", "src/z.py"]
    with expecting(asked):
        for path in ["a", "a/b", "a/b/c", "a/b/c/d.py", "gen", "gen/x", "gen/x/cache12z", *asked]:
            assert _answer(lazy, path, True, False) == _answer(full, path, True, False)
            assert _answer(lazy, path, False, False) == _answer(full, path, False, False)
    assert lazy._scans == 1  # the paths and their directories: one scan
    assert _answer(lazy, "other", False, False) is None
    assert lazy._scans == 2


@pytest.mark.parametrize(("line", "path"), [
    ("**/foo", "foo"), ("**/foo", "a/foo"), ("a/**/b", "a/b"), ("a/**", "a/x/y"), ("a\\ b*", "a bc"),
    ("\\*x?", "*xy"), ("x\\\\*", "x\\"), ("*.py", "src/A.py"), ("s*/**/*.tmp1", "src/q/z.tmp1"),
    ("/g*n/**", "gen/x"), ("!*a*", "b/cab"), ("A*B", "ab"),
])
def test_literal_runs_of_a_matching_rule_occur_in_the_path(line: str, path: str) -> None:
    fold = line == "A*B"
    cleaned = clean_line(line.encode())
    assert cleaned is not None
    pt = line_pattern("f", 1, cleaned, fold)
    rel, name = _views(path, fold)
    assert pt.matches(name, rel), (line, path)
    assert _pieces_fit(pt, rel)


def test_rule_count_across_count_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lazy, "_WINDOW", 3)
    for data in (b"a\n\n\n#x\n\nb\n#\n\n\nc", b"\n" * 20, b"ab\n\n#\n" * 7, b"#\n" * 9 + b"z"):
        for cut in range(len(data) + 1):  # every alignment of the windows
            part = data[cut:]
            assert len(LazyIgnoreList("f", "", part, False)) == len(IgnoreList.from_bytes("f", "", part, False))
