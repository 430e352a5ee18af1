"""code_search under a racing directory swap (issue 13): a thread atomically exchanges a
project directory ``d`` with a symlink ``d`` → an outside directory or an ignored one
(``renameat2(RENAME_EXCHANGE)``), while searches run. Every file is opened relative to its
directory's descriptor, and directories are opened without following links, so no hit may
ever come from the outside or ignored directory."""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

import anyio
import pytest

from pathgate import Runtime

AT_FDCWD = -100
RENAME_EXCHANGE = 2


def _exchanger() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        pytest.skip("needs renameat2 (glibc >= 2.28, Linux)")
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn


def make_tree(tmp: Path, target: str) -> tuple[Path, Path, Path]:
    root = tmp / "p"
    (root / "d").mkdir(parents=True)
    for i in range(20):
        (root / "d" / f"f{i}.txt").write_text("needle ok\n")
    (root / "build").mkdir()
    (root / ".gitignore").write_text("build/\n")
    outside = tmp / "outside"
    outside.mkdir()
    for where, marker in ((outside, "LEAK_OUTSIDE"), (root / "build", "LEAK_IGNORED")):
        for i in range(20):
            (where / f"f{i}.txt").write_text(f"needle {marker}\n")
    link = root / "swap"
    link.symlink_to(outside if target == "outside" else root / "build")
    return root, root / "d", link


@pytest.mark.parametrize("target", ["outside", "ignored"])
def test_swap_race_never_leaks(tmp_path: Path, target: str) -> None:
    race(tmp_path, target, seconds=2, max_calls=200)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["outside", "ignored"])
def test_swap_race_never_leaks_long(tmp_path: Path, target: str) -> None:
    race(tmp_path, target, seconds=60, max_calls=20_000)


def race(tmp_path: Path, target: str, *, seconds: float, max_calls: int) -> None:
    exchange = _exchanger()
    root, d, link = make_tree(tmp_path, target)
    stop = threading.Event()
    swaps = [0]

    def churn() -> None:
        a, b = bytes(d), bytes(link)
        while not stop.is_set():
            if exchange(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
                err = ctypes.get_errno()
                raise OSError(err, os.strerror(err))
            swaps[0] += 1

    rt = Runtime(root)
    calls = leaks = 0

    async def search() -> None:
        nonlocal calls, leaks
        with anyio.move_on_after(seconds):
            while calls < max_calls:
                res = await rt.code_search("needle", max_results=0)
                calls += 1
                leaks += sum("LEAK" in h.text for h in res.hits)

    th = threading.Thread(target=churn, daemon=True)
    th.start()
    try:
        anyio.run(search)
    finally:
        stop.set()
        th.join()
    assert calls > 10 and swaps[0] > 100
    assert leaks == 0
