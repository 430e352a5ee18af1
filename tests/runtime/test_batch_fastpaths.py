"""``read_files``' batch shortcuts (issue 19) answer exactly as the plain pipeline does.

The one-hop worker opens a plain spelling through its parent's descriptor, runs the built-in
gates on the open descriptor (linked secret, existence, size, read) right after the read, and
the pipeline skips what they cleared; ``DirFds`` opens a child of an open directory directly;
``lexical_name`` returns a plain spelling as is. Each is compared here with the route that
fetches every fact separately and runs every gate on the loop (``_inline_gates`` off), on
trees where files share directories with and without a secret's hard link, a ``.gitignore``
in between, a symlinked directory, and with the batch cut into chunks of every size.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import FileResult, Gate, Policy, Runtime, Status, Verdict
from pathgate.runtime.fs import DirFds, OsFS
from pathgate.runtime.gates import lexical_name
from pathgate.runtime.tools import _read_batch, _read_facts
from pathgate.runtime.tools import _read_facts as rf
from tests.hardening._twotrees import build


def _lexical_reference(request: str, root: str) -> str | None:
    """``lexical_name`` without its shortcut for plain spellings."""
    if not request or "\x00" in request:
        return None
    path = request
    if path.startswith("/"):
        if root != "/" and path != root and not path.startswith(root + "/"):
            return None
        path = path[len(root):].lstrip("/") or "."
    norm = posixpath.normpath(path)
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../") or norm.startswith("/"):
        return None
    return norm


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab./\x00", max_size=12))
def test_lexical_name_shortcut_equals_normpath(request: str) -> None:
    for root in ("/r", "/"):
        assert lexical_name(request, root) == _lexical_reference(request, root), (request, root)


def test_dirfds_child_of_an_open_directory(tmp_path: Path) -> None:
    """Any order of asking gives each directory's own descriptor (shallow and past
    ``CACHE_DEPTH``), one open per directory kept."""
    deep = "/".join(f"d{i}" for i in range(DirFds.CACHE_DEPTH + 4))
    (tmp_path / deep).mkdir(parents=True)
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    asks = ["a/b/c", "a", "a/b", deep, deep.rpartition("/")[0], "a/b/c", "", deep]
    with DirFds(OsFS(), str(tmp_path)) as dirs:
        for rel in asks:
            fd = dirs.get(rel)
            assert os.readlink(f"/proc/self/fd/{fd}") == str(tmp_path / rel).rstrip("/")
            assert dirs.get(rel) == fd


SPEC: dict[str, str | tuple[str, str]] = {
    ".env": "KEY=secret\n",
    ".gitignore": "*.log\nbuild/\n",
    "a/one.txt": "one\n",
    "a/two.txt": "two\n",
    "a/alias.txt": ("hardlink", ".env"),  # a secret's hard link among ordinary files
    "a/b/.gitignore": "skip.txt\n!keep.log\n",
    "a/b/skip.txt": "skipped\n",
    "a/b/keep.log": "kept\n",
    "a/b/x.log": "ignored\n",
    "a/b/c/deep.txt": "deep\n",
    "a/b/c/bin.dat": "\x00binary\n",
    "a/b/c/bad.txt": "x",  # rewritten below as invalid UTF-8
    "a/twin1.txt": "twin\n",
    "a/b/twin2.txt": ("hardlink", "a/twin1.txt"),  # an ordinary multi-linked file
    "build/out.js": "built\n",
    "real/inside.txt": "inside\n",
    "linkdir": ("symlink", "real"),
    "filelink.txt": ("symlink", "a/one.txt"),
    "empty.txt": "",
    "big.txt": "line\n" * 40,
}

PATHS = [
    "a/one.txt", "a/two.txt", "a/alias.txt", "a/b/skip.txt", "a/b/keep.log", "a/b/x.log", "a/b/c/deep.txt",
    "a/b/c/bin.dat", "a/b/c/bad.txt", "a/twin1.txt", "a/b/twin2.txt", "build/out.js", "linkdir/inside.txt",
    "real/inside.txt", "filelink.txt", "empty.txt", "big.txt", "a/one.txt", "./a/two.txt", "a/b/../one.txt",
    "a/missing.txt", "a/b", "a", ".env", "a/nope/x.txt", ".git/config", "../outside", "a//one.txt",
]


def _tree(root: Path) -> Path:
    build(root, SPEC)
    (root / "a/b/c/bad.txt").write_bytes(b"\xff\xfe bad\n")
    os.mkfifo(root / "a/fifo")
    return root


def _chunks(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Cut every one-hop batch into chunks of ``size`` paths, run one after another."""

    async def sequential(fn: Any, items: Sequence[Any], limiter: Any, **kw: Any) -> list[Any]:
        out: list[Any] = []
        for i in range(0, len(items), size):
            out += await anyio.to_thread.run_sync(fn, items[i:i + size])
        return out

    monkeypatch.setattr(rf, "run_chunked", sequential)


