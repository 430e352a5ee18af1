"""Fewer worker-thread hops per call (issue 19): a pattern repeated costs no compile hop, and a
walk takes one hop per step, none to learn that it is over. Each hop is a round trip through
the scheduler and two thread hand-offs; under fifty agents each also waits its turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.errors import ToolArgumentError
from pathgate.runtime.tools import _compiled, _discover, _pattern, code_search, glob


def _tree(root: Path) -> Path:
    for i in range(3):
        (root / "m" / f"d{i}").mkdir(parents=True)
        (root / "m" / f"d{i}" / "A.java").write_text("class A { lambda delta }\n")
    (root / "m" / "top.txt").write_text("lambda delta\n")
    return root


@pytest.fixture(autouse=True)
def _fresh_table() -> None:
    _compiled._KEPT.clear()


def _count(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[object]:
    seen: list[object] = []
    real = getattr(module, name)

    def spy(*a: Any, **k: Any) -> Any:
        seen.append(a[0] if a else None)
        return real(*a, **k)

    monkeypatch.setattr(module, name, spy)
    return seen


def test_repeated_patterns_compile_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    globs = _count(monkeypatch, glob, "compile_glob")
    regexes = _count(monkeypatch, code_search, "_compile")

    async def main() -> list[object]:
        rt = Runtime(root, policy=Policy())
        out = []
        for _ in range(3):
            out.append(await rt.call("glob", {"pattern": "**/*.java", "path": "m"}))
            out.append(await rt.call("code_search", {"regex": "lambda delta", "path": "m"}))
        out.append(await rt.call("glob", {"pattern": "**/*.txt", "path": "m"}))
        return out

    out = anyio.run(main)
    assert globs == ["**/*.java", "**/*.txt"] and regexes == ["lambda delta"]
    assert out[0] == out[2] == out[4] and out[1] == out[3] == out[5]  # the same answers
    assert "top.txt" in str(out[6]) and "A.java" in str(out[0])


def test_bad_and_odd_patterns_are_never_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern that fails raises the same error every time; a ``str`` subclass (it may
    hash and compare as it likes) and an overlong pattern are compiled each time."""
    root = _tree(tmp_path)
    globs = _count(monkeypatch, glob, "compile_glob")

    class Odd(str):
        pass

    async def main() -> list[object]:
        rt = Runtime(root, policy=Policy())
        errors = []
        for _ in range(2):
            with pytest.raises(ToolArgumentError) as caught:
                await rt.glob("../x")
            errors.append(str(caught.value))
            await rt.glob(Odd("**/*.java"), "m")
            await rt.glob("**/" + "x" * _compiled.MAX_KEY_CHARS, "m")
        return errors

    errors = anyio.run(main)
    assert errors[0] == errors[1]
    assert len(globs) == 6 and not _compiled._KEPT


def test_kept_patterns_are_bounded() -> None:
    async def main() -> None:
        async def run(fn: Any) -> Any:
            return fn()

        for i in range(_compiled.KEPT + 10):
            await _compiled.compiled(run, _pattern.compile_glob, f"*.{i}")
        assert len(_compiled._KEPT) == _compiled.KEPT
        assert (_pattern.compile_glob, f"*.{_compiled.KEPT + 9}") in _compiled._KEPT
        assert (_pattern.compile_glob, "*.0") not in _compiled._KEPT

    anyio.run(main)


def test_a_walk_takes_no_hop_to_learn_it_is_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One hop per walk step, the first also deciding the hard-link test, and no step that
    finds nothing (the walk knows it is over): the answers are those of smaller steps."""
    root = _tree(tmp_path)
    sizes: list[int] = []
    firsts = _count(monkeypatch, _discover.Discovery, "_first_step")
    real = _discover.Discovery._step

    def step(self: _discover.Discovery, *a: Any) -> Any:
        out = real(self, *a)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(_discover.Discovery, "_step", step)

    async def main() -> tuple[object, object]:
        rt = Runtime(root, policy=Policy())
        return await rt.call("list_directory", {"path": "m"}), await rt.call("glob", {"pattern": "**/*"})

    listed, globbed = anyio.run(main)
    assert len(firsts) == 2 and len(sizes) == 2 and all(sizes)  # one step each walk
    assert "d0" in str(listed) and "top.txt" in str(listed) and "m/d2/A.java" in str(globbed)

    firsts.clear()
    sizes.clear()
    monkeypatch.setattr(_discover, "CHUNK", 1)  # a step of at least one entry
    again = anyio.run(main)
    assert again == (listed, globbed)
    assert len(firsts) == 2 and len(sizes) > 4 and all(sizes)
