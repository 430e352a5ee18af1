"""A race that swaps directories and files for symlinks while agents write.

A thread exchanges, as fast as it can, with ``renameat2(RENAME_EXCHANGE)`` (atomic):
a real directory ``sub`` with a symlink to a directory outside the project, a real directory
``sub2`` with a symlink to ``.git``, and a regular file ``data.txt`` with a symlink to
``.env``. Meanwhile writes go to ``sub/…``, ``sub2/…`` and ``data.txt``. Whatever the
interleaving: nothing is written outside the project or into ``.git``, the secret is never
touched, and no temporary file is left. Bounded: a fixed number of writes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import threading
from pathlib import Path

import anyio
import pytest

from pathgate import Status
from tests.runtime.tools._writes import make_rt, snapshot, temp_files, write_tree

pytestmark = pytest.mark.anyio

AT_FDCWD = -100
RENAME_EXCHANGE = 2
WRITES = 80  # per target kind (a longer run: the soak and `-m slow` tests)


def _exchange_fn() -> object:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        pytest.skip("renameat2 is not available in this libc")
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


def _exchange(fn: object, a: Path, b: Path) -> None:
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) != 0:  # type: ignore[operator]
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


async def test_symlink_swaps_during_writes(anyio_backend: str, tmp_path: Path) -> None:
    fn = _exchange_fn()
    outside = write_tree(tmp_path / "outside", {"victim.txt": "untouched\n"})
    root = write_tree(tmp_path / "proj", {
        "sub/keep.txt": "k", "sub2/keep.txt": "k", "data.txt": "data\n",
        ".env": "SECRET=hunter2\n", ".git/HEAD": "ref: refs/heads/main\n", ".git/hooks/README": "r\n",
        "swap": f"-> {outside}", "gitlink": "-> .git", "envlink": "-> .env",
    })
    try:
        _exchange(fn, root / "sub", root / "swap")
        _exchange(fn, root / "sub", root / "swap")
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
            pytest.skip(f"this filesystem has no RENAME_EXCHANGE ({exc})")
        raise
    outside_before = snapshot(outside)
    git_before = snapshot(root / ".git")
    rt = make_rt(root, require_read_before_write=False)
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:
        pairs = [("sub", "swap"), ("sub2", "gitlink"), ("data.txt", "envlink")]
        while not stop.is_set():
            for a, b in pairs:
                _exchange(fn, root / a, root / b)
                swaps[0] += 1

    statuses: dict[str, int] = {}
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    try:
        with anyio.fail_after(120):
            for i in range(WRITES):
                for path in (f"sub/f{i}.txt", f"sub2/g{i}.txt", "data.txt"):
                    result = await rt.write_file(path, f"written {i}\n")
                    key = "ok" if result.ok else result.verdict.status.name  # type: ignore[union-attr]
                    statuses[key] = statuses.get(key, 0) + 1
    finally:
        stop.set()
        thread.join()

    assert snapshot(outside) == outside_before  # 0 writes outside the project
    assert snapshot(root / ".git") == git_before  # 0 writes into .git
    assert (root / ".env").read_bytes() == b"SECRET=hunter2\n"  # 0 secrets touched
    assert not temp_files(root) and not temp_files(outside)
    assert sum(statuses.values()) == 3 * WRITES
    assert set(statuses) <= {"ok", Status.FILE_OUTSIDE_PROJECT.name, Status.BLOCKED.name,
                             Status.FILE_WRITE_ERROR.name, Status.FILE_CHANGED_SINCE_READ.name,
                             Status.NOT_A_FILE.name}
    print(f"\n{anyio_backend}: writes={3 * WRITES} swaps={swaps[0]} outcomes={statuses}")
