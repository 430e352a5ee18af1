"""Lazy ignore lists (``pathgate hook``'s, ``_lazy``) against git itself.

The generated trees of ``test_differential`` (nested ignore files mixing negations, anchors,
``**``, brackets, escapes, trailing spaces, CRLF, a BOM, comments, dir-only patterns, names like
directories; ``info/exclude``; ``core.ignoreCase``) are asked of ``pathgate check-ignore``
inside :func:`~pathgate.runtime.ignore._lazy.one_shot` with every ignore file lazy (the size
bound lowered to 0), and must equal ``git check-ignore -v -n`` byte for byte: once staying lazy,
once with the lists compiled whole after two texts (the fallback of a command asking many
paths). A big ``core.excludesFile`` is checked the same way.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate.runtime.ignore import _lazy, _rules
from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload, write_tree
from tests.oracle.test_differential import _compare, ignore_file, trees

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture
def lazy_everywhere(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_rules, "LAZY_MIN_BYTES", 0)
    with _lazy.one_shot():
        yield


@SETTINGS
@given(trees(), st.sampled_from([32, 2]), st.booleans())
def test_lazy_lists_equal_git(git_bin: str, lazy_everywhere: None, tree: tuple[dict[str, bytes], list[str]],
                              scans: int, fold: bool) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_lazy, "MAX_SCANS", scans)
        _compare(git_bin, *tree, ignore_case=fold)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(trees(), ignore_file())
def test_lazy_info_exclude_equals_git(git_bin: str, lazy_everywhere: None,
                                      tree: tuple[dict[str, bytes], list[str]], exclude: bytes) -> None:
    _compare(git_bin, *tree, info_exclude=exclude)


def test_big_excludes_file_and_gitignores_equal_git(git_bin: str, lazy_everywhere: None) -> None:
    """Files past the real bound (no monkeypatched size): a big excludes file, a big root
    ``.gitignore`` and a nested one, with negations near their ends."""
    root = Path(tempfile.mkdtemp(prefix="pg-lazy-"))
    try:
        git_init(git_bin, root)
        excludes = b"".join(b"gen%d/*.tmp\n" % i for i in range(9000)) + b"*.bak\n!keep.bak\n"
        top = b"".join(b"/out/**/cache%d*/*.tmp%d\n" % (i, i % 97) for i in range(9000))
        top += b"build/\n!build/keep/\n*.log\n!/src/**/ok.log\nsrc/[ab]*.py\n\\#lit\n"
        nested = b"".join(b"x%d\n" % i for i in range(20000)) + b"!*.py\nlocal/\n"
        files = {".gitignore": top, "src/.gitignore": nested, "src/a.py": b"", "src/b.py": b"",
                 "src/x1": b"", "src/x19999": b"", "src/local/f": b"", "build/keep/k": b"", "build/o": b"",
                 "out/q/cache12z/y.tmp12": b"", "out/q/cache12z/y.tmp13": b"", "a.bak": b"", "keep.bak": b"",
                 "#lit": b"", "src/d/ok.log": b"", "src/e.log": b"", "gen5/z.tmp": b""}
        write_tree(root, files)
        (root / "excl").write_bytes(excludes)
        assert len(nested) >= _rules.LAZY_MIN_BYTES and len(top) >= 64 << 10
        paths = [*sorted(files), "src/local/", "build/", "build/keep/", "out/q/cache12z/", "gen5/", "src/d/"]
        payload = stdin_payload(paths)
        args = ["-v", "-n", "--stdin"]
        expected = git_check_ignore(git_bin, root, args, payload, [f"core.excludesFile={root / 'excl'}"])
        got = pathgate_check_ignore(root, ["--excludes-file", str(root / "excl"), "--git-only", *args],
                                    payload, git_only=False)
        assert got == expected
        assert expected[1].count(b"\n") == len(paths)
    finally:
        shutil.rmtree(root)
