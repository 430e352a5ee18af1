"""``pathgate check-ignore`` under huge ignore files, against ``git check-ignore`` itself.

A run asking a few paths (its arguments, a short ``--stdin``) reads ignore files of
``_rules.LAZY_MIN_BYTES`` or more line by line (``_lazy``); one asking many compiles them
whole, and a stream that goes past ``_check_ignore.LAZY_PATHS`` switches to whole compiles
midway (``_lazy.settled``). Whichever happens, the answers must be git's byte for byte: the
generated trees of ``test_differential`` (negations, anchors, ``**``, brackets, escapes,
trailing spaces, CRLF, a BOM, dir-only lines, ``core.ignoreCase``) with each ignore file
padded past the real size bound by thousands of lines aimed elsewhere (and some that fit a
path's start but not its end), asked as arguments, as one ``--stdin`` read and as a trickle
of one record per read.
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from pathgate import _check_ignore
from pathgate.runtime.ignore import _lazy, _rules
from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload, write_tree
from tests.oracle.test_differential import _queries, trees

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

#: Lines no generated path matches, some fitting a path's start (``a*``, ``**/``, ``b/``)
#: but not its end; with hostile ones (brackets, escapes, negations, dir-only).
FILLER = b"".join(b"zz%d/**/q*[0-9]x%d\n!**/keep%d.tmp\na*/**/x%dq\n\\#lit%d\nb/[!a]*%dz/\n" % ((i,) * 6)
                  for i in range(940))


def _padded(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every ignore file with the filler before its own lines (which keep the last word)."""
    return {rel: (FILLER + data if rel.endswith(".gitignore") else data) for rel, data in files.items()}


class _Trickle(io.RawIOBase):
    """A stdin that hands out one record per read (a coprocess feeding paths one by one)."""

    def __init__(self, data: bytes) -> None:
        self.recs = data.splitlines(keepends=True)

    def readable(self) -> bool:
        return True

    def read1(self, n: int = -1) -> bytes:
        return self.recs.pop(0) if self.recs else b""

    read = read1


