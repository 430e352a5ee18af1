"""code_search's per-call output budget (red-team rt4 F7): ``max_results: 0`` lifts the
count limit, never the budget; the scan stops collecting once the budget is spent; the cut
is exact (the same hits as the unbudgeted answer cut by the rule) and never depends on a
secret."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.results import SearchResult
from pathgate.runtime.fs import OsFS
from pathgate.runtime.tools._regex import compile_regex
from pathgate.runtime.tools._scan import Scanner
from pathgate.runtime.tools._search_budget import cut_hits, hit_chars

UNLIMITED = Policy(read_budget=1 << 40)


def _search(root: Path, policy: Policy, regex: str = "a", **kw: Any) -> SearchResult:
    return anyio.run(lambda: Runtime(root, policy).code_search(regex, **kw))


def _lines_tree(root: Path) -> Path:
    """Hits of every kind: small files searched joined, a streamed file (over the region),
    long lines, and hits near piece ends (context completed by the next piece)."""
    root.mkdir()
    for i in range(40):
        (root / f"s{i:02d}.txt").write_text("".join(f"a {i} {k}\nb\n" for k in range(i % 7)))
    (root / "long.txt").write_text(("x" * 900 + "a\n") * 30)
    (root / "big.txt").write_text("".join(f"{'a' if k % 97 == 0 else 'b'} line {k}\n" for k in range(60_000)))
    return root


def test_max_results_zero_is_bounded_by_the_budget(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.txt").write_text("a\n" * 200_000)

    async def main() -> tuple[SearchResult, dict[str, Any]]:
        rt = Runtime(root)
        return (await rt.code_search("a", max_results=0),
                await rt.call("code_search", {"regex": "a", "max_results": 0}))

    res, out = anyio.run(main)
    assert res.truncated and res.output_budget == 100_000 and res.limit is None
    shown = sum(len(line) + 1 for line in out["hits"])
    assert 99_000 < shown <= 100_000
    assert out["notes"] == [f"showing the first {len(out['hits'])} hits: cut to fit this call's output "
                            "budget (100,000 characters); narrow the search with a more specific regex, "
                            "a path or a glob"]
    # the budget follows the host's read_budget; a count limit below it words its own note
    few = anyio.run(lambda: Runtime(root).call("code_search", {"regex": "a", "max_results": 3}))
    assert few["notes"] == ["showing the first 3 hits; narrow the search or raise max_results"]
    small = _search(root, Policy(read_budget=40), max_results=0)
    assert [h.line for h in small.hits] == [1, 2, 3, 4] and small.output_budget == 40


@pytest.mark.parametrize("context", [0, 2])
@pytest.mark.parametrize("regex", ["a", "(?-s)a"])  # joined texts; one file at a time
def test_the_cut_is_the_rule_applied_to_the_full_answer(tmp_path: Path, context: int, regex: str) -> None:
    root = _lines_tree(tmp_path / "t")
    full = _search(root, UNLIMITED, regex, max_results=0, context=context).hits
    assert len(full) > 300 and not _search(root, UNLIMITED, regex, max_results=0, context=context).truncated
    total = sum(map(hit_chars, full))
    for budget in (1, 17, 1_000, 2_345, 9_999, 30_000, total - 1, total):
        for cap in (None, 5, 250):
            res = _search(root, Policy(read_budget=budget), regex, max_results=cap or 0, context=context)
            want, by_cap, by_budget = cut_hits(full, cap, budget)
            assert list(res.hits) == list(want), (budget, cap)
            assert res.truncated == (by_cap or by_budget)
            assert res.output_budget == (budget if by_budget else None)
            assert sum(map(hit_chars, res.hits)) <= budget or len(res.hits) == 1


def test_context_of_the_last_hit_is_complete_when_the_scan_stops(tmp_path: Path) -> None:
    """A hit near a streamed piece's end gets its context lines from the next piece, even
    when the scan stops collecting right after it (max_results or the budget)."""
    root = tmp_path / "t"
    root.mkdir()
    lines = [f"line {k:06d} " + "x" * 40 for k in range(5_000)]
    for k in range(0, 5_000, 3):  # hits everywhere, so some sit at every piece end
        lines[k] = "HIT " + lines[k]
    (root / "big.txt").write_text("\n".join(lines) + "\n")
    full = _search(root, UNLIMITED, "HIT", max_results=0, context=4).hits
    for cap in range(1, 2_000, 37):
        res = _search(root, UNLIMITED, "HIT", max_results=cap, context=4)
        assert list(res.hits) == list(full[:cap]), cap


@pytest.mark.parametrize("layout", ["stream", "small", "each"])
def test_the_scanner_stops_collecting_at_the_budget(tmp_path: Path, layout: str) -> None:
    """Memory: the hits held never pass the budget by more than one hit."""
    root = tmp_path / "t"
    root.mkdir()
    if layout == "stream":
        (root / "a.txt").write_text("a\n" * 1_000_000)
        files = ["a.txt"]
    else:
        for i in range(300):
            (root / f"f{i:03d}.txt").write_text("a\n" * 200)
        files = sorted(os.listdir(root))
    rx = compile_regex("(?-s)a" if layout == "each" else "a", True)
    scanner = Scanner(OsFS(), str(root), files, rx, search_limit=64 << 20, budget=5_000)
    try:
        while not scanner.done:
            scanner.step()
    finally:
        scanner.close()
    assert scanner.rx_batches == (layout != "each")
    biggest = max(map(hit_chars, scanner.hits))
    assert scanner.chars == sum(map(hit_chars, scanner.hits)) <= 5_000 + biggest
    assert len(scanner.hits) < 5_000 // 8 + 2


def _secret_tree(root: Path, with_secret: bool) -> Path:
    root.mkdir()
    (root / "a.txt").write_text("a\n" * 30)
    (root / "c.txt").write_text("a\n" * 30)
    (root / "sub").mkdir()
    (root / "sub" / "d.txt").write_text("a\n" * 30)
    if with_secret:  # each sorts before the cut, each full of matching lines
        (root / ".env").write_text("a\n" * 500)
        os.link(root / ".env", root / "b.txt")  # a hard link: a secret under another name
        (root / "sub" / "id_rsa").write_text("a\n" * 500)
    return root


@pytest.mark.parametrize("budget", [1, 150, 330, 331, 700, 1_500])
def test_the_cut_never_depends_on_a_secret(tmp_path: Path, budget: int) -> None:
    outs = []
    for flag in (False, True):
        root = _secret_tree(tmp_path / str(flag), flag)

        async def main(root: Path = root) -> list[object]:
            rt = Runtime(root, Policy(read_budget=budget))
            return [await rt.call("code_search", {"regex": "a", "max_results": 0}, renderer=r)
                    for r in ("verbose", "structured", "sentinel")] + \
                   [await rt.call("code_search", {"regex": "a", "path": "sub", "max_results": 0, "context": 1})]

        outs.append(anyio.run(main))
    assert outs[0] == outs[1]
    assert any("output budget" in n for n in outs[0][0]["notes"]) == (budget < 1_500)


def test_the_cli_prints_every_hit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``pathgate search`` is for a person at a terminal: no output budget (nor count limit
    unless ``--limit N``)."""
    from pathgate.cli import main

    root = tmp_path / "t"
    root.mkdir()
    (root / "a.txt").write_text("a\n" * 30_000)
    assert main(["search", "a", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 30_000 and "budget" not in err
