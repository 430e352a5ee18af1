"""code_search with RE2: the dialect and its errors, an event loop that is never stalled,
``\\n``-separated lines (equal to ``grep -n``), files over the read limit, descriptors."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate import Policy, Runtime
from pathgate.errors import ToolArgumentError
from pathgate.runtime.tools import _scan
from pathgate.runtime.tools import code_search as cs_mod
from pathgate.runtime.tools._regex import MAX_PATTERN, compile_regex

pytestmark = pytest.mark.anyio

#: The event loop must never be starved longer than this by a search.
MAX_GAP = 0.5


@asynccontextmanager
async def heartbeat() -> AsyncIterator[list[float]]:
    """A task ticking every 10 ms on the same loop; yields [longest gap seen] (seconds)."""
    gaps = [0.0]
    async with anyio.create_task_group() as tg:
        async def beat() -> None:
            last = anyio.current_time()
            while True:
                await anyio.sleep(0.01)
                now = anyio.current_time()
                gaps[0] = max(gaps[0], now - last)
                last = now

        tg.start_soon(beat)
        try:
            yield gaps
        finally:
            tg.cancel_scope.cancel()


async def bounded(call: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """Run ``call``; return (its result, how many regex compiles and scan steps ran on the
    event loop's own thread: 0 when all of RE2's work ran in worker threads). A count, not
    a heartbeat's gap: a loaded machine delays a heartbeat without anything holding the loop."""
    loop = threading.get_ident()
    on_loop, ran = [0], [0]
    real_compile, real_step = cs_mod.compile_regex, _scan.Scanner.step

    def compile_(*a: Any, **k: Any) -> Any:
        on_loop[0] += threading.get_ident() == loop
        ran[0] += 1
        return real_compile(*a, **k)

    def step(self: _scan.Scanner, *a: Any, **k: Any) -> Any:
        on_loop[0] += threading.get_ident() == loop
        ran[0] += 1
        return real_step(self, *a, **k)

    cs_mod.compile_regex, _scan.Scanner.step = compile_, step  # type: ignore[method-assign]
    try:
        result = await call()
    finally:
        cs_mod.compile_regex, _scan.Scanner.step = real_compile, real_step  # type: ignore[method-assign]
    assert ran[0] > 0, "the search neither compiled nor scanned: nothing was measured"
    return result, on_loop[0]


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.txt").write_text("a" * 27 + "\nneedle\n" + "x" * 30 + "y\n")
    return Runtime(root)


# -- the dialect --------------------------------------------------------------------------


@pytest.mark.parametrize(("regex", "named"), [
    (r"(a)\1", "backreferences"),
    (r"(?P<n>a)(?P=n)", "named backreferences"),
    ("(?=a)", "look-ahead"),
    ("(?!a)", "negative look-ahead"),
    ("(?<=a)b", "look-behind"),
    ("(?<!a)b", "negative look-behind"),
    ("(?>a)", "atomic groups"),
    ("a++", "possessive quantifiers"),
    (r"a\Z", r"`\Z`"),
    ("x{99999999999}", "repetition count {99999999999} is over 1000"),
    ("x{1001}", "over 1000"),
    ("x{2,99999}", "over 1000"),
    ("(" * 2000, "missing )"),
    (r"a\nb", "hits are single lines"),
    ("(unclosed", "missing )"),
    ("x" * (MAX_PATTERN + 1), "the limit is"),
])
async def test_unsupported_constructs_are_named(anyio_backend: str, rt: Runtime, regex: str, named: str) -> None:
    out, gap = await bounded(lambda: rt.call("code_search", {"regex": regex}))
    assert out["error_type"] == "invalid_arguments" and out["field"] == "regex", out
    assert named in out["error"] and "`regex`" in out["error"]
    assert "no backreferences or look-around" in out["error"]
    assert gap == 0


def test_error_text_is_short_and_names_the_argument() -> None:
    with pytest.raises(ToolArgumentError) as info:
        compile_regex("(" * 20_000)
    assert info.value.field == "regex" and len(str(info.value)) < 400


def test_huge_program_is_refused_clearly() -> None:
    with pytest.raises(ToolArgumentError, match="too large"):
        compile_regex(r"\pL{1000}\pL{1000}\pL{1000}")
    with pytest.raises(ToolArgumentError, match=r"nested counts multiply"):
        compile_regex(r"((\pL{100}){100})")


@pytest.mark.parametrize("regex", [r"[\]{99999}]", r"\{99999}", "[[:alpha:]]{3}", r"(?i)NEEDLE", r"\bneedle\b",
                                   "(" * 2000 + "needle" + ")" * 2000, r"\d*", "^needle$", r"\pL+"])
async def test_supported_syntax(anyio_backend: str, rt: Runtime, regex: str) -> None:
    res, gap = await bounded(lambda: rt.code_search(regex, max_results=0))
    assert gap == 0
    assert isinstance(res.hits, tuple)


