"""Counts and budgets are computed as if secrets did not exist (issue 12, item 4)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.tools import _discover


def _tree(root: Path, with_secret: bool) -> Path:
    (root / "build").mkdir(parents=True)
    for i in range(30):
        (root / "build" / f"f{i:02d}.js").write_text("x\n")
    (root / "src").mkdir()
    for i in range(30):
        (root / "src" / f"m{i:02d}.py").write_text("x\n")
    (root / ".gitignore").write_text("build/\n")
    if with_secret:
        (root / "build" / ".env").write_text("S=1\n")
        (root / "src" / ".env").write_text("S=1\n")
        (root / "src" / ".env.d").mkdir()
        for i in range(5):
            (root / "src" / ".env.d" / f"k{i}").write_text("S=1\n")
    return root


@pytest.mark.parametrize(("count_budget", "walk_budget"), [(30, 10**6), (10, 10**6), (10**6, 20), (10**6, 45)])
def test_outputs_identical_with_and_without_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    count_budget: int, walk_budget: int) -> None:
    monkeypatch.setattr(_discover, "COUNT_BUDGET", count_budget)
    monkeypatch.setattr(_discover, "WALK_BUDGET", walk_budget)
    outs = []
    for flag in (False, True):
        root = _tree(tmp_path / str(flag), flag)

        async def main(root: Path = root) -> list[object]:
            rt = Runtime(root, policy=Policy())
            return [await rt.call("glob", {"pattern": "**/*", "limit": 0}),
                    await rt.call("glob", {"pattern": "build/*", "limit": 0}),
                    await rt.call("code_search", {"regex": "x", "max_results": 0})]

        outs.append(anyio.run(main))
    assert outs[0] == outs[1]
