"""Tool globs against git itself: ``git ls-files -o -- ':(glob)PATTERN'`` on a generated
tree is the oracle for glob semantics (``*``/``?`` within a segment, ``**`` across,
classes with ranges, negation and POSIX names, escapes, bytes of non-ASCII names).

git's pathspec also matches the pattern *as a literal string*: the path itself (``x[1].md``
names the file ``x[1].md`` as well as ``x1.md``) and every file below such a directory;
pathgate's glob does not (a class is a class), so the expectation adds those literal matches
to :meth:`GlobPattern.match`'s. Not generated: ``**`` inside a segment beside other
characters (``.**``): pathgate reads it as ``*`` (the gitignore documentation's "other
consecutive asterisks are regular asterisks"), git's pathspec lets it cross ``/`` — a known
difference, listed in the README; and a ``[`` that opens no class (pathgate makes
it literal, git's wildmatch matches nothing)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate.runtime.tools._pattern import compile_glob
from tests._gitinit import git_init

NAMES = ["a.py", "b.txt", "ab", ".hidden", "x[1].md", "caf\u00e9.txt", "\u00e9t\u00e9", "Z9.log", "a-b", "*"]
DIRS = ["", "src", "src/a", "src/a/b", "doc", ".d", "caf\u00e9", "src/x[1]"]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("globtree")
    git = os.environ.get("GIT", "git")
    try:
        git_init(root, git=git)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs the git binary as the oracle")
    for d in DIRS:
        for name in NAMES:
            path = root / d / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")
    return root


def _files(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        rel = os.path.relpath(dirpath, root)
        out += [name if rel == "." else f"{rel}/{name}" for name in filenames]
    return sorted(out)


def _git_glob(root: Path, pattern: str) -> set[str]:
    res = subprocess.run(["git", "-c", "core.quotepath=off", "ls-files", "-o", "-z", "--", f":(glob){pattern}"],
                         cwd=root, capture_output=True, check=True)
    return {os.fsdecode(p) for p in res.stdout.split(b"\0") if p}


_ATOMS = st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[!a]", "[^b]", "[a-c]", "[[:digit:]]", "[[:upper:]]",
                          "[]x]", "\\*", "\\[", "py", "txt", "caf", "\u00e9", "x", "1", "-"])
_SEGMENT = st.lists(_ATOMS, min_size=1, max_size=4).map("".join).filter(
    lambda s: s not in (".", "..") and "**" not in s.replace("\\*", ""))
_PATTERN = st.lists(st.one_of(_SEGMENT, st.just("**"), st.sampled_from(DIRS[1:])), min_size=1,
                    max_size=4).map("/".join)


def _expected(pattern: str, files: list[str]) -> set[str]:
    pat = compile_glob(pattern)
    return {f for f in files if pat.match(f) or f == pattern or f.startswith(pattern + "/")}


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_PATTERN)
def test_glob_matches_like_git(repo: Path, pattern: str) -> None:
    assert _expected(pattern, _files(repo)) == _git_glob(repo, pattern), pattern


@pytest.mark.parametrize("pattern", ["**/*.py", "src/**", "src/**/b.txt", "*", "?b", "caf?", "caf??.txt",
                                     "**/x[[]1].md", "[[:upper:]]*", "src/*/b/*", "**"])
def test_fixed_patterns_match_like_git(repo: Path, pattern: str) -> None:
    assert _expected(pattern, _files(repo)) == _git_glob(repo, pattern), pattern
