"""Red-team passes 16 and 17: what a repository (or a tool argument) could make one write cost.

Found: the paths git hook scripts name were resolved one by one on every write (4,000 paths
400 levels deep: 10-15 s a write, G3); shell globs and paths outside the root named by agent
settings likewise (G8); a write 400 levels deep took every directory on the way as a base,
each base's hook directories resolved from the root (O(depth²): 6-17 s, G5). Each is now
bounded: past the bound nothing is writable (the guard's answer for what it cannot check).
The bounds are lowered here so the trees stay small; what is asserted is the answer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hardening._write_env import claude_hook, git_project
from tests.runtime.tools._writes import make_rt, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch)


async def _writable(root: Path, path: str) -> bool:
    async with make_rt(root, require_read_before_write=False) as rt:
        return (await rt.write_file(path, "x = 1\n")).ok


def _hooks(root: Path, lines: dict[str, str]) -> None:
    for name, text in lines.items():
        hook = root / ".git" / "hooks" / name
        hook.write_text("#!/bin/sh\n" + text)
        hook.chmod(0o755)


async def test_hook_scripts_past_their_total_size_leave_nothing_writable(
        anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.tools import _git_hooks

    write_tree(env, {"src/app.py": "x\n"})
    _hooks(env, {"pre-commit": "sh tools/a.sh\n", "pre-push": "sh tools/b.sh\n"})
    assert await _writable(env, "src/app.py") and not await _writable(env, "tools/b.sh")
    monkeypatch.setattr(_git_hooks, "_MAX_SCRIPTS", 40)  # the two scripts hold 50 characters
    _git_hooks._cache.clear()
    assert not await _writable(env, "src/new.py")


async def test_hook_named_paths_past_their_components_leave_nothing_writable(
        anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.tools import _git_hooks

    deep = "/".join(["a"] * 30)
    _hooks(env, {"pre-commit": "".join(f"sh {deep}/x{i}.sh\n" for i in range(20))})
    assert await _writable(env, "src/new.py") and not await _writable(env, f"{deep}/x3.sh")
    monkeypatch.setattr(_git_hooks, "_MAX_NAMED_COMPONENTS", 300)
    _git_hooks._cache.clear()
    assert not await _writable(env, "src/other.py")


async def test_hook_named_paths_are_resolved_once_not_per_write(
        anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The named paths are indexed with the parse: later writes resolve none of them (no
    link on the way), and a path reached through a link is still named."""
    from pathgate.runtime.tools import _named_index

    _hooks(env, {"pre-commit": "".join(f"sh tools/x{i}.sh\n" for i in range(50))})
    os.symlink("tools", env / "scripts")
    assert not await _writable(env, "tools/x7.sh")
    calls: list[str] = []
    real = _named_index.realpath

    def counted(path: str) -> str | None:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(_named_index, "realpath", counted)
    assert await _writable(env, "src/a.py") and await _writable(env, "src/b.py")
    assert not [c for c in calls if "/tools/x" in c]  # none of the hook's named paths
    assert not await _writable(env, "scripts/x9.sh")  # the same file by its link


