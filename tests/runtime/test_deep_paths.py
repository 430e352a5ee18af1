"""Deep paths cost linear work: the ignore session's validation (``_descent``) and the path
resolution (``_resolve._Cursor``) reach each level from its parent's descriptor; answers equal
the by-path ones (and git's)."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pathgate.runtime.fs import OsFS, _resolve, drive_sync, resolve_flow
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex, _descent
from tests.oracle._git import GIT_ENV, git_init

DEPTH = 60
LEVELS = _descent.DEEP  # (read once: a test patches the module's)
GIT_ONLY = IgnoreConfig.git_only(excludes_file="/dev/null")


def chain(depth: int, name: str = "d") -> str:
    return "/".join([name] * depth)


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``d/d/…`` 60 levels with ignore files at levels 20 and 40 (anchored and not), a
    symlinked directory at level 30 (``l`` -> ``d``), a file in place of a directory."""
    root = tmp_path_factory.mktemp("deep") / "p"
    leaf = root / chain(DEPTH)
    leaf.mkdir(parents=True)
    (root / chain(20) / ".gitignore").write_text("*.log\n/d/d/x.txt\n!keep.log\nsub/\n")
    (root / chain(40) / ".gitignore").write_text("keep.log\n*.tmp\n!d/d/d/a.tmp\n")
    (root / chain(30) / "l").symlink_to("d")
    (root / chain(25) / "f").write_text("not a directory\n")
    for k in (10, 22, 35, 41, 43, 44, 59, 60):
        base = root / chain(k)
        for name in ("x.txt", "a.log", "keep.log", "a.tmp", "b.tmp"):
            (base / name).write_text("x\n")
        (base / "sub").mkdir(exist_ok=True)
    return root


def probes() -> Iterator[tuple[str, bool]]:
    for k in (10, 20, 22, 23, 35, 41, 43, 44, 59, 60):
        base = chain(k)
        for name in ("x.txt", "a.log", "keep.log", "a.tmp", "b.tmp"):
            yield f"{base}/{name}", False
        yield f"{base}/sub", True
    yield chain(31) + "/l/d/a.log", False  # below the symlinked directory
    yield chain(25) + "/f/x.txt", False    # below a file


def decisions(root: Path) -> list[tuple[bool, object]]:
    s = IgnoreIndex(root, GIT_ONLY).session()
    out = []
    for rel, is_dir in probes():
        m = s.match(rel, is_dir)
        out.append((m.ignored, m.rule))
    return out


