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
    calls = [0]
    real = IgnoreSession.match_with_extra

    def counting(self: IgnoreSession, *args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(IgnoreSession, "match_with_extra", counting)
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
