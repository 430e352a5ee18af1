"""No lost update: per agent, a write needs the agent's last read to be the current version.

Concurrency figures (asserted exactly): N agents read the same version, then all write at
once; the compare-and-replace is atomic within the runtime, so exactly one write of each
round is accepted and N - 1 are refused with ``[FILE_CHANGED_SINCE_READ]``. Agents retry
(read again, redo) until every one is accepted; every accepted change is in the final
content, every refused one was reported, no update is lost.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from pathgate import Gate, Status
from pathgate.results import WriteResult
from pathgate.runtime import _runtime
from pathgate.runtime.tools._versions import FileLocks, VersionStore
from pathgate.runtime.tools._write_io import Version
from tests.runtime.tools._writes import make_rt, temp_files, write_tree

pytestmark = pytest.mark.anyio


async def test_never_read_then_read_then_changed(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root)
    r = await rt.write_file("a.txt", "mine\n", agent="A")
    assert r.verdict is not None and r.verdict.status is Status.FILE_NOT_READ and r.verdict.gate is Gate.WRITE
    r = await rt.edit_file("a.txt", "v1", "mine", agent="A")
    assert r.verdict is not None and r.verdict.status is Status.FILE_NOT_READ
    await rt.read_files(["a.txt"], agent="A")
    await rt.read_files(["a.txt"], agent="B")
    assert (await rt.edit_file("a.txt", "v1", "v2", agent="A")).ok
    # B read v1: its edit is refused, and so is its overwrite
    r = await rt.edit_file("a.txt", "v1", "B", agent="B")
    assert r.verdict is not None and r.verdict.status is Status.FILE_CHANGED_SINCE_READ
    r = await rt.write_file("a.txt", "B\n", agent="B")
    assert r.verdict is not None and r.verdict.status is Status.FILE_CHANGED_SINCE_READ
    # A's own write is its new version: it may go on editing without re-reading
    assert (await rt.edit_file("a.txt", "v2", "v3", agent="A")).ok
    await rt.read_files(["a.txt"], agent="B")
    assert (await rt.edit_file("a.txt", "v3", "v4", agent="B")).ok
    assert (root / "a.txt").read_text() == "v4\n"


async def test_outside_change_is_detected(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root)
    await rt.read_files(["a.txt"], agent="A")
    st = (root / "a.txt").stat()
    (root / "a.txt").write_text("v2\n")  # same size; a person's editor writes in place
    os.utime(root / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns))  # even with the old mtime
    r = await rt.edit_file("a.txt", "v", "w", agent="A")
    assert r.verdict is not None and r.verdict.status is Status.FILE_CHANGED_SINCE_READ
    assert (root / "a.txt").read_text() == "v2\n"


async def test_call_passes_the_agent(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root)
    await rt.call("read_files", {"paths": ["a.txt"]}, agent="A")
    out = await rt.call("edit_file", {"path": "a.txt", "old_string": "v1", "new_string": "x"}, agent="B")
    assert out["a.txt"].startswith("[FILE_NOT_READ]: ")
    out = await rt.call("edit_file", {"path": "a.txt", "old_string": "v1", "new_string": "x"}, agent="A",
                        renderer="sentinel")
    assert out == {"a.txt": "[OK]"}


async def test_zero_line_guard_reads_do_not_count(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root)
    await rt.read_files(["a.txt"], limit=0, agent="A")  # adapters' path guard: nothing seen
    r = await rt.write_file("a.txt", "x", agent="A")
    assert r.verdict is not None and r.verdict.status is Status.FILE_NOT_READ


async def test_new_file_created_meanwhile_is_not_overwritten(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {})
    rt = make_rt(root)
    assert (await rt.write_file("n.txt", "A\n", agent="A")).ok
    r = await rt.write_file("n.txt", "B\n", agent="B")
    assert r.verdict is not None and r.verdict.status is Status.FILE_NOT_READ
    assert (root / "n.txt").read_text() == "A\n" and not temp_files(root)


async def test_switched_off_for_hosts_that_manage_versions(anyio_backend: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root, require_read_before_write=False)
    assert (await rt.write_file("a.txt", "x\n", agent="never-read")).ok


def test_version_store_is_bounded() -> None:
    store = VersionStore(max_records=3)
    v = Version(1, 2, 3, 4, b"h")
    for i in range(5):
        store.record("A", f"f{i}", v)
    assert len(store) == 3 and store.get("A", "f0") is None and store.get("A", "f4") == v


def test_file_locks_are_dropped_when_free() -> None:
    locks = FileLocks()
    with locks.hold("a", lambda: None):
        assert len(locks) == 1
    assert len(locks) == 0


async def _agent_loop(rt: _runtime.Runtime, agent: str, files: list[str], use_edit: bool, start: anyio.Event,
                      log: dict[str, int], accepted: list[tuple[str, str]]) -> None:
    """Each agent adds its own line to every file: read, wait for everyone, write; on a
    refusal read again and redo."""
    for f in files:
        first = True
        for _attempt in range(200):
            read = (await rt.read_files([f], agent=agent))[0]
            if read.content is None:
                # the read raced an atomic replace (the descriptor was not the resolved file)
                assert read.verdict is not None and not read.verdict.opaque, read.verdict
                log["read_retries"] += 1
                continue
            content = read.content
            if first:
                await start.wait()
                first = False
            line = f"{agent}\n"
            if use_edit:
                result: WriteResult = await rt.edit_file(f, "END\n", line + "END\n", agent=agent)
            else:
                result = await rt.write_file(f, content.replace("END\n", line + "END\n"), agent=agent)
            log["calls"] += 1
            if result.ok:
                accepted.append((f, agent))
                break
            assert result.verdict is not None
            assert result.verdict.status is Status.FILE_CHANGED_SINCE_READ, result.verdict
            log["refused"] += 1
        else:
            raise AssertionError(f"{agent} never got its change into {f}")


@pytest.mark.parametrize("agents", [2, 10, pytest.param(20, marks=pytest.mark.slow)])  # retries grow as n²
@pytest.mark.parametrize("use_edit", [True, False], ids=["edit_file", "write_file"])
async def test_concurrent_agents_lose_no_update(anyio_backend: str, tmp_path: Path, agents: int,
                                                use_edit: bool) -> None:
    files = ["one.txt", "dir/two.txt"]
    root = write_tree(tmp_path / "p", {f: "START\nEND\n" for f in files})
    rt = make_rt(root)
    names = [f"agent-{i:02d}" for i in range(agents)]
    start = anyio.Event()
    log = {"calls": 0, "refused": 0, "read_retries": 0}
    accepted: list[tuple[str, str]] = []
    ready = anyio.Event()

    async with anyio.create_task_group() as tg:
        for name in names:
            tg.start_soon(_agent_loop, rt, name, files, use_edit, start, log, accepted)
        with anyio.fail_after(120):
            while len(rt.versions) < agents:  # every agent has read the first file
                await anyio.sleep(0.005)
            ready.set()
            start.set()

    for f in files:
        lines = (root / f).read_text().splitlines()
        assert lines[0] == "START" and lines[-1] == "END"
        assert sorted(lines[1:-1]) == names  # every accepted change is there, once
    assert sorted(accepted) == sorted((f, n) for f in files for n in names)
    assert log["calls"] == len(accepted) + log["refused"]  # every refused write was reported
    # The first round of the first file is fully concurrent: all read one version, one wins.
    assert log["refused"] >= agents - 1
    assert not temp_files(root) and len(rt.file_locks) == 0
    print(f"\n{anyio_backend} {'edit' if use_edit else 'write'} agents={agents}: calls={log['calls']} "
          f"accepted={len(accepted)} refused={log['refused']} read_retries={log['read_retries']} lost=0")


async def test_a_writer_waiting_for_the_lock_can_be_cancelled(anyio_backend: str, tmp_path: Path) -> None:
    import threading

    root = write_tree(tmp_path / "p", {"a.txt": "v1\n"})
    rt = make_rt(root, require_read_before_write=False)
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with rt.file_locks.hold("a.txt", lambda: None):
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        held.wait(10)
        with anyio.move_on_after(0.2) as scope:
            await rt.write_file("a.txt", "late\n")
        assert scope.cancelled_caught
    finally:
        release.set()
        thread.join()
    assert (root / "a.txt").read_text() == "v1\n" and not temp_files(root) and len(rt.file_locks) == 0
