"""An agent ignore file whose *path* is a secret is never read as rules (red-team finding).

``agent_files = ["credentials"]`` passes the configuration check (``credentials`` alone is
not a secret name), but in ``.aws/`` that file is the secret ``.aws/credentials``: read as
ignore rules, its lines would be quoted to the model by the verbose renderer, and its
existence would change answers. It counts as absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from tests.runtime.gates._tree import write_tree

pytestmark = pytest.mark.anyio

CREDS = "[default]\naws_access_key_id = AKIAEXAMPLE\nregion = eu-*\n*\n"


async def _answers(root: Path) -> list[object]:
    rt = Runtime(root, Policy(agent_files=(".pathgateignore", "credentials")))
    calls = [
        ("read_files", {"paths": [".aws/d", ".aws/region = eu-west-1", ".aws/config.txt"]}),
        ("glob", {"pattern": "**"}),
        ("list_directory", {"path": ".aws"}),
        ("code_search", {"regex": "k"}),
    ]
    out: list[object] = []
    for tool, args in calls:
        for renderer in ("verbose", "structured"):
            out.append(await rt.call(tool, args, renderer=renderer))
    return out


async def test_a_secret_named_by_agent_files_is_not_read_as_rules(tmp_path: Path) -> None:
    files = {".aws/config.txt": "k\n", ".aws/d": "k\n", "src/a.py": "k\n"}
    with_secret = write_tree(tmp_path / "a", {**files, ".aws/credentials": CREDS})
    without = write_tree(tmp_path / "b", files)
    got, want = await _answers(with_secret), await _answers(without)
    text = repr(got)
    assert "AKIAEXAMPLE" not in text and "credentials" not in text and "eu-*" not in text
    assert text.replace(str(with_secret), "R") == repr(want).replace(str(without), "R")
