"""``read_files`` in one worker-thread hop (issue 19): resolve, match and the descriptor-anchored
read together, never opening what a gate before the read would block, in a read pool of its
own so a long walk or search holding every shared token does not delay it."""

from __future__ import annotations

from pathlib import Path

import anyio
import anyio.to_thread
import pytest

from pathgate import Gate, Policy, Runtime, Status
from pathgate.runtime.fs import IoLimiter
from tests.runtime.gates._tree import SeamFS, count_hops, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {
            "a.txt": "one\n",
            "d/b.txt": "bee\n",
            ".gitignore": "*.log\n",
            "x.log": "log\n",
            ".env": "KEY=1\n",
            "d/.env.local": "KEY=2\n",
            "link": "-> a.txt",
        },
    )


@pytest.mark.anyio
async def test_one_path_is_one_hop(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = Runtime(tree, Policy())
    await rt.read_files(["a.txt"])  # warm: the ignore index's first load
    rt.inline_reads.enabled = False  # no read on the loop (tests/runtime/test_read_inline.py)
    hops = count_hops(monkeypatch)
    (res,) = await rt.read_files(["a.txt"])
    assert res.content == "one\n" and res.verdict is None
    assert len(hops) == 1
    hops.clear()
    await rt.call("read_files", {"paths": ["a.txt", "d/b.txt", "link"]})
    assert len(hops) == 1


@pytest.mark.anyio
async def test_blocked_paths_are_never_opened(tree: Path) -> None:
    fs = SeamFS()
    rt = Runtime(tree, Policy(), fs=fs)
    results = await rt.read_files([".env", "x.log", "d/.env.local", ".git/config", "../outside", "a.txt"])
    statuses = [None if r.verdict is None else (r.verdict.status, r.verdict.gate) for r in results]
    assert statuses[:3] == [(Status.BLOCKED, Gate.SECRETS), (Status.BLOCKED, Gate.IGNORE),
                            (Status.BLOCKED, Gate.SECRETS)]
    assert statuses[5] is None and results[5].content == "one\n"
    assert fs.opened == [str(tree.resolve() / "a.txt")]


@pytest.mark.anyio
async def test_host_gate_before_read_disables_opening_ahead(tree: Path) -> None:
    fs = SeamFS()
    seen: list[bool] = []

    def host_filter(path: str) -> bool:
        seen.append(True)
        return path != "a.txt"

    rt = Runtime(tree, Policy(host_filter=host_filter), fs=fs)
    (res,) = await rt.read_files(["a.txt"])
    assert res.verdict is not None and seen
    assert fs.opened == []  # the host's filter said no before anything was opened


@pytest.mark.anyio
async def test_reads_do_not_wait_for_the_shared_pool(tree: Path) -> None:
    rt = Runtime(tree, Policy(max_concurrency=2))
    await rt.read_files(["a.txt"])
    shared = rt.limiter.get()
    holders = [object() for _ in range(int(shared.total_tokens))]
    for holder in holders:  # a long search holding every shared token
        await shared.acquire_on_behalf_of(holder)
    try:
        with anyio.fail_after(10):
            (res,) = await rt.read_files(["d/b.txt"])
        assert res.content == "bee\n"
    finally:
        for holder in holders:
            shared.release_on_behalf_of(holder)


@pytest.mark.anyio
async def test_read_pool_size(anyio_backend: str) -> None:
    limiter = IoLimiter(8)
    assert limiter.reads() is limiter.reads() and limiter.reads() is not limiter.get()
    assert limiter.reads().total_tokens == 2 and limiter.get().total_tokens == 8
    assert IoLimiter(40).reads().total_tokens == 10 and IoLimiter(3, 5).reads().total_tokens == 5
