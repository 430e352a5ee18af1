"""Generated trees: ``pathgate check-ignore --git-only -v -n --stdin`` == git, byte for byte.

Hypothesis builds small trees with nested ignore files whose lines mix negations, anchors,
``**``, brackets and POSIX classes, escapes, trailing spaces and tabs, CRLF, a BOM, comments,
dir-only patterns, lone trailing backslashes and malformed brackets, next to files named
like directories. Every file, directory (with and without a trailing ``/``) and a few
missing paths are asked of both.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle._git import (
    git_check_ignore,
    git_init,
    pathgate_check_ignore,
    stdin_payload,
    write_tree,
)

NAMES = ["a", "b", "A", "build", "x.log", "d.txt", ".env", "a b", "é", "[x]", "*x", "foo",
         "Foo.LOG", "a1", "b-2", "x\\y", "#c", "!n", "tab\tx", "q?"]
DIRNAMES = ["a", "b", "build", "sub", "A", "node_modules", "x.log", "é"]

ATOMS = ["a", "b", "a", "b", "**", "*", "build", "sub", "*.LOG", "BUILD", "[A-Z]*",
         "A", "build", "foo", "x", "*", "**", "?", "*.log", "x*", "[ab]", "[!a]",
         "[^b]", "[a-c]", "[]a]", "[a-]", "[[:alpha:]]", "[[:digit:]]", "[[:upper:]]",
         "[[:space:]]", "[[:punct:]]", "[[:bogus:]]", "[a", "\\*x", "\\[x]", "\\!n", "\\#c",
         "é", "a b", "[[:alpha:]-z]", "[\\]]", "*[0-9]", "**x", "x**", ".env", "LOG", "*.LOG",
         "sub", "node_modules", "d.txt", "[[]x]", "\\", "[!]]"]


@st.composite
def patterns(draw: st.DrawFn) -> bytes:
    if draw(st.integers(0, 12)) == 0:
        return draw(st.sampled_from([b"", b"# comment", b"   ", b"!", b"/", b"\\", b"\t"]))
    segs = draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=3))
    text = "/".join(segs)
    if draw(st.booleans()) and draw(st.booleans()):
        text = "/" + text
    if draw(st.integers(0, 3)) == 0:
        text += "/"
    if draw(st.integers(0, 4)) == 0:
        text = "!" + text
    tail = draw(st.sampled_from(["", "", "", "  ", "\\ ", "\t", " \\ ", "\\"]))
    return (text + tail).encode()


@st.composite
def ignore_file(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(patterns(), min_size=1, max_size=6))
    eol = draw(st.sampled_from([b"\n", b"\r\n"]))
    data = eol.join(lines)
    if draw(st.booleans()):
        data += eol
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


@st.composite
def trees(draw: st.DrawFn) -> tuple[dict[str, bytes], list[str]]:
    dirs = draw(st.lists(
        st.lists(st.sampled_from(DIRNAMES), min_size=1, max_size=4).map("/".join),
        min_size=1, max_size=5, unique=True))
    files: dict[str, bytes] = {}
    all_dirs = {"/".join(d.split("/")[:i]) for d in dirs for i in range(1, len(d.split("/")) + 1)}
    for d in ["", *sorted(all_dirs)]:
        for name in draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True)):
            rel = f"{d}/{name}" if d else name
            if rel not in all_dirs:
                files[rel] = b"x"
    ign_dirs = ["", *draw(st.lists(st.sampled_from(sorted(all_dirs)), max_size=2, unique=True))]
    for d in ign_dirs:
        files[f"{d}/.gitignore" if d else ".gitignore"] = draw(ignore_file())
    return files, sorted(all_dirs)


def _queries(files: dict[str, bytes], dirs: list[str]) -> list[str]:
    paths = sorted(files) + dirs + [d + "/" for d in dirs]
    paths += ["missing", "build/missing", "a/b/c/missing.log", "sub/x.log/", "a/b/a/b/x",
              "a/x/y/b", "sub/a/build/foo/x.log", "b/a/a/A", "build/build/build/build"]
    return paths


def _compare(git_bin: str, files: dict[str, bytes], dirs: list[str],
             info_exclude: bytes | None = None, ignore_case: bool = False) -> None:
    root = Path(tempfile.mkdtemp(prefix="pg-diff-"))
    try:
        git_init(git_bin, root)
        write_tree(root, files, dirs)
        if info_exclude is not None:
            (root / ".git" / "info" / "exclude").write_bytes(info_exclude)
        payload = stdin_payload(_queries(files, dirs))
        args = ["-v", "-n", "--stdin"]
        git_cfg = ["core.ignoreCase=true"] if ignore_case else []
        ours_args = ["--ignore-case", *args] if ignore_case else args
        expected = git_check_ignore(git_bin, root, args, payload, git_cfg)
        got = pathgate_check_ignore(root, ours_args, payload)
        assert got[1].decode("utf-8", "replace") == expected[1].decode("utf-8", "replace")
        assert got == expected
    finally:
        shutil.rmtree(root)


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(trees())
def test_generated_trees_equal_git(git_bin: str, tree: tuple[dict[str, bytes], list[str]]) -> None:
    _compare(git_bin, *tree)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trees(), ignore_file())
def test_generated_trees_with_info_exclude_equal_git(
        git_bin: str, tree: tuple[dict[str, bytes], list[str]], exclude: bytes) -> None:
    _compare(git_bin, *tree, info_exclude=exclude)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trees())
def test_generated_trees_ignore_case_equal_git(
        git_bin: str, tree: tuple[dict[str, bytes], list[str]]) -> None:
    _compare(git_bin, *tree, ignore_case=True)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trees(), st.booleans())
def test_generated_trees_equal_git_large(
        git_bin: str, tree: tuple[dict[str, bytes], list[str]], fold: bool) -> None:
    _compare(git_bin, *tree, ignore_case=fold)
