"""Runtime.call: the chain built once, host middlewares and tools, argument errors,
cancellation without leaks, and many concurrent agents on one runtime."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from pathgate import Policy, Runtime
from pathgate._types import CallNext, ToolCall

pytestmark = pytest.mark.anyio


def make_tree(root: Path, files: int = 0) -> Path:
    (root / "src").mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n")
    (root / "src" / "a.py").write_text("print('a')\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("x\n")
    (root / ".env").write_text("K=v\n")
    for i in range(files):
        d = root / "many" / f"d{i % 50}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text("line\n" * 50 + "needle\n")
    return root


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return Runtime(make_tree(tmp_path / "p"), policy=Policy())


async def test_call_renders_per_model(anyio_backend: str, tmp_path: Path) -> None:
    from pathgate.config import RendererRule

    policy = Policy(renderers=(RendererRule("gpt-4o-mini*", "structured"), RendererRule("legacy-*", "sentinel")))
    rt = Runtime(make_tree(tmp_path / "p"), policy=policy)
    args = {"paths": ["src/a.py", "build/out.js", ".env"]}
    structured = await rt.call("read_files", args, model="gpt-4o-mini-2024")
    assert [f["status"] for f in structured["files"]] == ["ok", "blocked", "blocked"]
    legacy = await rt.call("read_files", args, model="legacy-1")
    assert legacy == {"src/a.py": "print('a')\n", "build/out.js": "[BLOCKED]", ".env": "[BLOCKED]"}
    verbose = await rt.call("read_files", args, model="claude-x")
    assert verbose["build/out.js"].startswith("[BLOCKED]: ") and verbose[".env"] == "[BLOCKED]"
    assert list(verbose) == args["paths"]


async def test_middleware_order_and_one_context(anyio_backend: str, rt: Runtime) -> None:
    log: list[str] = []

    def mw(name: str) -> Any:
        async def run(call: ToolCall, call_next: CallNext) -> Any:
            log.append(f"{name}>{call.tool}")
            result = await call_next(call)
            log.append(f"<{name}:{type(result).__name__}:{call.state.renderer}")
            return result
        return run

    raws: list[object] = []

    async def keep_raw(call: ToolCall, call_next: CallNext) -> Any:
        result = await call_next(call)
        raws.append(call.state.raw)
        return result

    rt.use(mw("outer"))
    rt.use(mw("inner"))
    rt.use(keep_raw)
    result = await rt.call("read_files", {"paths": ["src/a.py"]}, model="m")
    assert result == {"src/a.py": "print('a')\n"}
    (raw,) = raws
    assert isinstance(raw, list) and raw[0].content == "print('a')\n"  # the FileResult list
    # host middlewares see the rendered result (they sit outside rendering)
    assert log == ["outer>read_files", "inner>read_files", "<inner:dict:verbose", "<outer:dict:verbose"]


async def test_middleware_can_short_circuit_and_rewrite(anyio_backend: str, rt: Runtime) -> None:
    async def deny_glob(call: ToolCall, call_next: CallNext) -> Any:
        if call.tool == "glob":
            return {"error": "glob disabled by host", "error_type": "host"}
        return await call_next(call)

    rt.use(deny_glob)
    assert (await rt.call("glob", {"pattern": "*"}))["error"] == "glob disabled by host"
    assert "src/a.py" in await rt.call("read_files", {"paths": ["src/a.py"]})


async def test_host_tool_wrapped_by_the_chain(anyio_backend: str, rt: Runtime) -> None:
    class EchoArgs(msgspec.Struct, forbid_unknown_fields=True):
        text: str
        times: int = 1

    seen: list[str] = []

    async def echo(args: EchoArgs, call: ToolCall) -> dict[str, str]:
        seen.append(call.agent or "")
        return {"echo": args.text * args.times}

    rt.register_tool("echo", echo, args_type=EchoArgs, description="echo text")
    assert await rt.call("echo", {"text": "ab", "times": 2}, agent="a1") == {"echo": "abab"}
    assert seen == ["a1"]
    bad = await rt.call("echo", {"text": 3})
    assert bad["error_type"] == "invalid_arguments" and bad["field"] == "text"
    assert rt.tools["echo"].schema()["type"] == "object"
    with pytest.raises(ValueError, match="already registered"):
        rt.register_tool("echo", echo)


async def test_host_tool_exception_is_an_error_result(anyio_backend: str, rt: Runtime) -> None:
    async def boom(args: Any) -> Any:
        raise RuntimeError("/secret/path/.env leaked?")

    rt.register_tool("boom", boom)
    result = await rt.call("boom", {})
    assert result["error_type"] == "internal" and ".env" not in result["error"]


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("read_files", {"paths": "a"}, "paths"),
        ("read_files", {"paths": ["a"], "offset": 0}, "offset"),
        ("read_files", {}, "paths"),
        ("read_files", {"paths": ["a"], "bogus": 1}, "bogus"),
        ("glob", {"pattern": ""}, "pattern"),
        ("glob", {"pattern": "*", "limit": -1}, "limit"),
        ("code_search", {"regex": "["}, "regex"),
        ("code_search", {"regex": "a", "context": 99}, "context"),
        ("list_directory", {"path": 3}, "path"),
    ],
)
async def test_bad_arguments_name_the_field(
    anyio_backend: str, rt: Runtime, tool: str, args: dict[str, Any], field: str
) -> None:
    result = await rt.call(tool, args)
    assert result["error_type"] == "invalid_arguments"
    assert result["field"] == field
    assert "Traceback" not in result["error"]


async def test_unknown_tool(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.call("rm_rf", {})
    assert result["error_type"] == "unknown_tool" and "read_files" in result["error"]


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,500 files, built once for both event loops (the test only searches it)."""
    return make_tree(tmp_path_factory.mktemp("big") / "big", files=1500)


