from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from pathgate import ConfigError, Gate, Policy, Runtime, Status, ToolArgumentError
from tests.runtime.gates._tree import BACKENDS, SeamFS, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {
            "a.txt": "one\ntwo\nthree\nfour\n",
            "d/b.txt": "bee\n",
            "d/e/": "",
            "link": "-> a.txt",
            "ten.txt": "".join(f"line {i}\n" for i in range(1, 11)),
            ".gitignore": "*.log\n",
            "x.log": "log\n",
        },
    )


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_order_and_duplicates_read_once(tree: Path, fs_backend: str) -> None:
    fs = SeamFS()
    rt = Runtime(tree, Policy(fs_backend=fs_backend), fs=fs)
    spellings = ["d/b.txt", "a.txt", "./a.txt", "d/../a.txt", "d/e/../../a.txt", str(tree / "a.txt"), "link",
                 "a.txt", "x.log", "nope"]
    results = await rt.read_files(spellings)
    assert [r.path for r in results] == spellings
    first = results[1]
    assert first.content == "one\ntwo\nthree\nfour\n" and first.relpath == "a.txt" and first.total_lines == 4
    for r in results[2:8]:  # the same file again: given once, the later spellings refer to it
        assert r.content is None and r.relpath == "a.txt" and r.same_as == "a.txt" and r.verdict is None
    assert results[0].content == "bee\n" and results[0].relpath == "d/b.txt"
    assert results[8].verdict is not None and results[8].verdict.gate is Gate.IGNORE
    assert results[9].verdict is not None and results[9].verdict.status is Status.FILE_DOES_NOT_EXIST
    real = os.path.realpath(tree)
    assert sorted(fs.opened) == [f"{real}/a.txt", f"{real}/d/b.txt"]


@pytest.mark.anyio
async def test_empty_request(tree: Path) -> None:
    assert await Runtime(tree, Policy()).read_files([]) == []


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("offset", "limit", "content"),
    [
        (None, None, "".join(f"line {i}\n" for i in range(1, 11))),
        (3, 2, "line 3\nline 4\n"),
        (9, None, "line 9\nline 10\n"),
        (None, 1, "line 1\n"),
        (20, 5, ""),
        (1, 0, ""),
    ],
)
async def test_line_windows(tree: Path, offset: int | None, limit: int | None, content: str) -> None:
    (r,) = await Runtime(tree, Policy()).read_files(["ten.txt"], offset=offset, limit=limit)
    assert r.content == content and r.total_lines == 10 and r.verdict is None


@pytest.mark.anyio
async def test_budget_truncates_at_a_line_with_a_notice(tree: Path) -> None:
    rt = Runtime(tree, Policy(read_budget=30))
    first, second, third = await rt.read_files(["a.txt", "ten.txt", "d/b.txt"])
    assert first.content == "one\ntwo\nthree\nfour\n" and first.verdict is None  # 19 chars
    assert second.truncated and second.content == "line 1\n"  # 11 left: whole lines only
    v = second.verdict
    assert v is not None and v.status is Status.FILE_TOO_LARGE and v.gate is Gate.SIZE
    assert v.detail == "budget" and v.limit == 30
    assert v.size == len("".join(f"line {i}\n" for i in range(1, 11)))
    assert third.truncated and third.content == "" and third.verdict is not None


@pytest.mark.anyio
async def test_budget_argument_overrides_policy_and_cuts_long_lines(tree: Path) -> None:
    (tree / "long.txt").write_text("z" * 50)
    (r,) = await Runtime(tree, Policy()).read_files(["long.txt"], budget=10)
    assert r.truncated and r.content == "z" * 10


@pytest.mark.anyio
async def test_budget_charges_a_file_once(tree: Path) -> None:
    a, b = await Runtime(tree, Policy(read_budget=25)).read_files(["a.txt", "./a.txt"])
    assert a.verdict is None and a.content == "one\ntwo\nthree\nfour\n"
    assert b.same_as == "a.txt" and b.content is None and not b.truncated


@pytest.mark.anyio
async def test_windows_apply_before_budget(tree: Path) -> None:
    (r,) = await Runtime(tree, Policy(read_budget=7)).read_files(["ten.txt"], offset=2, limit=1)
    assert r.content == "line 2\n" and not r.truncated


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"paths": "a.txt"}, "paths"),
        ({"paths": None}, "paths"),
        ({"paths": ["a.txt", 3]}, "paths[1]"),
        ({"paths": [b"a.txt"]}, "paths[0]"),
        ({"paths": ["a.txt"], "offset": 0}, "offset"),
        ({"paths": ["a.txt"], "offset": True}, "offset"),
        ({"paths": ["a.txt"], "offset": "1"}, "offset"),
        ({"paths": ["a.txt"], "limit": -1}, "limit"),
        ({"paths": ["a.txt"], "budget": 0}, "budget"),
        ({"paths": ["a.txt"], "model": 4}, "model"),
    ],
)
async def test_bad_arguments_name_the_field(tree: Path, kwargs: dict[str, object], field: str) -> None:
    rt = Runtime(tree, Policy())
    with pytest.raises(ToolArgumentError) as info:
        await rt.read_files(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


@pytest.mark.anyio
async def test_bad_paths_never_raise(tree: Path) -> None:
    paths = ["", "\x00", "../../etc/passwd", "/etc/passwd", "a" * 5000, "\ud800", "d/e", ".", "..", "//"]
    results = await Runtime(tree, Policy()).read_files(paths)
    assert len(results) == len(paths) and all(r.verdict is not None for r in results)


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        Runtime(tmp_path / "nope")
    assert info.value.key == "root"


@pytest.mark.anyio
async def test_policy_none_loads_config(tree: Path) -> None:
    (tree / "pathgate.toml").write_text("read_budget = 4\n")
    rt = Runtime(tree)
    assert rt.policy.read_budget == 4
    (r,) = await rt.read_files(["a.txt"])
    assert r.truncated and r.content == "one\n"


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_many_files_many_concurrent_calls(tmp_path: Path, fs_backend: str) -> None:
    files = {f"pkg{i % 7}/f{i}.txt": f"{i}\n" for i in range(300)}
    root = write_tree(tmp_path / "many", files)
    rt = Runtime(root, Policy(fs_backend=fs_backend, max_concurrency=4))
    names = list(files)
    out: dict[int, list[str | None]] = {}

    async def agent(k: int) -> None:
        results = await rt.read_files(names[k::5])
        out[k] = [r.content for r in results]

    async with anyio.create_task_group() as tg:
        for k in range(5):
            tg.start_soon(agent, k)
    for k in range(5):
        assert out[k] == [files[n] for n in names[k::5]]


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.anyio
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
async def test_cancellation_leaves_no_descriptor(tmp_path: Path) -> None:
    files = {f"f{i}.txt": "x\n" * 1000 for i in range(400)}
    root = write_tree(tmp_path / "c", files)
    rt = Runtime(root, Policy(max_concurrency=4))
    await rt.read_files(["f0.txt"])  # warm up threads and the index
    before = _open_fds()
    for delay in (0, 0.0005, 0.002):
        with anyio.move_on_after(delay):
            await rt.read_files(list(files))
    await anyio.sleep(0.05)
    assert _open_fds() <= before
