"""Regressions for the ignore engine's hardening bugs.

* a transient read error on an ignore file fails closed for that session only;
* paths thousands of components deep are decided (and walked) without recursion;
* pathological wildcard lines are decided in bounded time, with git's results.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate.runtime.fs import OsFS
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex

GIT_ONLY = IgnoreConfig.git_only(excludes_file="/dev/null")


# -- 1. a transient read error is not sticky -------------------------------------------------


class FlakyFS(OsFS):
    """``read_bytes`` on ``path`` raises ``code`` ``times`` times, then succeeds."""

    def __init__(self, path: str, code: int, times: int = 1) -> None:
        self.path = path
        self.code = code
        self.left = times
        self.reads: list[str] = []

    def read_bytes(self, path: str) -> bytes:
        self.reads.append(path)
        if path == self.path and self.left > 0:
            self.left -= 1
            raise OSError(self.code, os.strerror(self.code), path)
        return super().read_bytes(path)


@pytest.fixture
def flaky_tree(tmp_path: Path) -> Path:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / ".gitignore").write_bytes(b"*.log\n")
    (tmp_path / "sub" / ".gitignore").write_bytes(b"*.tmp\n!keep.tmp\n")
    return tmp_path


@pytest.mark.parametrize("code", [errno.EMFILE, errno.EIO, errno.EACCES])
@pytest.mark.parametrize("rel", ["sub/.gitignore", ".gitignore"])
def test_transient_read_error_fails_closed_once(flaky_tree: Path, code: int, rel: str) -> None:
    fs = FlakyFS(str(flaky_tree / rel), code)
    index = IgnoreIndex(flaky_tree, GIT_ONLY, fs=fs)
    s1 = index.session()
    for p in ("sub/c.tmp", "sub/keep.tmp", "sub/deeper/x.txt"):
        m = s1.match(p)
        assert m.ignored and m.fail_closed and m.unreadable == rel, (p, m)
    assert fs.left == 0
    # the fault is gone: the next session reads the file again and its rules decide
    s2 = index.session()
    m = s2.match("sub/c.tmp")
    assert m.ignored and not m.fail_closed and m.rule is not None
    assert m.rule.source == "sub/.gitignore" and m.rule.line == 1
    m = s2.match("sub/keep.tmp")
    assert not m.ignored and m.rule is not None and m.rule.negated
    assert not s2.match("sub/deeper/x.txt").ignored
    assert s2.match("sub/deeper/x.log").ignored
    # and a successful read stays cached: no further reads at all
    before = len(fs.reads)
    s3 = index.session()
    assert s3.match("sub/c.tmp").ignored and not s3.match("sub/deeper/x.txt").ignored
    assert len(fs.reads) == before


def test_persistent_read_error_keeps_failing_closed(flaky_tree: Path) -> None:
    fs = FlakyFS(str(flaky_tree / "sub" / ".gitignore"), errno.EIO, times=10**9)
    index = IgnoreIndex(flaky_tree, GIT_ONLY, fs=fs)
    for _ in range(3):
        m = index.match("sub/keep.tmp")
        assert m.ignored and m.fail_closed and m.unreadable == "sub/.gitignore"


def test_transient_read_error_only_rereads_the_failed_file(flaky_tree: Path) -> None:
    (flaky_tree / "sub" / ".pathgateignore").write_bytes(b"*.secret\n")
    cfg = IgnoreConfig.git_only(excludes_file="/dev/null", agent_files=(".pathgateignore",))
    failing = str(flaky_tree / "sub" / ".gitignore")
    fs = FlakyFS(failing, errno.EMFILE)
    index = IgnoreIndex(flaky_tree, cfg, fs=fs)
    assert index.match("sub/a.secret").fail_closed
    fs.reads.clear()
    s = index.session()
    assert s.match("sub/a.secret").ignored and not s.match("sub/a.secret").fail_closed
    assert s.match("sub/c.tmp").ignored
    assert fs.reads == [failing]


def test_transient_read_error_git_like_mode_is_not_sticky(flaky_tree: Path) -> None:
    """``fail_closed=False`` (git's behaviour): the file counts as empty for that session
    only; it is read again by the next one."""
    fs = FlakyFS(str(flaky_tree / "sub" / ".gitignore"), errno.EMFILE)
    index = IgnoreIndex(flaky_tree, IgnoreConfig.git_only(excludes_file="/dev/null",
                                                          fail_closed=False), fs=fs)
    assert not index.match("sub/c.tmp").ignored
    assert index.match("sub/c.tmp").ignored


def test_transient_read_error_on_info_exclude_is_not_sticky(tmp_path: Path) -> None:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (tmp_path / ".git" / "objects").mkdir()
    (tmp_path / ".git" / "refs").mkdir()
    (tmp_path / ".git" / "info" / "exclude").write_bytes(b"*.local\n")
    fs = FlakyFS(str(tmp_path / ".git" / "info" / "exclude"), errno.EMFILE)
    index = IgnoreIndex(tmp_path, GIT_ONLY, fs=fs)
    m = index.match("a.txt")
    assert m.ignored and m.fail_closed
    assert not index.match("a.txt").ignored
    m = index.match("x.local")
    assert m.ignored and not m.fail_closed and m.rule is not None


# -- 2. any depth, without recursion ---------------------------------------------------------

DEPTH = 1000


def _deep_tree(root: Path) -> tuple[list[str], list[str]]:
    """``d/d/…/d`` (DEPTH levels) with ignore files at some levels and files at several;
    returns (files, dirs) as relpaths."""
    from tests.oracle._git import write_tree

    ignores = {
        0: b"*.log\n!keep.log\nskip/\nd/**/leaf*\n",
        250: b"/x*\n*.txt\n",
        500: b"!important.txt\n**/deep.*\n",
        750: b"!d/\nplain.md\n",
        DEPTH - 1: b"!plain.md\n*.c\n!deep.c\n",
    }
    files: dict[str, bytes] = {}
    dirs: list[str] = []
    for level in range(DEPTH):
        d = "/".join(["d"] * (level + 1))
        dirs.append(d)
        if level in ignores:
            files[f"{d}/.gitignore"] = ignores[level]
        if level % 125 == 0 or level == DEPTH - 1:
            for name in ("a.txt", "important.txt", "b.log", "keep.log", "deep.c", "deep.h",
                         "plain.md", "x1", "leaf.rs", "skip/inner.txt"):
                files[f"{d}/{name}"] = b"x"
            dirs.append(f"{d}/skip")
    write_tree(root, files, dirs)
    return sorted(files), dirs


def _rm_deep(top: Path) -> None:
    """Remove a tree too deep for ``shutil.rmtree`` (it recurses once per level, and so
    would pytest's clean-up of ``tmp_path``): files first, then directories bottom up."""
    dirs = [str(top)]
    stack = [str(top)]
    while stack:
        for e in os.scandir(stack.pop()):
            if e.is_dir(follow_symlinks=False):
                dirs.append(e.path)
                stack.append(e.path)
            else:
                os.unlink(e.path)
    for d in reversed(dirs):
        os.rmdir(d)


@pytest.fixture
def deep_root(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "deep"
    yield root
    if root.exists():
        _rm_deep(root)


def test_thousand_nested_directories_equal_git(deep_root: Path, git_bin: str) -> None:
    from pathgate.runtime._walk import walk
    from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload

    root = deep_root
    git_init(git_bin, root)
    files, dirs = _deep_tree(root)
    queries = files + dirs + [d + "/" for d in dirs[::97]]
    payload = stdin_payload(queries)
    # git 2.39's check-ignore -v segfaults on paths this deep below a nested .gitignore,
    # so the oracle is the plain list of ignored paths
    expected = git_check_ignore(git_bin, root, ["--stdin"], payload)
    assert expected[0] == 0
    ignored = set(expected[1].decode().splitlines())
    session = IgnoreIndex(root, GIT_ONLY).session()
    assert {q for q in queries if session.match_pathspec(q).ignored} == ignored
    # the CLI too, on a sample (it lstats every leading component of every path, like git)
    sample = queries[::20]
    got = pathgate_check_ignore(root, ["--stdin"], stdin_payload(sample))
    assert got == git_check_ignore(git_bin, root, ["--stdin"], stdin_payload(sample))
    # some of each outcome, so the comparison means something
    assert len(ignored) > 40 and len(set(queries) - ignored) > 40
    assert any(q.endswith("/keep.log") for q in set(queries) - ignored)
    # the walk reaches the bottom and agrees with git on every entry it decides
    index = IgnoreIndex(root, GIT_ONLY)
    entries = list(walk(index.session()))
    leaf = "/".join(["d"] * DEPTH) + "/deep.c"
    assert any(e.relpath == leaf and not e.excluded for e in entries)
    assert {e.relpath for e in entries if e.excluded} == ignored & {e.relpath for e in entries}
    # a walk starting deep down, and single decisions in a fresh index, work too
    start = "/".join(["d"] * (DEPTH - 2))
    assert any(e.relpath == leaf for e in walk(index.session(), start))
    fresh = IgnoreIndex(root, GIT_ONLY)
    assert not fresh.match(leaf).ignored
    assert fresh.match(leaf[:-1] + "h").ignored
    assert fresh.session().is_dir_excluded("/".join(["d"] * 600) + "/skip/x") is not None


# -- 3. pathological lines: bounded time, git's results ---------------------------------------

STARS = "*a" * 12 + "*b"
REPEATED = "**/" * 12 + "q"
CHAIN = "**/" + "a/**/" * 8 + "b"

_BOUNDED = """
import sys
from pathlib import Path
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
root = Path(sys.argv[1])
(root / ".gitignore").write_text(sys.argv[2] + "\\n")
index = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
print(int(index.match(sys.argv[3], is_dir=False).ignored))
"""


@pytest.mark.parametrize(("line", "path", "ignored"), [
    (STARS, "a" * 200, False),
    (STARS, "a" * 200 + "b", True),
    ("/" + STARS, "a" * 200, False),
    (REPEATED, "a/" * 60 + "y", False),
    (REPEATED, "a/" * 60 + "q", True),
    (CHAIN, "a/" * 120 + "y", False),
    (CHAIN, "a/" * 120 + "b", True),
    ("**/*a*a*/**/*a*b*/**", ("a" * 40 + "/") * 30 + "y", False),
], ids=["stars", "stars-match", "stars-anchored", "repeated", "repeated-match", "chain",
        "chain-match", "mixed"])
def test_pathological_line_is_decided_in_bounded_time(tmp_path: Path, line: str, path: str,
                                                       ignored: bool) -> None:
    """In a subprocess (a regex stuck backtracking cannot be interrupted), generously
    bounded: a polynomial matcher needs milliseconds."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _BOUNDED, str(tmp_path), line, path],
                          capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(int(ignored))


def test_star_runs_and_collapsing() -> None:
    from pathgate.runtime.ignore import star_runs, translate_wildmatch

    assert translate_wildmatch(REPEATED, True) == "(?:.*/)?q"
    assert translate_wildmatch("a/**/**/**", True) == "a/.*"
    assert translate_wildmatch("**/x/**/**/y", True) == "(?:.*/)?x/(?:.*/)?y"
    assert translate_wildmatch("a**/**/b", True) == "a[^/]*/(?:.*/)?b"
    assert star_runs(REPEATED) == 1
    assert star_runs(STARS) == 13
    assert star_runs("**/x/**/**") == 2
    assert star_runs("a[*]b\\**") == 1
    assert star_runs("*.min.*") == 2


# the same wildmatch pattern, as the regex translation and as the port of dowild

W_ATOMS = ["a", "b", "A", "B", "/", "/", "*", "*", "**", "**/", "/**", "/**/", "?", "[ab]",
           "[!a]", "[^/]", "[a-c]", "[A-Z]", "[]a]", "[a-]", "[[:alpha:]]", "[[:upper:]]",
           "[[:lower:]]", "[[:digit:]]", "[[:space:]]", "[[:punct:]]", "\\*", "\\a", "\\A",
           "\\/", "\\", "[a", "[[:bogus:]]", "é", "\\[", "x", ".", "[\\]]", "[[:alpha:]-z]"]
W_TEXT = ["a", "b", "A", "B", "/", "/", "x", "é", "*", "[", "]", "-", " ", ".", "1", "\\"]


def _latin1(s: str) -> str:
    return s.encode("utf-8").decode("latin-1")


@st.composite
def wild_cases(draw: st.DrawFn) -> tuple[str, str, bool, bool]:
    p = "".join(draw(st.lists(st.sampled_from(W_ATOMS), min_size=1, max_size=7)))
    t = "".join(draw(st.lists(st.sampled_from(W_TEXT), max_size=12)))
    if draw(st.integers(0, 3)) == 0:  # a text the pattern was built from, mostly matching
        t = p.replace("\\", "").replace("*", "x").replace("?", "y")
    return _latin1(p), _latin1(t), draw(st.booleans()), draw(st.booleans())


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(wild_cases())
def test_wildmatch_port_equals_the_regex(case: tuple[str, str, bool, bool]) -> None:
    import re

    from pathgate.runtime.ignore._wildmatch import Wildmatch, _fold, translate_wildmatch

    p, t, pathname, fold = case
    body = translate_wildmatch(p, pathname, fold)
    wm = Wildmatch(p, pathname, fold)
    view = _fold(t) if fold else t
    expected = body is not None and re.fullmatch(body, view, re.DOTALL) is not None
    assert wm(t) == expected, (p, t, pathname, fold, body)
    assert wm(view) == expected


@pytest.mark.slow
@settings(max_examples=500, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(wild_cases())
def test_wildmatch_port_equals_the_regex_exhaustive(case: tuple[str, str, bool, bool]) -> None:
    """``test_wildmatch_port_equals_the_regex`` with the full example count."""
    test_wildmatch_port_equals_the_regex.hypothesis.inner_test(case)


WILD_LINES = [
    "*a*a*a*b", "*A*a*?*B", "**/x*y*z", "a/**/b/**/c", "a/*/**/*.log", "**/**/q", "**/**/**",
    "**/**/**/**/deep", "/**/*[[:digit:]]*/**", "*[!a]*[[:upper:]]*x", "b**/**/**/c",
    "!**/*keep*/*.*", "*\\**\\**", "x/**/**/*y*", "**/sub/**/*.tmp*", "[a-c]*[a-c]*[a-c]",
    "**/a/**/a/**/a", "*é*é*", "**/**\\/b", "a/**/**",
]
WILD_PATHS = [
    "aab", "ab", "aAxB", "AAAB", "xyz", "d/xayaz", "d/e/x-y-z", "a/b/c", "a/x/b/y/c", "a/b/b/c",
    "a/q/x.log", "a/q/r/s.log", "a/x.log", "q", "d/q", "d/e/q", "deep", "d/deep", "d/e/f/deep",
    "d/e1/f", "n/a1b/x", "bA-x", "xZx", "b/c", "bx/y/c", "keep.me/a.b", "d/keepit/x.y",
    "*x*y*", "a*b*", "x/y", "x/a/y", "x/a/b/zy", "sub/a.tmp", "d/sub/e/a.tmpx", "abc", "cab",
    "a/a/a", "a/x/a/y/a", "a/a", "xéyéz", "é", "d/b", "a", "a/", "a/x", "a/x/y/z",
]


@pytest.mark.parametrize("fold", [False, True], ids=["case", "ignore-case"])
def test_wildmatch_lines_equal_git(tmp_path: Path, git_bin: str, fold: bool) -> None:
    """Lines matched by the port (3 or more runs of ``*``) and collapsed ``**/`` runs, in
    a root and a nested ignore file: ``pathgate check-ignore`` == git, byte for byte."""
    from pathgate.runtime.ignore import WILD_STAR_RUNS, compile_pattern, star_runs
    from pathgate.verdicts import Rule
    from tests.oracle._git import (
        git_check_ignore,
        git_init,
        pathgate_check_ignore,
        stdin_payload,
        write_tree,
    )

    assert sum(star_runs(x.lstrip("!/")) >= WILD_STAR_RUNS for x in WILD_LINES) >= 12
    assert any(compile_pattern(_latin1(x), Rule("t", 1, x, False)).wild is not None
               for x in WILD_LINES)
    git_init(git_bin, tmp_path)
    files = {p: b"x" for p in WILD_PATHS if not p.endswith("/")}
    files = {p: b"x" for p in files if not any(q.startswith(p + "/") for q in files)}
    files[".gitignore"] = "\n".join(WILD_LINES).encode() + b"\n"
    files["n/.gitignore"] = b"*1*b*\n!**/**/x\n"
    write_tree(tmp_path, files)
    queries = [*WILD_PATHS, *(f"n/{p}" for p in WILD_PATHS)]
    args = ["-v", "-n", "--stdin"]
    payload = stdin_payload(queries)
    expected = git_check_ignore(git_bin, tmp_path, args, payload,
                                ["core.ignoreCase=true"] if fold else [])
    got = pathgate_check_ignore(tmp_path, ["--ignore-case", *args] if fold else args, payload)
    assert got[1].decode() == expected[1].decode()
    assert got == expected
    assert expected[1].count(b"\n::") < len(queries) // 2  # plenty of matches


def test_collapsed_starstar_equals_git(tmp_path: Path, git_bin: str) -> None:
    """git's own answers for ``**/**/…`` lines equal its answers for the collapsed line (on
    paths shallow enough for git's exponential ``dowild``), and so do ours."""
    from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload

    git_init(git_bin, tmp_path)
    paths = ["q", "a/q", "a/b/q", "a/b/c/q", "qq", "a/qq", "x/q/y", "a", "a/b", "x/a/y/z",
             "x/a/y/b", "x/a/b", "x/a/y", "a/b/c/d/e/f"]
    pairs = [("**/**/**/q", "**/q"), ("x/**/**/a/**/**", "x/**/a/**"),
             ("**/**/a/**/**/b", "**/a/**/b"), ("**/**/**", "**"), ("a/**/**/**/f", "a/**/f")]
    payload = stdin_payload(paths)
    for long, short in pairs:
        answers = []
        for line in (long, short):
            (tmp_path / ".gitignore").write_text(line + "\n")
            answers.append(git_check_ignore(git_bin, tmp_path, ["-v", "-n", "--stdin"], payload)[1]
                           .replace(line.encode(), b"LINE"))
            ours = pathgate_check_ignore(tmp_path, ["-v", "-n", "--stdin"], payload)[1]
            assert ours.replace(line.encode(), b"LINE") == answers[-1], line
        assert answers[0] == answers[1], (long, short)
        assert b"LINE" in answers[0]


# -- an ignore file rewritten (os.replace) during its read is read again, not failed closed --


class SwappingFS(OsFS):
    """Replaces ``path`` with ``content`` (a new inode, like an editor's atomic save) during
    each of its first ``times`` reads."""

    def __init__(self, path: str, content: bytes, times: int) -> None:
        self.path = path
        self.content = content
        self.left = times

    def read_bytes(self, path: str) -> bytes:
        data = super().read_bytes(path)
        if path == self.path and self.left > 0:
            self.left -= 1
            tmp = path + ".new"
            with open(tmp, "wb") as fh:
                fh.write(self.content)
            os.replace(tmp, path)
        return data


@pytest.mark.parametrize("swaps", [1, 2, 50])
def test_ignore_file_swapped_during_read(flaky_tree: Path, swaps: int) -> None:
    from pathgate.runtime.ignore._index import SWAP_RETRIES

    fs = SwappingFS(str(flaky_tree / "sub" / ".gitignore"), b"*.tmp\n", swaps)
    index = IgnoreIndex(flaky_tree, GIT_ONLY, fs=fs)
    index.linked_secret = lambda st: False  # the runtime's setting: reads are judged twice
    m = index.session().match("sub/keep.tmp")
    if swaps < SWAP_RETRIES:  # read again: the rules of the file as it now is
        assert m.ignored and not m.fail_closed
        assert not index.session().match("sub/other.txt").ignored
    else:  # swapped on every attempt: refused, fail closed
        assert m.ignored and m.fail_closed
