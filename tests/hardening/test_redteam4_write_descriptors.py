"""Red-team pass 4, F9: a write held one descriptor per path component, so three writes of
1,000-component paths exhausted the process's descriptors and other agents' reads failed
with EMFILE. A write now holds its parent's descriptor and those of the directories it
created in (at most ``MAX_NEW_DIRS``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate import Status
from pathgate.runtime.tools._write_io import MAX_NEW_DIRS, ParentDir
from tests.runtime.tools._writes import make_rt, snapshot, write_tree

pytestmark = pytest.mark.anyio


def test_an_existing_deep_parent_holds_one_descriptor(tmp_path: Path) -> None:
    deep = "/".join(["d"] * 200)
    (tmp_path / deep).mkdir(parents=True)
    before = len(os.listdir("/proc/self/fd"))
    pd = ParentDir(str(tmp_path), deep, create=False)
    try:
        assert pd.fd >= 0 and not pd.missing
        assert len(os.listdir("/proc/self/fd")) - before == 1
        assert os.path.samestat(os.fstat(pd.fd), os.stat(tmp_path / deep))
    finally:
        pd.close()
    assert len(os.listdir("/proc/self/fd")) == before


async def test_too_many_new_directories_are_refused_and_nothing_is_left(anyio_backend: str,
                                                                        tmp_path: Path) -> None:
    root = write_tree(tmp_path / "proj", {"a.txt": "a\n", "x/keep.txt": "k\n"})
    before = snapshot(root)
    async with make_rt(root) as rt:
        deep = "x/" + "/".join(["n"] * (MAX_NEW_DIRS + 1)) + "/f.txt"
        r = await rt.write_file(deep, "PWNED\n")
        assert r.verdict is not None and r.verdict.status is Status.FILE_WRITE_ERROR
        assert snapshot(root) == before
        ok = "x/" + "/".join(["n"] * MAX_NEW_DIRS) + "/f.txt"
        assert (await rt.write_file(ok, "fine\n")).ok
    assert (root / ok).read_text() == "fine\n"
