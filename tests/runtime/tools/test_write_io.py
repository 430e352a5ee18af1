"""Write I/O: atomic replace on descriptors, mode kept, nothing half-written, nothing left behind."""

from __future__ import annotations

import errno
import os
import random
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import pytest

from pathgate import Gate, Status, ToolArgumentError
from pathgate.runtime.tools import _write_io
from tests.runtime.tools._writes import make_rt, snapshot, temp_files, write_tree

pytestmark = pytest.mark.anyio

#: The calls of _write_io that touch the filesystem (a fault or a cancellation may hit any).
SYSCALLS = ("open", "mkdir", "read", "write", "fsync", "fstat", "fchmod", "link", "replace", "unlink",
            "stat")


class FaultyOS:
    """``os`` for _write_io, calling ``hook(name)`` before every filesystem call."""

    def __init__(self, hook: Callable[[str], None]) -> None:
        self._hook = hook
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name not in SYSCALLS:
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            self._hook(name)
            return real(*args, **kwargs)

        return call


async def test_overwrite_keeps_mode_and_leaves_no_temp(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"run.sh": "echo old\n"})
    os.chmod(root / "run.sh", 0o751)
    ino = (root / "run.sh").stat().st_ino
    rt = make_rt(root)
    await rt.read_files(["run.sh"])
    result = await rt.write_file("run.sh", "echo new\n")
    assert result.ok and not result.created and result.size == 9
    st = (root / "run.sh").stat()
    assert stat.S_IMODE(st.st_mode) == 0o751 and st.st_ino != ino  # replaced, not written in place
    assert (root / "run.sh").read_text() == "echo new\n" and not temp_files(root)


async def test_new_file_and_parent_directories(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "a"})
    rt = make_rt(root)
    result = await rt.write_file("new/deep/dir/b.txt", "hello")
    assert result.ok and result.created and result.relpath == "new/deep/dir/b.txt"
    assert (root / "new/deep/dir/b.txt").read_text() == "hello"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((root / "new/deep/dir/b.txt").stat().st_mode) == 0o666 & ~umask
    assert not temp_files(root)


async def test_edit_replaces_one_or_all(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.py": "x = 1\ny = 1\nz = 2\n"})
    rt = make_rt(root)
    await rt.read_files(["a.py"])
    result = await rt.edit_file("a.py", "z = 2", "z = 3")
    assert result.ok and result.replacements == 1
    result = await rt.edit_file("a.py", "= 1", "= 0", replace_all=True)
    assert result.ok and result.replacements == 2
    assert (root / "a.py").read_text() == "x = 0\ny = 0\nz = 3\n"


async def test_edit_errors_name_the_argument_and_what_to_do(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.py": "x = 1\nx = 1\n"})
    rt = make_rt(root)
    await rt.read_files(["a.py"])
    with pytest.raises(ToolArgumentError) as info:
        await rt.edit_file("a.py", "nothing like this", "y")
    assert info.value.field == "old_string" and "not found" in str(info.value)
    with pytest.raises(ToolArgumentError) as info:
        await rt.edit_file("a.py", "x = 1", "y")
    assert info.value.field == "old_string" and "found 2 times" in str(info.value)
    assert "replace_all" in str(info.value)
    out = await rt.call("edit_file", {"path": "a.py", "old_string": "x = 1", "new_string": "y"})
    assert out["field"] == "old_string" and "found 2 times" in out["error"]
    assert (root / "a.py").read_text() == "x = 1\nx = 1\n" and not temp_files(root)


async def test_edit_binary_file_is_refused(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"b.bin": b"ab\x00cd", "t.txt": "ab"})
    rt = make_rt(root, require_read_before_write=False)
    result = await rt.edit_file("b.bin", "ab", "x")
    assert result.verdict is not None and result.verdict.status is Status.BINARY_FILE
    assert (root / "b.bin").read_bytes() == b"ab\x00cd"


async def test_edit_through_a_hard_link_is_opaque(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {".env": "SECRET=hunter2\n"})
    os.link(root / ".env", root / "innocent.txt")
    rt = make_rt(root, require_read_before_write=False)
    result = await rt.edit_file("innocent.txt", "SECRET", "LEAK")
    assert result.verdict is not None and result.verdict.opaque
    # a file sharing its inode with a secret is a secret (SPEC §2): never writable either
    replaced = await rt.write_file("innocent.txt", "plain\n")
    assert replaced.verdict is not None and replaced.verdict.opaque
    assert (root / ".env").read_text() == "SECRET=hunter2\n"
    assert os.stat(root / "innocent.txt").st_ino == os.stat(root / ".env").st_ino


async def test_symlink_target_is_written_at_its_real_path(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"real/a.txt": "old", "alias": "-> real"})
    rt = make_rt(root)
    await rt.read_files(["alias/a.txt"])
    result = await rt.write_file("alias/a.txt", "new")
    assert result.ok and result.relpath == "real/a.txt"
    assert os.path.islink(root / "alias") and (root / "real/a.txt").read_text() == "new"