async def test_cancel_large_search_leaves_nothing_behind(anyio_backend: str, big_tree: Path) -> None:
    rt = Runtime(big_tree, policy=Policy())
    full = await rt.code_search("needle", max_results=0)
    assert len(full.hits) == 1500
    before = _fds()
    for delay in (0.0, 0.005, 0.02):
        with anyio.move_on_after(delay) as scope:
            await rt.code_search("needle", max_results=0)
        assert scope.cancelled_caught
    await anyio.sleep(0.05)
    assert _fds() <= before
    # no worker-thread job of the runtime is still running (every limiter token returned)
    assert rt.limiter.get().borrowed_tokens == 0 and rt.limiter.reads().borrowed_tokens == 0
    # the runtime keeps answering correctly afterwards
    again = await rt.code_search("needle", max_results=0)
    assert again.hits == full.hits


async def test_fifty_agents_on_one_runtime(anyio_backend: str, tmp_path: Path) -> None:
    rt = Runtime(make_tree(tmp_path / "c", files=40), policy=Policy())
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_files", {"paths": ["src/a.py", "build/out.js", ".env", "nope.txt"]}),
        ("glob", {"pattern": "**/*.txt"}),
        ("list_directory", {"path": "."}),
        ("code_search", {"regex": "needle", "glob": "many/d1/*"}),
    ]
    expected = [await rt.call(t, a, model="m") for t, a in calls]
    results: dict[tuple[int, int], Any] = {}

    async def agent(a: int) -> None:
        for i in range(8):  # 400 calls, 50 at a time: every tool on every agent, interleaved
            k = (a + i) % len(calls)
            tool, args = calls[k]
            results[(a, i)] = (k, await rt.call(tool, args, model="m", agent=f"agent-{a}"))

    async with anyio.create_task_group() as tg:
        for a in range(50):
            tg.start_soon(agent, a)
    assert len(results) == 400
    for k, got in results.values():
        assert got == expected[k]
