"""A secret's hard link made while the live index's first watches are being added.

The first scan answers before its inotify watches exist (issue 15): they are added next,
in a thread, each directory re-checked by its signature. A ``ln .env d/alias.txt`` landing
in that window sends no event; the next answers must still neither list, count nor serve
the alias, and must equal a fresh walk's. The racy rule is off (``RACY_NS = 0``): the
directory's signature (and the secret's link count, in the registry) must catch it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.runtime._live import LiveIndex, _watches
from pathgate.runtime._live._inotify import Inotify
from tests._gitinit import git_init

pytestmark = [pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux-only"), pytest.mark.anyio]

SECRET = "API_KEY=sk-live-SECRET\n"


def _tree(root: Path) -> None:
    git_init(root)
    (root / "src/d").mkdir(parents=True)
    (root / "src/d/x.txt").write_text("x\n")
    (root / "node_modules/p").mkdir(parents=True)
    (root / "node_modules/p/i.js").write_text("x\n")
    (root / ".env").write_text(SECRET)
    (root / ".gitignore").write_text("node_modules/\n")


@pytest.mark.parametrize("first", ["glob", "list_directory", "code_search"])
@pytest.mark.parametrize("where", ["src/d", "node_modules/p"])
async def test_secret_linked_before_its_directory_is_watched(
        tmp_path: Path, first: str, where: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_watches, "RACY_NS", 0)
    _tree(tmp_path)
    alias = tmp_path / where / "alias.txt"
    placed: list[bool] = []

    class LinkFirst(Inotify):
        def add_watch(self, path: str, mask: int = 0) -> int:
            if path.endswith("/src/d") and not placed:  # the window: listed, not watched
                placed.append(True)
                os.link(tmp_path / ".env", alias)
            return super().add_watch(path) if mask == 0 else super().add_watch(path, mask)

    async with Runtime(tmp_path, live_index=True) as live, Runtime(tmp_path) as ref:
        live.live_index = LiveIndex(live.index, inotify=LinkFirst)
        first_args: dict[str, Any] = {"glob": {"pattern": "**"}, "list_directory": {"path": "."},
                                      "code_search": {"regex": "x"}}[first]
        await live.call(first, first_args)
        out: list[Any] = []
        for tool, args in (("glob", {"pattern": "**"}), ("glob", {"pattern": "**/*.txt"}),
                           ("list_directory", {"path": where}), ("code_search", {"regex": "API_KEY"}),
                           ("read_files", {"paths": [f"{where}/alias.txt"]})):
            got, want = await live.call(tool, args), await ref.call(tool, args)
            assert got == want, (tool, args)
            out.append(got)
        assert placed, "the link was not placed in the window"
    assert "sk-live" not in repr(out)
    assert all("alias" not in repr(o) or "[BLOCKED]" in repr(o) for o in out), out
