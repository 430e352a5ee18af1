"""An agent's writes cannot loosen the rules it runs under (red-team findings).

* A deeper ``.gitignore`` is read after the agent ignore files above it, so a ``!`` line in
  it would re-include what ``.pathgateignore`` hides: a write or edit that *adds* a negation
  to a ``.gitignore`` is refused (existing negations may stay; exclusions may be added).
* The root ``pyproject.toml`` is a policy file while it declares pathgate settings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import Gate, Status, ToolArgumentError
from pathgate.runtime.tools._write_rules import added_negations
from tests.runtime.tools._writes import make_rt, write_tree

pytestmark = pytest.mark.anyio


def test_added_negations() -> None:
    assert added_negations(None, "a\n!b\n !c\n!b\n") == ["!b"]
    assert added_negations("!keep\n", "x\n!keep\n") == []
    assert added_negations("!keep\n", "!keep  \n!new\n") == ["!new"]


async def test_a_nested_gitignore_cannot_re_include_what_the_agent_file_hides(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".pathgateignore": "*.private\n", "sub/x.private": "PRIVATE\n"})
    rt = make_rt(root)
    assert (await rt.read_files(["sub/x.private"]))[0].verdict is not None
    with pytest.raises(ToolArgumentError) as err:
        await rt.write_file("sub/.gitignore", "!*.private\n")
    assert err.value.field == "content" and "`!*.private`" in str(err.value)
    assert not (root / "sub/.gitignore").exists()
    assert (await rt.read_files(["sub/x.private"]))[0].verdict is not None


async def test_an_edit_adding_a_negation_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".gitignore": "build/\n!keep.txt\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError) as err:
        await rt.edit_file(".gitignore", "build/", "build/\n!build/out")
    assert err.value.field == "new_string"
    assert (root / ".gitignore").read_text() == "build/\n!keep.txt\n"
    # exclusions may be added, and an existing negation may stay
    result = await rt.edit_file(".gitignore", "build/", "build/\ndist/")
    assert result.verdict is None
    assert (root / ".gitignore").read_text() == "build/\ndist/\n!keep.txt\n"
    result = await rt.write_file(".gitignore", "!keep.txt\nnode_modules/\n")
    assert result.verdict is None


async def test_pyproject_declaring_pathgate_is_a_policy_file(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"})
    rt = make_rt(root, require_read_before_write=False)
    assert (await rt.write_file("pyproject.toml", "[project]\nname = 'y'\n")).verdict is None
    (root / "pyproject.toml").write_text("[tool.pathgate]\nsize_limit = 100\n")
    result = await rt.write_file("pyproject.toml", "[project]\n")
    assert result.verdict is not None and result.verdict.gate is Gate.WRITE
    assert result.verdict.status is Status.BLOCKED and not result.verdict.opaque
    assert (root / "pyproject.toml").read_text() == "[tool.pathgate]\nsize_limit = 100\n"
    # a nested pyproject.toml is not read as configuration
    assert (await rt.write_file("pkg/pyproject.toml", "[tool.pathgate]\n")).verdict is None


async def test_a_bom_does_not_hide_a_negation(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".pathgateignore": "secret.txt\n", "sub/secret.txt": "S\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError):
        await rt.write_file("sub/.gitignore", "\ufeff!secret.txt\n")
    assert (await rt.read_files(["sub/secret.txt"]))[0].verdict is not None


async def test_a_pyproject_may_not_gain_pathgate_settings(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"notes.txt": "x\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError) as err:
        await rt.write_file("pyproject.toml", '[tool.pathgate]\nagent_files = [".pathgateignore", "notes.txt"]\n')
    assert err.value.field == "content"
    assert not (root / "pyproject.toml").exists()
    assert (await rt.write_file("pyproject.toml", "[project]\nname = 'x'\n")).verdict is None