def test_descent_answers_equal_the_paths(deep: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = decisions(deep)
    monkeypatch.setattr(_descent, "DEEP", 10**9)  # every level by path, as before
    assert decisions(deep) == fast


def test_descent_answers_equal_git(deep: Path, git_bin: str, tmp_path: Path) -> None:
    git_init(git_bin, deep) if not (deep / ".git").exists() else None
    paths = [rel for rel, _ in probes() if "/l/" not in rel and "/f/" not in rel]
    proc = subprocess.run([git_bin, "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index",
                           "--stdin"], cwd=deep, input="".join(p + "\n" for p in paths).encode(),
                          capture_output=True, env=GIT_ENV, check=False)
    assert proc.returncode in (0, 1)
    git = set(proc.stdout.decode().split())
    s = IgnoreIndex(deep, GIT_ONLY).session()
    assert {p for p in paths if s.match(p).ignored} == git
    assert git  # (the oracle ignores some of them)


def test_a_deep_validation_walks_each_level_once(deep: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The components the kernel walks for by-path ``lstat`` calls stay linear in the depth
    (by path at every level: ~2 * 60 * 61 / 2 = 3,660 for a 60-level chain)."""
    walked = [0]
    real = os.lstat

    def counting(path: object, *a: object, **kw: object) -> os.stat_result:
        if kw.get("dir_fd") is None and isinstance(path, str):
            walked[0] += path.count("/")
        return real(path, *a, **kw)  # type: ignore[arg-type]

    index = IgnoreIndex(deep, GIT_ONLY)
    index.session().dir_node(chain(DEPTH))
    monkeypatch.setattr(os, "lstat", counting)
    walked[0] = 0
    index.session().dir_node(chain(DEPTH))  # validation of a cached chain
    base = str(deep).count("/")
    assert walked[0] <= 2 * LEVELS * (base + LEVELS)
    assert index.session().match(chain(DEPTH) + "/b.tmp").ignored


def test_descent_falls_back_past_path_max(tmp_path: Path) -> None:
    """Past PATH_MAX by path, a directory's ignore files cannot be looked at: the same
    answer as before (fail closed), not a descriptor's."""
    root = tmp_path / "p"
    root.mkdir()
    name = "n" * 200
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(25):  # 25 * 201 bytes: past 4,096
            os.mkdir(name, dir_fd=fd)
            nfd = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        os.close(os.open("x.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    rel = "/".join([name] * 25) + "/x.txt"
    fast = IgnoreIndex(root, GIT_ONLY).session().match(rel, False)
    assert fast.fail_closed


# -- the resolution's cursor ------------------------------------------------------------------


class _ByPath:
    """The real filesystem behind a seam the driver does not recognise: every ``lstat`` by
    path, as before the cursor."""

    def lstat(self, path: str) -> os.stat_result:
        return os.lstat(path)

    def readlink(self, path: str) -> str:
        return os.readlink(path)


def _requests() -> list[str]:
    return [
        chain(DEPTH) + "/x.txt",
        chain(DEPTH) + "/missing/more",
        chain(30) + "/l/d/d/a.log",           # through a relative symlink
        chain(30) + "/l/../d/d",              # .. after a symlink: taken on the real path
        chain(25) + "/f/x.txt",               # a file where a directory should be
        chain(59) + "/../../" + chain(3),
        chain(DEPTH) + "/" + "/".join([".."] * 70) + "/out",  # escapes
        chain(DEPTH - 1),
    ]


@pytest.mark.parametrize("allow_outside", [False, True])
def test_cursor_resolution_equals_by_path(deep: Path, allow_outside: bool,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = os.path.realpath(deep)
    monkeypatch.setattr(_resolve, "DEEP_CHARS", len(root) + 8)  # the cursor from level 4 on
    for req in _requests():
        fast = drive_sync(resolve_flow(root, req, allow_outside=allow_outside), OsFS())
        slow = drive_sync(resolve_flow(root, req, allow_outside=allow_outside), _ByPath())  # type: ignore[arg-type]
        assert fast == slow, req


def test_cursor_refuses_a_swapped_directory(tmp_path: Path) -> None:
    """A directory replaced between its ``lstat`` and the open is not held: the next
    component goes by path."""
    (tmp_path / "a").mkdir()
    c = _resolve._Cursor()
    st = os.lstat(tmp_path / "a")
    (tmp_path / "a").rename(tmp_path / "b")
    (tmp_path / "a").mkdir()
    c._hold(str(tmp_path / "a"), str(tmp_path / "a"), st, None)
    assert c.path is None and c.fd == -1


def test_cursor_lstat_errors_as_by_path(tmp_path: Path) -> None:
    deepdir = tmp_path / chain(520)
    deepdir.mkdir(parents=True)
    c = _resolve._Cursor()
    parent = str(deepdir)
    assert len(parent) >= _resolve.DEEP_CHARS
    c.lstat(parent, os.lstat)
    assert c.path == parent and c.fd >= 0
    with pytest.raises(OSError) as got:
        c.lstat(parent + "/nothing", os.lstat)
    assert got.value.errno == errno.ENOENT and c.fd == -1
    c.drop()


@pytest.mark.parametrize("rel", [
    chain(30) + "/" + chain(300, "nothing") + "/x.txt",    # missing below a real level
    chain(25) + "/f/" + chain(40) + "/x.txt",              # below a file
    "/".join(["abcdefghi"] * 3000) + "/x.txt",             # missing, past PATH_MAX
    chain(DEPTH) + "/" + "/".join(["n" * 200] * 30) + "/x",  # real, then missing past PATH_MAX
])
def test_descent_answers_for_missing_and_long_spellings(deep: Path, rel: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    fast = IgnoreIndex(deep, GIT_ONLY).session().match(rel, False)
    monkeypatch.setattr(_descent, "DEEP", 10**9)
    assert IgnoreIndex(deep, GIT_ONLY).session().match(rel, False) == fast


def test_descent_out_of_order_and_held(deep: Path) -> None:
    """Asked off its chain, or given a held descriptor, the descent still answers each
    directory with a descriptor of that very directory."""
    root = os.path.realpath(deep)
    held_fd = os.open(os.path.join(root, chain(20)), os.O_RDONLY | os.O_DIRECTORY)
    try:
        levels = [chain(k) for k in range(18, 40)]
        d = _descent.Descent(root, lambda rel: held_fd if rel == chain(20) else None, 10, levels)
        for rel in [*levels[:5], chain(45), levels[5], chain(35), chain(36), levels[20]]:
            fd = d(rel)
            if fd is not None:
                assert os.fstat(fd).st_ino == os.stat(os.path.join(root, rel)).st_ino, rel
        assert d(chain(16)) is not None and d(chain(3)) is None  # (shallow: by path)
        d.close()
    finally:
        os.close(held_fd)
