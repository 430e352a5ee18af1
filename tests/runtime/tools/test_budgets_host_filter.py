"""Counts and budgets are computed as if host-filtered paths did not exist (issue 12,
item 4): a tree with host-filtered directories (one kept, one inside an ignored directory)
and the same tree without them give byte-identical discovery output under every renderer,
whatever the walk and count budgets, for a sync and for an async host filter."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.tools import _discover

RENDERERS = ("sentinel", "verbose", "structured")
CALLS: list[tuple[str, dict[str, object]]] = [
    ("glob", {"pattern": "**/*", "limit": 0}),
    ("glob", {"pattern": "**/*.js", "limit": 0}),
    ("glob", {"pattern": "build/**", "limit": 0}),
    ("glob", {"pattern": "*", "limit": 0}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "build"}),
    ("code_search", {"regex": "x", "max_results": 0}),
    ("code_search", {"regex": "x", "glob": "**/*.js", "max_results": 0}),
]


PRIV = "0private"  # sorts before the other names: walked (and charged) first


def _blocked(path: str) -> bool:
    return path == PRIV or path.startswith(PRIV + "/") or "/" + PRIV in path


def _sync(path: str) -> bool:
    return not _blocked(path)


async def _async(path: str) -> bool:
    await anyio.sleep(0)
    return not _blocked(path)


FILTERS: dict[str, Callable[[str], bool | Awaitable[bool]]] = {"sync": _sync, "async": _async}


def _tree(root: Path, filtered: bool) -> Path:
    for d, ext, n in (("build", "js", 30), ("src", "py", 30), ("build/sub", "js", 5)):
        (root / d).mkdir(parents=True, exist_ok=True)
        for i in range(n):
            (root / d / f"f{i:02d}.{ext}").write_text("x\n")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "a.log").write_text("x\n")
    if filtered:
        for d in (PRIV, f"{PRIV}/deep", f"build/{PRIV}", f"build/sub/{PRIV}", f"src/{PRIV}"):
            (root / d).mkdir(parents=True)
            for i in range(12):
                (root / d / f"p{i:02d}.js").write_text("x\n")
        (root / PRIV / "b.log").write_text("x\n")
    return root


async def _render(root: Path, host_filter: Callable[[str], bool | Awaitable[bool]]) -> list[str]:
    rt = Runtime(root, policy=Policy(host_filter=host_filter))
    outs = []
    for renderer in RENDERERS:
        for tool, args in CALLS:
            out = await rt.call(tool, dict(args), renderer=renderer)
            outs.append(json.dumps(out, sort_keys=True, default=str))
    return outs


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The tree without and with host-filtered entries, shared read-only by the module."""
    base = tmp_path_factory.mktemp("budgets")
    return _tree(base / "without", False), _tree(base / "with", True)


@pytest.mark.parametrize("kind", sorted(FILTERS))
@pytest.mark.parametrize(("count_budget", "walk_budget"),
                         [(10**6, 10**6), (30, 10**6), (10, 10**6), (10**6, 20), (10**6, 45), (7, 33)])
def test_outputs_identical_with_and_without_host_filtered(
        trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, kind: str, count_budget: int,
        walk_budget: int) -> None:
    monkeypatch.setattr(_discover, "COUNT_BUDGET", count_budget)
    monkeypatch.setattr(_discover, "WALK_BUDGET", walk_budget)
    without = anyio.run(_render, trees[0], FILTERS[kind])
    with_ = anyio.run(_render, trees[1], FILTERS[kind])
    for a, b, (tool, args) in zip(without, with_, CALLS * len(RENDERERS), strict=True):
        assert a == b, (tool, args)
    assert PRIV not in "".join(with_)


def test_small_budgets_are_reached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above is not vacuous: the small budgets do cut the outputs."""
    monkeypatch.setattr(_discover, "COUNT_BUDGET", 10)
    monkeypatch.setattr(_discover, "WALK_BUDGET", 20)
    outs = anyio.run(_render, _tree(tmp_path / "t", False), _sync)
    joined = "".join(outs)
    assert "at least" in joined or '"lower_bound": true' in joined
    assert '"walk_stopped_early": true' in joined
