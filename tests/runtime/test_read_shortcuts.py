"""The shortcuts of issue 19's fourth pass give exactly what the general code gives.

* the real filesystem's read (``_read_open_os``) against the seam's route (``_read_open``
  through an ``OsFS`` subclass, which takes the general code), file by file;
* the secret matcher's per-path answers against a fresh matcher's, and its bound;
* the chain without host middlewares (one frame) against the chain of links a host
  middleware makes, answer for answer and span for span, errors and cancellation included.
"""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.config import DEFAULT_SECRET_PATTERNS
from pathgate.runtime.fs import OPEN_FLAGS, OsFS, ReadRequest
from pathgate.runtime.fs import _read as read_mod
from pathgate.runtime.gates.secrets import MAX_CACHED_PATH, PATH_CACHE, SecretMatcher
from tests.runtime.gates._tree import write_tree


class _SeamFS(OsFS):
    """The real filesystem seen through a subclass: ``_read_open`` takes its general route."""


def _facts(o: read_mod.Opened) -> tuple[Any, ...]:
    st = o.st
    kind = None if st is None else (stat.S_IFMT(st.st_mode), st.st_ino, st.st_size)
    return (o.error, kind, o.changed, o.data, o.text, o.binary)


def _both(path: str, req: ReadRequest) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    fast = read_mod._read_open(OsFS(), os.open(path, OPEN_FLAGS), req, None)
    general = read_mod._read_open(_SeamFS(), os.open(path, OPEN_FLAGS), req, None)
    return _facts(fast), _facts(general)


@pytest.mark.parametrize("content", [b"", b"x", b"hello\n", b"a\x00b", b"\xff\xfe", b"caf\xc3\xa9",
                                     b"z" * 65536, b"0123456789abcdef" * 70000])
@pytest.mark.parametrize("slack", [-1, 0, 1, 10])
def test_real_fs_read_equals_the_general_route(tmp_path: Path, content: bytes, slack: int) -> None:
    f = tmp_path / "f"
    f.write_bytes(content)
    st = os.lstat(f)
    for identity in ((st.st_dev, st.st_ino), None, (st.st_dev, st.st_ino + 1)):
        req = ReadRequest(str(f), max(0, len(content) + slack), identity)
        fast, general = _both(str(f), req)
        assert fast == general


def test_real_fs_read_of_a_directory_and_a_fifo_equals_the_general_route(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "p")
    for name in ("d", "p"):
        req = ReadRequest(str(tmp_path / name), 100, None)
        fast, general = _both(str(tmp_path / name), req)
        assert fast == general and fast[1] is not None and fast[3] is None


@pytest.mark.parametrize("grown", [1, 5, (1 << 20) + 7])
def test_real_fs_read_goes_on_past_a_stale_fstat_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      grown: int) -> None:
    """A file that grew after its ``fstat``: both routes read on to end of file (or the limit)."""
    data = b"L\n" * 600 + b"x" * grown
    f = tmp_path / "f"
    f.write_bytes(data)
    real = os.fstat

    def stale(fd: int) -> os.stat_result:
        st = real(fd)
        fields = list(st[:10])
        fields[stat.ST_SIZE] = 1200  # what it held before it grew
        return os.stat_result(fields)

    monkeypatch.setattr(read_mod.os, "fstat", stale)
    for limit in (len(data), len(data) - 1, 1 << 30):
        fast, general = _both(str(f), ReadRequest(str(f), limit, None))
        assert fast == general
        assert fast[3] == data[: limit + 1]


