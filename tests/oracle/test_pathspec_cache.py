"""The leading-symlink cache of ``pathgate._pathspec.Resolver`` (issue 19) answers like an
uncached walk, in any order, at any depth, and ``lstat``-s each directory once."""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path

import pytest

from pathgate import _pathspec
from pathgate._pathspec import PathspecError, Resolver


def _uncached(top: str, match: str) -> bool:
    comps = match.split("/")[:-1]
    cur = top
    for c in comps:
        cur += "/" + c
        try:
            mode = os.lstat(cur).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return True
        if not stat.S_ISDIR(mode):
            return False
    return False


def _tree(tmp: Path) -> list[str]:
    for d in ("a/b/c/d", "a/x/y", "k/l", "m"):
        (tmp / d).mkdir(parents=True)
    (tmp / "a" / "b" / "f").write_text("")
    (tmp / "a" / "b" / "lnk").symlink_to("c")
    (tmp / "top-lnk").symlink_to("a")
    (tmp / "k" / "l" / "dangling").symlink_to("nowhere")
    names = ["a", "b", "c", "d", "x", "y", "k", "l", "m", "f", "lnk", "top-lnk", "dangling", "zz"]
    rng = random.Random(7)
    return ["/".join(rng.choice(names) for _ in range(rng.randint(1, 6)))
            + rng.choice(["", "/"]) for _ in range(3000)]


def test_cached_answers_equal_an_uncached_walk(tmp_path: Path) -> None:
    paths = _tree(tmp_path)
    for order in range(3):
        random.Random(order).shuffle(paths)
        res = Resolver(str(tmp_path), str(tmp_path), env={})
        for p in paths:
            want = _uncached(str(tmp_path), p)
            if want:
                with pytest.raises(PathspecError, match="beyond a symbolic link"):
                    res.resolve(p)
            else:
                assert res.resolve(p) == p


def test_each_directory_is_lstat_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [p for p in _tree(tmp_path) if not _uncached(str(tmp_path), p)]
    calls: list[str] = []
    real = os.lstat

    def counting(path: str) -> os.stat_result:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(_pathspec.os, "lstat", counting)
    res = Resolver(str(tmp_path), str(tmp_path), env={})
    for p in paths * 2:
        res.resolve(p)
    assert len(calls) == len(set(calls)) > 0


def test_deep_paths_do_not_recurse(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 1500) + "/file"
    res = Resolver(str(tmp_path), str(tmp_path), env={})
    assert res.resolve(deep) == deep  # the first component is missing: no symlink
    os.makedirs(tmp_path / "d" / "d")
    (tmp_path / "d" / "d" / "d").symlink_to(".")
    assert Resolver(str(tmp_path), str(tmp_path), env={})._symlink_leading(deep)
