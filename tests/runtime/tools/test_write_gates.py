"""Every gate of write_file and edit_file: a blocked write is a verdict and touches nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from pathgate import ConfigError, Gate, Policy, Runtime, Status, ToolArgumentError
from pathgate.config import SizeRule
from pathgate.results import WriteResult
from tests.runtime.tools._writes import make_rt, snapshot, temp_files, write_tree

pytestmark = pytest.mark.anyio

Op = Callable[[Runtime, str], Awaitable[WriteResult]]


async def _write(rt: Runtime, path: str) -> WriteResult:
    return await rt.write_file(path, "PWNED\n")


async def _edit(rt: Runtime, path: str) -> WriteResult:
    return await rt.edit_file(path, "old", "PWNED")


OPS = {"write_file": _write, "edit_file": _edit}


@pytest.fixture(params=sorted(OPS))
def op(request: pytest.FixtureRequest) -> Op:
    return OPS[request.param]


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    outside = write_tree(tmp_path / "outside", {"victim.txt": "old\n"})
    root = write_tree(tmp_path / "proj", {
        "a.txt": "old\n",
        ".env": "old SECRET=1\n",
        ".env.example": "old\n",
        "keys/id_rsa": "old\n",
        ".gitignore": "build/\n*.log\n",
        "build/out.js": "old\n",
        "x.log": "old\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/hooks/README": "old\n",
        "sub/.git": "gitdir: ../gitdirs/sub\n",
        "gitdirs/sub/HEAD": "old\n",
        "gitdirs/sub/objects/": "",
        "gitdirs/sub/refs/": "",
        "bare.git/HEAD": "old\n",
        "bare.git/objects/": "",
        "bare.git/refs/heads/main": "old\n",
        "sub/code.py": "old\n",
        "out_link": f"-> {outside}",
        "victim_link.txt": f"-> {outside / 'victim.txt'}",
        "env_link.txt": "-> .env",
        "dot_env_dir_link": "-> .git",
    })
    return root, outside


async def _read_all(rt: Runtime, *paths: str) -> None:
    await rt.read_files(list(paths))


@pytest.mark.parametrize("path", [
    "../outside/victim.txt", "out_link/victim.txt", "victim_link.txt", "sub/../../outside/victim.txt",
])
async def test_no_escape(anyio_backend: str, op: Op, tree: tuple[Path, Path], path: str) -> None:
    root, outside = tree
    rt = make_rt(root)
    await _read_all(rt, path)
    before = snapshot(outside.parent)
    result = await op(rt, path)
    assert result.verdict is not None and result.verdict.status is Status.FILE_OUTSIDE_PROJECT
    assert result.verdict.gate is Gate.PATH
    assert snapshot(outside.parent) == before


async def test_absolute_path_outside_is_refused(anyio_backend: str, op: Op, tree: tuple[Path, Path]) -> None:
    root, outside = tree
    rt = make_rt(root, allow_outside_root=True)  # reads may go outside; writes never
    result = await op(rt, str(outside / "victim.txt"))
    assert result.verdict is not None and result.verdict.status is Status.FILE_OUTSIDE_PROJECT
    assert (outside / "victim.txt").read_text() == "old\n"


async def test_absolute_path_inside_is_fine(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root)
    await rt.read_files(["a.txt"])
    result = await rt.write_file(str(root / "a.txt"), "new\n")
    assert result.ok and result.relpath == "a.txt"
    assert (root / "a.txt").read_text() == "new\n"


@pytest.mark.parametrize("path", [
    ".git/hooks/pre-commit", ".git/HEAD", ".git/config", ".GIT/config", ".git./config", "a/.git/x",
    "sub/../.git/HEAD", ".git", "dot_env_dir_link/HEAD", "gitdirs/sub/HEAD", "gitdirs/sub/hooks/pre-commit",
    "bare.git/hooks/pre-commit", "bare.git/refs/heads/main",
])
async def test_git_internals_are_never_writable(anyio_backend: str, op: Op, tree: tuple[Path, Path],
                                                path: str) -> None:
    root, _ = tree
    rt = make_rt(root, allow_ignored_writes=True, require_read_before_write=False)
    before = snapshot(root)
    result = await op(rt, path)
    assert result.verdict is not None and result.verdict.opaque
    assert result.verdict.status is Status.BLOCKED and result.relpath is None
    assert snapshot(root) == before


@pytest.mark.parametrize("path", [".env", ".ENV", ".env.local", "keys/id_rsa", "env_link.txt", "new.pem",
                                  ".env/new.txt", "dir/.env"])
async def test_secrets_are_never_writable(anyio_backend: str, op: Op, tree: tuple[Path, Path],
                                          path: str) -> None:
    root, _ = tree
    rt = make_rt(root, enforce_secrets=False, require_read_before_write=False)
    before = snapshot(root)
    result = await op(rt, path)
    assert result.verdict is not None and result.verdict.opaque and result.verdict.status is Status.BLOCKED
    assert snapshot(root) == before


async def test_env_template_is_writable(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root)
    await rt.read_files([".env.example"])
    assert (await rt.edit_file(".env.example", "old", "new")).ok


async def test_host_filter_sees_writes(anyio_backend: str, op: Op, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    seen: list[tuple[str, str]] = []

    def host_filter(relpath: str, purpose: str = "read") -> bool:
        seen.append((relpath, purpose))
        return purpose == "read"

    rt = make_rt(root, host_filter=host_filter)
    reads = await rt.read_files(["a.txt"])
    assert reads[0].ok
    result = await op(rt, "a.txt")
    assert result.verdict is not None and result.verdict.opaque and result.verdict.gate is Gate.HOST_FILTER
    assert ("a.txt", "write") in seen and ("a.txt", "read") in seen
    assert (root / "a.txt").read_text() == "old\n"


async def test_one_argument_host_filter_decides_writes_too(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root, host_filter=lambda p: p != "a.txt", require_read_before_write=False)
    assert (await rt.write_file("a.txt", "x")).verdict.opaque  # type: ignore[union-attr]
    assert (await rt.write_file("b.txt", "x")).ok


async def test_host_gate_sees_the_write_purpose(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    from pathgate import Verdict
    from pathgate.runtime.gates import Fact, GateContext, PathFacts

    class NoWrites:
        name = "no_writes"
        needs = frozenset({Fact.NAME})

        def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
            if ctx.purpose == "write":
                return Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True)
            return None

    root, _ = tree
    rt = Runtime(root, Policy(allow_writes=True), gates=[NoWrites()])
    assert (await rt.read_files(["a.txt"]))[0].ok
    assert (await rt.write_file("a.txt", "x")).verdict.opaque  # type: ignore[union-attr]


@pytest.mark.parametrize("path", ["build/out.js", "x.log", "build/new/file.js", "node_modules/a.js"])
async def test_ignored_paths_are_blocked_and_explained(anyio_backend: str, op: Op, tree: tuple[Path, Path],
                                                       path: str) -> None:
    root, _ = tree
    for mode in ("block", "discovery"):
        rt = make_rt(root, ignore_mode=mode)
        await rt.read_files([path])
        before = snapshot(root)
        result = await op(rt, path)
        v = result.verdict
        assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.IGNORE and not v.opaque
        assert v.rule is not None and v.remedy is not None and v.remedy.lines
        assert snapshot(root) == before
        text = rt.renderer_for(name="verbose").render_verdict(path, v)
        assert "To unblock it, add these lines to `.pathgateignore`" in text


async def test_remedy_lines_do_unblock_the_write(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root)
    v = (await rt.write_file("build/out.js", "x")).verdict
    assert v is not None and v.remedy is not None
    (root / v.remedy.file).write_text("\n".join(v.remedy.lines) + "\n")
    await rt.read_files(["build/out.js"])
    assert (await rt.write_file("build/out.js", "new\n")).ok


async def test_allow_ignored_writes(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root, allow_ignored_writes=True)
    await rt.read_files(["build/out.js"])  # blocked: the agent cannot have read it
    assert (await rt.edit_file("build/out.js", "old", "new")).verdict.status is Status.FILE_NOT_READ  # type: ignore[union-attr]
    rt = make_rt(root, allow_ignored_writes=True, ignore_mode="discovery")
    assert (await rt.read_files(["build/out.js"]))[0].ok
    assert (await rt.edit_file("build/out.js", "old", "new")).ok
    assert (root / "build/out.js").read_text() == "new\n"
    assert (await rt.write_file(".git/x", "x")).verdict.opaque  # type: ignore[union-attr]


async def test_size_limits_per_model(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root, model_size_limits=(SizeRule("small*", 10),), require_read_before_write=False)
    big = "y" * 11
    result = await rt.write_file("a.txt", big, model="small-1")
    v = result.verdict
    assert v is not None and v.status is Status.FILE_TOO_LARGE and (v.size, v.limit) == (11, 10)
    assert (root / "a.txt").read_text() == "old\n"
    assert (await rt.write_file("a.txt", big, model="large")).ok
    rt2 = make_rt(root, write_size_limit=5, require_read_before_write=False)
    assert (await rt2.write_file("b.txt", "123456")).verdict.status is Status.FILE_TOO_LARGE  # type: ignore[union-attr]
    assert not (root / "b.txt").exists()
    # an existing file over the read limit cannot be edited
    assert (await rt.edit_file("a.txt", "y", "z", model="small-1")).verdict.status is Status.FILE_TOO_LARGE  # type: ignore[union-attr]


async def test_not_a_file_and_missing(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root, require_read_before_write=False)
    for tool in (rt.write_file("sub", "x"), rt.edit_file("sub", "a", "b"), rt.write_file(".", "x")):
        assert (await tool).verdict.status is Status.NOT_A_FILE  # type: ignore[union-attr]
    missing = await rt.edit_file("nope.txt", "a", "b")
    assert missing.verdict is not None and missing.verdict.status is Status.FILE_DOES_NOT_EXIST
    assert not (root / "nope.txt").exists()
    err = await rt.write_file("a.txt/child", "x")
    assert err.verdict is not None and err.verdict.status is Status.FILE_WRITE_ERROR


async def test_writes_are_off_by_default(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = Runtime(root)
    assert "write_file" not in rt.tools and "edit_file" not in rt.tools
    with pytest.raises(ConfigError) as info:
        await rt.write_file("a.txt", "x")
    assert info.value.key == "allow_writes"
    out = await rt.call("write_file", {"path": "a.txt", "content": "x"})
    assert out["error_type"] and "write_file" in out["error"]
    assert (root / "a.txt").read_text() == "old\n"
    assert "write_file" in Runtime(root, allow_writes=True).tools
    assert "edit_file" in Runtime(root, Policy(allow_writes=True)).tools


async def test_bad_arguments_name_the_field(anyio_backend: str, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    rt = make_rt(root)
    cases = [
        (rt.write_file(3, "x"), "path"),  # type: ignore[arg-type]
        (rt.write_file("a.txt", None), "content"),  # type: ignore[arg-type]
        (rt.write_file("a.txt", "\ud800"), "content"),
        (rt.write_file("dir/", "x"), "path"),
        (rt.edit_file("a.txt", "", "x"), "old_string"),
        (rt.edit_file("a.txt", "old", "old"), "new_string"),
        (rt.edit_file("a.txt", "old", "x", replace_all="yes"), "replace_all"),  # type: ignore[arg-type]
    ]
    for coro, field in cases:
        with pytest.raises(ToolArgumentError) as info:
            await coro
        assert info.value.field == field and f"`{field}`" in str(info.value)
    out = await rt.call("edit_file", {"path": "a.txt", "old_string": "old"})
    assert out["field"] == "new_string"
    assert snapshot(root)["a.txt"] == b"old\n" and not temp_files(root)



@pytest.mark.parametrize("path", ["pathgate.toml", ".pathgateignore", "sub/.pathgateignore", ".aiignore",
                                  "PATHGATE.TOML"])
async def test_policy_files_are_not_writable(anyio_backend: str, op: Op, tree: tuple[Path, Path],
                                             path: str) -> None:
    root, _ = tree
    rt = make_rt(root, other_agent_files=True, require_read_before_write=False)
    before = snapshot(root)
    result = await op(rt, path)
    v = result.verdict
    assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE and not v.opaque
    assert snapshot(root) == before
    text = rt.renderer_for(name="verbose").render_verdict(path, v)
    assert text.startswith("[BLOCKED]: It is one of the files that decide what agents may do")
    # git's own ignore file stays writable (exclusions may be added)
    assert (await rt.write_file(".gitignore", "build/\n*.log\nx\n")).ok
