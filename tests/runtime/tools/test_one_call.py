"""A core marked as making one discovery call (``pathgate glob``/``search``: ``one_call``)
keeps nothing for a later call — the walk's ignore nodes stay in its session, the count
inside excluded directories is not kept — and answers as a runtime does; its secret tests
(the name pre-test, directory by directory) leave the output the same with and without a
secret."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio

from pathgate import Runtime
from pathgate._cli_inline import run_inline
from pathgate.config import load_config
from pathgate.runtime._gating import GateCore
from pathgate.runtime.tools import _excluded
from pathgate.runtime.tools._discover import Discovery
from pathgate.runtime.tools._secret_walk import one_call


def _tree(root: Path, *, secrets: bool) -> Path:
    for rel, text in {
        ".gitignore": "build/\n*.log\n",
        "src/a/app.py": "needle = 1\n",
        "src/a/b/deep.py": "needle = 2\n",
        "src/notes.log": "needle\n",
        "build/out/gen.py": "needle = 3\n",
        "build/more.txt": "needle\n",
        "docs/guide.md": "a needle here\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if secrets:
        for rel in (".env", "src/a/.env.local", "src/a/#.env#", "build/out/server.key.~1~", "build/id_rsa.bak",
                    "docs/.ENV:$DATA", "src/.aws/credentials~", "keys.pem/inner.txt"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text("needle = secret\n")
        os.link(root / ".env", root / "build/alias.txt")  # a secret's hard link, in an excluded directory
    return root


def _inline(root: Path, regex: str = "needle") -> Any:
    policy = load_config(str(root))
    return run_inline(lambda: GateCore(str(root), policy=policy), "code_search",
                      {"regex": regex, "max_results": 0}, renderer="structured")


def test_one_call_core_keeps_nothing_and_answers_as_a_runtime(tmp_path: Path) -> None:
    root = _tree(tmp_path / "p", secrets=True)
    policy = load_config(str(root))
    core = GateCore(str(root), policy=policy)
    one_call(core)
    from pathgate.runtime._gating import run_now
    from pathgate.runtime.tools.code_search import code_search

    mine = run_now(code_search(core, "needle", max_results=0, linked_secret=core.index.linked_secret))
    assert not any(rel.startswith("src/a") for rel in core.index._nodes), "walked nodes were shared"
    kept = _excluded._PLAIN.get(core)
    assert kept is None or not kept._kept
    assert Discovery(core)._one_call

    async def on_runtime() -> Any:
        rt = Runtime(str(root), policy=policy)
        got = await rt.code_search("needle", max_results=0)
        assert any(rel.startswith("src/a") for rel in rt.index._nodes)  # a runtime keeps them
        assert not Discovery(rt)._one_call
        return got

    theirs = anyio.run(on_runtime)
    assert mine.hits == theirs.hits and mine.omitted == theirs.omitted and mine.unsearched == theirs.unsearched
    assert mine.files_searched == theirs.files_searched


def test_same_output_with_and_without_secrets(tmp_path: Path) -> None:
    with_secrets = _inline(_tree(tmp_path / "a", secrets=True))
    without = _inline(_tree(tmp_path / "b", secrets=False))
    assert with_secrets == without
    assert "needle = secret" not in repr(with_secrets)
