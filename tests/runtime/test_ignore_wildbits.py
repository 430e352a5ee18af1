"""git's ``wildmatch`` for fixed texts (``_wildbits``) and the lazy lists that use it (``_lazy_direct``).

``matching_lines`` must say, line for line, what each line's compiled rule says
(``Pattern.matches``, itself tested against git): every matching line of a generated file, last
first, for generated texts, whether it reads every line (a window at a time) or the lines a
scan found; and a lazy list deciding through it (red team 20 L1: lines the scan cannot narrow)
must decide every path as the whole compile does, compiling only the deciding lines.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate.runtime.ignore import _lazy, _wildbits
from pathgate.runtime.ignore._lazy import LazyIgnoreList, expecting
from pathgate.runtime.ignore._rules import IgnoreList, clean_line, line_pattern
from pathgate.runtime.ignore._wildbits import Texts, matching_lines
from pathgate.runtime.ignore._wildmatch import _fold
from tests.runtime.test_ignore_lazy import ATOMS, NAMES, _answer

#: brackets and stars in every arrangement (a bracket holding ``*``, closing after a star, a
#: leading ``]``, negations, ranges, classes) and escapes
MORE_ATOMS = [*ATOMS, "[*]", "[a*", "*]", "[!]]", "[a-]", "[]-]", "[^-]", "[!a-c]", "[a-cx-z]", "[]-a]", "[Y-b]",
              "[z-a]", "[!/]", "[.-/]", "[^]", "[!]", "[]", "**\\/", "[a-[]", "[[:x", "[\\]]", "[[:upper:]]",
              "[A-Z]", "\\A", "a?b", "?", "??", "*?*", "[é]", "-", "]", "[[:alpha:]*]"]
MORE_NAMES = [*NAMES, "]", "-", "aab", "abab", "ba", "a]b", "[a]", "A]", "é.b", ":", "!"]
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def star_lines(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 15)) == 0:
        return draw(st.sampled_from([b"", b"#c", b"   ", b"\r", b"!", b"/", b"\\", b"a\0b*", b" \r"]))
    text = draw(st.sampled_from(["", "/", "*"])).join(draw(st.lists(st.sampled_from(MORE_ATOMS), min_size=1,
                                                                  max_size=6)))
    if draw(st.integers(0, 4)) == 0:
        text = "/" + text
    if draw(st.integers(0, 4)) == 0:
        text += "/"
    if draw(st.integers(0, 4)) == 0:
        text = "!" + text
    text += draw(st.sampled_from(["", "", "", "  ", "\\ ", "\r", " \r"]))
    return text.encode()


def _views(paths: list[str], fold: bool) -> list[tuple[str, str]]:
    out = []
    for path in paths:
        view = os.fsencode(path).decode("latin-1")
        if fold:
            view = _fold(view)
        out.append((view.rpartition("/")[2], view))
    return out


def _expected(data: bytes, first: int, views: list[tuple[str, str]], fold: bool,
              files: bool) -> list[tuple[int, int, bool, int]]:
    """Every line's compiled rule asked of every text: ``matching_lines``' answer."""
    out = []
    off = first
    for lineno, raw in enumerate(data[first:].split(b"\n")):
        cleaned = clean_line(raw)
        if cleaned is not None:
            pt = line_pattern("f", lineno + 1, cleaned, fold)
            bits = sum(1 << k for k, (name, rel) in enumerate(views)
                       if pt.matches(name, rel) and not (files and pt.dir_only))
            if bits:
                out.append((off, off + len(raw), pt.dir_only, bits))
        off += len(raw) + 1
    out.reverse()
    return out


@SETTINGS
@given(st.lists(star_lines(), min_size=1, max_size=12), st.booleans(), st.booleans(),
       st.lists(st.lists(st.sampled_from(MORE_NAMES), min_size=1, max_size=4).map("/".join), min_size=1,
                max_size=5), st.sampled_from([1 << 18, 1, 7]))
def test_every_matching_line_as_its_compiled_rule(lines: list[bytes], fold: bool, bom: bool, paths: list[str],
                                                  window: int) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines)
    first = 3 if bom else 0
    views = _views(paths, fold)
    every = (1 << len(views)) - 1
    starts = [first] + [i + 1 for i in range(first, len(data)) if data[i] == 10]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_wildbits, "WINDOW", window)
        for files in (False, True):
            expected = _expected(data, first, views, fold, files)
            for read in (None, starts):  # every line, a window at a time; the lines a scan found
                names = Texts([name for name, _ in views], False, fold)
                rels = Texts([rel for _, rel in views], True, fold)
                want = [0, every] if files else [every, 0]
                assert list(matching_lines(data, read, first, names, rels, want)) == expected, (files, read)


def test_the_texts_dropped_end_the_lines() -> None:
    data = b"*a*\nb*\n*a*/\nx\n"
    views = _views(["xa", "b"], False)
    names, rels = Texts([n for n, _ in views], False, False), Texts([r for _, r in views], True, False)
    want = [3, 3]
    got = []
    for line in matching_lines(data, None, 0, names, rels, want):
        got.append(line)
        want[0] &= ~line[3]
        if not line[2]:
            want[1] &= ~line[3]
    # "*a*/" decides "xa" for any entry; "b*" decides "b"; "*a*" then "xa" as a file; the end
    assert [g[0] for g in got] == [7, 4, 0]


@pytest.mark.parametrize(("line", "path", "fold"), [
    ("*[ab]x*q*z*", "src/bxqz.py", False), ("*[ab]x*q*z*", "src/bxzq.py", False), ("**/s*/*a*b*", "src/cab", False),
    ("**/s*/*a*b*", "x/src/cab", False), ("a**/b", "ax/y/b", False), ("a**/b", "a/b", False), ("**", "a/b", False),
    ("a/**", "a/b/c", False), ("a/**/", "a/b", False), ("*\\**", "a*b", False), ("[[:upper:]]*", "Ab", True),
    ("[A-Z]*", "ab", True), ("[A]*", "ab", True), ("\\A*", "ab", True), ("*[!a]", "ba", False), ("*[^]", "]", False),
    ("[]*]x", "]x", False), ("[]*]x", "*]x", False), ("*é*", "aéb", False), ("**\\/x", "a/x", False),
])
def test_examples_as_the_compiled_rule(line: str, path: str, fold: bool) -> None:
    views = _views([path], fold)
    data = b"\n" + line.encode()
    got = list(matching_lines(data, None, 0, Texts([views[0][0]], False, fold), Texts([views[0][1]], True, fold),
                              [1, 0]))
    assert got == _expected(data, 0, views, fold, False)


@SETTINGS
@given(st.lists(star_lines(), min_size=1, max_size=30), st.lists(
    st.lists(st.sampled_from(MORE_NAMES), min_size=1, max_size=4).map("/".join), min_size=1, max_size=6),
    st.booleans(), st.sampled_from(["", "src/"]), st.booleans())
def test_a_lazy_list_reading_lines_directly_decides_as_the_whole_compile(
        lines: list[bytes], asked: list[str], fold: bool, base: str, announced: bool) -> None:
    data = b"\n".join(lines) + b"\n"
    full = IgnoreList.from_bytes(".gitignore", base, data, fold)
    for probe in (False, True):  # (the lines the scan found; every line)
        lazy = LazyIgnoreList(".gitignore", base, data, fold)
        with pytest.MonkeyPatch.context() as mp, expecting([base + p for p in asked] if announced else []):
            mp.setattr(_lazy, "DIRECT_AFTER", 0)
            mp.setattr(LazyIgnoreList, "_most", lambda self, rx, probe=probe: probe)
            for path in asked:
                for is_dir in (False, True, None):
                    assert _answer(lazy, base + path, is_dir, fold) == _answer(full, base + path, is_dir, fold)
                rel, name = _views([base + path], fold)[0][1][len(base):], _views([path], fold)[0][0]
                for files in (False, True):
                    assert [pt.rule for pt in lazy.matching(name, rel, files)] == \
                        [pt.rule for pt in full.matching(name, rel, files)]
        assert lazy._full is None  # (decided without the whole compile)


def test_a_huge_file_of_star_lines_compiles_only_the_deciding_lines() -> None:
    lines = [f"*{c}*{d}*[!y{k}]" for k in range(10) for c in "dab" for d in "ltao"] * 100  # (none matches)
    lines += ["*d*b*1.p?", "!*d*a*t*[!q]*"]
    data = "\n".join(lines).encode() + b"\n"
    full = IgnoreList.from_bytes(".gitignore", "", data, False)
    lazy = LazyIgnoreList(".gitignore", "", data, False)
    with expecting(["src/data_blob_1.py"]):
        for path, is_dir in (("src", True), ("src/data_blob_1.py", False), ("src/data_blob_1.py", True)):
            assert _answer(lazy, path, is_dir, False) == _answer(full, path, is_dir, False)
    assert lazy._full is None
    assert len(lazy._pats) <= 2
    assert lazy._scans == 1  # (the path and its directory: one reading of the lines)
