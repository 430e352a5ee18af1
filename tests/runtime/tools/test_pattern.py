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


@pytest.mark.parametrize("bad", ["", "/etc/*", "../*", "a/../../b", "x\x00y", "a\ud800"])
def test_bad_patterns_name_the_field(bad: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        compile_glob(bad)
    assert info.value.field == "pattern"


def test_pathological_patterns() -> None:
    """Many ``*`` and ``**``: right answers (matched by git's ``dowild``, memoized, instead of
    a backtracking regex); thousands of unclosed ``[``: literal, compiled in one pass."""
    many_stars = compile_glob("*a" * 12 + "*b")
    assert not many_stars.match("a" * 200)
    assert many_stars.match("a" * 12 + "b")
    assert not many_stars.match("a" * 11 + "b")
    repeated = compile_glob("**/" * 12 + "q")
    assert repeated.segments == ("**", "q")
    assert not repeated.match("a/" * 60 + "y") and repeated.match("a/" * 60 + "q")
    chain = compile_glob("/**/".join("abcdefg") + "/**/z")
    assert not chain.match("/".join("abcdefg" * 8) + "/y")
    assert chain.match("a/b/x/c/d/e/f/g/z")
    assert chain.could_match_below("a/q") and not chain.could_match_below("q")
    brackets = compile_glob("[" * 8_000)
    assert brackets.match("[" * 8_000) and not brackets.match("[" * 7_999)
    stars = compile_glob("*a" * 4_000 + "*b")
    assert not stars.match("a" * 250) and stars.match("a" * 4_000 + "b")
    long_class = compile_glob("[" + "a" * 300 + "]")  # longer than MAX_CLASS: a literal "["
    assert long_class.match("[" + "a" * 300 + "]") and not long_class.match("a")


def test_non_ascii_names_are_matched_as_bytes_like_git() -> None:
    assert compile_glob("caf\u00e9.txt").match("caf\u00e9.txt")
    assert compile_glob("caf??.txt").match("caf\u00e9.txt")  # one character, two bytes
    assert not compile_glob("caf?.txt").match("caf\u00e9.txt")
    assert compile_glob("r*.txt").match("r\udce9sum\udce9.txt")  # a non-UTF-8 name (surrogate escapes)
    assert compile_glob("r?sum?.txt").match("r\udce9sum\udce9.txt")
