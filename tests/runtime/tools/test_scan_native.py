"""The scanner and the walker on the real filesystem's calls (bound to ``os`` without the
``OsFS`` methods): the same anchoring, the same answers as through a seam."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate.runtime import _walk
from pathgate.runtime.fs import PATH_MAX, OsFS
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from pathgate.runtime.tools import _scan
from pathgate.runtime.tools._regex import compile_regex
from tests.runtime.tools._scans import drain


class _Seam(OsFS):
    """OsFS through its methods (any subclass is called as given, not bound to ``os``)."""


def _scan_all(ops: OsFS, root: Path, files: list[str], pattern: str = "needle") -> _scan.Scanner:
    sc = _scan.Scanner(ops, str(root), files, compile_regex(pattern), search_limit=1 << 20)
    drain(sc)
    return sc


def _hostile(tmp_path: Path) -> tuple[Path, list[str]]:
    """A tree whose walked names were swapped after the walk: a file and a directory
    replaced by symlinks to an outside directory full of needles."""
    root, out = tmp_path / "r", tmp_path / "outside"
    (root / "d").mkdir(parents=True)
    out.mkdir()
    (out / "f.txt").write_text("needle outside\n")
    (root / "ok.txt").write_text("a\nneedle\n")
    (root / "f.txt").symlink_to(out / "f.txt")  # was a file when walked
    (root / "d").rmdir()
    (root / "d").symlink_to(out)  # was a directory when walked
    return root, ["d/f.txt", "f.txt", "ok.txt"]


@pytest.mark.parametrize("ops", [OsFS(), _Seam()], ids=["native", "seam"])
def test_swapped_names_are_never_followed(tmp_path: Path, ops: OsFS) -> None:
    root, files = _hostile(tmp_path)
    sc = _scan_all(ops, root, files)
    assert [(h.path, h.line) for h in sc.hits] == [("ok.txt", 2)]
    assert (sc.binary, sc.too_large, sc.unreadable) == (0, 0, 2)
    assert sc.dirs.open_count == 0


class _LyingFS(OsFS):
    """fstat reports ``delta`` bytes more (or fewer) than the file holds: it changed size
    between fstat and read."""

    def __init__(self, delta: int) -> None:
        self.delta = delta

    def fstat(self, fd: int) -> os.stat_result:
        st = os.fstat(fd)
        fields = list(st)
        fields[6] = max(0, st.st_size + self.delta)  # st_size
        return os.stat_result(fields)


@pytest.mark.parametrize("delta", [-5000, -1, 1, 7000])
def test_a_file_changing_size_after_fstat_is_read_to_its_end(tmp_path: Path, delta: int) -> None:
    lines = [f"line {i}" + (" needle" if i % 97 == 0 else "") for i in range(1000)]
    (tmp_path / "f.txt").write_text("\n".join(lines) + "\n")
    size = (tmp_path / "f.txt").stat().st_size
    assert size + delta < 64 << 10  # the first region: read whole, not streamed
    sc = _scan_all(_LyingFS(delta), tmp_path, ["f.txt"])
    assert [h.line for h in sc.hits] == [i + 1 for i in range(0, 1000, 97)]
    assert (sc.binary, sc.too_large, sc.unreadable) == (0, 0, 0)


def test_a_file_grown_past_the_cap_after_fstat_is_too_large(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_bytes(b"needle\n" * 400)
    sc = _scan.Scanner(_LyingFS(-2000), str(tmp_path), ["f.txt"], compile_regex("needle"),
                       search_limit=1000)
    drain(sc)
    assert sc.hits == [] and sc.too_large == 1


def _random_tree(root: Path, seed: int) -> None:
    rng = random.Random(seed)
    dirs = [root]
    for i in range(120):
        parent = rng.choice(dirs)
        if rng.random() < 0.35:
            d = parent / f"d{i}"
            d.mkdir()
            dirs.append(d)
        else:
            (parent / rng.choice([f"f{i}.txt", f"g{i}.log", ".gitignore"])).write_text(
                rng.choice(["*.log\n", "d1*/\n", "!g3.log\n", "x\n"]))
    (dirs[-1] / "base.txt").write_text("x")
    os.link(dirs[-1] / "base.txt", root / "hard.txt")  # marked (links=True) in both walks
    (root / "sym").symlink_to(dirs[-1])


@pytest.mark.parametrize("seed", range(4))
def test_walker_native_equals_seam(tmp_path: Path, seed: int) -> None:
    _random_tree(tmp_path, seed)
    got = []
    for fs in (OsFS(), _Seam()):
        index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"), fs=fs)
        w = _walk.Walker(index.session(), links=True, max_open=2)
        entries: list[_walk.Entry] = []
        try:
            while chunk := w.step(7):
                entries.extend(chunk)
        finally:
            w.close()
        assert w.open_fds == 0
        got.append([(e.relpath, e.kind, e.match, e.error,
                     None if e.links is None else (e.links.st_ino, e.links.st_nlink)) for e in entries])
    assert got[0] == got[1]
    assert ("hard.txt", _walk.FILE, None, None, ((tmp_path / "hard.txt").stat().st_ino, 2)) in got[0]
    assert len(got[0]) > 60


@settings(max_examples=300, deadline=None)
@given(root_len=st.integers(1, PATH_MAX), rel=st.text(st.characters(blacklist_categories=("Cs",)), max_size=1200)
       | st.text(st.sampled_from("a\udc80é€😀"), max_size=1200))
def test_path_length_shortcut_is_exact(root_len: int, rel: str) -> None:
    exact = root_len + 1 + len(os.fsencode(rel)) > PATH_MAX
    assert _walk._too_long(root_len, rel) == exact


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("budget", [5, 40, 10_000])
def test_list_files_below_native_equals_seam(tmp_path: Path, seed: int, budget: int) -> None:
    _random_tree(tmp_path, seed)
    errors: list[list[tuple[str, str]]] = [[], []]
    got = [_walk.list_files_below(fs, str(tmp_path), "", budget,
                                  on_error=lambda rel, err, i=i: errors[i].append((rel, err)))
           for i, fs in enumerate((OsFS(), _Seam()))]
    assert got[0] == got[1] and errors[0] == errors[1]
    files, seen, short = got[0]
    assert short == (budget < 60) and seen <= budget
    assert ("sym", _walk.SYMLINK) in files or short  # never followed, listed as a symlink
