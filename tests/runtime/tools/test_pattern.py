"""Glob patterns of the glob tool: matching and pruning."""

from __future__ import annotations

import pytest

from pathgate.errors import ToolArgumentError
from pathgate.runtime.tools._pattern import compile_glob


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "pkg/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "pkg/sub/a.py", True),
        ("**/*.py", "pkg/sub/a.pyc", False),
        ("src/**", "src/a/b.txt", True),
        ("src/**", "srcx/a", False),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/x/y/test_a.py", True),
        ("src/**/test_*.py", "lib/test_a.py", False),
        ("?.txt", "a.txt", True),
        ("?.txt", "ab.txt", False),
        ("?.txt", "/.txt", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("[!ab].txt", "c.txt", True),
        ("[a-c]x", "bx", True),
        (r"\*.txt", "*.txt", True),
        (r"\*.txt", "a.txt", False),
        ("./docs/*.md", "docs/a.md", True),
        ("a*b", "a/b", False),
        ("[.txt", "[.txt", True),
        ("a[b", "a[b", True),
        ("*[b", "xx[b", True),
        ("a\\", "a\\", True),  # a lone trailing backslash is literal
        ("a***b", "axxb", True),
        ("a/***/b", "a/x/y/b", False),  # only a whole "**" segment crosses directories
        ("[z-a]x", "zx", True),  # git's wildmatch: a reversed range matches its first end
        ("[z-a]x", "mx", False),
        ("[[:digit:]]*.log", "7a.log", True),  # the POSIX classes of git's wildmatch
        ("[[:digit:]]*.log", "a7.log", False),
        ("[\\]]x", "]x", True),  # a backslash escapes inside a class, as in git
    ],
)
def test_match(pattern: str, path: str, expected: bool) -> None:
    assert compile_glob(pattern).match(path) is expected


@pytest.mark.parametrize(
    ("pattern", "directory", "expected"),
    [
        ("*.py", "pkg", False),
        ("**/*.py", "pkg/deep/er", True),
        ("src/*.py", "src", True),
        ("src/*.py", "src/sub", False),
        ("src/*.py", "lib", False),
        ("src/**/x", "src/a/b", True),
        ("s*/t/*.js", "sa/t", True),
        ("s*/t/*.js", "sa/u", False),
    ],
)
def test_could_match_below(pattern: str, directory: str, expected: bool) -> None:
    assert compile_glob(pattern).could_match_below(directory) is expected


def test_literal_prefix() -> None:
    assert compile_glob("src/app/**/*.ts").literal_prefix == "src/app"
    assert compile_glob("**/*.ts").literal_prefix == ""
    assert compile_glob("*.ts").literal_prefix == ""


@pytest.mark.parametrize("bad", ["", "/etc/*", "../*", "a/../../b", "x\x00y"])
def test_bad_patterns_name_the_field(bad: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        compile_glob(bad)
    assert info.value.field == "pattern"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pathgate.runtime.tools import _pattern  # noqa: E402

_SEG_ATOMS = st.sampled_from(["a", "b", ".b", "*", "?", "[ab]", "[!a]", "\\*", "x"])
_SEGMENT = st.lists(_SEG_ATOMS, min_size=1, max_size=5).map("".join)
_PATTERN = st.lists(st.one_of(_SEGMENT, st.just("**")), min_size=1, max_size=5).map("/".join)
_PATH = st.lists(st.text("ab.x*", min_size=1, max_size=6), min_size=1, max_size=6).map("/".join)


@settings(max_examples=400, deadline=None)
@given(_PATTERN, st.lists(_PATH, min_size=1, max_size=8))
def test_linear_matcher_equals_the_regex(pattern: str, paths: list[str]) -> None:
    by_regex = compile_glob(pattern)
    assert by_regex.linear is None or pattern.count("*") > _pattern.MAX_REGEX_STARS
    old = (_pattern.MAX_REGEX_STARS, _pattern.MAX_REGEX_GLOBSTARS)
    _pattern.MAX_REGEX_STARS, _pattern.MAX_REGEX_GLOBSTARS = -1, -1
    try:
        linear = compile_glob(pattern)
    finally:
        _pattern.MAX_REGEX_STARS, _pattern.MAX_REGEX_GLOBSTARS = old
    assert linear.linear is not None
    for path in paths:
        assert linear.match(path) == (by_regex.regex.fullmatch(path) is not None), (pattern, path)
        directory = path.rpartition("/")[0]
        assert linear.could_match_below(directory) == by_regex.could_match_below(directory), (pattern, path)


def test_pathological_patterns_use_the_linear_matcher() -> None:
    many_stars = compile_glob("*a" * 12 + "*b")
    assert many_stars.linear is not None
    assert not many_stars.match("a" * 200)
    assert many_stars.match("a" * 12 + "b")
    repeated = compile_glob("**/" * 12 + "q")
    assert repeated.segments == ("**", "q")
    assert not repeated.match("a/" * 60 + "y") and repeated.match("a/" * 60 + "q")
    chain = compile_glob("/**/".join("abcdefg") + "/**/z")
    assert chain.linear is not None
    assert not chain.match("/".join("abcdefg" * 8) + "/y")
    assert chain.match("a/b/x/c/d/e/f/g/z")
