"""A discovery call's start directory resolved, decided and -- its walk's first step --
walked in one worker hop (issue 19: a listing waits one round of turns, not three). The
answers are compared with those of no step ahead; a step ahead of a refused or cancelled
call is dropped and leaves the scheduler's tokens free. No timing thresholds."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.fs._sched import call_scope
from pathgate.runtime.tools import _discover
from pathgate.verdicts import Gate, Status, Verdict


async def until(cond: Any, what: str) -> None:
    """Wait (bounded) until ``cond()`` holds."""
    with anyio.fail_after(20):
        while not cond():
            await anyio.sleep(0.002)


# -- discovery: the start directory's hop --------------------------------------------------


def _tree(root: Path) -> Path:
    for i in range(3):
        d = root / "m" / f"d{i}"
        d.mkdir(parents=True)
        (d / "A.java").write_text("class A { lambda delta }\n")
        (d / "B.txt").write_text("lambda\n" * 3)
    (root / "m" / "top.txt").write_text("lambda delta\n")
    (root / "m" / "build").mkdir()
    (root / "m" / "build" / "Gen.java").write_text("lambda delta\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "m" / ".env").write_text("KEY=lambda delta\n")
    os.link(root / "m" / ".env", root / "m" / "alias.txt")
    (root / "m" / "link").symlink_to("d0")
    (root / "m" / "out").symlink_to("../..")
    (root / "m" / "d1" / "deep" / "er").mkdir(parents=True)
    (root / "m" / "d1" / "deep" / "er" / "C.java").write_text("lambda\n")
    return root


CALLS: list[tuple[str, dict[str, object]]] = [
    (tool, {**args, "path": p})
    for p in ["m", "m/", "./m/d1", "m/link", "m/d0/A.java", "m/build", "m/.env", "m/alias.txt", "m/out", "nope",
              ".git", "."]
    for tool, args in [("list_directory", {}), ("list_directory", {"limit": 2}),
                       ("glob", {"pattern": "**/*.java"}), ("glob", {"pattern": "*"}),
                       ("code_search", {"regex": "lambda"}), ("code_search", {"regex": "delta", "glob": "*.java"})]
]


async def _answers(root: Path) -> list[object]:
    rt = Runtime(root, policy=Policy())
    out: list[object] = []
    for renderer in (None, "structured"):
        for tool, args in CALLS:
            out.append(await rt.call(tool, args, renderer=renderer))
    return out


def test_answers_equal_without_the_step_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every discovery answer (two renderers, blocked, missing, file, ignored, linked, secret
    and aliased start directories) is the same with the walk's first step in the start
    directory's hop as without."""
    root = _tree(tmp_path)
    fast = anyio.run(_answers, root)
    monkeypatch.setattr(_discover.Discovery, "_ahead_checks", lambda self: None)
    plain = anyio.run(_answers, root)
    assert fast == plain
    assert "[BLOCKED]" in str(fast) and "d1/" in str(fast) and "m/d1/deep/er/C.java" in str(fast)
    assert "KEY=" not in str(fast)
    assert "top.txt" in str(fast[0]) and ".env" not in str(fast[0]) and "alias.txt" not in str(fast[0])


def test_a_listing_takes_one_hop(tmp_path: Path) -> None:
    """The start directory's resolution, ignore decision and the listing's one step: one
    hop (three before); a glob whose walk is one step: one hop too; symlinks listed are
    resolved and decided in one more."""
    root = _tree(tmp_path)

    async def main() -> list[int]:
        rt = Runtime(root, policy=Policy())
        await rt.call("glob", {"pattern": "*.txt", "path": "m/d0"})  # (the pattern kept)
        hops = []
        for tool, args in [("list_directory", {"path": "m/d0"}), ("list_directory", {"path": "m/d1"}),
                           ("glob", {"pattern": "*.txt", "path": "m/d0"}), ("list_directory", {"path": "m"})]:
            with call_scope() as ticket:
                await rt.call(tool, args)
            hops.append(ticket.hops)
        return hops

    assert anyio.run(main) == [1, 1, 1, 2]


def test_a_step_ahead_is_closed_when_the_start_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline alone decides the start directory: a step taken ahead for a directory it
    then refuses is dropped (its walker closed, its entries never shown)."""
    root = _tree(tmp_path)
    walkers: list[Any] = []
    real_ahead = _discover.Discovery._walk_ahead

    def spy(self: _discover.Discovery, *a: Any) -> None:
        real_ahead(self, *a)
        if self._ahead is not None:
            walkers.append(self._ahead.walker)

    monkeypatch.setattr(_discover.Discovery, "_walk_ahead", spy)
    refused = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE)

    async def main() -> object:
        rt = Runtime(root, policy=Policy())
        d = _discover.Discovery(rt)
        real_run = d.pipeline.run

        async def run(facts: Any, ctx: Any, source: Any) -> list[Verdict | None]:
            await real_run(facts, ctx, source)
            return [refused]

        monkeypatch.setattr(d.pipeline, "run", run)
        with call_scope():
            got = await d.start_dir("m/d1", lambda start: (None, None, True))
        assert d._ahead is None
        return got

    assert anyio.run(main) == ("", refused)
    assert len(walkers) == 1 and walkers[0].done and walkers[0].open_fds == 0


@pytest.mark.anyio
async def test_a_cancelled_start_hop_frees_its_token_and_walker(anyio_backend: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing cancelled while its start directory's hop runs (held in the step ahead):
    the hop is awaited, its walker closed, the token free; the next call answers."""
    root = _tree(tmp_path)
    entered, hold = threading.Event(), threading.Event()
    walkers: list[Any] = []
    real_ahead = _discover.Discovery._walk_ahead

    def slow(self: _discover.Discovery, *a: Any) -> None:
        entered.set()
        assert hold.wait(20)
        real_ahead(self, *a)
        if self._ahead is not None:
            walkers.append(self._ahead.walker)

    monkeypatch.setattr(_discover.Discovery, "_walk_ahead", slow)
    rt = Runtime(root, policy=Policy())
    try:
        async with anyio.create_task_group() as tg:
            scope = anyio.CancelScope()

            async def listing() -> None:
                with scope:
                    await rt.call("list_directory", {"path": "m/d1"})

            tg.start_soon(listing)
            await until(entered.is_set, "the start hop runs")
            scope.cancel()
            hold.set()
    finally:
        hold.set()
    assert len(walkers) == 1 and walkers[0].done and walkers[0].open_fds == 0
    sched = rt.limiter.get()._sched  # type: ignore[attr-defined]
    assert sched.free == sched.sizes and not sched.running and not sched.waiting
    monkeypatch.setattr(_discover.Discovery, "_walk_ahead", real_ahead)
    out = await rt.call("list_directory", {"path": "m/d1"})
    assert "B.txt" in str(out) and "deep/" in str(out)
