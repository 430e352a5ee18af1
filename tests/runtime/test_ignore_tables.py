"""The per-list rule tables (``_rules._Table``) decide exactly as the rules one by one,
last match wins: path globs grouped by their first component, ``**/name`` read as the
basename ``name``, the file-only table built on first use (issue 19)."""

from __future__ import annotations

import itertools

import pytest

from pathgate.runtime.ignore import IgnoreList, compile_pattern
from pathgate.runtime.ignore._rules import decide
from pathgate.verdicts import Rule

LINES = ["a/b*", "*/x", "c/d/*.txt", "!c/d/keep.txt", "a/*/z", "**/tmp", "/**/out/",
         "!**/tmp", "c/**/deep", "*.log", "a/b/c", "**/x*", "q/[ab]/r", "x/", "!a/bb"]
NAMES = ["a", "b", "bb", "c", "d", "x", "xy", "z", "tmp", "out", "deep", "keep.txt",
         "f.txt", "y.log", "r", "q"]


def _one_by_one(lines: list[str], rel: str, is_dir: bool) -> int:
    """The index of the last line that matches ``rel``, rule by rule; -1 when none."""
    pats = [compile_pattern(line, Rule("t", i + 1, line, line.startswith("!")))
            for i, line in enumerate(lines)]
    name = rel.rpartition("/")[2]
    for i in reversed(range(len(pats))):
        pt = pats[i]
        if pt.dir_only and not is_dir:
            continue
        if pt.matches(name, rel):
            return i
    return -1


def _paths() -> list[str]:
    out = []
    for depth in (1, 2, 3, 4):
        for combo in itertools.product(NAMES[:8] if depth > 2 else NAMES, repeat=depth):
            out.append("/".join(combo))
    return [*out[::7], "a/bb", "c/d/keep.txt", "c/d/f.txt", "c/x/deep", "q/a/r", "q/c/r",
            "a/b/c", "a/q/z", "m/tmp", "m/n/out", "x", "xy/z"]


@pytest.mark.parametrize("is_dir", [False, True])
def test_table_equals_rules_one_by_one(is_dir: bool) -> None:
    lst = IgnoreList.from_lines(LINES)
    for rel in _paths():
        want = _one_by_one(LINES, rel, is_dir)
        got = decide((lst,), rel, rel.rpartition("/")[2], is_dir, lambda _: is_dir, rel)
        assert (lst.patterns.index(got) if got is not None else -1) == want, rel


def test_table_below_a_base_equals_rules_one_by_one() -> None:
    lst = IgnoreList.from_lines(LINES, base="m/n")
    for rel in _paths():
        want = _one_by_one(LINES, rel, False)
        got = decide((lst,), "m/n/" + rel, rel.rpartition("/")[2], False, lambda _: False,
                     "m/n/" + rel)
        assert (lst.patterns.index(got) if got is not None else -1) == want, rel


def test_double_star_name_is_a_basename_literal() -> None:
    for line in ("**/tmp", "/**/tmp", "!**/tmp", "**/tmp/"):
        pt = compile_pattern(line, Rule("t", 1, line, line.startswith("!")))
        assert pt.matches("tmp", "a/b/tmp") and pt.matches("tmp", "tmp")
        assert not pt.matches("xtmp", "a/xtmp")
    pt = compile_pattern("**/t*p", Rule("t", 1, "**/t*p", False))  # a glob: git's matcher
    assert pt.matches("tmp", "a/tmp") and not pt.matches("tm", "a/tm")


def test_file_table_is_built_on_first_use() -> None:
    lst = IgnoreList.from_lines(["x/", "*.log"])
    assert lst.ftab is None
    asked: list[str] = []

    def isdir_of(rel: str) -> bool:
        asked.append(rel)
        return False

    got = decide((lst,), "a/x", "x", None, isdir_of, "a/x")
    assert got is None and asked == ["a/x"] and lst.ftab is not None
    assert lst.decide("a/y.log").ignored and lst.decide("a/x", is_dir=True).ignored


def test_sibling_plans_are_shared_and_decide_alike(tmp_path: object) -> None:
    """Subdirectories without ignore files that a narrowing rule leaves alike share one
    plan (with its tables and remembered decisions); one the rule still reaches gets its
    own; every decision equals the full chain's."""
    from pathlib import Path

    from pathgate.runtime._walk import walk
    from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex

    root = Path(str(tmp_path))
    for rel in ("m/a/f.txt", "m/b/f.txt", "m/bin/f.txt", "m/c/bin/f.txt", "n/a/f.txt", "n/x.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    (root / ".gitignore").write_text("*/bin/*\n/n/x.txt\n")
    (root / "m" / ".gitignore").write_text("/a/g.txt\n")
    index = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
    session = index.session()
    entries = list(walk(session))
    full = index.session()
    for e in entries:
        assert (e.match or full.match(e.relpath, None)) == full.match(e.relpath, None), e.relpath
    assert [e.relpath for e in entries if e.match is not None] == ["m/bin/f.txt", "n/x.txt"]
    plan = {rel: session.dir_node(rel).plan for rel in ("m/b", "m/c", "m/bin", "m/a", "n/a")}
    assert plan["m/b"] is plan["m/c"]  # narrowed alike below m: one plan
    assert plan["m/bin"] is not plan["m/b"] and plan["m/a"] is not plan["m/b"]
