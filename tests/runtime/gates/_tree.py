"""Tree builders and filesystem-seam doubles shared by the gate and read_files tests."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from pathgate import FileResult, Policy, Runtime
from pathgate.runtime.fs import OsFS


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write ``files`` (relpath -> text/bytes) under ``root``; ``"-> target"`` makes a symlink."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str) and data.startswith("-> "):
            path.symlink_to(data[3:])
        elif rel.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


class SeamFS(OsFS):
    """The real filesystem plus hooks: count opens, fail ignore-file reads, act before open."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.unreadable: set[str] = set()
        self.before_open: dict[str, Callable[[], None]] = {}
        self.after_fstat: dict[str, Callable[[], None]] = {}
        self._fd_paths: dict[int, str] = {}

    def read_bytes(self, path: str) -> bytes:
        if path in self.unreadable:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return super().read_bytes(path)

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        full = path if dir_fd is None else os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        self.opened.append(full)
        hook = self.before_open.pop(full, None)
        if hook is not None:
            hook()
        fd = super().open_fd(path, dir_fd)
        self._fd_paths[fd] = full
        return fd

    def fstat(self, fd: int) -> os.stat_result:
        st = super().fstat(fd)
        hook = self.after_fstat.pop(self._fd_paths.get(fd, ""), None)
        if hook is not None:
            hook()
        return st

    def close(self, fd: int) -> None:
        self._fd_paths.pop(fd, None)
        super().close(fd)


BACKENDS = ("thread", "aiofiles")


async def read_one(root: Path, path: str, *, fs: OsFS | None = None, **policy: object) -> FileResult:
    """Read one path through a fresh runtime with ``Policy(**policy)``."""
    runtime = Runtime(root, Policy(**policy), fs=fs)  # type: ignore[arg-type]
    (result,) = await runtime.read_files([path])
    return result


def count_hops(monkeypatch: pytest.MonkeyPatch) -> list[Callable[..., Any]]:
    """Record every ``anyio.to_thread.run_sync`` hop (the function handed over) from now on."""
    hops: list[Callable[..., Any]] = []
    real = anyio.to_thread.run_sync

    async def counting(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        hops.append(fn)
        return await real(fn, *args, **kw)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting)
    return hops
