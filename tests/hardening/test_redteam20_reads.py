"""Red team 20 (read side): a hostile name must be a verdict, never an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.gates.secrets import BACKUP_LAYERS, SecretMatcher

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("name", ["#" * 1500 + "x" + "#" * 1500, "notes" + ".bak" * 1200, "a" + "~" * 3000],
                         ids=["autosave-pairs", "copies", "tildes"])
async def test_deep_backup_names_are_verdicts_in_every_tool(tmp_path: Path, name: str) -> None:
    """L14: 1,500 backup layers recursed past Python's limit in the secrets gate: every
    tool answered an internal error and ``read_files`` lost the whole batch."""
    (tmp_path / "README.md").write_text("hello\n")
    rt = Runtime(tmp_path, policy=Policy(allow_writes=True))
    try:
        batch = await rt.call("read_files", {"paths": ["README.md", name]}, renderer="structured")
        assert "error_type" not in json.dumps(batch)
        assert "hello" in json.dumps(batch)
        for tool, args in [("list_directory", {"path": name}), ("glob", {"pattern": "*", "path": name}),
                           ("code_search", {"regex": "x", "path": name}),
                           ("write_file", {"path": name, "content": "x"})]:
            res = await rt.call(tool, args, renderer="structured")
            assert "internal" not in json.dumps(res), (tool, res)
    finally:
        await rt.aclose()


def test_backup_layers_judged_up_to_the_bound_then_fail_closed() -> None:
    m = SecretMatcher(["id_rsa"])
    deep = ".env"
    for _ in range(BACKUP_LAYERS):
        deep = f"#{deep}#"
    assert m.is_secret_name(deep)  # every layer peeled: a backup of .env
    assert m.is_secret_name("#" * (BACKUP_LAYERS + 1) + "notes" + "#" * (BACKUP_LAYERS + 1))  # past the bound
    assert not m.is_secret_name("#" * BACKUP_LAYERS + "notes" + "#" * BACKUP_LAYERS)
    assert m.is_secret_name("id_rsa" + ".bak" * BACKUP_LAYERS) and not m.is_secret_name("notes.bak.bak~")
