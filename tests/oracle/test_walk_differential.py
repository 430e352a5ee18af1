"""Generated trees: the walker's per-entry decisions equal git's.

The walker decides each entry on its directory's pruned rule chain (path literals and
fixed-depth path rules turned into basename rules, basename-only chains remembered per
name). Here, on hypothesis trees (the same generator as ``test_differential``) and on
hand-written layouts:

* the files the walker keeps equal ``git ls-files --others --exclude-standard``;
* every walked decision (rule and provenance included) equals the one the full chain
  gives for that path (:meth:`IgnoreSession.match` with ``is_dir=None``, which
  ``test_differential`` holds equal to ``git check-ignore -v``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from pathgate.runtime._walk import DIR, KINDS, Walker, walk
from pathgate.runtime.ignore import DirNode, IgnoreConfig, IgnoreIndex, IgnoreSession, Match
from tests.oracle._git import GIT_ENV, git_init, write_tree
from tests.oracle.test_differential import trees


def _git_kept(git_bin: str, root: Path) -> list[str]:
    out = subprocess.run([git_bin, "-c", "core.excludesFile=/dev/null", "-C", str(root),
                          "ls-files", "--others", "--exclude-standard", "-z"],
                         check=True, env=GIT_ENV, capture_output=True).stdout
    return sorted(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def _recorded(session: IgnoreSession) -> list[tuple[str, str, object]]:
    """The walk in record mode (the live index's), as ``(relpath, kind, match)`` in the
    order the listings were recorded (error entries as ``(relpath, "error", errno)``)."""
    got: list[tuple[str, str, object]] = []

    def record(rel: str, node: DirNode, names: list[str], kinds: bytearray,
               matches: list[Match | None] | None, st: object) -> None:
        assert st is not None and len(kinds) == len(names) and (matches is None or len(matches) == len(names))
        assert matches is None or any(m is not None for m in matches)
        prefix = rel + "/" if rel else ""
        got.extend((prefix + n, KINDS[k], None if matches is None else matches[i])
                   for i, (n, k) in enumerate(zip(names, kinds, strict=True)))

    w = Walker(session, record=record, stat_dirs=True)
    try:
        while not w.done:
            got.extend((e.relpath, "error", e.error) for e in w.step(7))  # (small steps)
    finally:
        w.close()
    return got


def _compare(git_bin: str, files: dict[str, bytes], dirs: list[str],
             ignore_case: bool = False) -> None:
    root = Path(tempfile.mkdtemp(prefix="pg-walkdiff-"))
    try:
        git_init(git_bin, root)
        if ignore_case:
            subprocess.run([git_bin, "-C", str(root), "config", "core.ignoreCase", "true"],
                           check=True, env=GIT_ENV)
        write_tree(root, files, dirs)
        index = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
        recording = IgnoreIndex(root, IgnoreConfig.git_only(excludes_file="/dev/null"))
        for _ in range(2):  # cold, then warm (cached nodes and remembered decisions)
            entries = list(walk(index.session()))
            kept = sorted(e.relpath for e in entries if e.match is None and e.kind != DIR)
            assert kept == _git_kept(git_bin, root)
            # record mode (its own index, cold then warm) records exactly these entries
            assert _recorded(recording.session()) == [(e.relpath, e.kind, e.match) for e in entries]
            full = index.session()
            for e in entries:
                want = full.match(e.relpath, None)
                got = e.match
                if got is None:
                    assert not want.ignored, e.relpath
                else:
                    assert got == want, e.relpath
    finally:
        shutil.rmtree(root)


SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(trees())
def test_walked_decisions_equal_git(git_bin: str, tree: tuple[dict[str, bytes], list[str]]) -> None:
    _compare(git_bin, *tree)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(trees())
def test_walked_decisions_ignore_case_equal_git(
        git_bin: str, tree: tuple[dict[str, bytes], list[str]]) -> None:
    _compare(git_bin, *tree, ignore_case=True)


_LAYOUT_FILES = [
    "a/bin/x", "a/bin/y.log", "a/b/bin/x", "bin", "c/bin", "c/d/bin/e/f",
    "foo/bar", "foo/bar2", "baz/foo/bar", "foo/x/bar", "sub/foo/bar",
    "m/target/app.jar", "m/target/keep.jar", "m/n/target/app.jar", "m/x.log", "m/n/x.log",
    "deep/a/b/c/d.txt", "deep/a/b/c/e.txt", "deep/a/x/c/d.txt", "DEEP/A/B/C/D.TXT",
    "p/q/r", "p/Q/r", "p/q/s/r", "g/a/gen/x", "g/gen/y", "g/b/c/gen/z", "h/gen",
]

_LAYOUT_RULES = [
    (".gitignore", b"*/bin/*\n/foo/bar\nm/target/*.jar\n!m/target/keep.jar\n"
                   b"deep/a/*/c/d.txt\np/?/r\n!a/bin/y.log\n*.log\n!m/x.log\n"
                   b"g/**/gen/\n!g/b/**/gen\np/**/s/r\n"),
    ("m/.gitignore", b"/n/x.log\nn/target/\n"),
    ("sub/.gitignore", b"/foo/bar\n!/foo/bar\nfoo/*\n"),
    ("c/.gitignore", b"d/bin/e\n!*/bin/\n"),
]


@pytest.mark.parametrize("ignore_case", [False, True])
def test_anchored_and_fixed_depth_rules_equal_git(git_bin: str, ignore_case: bool) -> None:
    """Path literals, fixed-depth globs, negations over them and nested lists re-anchoring
    the same paths: each directory sees only the rules that can match its entries."""
    files = dict.fromkeys(_LAYOUT_FILES, b"x")
    files.update(_LAYOUT_RULES)
    _compare(git_bin, files, [], ignore_case=ignore_case)


@pytest.mark.parametrize("ignore_case", [False, True])
def test_non_ascii_names_equal_git(git_bin: str, ignore_case: bool) -> None:
    """Non-ASCII names below ASCII directories (and the reverse): a rule is compiled on the
    latin-1 view of its bytes, so such a name is decided on its view, never as it is."""
    files = dict.fromkeys(["a/é", "a/É", "a/é.log", "a/x.log", "b/café/x", "b/cafe/x", "é/y", "é/z.txt",
                           "c/Ã©", "c/ñ/é", "d/naïve.txt"], b"x")
    files[".gitignore"] = "é\n*.log\ncafé/\n!a/x.log\nñ/\n*ï*\n".encode()
    files["é/.gitignore"] = b"z.txt\n"
    _compare(git_bin, files, [], ignore_case=ignore_case)
