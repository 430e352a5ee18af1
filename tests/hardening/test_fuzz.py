"""Fuzzing (slow): random ignore files and paths against ``git check-ignore``, and random bytes
as ignore-file content (no exception, no hang).

Reuses the oracle's helpers (``tests/oracle``): its tree strategy and its byte-for-byte
``check-ignore -v -n --stdin`` comparison. The lines here are freer than the oracle's
(arbitrary characters from a pattern-heavy alphabet, any bytes), so they reach parser corners
the curated atoms do not.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pathgate import Policy, Runtime
from pathgate.runtime.ignore import IgnoreList
from tests.oracle.test_differential import _compare, trees

pytestmark = pytest.mark.slow

ALPHABET = "ab*?[]!/\\ #.-^:\t\r" + "Aé"
LINE_BYTES = st.binary(max_size=40).filter(lambda b: b"\n" not in b)


@st.composite
def free_lines(draw: st.DrawFn) -> bytes:
    """An ignore file of free-form lines: pattern-heavy text, sometimes raw bytes."""
    lines = draw(st.lists(
        st.one_of(st.text(ALPHABET, max_size=12).map(lambda s: s.encode()), LINE_BYTES),
        min_size=1, max_size=8))
    return b"\n".join(lines) + draw(st.sampled_from([b"", b"\n", b"\r\n"]))


@st.composite
def fuzz_trees(draw: st.DrawFn) -> tuple[dict[str, bytes], list[str]]:
    files, dirs = draw(trees())
    for rel in [r for r in files if r.endswith(".gitignore")]:
        files[rel] = draw(free_lines())
    return files, dirs


SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(fuzz_trees(), st.booleans())
def test_free_form_ignore_files_equal_git(
    git_bin: str, tree: tuple[dict[str, bytes], list[str]], fold: bool
) -> None:
    _compare(git_bin, *tree, ignore_case=fold)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), free_lines())
def test_free_form_info_exclude_equals_git(
    git_bin: str, tree: tuple[dict[str, bytes], list[str]], exclude: bytes
) -> None:
    _compare(git_bin, *tree, info_exclude=exclude)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096), st.lists(st.text(ALPHABET, min_size=1, max_size=20), max_size=10))
def test_random_bytes_as_an_ignore_file(data: bytes, names: list[str]) -> None:
    """Any bytes parse; every path gets a decision; the runtime answers; in bounded time."""
    lst = IgnoreList.from_bytes(".gitignore", "", data, False, None)
    assert len(lst) >= 0

    async def run() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / ".gitignore").write_bytes(data)
            (root / "sub").mkdir()
            (root / "sub" / ".gitignore").write_bytes(data[::-1])
            for name in names:
                clean = name.replace("/", "_").strip() or "x"
                if clean in (".", "..", ".gitignore", "sub"):
                    continue
                try:
                    (root / "sub" / clean).write_text("x")
                except OSError:
                    continue
            rt = Runtime(root, policy=Policy())
            with anyio.fail_after(30):
                for tool, args in [("read_files", {"paths": [f"sub/{n}" for n in names] or ["x"]}),
                                   ("glob", {"pattern": "**/*"}), ("list_directory", {"path": "sub"}),
                                   ("code_search", {"regex": "x"})]:
                    for renderer in ("sentinel", "verbose", "structured"):
                        out = await rt.call(tool, args, renderer=renderer)
                        assert not (isinstance(out, dict) and out.get("error_type") == "internal"), out

    anyio.run(run)
