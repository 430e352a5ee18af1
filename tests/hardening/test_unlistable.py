"""Nothing disappears silently: unlistable and unnameable directories (issue 13)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from tests.hardening._faultfs import FaultFS


class LockedFS(FaultFS):
    """Everything below ``locked/`` answers EACCES, as for a non-root user without search
    permission on it (root ignores chmod, so the seam stands in)."""

    def __init__(self, locked: str) -> None:
        super().__init__()
        self.locked = locked.rstrip("/") + "/"

    def _check(self, op: str, path: str) -> None:
        if path.startswith(self.locked) or (op in ("open_dir", "scandir") and path + "/" == self.locked):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES), path)
        super()._check(op, path)


def _tree(root: Path) -> None:
    (root / "locked").mkdir(parents=True)
    (root / "locked" / "a.txt").write_text("hidden\n")
    (root / "open").mkdir()
    (root / "open" / "b.txt").write_text("b\n")


def test_unlistable_directory_is_named_and_reads_name_the_cause(tmp_path: Path) -> None:
    root = tmp_path / "p"
    _tree(root)
    fs = LockedFS(str(root / "locked"))

    async def main() -> None:
        rt = Runtime(root, policy=Policy(), fs=fs)  # type: ignore[arg-type]
        glob = await rt.call("glob", {"pattern": "**/*"})
        assert "open/b.txt" in glob["matches"]
        assert "locked/ not searched: permission denied" in glob["notes"]
        search = await rt.call("code_search", {"regex": "hidden"})
        assert "locked/ not searched: permission denied" in search["notes"]
        read = await rt.call("read_files", {"paths": ["locked/a.txt"]}, renderer="verbose")
        text = json.dumps(read)
        assert ".gitignore" not in text and "ignore file" not in text, text
        assert "EACCES" in text or "ermission" in text, text

    anyio.run(main)


def test_secret_unlistable_directory_is_not_named(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".env.d").mkdir(parents=True)
    (root / "x.txt").write_text("x\n")
    fs = LockedFS(str(root / ".env.d"))

    async def main() -> None:
        rt = Runtime(root, policy=Policy(), fs=fs)  # type: ignore[arg-type]
        out = await rt.call("glob", {"pattern": "**/*"})
        assert ".env" not in json.dumps(out)

    anyio.run(main)


def test_path_past_path_max_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    name = "d" * 200
    depth = 0
    try:  # build below PATH_MAX by descriptors (paths past it cannot be spelled)
        while len(str(root)) + depth * 201 < 4300:
            os.mkdir(name, dir_fd=fd)
            nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nfd
            depth += 1
        wfd = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.close(wfd)
    finally:
        os.close(fd)

    async def main() -> None:
        rt = Runtime(root, policy=Policy())
        out = await rt.call("glob", {"pattern": "**/*"})
        assert any(n.endswith("not searched: its path is too long to open") for n in out["notes"]), out["notes"]

    try:
        anyio.run(main)
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)


NON_ROOT = """
import anyio, json, sys
from pathgate import Policy, Runtime
async def main():
    rt = Runtime(sys.argv[1], policy=Policy())
    print(json.dumps([await rt.call("glob", {"pattern": "**/*"}),
                      await rt.call("read_files", {"paths": ["locked/a.txt"]}, renderer="verbose")]))
anyio.run(main)
"""


@pytest.mark.skipif(os.geteuid() != 0 or not hasattr(os, "setuid"), reason="needs root to drop to nobody")
def test_as_a_non_root_user(tmp_path: Path) -> None:
    """The real thing: chmod 000 as the ``nobody`` user (root ignores chmod)."""
    base = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        base.chmod(0o755)
        root = base / "p"
        _tree(root)
        for p in (root, root / "open", root / "locked"):
            p.chmod(0o755)
        for f in (root / "open" / "b.txt", root / "locked" / "a.txt"):
            f.chmod(0o644)
        (root / "locked").chmod(0o000)
        src = str(Path(__file__).resolve().parents[2] / "src")
        try:
            proc = subprocess.run([sys.executable, "-c", NON_ROOT, str(root)], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": src, "HOME": str(base)},
                                  user=65534, group=65534, timeout=120)
        except PermissionError:
            pytest.skip("the interpreter is not executable as nobody")
        if proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr:
            pytest.skip("dependencies not importable as nobody")
        assert proc.returncode == 0, proc.stderr
        glob, read = json.loads(proc.stdout)
        assert "locked/ not searched: permission denied" in glob["notes"], glob
        assert ".gitignore" not in json.dumps(read), read
    finally:
        (base / "p" / "locked").chmod(0o755) if (base / "p" / "locked").exists() else None
        shutil.rmtree(base, ignore_errors=True)
