"""The live index's replay asks the secret-inode registry only about multi-linked files it
replays, and validates the registry once (then looks at files only while a secret is
multi-linked) past ``stat_budget`` files (three per project directory): every answer equals a fresh walk's,
with and without a secret's hard link among the files, and no replay of a small listing pays
a validation of the whole project."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.runtime import _links

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only")]

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_directory", {"path": "a"}),
    ("glob", {"pattern": "**/*.txt"}),
    ("code_search", {"regex": "needle", "path": "a"}),
    ("list_directory", {"path": "."}),
]


def _tree(root: Path) -> None:
    (root / "a").mkdir(parents=True)
    (root / "b" / "c").mkdir(parents=True)
    (root / ".env").write_text("needle TOKEN=1\n")
    for i in range(30):
        (root / "a" / f"f{i:02}.txt").write_text("needle\n")
    (root / "b" / "c" / "g.txt").write_text("needle\n")


async def _same_as_walk(live: Runtime, root: Path) -> None:
    walk = Runtime(root)
    for tool, args in CALLS:
        assert await live.call(tool, args) == await walk.call(tool, args), (tool, args)


async def test_replay_counts_equal_a_walk_as_links_come_and_go(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    _tree(root)
    live = Runtime(root, live_index=True)
    try:
        await _same_as_walk(live, root)
        os.link(root / ".env", root / "a" / "f15_alias.txt")  # the registry is built here
        await _same_as_walk(live, root)
        assert live.pipeline.secret_inodes(str(live.root)).dirs is not None
        await _same_as_walk(live, root)  # 30 files past the budget (4 directories × 3): validated
        os.unlink(root / "a" / "f15_alias.txt")
        await _same_as_walk(live, root)  # validated: nothing linked, files no longer looked at
        os.link(root / ".env", root / "a" / "f29_alias.txt")
        await _same_as_walk(live, root)
        os.link(root / "a" / "f00.txt", root / "b" / "c" / "plain_alias.txt")  # not a secret's
        await _same_as_walk(live, root)
    finally:
        await live.aclose()


async def test_small_replay_validates_nothing(anyio_backend: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "p"
    _tree(root)
    os.link(root / "b" / "c" / "g.txt", root / "b" / "g_alias.txt")  # the registry gets built
    live = Runtime(root, live_index=True)
    try:
        await _same_as_walk(live, root)
        for _ in range(100):  # many directories: the budget is larger than any listing here
            (root / "b" / "c" / f"d{_}").mkdir()
        await live.call("glob", {"pattern": "b/**"})
        await _same_as_walk(live, root)
        asked: list[int] = []
        real = _links.SecretInodes._valid

        def valid(self: _links.SecretInodes, snap: object) -> bool:
            asked.append(1)
            return real(self, snap)  # type: ignore[arg-type]

        monkeypatch.setattr(_links.SecretInodes, "_valid", valid)
        await live.call("list_directory", {"path": "a"})
        assert asked == []
    finally:
        await live.aclose()
