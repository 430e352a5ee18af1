from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from pathgate import Gate, Status
from tests.runtime.gates._tree import read_one, write_tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "root",
        {".gitignore": "build/\n", "src/a.py": "a\n", "build/out.js": "o\n", "link": "-> src/a.py"},
    )


def deny_src(relpath: str) -> bool:
    return not relpath.startswith("src/")


async def adeny_src(relpath: str) -> bool:
    await anyio.sleep(0)
    return not relpath.startswith("src/")


def boom(relpath: str) -> bool:
    raise RuntimeError("host bug")


async def aboom(relpath: str) -> bool:
    raise RuntimeError("host bug")


def opaque_host_block(r: object) -> None:
    from pathgate import FileResult

    assert isinstance(r, FileResult) and r.verdict is not None
    v = r.verdict
    assert v.status is Status.BLOCKED and v.opaque and v.gate is Gate.HOST_FILTER
    assert v.rule is None and v.exists is None and r.content is None and r.relpath is None


@pytest.mark.anyio
@pytest.mark.parametrize("host_filter", [deny_src, adeny_src])
async def test_filter_blocks_opaquely(tree: Path, host_filter: object) -> None:
    opaque_host_block(await read_one(tree, "src/a.py", host_filter=host_filter))
    # the filter sees the real path, so a link into src/ is blocked too
    opaque_host_block(await read_one(tree, "link", host_filter=host_filter))


@pytest.mark.anyio
@pytest.mark.parametrize("host_filter", [deny_src, adeny_src])
async def test_filter_allows(tree: Path, host_filter: object) -> None:
    (tree / "README").write_text("r\n")
    assert (await read_one(tree, "README", host_filter=host_filter)).content == "r\n"


@pytest.mark.anyio
@pytest.mark.parametrize("host_filter", [boom, aboom])
async def test_filter_exception_fails_closed(tree: Path, host_filter: object) -> None:
    r = await read_one(tree, "src/a.py", host_filter=host_filter)
    opaque_host_block(r)


@pytest.mark.anyio
async def test_only_true_passes(tree: Path) -> None:
    opaque_host_block(await read_one(tree, "src/a.py", host_filter=lambda p: "yes"))
    opaque_host_block(await read_one(tree, "src/a.py", host_filter=lambda p: None))


@pytest.mark.anyio
async def test_filter_does_not_switch_ignore_rules_off(tree: Path) -> None:
    r = await read_one(tree, "build/out.js", host_filter=lambda p: True)
    assert r.verdict is not None and r.verdict.gate is Gate.IGNORE


@pytest.mark.anyio
async def test_filter_sees_real_relpath(tree: Path) -> None:
    seen: list[str] = []

    def record(relpath: str) -> bool:
        seen.append(relpath)
        return True

    await read_one(tree, "./src/../link", host_filter=record)
    # first the directory the spelling enters and leaves as written, then the spelling
    # (a symlink: SPEC judges host-filtered paths as written), then the real path
    assert seen == ["src", "link", "src/a.py"]


@pytest.mark.anyio
@pytest.mark.parametrize("refused", ["link", "src/a.py"])
async def test_a_symlink_is_refused_by_its_name_or_its_target(tree: Path, refused: str) -> None:
    r = await read_one(tree, "link", host_filter=lambda p: p != refused)
    opaque_host_block(r)


@pytest.mark.anyio
async def test_discovery_leaves_out_a_symlink_whose_name_is_refused(tmp_path: Path) -> None:
    from pathgate import Policy, Runtime

    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("MARKER\n")
    (tmp_path / "src/l_private").symlink_to("app.py")
    rt = Runtime(tmp_path, Policy(host_filter=lambda p: "private" not in p))
    listed = await rt.call("glob", {"pattern": "**"})
    assert listed == {"matches": ["src/app.py"], "notes": []}
    assert await rt.call("read_files", {"paths": ["src/l_private"]}) == {"src/l_private": "[BLOCKED]"}
    hits = await rt.call("code_search", {"regex": "MARKER"})
    assert [h.split(":")[0] for h in hits["hits"]] == ["src/app.py"]


@pytest.mark.anyio
@pytest.mark.parametrize("sync", [True, False])
async def test_a_refused_name_the_path_gate_would_explain_stays_opaque(tmp_path: Path, sync: bool) -> None:
    """Red team 8, F4: a refused name that is a symlink leading outside (or a loop) was
    answered "outside the project" and named in discovery notes ("omitted by the path
    check, e.g. private_out"); the same tree without it said nothing."""
    import os

    from pathgate import Policy, Runtime

    async def outputs(with_links: bool) -> object:
        root = tmp_path / str(with_links)
        (root / "src").mkdir(parents=True)
        (root / "src/app.py").write_text("x\n")
        if with_links:
            os.symlink("/etc", root / "private_out")
            os.symlink("private_loop", root / "private_loop")
            (root / "private_dir").mkdir()
            os.symlink("/etc/hostname", root / "private_dir/db_dump.sql")

        def plain(p: str) -> bool:
            return "private" not in p

        async def slow(p: str) -> bool:
            return "private" not in p

        rt = Runtime(root, Policy(host_filter=plain if sync else slow))
        calls = [("glob", {"pattern": "**/*"}), ("list_directory", {"path": "."}),
                 ("read_files", {"paths": ["src/app.py"]})]
        return [await rt.call(t, a, renderer="verbose") for t, a in calls]

    assert await outputs(True) == await outputs(False)
    root = tmp_path / "True"
    rt = Runtime(root, Policy(host_filter=lambda p: "private" not in p))
    for name in ("private_out", "private_loop"):
        assert await rt.call("read_files", {"paths": [name]}, renderer="verbose") == {name: "[BLOCKED]"}


@pytest.mark.anyio
async def test_a_refused_link_out_of_the_project_with_outside_reads_allowed(tmp_path: Path) -> None:
    """Red team 9, G2: with ``allow_outside_root=True`` the filter was asked only about the
    real (outside) path, so a refused name linking out was read and listed."""
    import os

    from pathgate import Policy, Runtime

    outside = tmp_path / "outside.txt"
    outside.write_text("OUTSIDE\n")
    root = tmp_path / "proj"
    (root / "private_dir").mkdir(parents=True)
    (root / "a.txt").write_text("x\n")
    os.symlink(outside, root / "private_out")
    os.symlink(outside, root / "private_dir/db_dump.sql")
    rt = Runtime(root, Policy(allow_outside_root=True, host_filter=lambda p: "private" not in p))
    for name in ("private_out", "private_dir/db_dump.sql"):
        assert await rt.call("read_files", {"paths": [name]}) == {name: "[BLOCKED]"}
    assert (await rt.call("glob", {"pattern": "**/*"}))["matches"] == ["a.txt"]
    assert "private" not in str(await rt.call("list_directory", {"path": "."}))
