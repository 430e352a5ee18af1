"""list_directory's entry limit (red-team rt4 F8): a bounded default like glob's, ``limit``
to change it (``0``: none), a note saying how many were left out and how to see them; the
cut never depends on a secret, and the live index answers exactly as a fresh walk."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.tools.list_directory import DEFAULT_LIST_LIMIT


def test_default_limit_and_note(tmp_path: Path) -> None:
    wide = tmp_path / "wide"
    wide.mkdir()
    for i in range(DEFAULT_LIST_LIMIT + 120):
        (wide / f"f{i:04d}.txt").write_text("")

    async def main() -> list[Any]:
        rt = Runtime(tmp_path)
        return [await rt.call("list_directory", {"path": "wide"}),
                await rt.call("list_directory", {"path": "wide", "limit": 3}),
                await rt.call("list_directory", {"path": "wide", "limit": 0}),
                await rt.call("list_directory", {"path": "wide", "limit": -1}),
                await rt.list_directory("wide", limit=7)]

    default, three, every, bad, typed = anyio.run(main)
    assert default["entries"] == [f"f{i:04d}.txt" for i in range(DEFAULT_LIST_LIMIT)]
    assert default["notes"] == [f"showing the first {DEFAULT_LIST_LIMIT} of {DEFAULT_LIST_LIMIT + 120} entries "
                                "(by name); raise the limit, or glob a pattern in this directory to see the others"]
    assert three["entries"] == ["f0000.txt", "f0001.txt", "f0002.txt"]
    assert len(every["entries"]) == DEFAULT_LIST_LIMIT + 120 and every["notes"] == []
    assert "limit" in str(bad["error"])
    assert (typed.total, typed.truncated, typed.limit, len(typed.entries)) == (DEFAULT_LIST_LIMIT + 120, True, 7, 7)


def _tree(root: Path, with_secret: bool) -> Path:
    root.mkdir()
    for name in ("a.txt", "c.txt", "d.txt", "e.txt"):
        (root / name).write_text("x\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("x\n")
    (root / "m.log").write_text("x\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    if with_secret:  # each sorts before the cut: .env, a secret directory, a key, a hard link
        (root / ".env").write_text("S=1\n")
        (root / ".env.d").mkdir()
        (root / ".env.d" / "k").write_text("S=1\n")
        (root / "b.pem").write_text("S=1\n")
        os.link(root / ".env", root / "b.txt")
        (root / "build" / ".env").write_text("S=1\n")
    return root


@pytest.mark.parametrize("live", [False, True] if sys.platform == "linux" else [False])
def test_the_cut_never_depends_on_a_secret(tmp_path: Path, live: bool) -> None:
    outs = []
    for flag in (False, True):
        root = _tree(tmp_path / str(flag), flag)

        async def main(root: Path = root) -> list[object]:
            out: list[object] = []
            async with Runtime(root, Policy(), live_index=live) as rt:
                for limit in (1, 2, 3, 4, 5, 6, 0):
                    for renderer in ("verbose", "structured"):
                        out.append(await rt.call("list_directory", {"path": ".", "limit": limit},
                                                 renderer=renderer))
                    out.append(await rt.call("glob", {"pattern": "*", "limit": limit}))
            return out

        outs.append(anyio.run(main))
    assert outs[0] == outs[1]
    first = outs[0][0]
    assert isinstance(first, dict) and first["entries"] == [".gitignore"]
    assert "showing the first 1 of 5 entries" in first["notes"][-1]


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only")
def test_the_live_index_answers_as_the_walk(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t", True)
    for i in range(30):
        (root / f"n{i:02d}").write_text("")

    async def main() -> None:
        async with Runtime(root, live_index=True) as live, Runtime(root) as ref:
            for _ in range(2):  # the first call builds the index, the second answers from it
                for limit in (None, 0, 1, 5, 17, 40):
                    for path in (".", "build", ".env.d"):
                        assert await live.list_directory(path, limit=limit) == \
                            await ref.list_directory(path, limit=limit), (path, limit)
                    assert await live.glob("*", limit=limit) == await ref.glob("*", limit=limit)
            (root / "n00").unlink()
            (root / "a0").write_text("")
            assert await live.list_directory(".", limit=3) == await ref.list_directory(".", limit=3)

    anyio.run(main)


def test_the_cli_lists_every_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pathgate.cli import main

    for i in range(DEFAULT_LIST_LIMIT + 5):
        (tmp_path / f"f{i:04d}").write_text("")
    assert main(["ls", "--root", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == DEFAULT_LIST_LIMIT + 5 and "showing" not in err