def _trickled(root: Path, args: list[str], payload: bytes) -> tuple[int, bytes]:
    out = io.BytesIO()
    old = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    stdin = io.TextIOWrapper(io.BytesIO())
    stdin.buffer.read1 = _Trickle(payload).read1  # type: ignore[method-assign]
    sys.stdin, sys.stdout, sys.stderr = stdin, io.TextIOWrapper(out), io.StringIO()
    os.chdir(root)
    try:
        rc = _check_ignore.main(["--root", str(root), "--git-only", "--excludes-file", "/dev/null", *args])
        sys.stdout.flush()
        return rc, out.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = old[:3]
        os.chdir(old[3])


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What each huge ignore file became: ``"lazy"``, ``"whole"`` (compiled up front) or
    ``"settled"`` (a lazy list compiled whole later)."""
    seen: list[str] = []
    from_bytes, lazy_list, whole = _rules.IgnoreList.from_bytes.__func__, _lazy.lazy_list, _lazy.LazyIgnoreList.whole

    def spy_from_bytes(cls: type, source: str, base: str, data: bytes, *a: object) -> object:
        if len(data) >= _rules.LAZY_MIN_BYTES:
            seen.append("whole")
        return from_bytes(cls, source, base, data, *a)

    def spy_lazy(*a: object) -> object:
        seen.append("lazy")
        return lazy_list(*a)

    def spy_whole(self: _lazy.LazyIgnoreList) -> object:
        if self._full is None:
            seen.append("settled")
        return whole(self)

    monkeypatch.setattr(_rules, "_COMPILED", weakref.WeakValueDictionary())  # (each run compiles its own)
    monkeypatch.setattr(_lazy, "_LAZY", weakref.WeakValueDictionary())
    monkeypatch.setattr(_rules.IgnoreList, "from_bytes", classmethod(spy_from_bytes))
    monkeypatch.setattr(_lazy, "lazy_list", spy_lazy)
    monkeypatch.setattr(_lazy.LazyIgnoreList, "whole", spy_whole)
    yield seen


def _fresh(compiles: list[str]) -> None:
    """Forget what the last run compiled: the next one reads its ignore files again."""
    compiles.clear()
    _rules._COMPILED.clear()
    _lazy._LAZY.clear()


def _tree(git_bin: str, files: dict[str, bytes], dirs: list[str]) -> Path:
    root = Path(tempfile.mkdtemp(prefix="pg-lazy-cli-"))
    git_init(git_bin, root)
    write_tree(root, files, dirs)
    return root


@SETTINGS
@given(trees(), st.booleans())
def test_few_paths_read_huge_ignore_files_lazily_and_equal_git(
        git_bin: str, compiles: list[str], tree: tuple[dict[str, bytes], list[str]], fold: bool) -> None:
    files, dirs = _padded(tree[0]), tree[1]
    root = _tree(git_bin, files, dirs)
    try:
        queries = _queries(files, dirs)[-_check_ignore.LAZY_PATHS:]  # (the specials are last)
        git_cfg = ["core.ignoreCase=true"] if fold else []
        ours = ["--ignore-case"] if fold else []
        for args in (["-v", "-n"], []):
            expected = git_check_ignore(git_bin, root, [*args, *queries], config=git_cfg)
            _fresh(compiles)
            assert pathgate_check_ignore(root, [*ours, *args, *queries]) == expected
            assert compiles and set(compiles) == {"lazy"}  # (each huge file read line by line)
        payload = stdin_payload(queries)
        expected = git_check_ignore(git_bin, root, ["-v", "-n", "--stdin"], payload, git_cfg)
        _fresh(compiles)
        assert pathgate_check_ignore(root, [*ours, "-v", "-n", "--stdin"], payload) == expected
        assert set(compiles) == {"lazy"}
        # a trickle past the bound: lazy first, then compiled whole midway
        payload = stdin_payload([*queries, *reversed(queries), *queries])
        expected = git_check_ignore(git_bin, root, ["-v", "-n", "--stdin"], payload, git_cfg)
        assert _trickled(root, [*ours, "-v", "-n", "--stdin"], payload) == expected
    finally:
        shutil.rmtree(root)


def test_many_paths_compile_whole_up_front(git_bin: str, compiles: list[str]) -> None:
    """More than ``LAZY_PATHS`` arguments, or a first ``--stdin`` read of more records: the
    huge file is compiled whole at once (no scans first); a trickle switches after the bound."""
    files = {".gitignore": FILLER + b"*.log\n!keep.log\nbuild/\n", "src/.gitignore": FILLER + b"/gen*\n"}
    files.update({f"src/f{i}.log": b"" for i in range(40)})
    files.update({"keep.log": b"", "build/x": b"", "src/gen1/y": b""})
    root = _tree(git_bin, files, [])
    try:
        queries = [*sorted(files), *(f"src/d{i}/x{i}.log" for i in range(40)), "build/", "src/gen1/"]
        assert len(queries) > _check_ignore.LAZY_PATHS
        expected = git_check_ignore(git_bin, root, ["-v", "-n", *queries])
        _fresh(compiles)
        assert pathgate_check_ignore(root, ["-v", "-n", *queries]) == expected
        assert compiles == ["whole", "whole"]
        payload = stdin_payload(queries)
        expected = git_check_ignore(git_bin, root, ["-v", "-n", "--stdin"], payload)
        _fresh(compiles)
        assert pathgate_check_ignore(root, ["-v", "-n", "--stdin"], payload) == expected
        assert compiles == ["whole", "whole"]
        _fresh(compiles)
        assert _trickled(root, ["-v", "-n", "--stdin"], payload) == expected
        assert compiles == ["lazy", "lazy", "settled", "settled"]
        _fresh(compiles)
        assert pathgate_check_ignore(root, ["-v", "-n", *queries[:10]]) == \
            git_check_ignore(git_bin, root, ["-v", "-n", *queries[:10]])
        assert compiles == ["lazy", "lazy"]
    finally:
        shutil.rmtree(root)


def test_a_lazy_stdin_stays_a_coprocess(git_bin: str, compiles: list[str]) -> None:
    """Records read one at a time are answered one at a time (each batch flushed), lazily."""
    files = {".gitignore": FILLER + b"*.log\n", "a.log": b"", "b.txt": b""}
    root = _tree(git_bin, files, [])
    try:
        payload = stdin_payload(["a.log", "b.txt", "a.log"])
        _fresh(compiles)
        assert _trickled(root, ["-v", "-n", "--stdin"], payload) == \
            git_check_ignore(git_bin, root, ["-v", "-n", "--stdin"], payload)
        assert compiles == ["lazy"]
    finally:
        shutil.rmtree(root)