async def _read(root: Path, paths: list[str], policy: Policy, *, shortcuts: bool) -> list[FileResult]:
    rt = Runtime(root, policy)
    if not shortcuts:  # every fact fetched on its own, every gate run on the loop
        rt.inline_reads.enabled = False
        rf._INLINE_OF[id(rt.pipeline.gates)] = (rt.pipeline.gates, None, ())
    try:
        return await rt.read_files(paths)
    finally:
        rf._INLINE_OF.clear()


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("policy", [Policy(), Policy(strict_hard_links=True), Policy(ignore_mode="discovery"),
                                    Policy(size_limit=50, read_budget=60)])
def test_batch_equals_the_plain_pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int,
                                         policy: Policy) -> None:
    root = _tree(tmp_path / "t")
    paths = [*PATHS, "a/fifo"]

    async def main() -> tuple[list[FileResult], list[FileResult]]:
        plain = await _read(root, paths, policy, shortcuts=False)
        _chunks(monkeypatch, chunk)
        fast = await _read(root, paths, policy, shortcuts=True)
        return plain, fast

    plain, fast = anyio.run(main)
    assert fast == plain
    by = {r.path: r for r in fast}
    assert by["a/alias.txt"].verdict is not None and by["a/alias.txt"].verdict.opaque
    assert by[".env"].verdict is not None and by[".env"].verdict.opaque
    if not policy.strict_hard_links:
        assert by["a/b/twin2.txt"].content == "twin\n"


@pytest.mark.parametrize("renderer", ["sentinel", "verbose", "structured"])
def test_rendered_batch_equals_the_plain_pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  renderer: str) -> None:
    root = _tree(tmp_path / "t")

    async def call(shortcuts: bool) -> Any:
        rt = Runtime(root, Policy())
        if not shortcuts:
            rt.inline_reads.enabled = False
            rf._INLINE_OF[id(rt.pipeline.gates)] = (rt.pipeline.gates, None, ())
        try:
            return await rt.call("read_files", {"paths": PATHS}, renderer=renderer)
        finally:
            rf._INLINE_OF.clear()

    async def main() -> tuple[Any, Any]:
        plain = await call(False)
        _chunks(monkeypatch, 2)
        return plain, await call(True)

    plain, fast = anyio.run(main)
    assert fast == plain


class _SwapOnSecondOpen(OsFS):
    """Rewrites ``target`` to ``text`` just before it is opened the second time."""

    def __init__(self, target: str, text: bytes) -> None:
        self.target, self.text, self.opens = target, text, 0

    def open_fd(self, path: str, dir_fd: int | None = None) -> int:
        full = path if dir_fd is None else os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        if full == self.target:
            self.opens += 1
            if self.opens == 2:
                Path(full).write_bytes(self.text)
        return super().open_fd(path, dir_fd)


@pytest.mark.parametrize(("first", "second"), [(b"\x00binary\n", b"text\n"), (b"text\n", b"\x00binary\n")])
def test_spellings_read_in_two_chunks_share_the_first_read_and_its_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: bytes, second: bytes) -> None:
    """Two spellings of one file in two chunks are each read; both get the first chunk's
    read, judged again by the gates on the open descriptor (the second chunk's judged
    another read)."""
    root = tmp_path / "t"
    (root / "d").mkdir(parents=True)
    (root / "a.txt").write_bytes(first)
    fs = _SwapOnSecondOpen(str(root / "a.txt"), second)
    _chunks(monkeypatch, 1)

    async def main() -> list[FileResult]:
        rt = Runtime(root, Policy(), fs=fs)
        return await rt.read_files(["a.txt", "d/../a.txt"])

    one, two = anyio.run(main)
    assert fs.opens == 2
    if first.startswith(b"\x00"):
        assert one.verdict is not None and one.verdict.status is Status.BINARY_FILE
        assert two.verdict is not None and two.verdict.status is Status.BINARY_FILE
        assert two.verdict.gate is Gate.READ
    else:
        assert one.content == "text\n" and one.verdict is None
        assert two.same_as == "a.txt" and two.verdict is None


# -- the direct route of a plain spelling (decided as a non-directory, judged, then opened) ----

#: Names whose answer depends on the entry's type: a directory-only rule (``cache/``, ``logs/``)
#: blocks a directory of that name but not a file; ``build`` is excluded as a directory.
TYPED: dict[str, str | tuple[str, str]] = {
    ".gitignore": "cache/\nlogs/\n*.tmp\n",
    "x/cache/inner.txt": "inner\n",
    "x/logs": "a file named like a directory rule\n",
    "x/cache.txt": "file\n",
    "x/y.tmp": "tmp\n",
    "x/ok.txt": "ok\n",
    "x/sub/.gitignore": "!y.tmp\nlocal.txt\n",
    "x/sub/y.tmp": "re-included\n",
    "x/sub/local.txt": "local\n",
    "x/.git": "gitdir: elsewhere\n",
    ".GIT/config": "[core]\n",
    "x/link.txt": ("symlink", "ok.txt"),
    "x/dirlink": ("symlink", "sub"),
    "x/secret.pem": "-----BEGIN PRIVATE KEY-----\n",
}
TYPED_PATHS = ["x/cache", "x/cache/inner.txt", "x/logs", "x/cache.txt", "x/y.tmp", "x/ok.txt", "x/sub/y.tmp",
               "x/sub/local.txt", "x/sub", "x/.git", ".GIT/config", "x/link.txt", "x/dirlink/y.tmp",
               "x/secret.pem", "x/none.txt", "x/ok.txt/more", "x/fifo"]


