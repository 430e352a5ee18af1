"""``pathgate hook install <agent>``: merged, idempotent, the user's settings kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgate.cli import main

CLAUDE_GROUP = {
    "matcher": "Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS",
    "hooks": [{"type": "command", "command": "pathgate hook claude-code", "onFailure": "block"}],
}


def install(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["hook", "install", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def load(path: Path) -> Any:
    return json.loads(path.read_text())


def test_claude_project_install_is_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = install(capsys, "claude-code", "--root", str(tmp_path))
    settings = tmp_path / ".claude/settings.json"
    assert code == 0 and "wrote" in err
    assert load(settings) == {"hooks": {"PreToolUse": [CLAUDE_GROUP]}}
    before = settings.read_bytes()
    code, _, err = install(capsys, "claude-code", "--project", "--root", str(tmp_path))
    assert code == 0 and "nothing changed" in err
    assert settings.read_bytes() == before


def test_claude_merge_keeps_the_users_hooks_and_settings(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".claude/settings.json"
    settings.parent.mkdir()
    bash = {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
    stale = {"matcher": "Read", "hooks": [{"type": "command", "command": "/old/bin/pathgate hook claude-code"},
                                          {"type": "command", "command": "./audit.sh"}]}
    original = {"permissions": {"deny": ["Bash(rm:*)"]},
                "hooks": {"PreToolUse": [bash, stale], "Stop": [{"hooks": []}]}}
    settings.write_text(json.dumps(original))
    assert install(capsys, "claude-code", "--root", str(tmp_path))[0] == 0
    merged = load(settings)
    assert merged["permissions"] == original["permissions"]
    assert merged["hooks"]["Stop"] == [{"hooks": []}]
    assert merged["hooks"]["PreToolUse"] == [
        bash,
        {"matcher": CLAUDE_GROUP["matcher"],
         "hooks": [{"type": "command", "command": "pathgate hook claude-code", "onFailure": "block"},
                   {"type": "command", "command": "./audit.sh"}]},
    ]


def test_print_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = install(capsys, "gemini", "--print", "--root", str(tmp_path))
    assert code == 0 and not (tmp_path / ".gemini").exists()
    assert json.loads(out) == {"hooks": {"BeforeTool": [{
        "matcher": "read_file|read_many_files|write_file|replace|glob|search_file_content|grep_search"
                   "|list_directory",
        "hooks": [{"type": "command", "command": "pathgate hook gemini"}]}]}}


def test_cursor_user_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    hooks_json = tmp_path / ".cursor/hooks.json"
    hooks_json.parent.mkdir()
    hooks_json.write_text(json.dumps({"version": 1, "hooks": {
        "beforeShellExecution": [{"command": "./guard.sh"}],
        "beforeReadFile": [{"command": "./redact.sh"}]}}))
    assert install(capsys, "cursor", "--user", "--command", "uvx pathgate hook cursor")[0] == 0
    ours = {"command": "uvx pathgate hook cursor", "failClosed": True}
    expected = {"version": 1, "hooks": {
        "beforeShellExecution": [{"command": "./guard.sh"}],
        "beforeReadFile": [{"command": "./redact.sh"}, ours],
        "beforeTabFileRead": [ours],
        "preToolUse": [ours]}}
    assert load(hooks_json) == expected
    assert install(capsys, "cursor", "--user", "--command", "uvx pathgate hook cursor")[0] == 0
    assert load(hooks_json) == expected


def test_bad_settings_are_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text("{ // a comment\n}")
    code, _, err = install(capsys, "gemini", "--root", str(tmp_path))
    assert code == 2 and "not valid JSON" in err
    assert settings.read_text() == "{ // a comment\n}"
    settings.write_text('{"hooks": []}')
    code, _, err = install(capsys, "gemini", "--root", str(tmp_path))
    assert code == 2 and "`hooks` is not an object" in err


@pytest.mark.parametrize(("agent", "settings_file", "off", "key"), [
    ("claude-code", ".claude/settings.json", {"disableAllHooks": True}, "disableAllHooks"),
    ("gemini", ".gemini/settings.json", {"hooksConfig": {"enabled": False}}, "hooksConfig.enabled"),
    ("gemini", ".gemini/settings.json", {"tools": {"enableHooks": False}}, "tools.enableHooks"),
])
def test_install_into_settings_that_switch_hooks_off_is_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], agent: str, settings_file: str,
        off: dict[str, Any], key: str) -> None:
    """Red team 14, F10: a repository can ship settings that switch every hook off; install
    merged pathgate's hook into them and reported success, a guard that never runs."""
    settings = tmp_path / settings_file
    settings.parent.mkdir()
    settings.write_text(json.dumps(off))
    code, _, err = install(capsys, agent, "--root", str(tmp_path))
    assert code == 1 and f"`{key}`" in err and "will not run" in err
    assert load(settings)[key.split(".")[0]] == off[key.split(".")[0]]  # the user's key is theirs to remove
    code, out, _ = install(capsys, agent, "--root", str(tmp_path), "--print")
    assert code == 1 and json.loads(out)["hooks"]
    settings.write_text(json.dumps({"disableAllHooks": False, "hooksConfig": {"enabled": True}}))
    assert install(capsys, agent, "--root", str(tmp_path))[0] == 0


@pytest.mark.parametrize(("agent", "where", "settings", "key"), [
    ("claude-code", ".claude/settings.local.json", {"disableAllHooks": True}, "disableAllHooks"),
    ("claude-code", "HOME/.claude/settings.json", {"disableAllHooks": True}, "disableAllHooks"),
    ("gemini", ".gemini/settings.json", {"hooksConfig": {"disabled": ["pathgate hook gemini"]}},
     "hooksConfig.disabled"),
    ("gemini", "HOME/.gemini/settings.json", {"hooks": {"disabled": ["pathgate-guard"]}}, "hooks.disabled"),
])
def test_install_names_a_switch_in_another_settings_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], agent: str,
        where: str, settings: dict[str, Any], key: str) -> None:
    """Red team 15, R7: only the written file was checked; Claude Code's local settings and
    the user's file switch a project's hooks off too, and Gemini CLI skips hooks by name."""
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    target = home / where[5:] if where.startswith("HOME/") else project / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(settings))
    code, _, err = install(capsys, agent, "--root", str(project))
    assert code == 1 and f"`{key}`" in err and str(target) in err
    target.write_text("{}")
    assert install(capsys, agent, "--root", str(project))[0] == 0
