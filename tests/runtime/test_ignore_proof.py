"""The directory proof of the read route (``IgnoreSession._down_held``, ``DirNode.proof``):
a directory the call holds open is validated by one ``fstat`` equal to the signature the
index's anchors recorded; every change a read-after-write promise covers is still seen."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Runtime
from pathgate.runtime.fs import is_local_tree
from tests.runtime.gates._tree import write_tree

DEEP = "a/b/c/d/f.txt"


async def _old_runtime(tmp_path: Path) -> tuple[Runtime, Path]:
    root = write_tree(tmp_path / "root", {DEEP: "eff\n", "a/b/g.txt": "gee\n", ".gitignore": "*.log\n"})
    if not is_local_tree(str(root)):
        pytest.skip("not a local filesystem")
    rt = Runtime(root, Policy())
    rt.index._wall_ns = lambda: time.time_ns() + 60 * 10**9  # every directory old enough
    for _ in range(3):  # the second call records the proofs, the third uses them
        assert (await rt.read_files([DEEP]))[0].verdict is None
    return rt, root


def _proven(rt: Runtime) -> set[str]:
    return {rel for rel, node in rt.index._nodes.items() if node.proof is not None}


@pytest.mark.anyio
async def test_warm_directories_carry_a_proof(tmp_path: Path) -> None:
    rt, _root = await _old_runtime(tmp_path)
    assert {"", "a", "a/b", "a/b/c", "a/b/c/d"} <= _proven(rt)
    root_proof = rt.index._nodes[""].proof
    assert root_proof is not None and [name for name, _ in root_proof[1]] == [".gitignore"]


@pytest.mark.anyio
@pytest.mark.parametrize("where", ["", "a/", "a/b/c/", "a/b/c/d/"])
async def test_an_ignore_file_created_at_any_level_is_seen(tmp_path: Path, where: str) -> None:
    rt, root = await _old_runtime(tmp_path)
    rule = DEEP[len(where):] if where else DEEP
    path = root / f"{where}.pathgateignore"
    path.write_text(f"{rule}\n")
    v = (await rt.read_files([DEEP]))[0].verdict
    assert v is not None and v.gate is Gate.IGNORE
    path.unlink()
    assert (await rt.read_files([DEEP]))[0].verdict is None


@pytest.mark.anyio
async def test_a_present_file_edited_in_place_is_seen(tmp_path: Path) -> None:
    """An in-place write leaves the directory's signature as it was: the present file's
    own ``lstat`` (its ctime) tells, even with its size and mtime put back."""
    rt, root = await _old_runtime(tmp_path)
    gi = root / ".gitignore"
    st = gi.stat()
    dir_before = os.stat(root)
    with open(gi, "r+b") as f:  # same size, in place
        f.write(b"*.txt\n")
    os.utime(gi, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(root).st_mtime_ns == dir_before.st_mtime_ns
    v = (await rt.read_files([DEEP]))[0].verdict
    assert v is not None and v.gate is Gate.IGNORE


@pytest.mark.anyio
async def test_a_renamed_directory_in_place_is_not_trusted(tmp_path: Path) -> None:
    """A directory swapped for another of the same name (its ignore file included) is a
    different inode: the proof does not hold, the new one's rules apply."""
    rt, root = await _old_runtime(tmp_path)
    new = root / "a" / "b" / "c2"
    (new / "d").mkdir(parents=True)
    (new / "d" / "f.txt").write_text("eff\n")
    (new / ".pathgateignore").write_text("d/f.txt\n")
    os.rename(root / "a" / "b" / "c", root / "a" / "b" / "c_old")
    os.rename(new, root / "a" / "b" / "c")
    v = (await rt.read_files([DEEP]))[0].verdict
    assert v is not None and v.gate is Gate.IGNORE


@pytest.mark.anyio
async def test_young_directories_get_no_proof(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "root", {DEEP: "eff\n"})
    rt = Runtime(root, Policy())
    rt.index._wall_ns = lambda: 0  # every directory is racily young
    for _ in range(3):
        assert (await rt.read_files([DEEP]))[0].verdict is None
    assert not _proven(rt)
    (root / "a" / "b" / ".gitignore").write_text("c/\n")
    v = (await rt.read_files([DEEP]))[0].verdict
    assert v is not None and v.gate is Gate.IGNORE