def _fstated(path: str, limit: int, size: int | None, short_is_end: bool) -> tuple[Any, ...]:
    """``read_fstated`` of ``path`` (``short_is_end`` as the direct route on a local tree
    passes it); ``size``: the size its ``fstat`` is made to say (``None``: the true one)."""
    fd = os.open(path, OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if size is not None:
            fields = list(st[:10])
            fields[stat.ST_SIZE] = size
            st = os.stat_result(fields)
        return _facts(read_mod.read_fstated(fd, st, limit, None, short_is_end))
    finally:
        os.close(fd)


@pytest.mark.parametrize("content", [b"", b"x", b"hello\n", b"a\x00b", b"\xff\xfe", b"z" * 65536,
                                     b"0123456789abcdef" * 70000],
                         ids=["empty", "x", "line", "nul", "invalid", "64KiB", "1.1MB"])
@pytest.mark.parametrize("slack", [-1, 0, 1, 10])
def test_short_read_as_the_end_equals_reading_to_an_empty_read(tmp_path: Path, content: bytes,
                                                               slack: int) -> None:
    """A first read shorter than asked taken for the end of the file (a local tree) gives what
    reading on to an empty read gives, also when ``fstat`` says less (the file grew: the read
    is not short, it goes on) or more (it shrank) than the file holds; with the true size,
    what the general route gives."""
    f = tmp_path / "f"
    f.write_bytes(content)
    limit = max(0, len(content) + slack)
    assert _fstated(str(f), limit, None, True) == _both(str(f), ReadRequest(str(f), limit, None))[1]
    for size in (None, 0, max(0, len(content) - 3), len(content) + 5):
        assert _fstated(str(f), limit, size, True) == _fstated(str(f), limit, size, False), size


def _paths(rng: random.Random, n: int) -> list[str]:
    names = [".env", ".env.example", "id_rsa", "id_rsa.pub", "server.key", "a.pem", "credentials",
             ".netrc", "notes.txt", "x.py", ".env~", "#.env#", "id_rsa.bak", ".ENV ", "k.pem:$DATA",
             ".aws", ".ssh", "secrets", "config.json", "prod.env", "README.md"]
    out = []
    for _ in range(n):
        depth = rng.randrange(0, 4)
        out.append("/".join(rng.choice(names) for _ in range(depth + 1)))
    out.append("a/" * (MAX_CACHED_PATH // 2) + ".env")  # longer than the cache keeps
    out.append("a/" * (MAX_CACHED_PATH // 2) + "x.py")
    return out


@pytest.mark.parametrize("patterns", [DEFAULT_SECRET_PATTERNS, ("*.pem", "config/*.json", "secret*", "*[0-9].key")])
def test_secret_answers_kept_per_path_equal_a_fresh_matcher(patterns: tuple[str, ...]) -> None:
    paths = _paths(random.Random(19), 3000)
    cached = SecretMatcher(patterns)
    first = [cached.is_secret(p) for p in paths]
    again = [cached.is_secret(p) for p in paths]  # from the cache
    fresh = [SecretMatcher(patterns).is_secret(p) for p in paths]
    assert first == again == fresh
    assert any(first) and not all(first)
    assert paths[-2] not in cached._paths and paths[-1] not in cached._paths


def test_secret_path_cache_is_bounded() -> None:
    m = SecretMatcher(DEFAULT_SECRET_PATTERNS)
    for i in range(PATH_CACHE + 10):
        m.is_secret(f"d{i}/f.txt")
    assert 0 < len(m._paths) <= PATH_CACHE
    assert m.is_secret("d1/.env") and not m.is_secret("d1/f.txt")


async def _passthrough(call: Any, call_next: Any) -> Any:
    return await call_next(call)


def _runtimes(root: Path, **kw: Any) -> tuple[Runtime, Runtime]:
    plain = Runtime(root, Policy(), **kw)
    linked = Runtime(root, Policy(), **kw)
    linked.use(_passthrough)  # the chain of links build_chain makes
    return plain, linked


CALLS: list[tuple[str, Any]] = [
    ("read_files", {"paths": ["a.txt", "build/out.js", ".env", "missing.txt", "d/b.txt", "a.txt"]}),
    ("read_files", {"paths": ["a.txt"]}),
    ("read_files", {"paths": "a.txt"}),
    ("read_files", {"paths": ["a.txt"], "offset": 0}),
    ("read_files", {"paths": ["a.txt"], "bogus": 1}),
    ("read_files", None),
    ("no_such_tool", {}),
    ("glob", {"pattern": "**"}),
    ("list_directory", {"path": "d"}),
    ("code_search", {"regex": "hello"}),
    ("boom", {}),
]


def _tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "root", {"a.txt": "hello\n", "d/b.txt": "hello b\n", ".gitignore": "build/\n",
                                          "build/out.js": "x\n", ".env": "KEY=1\n"})


async def _boom(args: Any) -> Any:
    raise RuntimeError("host tool failed with a path in its message: .env")


@pytest.mark.anyio
@pytest.mark.parametrize("model", [None, "gpt-4o-mini", "claude"])
async def test_one_frame_chain_answers_as_the_linked_chain(tmp_path: Path, model: str | None) -> None:
    plain, linked = _runtimes(_tree(tmp_path))
    for rt in (plain, linked):
        rt.register_tool("boom", _boom)
    for tool, args in CALLS:
        for renderer in (None, "sentinel", "structured"):
            got = await plain.call(tool, args, model=model, renderer=renderer)
            want = await linked.call(tool, args, model=model, renderer=renderer)
            assert got == want, (tool, args, renderer)


@pytest.mark.anyio
async def test_one_frame_chain_traces_as_the_linked_chain(tmp_path: Path) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    root = _tree(tmp_path)
    spans: list[list[tuple[str, dict[str, Any]]]] = []
    for use in (False, True):
        exporter = InMemorySpanExporter()
        tp = TracerProvider()
        tp.add_span_processor(SimpleSpanProcessor(exporter))
        rt = Runtime(root, Policy(), tracer_provider=tp)
        if use:
            rt.use(_passthrough)
        rt.register_tool("boom", _boom)
        for tool, args in CALLS:
            await rt.call(tool, args, call_id="c1")
        spans.append([(s.name, dict(s.attributes or {})) for s in exporter.get_finished_spans()])
    assert spans[0] == spans[1]
    assert any(name.startswith("pathgate.block") for name, _ in spans[0])
    assert any(attrs.get("error.type") == "internal" for _, attrs in spans[0])


@pytest.mark.anyio
async def test_one_frame_chain_lets_cancellation_through(tmp_path: Path) -> None:
    rt = Runtime(_tree(tmp_path), Policy())
    started = anyio.Event()

    async def slow(args: Any) -> Any:
        started.set()
        await anyio.sleep(60)

    rt.register_tool("slow", slow)
    out: list[Any] = []
    with anyio.move_on_after(5) as outer:
        async with anyio.create_task_group() as tg:
            async def run() -> None:
                out.append(await rt.call("slow", {}))

            tg.start_soon(run)
            await started.wait()
            tg.cancel_scope.cancel()
    assert not outer.cancelled_caught and out == []  # cancelled, not turned into a result
