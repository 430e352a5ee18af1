"""Huge ignore files of star-run lines, read for a few paths, against ``git check-ignore`` (red team 20 L1).

Lines with no literal head or tail (``*[ab]x*q*z*``) are candidates for every path: a one-shot
command decides them with ``_wildbits`` (no compile) instead of compiling the whole file. The
generated trees of ``test_differential`` get their ignore files padded past the size bound by
thousands of such lines -- negations, ``**/``, brackets (ranges, negated, classes), escapes,
dir-only lines, some matching the tree's paths -- before or after their own lines, and every
answer of ``pathgate check-ignore -v -n`` must be git's byte for byte, ``core.ignoreCase`` off
and on, with each huge file read lazily and never compiled whole.
"""

from __future__ import annotations

import shutil

from hypothesis import given
from hypothesis import strategies as st

from pathgate import _check_ignore
from pathgate.runtime.ignore import _rules
from tests.oracle import test_check_ignore_lazy_cli as lazy_cli
from tests.oracle._git import git_check_ignore, pathgate_check_ignore
from tests.oracle.test_check_ignore_lazy_cli import SETTINGS, _fresh, _tree
from tests.oracle.test_differential import _queries, trees

_PIECES = ["a", "b", "x", "l", "o", "g", "[ab]", "[!a]", "[a-c]", "[[:alpha:]]", "?", "\\*", "é", "[A-Z]", "[^b]",
           "ui", "d", "[x]"]


def _star_filler(n: int) -> bytes:
    """``n`` distinct lines of star runs and pieces of the generated names (a few match some)."""
    out = []
    for i in range(n):
        k = i
        pieces = []
        for _ in range(1 + i % 3):
            pieces.append(_PIECES[k % len(_PIECES)])
            k //= len(_PIECES)
        line = "*" + "*".join(pieces) + "*" + (f"[!{i % 10}]" if i % 4 else "*" * (1 + i % 3))
        if i % 5 == 0:
            line = "**/" + line
        if i % 7 == 0:
            line = "!" + line
        if i % 11 == 0:
            line += "/"
        out.append(line)
    return ("\n".join(out) + "\n").encode()


compiles = lazy_cli.compiles  # (the fixture: what each huge ignore file became)
FILLER = _star_filler(7000)
assert len(FILLER) >= _rules.LAZY_MIN_BYTES


@SETTINGS
@given(trees(), st.booleans(), st.booleans())
def test_star_lines_read_for_few_paths_equal_git(git_bin: str, compiles: list[str],
                                                 tree: tuple[dict[str, bytes], list[str]], fold: bool,
                                                 after: bool) -> None:
    files = {rel: ((data + b"\n" + FILLER) if after else (FILLER + data)) if rel.endswith(".gitignore") else data
             for rel, data in tree[0].items()}
    dirs = tree[1]
    root = _tree(git_bin, files, dirs)
    try:
        queries = _queries(files, dirs)[-_check_ignore.LAZY_PATHS:]
        git_cfg = ["core.ignoreCase=true"] if fold else []
        ours = ["--ignore-case"] if fold else []
        for args in (["-v", "-n"], []):
            expected = git_check_ignore(git_bin, root, [*args, *queries], config=git_cfg)
            _fresh(compiles)
            assert pathgate_check_ignore(root, [*ours, *args, *queries]) == expected
            assert compiles and set(compiles) == {"lazy"}  # (read line by line, never compiled whole)
    finally:
        shutil.rmtree(root)


def test_the_filler_is_read_directly(git_bin: str, compiles: list[str]) -> None:
    """A path every filler line may match (its pieces all occur in it): still no whole compile."""
    files = {".gitignore": FILLER + b"*.tmp\n", "ab/xlog/aba.tmp": b"", "ab/xlog/abxlog": b"", "d/ui": b""}
    root = _tree(git_bin, files, [])
    try:
        queries = ["ab/xlog/aba.tmp", "ab/xlog/abxlog", "ab/xlog", "d/ui", "ab"]
        for fold in (False, True):
            ours, cfg = (["--ignore-case"], ["core.ignoreCase=true"]) if fold else ([], [])
            expected = git_check_ignore(git_bin, root, ["-v", "-n", *queries], config=cfg)
            _fresh(compiles)
            assert pathgate_check_ignore(root, [*ours, "-v", "-n", *queries]) == expected
            assert compiles == ["lazy"]
        assert b".gitignore:" in expected[1]  # (some filler line decides)
    finally:
        shutil.rmtree(root)
