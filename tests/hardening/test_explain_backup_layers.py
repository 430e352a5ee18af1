"""``pathgate explain`` of editors' backups of secrets: layers peeled in a loop, bounded as the gate.

Red team 20 L14 made the secrets gate peel backup layers in a loop (at most ``BACKUP_LAYERS``,
past them a secret); ``explain``'s own account of the rule still recursed once per layer, so a
name of 1,500 ``#`` pairs raised ``RecursionError`` there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgate.cli import main
from pathgate.runtime.gates.secrets import BACKUP_LAYERS


def _explain(capsys: pytest.CaptureFixture[str], root: Path, name: str) -> dict[str, object]:
    code = main(["explain", "--root", str(root), "--json", name])
    out = capsys.readouterr().out
    assert code in (0, 1)
    got = json.loads(out)
    return got[0] if isinstance(got, list) else got  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", ["#" * 1500 + "x" + "#" * 1500, "#" * 1500 + ".env" + "#" * 1500,
                                  "notes" + ".bak" * 1200], ids=["autosave-pairs", "env-autosave-pairs", "copies"])
def test_deep_backup_names_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    (tmp_path / "README.md").write_text("hello\n")
    got = _explain(capsys, tmp_path, name)
    assert got["allowed"] is False
    assert f"more than {BACKUP_LAYERS} layers" in str(got["secret_rule"])  # (judged a secret, failing closed)
    assert str(got["secret_rule"]).count("an editor's backup") == BACKUP_LAYERS + 1


def test_backup_layers_within_the_bound_name_their_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = ".env"
    for _ in range(BACKUP_LAYERS):
        deep = f"#{deep}#"
    got = _explain(capsys, tmp_path, deep)
    rule = str(got["secret_rule"])
    assert rule.count("an editor's backup") == BACKUP_LAYERS
    assert rule.endswith("(any case, NTFS variants; templates excepted)" + ")" * BACKUP_LAYERS)
    got = _explain(capsys, tmp_path, "#.env#~")
    assert str(got["secret_rule"]).startswith("an editor's backup or swap file of a secret (`#.env#`: an editor's "
                                              "backup or swap file of a secret (`.env`: `.env`, ")
