from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate import Gate, Status
from tests.runtime.gates._tree import BACKENDS, read_one, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.txt").write_text("outside content")
    (tmp_path / "out" / "d").mkdir()
    (tmp_path / "out" / "d" / "f").write_text("outside dir content")
    return write_tree(
        tmp_path / "root",
        {
            "a.txt": "inside\n",
            "sub/b.txt": "b\n",
            "to_file": "-> ../out/secret.txt",
            "to_dir": "-> ../out/d",
            "chain1": "-> chain2",
            "chain2": "-> to_file",
            "dangling_out": "-> ../out/missing",
            "loop_a": "-> loop_b",
            "loop_b": "-> loop_a",
            "sub/up": "-> ../..",
            "in_link": "-> sub/b.txt",
        },
    )


OUTSIDE = [
    ("", "empty"),
    ("a\x00.txt", "nul"),
    ("../out/secret.txt", "escape"),
    ("..", "escape"),
    ("a.txt/../../out/secret.txt", "escape"),
    ("sub/../../out/secret.txt", "escape"),
    ("to_file", "symlink"),
    ("to_dir/f", "symlink"),
    ("chain1", "symlink"),
    ("dangling_out", "symlink"),
    ("loop_a", "loop"),
    ("sub/up/out/secret.txt", "symlink"),
]


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
@pytest.mark.parametrize(("path", "detail"), OUTSIDE)
async def test_outside(tree: Path, path: str, detail: str, fs_backend: str) -> None:
    r = await read_one(tree, path, fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert r.verdict.status is Status.FILE_OUTSIDE_PROJECT
    assert r.verdict.gate is Gate.PATH and not r.verdict.opaque
    assert r.verdict.detail == detail
    assert r.relpath is None  # the outside target is not echoed


@pytest.mark.anyio
async def test_absolute_outside(tree: Path) -> None:
    r = await read_one(tree, str(tree.parent / "out" / "secret.txt"))
    assert r.verdict is not None and r.verdict.status is Status.FILE_OUTSIDE_PROJECT
    assert r.verdict.detail == "absolute"


@pytest.mark.anyio
@pytest.mark.parametrize("path", ["a.txt", "./a.txt", "sub/../a.txt", "in_link/../../root/a.txt"])
async def test_inside_spellings(tree: Path, path: str) -> None:
    r = await read_one(tree, path)
    if path.startswith("in_link"):
        # in_link is sub/b.txt, a file: ENOTDIR, and the lexical rest (root/root/a.txt) is missing
        assert r.verdict is not None and r.verdict.status is Status.FILE_DOES_NOT_EXIST
    else:
        assert r.content == "inside\n" and r.relpath == "a.txt"


@pytest.mark.anyio
async def test_absolute_inside_and_inside_symlink(tree: Path) -> None:
    r = await read_one(tree, str(tree / "a.txt"))
    assert r.content == "inside\n" and r.relpath == "a.txt"
    r = await read_one(tree, "in_link")
    assert r.content == "b\n" and r.relpath == "sub/b.txt"


@pytest.mark.anyio
async def test_allow_outside_root(tree: Path) -> None:
    r = await read_one(tree, "to_file", allow_outside_root=True)
    assert r.content == "outside content"
    assert r.relpath == os.path.realpath(tree.parent / "out" / "secret.txt")
    # empty and NUL are refused even then
    r = await read_one(tree, "", allow_outside_root=True)
    assert r.verdict is not None and r.verdict.status is Status.FILE_OUTSIDE_PROJECT


@pytest.mark.anyio
@pytest.mark.parametrize(
    "path",
    [
        "x" * 300,  # one component over NAME_MAX
        "/".join(["d"] * 3000),  # over PATH_MAX
        "a/" * 16_000,  # very long, many components (within a call's bound: red team 19 K2)
    ],
)
async def test_very_long_is_a_verdict(tree: Path, path: str) -> None:
    r = await read_one(tree, path)
    assert r.verdict is not None and r.verdict.status is Status.FILE_DOES_NOT_EXIST
    assert r.verdict.detail == "ENAMETOOLONG"


@pytest.mark.anyio
async def test_unencodable_name_is_a_verdict(tree: Path) -> None:
    r = await read_one(tree, "bad\ud800.txt")
    assert r.verdict is not None and r.verdict.status is Status.FILE_DOES_NOT_EXIST


@pytest.mark.anyio
async def test_windows_style_names_are_names(tree: Path) -> None:
    r = await read_one(tree, "..\\..\\out\\secret.txt")
    assert r.verdict is not None and r.verdict.status is Status.FILE_DOES_NOT_EXIST
