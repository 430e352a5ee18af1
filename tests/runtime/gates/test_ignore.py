from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pathgate import Gate, Policy, Rule, Runtime, Status
from pathgate.runtime.fs import OsFS
from tests.runtime.gates._tree import BACKENDS, SeamFS, read_one, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {
            ".gitignore": "build/\n!build/keep.js\n*.log\n",
            "build/out.js": "o\n",
            "build/keep.js": "k\n",
            "logs/app.log": "l\n",
            "src/a.py": "a\n",
            "vendor/.gitignore": "*.o\n",
            "vendor/lib.c": "c\n",
            "to_build": "-> build/out.js",
        },
    )


@pytest.mark.anyio
@pytest.mark.parametrize("fs_backend", BACKENDS)
async def test_block_carries_rule_and_existence(tree: Path, fs_backend: str) -> None:
    r = await read_one(tree, "logs/app.log", fs_backend=fs_backend)
    v = r.verdict
    assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.IGNORE and not v.opaque
    assert v.rule == Rule(source=".gitignore", line=3, pattern="*.log")
    assert v.exists is True and v.ancestor is None and not v.fail_closed
    assert r.content is None and r.relpath == "logs/app.log"


@pytest.mark.anyio
async def test_deleted_ignored_file_gets_no_existence_claim(tree: Path) -> None:
    (tree / "logs" / "app.log").unlink()
    v = (await read_one(tree, "logs/app.log")).verdict
    assert v is not None and v.gate is Gate.IGNORE and v.rule is not None
    assert v.exists is None


@pytest.mark.anyio
async def test_negation_below_excluded_directory_stays_blocked(tree: Path) -> None:
    v = (await read_one(tree, "build/keep.js")).verdict
    assert v is not None and v.gate is Gate.IGNORE
    assert v.ancestor == "build"
    assert v.rule == Rule(source=".gitignore", line=1, pattern="build/")
    assert v.exists is True


@pytest.mark.anyio
async def test_remedy_is_offered_and_verified(tree: Path) -> None:
    v = (await read_one(tree, "build/keep.js")).verdict
    assert v is not None and v.remedy is not None
    assert v.remedy.file == ".pathgateignore" and v.remedy.ancestor == "build"
    (tree / v.remedy.file).write_text("\n".join(v.remedy.lines) + "\n")
    r = await read_one(tree, "build/keep.js")
    assert r.content == "k\n"
    assert (await read_one(tree, "build/out.js")).verdict is not None  # siblings stay excluded


@pytest.mark.anyio
async def test_symlink_to_ignored_file_is_decided_on_the_real_path(tree: Path) -> None:
    v = (await read_one(tree, "to_build")).verdict
    assert v is not None and v.gate is Gate.IGNORE and v.ancestor == "build"


@pytest.mark.anyio
async def test_agent_file_reincludes(tree: Path) -> None:
    (tree / ".pathgateignore").write_text("!*.log\n")
    assert (await read_one(tree, "logs/app.log")).content == "l\n"


@pytest.mark.anyio
async def test_builtin_defaults(tree: Path) -> None:
    write_tree(tree, {"node_modules/pkg/index.js": "x\n"})
    v = (await read_one(tree, "node_modules/pkg/index.js")).verdict
    assert v is not None and v.gate is Gate.IGNORE and v.rule is not None and v.rule.is_builtin
    assert (await read_one(tree, "node_modules/pkg/index.js", defaults=())).content == "x\n"


@pytest.mark.anyio
async def test_discovery_mode_lets_explicit_reads_through(tree: Path) -> None:
    r = await read_one(tree, "logs/app.log", ignore_mode="discovery")
    assert r.content == "l\n"


@pytest.mark.anyio
async def test_fail_closed_through_the_seam(tree: Path) -> None:
    fs = SeamFS()
    fs.unreadable.add(os.path.join(os.path.realpath(tree), "vendor", ".gitignore"))
    r = await read_one(tree, "vendor/lib.c", fs=fs)
    v = r.verdict
    assert v is not None and v.gate is Gate.IGNORE and v.status is Status.BLOCKED
    assert v.fail_closed and v.unreadable == "vendor/.gitignore"
    assert v.rule is None and v.remedy is None
    # paths the unreadable file does not govern are unaffected
    assert (await read_one(tree, "src/a.py", fs=fs)).content == "a\n"


@pytest.mark.anyio
@pytest.mark.skipif(os.geteuid() == 0, reason="root reads through chmod 000; covered through the seam")
async def test_fail_closed_chmod(tree: Path) -> None:
    gi = tree / "vendor" / ".gitignore"
    gi.chmod(0)
    try:
        v = (await read_one(tree, "vendor/lib.c")).verdict
    finally:
        gi.chmod(0o644)
    assert v is not None and v.fail_closed and v.unreadable == "vendor/.gitignore"


@pytest.mark.anyio
async def test_ignore_index_is_shared_and_notices_edits(tree: Path) -> None:
    rt = Runtime(tree, Policy())
    (r,) = await rt.read_files(["src/a.py"])
    assert r.content == "a\n"
    (tree / ".gitignore").write_text("src/\n")
    os.utime(tree / ".gitignore", ns=(1, 1))  # a different stat signature, whatever the clock
    (r,) = await rt.read_files(["src/a.py"])
    assert r.verdict is not None and r.verdict.gate is Gate.IGNORE


def test_seam_errno() -> None:
    fs = SeamFS()
    fs.unreadable.add("/x")
    with pytest.raises(PermissionError) as info:
        fs.read_bytes("/x")
    assert info.value.errno == errno.EACCES
    assert isinstance(fs, OsFS)