async def test_nested_groups_find_their_line(anyio_backend: str, rt: Runtime) -> None:
    res = await rt.code_search("(" * 2000 + "needle" + ")" * 2000)
    assert [(h.path, h.line, h.text) for h in res.hits] == [("a.txt", 2, "needle")]


# -- never stalls the loop ----------------------------------------------------------------


async def test_catastrophic_backtracking_is_linear(anyio_backend: str, rt: Runtime) -> None:
    res, gap = await bounded(lambda: rt.code_search("(a+)+$"))
    assert [(h.line, h.text) for h in res.hits] == [(1, "a" * 27)]
    res, gap2 = await bounded(lambda: rt.code_search("(x+x+)+y"))
    assert [h.line for h in res.hits] == [3]
    assert gap == gap2 == 0


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(atoms=st.lists(st.sampled_from(["a", "b", "(", ")", "|", "*", "+", "?", "{2,5}", "[ab]", ".",
                                       "(a|aa)", "\\w", "\\s", "^", "$", "(?i)", "\\b", "x{999}"]),
                      min_size=1, max_size=24))
def test_generated_regexes_are_bounded(tmp_path: Path, atoms: list[str]) -> None:
    root = tmp_path / "gen"
    if not root.exists():
        root.mkdir()
        (root / "f.txt").write_text(("ab" * 40 + "a" * 200 + "\n") * 200)
    rt = Runtime(root)

    async def one() -> None:
        out, gap = await bounded(lambda: rt.call("code_search", {"regex": "".join(atoms), "max_results": 5}))
        assert gap == 0
        assert "hits" in out or out.get("field") == "regex", out

    anyio.run(one)


async def test_timeout_returns_mid_file_and_frees_descriptors(
        anyio_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "big"
    root.mkdir()
    (root / "huge.log").write_bytes((b"z" * 99 + b"\n") * (300_000))  # 30 MB, over the read limit
    monkeypatch.setattr(_scan, "MAX_REGION", 1 << 20)
    rt = Runtime(root, policy=Policy(size_limit=1 << 20))
    hops = 0
    real_step = _scan.Scanner.step

    def step(self: _scan.Scanner, budget: int = 1 << 20) -> None:
        nonlocal hops
        hops += 1
        real_step(self, 1 << 20)  # at most 1 MiB a hop
        if hops == 3:
            anyio.from_thread.run_sync(scope.cancel)

    monkeypatch.setattr(_scan.Scanner, "step", step)
    before = set(os.listdir("/proc/self/fd"))
    async with heartbeat() as gaps:
        with anyio.CancelScope() as scope:
            await rt.code_search("needle")
    assert scope.cancelled_caught and hops == 3  # about 30 hops were needed for the whole file
    assert set(os.listdir("/proc/self/fd")) <= before
    assert gaps[0] < MAX_GAP


async def test_big_file_is_searched_in_pieces(anyio_backend: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "big"
    root.mkdir()
    lines = [f"line {i}" + (" needle" if i % 50_000 == 7 else "") for i in range(200_000)]
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_scan, "MAX_REGION", 100_000)
    monkeypatch.setattr(_scan, "MIN_REGION", 100_000)
    rt = Runtime(root, policy=Policy(size_limit=1000))
    res = await rt.code_search("needle", context=2, max_results=0)
    assert [(h.line, h.text) for h in res.hits] == [(i + 1, lines[i]) for i in range(200_000) if i % 50_000 == 7]
    for h in res.hits:
        assert h.context_before == tuple(lines[h.line - 3:h.line - 1])
        assert h.context_after == tuple(lines[h.line:h.line + 2])
    assert res.skipped_too_large == 0


# -- lines are \n-separated ---------------------------------------------------------------

ODD = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\r\n", "\n", "\n\n"]


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.one_of(st.sampled_from(ODD), st.sampled_from(["needle", "hay", "needle hay", " "])),
                      min_size=1, max_size=60))
def test_line_numbers_equal_grep(tmp_path: Path, parts: list[str]) -> None:
    root = tmp_path / "odd"
    root.mkdir(exist_ok=True)
    data = "".join(parts).encode()
    (root / "f.c").write_bytes(data)
    res = anyio.run(lambda: Runtime(root).code_search("needle", max_results=0))
    got = [(h.line, h.text) for h in res.hits]
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    want = [(i + 1, s.removesuffix(b"\r").decode()) for i, s in enumerate(lines) if b"needle" in s]
    assert got == want
    grep = shutil.which("grep")
    if grep is not None:
        out = subprocess.run([grep, "-n", "-a", "needle", "f.c"], cwd=root, capture_output=True).stdout
        assert [h.line for h in res.hits] == [int(x.split(b":", 1)[0]) for x in out.splitlines()]