@pytest.mark.parametrize("policy", [Policy(), Policy(ignore_mode="discovery"), Policy(size_limit=4),
                                    Policy(enforce_secrets=False)])
def test_direct_route_answers_as_the_plain_pipeline_for_every_type(tmp_path: Path, policy: Policy) -> None:
    """Directories, a file named like a directory rule, symlinks (file and directory), a
    FIFO, git internals, secrets, missing names and a file used as a directory: each is
    answered by the direct route (or handed to the general one) exactly as the plain
    pipeline answers it."""
    root = tmp_path / "t"
    build(root, TYPED)
    os.mkfifo(root / "x/fifo")

    async def main() -> tuple[list[FileResult], list[FileResult]]:
        return (await _read(root, TYPED_PATHS, policy, shortcuts=False),
                await _read(root, TYPED_PATHS, policy, shortcuts=True))

    plain, fast = anyio.run(main)
    assert fast == plain
    by = {r.path: r for r in fast}
    logs = by["x/logs"].verdict  # a file: the directory rule does not apply
    assert logs is None or logs.gate is Gate.SIZE
    if policy.ignore_mode == "block":
        assert by["x/cache"].verdict is not None and by["x/cache"].verdict.gate is Gate.IGNORE
    assert by["x/fifo"].verdict is not None and by["x/fifo"].verdict.status is Status.NOT_A_FILE


async def _gates_on_direct_facts(root: Path, paths: list[str], policy: Policy) -> tuple[int, list[str]]:
    """Read ``paths``; for every spelling the direct route cleared of all gates, run each
    gate itself on its facts: (how many were cleared so, the gates that did not pass)."""
    rt = Runtime(root, policy)
    seen: list[Any] = []
    run = rt.pipeline.run

    async def spy(facts: Any, ctx: Any, source: Any, **kw: Any) -> Any:
        seen.append((facts, ctx))
        return await run(facts, ctx, source, **kw)

    rt.pipeline.run = spy  # type: ignore[method-assign]
    await rt.read_files(paths)
    gates = rt.pipeline.gates
    cleared = 0
    failed: list[str] = []
    for facts, ctx in seen:
        for f in facts:
            if f.cleared < len(gates):
                continue
            cleared += 1
            for g in gates:
                got = g.check(f, ctx)
                if got is not None and not isinstance(got, Verdict):
                    got = await got
                if got is not None:
                    failed.append(f"{f.request}: {g.name}")
    return cleared, failed


@pytest.mark.parametrize("policy", [Policy(), Policy(strict_hard_links=True), Policy(size_limit=50),
                                    Policy(enforce_secrets=False)])
def test_every_gate_passes_what_the_direct_route_cleared(tmp_path: Path, policy: Policy) -> None:
    """The direct route clears a path of every gate without running them when the built-in
    gates alone are in place; each gate, run on those facts, passes them too."""
    root = _tree(tmp_path / "t")
    build(root, TYPED)
    paths = [*PATHS, *TYPED_PATHS, "a/fifo"]
    cleared, failed = anyio.run(_gates_on_direct_facts, root, paths, policy)
    assert failed == []
    assert cleared >= 8  # not vacuous: the plain text files took the direct route


def test_direct_route_takes_the_plain_files(tmp_path: Path) -> None:
    """A plain text file is read by the direct route: its resolution is the descriptor's
    ``fstat`` (no ``lstat`` of the name), and its facts clear every gate."""
    root = _tree(tmp_path / "t")
    calls: list[str] = []
    real_stat = os.stat

    def stat(path: Any, *a: Any, **kw: Any) -> os.stat_result:
        if kw.get("dir_fd") is not None and not kw.get("follow_symlinks", True):
            calls.append(str(path))
        return real_stat(path, *a, **kw)

    async def main() -> list[FileResult]:
        rt = Runtime(root, Policy())
        rt.inline_reads.enabled = False
        return await rt.read_files(["a/one.txt", "a/two.txt", "a/b/c/deep.txt", "filelink.txt"])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "stat", stat)
        # files written a moment ago get a second look at their names after the fstat
        # (fs.seen_links: an alias renamed away); as if they were older, that look is none
        mp.setattr(_read_facts, "RELINK_MARGIN_NS", -(1 << 61))
        mp.setattr(_read_batch, "RELINK_MARGIN_NS", -(1 << 61))  # (a worker's batch route)
        got = anyio.run(main)
    assert [r.content for r in got] == ["one\n", "two\n", "deep\n", None]
    assert got[3].same_as == "a/one.txt"  # the link leads to the file given first
    assert "one.txt" not in calls and "two.txt" not in calls and "deep.txt" not in calls
    assert "filelink.txt" in calls  # a symlink: the general route resolves it
