"""The read routes of issue 19's sixth session: one file on the loop ahead of the pipeline,
a batch on a local tree in one worker hop, a bounded number of directory descriptors per
chunk, and the inline read's single ``preadv``. Each must give exactly the answers of the
general route (every gate run by the pipeline, in a worker thread)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.fs import _read
from pathgate.runtime.fs._read import DirFds
from pathgate.runtime.gates import Fact, GateContext, PathFacts
from pathgate.runtime.tools import _read_facts
from pathgate.runtime.tools._inline import INLINE_MAX
from tests.runtime.gates._tree import count_hops, write_tree

FILES: dict[str, str | bytes] = {
    "a.txt": "one\n",
    "d/b.txt": "bee\n",
    "d/e/c.txt": "sea",
    "empty.txt": "",
    "bin.dat": b"\x00\x01x",
    "latin.txt": b"caf\xe9\n",
    "big.txt": "x\n" * 40_000,
    ".gitignore": "*.log\nbuild/\n",
    "d/.gitignore": "local.txt\n",
    "x.log": "log\n",
    "build/o.js": "o",
    "d/local.txt": "l",
    ".env": "KEY=1\n",
    ".env.example": "KEY=\n",
    "link": "-> a.txt",
    "link_env": "-> .env",
    "link_out": "-> /etc/hostname",
    "dlink": "-> d",
}
PATHS = ["a.txt", "./a.txt", "d/b.txt", "d/e/c.txt", "empty.txt", "bin.dat", "latin.txt", "big.txt",
         "x.log", "build/o.js", "d/local.txt", ".env", ".env.example", ".env/x", "link", "link_env",
         "link_out", "dlink/b.txt", "d", "missing.txt", "d/missing/x.txt", ".git/config", "../out", "alias.txt"]


def _tree(root: Path, *, secret: bool = True) -> Path:
    files = dict(FILES)
    if not secret:
        del files[".env"], files["link_env"]
    write_tree(root, files)
    (root / ".git").mkdir()
    if secret:
        os.link(root / ".env", root / "alias.txt")
    else:
        (root / "alias.txt").write_text("KEY=1\n")
    return root


async def _answers(rt: Runtime, paths: list[str]) -> list[Any]:
    out: list[Any] = []
    for renderer in ("verbose", "structured"):
        for p in paths:
            out.append(await rt.call("read_files", {"paths": [p]}, renderer=renderer))
        out.append(await rt.call("read_files", {"paths": paths}, renderer=renderer))
    out.append([repr(await rt.read_files([p])) for p in paths])
    return out


@pytest.mark.anyio
async def test_one_file_on_the_loop_answers_as_the_thread_route(tmp_path: Path) -> None:
    """Every kind of path read alone on a warm runtime (the loop route) answers as a runtime
    whose reads always hop and whose pipeline runs every gate."""
    root = _tree(tmp_path / "t")
    pol = Policy(size_limit=50_000)
    loop_rt, hop_rt = Runtime(root, pol), Runtime(root, pol)
    hop_rt.inline_reads.enabled = False
    for rt in (loop_rt, hop_rt):
        await rt.read_files(PATHS)  # warm: the loop route needs the index's directories
    got = await _answers(loop_rt, PATHS)
    assert getattr(loop_rt, "_read_on_loop", None), "the loop route was not taken"
    assert got == await _answers(hop_rt, PATHS)


@pytest.mark.anyio
async def test_secret_as_written_is_judged_before_any_descriptor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spelling through a secret-named component is opaque before anything is opened."""
    root = _tree(tmp_path / "t")
    rt = Runtime(root, Policy())
    await rt.read_files(["a.txt", ".env.example"])
    made: list[DirFds] = []
    real_init = DirFds.__init__

    def spy(self: DirFds, *a: Any) -> None:
        made.append(self)
        real_init(self, *a)

    monkeypatch.setattr(DirFds, "__init__", spy)
    for p in (".env", ".env/x", "d/.env"):
        assert await rt.call("read_files", {"paths": [p]}) == {p: "[BLOCKED]"}
    assert made == []
    assert await rt.call("read_files", {"paths": ["a.txt"]}) == {"a.txt": "one\n"}
    assert len(made) == 1


