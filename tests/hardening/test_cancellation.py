"""Cancellation at random points (hypothesis-driven): every tool, both event loops, both
read backends, with the seam slowing every blocking call so cancellation lands inside worker
threads, between hops and between gates. Afterwards: no descriptor left open
(``/proc/self/fd``), no thread job still holding the runtime's limiter, and the same runtime
answers exactly as before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate import Policy, Runtime
from tests.hardening import _hostile as H
from tests.hardening._faultfs import FaultFS

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_files", {"paths": [f"src/m{i}.py" for i in range(0, 300, 7)] + [".env", "build/x.js", "nope"]}),
    ("glob", {"pattern": "**/*.py", "limit": 0}),
    ("list_directory", {"path": "src"}),
    ("code_search", {"regex": "needle", "max_results": 0}),
    ("code_search", {"regex": "def", "glob": "src/**", "context": 2, "max_results": 0}),
]


def make_tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    for i in range(300):
        (root / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return 'needle {i}'\n")
    (root / "build").mkdir()
    (root / "build" / "x.js").write_text("needle built\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / ".env").write_text(f"TOKEN={H.SECRET_MARKER}\n")
    return root


def fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tree(tmp_path_factory.mktemp("cancel") / "p")


_HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
_DELAYS = st.lists(st.floats(0, 0.03), min_size=1, max_size=4)
_SLOW = st.sampled_from([0.0, 0.0002])
_POINTS = [pytest.mark.parametrize("backend", ["asyncio", "trio"]),
           pytest.mark.parametrize("fs_backend", ["thread", "aiofiles"]),
           pytest.mark.parametrize("call", range(len(CALLS)), ids=[c[0] for c in CALLS])]


def _points(test: Any) -> Any:
    for mark in reversed(_POINTS):
        test = mark(test)
    return test


@_points
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=_HEALTH)
@given(delays=_DELAYS, slow=_SLOW)
def test_cancel_at_random_points_leaves_nothing_behind(
    tree: Path, backend: str, fs_backend: str, call: int, delays: list[float], slow: float
) -> None:
    _cancel_at(tree, backend, fs_backend, call, delays, slow)


@pytest.mark.slow
@_points
@settings(max_examples=24, deadline=None, derandomize=True, suppress_health_check=_HEALTH)
@given(delays=_DELAYS, slow=_SLOW)
def test_cancel_at_random_points_leaves_nothing_behind_exhaustive(
    tree: Path, backend: str, fs_backend: str, call: int, delays: list[float], slow: float
) -> None:
    _cancel_at(tree, backend, fs_backend, call, delays, slow)


def _cancel_at(tree: Path, backend: str, fs_backend: str, call: int, delays: list[float], slow: float) -> None:
    if fs_backend == "aiofiles" and (backend == "trio" or CALLS[call][0] != "read_files"):
        pytest.skip("aiofiles serves read_files under asyncio only")
    tool, args = CALLS[call]

    async def scenario() -> None:
        fs = FaultFS()
        rt = Runtime(tree, policy=Policy(fs_backend=fs_backend), fs=fs)  # type: ignore[arg-type]
        expected = await rt.call(tool, args)
        before = fds()
        fs.delay = slow
        for delay in delays:
            with anyio.move_on_after(delay):
                await rt.call(tool, args)
            if fs_backend == "aiofiles":
                # aiofiles runs on the loop's executor: a cancelled hop finishes on its own
                with anyio.fail_after(5):
                    while fds() - before:
                        await anyio.sleep(0.01)
            assert not fds() - before, "a descriptor was left open"
            borrowed = rt.limiter.get().borrowed_tokens + rt.limiter.reads().borrowed_tokens
            assert borrowed == 0, "a thread job outlived the call"
        fs.delay = 0.0
        assert await rt.call(tool, args) == expected
        echoes = [x for v in args.values() for x in (v if isinstance(v, list) else [str(v)])]
        assert not H.leaks(expected, echoes)

    anyio.run(scenario, backend=backend)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_cancel_many_concurrent_calls_at_once(tree: Path, backend: str) -> None:
    """Fifty concurrent calls of every tool cancelled together, repeatedly."""

    async def scenario() -> None:
        fs = FaultFS()
        rt = Runtime(tree, policy=Policy(), fs=fs)
        expected = [await rt.call(t, a) for t, a in CALLS]
        before = fds()
        fs.delay = 0.0001
        for delay in (0.001, 0.01, 0.05):
            with anyio.move_on_after(delay):
                async with anyio.create_task_group() as tg:
                    for i in range(50):
                        t, a = CALLS[i % len(CALLS)]
                        tg.start_soon(rt.call, t, a)
            assert not fds() - before
            assert rt.limiter.get().borrowed_tokens == 0 and rt.limiter.reads().borrowed_tokens == 0
        fs.delay = 0.0
        assert [await rt.call(t, a) for t, a in CALLS] == expected

    anyio.run(scenario, backend=backend)
