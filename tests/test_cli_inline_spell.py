"""``pathgate search``'s hits spelled at once (``_cli_inline._spelled``) equal
``spell_names`` of the whole result, whatever the paths and lines hold: double quotes
anywhere, control characters, lone surrogates (undecodable bytes), non-ASCII text, context."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate._cli_inline import _spelled
from pathgate._names import spell_names
from pathgate.results import SearchHit, SearchResult

_TEXT = st.text(alphabet=st.sampled_from([*'ab/."\\ \n\t\x7fé\u202e\udce9\ud800\x85', "x", "y"]), max_size=8)
_PLAIN = st.text(alphabet="abc/._-0", min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
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


def test_plain_hits_are_kept_as_they_are() -> None:
    hits = tuple(SearchHit(path=f"src/f{i}.py", line=i, text="café ok") for i in range(3))
    result = SearchResult(regex="x", path=".", hits=hits)
    assert _spelled(result, spell_names).hits is hits
