"""Red-team pass 12, F2: the verified remedy of an ignored path ("how to unblock") is
searched by compiling the rule chain again for each candidate. A one-file read ran it on
the event loop (the inline read route), so a repository's 200,000-line ``.gitignore``
stalled every other call of the runtime for seconds, uncancellably. Now a remedy is never
searched on the event loop (the read hops to a worker thread), and none is searched for a
path whose decision consults more than ``MAX_REMEDY_RULES`` rules."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime import _remedy
from pathgate.runtime.ignore import IgnoreSession

pytestmark = pytest.mark.anyio


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the remedy search's verifications (``IgnoreSession.match_with_extra`` calls)."""
    calls = [0]
    real = IgnoreSession.match_with_extra

    def counting(self: IgnoreSession, *args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IgnoreSession, "match_with_extra", counting)
    return calls


def _tree(root: Path, lines: int) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("b\n")
    (root / "sub" / "c.log").write_text("c\n")
    (root / "sub" / ".gitignore").write_text("*.log\n" * lines)


async def test_the_remedy_search_runs_off_the_event_loop(anyio_backend: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, 3)
    threads: list[threading.Thread] = []
    real = _remedy.suggest_remedy

    def spy(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_remedy, "suggest_remedy", spy)
    rt = Runtime(tmp_path, policy=Policy())
    await rt.call("glob", {"pattern": "**"})  # the directory's rules known: the read may run on the loop
    for _ in range(3):
        (res,) = await rt.read_files(["sub/c.log"])
        assert res.verdict is not None and res.verdict.remedy is not None  # still offered
    assert threads and all(t is not threading.main_thread() for t in threads)


async def test_no_remedy_is_searched_past_the_rule_bound(anyio_backend: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path, _remedy.MAX_REMEDY_RULES + 1)
    calls = _count_checks(monkeypatch)
    rt = Runtime(tmp_path, policy=Policy())
    (res,) = await rt.read_files(["sub/c.log"])
    assert res.verdict is not None and res.verdict.status.value == "[BLOCKED]"
    assert res.verdict.remedy is None
    assert calls[0] == 0
    (ok,) = await rt.read_files(["sub/b.txt"])
    assert ok.content == "b\n"


async def test_a_remedy_is_still_offered_below_the_bound(anyio_backend: str, tmp_path: Path) -> None:
    _tree(tmp_path, _remedy.MAX_REMEDY_RULES - 200)  # the built-in defaults count too
    rt = Runtime(tmp_path, policy=Policy())
    (res,) = await rt.read_files(["sub/c.log"])
    assert res.verdict is not None and res.verdict.remedy is not None


@pytest.mark.parametrize("tool", ["read_files", "list_directory", "glob"])
async def test_no_remedy_is_searched_for_a_path_past_the_depth_bound(anyio_backend: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     tool: str) -> None:
    """Red team 14, F1: below an excluded directory each candidate was verified by a new
    session down the whole path and one more per level: a 100-level path below
    ``node_modules/`` cost 6 s of CPU (cubic in depth), in a worker a timeout cannot stop."""
    (tmp_path / "node_modules").mkdir()
    calls = _count_checks(monkeypatch)
    rt = Runtime(tmp_path, policy=Policy())
    deep = "node_modules/" + "a/" * _remedy.MAX_REMEDY_DEPTH + "x.js"
    args = {"read_files": {"paths": [deep]}, "list_directory": {"path": deep.rsplit("/", 1)[0]},
            "glob": {"pattern": "*", "path": deep.rsplit("/", 1)[0]}}[tool]
    await rt.call(tool, args)
    assert calls[0] == 0
    # a shallow one still gets its verified lines, with a bounded number of checks
    (res,) = await rt.read_files(["node_modules/" + "a/" * 5 + "x.js"])
    assert res.verdict is not None and res.verdict.remedy is not None
    assert res.verdict.remedy.lines[-1] == "!/node_modules/a/a/a/a/a/x.js"
    assert 0 < calls[0] <= 2 * (_remedy.MAX_REMEDY_DEPTH + 1)


async def test_a_remedy_search_makes_a_bounded_number_of_checks(anyio_backend: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 15, R2: inside the depth bound, one line of the repository's
    (``!/d8/.../.pathgate-remedy-probe``) made every base fail only at its last probe: 8 bases
    x 23 sessions per blocked read (48 s of CPU under a 9,900-rule chain)."""
    comp = [f"d{i}" for i in range(30)]
    (tmp_path / ".gitignore").write_text("/" + "/".join(comp[:9]) + "/\n")
    above = tmp_path.joinpath(*comp[:8])
    above.mkdir(parents=True)
    (above / ".gitignore").write_text("!/" + "/".join(comp[8:]) + "/.pathgate-remedy-probe\n")
    calls = _count_checks(monkeypatch)
    rt = Runtime(tmp_path, policy=Policy())
    (res,) = await rt.read_files(["/".join(comp) + "/f.txt"])
    assert res.verdict is not None and res.verdict.status.value == "[BLOCKED]"
    assert 0 < calls[0] <= _remedy.MAX_REMEDY_CHECKS
