"""A secret's hard link inside an ignored directory is opaque on every route (red team 6, F3).

``build/`` is ignored and ``build/st.txt`` is a hard link to ``.env``: the ignore gate would
block it with an explanation that quotes the rule and says the file exists; the secrets gate
answers ``.env`` itself with a bare ``[BLOCKED]``. Whatever catches a secret, the model gets
the bare block: here through reads (by name and through an innocent symlink), writes,
discovery tools started at it, ``explain``, the hook and the adapters' guard. An ignored
file that is *not* a secret's alias keeps its explanation (the check is not a blanket one).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate._explain import explain_paths
from pathgate._hooks._run import run_hook
from pathgate.adapters._common import guard_paths

pytestmark = pytest.mark.anyio


def _tree(root: Path, *, alias: bool) -> Path:
    (root / "build").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / ".gitignore").write_text("build/\n")
    (root / ".env").write_text("API_KEY=hunter2\n")
    (root / "build/plain.txt").write_text("ignored, not a secret\n")
    if alias:
        os.link(root / ".env", root / "build/st.txt")
    else:  # the same name, an ordinary ignored file with two links of its own
        (root / "build/st.txt").write_text("API_KEY=hunter2\n")
        os.link(root / "build/st.txt", root / "build/other.txt")
    os.symlink("../build/st.txt", root / "docs/l3")
    (root / "sub").mkdir()
    return root


@pytest.mark.parametrize("renderer", ["sentinel", "verbose", "structured"])
async def test_reads_of_an_ignored_alias_are_bare(tmp_path: Path, renderer: str) -> None:
    rt = Runtime(_tree(tmp_path / "a", alias=True), Policy(allow_writes=True))
    out = await rt.call("read_files", {"paths": ["build/st.txt", "docs/l3", "build/plain.txt"]}, renderer=renderer)
    text = json.dumps(out)
    for path in ("build/st.txt", "docs/l3"):
        shown = out["files"] if renderer == "structured" else None
        if shown is None:
            assert out[path] == "[BLOCKED]"
        else:
            assert {"status": "blocked", "path": path} in shown
    assert "hunter2" not in text
    if renderer != "sentinel":  # an ordinary ignored file is still explained
        plain = out["build/plain.txt"] if renderer == "verbose" else out["files"][2]
        assert plain != "[BLOCKED]" and plain != {"status": "blocked", "path": "build/plain.txt"}


async def test_an_ignored_multi_linked_file_that_is_no_alias_is_explained(tmp_path: Path) -> None:
    rt = Runtime(_tree(tmp_path / "b", alias=False))
    out = await rt.call("read_files", {"paths": ["build/st.txt"]}, renderer="verbose")
    assert out["build/st.txt"].startswith("[BLOCKED]: Excluded by ignore rules")


async def test_other_routes_are_bare_too(tmp_path: Path) -> None:
    root = _tree(tmp_path / "c", alias=True)
    rt = Runtime(root, Policy(allow_writes=True, require_read_before_write=False))
    w = await rt.write_file("build/st.txt", "x\n")
    assert w.verdict is not None and w.verdict.opaque
    assert (root / ".env").read_text() == "API_KEY=hunter2\n"
    for tool, args in [("list_directory", {"path": "build/st.txt"}), ("glob", {"pattern": "*", "path": "build/st.txt"}),
                       ("code_search", {"regex": "API", "path": "build/st.txt"}),
                       ("code_search", {"regex": "API", "path": "docs/l3"})]:
        out = json.dumps(await rt.call(tool, args, renderer="verbose"))
        assert "ignore" not in out.lower() and "exists" not in out.lower() and "hunter2" not in out, (tool, out)
    (exp,) = await explain_paths(rt, ["build/st.txt"])  # for a person: the secrets gate, no rule
    assert not exp.allowed and exp.gate == "secrets" and exp.rule is None and exp.remedy is None
    guarded = await guard_paths(rt, ["build/st.txt"])
    assert "ignore" not in repr(guarded).lower() and "hunter2" not in repr(guarded)


def test_the_hook_is_bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "d", alias=True)
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    for path in ("build/st.txt", "docs/l3"):
        payload = {"cwd": str(root), "tool_name": "Read", "tool_input": {"file_path": path}}
        answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(root))
        reason = json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason == "[BLOCKED]", reason


async def test_an_ignore_file_that_is_an_alias_is_bare(tmp_path: Path) -> None:
    root = _tree(tmp_path / "e", alias=False)
    os.link(root / ".env", root / "sub/.gitignore")
    rt = Runtime(root)
    out = await rt.call("read_files", {"paths": ["sub/.gitignore"]}, renderer="verbose")
    assert out["sub/.gitignore"] == "[BLOCKED]"
