"""Cancellation and timeouts propagate, and a hostile glob never stalls the loop (issue 13)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from tests.hardening._faultfs import FaultFS

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("glob", {"pattern": "**/*.py", "limit": 0}),
    ("list_directory", {"path": "src"}),
    ("read_files", {"paths": [f"src/m{i}.py" for i in range(40)]}),
    ("code_search", {"regex": "needle", "max_results": 0}),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prop") / "p"
    for k in range(8):
        (root / "src" / f"s{k}").mkdir(parents=True)
        for i in range(20):
            (root / "src" / f"s{k}" / f"m{i}.py").write_text("needle\n")
    for i in range(40):
        (root / "src" / f"m{i}.py").write_text("needle\n")
    return root


@pytest.mark.parametrize("call", range(len(CALLS)), ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("delay", [0.001, 0.005, 0.02])
def test_asyncio_timeout_always_fires(tree: Path, call: int, delay: float) -> None:
    """A timeout that expires inside a worker-thread hop raises TimeoutError: never an
    ``{"error": "internal error"}`` answer, and nothing is left holding the limiter."""
    tool, args = CALLS[call]

    async def main() -> None:
        fs = FaultFS()
        fs.delay = 0.001  # every blocking call: cancellation lands inside threads
        rt = Runtime(tree, policy=Policy(), fs=fs)  # type: ignore[arg-type]
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(delay):
                out = await rt.call(tool, args)
                pytest.fail(f"completed inside the timeout: {str(out)[:200]}")
        assert rt.limiter.get().borrowed_tokens == 0 and rt.limiter.reads().borrowed_tokens == 0

    asyncio.run(main())


@pytest.mark.parametrize("call", range(len(CALLS)), ids=[c[0] for c in CALLS])
def test_trio_cancel_propagates(tree: Path, call: int) -> None:
    tool, args = CALLS[call]

    async def main() -> None:
        fs = FaultFS()
        fs.delay = 0.001
        rt = Runtime(tree, policy=Policy(), fs=fs)  # type: ignore[arg-type]
        done = False
        with anyio.move_on_after(0.01) as scope:
            await rt.call(tool, args)
            done = True
        assert scope.cancelled_caught and not done
        assert rt.limiter.get().borrowed_tokens == 0 and rt.limiter.reads().borrowed_tokens == 0

    anyio.run(main, backend="trio")


@pytest.mark.parametrize("tool", ["glob", "code_search"])
def test_hostile_glob_does_not_starve_the_loop(tree: Path, tool: str) -> None:
    """20,000 unclosed ``[``: the call returns promptly and a heartbeat on the same loop is
    never starved for more than 0.5 s (a correctness bound: the compile must not block)."""
    pattern = "[" * 20_000
    args = {"pattern": pattern} if tool == "glob" else {"regex": "needle", "glob": pattern}
    gaps: list[float] = []

    async def main() -> None:
        rt = Runtime(tree, policy=Policy())
        stop = anyio.Event()

        async def heartbeat() -> None:
            last = time.monotonic()
            while not stop.is_set():
                await anyio.sleep(0.01)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        async with anyio.create_task_group() as tg:
            tg.start_soon(heartbeat)
            with anyio.fail_after(30):
                await rt.call(tool, args)
            stop.set()

    anyio.run(main)
    assert gaps and max(gaps) < 0.5, max(gaps)
