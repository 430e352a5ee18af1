"""Red team 14, F9: a repository's ``pathgate.toml`` that is a link must not make pathgate
parse another file (the user's ``.env``, a credentials file outside the project) as its
settings: the error named the secret's first key (``unknown field `OPENAI_API_KEY```), and
``pathgate hook`` gives that text to the model; with no ``.env`` the call was allowed, so
the secret's existence showed too. A project's settings are read only from a regular
single-link file of the project (or a link to one inside it, not a secret's name); any
other link is refused with the same words whatever it leads to."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathgate import Runtime
from pathgate._hooks._run import run_hook
from pathgate.config import load_project_config
from pathgate.errors import ConfigError

SECRET_KEY = "OPENAI_API_KEY"


def _project(tmp_path: Path, name: str, *, secret: bool) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "a.txt").write_text("x\n")
    if secret:
        (root / ".env").write_text(f'{SECRET_KEY}="sk-live-hunter2"\n')
    return root


def _error(root: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_project_config(root)
    return str(info.value).replace(str(root), "<root>")


def _hook(root: Path) -> tuple[int, str]:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Read", "cwd": str(root),
               "tool_input": {"file_path": str(root / "a.txt")}}
    answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(root))
    return answer.exit_code, (answer.stdout + answer.stderr).replace(str(root), "<root>")


@pytest.mark.parametrize("target", [".env", "sub/.env", "outside"])
def test_a_link_to_a_secret_or_out_of_the_project_is_refused_alike(tmp_path: Path, target: str) -> None:
    outside = tmp_path / "credentials"
    outside.write_text('[prod_aws_account]\naws_secret_access_key = "x"\n')
    said = []
    for with_secret in (True, False):
        root = _project(tmp_path, f"p{with_secret}", secret=with_secret)
        (root / "sub").mkdir()
        if with_secret:
            (root / "sub/.env").write_text(f"{SECRET_KEY}=1\n")
        os.symlink(str(outside) if target == "outside" else target, root / "pathgate.toml")
        error = _error(root)
        assert SECRET_KEY not in error and "prod_aws_account" not in error
        code, text = _hook(root)
        assert code == 2 and SECRET_KEY not in text and "prod_aws_account" not in text
        said.append((error, code, text))
    assert said[0] == said[1]  # with and without the secret: the same refusal


def test_a_hard_link_to_a_secret_is_refused_unread(tmp_path: Path) -> None:
    root = _project(tmp_path, "p", secret=True)
    os.link(root / ".env", root / "pathgate.toml")
    error = _error(root)
    assert SECRET_KEY not in error and "link" in error
    code, text = _hook(root)
    assert code == 2 and SECRET_KEY not in text


def test_no_link_is_followed_even_to_a_plain_settings_file(tmp_path: Path) -> None:
    """Red team 15, R1: a link judged by the built-in secret names only still led to a file
    the *host* made a secret (``extra_secret_patterns``), or into ``.git/``; a project's
    settings are never read through a link."""
    root = _project(tmp_path, "p", secret=False)
    (root / "conf").mkdir()
    (root / "conf/pathgate.toml").write_text("size_limit = 1000\n")
    os.symlink("conf/pathgate.toml", root / "pathgate.toml")
    assert "link" in _error(root)
    (root / "pathgate.toml").unlink()
    (root / "pathgate.toml").write_text("size_limit = 1000\n")
    got = load_project_config(root)
    assert got is not None and any(cap.limit == 1000 for cap in Runtime(root).policy.size_caps)


def test_a_hard_link_renamed_over_the_settings_after_the_check_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 15, R4: the settings file was checked by ``lstat`` and read by name: a hard
    link of ``.env`` renamed over it in between was parsed and its key quoted."""
    from pathgate import config

    root = _project(tmp_path, "p", secret=True)
    (root / "pathgate.toml").write_text("size_limit = 1000\n")
    real = os.lstat

    def lstat(path: object, *a: object, **k: object) -> os.stat_result:
        st = real(path, *a, **k)  # type: ignore[arg-type]
        if str(path) == str(root / "pathgate.toml"):
            os.link(root / ".env", root / "swap")
            os.rename(root / "swap", root / "pathgate.toml")
        return st

    monkeypatch.setattr(config.os, "lstat", lstat)
    error = _error(root)
    assert SECRET_KEY not in error and "link" in error


def test_a_dangling_link_is_refused_not_skipped(tmp_path: Path) -> None:
    root = _project(tmp_path, "p", secret=False)
    os.symlink("conf/missing.toml", root / "pathgate.toml")
    assert "link" in _error(root)


def test_a_linked_pyproject_is_not_read_even_when_the_secret_mentions_pathgate(tmp_path: Path) -> None:
    """A ``pyproject.toml`` (a file of many tools) that pathgate may not follow counts as
    absent, whatever the secret it leads to holds (the bytes were the oracle before)."""
    answers = []
    for body in ("pathgate = 1\n", "nothing = 1\n", "[tool.pathgate]\nsize_limit = 'x'\n"):
        root = _project(tmp_path, f"p{len(answers)}", secret=False)
        (root / ".env").write_text(body)
        os.link(root / ".env", root / "pyproject.toml")
        answers.append(load_project_config(root))
        (root / "pyproject.toml").unlink()
        os.symlink(".env", root / "pyproject.toml")
        answers.append(load_project_config(root))
    assert answers == [None] * 6


def test_a_plain_settings_file_still_names_its_bad_key(tmp_path: Path) -> None:
    root = _project(tmp_path, "p", secret=False)
    (root / "pathgate.toml").write_text("no_such_key = 1\n")
    assert "no_such_key" in _error(root)
