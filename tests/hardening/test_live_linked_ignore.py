"""The live index and an ignore file edited through another hard link of it.

inotify reports a write to the watch on the directory of the name written through, so an
edit of ``shared/rules`` that is also ``sub/.gitignore`` sends ``sub/``'s watch nothing;
the live index kept deciding ``sub/`` by the old rules while a plain runtime (and git)
used the new ones. Directories holding ignore files are validated by ``stat`` at every
query, as a walk validates them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from pathgate import Runtime
from tests._gitinit import git_init

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only")


def _git_kept(root: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "ls-files", "-o", "--exclude-standard"],
                         capture_output=True, text=True, check=True).stdout
    return sorted(out.splitlines())


@pytest.mark.parametrize("linked_after_scan", [False, True])
def test_edit_through_another_hard_link(tmp_path: Path, linked_after_scan: bool) -> None:
    git_init(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("# nothing yet\n")
    if not linked_after_scan:
        os.link(tmp_path / "sub" / ".gitignore", tmp_path / "shared" / "rules")
    (tmp_path / "sub" / "debug.log").write_text("x\n")
    (tmp_path / "sub" / "app.py").write_text("y\n")

    async def main() -> tuple[list[str], list[str]]:
        live, plain = Runtime(tmp_path, live_index=True), Runtime(tmp_path)
        try:
            first = sorted((await live.glob("**")).matches)
            assert "sub/debug.log" in first
            if linked_after_scan:
                os.link(tmp_path / "sub" / ".gitignore", tmp_path / "shared" / "rules")
                await live.glob("**")
            with open(tmp_path / "shared" / "rules", "a") as f:  # in place, through the other name
                f.write("*.log\n")
            return sorted((await live.glob("**")).matches), sorted((await plain.glob("**")).matches)
        finally:
            await live.aclose()
            await plain.aclose()

    live_after, plain_after = anyio.run(main)
    assert "sub/debug.log" not in _git_kept(tmp_path)
    assert live_after == plain_after
    assert "sub/debug.log" not in live_after
