"""A racing thread swaps a directory ``d`` with a symlink (atomic ``renameat2`` with
``RENAME_EXCHANGE``) while glob, list_directory, read_files and code_search run (issue 13).

The symlink leads to (a) a directory holding a secret, (b) an ignored directory, (c) a
directory outside the project. Whatever moment each call observes, no output may carry a
name or content that exists only in the target: 0 leaks over a bounded run (longer under
``slow``). The assertions are on counts of leaks, not on timing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime

RENAME_EXCHANGE = 2
AT_FDCWD = -100
ONLY = "ONLYTARGET"  # in names that exist only in the targets
CONTENT = "CONTENTMARK"  # in contents that exist only in the targets


def _renameat2() -> Any:
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is not None:
        fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

        def call(a: bytes, b: bytes) -> int:
            return int(fn(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE))
    else:  # pragma: no cover - old glibc: the raw syscall (x86_64: 316)
        syscall = libc.syscall

        def call(a: bytes, b: bytes) -> int:
            return int(syscall(316, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE))
    return call


def _exchange_or_skip(tmp: Path) -> Any:
    call = _renameat2()
    a, b = tmp / "xa", tmp / "xb"
    a.mkdir()
    os.symlink("xa", b)
    if call(bytes(a), bytes(b)) != 0:
        pytest.skip(f"renameat2(RENAME_EXCHANGE) unavailable: {os.strerror(ctypes.get_errno())}")
    return call


def _tree(tmp: Path, target: str) -> tuple[Path, Path, Path]:
    root = tmp / "p"
    (root / "swapme").mkdir(parents=True)
    (root / "swapme" / "f.txt").write_text("fine\n")
    (root / ".gitignore").write_text("build/\n")
    if target == "secret":
        dest = root / "vault"
        dest.mkdir()
        (dest / ".env").write_text(f"{CONTENT}=1\n")
    elif target == "ignored":
        dest = root / "build"
        dest.mkdir()
    else:
        dest = tmp / "outside"
        dest.mkdir()
    # a symlink to a directory inside the project is legitimate: only its secret may not
    # show; an ignored or outside target may show nothing at all through ``swapme``
    (dest / f"{ONLY}.txt").write_text("legit\n" if target == "secret" else f"{CONTENT}\n")
    (dest / ".env.local").write_text(f"{CONTENT}\n")
    link = root / "l"
    os.symlink(os.path.relpath(dest, root), link)
    return root, root / "swapme", link


CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "glob": ("glob", {"pattern": "**/*", "limit": 0}),
    "list_directory": ("list_directory", {"path": "swapme"}),
    "read_files": ("read_files", {"paths": ["swapme/f.txt", f"swapme/{ONLY}.txt", "swapme/.env.local"]}),
    "code_search": ("code_search", {"regex": "CONTENT.ARK", "max_results": 0}),
}


def _count_leaks(out: Any, tool: str, target: str) -> int:
    """Content only a target holds, a name only an ignored/outside target holds seen
    through ``swapme``, or a secret's name: each occurrence is a leak (read_files echoes
    its own requests, so only content counts there)."""
    text = json.dumps(out, default=str)
    n = text.count(CONTENT)
    if tool == "read_files":
        return n
    n += text.count(".env")
    if target != "secret":
        n += text.count(ONLY) if tool == "list_directory" else text.count(f"swapme/{ONLY}")
    return n


def run_race(tmp: Path, target: str, tool: str, seconds: float) -> tuple[int, int]:
    exchange = _exchange_or_skip(tmp)
    root, d, link = _tree(tmp, target)
    stop = threading.Event()

    def racer() -> None:
        a, b = bytes(d), bytes(link)
        while not stop.is_set():
            exchange(a, b)

    name, args = CALLS[tool]
    calls = leaks = 0

    async def main() -> None:
        nonlocal calls, leaks
        rt = Runtime(root, policy=Policy())
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            out = await rt.call(name, args)
            calls += 1
            n = _count_leaks(out, tool, target)
            if n and os.environ.get("RACE_SHOW") and leaks == 0:
                print("LEAK", json.dumps(out, default=str)[:600])
            leaks += n

    t = threading.Thread(target=racer, daemon=True)
    t.start()
    try:
        anyio.run(main)
    finally:
        stop.set()
        t.join()
        if d.is_symlink():  # leave the tree as it was
            exchange(bytes(d), bytes(link))
    return calls, leaks


PARAMS = [pytest.param(tool, target, id=f"{tool}-{target}")
          for tool in CALLS for target in ("secret", "ignored", "outside")]


@pytest.mark.parametrize(("tool", "target"), PARAMS)
def test_swap_race_no_leak(tmp_path: Path, tool: str, target: str) -> None:
    calls, leaks = run_race(tmp_path, target, tool, 0.4)
    assert calls > 0
    assert leaks == 0, f"{leaks} leaks in {calls} calls"


@pytest.mark.slow
@pytest.mark.parametrize(("tool", "target"), PARAMS)
def test_swap_race_no_leak_long(tmp_path: Path, tool: str, target: str) -> None:
    calls, leaks = run_race(tmp_path, target, tool, 10.0)
    assert leaks == 0, f"{leaks} leaks in {calls} calls"