async def test_globs_outside_paths_past_their_components_leave_nothing_writable(
        anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.tools import _named_index

    deep = "/".join(["a"] * 20)
    write_tree(env, claude_hook(*(f"python3 {deep}/x{i}*.py" for i in range(30))))
    assert await _writable(env, "src/new.py") and not await _writable(env, f"{deep}/x3_b.py")
    monkeypatch.setattr(_named_index, "MAX_LOOSE_COMPONENTS", 200)
    assert not await _writable(env, "src/other.py")


def test_the_root_named_with_everything_below_names_every_path(tmp_path: Path) -> None:
    from pathgate.runtime.tools._named_index import NamedIndex

    r = str(tmp_path)
    index = NamedIndex([(r, True)], r)
    assert index.names(f"{r}/a/b.py") and index.names(f"{r}/x")
    assert not NamedIndex([(r, False)], r).names(f"{r}/x")


async def test_a_write_past_the_depth_bound_is_refused(anyio_backend: str, env: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.tools import _agent_commands

    monkeypatch.setattr(_agent_commands, "MAX_DEPTH", 8)
    write_tree(env, {"/".join(["d"] * 8) + "/ok.py": "x\n", "/".join(["d"] * 9) + "/deep.py": "x\n"})
    assert await _writable(env, "/".join(["d"] * 8) + "/ok.py")
    assert not await _writable(env, "/".join(["d"] * 9) + "/deep.py")
    assert not await _writable(env, "/".join(["e"] * 9) + "/new.py")  # missing directories too


async def test_settings_below_a_missing_directory_are_not_looked_for(
        anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bases end at the first directory that does not exist: the settings of the ones
    that do still count."""
    from pathgate.runtime.tools import _agent_commands

    write_tree(env, claude_hook("sh tools/x.sh", at="pkg/.claude/settings.json"))
    seen: list[str] = []
    real = _agent_commands._named

    def spy(base: str, root: str, *rest: object) -> object:
        seen.append(os.path.relpath(base, root))
        return real(base, root, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(_agent_commands, "_named", spy)
    assert not await _writable(env, "pkg/tools/x.sh")
    seen.clear()
    assert await _writable(env, "pkg/new/a/b/c.py")
    assert seen == [".", "pkg"]


# red team 17 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["sh lnk/../scripts/deploy.sh", "sh ./lnk/../scripts/deploy.sh",
                                     "cd lnk && sh ../scripts/deploy.sh"])
async def test_a_dotdot_after_a_link_names_what_the_shell_runs(anyio_backend: str, env: Path, command: str) -> None:
    """The shell resolves ``lnk`` before its ``..`` (H11): ``lnk -> sub/dir`` makes
    ``lnk/../scripts/deploy.sh`` the file ``sub/scripts/deploy.sh``."""
    write_tree(env, {"sub/dir/x": "x\n", "sub/scripts/deploy.sh": "echo\n", "scripts/deploy.sh": "echo\n",
                     **claude_hook(command)})
    os.symlink("sub/dir", env / "lnk")
    assert not await _writable(env, "sub/scripts/deploy.sh")
    assert await _writable(env, "src/other.py")


async def test_a_named_glob_with_too_many_brackets_leaves_nothing_writable(anyio_backend: str, env: Path) -> None:
    """The standard library's glob matching is quadratic in unclosed brackets (H10)."""
    from pathgate.runtime.tools._named_index import MAX_GLOB_BRACKETS

    write_tree(env, claude_hook("sh " + "[a]" * MAX_GLOB_BRACKETS + "x.sh"))
    assert await _writable(env, "src/a.py")
    write_tree(env, claude_hook("sh " + "[" * (MAX_GLOB_BRACKETS + 1) + "x.sh"))
    assert not await _writable(env, "src/b.py")


async def test_the_loose_bound_counts_every_base_of_a_write(anyio_backend: str, env: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each directory on the way is a base with its own settings (H3): their globs and
    outside paths count together."""
    from pathgate.runtime.tools import _agent_commands

    for i in range(4):
        at = f"{'/'.join(['d'] * i)}/.claude/settings.json".lstrip("/")
        write_tree(env, claude_hook(*(f"sh a/b/c/x{j}*.sh" for j in range(10)), at=at))
    deep = "/".join(["d"] * 3) + "/new.py"
    assert await _writable(env, deep)
    root = os.path.realpath(env)
    one = _agent_commands._named(root, root).loose  # the root's settings alone
    monkeypatch.setattr(_agent_commands, "MAX_LOOSE_COMPONENTS", one + 1)
    assert not await _writable(env, deep)  # four bases' globs together
    assert await _writable(env, "new.py")  # the root's alone


def test_hook_brace_groups_are_bounded() -> None:
    """Too many brace groups are not judged (H2), and a group's alternatives are counted
    before they are built (H6)."""
    from pathgate._hooks import _core

    assert _core._unjudged("{" * (_core._MAX_BRACKETS + 1) + "a" + "}" * (_core._MAX_BRACKETS + 1))
    assert not _core._unjudged("{a,b}/{c,d}")
    assert _core.expand_braces("x" * 1000 + "{" + "a," * 5000 + "}") is None
    assert sorted(_core.expand_braces("{a,b}{c,d}") or []) == ["ac", "ad", "bc", "bd"]


async def test_few_search_patterns_are_kept(anyio_backend: str, tmp_path: Path) -> None:
    """A kept regex holds its engine's lazy automaton (H1): only a few are kept."""
    from pathgate import Runtime
    from pathgate.runtime.tools import _compiled, code_search

    (tmp_path / "a.txt").write_text("ab\n")
    _compiled._KEPT.clear()
    rt = Runtime(tmp_path)
    for i in range(_compiled.KEPT_SEARCHES + 5):
        await rt.code_search(f"a{i}|b")
    kept = [k for k in _compiled._KEPT if k[0] is code_search._compile]
    assert len(kept) == _compiled.KEPT_SEARCHES and kept[-1][1] == f"a{_compiled.KEPT_SEARCHES + 4}|b"
