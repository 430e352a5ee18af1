"""Discovery's batch steps answer as its entry-by-entry ones: a walked chunk admitted whole
(``Discovery._admit_whole``), a batch's verdicts computed only for the entries that can
get one (``Discovery._to_judge``: excluded entries, secrets, paths holding "git") and an
excluded directory's counted files taking its verdict as one list (``_excluded._by_verdict``)
give the same glob and code_search answers as admitting and judging every entry, at every
walk budget, on trees with secrets and their hard links, ignored and excluded entries, names
holding "git", a ``.git`` file pointing to a git directory, and names that are not ASCII."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pathgate._cli_inline import run_inline
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore
from pathgate.runtime.tools import _discover, _excluded

from ...test_glob_inline import _tree


def _more(root: Path) -> Path:
    for rel in ["github/x.py", "GIT_notes.md", "src/digit.py", "src/Git/keys.py", "legit/.gitkeep",
                "many/" + "/".join(["d"] * 3) + "/f.py", "sub/.git", "ñ/gitñ.py", "build/git.js",
                "build/a.js", "build/z.js", "build/.git/x.js", "build/sub/.GIT/y.py", "build/ñ.py"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x git\n" if not rel.endswith("/.git") else "gitdir: ../.git/modules/sub\n")
    for i in range(150):  # batches past the batch threshold
        (root / "many" / f"f{i:03d}.py").write_text("x\n")
    os.symlink("a.js", root / "build/b-link.js")  # between plain files: the examples' order
    os.symlink("../.env", root / "build/c-env.js")  # a link to a secret: opaque, never counted
    return root


def _answers(root: Path, budget: int, monkeypatch: pytest.MonkeyPatch, *, batch: bool) -> list[Any]:
    policy = load_config(str(root))
    with monkeypatch.context() as m:
        m.setattr(_discover, "WALK_BUDGET", budget)
        if not batch:
            m.setattr(_discover.Discovery, "_admit_whole", lambda self, chunk: None)
            m.setattr(_discover.Discovery, "_to_judge", lambda self, entries, plain: plain)
            m.setattr(_discover.Discovery, "_is_git_batchable", lambda self: False)
        out = []
        for tool, args in (("glob", {"pattern": "**", "limit": 0}), ("glob", {"pattern": "**/*git*", "limit": 0}),
                           ("glob", {"pattern": "build/**", "limit": 0}), ("glob", {"pattern": "**/*.js", "limit": 0}),
                           ("glob", {"pattern": "**", "path": "build", "limit": 0}),  # examples from the count only
                           ("code_search", {"regex": "x", "path": "build", "max_results": 0}),
                           ("code_search", {"regex": "x|git", "max_results": 0}),
                           ("code_search", {"regex": "x", "glob": "**/*.py", "max_results": 0})):
            out.append(run_inline(lambda: GateCore(str(root), policy=policy), tool, args, renderer="structured"))
        return out


def _counted_only(root: Path) -> Path:
    """One excluded directory and no other ignored entry: the examples come from the count."""
    (root / "out" / "d").mkdir(parents=True)
    (root / ".gitignore").write_text("out/\n")
    (root / "main.py").write_text("x\n")
    for name in ["a.js", "c.js", "git.js", "d/e.js", "d/a.py", "zz.js", ".env"]:
        (root / "out" / name).write_text("x\n")
    os.symlink("a.js", root / "out/b-link.js")
    os.symlink("../../main.py", root / "out/d/0-link.py")
    return root


@pytest.mark.parametrize("budget", [1, 7, 40, 400_000])
@pytest.mark.parametrize("make", ["full", "counted"])
def test_batch_steps_answer_as_entry_by_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int,
                                              make: str) -> None:
    root = _more(_tree(tmp_path / "proj")) if make == "full" else _counted_only(tmp_path / "proj")
    got = _answers(root, budget, monkeypatch, batch=True)
    assert got == _answers(root, budget, monkeypatch, batch=False)
    if make == "counted" and budget > 40:
        assert "e.g. out/a.js, out/b-link.js, out/c.js" in repr(got), got  # a link between plain files


def test_batch_steps_are_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch routes run on this tree (not only their fall-backs)."""
    root = _more(_tree(tmp_path / "proj"))
    whole, chosen, runs = [0], [0], [0]
    admit, to_judge = _discover.Discovery._admit_whole, _discover.Discovery._to_judge
    by_verdict = _excluded._by_verdict

    def counted_runs(*args: Any) -> None:
        runs[0] += 1
        by_verdict(*args)

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
    monkeypatch.setattr(_excluded, "_by_verdict", counted_runs)
    _answers(root, 400_000, monkeypatch, batch=True)
    assert whole[0] > 0 and chosen[0] > 0 and runs[0] > 0
