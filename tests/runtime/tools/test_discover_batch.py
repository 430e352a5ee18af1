"""Discovery's batch steps answer as its entry-by-entry ones: a walked chunk admitted whole
(``Discovery._admit_whole``) and a batch's verdicts computed only for the entries that can
get one (``Discovery._to_judge``: excluded entries, secrets, paths holding "git") give the
same glob and code_search answers as admitting and judging every entry, at every walk
budget, on trees with secrets and their hard links, ignored and excluded entries, names
holding "git", a ``.git`` file pointing to a git directory, and names that are not ASCII."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pathgate._cli_inline import run_inline
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore
from pathgate.runtime.tools import _discover

from ...test_glob_inline import _tree


def _more(root: Path) -> Path:
    for rel in ["github/x.py", "GIT_notes.md", "src/digit.py", "src/Git/keys.py", "legit/.gitkeep",
                "many/" + "/".join(["d"] * 3) + "/f.py", "sub/.git", "ñ/gitñ.py", "build/git.js"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x git\n" if not rel.endswith("/.git") else "gitdir: ../.git/modules/sub\n")
    for i in range(150):  # batches past the batch threshold
        (root / "many" / f"f{i:03d}.py").write_text("x\n")
    return root


def _answers(root: Path, budget: int, monkeypatch: pytest.MonkeyPatch, *, batch: bool) -> list[Any]:
    policy = load_config(str(root))
    with monkeypatch.context() as m:
        m.setattr(_discover, "WALK_BUDGET", budget)
        if not batch:
            m.setattr(_discover.Discovery, "_admit_whole", lambda self, chunk: None)
            m.setattr(_discover.Discovery, "_to_judge", lambda self, entries, plain: plain)
        out = []
        for tool, args in (("glob", {"pattern": "**", "limit": 0}), ("glob", {"pattern": "**/*git*", "limit": 0}),
                           ("code_search", {"regex": "x|git", "max_results": 0}),
                           ("code_search", {"regex": "x", "glob": "**/*.py", "max_results": 0})):
            out.append(run_inline(lambda: GateCore(str(root), policy=policy), tool, args, renderer="structured"))
        return out


@pytest.mark.parametrize("budget", [1, 7, 40, 400_000])
def test_batch_steps_answer_as_entry_by_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int) -> None:
    root = _more(_tree(tmp_path / "proj"))
    assert _answers(root, budget, monkeypatch, batch=True) == _answers(root, budget, monkeypatch, batch=False)


def test_batch_steps_are_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch routes run on this tree (not only their fall-backs)."""
    root = _more(_tree(tmp_path / "proj"))
    whole, chosen = [0], [0]
    admit, to_judge = _discover.Discovery._admit_whole, _discover.Discovery._to_judge

    def counted_admit(self: _discover.Discovery, chunk: list[Any]) -> Any:
        got = admit(self, chunk)
        whole[0] += got is not None
        return got

    def counted_judge(self: _discover.Discovery, entries: Any, plain: Any) -> Any:
        got = to_judge(self, entries, plain)
        chosen[0] += got is not plain
        return got

    os.remove(root / "sub/.git")  # no git directory from a .git file: the batch judge applies
    monkeypatch.setattr(_discover.Discovery, "_admit_whole", counted_admit)
    monkeypatch.setattr(_discover.Discovery, "_to_judge", counted_judge)
    _answers(root, 400_000, monkeypatch, batch=True)
    assert whole[0] > 0 and chosen[0] > 0
