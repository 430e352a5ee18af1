"""Git runs hooks and configured commands from the top of the work tree.

With the runtime's root below the top (``root = top/sub``, an agent started in one package
of a monorepo), a hook line ``sh sub/tools/x.sh`` names ``sub/tools/x.sh`` relative to the
top: read from the root it named ``sub/sub/tools/x.sh`` and left the script writable. Now
hook scripts and git's command-valued configuration are read from the top, and what they
name is kept where it can name a file inside the root.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.hardening._write_env import git_project, writable

pytestmark = pytest.mark.anyio


@pytest.fixture
def top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {f"sub/tools/{n}": "exit 0\n" for n in ("a.sh", "b.sh", "c.sh",
                                                                                         "d.sh", "free.sh")}
                       | {"sub/notes.md": "# n\n", "tools/a.sh": "exit 0\n"})


def _hook(top: Path, body: str) -> None:
    path = top / ".git" / "hooks" / "pre-commit"
    path.write_text(body)
    path.chmod(0o755)


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths)


async def test_a_hook_line_relative_to_the_top_names_a_script_in_the_root(anyio_backend: str, top: Path) -> None:
    _hook(top, '#!/bin/sh\nsh sub/tools/a.sh\n"$(git rev-parse --show-toplevel)/sub/tools/b.sh"\n'
               "cd sub && ./tools/c.sh\n")
    got = await _writable(top / "sub", "tools/a.sh", "tools/b.sh", "tools/c.sh", "tools/free.sh", "notes.md")
    assert got == {"tools/a.sh": False, "tools/b.sh": False, "tools/c.sh": False, "tools/free.sh": True,
                   "notes.md": True}


async def test_a_configured_command_relative_to_the_top_names_a_script_in_the_root(
        anyio_backend: str, top: Path) -> None:
    subprocess.run(["git", "-C", str(top), "config", "alias.lint", "!sh sub/tools/d.sh"], check=True)
    got = await _writable(top / "sub", "tools/d.sh", "tools/free.sh")
    assert got == {"tools/d.sh": False, "tools/free.sh": True}


async def test_a_hook_running_a_directory_above_the_root_leaves_nothing_in_it_writable(
        anyio_backend: str, top: Path) -> None:
    """``python3 sub`` runs ``sub/__main__.py`` and what it imports: the whole root counts."""
    _hook(top, "#!/bin/sh\npython3 sub\n")
    assert await _writable(top / "sub", "notes.md") == {"notes.md": False}


async def test_the_same_hook_from_the_top_is_read_as_before(anyio_backend: str, top: Path) -> None:
    _hook(top, "#!/bin/sh\nsh tools/a.sh\n")
    assert await _writable(top, "tools/a.sh", "sub/tools/a.sh") == {"tools/a.sh": False, "sub/tools/a.sh": True}
    assert await _writable(top / "sub", "tools/a.sh") == {"tools/a.sh": True}


async def test_a_python_hook_that_changes_directory_names_the_script_there(anyio_backend: str, top: Path) -> None:
    _hook(top, '#!/usr/bin/env python3\nimport os, subprocess\nos.chdir("sub/tools")\n'
               'subprocess.run(["sh", "a.sh"])\nsubprocess.run(["./b.sh"], cwd="sub/tools")\n')
    got = await _writable(top, "sub/tools/a.sh", "sub/tools/b.sh", "sub/tools/free.sh")
    assert got == {"sub/tools/a.sh": False, "sub/tools/b.sh": False, "sub/tools/free.sh": True}
