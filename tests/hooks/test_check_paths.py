"""``Runtime.check_paths``: the path-only gates, no file opened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pathgate import Gate, Policy, Runtime, Status, ToolArgumentError
from pathgate.runtime.fs import OsFS


class CountingFS(OsFS):
    """Counts every descriptor opened for reading."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    def open_fd(self, *args: Any, **kwargs: Any) -> Any:
        self.opened.append(str(args[:2]))
        return super().open_fd(*args, **kwargs)


async def test_check_paths_decides_without_opening(anyio_backend: str, tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build/out.js").write_text("x\n")
    (tmp_path / ".env").write_text("K=1\n")
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "big.txt").write_text("x" * 100)
    fs = CountingFS()
    rt = Runtime(tmp_path, policy=Policy(size_limit=10), fs=fs)
    paths = ["a.py", "build/out.js", ".env", "missing.txt", "build", "big.txt", "../x", "a.py"]
    verdicts = await rt.check_paths(paths)
    assert [v is None for v in verdicts] == [True, False, False, True, False, True, False, True]
    ignore, secret, outside = verdicts[1], verdicts[2], verdicts[6]
    assert ignore is not None and ignore.gate is Gate.IGNORE and ignore.remedy is not None
    assert secret is not None and secret.opaque and secret.status is Status.BLOCKED
    assert outside is not None and outside.status is Status.FILE_OUTSIDE_PROJECT
    assert fs.opened == []
    await rt.read_files(["a.py"])
    assert fs.opened  # the counter sees reads: check_paths really opened nothing
    assert await rt.check_paths([]) == []
    with pytest.raises(ToolArgumentError):
        await rt.check_paths("a.py")
    with pytest.raises(ToolArgumentError):
        await rt.check_paths(["a.py"], purpose="write")  # type: ignore[arg-type]