async def test_target_swapped_after_the_gates_is_refused(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "old", "other.txt": "other"})
    rt = make_rt(root, require_read_before_write=False)
    real_commit = _write_io.commit

    def swap_then_commit(plan: Any, transform: Any, cancelled: Any = None) -> Any:
        os.replace(root / "other.txt", root / "a.txt")  # another file takes the approved name
        return real_commit(plan, transform, cancelled)

    from pathgate.runtime.tools import write_file as wf

    orig = wf.commit
    wf.commit = swap_then_commit  # type: ignore[assignment]
    try:
        result = await rt.write_file("a.txt", "new")
    finally:
        wf.commit = orig  # type: ignore[assignment]
    assert result.verdict is not None and result.verdict.status is Status.FILE_CHANGED_SINCE_READ
    assert (root / "a.txt").read_text() == "other" and not temp_files(root)


def _points(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> int:
    """How many filesystem calls one full edit makes (each is a point to fail or cancel at)."""
    root = write_tree(tmp_path / "count", {"a.txt": "one two\n"})
    faulty = FaultyOS(lambda name: None)
    monkeypatch.setattr(_write_io, "os", faulty)
    plan = _write_io.WritePlan(root=str(root), relpath="new/a.txt", identity=None, read_limit=100,
                               write_limit=100, check_version=False, expected=None, must_exist=False)
    assert _write_io.commit(plan, lambda old: ("x", 0)).status is None
    monkeypatch.undo()
    return len(faulty.calls)


@pytest.mark.parametrize("tool", ["write_file", "edit_file", "create"])
async def test_failure_at_every_point_leaves_old_content_and_no_temp(
        anyio_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str) -> None:
    n = _points(monkeypatch, tmp_path) + 8
    for k in range(n):
        root = write_tree(tmp_path / f"{tool}{k}", {"a.txt": "one two\n"})
        rt = make_rt(root, require_read_before_write=False)
        before = snapshot(root)
        count = [0]
        committed = [False]

        def hook(name: str, k: int = k, count: list[int] = count, committed: list[bool] = committed) -> None:
            count[0] += 1
            if count[0] == k + 1:
                raise OSError(errno.ENOSPC, "injected")
            if name in ("replace", "link"):
                committed[0] = True

        monkeypatch.setattr(_write_io, "os", FaultyOS(hook))
        if tool == "write_file":
            result = await rt.write_file("a.txt", "new\n")
        elif tool == "edit_file":
            result = await rt.edit_file("a.txt", "one", "ONE")
        else:
            result = await rt.write_file("d1/d2/new.txt", "new\n")
        monkeypatch.undo()
        assert not temp_files(root), k
        if result.ok:
            # the fault point was never reached, or came after the commit (the directory fsync,
            # the temporary name's unlink after link): the new content is whole
            assert count[0] <= k or committed[0], k
        else:
            assert result.verdict is not None and result.verdict.status is Status.FILE_WRITE_ERROR
            assert result.verdict.gate is Gate.WRITE and result.verdict.detail == "ENOSPC"
            assert snapshot(root) == before, k  # created directories removed too


@pytest.mark.parametrize("tool", ["write_file", "edit_file", "create"])
async def test_cancellation_at_every_point_leaves_old_or_new_and_no_temp(
        anyio_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str) -> None:
    n = _points(monkeypatch, tmp_path) + 8
    rng = random.Random(18)
    for k in [*sorted(rng.sample(range(n), min(n, 12))), 0, n - 1]:
        root = write_tree(tmp_path / f"c{tool}{k}", {"a.txt": "one two\n"})
        rt = make_rt(root, require_read_before_write=False)
        before = snapshot(root)
        count = [0]
        early = [False]  # cancelled before the temporary file was complete
        synced = [False]
        with anyio.CancelScope() as scope:

            def hook(name: str, k: int = k, scope: anyio.CancelScope = scope, count: list[int] = count,
                     early: list[bool] = early, synced: list[bool] = synced) -> None:
                count[0] += 1
                if count[0] == k + 1:
                    early[0] = not synced[0]
                    anyio.from_thread.run_sync(scope.cancel)
                if name == "fsync":
                    synced[0] = True

            monkeypatch.setattr(_write_io, "os", FaultyOS(hook))
            if tool == "write_file":
                await rt.write_file("a.txt", "new\n")
            elif tool == "edit_file":
                await rt.edit_file("a.txt", "one", "ONE")
            else:
                await rt.write_file("d1/d2/new.txt", "new\n")
        monkeypatch.undo()
        assert not temp_files(root), k
        after = snapshot(root)
        if scope.cancelled_caught and early[0]:
            assert after == before, k  # cancelled before the commit point: untouched
        # otherwise old or new, never half: every changed entry is whole new content
        changed = {p: v for p, v in after.items() if before.get(p) != v}
        assert all(v in (b"new\n", b"ONE two\n", "/") for v in changed.values()), k
        if not scope.cancelled_caught:
            assert changed, k
