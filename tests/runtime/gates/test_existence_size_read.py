from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate.config import SizeRule
from tests.runtime.gates._tree import BACKENDS, SeamFS, read_one, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "outside-secret").write_text("NEVER")
    root = write_tree(
        tmp_path / "root",
        {
            "a.txt": "hello\n",
            "dir/x": "x\n",
            "big.txt": "x" * 2000,
            "bin.dat": b"PK\x00\x01",
            "latin1.txt": "caf\xe9".encode("latin-1"),
            "empty": b"",
            "other.txt": "OTHER CONTENT\n",
        },
    )
    os.mkfifo(root / "fifo")
    return root


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
@pytest.mark.parametrize(
    ("path", "status", "gate"),
    [
        ("missing.txt", Status.FILE_DOES_NOT_EXIST, Gate.EXISTENCE),
        ("a.txt/child", Status.FILE_DOES_NOT_EXIST, Gate.EXISTENCE),
        ("dir", Status.NOT_A_FILE, Gate.EXISTENCE),
        (".", Status.NOT_A_FILE, Gate.EXISTENCE),
        ("fifo", Status.NOT_A_FILE, Gate.EXISTENCE),
        ("big.txt", Status.FILE_TOO_LARGE, Gate.SIZE),
        ("bin.dat", Status.BINARY_FILE, Gate.READ),
        ("latin1.txt", Status.BINARY_FILE, Gate.READ),
    ],
)
async def test_outcomes(tree: Path, path: str, status: Status, gate: Gate, fs_backend: str) -> None:
    r = await read_one(tree, path, size_limit=1000, fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert (r.verdict.status, r.verdict.gate, r.verdict.opaque) == (status, gate, False)


@pytest.mark.anyio
async def test_size_verdict_facts(tree: Path) -> None:
    v = (await read_one(tree, "big.txt", size_limit=1000)).verdict
    assert v is not None and v.size == 2000 and v.limit == 1000 and v.exists is True


@pytest.mark.anyio
async def test_size_limit_boundary_and_empty(tree: Path) -> None:
    assert (await read_one(tree, "big.txt", size_limit=2000)).content == "x" * 2000
    assert (await read_one(tree, "empty")).content == ""


@pytest.mark.anyio
async def test_per_model_size_limit(tree: Path) -> None:
    rt = Runtime(tree, Policy(model_size_limits=(SizeRule(model="tiny-*", limit=100),)))
    (small,) = await rt.read_files(["big.txt"], model="tiny-1")
    (large,) = await rt.read_files(["big.txt"], model="gpt-5")
    assert small.verdict is not None and small.verdict.limit == 100
    assert large.content == "x" * 2000


@pytest.mark.anyio
async def test_permission_denied_through_the_seam(tree: Path) -> None:
    class Denied(SeamFS):
        def open_fd(self, path: str, dir_fd: int | None = None) -> int:
            if path.endswith("a.txt"):
                raise PermissionError(13, "Permission denied", path)
            return super().open_fd(path, dir_fd)

    v = (await read_one(tree, "a.txt", fs=Denied())).verdict
    assert v is not None and v.status is Status.FILE_READ_ERROR and v.gate is Gate.READ
    assert v.detail == "EACCES"


@pytest.mark.anyio
async def test_io_error_through_the_seam(tree: Path) -> None:
    class Broken(SeamFS):
        def read_fd(self, fd: int, n: int) -> bytes:
            raise OSError(5, "Input/output error")

    v = (await read_one(tree, "a.txt", fs=Broken())).verdict
    assert v is not None and v.status is Status.FILE_READ_ERROR and v.detail == "EIO"


# --- swaps between check and read: never unapproved content --------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_swap_for_another_file(tree: Path, fs_backend: str) -> None:
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "a.txt")
    fs.before_open[target] = lambda: os.replace(tree / "other.txt", tree / "a.txt")
    r = await read_one(tree, "a.txt", fs=fs, fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert r.verdict.status is Status.FILE_READ_ERROR and r.verdict.detail == "CHANGED"


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_swap_for_a_symlink_to_outside(tree: Path, fs_backend: str) -> None:
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "a.txt")

    def swap() -> None:
        os.unlink(target)
        os.symlink(tree.parent / "outside-secret", target)

    fs.before_open[target] = swap
    r = await read_one(tree, "a.txt", fs=fs, fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert r.verdict.status is Status.FILE_READ_ERROR and r.verdict.detail == "ELOOP"


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_swap_parent_directory_for_a_symlink(tree: Path, fs_backend: str) -> None:
    outside = tree.parent / "evil"
    outside.mkdir()
    (outside / "x").write_text("NEVER")
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "dir", "x")

    def swap() -> None:
        os.rename(tree / "dir", tree / "dir.old")
        os.symlink(outside, tree / "dir")

    fs.before_open[target] = swap
    r = await read_one(tree, "dir/x", fs=fs, fs_backend=fs_backend)
    # the open goes through the directory descriptor taken before the swap: the approved
    # file (now dir.old/x, still inside the root) or a verdict — never the outside file
    assert r.content in ("x\n", None)
    assert r.content is not None or r.verdict is not None


@pytest.mark.anyio
async def test_deleted_between_check_and_read(tree: Path) -> None:
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "a.txt")
    fs.before_open[target] = lambda: os.unlink(target)
    v = (await read_one(tree, "a.txt", fs=fs)).verdict
    assert v is not None and v.status is Status.FILE_DOES_NOT_EXIST


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_grown_between_check_and_read(tree: Path, fs_backend: str) -> None:
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "a.txt")
    fs.after_fstat[target] = lambda: (tree / "a.txt").write_text("y" * 5000)
    r = await read_one(tree, "a.txt", fs=fs, size_limit=1000, fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert r.verdict.status is Status.FILE_TOO_LARGE and r.verdict.size is not None
    assert r.verdict.size > 1000


@pytest.mark.anyio
async def test_grown_to_a_directory(tree: Path) -> None:
    fs = SeamFS()
    target = os.path.join(os.path.realpath(tree), "a.txt")

    def swap() -> None:
        os.unlink(target)
        os.mkdir(target)

    fs.before_open[target] = swap
    v = (await read_one(tree, "a.txt", fs=fs)).verdict
    assert v is not None and v.status is Status.NOT_A_FILE


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_directory_swapped_during_resolution_is_not_followed(tree: Path, fs_backend: str) -> None:
    """The parent becomes a symlink to outside right before the final lstat, so resolution
    approves the *outside* file's identity; the open walks from the root without following
    symlinks and fails instead of reading it."""
    outside = tree.parent / "evil2"
    outside.mkdir()
    (outside / "x").write_text("NEVER")
    real = os.path.realpath(tree)

    class Racy(SeamFS):
        swapped = False

        def lstat(self, path: str) -> os.stat_result:
            if path == f"{real}/dir/x" and not self.swapped:
                self.swapped = True
                os.rename(tree / "dir", tree / "dir.old")
                os.symlink(outside, tree / "dir")
            return super().lstat(path)

    r = await read_one(tree, "dir/x", fs=Racy(), fs_backend=fs_backend)
    assert r.content is None and r.verdict is not None
    assert r.verdict.status in (Status.FILE_READ_ERROR, Status.FILE_DOES_NOT_EXIST)
