"""Filesystem-free table tests of one ignore list (``IgnoreList.from_lines``)."""

from __future__ import annotations

import pytest

from pathgate.runtime.ignore import IgnoreList

# (lines, path, is_dir, ignored, deciding line or None)
CASES: list[tuple[list[str], str, bool, bool, int | None]] = [
    (["*.log"], "a.log", False, True, 1),
    (["*.log"], "src/deep/a.log", False, True, 1),
    (["*.log", "!keep.log"], "keep.log", False, False, 2),
    (["!keep.log", "*.log"], "keep.log", False, True, 2),  # the last match wins
    (["build/"], "build", True, True, 1),
    (["build/"], "build", False, False, None),  # dir-only rule, a file
    (["/top"], "top", False, True, 1),
    (["/top"], "sub/top", False, False, None),  # anchored
    (["a/*.c"], "a/x.c", False, True, 1),
    (["a/*.c"], "a/b/x.c", False, False, None),  # '*' never matches '/'
    (["a/**/x.c"], "a/b/c/x.c", False, True, 1),
    (["a/**/x.c"], "a/x.c", False, True, 1),
    (["**/foo"], "x/y/foo", False, True, 1),
    (["foo/**"], "foo/bar", False, True, 1),
    (["[abc].txt"], "b.txt", False, True, 1),
    (["[!abc].txt"], "b.txt", False, False, None),
    (["[[:digit:]]x"], "7x", False, True, 1),
    (["[abc"], "[abc", False, False, None),  # malformed bracket: the line matches nothing
    (["trailing\\"], "trailing", False, False, None),  # lone trailing backslash
    (["\\#hash"], "#hash", False, True, 1),
    (["#comment"], "#comment", False, False, None),
    (["space\\ "], "space ", False, True, 1),
    (["spaces   "], "spaces", False, True, 1),  # unescaped trailing spaces trimmed
    (["\\!bang"], "!bang", False, True, 1),
    (["?.md"], "a.md", False, True, 1),
    (["?.md"], "ab.md", False, False, None),
]


@pytest.mark.parametrize(("lines", "path", "is_dir", "ignored", "line"), CASES)
def test_table(lines: list[str], path: str, is_dir: bool, ignored: bool, line: int | None) -> None:
    m = IgnoreList.from_lines(lines).decide(path, is_dir)
    assert m.ignored is ignored
    assert (m.rule.line if m.rule is not None else None) == line


def test_base_directory_anchors_patterns() -> None:
    lst = IgnoreList.from_lines(["/gen", "*.tmp"], base="pkg")
    assert lst.decide("pkg/gen").ignored
    assert lst.decide("pkg/sub/x.tmp").ignored
    assert not lst.decide("pkg/sub/gen").ignored


def test_fold_is_ascii_only() -> None:
    lst = IgnoreList.from_lines(["README.MD"], fold=True)
    assert lst.decide("readme.md").ignored
    assert not IgnoreList.from_lines(["README.MD"]).decide("readme.md").ignored


def test_negated_rule_is_reported() -> None:
    m = IgnoreList.from_lines(["*.py", "!main.py"], source="x/.gitignore").decide("main.py")
    assert not m.ignored and m.rule is not None and m.rule.negated and m.rule.source == "x/.gitignore"
