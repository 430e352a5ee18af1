"""``pathgate search``'s shortcuts change nothing it prints: the hits spelled at once
(``_cli_inline._spelled``) equal ``spell_names`` of the whole result, whatever the paths and
lines hold (double quotes anywhere, control characters, lone surrogates, non-ASCII text,
context); the console's last call (``run_inline(last=True)``: what it made frozen for the
collector) answers as any call and leaves the collector's thresholds as they were."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate._cli_inline import _spelled, run_inline
from pathgate._names import spell_names
from pathgate.config import load_config
from pathgate.results import SearchHit, SearchResult
from pathgate.runtime._gating import GateCore

_TEXT = st.text(alphabet=st.sampled_from([*'ab/."\\ \n\t\x7fé\u202e\udce9\ud800\x85', "x", "y"]), max_size=8)
_PLAIN = st.text(alphabet="abc/._-0", min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.one_of(_PLAIN, _TEXT), st.one_of(_PLAIN, _TEXT),
                          st.lists(st.one_of(_PLAIN, _TEXT), max_size=2),
                          st.lists(st.one_of(_PLAIN, _TEXT), max_size=2)), max_size=6),
       st.one_of(_PLAIN, _TEXT))
def test_hits_spelled_at_once_equal_spell_names(hits: list[tuple[str, str, list[str], list[str]]], path: str) -> None:
    result = SearchResult(regex="x", path=path, hits=tuple(
        SearchHit(path=p, line=i + 1, text=t, context_before=tuple(b), context_after=tuple(a))
        for i, (p, t, b, a) in enumerate(hits)))
    assert _spelled(result, spell_names) == spell_names(result)
    assert _spelled([result], spell_names) == spell_names([result])  # not a search result: as given


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(_PLAIN, _TEXT), st.one_of(_PLAIN, _TEXT),
                          st.lists(st.one_of(_PLAIN, _TEXT), max_size=2),
                          st.lists(st.one_of(_PLAIN, _TEXT), max_size=2)), max_size=6),
       st.one_of(_PLAIN, _TEXT))
def test_hits_spelled_at_once_equal_spell_names_exhaustive(
    hits: list[tuple[str, str, list[str], list[str]]], path: str
) -> None:
    """``test_hits_spelled_at_once_equal_spell_names`` with the full example count."""
    test_hits_spelled_at_once_equal_spell_names.hypothesis.inner_test(hits, path)


def test_plain_hits_are_kept_as_they_are() -> None:
    hits = tuple(SearchHit(path=f"src/f{i}.py", line=i, text="café ok") for i in range(3))
    result = SearchResult(regex="x", path=".", hits=hits)
    assert _spelled(result, spell_names).hits is hits


def test_last_call_answers_the_same_and_restores_the_thresholds(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.py").write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build/b.py").write_text("x\n")
    policy = load_config(str(tmp_path))
    thresholds = gc.get_threshold()
    frozen = gc.get_freeze_count()
    try:
        answers = [run_inline(lambda: GateCore(str(tmp_path), policy=policy), "code_search", {"regex": "x"},
                              last=last) for last in (False, True)]
        assert gc.get_freeze_count() > frozen  # the last call froze what was left
    finally:
        gc.unfreeze()
    assert answers[0] == answers[1]
    assert gc.get_threshold() == thresholds
