"""``pathgate glob`` under huge ignore files: the same answer read lazily as compiled whole.

``glob`` reads ignore files of ``_rules.LAZY_MIN_BYTES`` or more line by line
(``_cli_inline._lazy_ignore``) until ``GLOB_SCANS`` scans, then compiles them whole: the
matches, the notes (omitted matches, directories not searched and the rule that excluded
them) and the exit code must be those of the whole compile up front, whether the walk
stays lazy, goes whole midway, or never was lazy. The trees are ``test_differential``'s
generated ones, every ignore file padded past the real size bound.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import weakref
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from pathgate import _cli_inline, cli
from pathgate.runtime.ignore import _lazy, _rules
from tests.oracle._git import git_init, write_tree
from tests.oracle.test_check_ignore_lazy_cli import _padded
from tests.oracle.test_differential import trees


def _glob(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(["glob", "--root", str(root), "--git-only", "**/*"])
    out = capsys.readouterr()
    return code, out.out, out.err


@settings(max_examples=4, deadline=None, derandomize=True, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(trees())
def test_glob_reads_huge_ignore_files_lazily_with_the_same_answer(
        git_bin: str, capsys: pytest.CaptureFixture[str], tree: tuple[dict[str, bytes], list[str]]) -> None:
    root = Path(tempfile.mkdtemp(prefix="pg-lazy-glob-"))
    made: list[str] = []
    try:
        git_init(git_bin, root)
        write_tree(root, _padded(tree[0]), tree[1])
        answers = []
        lazy_list = _lazy.lazy_list
        for scans in (None, 10_000, 2):  # whole up front; lazy throughout; whole after 2 scans
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(_rules, "_COMPILED", weakref.WeakValueDictionary())  # (each run reads its own)
                mp.setattr(_lazy, "_LAZY", weakref.WeakValueDictionary())
                mp.setattr(_lazy, "lazy_list", lambda *a: made.append("lazy") or lazy_list(*a))
                if scans is None:
                    mp.setattr(_cli_inline, "_lazy_ignore", lambda tool: contextlib.nullcontext())
                else:
                    mp.setattr(_lazy, "MAX_SCANS", scans)
                    mp.setattr(_cli_inline, "GLOB_SCANS", scans)
                made.clear()
                answers.append(_glob(root, capsys))
                assert bool(made) == (scans is not None)
        assert answers[0] == answers[1] == answers[2]
    finally:
        shutil.rmtree(root)
