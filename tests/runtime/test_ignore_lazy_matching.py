"""``pathgate explain``'s list of every rule matching a path, from a lazy ignore list.

:meth:`LazyIgnoreList.matching` looks only at the lines that can match (the candidates
``best`` uses); it must list exactly the rules :meth:`IgnoreList.matching` of the whole
compile lists, last first, dir-only rules left out for files -- and ``pathgate explain``
must print the same explanation with the file read lazily as compiled whole.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate import cli
from pathgate.runtime.ignore import _lazy, _rules
from pathgate.runtime.ignore._lazy import LazyIgnoreList
from pathgate.runtime.ignore._rules import IgnoreList
from tests._gitinit import git_init
from tests.runtime.test_ignore_lazy import _views, files, paths


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(files(), st.lists(paths, min_size=1, max_size=6), st.booleans(), st.sampled_from(["", "src/"]))
def test_lazy_matching_lists_the_whole_compiles_rules(data: bytes, asked: list[str], fold: bool, base: str) -> None:
    full = IgnoreList.from_bytes(".gitignore", base, data, fold)
    lazy = LazyIgnoreList(".gitignore", base, data, fold)
    for path in asked:
        rel, name = _views(base + path, fold)
        rel = rel[len(base):]
        for files_only in (False, True):
            assert [p.rule for p in lazy.matching(name, rel, files_only)] == \
                [p.rule for p in full.matching(name, rel, files_only)], (path, files_only)
    assert lazy._full is None  # (a few texts: no whole compile)


def test_matching_past_the_cap_compiles_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"".join(b"*.py\n!a%d.py\n" % i for i in range(50))
    full = IgnoreList.from_bytes(".gitignore", "", data, False)
    lazy = LazyIgnoreList(".gitignore", "", data, False)
    monkeypatch.setattr(lazy, "_cap", 3)  # every line fits "a7.py": more than 3 to compile
    assert [p.rule for p in lazy.matching("a7.py", "a7.py", True)] == \
        [p.rule for p in full.matching("a7.py", "a7.py", True)]
    assert lazy._full is not None


@pytest.fixture
def big_tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "gen").mkdir(parents=True)
    filler = b"".join(b"zz%d/**/q*[0-9]x%d\nsrc/**/cache%d*/*.tmp%d\n" % (i, i, i, i % 7) for i in range(1800))
    tail = b"!keep.log\nsrc/**/cache12*/\n*.tmp5\nsrc/*.tmp5\n"
    (root / ".gitignore").write_bytes(b"*.log\nsrc/gen/\n" + filler + tail)
    for rel in ("src/a.py", "src/x.log", "keep.log", "src/gen/out.js", "src/q/cache12z/y.tmp5", "src/b.tmp5"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    git_init(root)
    return root


def test_explain_is_the_same_read_lazily(big_tree: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert (big_tree / ".gitignore").stat().st_size >= _rules.LAZY_MIN_BYTES
    asked = ["src/a.py", "src/x.log", "keep.log", "src/gen/out.js", "src/q/cache12z/y.tmp5", "src/b.tmp5", "nope.log"]
    made: list[str] = []
    lazy_list = _lazy.lazy_list
    monkeypatch.setattr(_lazy, "lazy_list", lambda *a: made.append("lazy") or lazy_list(*a))
    whole = LazyIgnoreList.whole
    monkeypatch.setattr(LazyIgnoreList, "whole", lambda self: made.append("whole") or whole(self))
    outs = []
    for bound in (64, 0):  # lazy, then compiled whole
        monkeypatch.setattr(cli, "EXPLAIN_LAZY_PATHS", bound)
        monkeypatch.setattr(_rules, "_COMPILED", weakref.WeakValueDictionary())
        monkeypatch.setattr(_lazy, "_LAZY", weakref.WeakValueDictionary())
        made.clear()
        code = cli.main(["explain", "--root", str(big_tree), *asked])
        outs.append((code, capsys.readouterr().out))
        assert set(made) == ({"lazy"} if bound else set())  # (lazy: never compiled whole)
    assert outs[0] == outs[1]
    shown = outs[0][1].split("\n\n")
    assert "excluded directory: src/q/cache12z/ by .gitignore:3604:src/**/cache12*/" in shown[4]
    assert shown[5].index(".gitignore:3606:src/*.tmp5") < shown[5].index(".gitignore:3605:*.tmp5")
