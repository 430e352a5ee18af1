"""Differential test: the wildmatch-based tool globs against the legacy matcher they
replace, on generated ASCII patterns and paths, where the two are meant to agree (not:
backslashes inside a class, POSIX classes, reversed ranges — git's semantics now)."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pathgate.errors import ToolArgumentError
from pathgate.runtime.tools._pattern import compile_glob
from tests.runtime.tools import _legacy_pattern as legacy

_ATOMS = st.sampled_from(["a", "b", ".b", "*", "**", "***", "?", "[ab]", "[!a]", "[^b]", "[a-c]", "[]a]",
                          "[!]b]", "\\*", "\\a", "\\[", "x", "[", "]", "-", "!"])
_SEGMENT = st.lists(_ATOMS, min_size=1, max_size=6).map("".join)
_PATTERN = st.lists(st.one_of(_SEGMENT, st.just("**"), st.just("."), st.just("")),
                    min_size=1, max_size=5).map("/".join)
_PATH = st.lists(st.text("ab.x*[]\\!^-c?", min_size=1, max_size=6), min_size=1, max_size=6).map("/".join)
_BACKSLASH_IN_CLASS = re.compile(r"\[[^/\]]*\\[^/]*\]")


@settings(max_examples=3000, deadline=None)
@given(_PATTERN, st.lists(_PATH, min_size=1, max_size=10))
def test_same_results_as_the_legacy_matcher(pattern: str, paths: list[str]) -> None:
    assume(not _BACKSLASH_IN_CLASS.search(pattern) and "[-" not in pattern)
    try:
        old = legacy.compile_glob(pattern)
    except ToolArgumentError:
        assume(False)
        return
    new = compile_glob(pattern)
    assert new.literal_prefix == old.literal_prefix
    assert new.prunes == old.prunes
    for path in paths:
        assert new.match(path) == old.match(path), (pattern, path, new.wildmatch)
        for cut in range(path.count("/") + 1):
            directory = "/".join(path.split("/")[:cut])
            assert new.could_match_below(directory) == old.could_match_below(directory), (pattern, directory)
