"""code_search's time limit (``Policy.search_seconds``; red team 16 G6): a pattern whose RE2
search thrashes on text shaped for it stops at the limit, and the answer says so with a note
built from counts only. The limit is driven here by a fake clock (``_scan._clock``): no
test depends on how fast anything runs.

Checked: the scan stops between files and regions, and not inside a long line it cannot pay
for; the hits are exactly those of the files it searched; the counts add up; every renderer
carries the note; and a tree with secrets (``.env``, a key file, a hard link to the secret)
gives the same answers as the tree without them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.results import SearchResult
from pathgate.runtime.fs import OsFS
from pathgate.runtime.tools import _scan
from pathgate.runtime.tools._regex import compile_regex
from tests.runtime.tools._scans import drain

NOTE = "the search stopped at its time limit"


def _ticking(step: float) -> Callable[[], float]:
    """A clock that moves ``step`` seconds each time it is read."""
    ticks: Iterator[int] = itertools.count()
    return lambda: next(ticks) * step


def _tree(root: Path) -> Path:
    root.mkdir()
    (root / "src").mkdir()
    for i in range(60):
        (root / "src" / f"m{i:02d}.py").write_text("".join(f"line {k}\n" for k in range(i % 5))
                                                    + (f"needle {i}\n" if i % 3 == 0 else "hay\n"))
    (root / "big.txt").write_text("hay\n" * 30_000 + "needle in big\n" + "hay\n" * 30_000)  # streamed
    return root


def _scan_files(root: Path, files: list[str], seconds: float | None, clock: Callable[[], float] | None,
                regex: str = "needle") -> _scan.Scanner:
    sc = _scan.Scanner(OsFS(), str(root), files, compile_regex(regex), search_limit=64 << 20,
                       seconds=seconds, clock=clock)
    drain(sc)
    return sc


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_no_limit_and_a_limit_never_reached_search_everything(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    files = _files(root)
    full = _scan_files(root, files, None, None)
    frozen = _scan_files(root, files, 1.0, lambda: 0.0)  # time never passes
    assert not full.timed_out and not frozen.timed_out
    assert frozen.hits == full.hits and frozen.index == len(files)
    assert any(h.path == "big.txt" for h in full.hits)


def test_a_passed_limit_searches_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path / "t")
    sc = _scan_files(root, _files(root), 10.0, _ticking(100.0))
    assert sc.timed_out and sc.done
    assert sc.index == 0 and sc.hits == [] and sc.unfinished == 0


@pytest.mark.parametrize("seconds", [0.003, 0.01, 0.03, 0.06])
def test_the_scan_stops_between_files_with_the_hits_of_the_files_it_searched(tmp_path: Path,
                                                                              seconds: float) -> None:
    root = _tree(tmp_path / "t")
    files = _files(root)
    full = _scan_files(root, files, None, None)
    sc = _scan_files(root, files, seconds, _ticking(0.001))
    assert sc.timed_out and sc.worked >= seconds
    assert 0 <= sc.index < len(files) or sc.unfinished
    done = set(files[:sc.index - sc.unfinished])
    # exactly the hits of the files searched whole, in order (a file cut short: its hits so far)
    assert [h for h in sc.hits if h.path in done] == [h for h in full.hits if h.path in done]
    assert all(h.path in files[:sc.index] for h in sc.hits)


def test_a_streamed_file_cut_short_is_unfinished(tmp_path: Path) -> None:
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.txt").write_text("hay\n" * 400_000)  # 1.6 MB: many regions
    (root / "b.txt").write_text("needle\n")
    sc = _scan_files(root, ["a.txt", "b.txt"], 0.05, _ticking(0.01))
    assert sc.timed_out and sc.unfinished == 1 and sc.index == 1 and sc.hits == []


def test_a_long_line_the_limit_cannot_pay_for_is_not_searched(tmp_path: Path) -> None:
    """One line is searched whole by one RE2 call: at the measured speed, a line that would
    run past the limit is left unsearched instead (the search times out before it)."""
    root = tmp_path / "t"
    root.mkdir()
    (root / "a.txt").write_text("b" * 3_000_000 + "needle\n")
    sc = _scan.Scanner(OsFS(), str(root), ["a.txt"], compile_regex("needle"), search_limit=64 << 20,
                       seconds=5.0, clock=lambda: 0.0)
    sc.rate = 1e5  # measured: 100 KB/s, so 3 MB would take 30 s
    drain(sc)
    assert sc.timed_out and sc.unfinished == 1 and sc.hits == []
    sc = _scan_files(root, ["a.txt"], 5.0, lambda: 0.0)  # at a usual speed: searched
    assert not sc.timed_out and [h.line for h in sc.hits] == [1]


# -- through the runtime ----------------------------------------------------------------------


def _call(root: Path, policy: Policy, renderer: str, **args: Any) -> Any:
    async def main() -> Any:
        rt = Runtime(root, policy)
        return await rt.call("code_search", {"regex": "needle", **args}, model="m", renderer=renderer)

    return anyio.run(main)


def _raw(root: Path, policy: Policy, **kw: Any) -> SearchResult:
    return anyio.run(lambda: Runtime(root, policy).code_search("needle", **kw))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """``set(step)``: every scan made from now on reads a clock of its own, from 0, ticking
    ``step`` seconds a read."""
    real = _scan.Scanner.__init__

    def set_step(step: float) -> None:

        def init(self: _scan.Scanner, *a: Any, **kw: Any) -> None:
            real(self, *a, **kw)
            self._clock = _ticking(step)

        monkeypatch.setattr(_scan.Scanner, "__init__", init)

    return set_step


def test_the_result_counts_and_every_renderer_says_so(tmp_path: Path, clock: Callable[[float], None]) -> None:
    root = _tree(tmp_path / "t")
    files = _files(root)
    clock(0.004)
    res = _raw(root, Policy(search_seconds=0.12), max_results=0)
    assert res.time_limit == 0.12 and res.files_not_searched > 0
    assert res.files_searched + res.files_not_searched == len(files)
    assert not res.truncated  # nothing is claimed about hits past the cut
    for renderer in ("verbose", "sentinel"):
        out = _call(root, Policy(search_seconds=0.12), renderer, max_results=0)
        [note] = [n for n in out["notes"] if n.startswith(NOTE)]
        assert note == (f"{NOTE} (0.12 s of searching): {res.files_searched} files searched, "
                        f"{res.files_not_searched} not searched (or not to the end), so hits may be missing; "
                        "narrow the search with a path or a glob, or a more literal regex")
        assert len(out["hits"]) == len(res.hits)
    out = _call(root, Policy(search_seconds=0.12), "structured", max_results=0)
    assert out["time_limit"] == 0.12 and out["files_not_searched"] == res.files_not_searched
    assert any(n.startswith(NOTE) for n in out["notes"])
    # no limit reached: no note, no fields
    clock(0.0)
    res = _raw(root, Policy(search_seconds=0.12), max_results=0)
    assert res.time_limit is None and res.files_not_searched == 0 and res.files_searched == len(files)
    assert not any(n.startswith(NOTE) for n in _call(root, Policy(), "verbose")["notes"])


def _secrets(root: Path, *, link: bool) -> None:
    (root / ".env").write_text("needle=hunter2\n" * 50)
    (root / "src" / "id_rsa").write_text("needle key\n" * 50)
    (root / "src" / "m00.key").write_text("needle\n")
    if link:
        os.link(root / ".env", root / "src" / "m30b.py")  # a secret under a searched name


@pytest.mark.parametrize("step", [100.0, 0.004])
@pytest.mark.parametrize("renderer", ["verbose", "sentinel", "structured"])
def test_same_answer_with_and_without_secrets(tmp_path: Path, clock: Callable[[float], None], step: float,
                                              renderer: str) -> None:
    """Where the limit cuts and what the note says never depend on a secret: secrets are
    never opened nor counted (step 100: the limit passes before the first file, and a
    secret's hard link is not counted among the files left)."""
    link = step == 100.0  # a hard link is opened (and skipped) when reached: a clock read of its own
    plain, secret = _tree(tmp_path / "plain"), _tree(tmp_path / "secret")
    _secrets(secret, link=link)
    clock(step)
    policy = Policy(search_seconds=0.12)
    a, b = _call(plain, policy, renderer, max_results=0), _call(secret, policy, renderer, max_results=0)
    assert a == b
    notes = a["notes"]
    assert any(n.startswith(NOTE) for n in notes)
    if step == 100.0:
        n = len(_files(plain))
        assert f"0 files searched, {n} not searched" in next(x for x in notes if x.startswith(NOTE))