@pytest.mark.anyio
async def test_secret_stays_opaque_on_the_loop(tmp_path: Path) -> None:
    """The same calls on a tree with and without a secret (and a hard link to it) answer
    the same, apart from the secret's own bare ``[BLOCKED]``."""
    with_secret = _tree(tmp_path / "s")
    without = _tree(tmp_path / "n", secret=False)
    paths = [p for p in PATHS if p not in (".env", "link_env", "alias.txt", ".env/x")]
    answers = []
    for root in (with_secret, without):
        rt = Runtime(root, Policy(size_limit=50_000))
        await rt.read_files(PATHS)
        answers.append(await _answers(rt, paths))
        if root == with_secret:
            for p in (".env", "link_env", "alias.txt"):
                assert await rt.call("read_files", {"paths": [p]}) == {p: "[BLOCKED]"}
    assert answers[0] == answers[1]


@pytest.mark.anyio
async def test_local_batch_is_one_hop_and_a_seam_is_chunked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch on a local tree is read in one worker hop (hops side by side would only take
    turns with the interpreter lock); elsewhere it is cut into chunks as before."""
    files = {f"m{i}/f{j}.txt": f"{i} {j}\n" for i in range(30) for j in range(20)}
    root = write_tree(tmp_path / "t", files)
    paths = sorted(files)
    rt = Runtime(root, Policy(read_budget=1 << 30, max_concurrency=8))
    first = await rt.read_files(paths)
    hops = count_hops(monkeypatch)
    assert await rt.read_files(paths) == first
    assert len(hops) == 1
    rt2 = Runtime(root, Policy(read_budget=1 << 30, max_concurrency=8))
    rt2._read_local = False  # type: ignore[attr-defined]  # as on a remote filesystem
    hops.clear()
    assert await rt2.read_files(paths) == first
    assert len(hops) > 1
    assert all(r.verdict is None and r.content == files[r.path] for r in first)


@pytest.mark.anyio
async def test_chunk_keeps_few_directory_descriptors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``CACHE_FDS`` the chunk closes the directories it left; the answers do not change."""
    files = {f"m{i}/s{k}/f.txt": f"{i}/{k}\n" for i in range(12) for k in range(6)}
    files.update({"m3/.gitignore": "f.txt\n", "m5/s2/x": "-> ../s1/f.txt"})
    root = write_tree(tmp_path / "t", files)
    paths = [*sorted(files), "m5/s2/x", "m0/s0/f.txt", "m3/s1/f.txt"]
    want = await Runtime(root, Policy()).read_files(paths)
    peak = [0]
    real_get = DirFds.get

    def get(self: DirFds, reldir: str) -> int:
        fd = real_get(self, reldir)
        peak[0] = max(peak[0], len(self._fds))
        return fd

    monkeypatch.setattr(DirFds, "get", get)
    monkeypatch.setattr(DirFds, "CACHE_FDS", 4)
    assert await Runtime(root, Policy()).read_files(paths) == want
    assert 0 < peak[0] <= 4 + 3  # the cap, plus the levels opened after a trim
    ignored = [r.path for r in want if r.verdict is not None]
    assert ignored == [f"m3/s{k}/f.txt" for k in range(6)] + ["m3/s1/f.txt"]


def test_trim_closes_all_but_the_root(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "t", {f"d{i}/f": "x" for i in range(6)})
    with DirFds(_read_facts.OsFS(), str(root)) as dirs:
        dirs.CACHE_FDS = 3
        fds = [dirs.get(f"d{i}") for i in range(5)]
        root_fd = dirs.get("")
        dirs.trim()
        assert dirs._fds == {"": root_fd}
        for fd in fds:
            with pytest.raises(OSError):
                os.fstat(fd)
        os.fstat(root_fd)
        assert os.path.samestat(os.fstat(dirs.get("d1")), os.stat(root / "d1"))


