"""code_search tests kept files for hard links to secrets on the descriptors it opens (not
by an ``lstat`` each in the walk): what the model sees is still exactly what it would see
if the secrets' other names did not exist, whatever the caps and budgets."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime import _walk
from pathgate.runtime.tools import _discover


def _tree(root: Path, aliases: bool) -> Path:
    (root / "build").mkdir(parents=True)
    (root / "src" / "deep").mkdir(parents=True)
    for i in range(30):
        (root / "build" / f"f{i:02d}.js").write_text("x\n")
        # 8 KiB each: a capped scan stops after some of them, before src/zz.txt is opened
        (root / "src" / f"m{i:02d}.py").write_text(f"x {i}\n" + "y\n" * 4096)
    (root / "src" / "deep" / "z.py").write_text("x\n")
    (root / ".gitignore").write_text("build/\n")
    (root / ".env").write_text("x secret\n")
    if aliases:  # other names of the secret: kept early, kept late, deep, excluded
        for name in ("src/a.txt", "src/zz.txt", "src/deep/b.py", "build/g.js"):
            os.link(root / ".env", root / name)
    return root


_CALLS: list[dict[str, Any]] = [
    {"regex": "x", "max_results": 0},
    {"regex": "x", "max_results": 1},
    {"regex": "x", "max_results": 3},
    {"regex": "x", "max_results": 0, "glob": "**/*.txt"},
    {"regex": "secret", "max_results": 0},
    {"regex": "x", "max_results": 0, "path": "src"},
]


def _outputs(root: Path, policy: Policy) -> list[object]:
    async def main() -> list[object]:
        rt = Runtime(root, policy=policy)
        # what the model sees, and the host's whole result (files searched included)
        return [(await rt.call("code_search", args), await rt.code_search(**args))
                for args in _CALLS for _ in range(2)]

    return anyio.run(main)


@pytest.mark.parametrize(("count_budget", "walk_budget"), [(10**6, 10**6), (10, 10**6), (10**6, 20), (10**6, 45)])
@pytest.mark.parametrize("strict", [False, True])
def test_outputs_identical_with_and_without_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    count_budget: int, walk_budget: int, strict: bool) -> None:
    monkeypatch.setattr(_discover, "COUNT_BUDGET", count_budget)
    monkeypatch.setattr(_discover, "WALK_BUDGET", walk_budget)
    policy = Policy(strict_hard_links=strict)
    with_aliases = _outputs(_tree(tmp_path / "a", True), policy)
    without = _outputs(_tree(tmp_path / "b", False), policy)
    assert with_aliases == without
    assert "x secret" not in repr(with_aliases)  # the secret's line, under any name


def test_kept_files_are_not_statted_in_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk marks only excluded files (the scan's fstat decides kept ones); with a
    walk that stops early the search walks again, marking every file."""
    made: list[tuple[bool, bool]] = []
    real = _walk.Walker.step

    def spy(self: _walk.Walker, *a: Any, **k: Any) -> list[_walk.Entry]:
        if not self._started:  # each walk's marks, as its first step sees them
            made.append((self.links, self.kept_links))
        return real(self, *a, **k)

    monkeypatch.setattr(_walk.Walker, "step", spy)
    root = _tree(tmp_path / "a", True)

    async def main() -> list[object]:
        rt = Runtime(root, policy=Policy())
        return [await rt.call("code_search", {"regex": "x", "max_results": 0})]

    anyio.run(main)
    assert made == [(True, False)]
    made.clear()
    monkeypatch.setattr(_discover, "WALK_BUDGET", 20)
    anyio.run(main)
    assert made == [(True, False), (True, True)]
