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


@pytest.mark.parametrize("bad", ["", "/etc/*", "../*", "a/../../b", "x\x00y", "[z-a]"])
def test_bad_patterns_name_the_field(bad: str) -> None:
    with pytest.raises(ToolArgumentError) as info:
        compile_glob(bad)
    assert info.value.field == "pattern"
