"""The shared real-monorepo corpora: pathgate's answers equal git's on every file.

The walker's kept files must equal ``git ls-files --others --exclude-standard`` and the
classifier's ignored files ``--ignored``; ``check-ignore --git-only -v -n`` must print
exactly what ``git check-ignore --no-index -v -n`` prints for every path (rule provenance
included). ``.git/`` and ``.truth/`` are left out (``.truth/`` is excluded through
``.git/info/exclude`` by ``git_truth.sh``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgate.runtime._walk import DIR, walk
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from tests.oracle._git import git_check_ignore, pathgate_check_ignore, stdin_payload


def _truth(tree: Path, name: str) -> list[str]:
    return (tree / ".truth" / name).read_text().splitlines()


def _index(tree: Path) -> IgnoreIndex:
    return IgnoreIndex(tree, IgnoreConfig.git_only(excludes_file="/dev/null"))


def _check_tree(tree: Path) -> None:
    kept = _truth(tree, "kept.txt")
    ignored = _truth(tree, "ignored.txt")
    index = _index(tree)
    walked = sorted(e.relpath for e in walk(index.session())
                    if e.kind != DIR and e.match is None and not e.relpath.startswith(".truth/"))
    assert walked == kept
    session = index.session()
    got_ignored = sorted(p for p in kept + ignored if session.match(p).ignored)
    assert got_ignored == ignored


def test_vercel_walker_and_classifier_equal_git(vercel_tree: Path) -> None:
    _check_tree(vercel_tree)


def test_vercel_check_ignore_verbose_equals_git(vercel_tree: Path, git_bin: str) -> None:
    paths = _truth(vercel_tree, "kept.txt") + _truth(vercel_tree, "ignored.txt")
    # a few directories too, with and without a trailing slash
    dirs = sorted({p.rsplit("/", 1)[0] for p in paths if "/" in p})[:400]
    payload = stdin_payload(paths + dirs + [d + "/" for d in dirs[:100]])
    args = ["-v", "-n", "--stdin"]
    assert pathgate_check_ignore(vercel_tree, args, payload) == \
        git_check_ignore(git_bin, vercel_tree, args, payload)


@pytest.mark.slow
def test_eugenp_walker_and_classifier_equal_git(eugenp_tree: Path) -> None:
    _check_tree(eugenp_tree)


@pytest.mark.slow
def test_eugenp_check_ignore_verbose_equals_git(eugenp_tree: Path, git_bin: str) -> None:
    paths = _truth(eugenp_tree, "kept.txt") + _truth(eugenp_tree, "ignored.txt")
    payload = stdin_payload(paths)
    args = ["-v", "-n", "--stdin"]
    assert pathgate_check_ignore(eugenp_tree, args, payload) == \
        git_check_ignore(git_bin, eugenp_tree, args, payload)