async def test_context_lines_and_crlf(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "f.txt").write_bytes("one\x0ctwo\r\nneedle\x85x\u2028y\r\nthree\r\nfour".encode())
    res = await Runtime(root).code_search("needle", context=2)
    (hit,) = res.hits
    assert (hit.line, hit.text) == (2, "needle\x85x\u2028y")
    assert hit.context_before == ("one\x0ctwo",) and hit.context_after == ("three", "four")


async def test_hits_over_many_files_keep_order_and_cap(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "many"
    for d in ("a", "a/b", "a/b/c", "b", "z"):
        (root / d).mkdir(parents=True)
    names = [f"{d}/f{i}.txt" for d in ("a", "a/b", "a/b/c", "b", "z") for i in range(30)]
    for n in names:
        (root / n).write_text("x\nneedle\n\n" if hash(n) % 3 else "")
    (root / "a" / "bin.dat").write_bytes(b"needle\x00")
    want = sorted((n, 2) for n in names if (root / n).stat().st_size)
    res = await Runtime(root).code_search("needle", max_results=0)
    assert [(h.path, h.line) for h in res.hits] == want and res.skipped_binary == 1
    res = await Runtime(root).code_search("needle", max_results=7)
    assert [(h.path, h.line) for h in res.hits] == want[:7] and res.truncated
    res = await Runtime(root).code_search("^$", max_results=0)  # the empty line 3, never a joint
    assert [(h.path, h.line) for h in res.hits] == sorted((n, 3) for n, _ in want)
    res = await Runtime(root).code_search(r"\Aneedle|x\z", max_results=0)  # text anchors: per line, as rg
    assert [(h.path, h.line) for h in res.hits] == sorted([(n, 1) for n, _ in want] + want)


# -- descriptors --------------------------------------------------------------------------


def test_dir_chain_holds_only_the_current_chain(tmp_path: Path) -> None:
    from pathgate.runtime.fs import OsFS

    root = tmp_path / "deep"
    deep = root
    for i in range(60):
        deep = deep / f"d{i}"
    deep.mkdir(parents=True)
    (root / "d0" / "x").mkdir()
    chain = _scan.DirChain(OsFS(), str(root))
    try:
        rel = "/".join(f"d{i}" for i in range(60))
        fd = chain.enter(rel)
        assert os.path.samestat(os.fstat(fd), os.stat(deep))
        assert chain.open_count <= _scan.KEEP_DEPTH + 2
        fd = chain.enter("d0/x")
        assert os.path.samestat(os.fstat(fd), os.stat(root / "d0" / "x"))
        assert chain.open_count == 3
    finally:
        chain.close()
    assert chain.open_count == 0


def test_dir_chain_never_follows_a_swapped_directory(tmp_path: Path) -> None:
    from pathgate.runtime.fs import OsFS

    root = tmp_path / "r"
    (root / "d").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "d").rmdir()
    (root / "d").symlink_to(tmp_path / "outside")
    chain = _scan.DirChain(OsFS(), str(root))
    try:
        with pytest.raises(OSError):
            chain.enter("d")
    finally:
        chain.close()


async def test_linked_secret_is_skipped_silently(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "l"
    root.mkdir()
    (root / "ok.txt").write_text("needle\n")
    (root / "alias.txt").write_text("needle secret\n")
    os.link(root / "alias.txt", root / "other.txt")
    secret_ino = (root / "alias.txt").stat().st_ino
    rt = Runtime(root)
    res = await cs_mod.code_search(rt, "needle", linked_secret=lambda st: st.st_ino == secret_ino)
    assert [h.path for h in res.hits] == ["ok.txt"]
    assert (res.skipped_binary, res.skipped_too_large, res.skipped_unreadable) == (0, 0, 0)
    res = await cs_mod.code_search(rt, "needle", linked_secret=lambda st: False)
    assert [h.path for h in res.hits] == ["alias.txt", "ok.txt", "other.txt"]


async def test_slow_pattern_honours_a_timeout(anyio_backend: str, tmp_path: Path) -> None:
    """A pattern that makes RE2's DFA thrash runs at ~0.2 MB/s: regions shrink to its speed,
    so a timeout lands within a hop, not after the file (the old per-file scan: ~10 s)."""
    import random

    rng = random.Random(1)
    root = tmp_path / "slow"
    root.mkdir()
    data = bytearray(rng.choices(b"abcdefghijklmnopqrstuvwxyz ", k=2 << 20))
    data[200::200] = b"\n" * len(data[200::200])
    (root / "f.txt").write_bytes(bytes(data))
    rt = Runtime(root, Policy(read_budget=1 << 40))  # no output budget to end the search early
    async with heartbeat() as gaps:
        began = anyio.current_time()
        with anyio.move_on_after(0.3) as scope:
            await rt.code_search(r"(a|b|c|d|e)*(f|g)*[a-z]{50}q", max_results=0)
        took = anyio.current_time() - began
    assert scope.cancelled_caught
    assert took < 2.3  # bounded: the timeout plus at most a few hops, on a busy machine
    assert gaps[0] < MAX_GAP
