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

from pathgate import FileResult, Gate, Policy, Runtime, Status
from pathgate.runtime.fs import DirFds, OsFS
from pathgate.runtime.gates import lexical_name
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