@pytest.mark.skipif(not getattr(os, "RWF_NOWAIT", 0), reason="no RWF_NOWAIT")
@pytest.mark.parametrize("hint", [0, 3, 10, 100, 5000])
@pytest.mark.parametrize("actual", [0, 1, 10, 4097, INLINE_MAX, INLINE_MAX + 5])
def test_one_preadv_read_gives_the_file_whatever_the_size_hint(tmp_path: Path, hint: int, actual: int) -> None:
    """With ``short_is_end`` the inline read stops after one ``preadv`` when it has every
    byte ``fstat`` showed; a file that grew or shrank since still gives its bytes."""
    data = (bytes(range(256)) * (actual // 256 + 1))[:actual]
    p = tmp_path / "f"
    p.write_bytes(data)
    p.read_bytes()
    fd = os.open(p, os.O_RDONLY)
    try:
        got = _read._read_cached(fd, INLINE_MAX, hint, True)
    finally:
        os.close(fd)
    assert got == data[: INLINE_MAX + 1]


class _PassGate:
    """A host gate that lets everything through (the gates are then not the built-in ones)."""

    name = "host_pass"
    needs = frozenset({Fact.NAME})

    def __init__(self) -> None:
        self.seen: list[str] = []

    def check(self, facts: PathFacts, ctx: GateContext) -> None:
        self.seen.append(facts.request)


@pytest.mark.anyio
async def test_host_gate_is_asked_and_answers_as_the_thread_route(tmp_path: Path) -> None:
    """With a host gate the one-file read is not taken ahead of the pipeline: the host gate is
    asked for every path, and the answers equal a runtime whose reads always hop."""
    root = _tree(tmp_path / "t")
    gates = [_PassGate(), _PassGate()]
    loop_rt, hop_rt = Runtime(root, Policy(), gates=[gates[0]]), Runtime(root, Policy(), gates=[gates[1]])
    hop_rt.inline_reads.enabled = False
    answers = []
    for rt, gate in zip((loop_rt, hop_rt), gates, strict=True):
        await rt.read_files(PATHS)
        gate.seen.clear()
        answers.append(await _answers(rt, PATHS))
        assert set(gate.seen) >= {"a.txt", "d/b.txt", "link"}
    assert answers[0] == answers[1]


_LOW_NOFILE = """
import resource, sys, anyio
from pathgate import Policy, Runtime
root, n = sys.argv[1], int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_NOFILE, (384, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
spell = [f"d{i}/./f.txt" for i in range(n)] + [f"d{i}//f.txt" for i in range(n)]
spell += [f"d{i}/../d{i}/f.txt" for i in range(n)] + [f"d{i}/f.txt" for i in range(0, n, 7)]
spell += [f"./d{i}/f.txt" for i in range(n)]
async def main():
    got = await Runtime(root, Policy()).read_files(spell)
    bad = [(r.path, r.verdict) for r in got if r.verdict is not None or (r.content is None and r.same_as is None)]
    print(len(got), bad[:3])
anyio.run(main)
"""


def test_any_spelling_keeps_descriptors_bounded(tmp_path: Path) -> None:
    """Red team 13 F7: a batch of non-plain spellings (``d<i>/./f.txt``, ``d<i>//f.txt``,
    ``..``) over hundreds of directories reads every file under a 384-descriptor limit (the
    chunk trims its directory descriptors before any spelling's general route, not only
    between plain ones); before, it ran out of descriptors (``[FILE_READ_ERROR]``)."""
    import subprocess
    import sys

    n = 600  # directories: more than the limit
    root = write_tree(tmp_path / "t", {f"d{i}/f.txt": f"{i}\n" for i in range(n)})
    proc = subprocess.run([sys.executable, "-c", _LOW_NOFILE, str(root), str(n)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(4 * n + len(range(0, n, 7))), "[]"], proc.stdout
