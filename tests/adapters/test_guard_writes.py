"""The adapters' guard in write mode (red team 6, I2): a host's own write tool wrapped with
``writes=True`` gets the write gates — what the runtime's ``write_file`` refuses, the guard
refuses — and in read mode the guard answers as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.adapters._common import guard_arguments, guard_paths
from tests._gitinit import git_init

pytestmark = pytest.mark.anyio

NEVER = ["pathgate.toml", ".pathgateignore", ".claude/settings.json", ".mcp.json", ".git/hooks/pre-commit",
         "sub/.pathgateignore"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    git_init(tmp_path)
    (tmp_path / ".env").write_text("API_KEY=1\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("x\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    return tmp_path


async def test_write_mode_refuses_what_write_file_refuses(root: Path) -> None:
    rt = Runtime(root, Policy(allow_writes=True, require_read_before_write=False))
    for path in [*NEVER, ".env", "build/out.js", "../outside.txt"]:
        guarded = await guard_arguments(rt, {"path": path, "content": "x"}, writes=True, renderer="verbose")
        native = await rt.write_file(path, "x")
        assert native.verdict is not None, path
        assert path in guarded.blocked, path
        if native.verdict.opaque:
            assert guarded.blocked[path] == "[BLOCKED]", path
    for path in ["src/app.py", "src/new/mod.py"]:
        guarded = await guard_paths(rt, [path], writes=True)
        assert guarded.allowed, (path, guarded.blocked)
    assert not (root / "src/new").exists()  # the guard writes nothing


async def test_write_mode_needs_no_allow_writes_and_read_mode_is_unchanged(root: Path) -> None:
    rt = Runtime(root)  # read-only runtime: the host's own tool writes, pathgate only judges
    assert not (await guard_paths(rt, ["pathgate.toml"], writes=True)).allowed
    # read mode: reading pathgate.toml is fine (it is not a secret), writing it is not
    assert (await guard_paths(rt, ["pathgate.toml"])).allowed
    assert (await guard_paths(rt, [".env"])).blocked == {".env": "[BLOCKED]"}


async def test_what_the_path_alone_cannot_settle_is_refused(root: Path) -> None:
    """Red team 8, F2: whether a ``.gitignore`` or root ``pyproject.toml`` write loosens the
    rules depends on its text, which the guard does not see; a directory argument lets the
    host tool write anything below it."""
    (root / "sub").mkdir()
    rt = Runtime(root)
    for path in [".gitignore", "sub/.gitignore", "pyproject.toml", "PyProject.toml", ".", "sub", "src",
                 "sub/missing/..", ".claude/", "src/app.py/"]:  # red team 9, G5: spellings a tool may normalise
        assert path in (await guard_paths(rt, [path], writes=True)).blocked, path
    assert (await guard_paths(rt, ["sub/pyproject.toml", "src/app.py"], writes=True)).allowed
