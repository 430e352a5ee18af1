"""``~`` in a hook's path fields (red team 4, F5): agent CLIs expand it to the home
directory, so the hook judges the expanded path too (it was joined to the cwd and allowed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgate._hooks._run import run_hook
from tests._gitinit import git_init


def _reason(agent: str, root: Path, tool: str, tool_input: dict[str, str]) -> str | None:
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    payload = {"cwd": str(root), "tool_name": tool, "tool_input": tool_input, "hook_event_name": event}
    answer = run_hook(agent, json.dumps(payload).encode(), root=str(root))
    assert answer.exit_code == 0, answer.stderr
    out = answer.stdout.strip()
    if not out or out in ("{}", '{"permission": "allow"}'):
        return None
    data = json.loads(out)
    if "hookSpecificOutput" in data:
        return str(data["hookSpecificOutput"]["permissionDecisionReason"])
    return str(data.get("reason") or data.get("agent_message"))


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home = tmp_path / "home"
    root = tmp_path / "proj"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh/config").write_text("Host x\n")
    (home / ".bashrc").write_text("# rc\n")
    (root / "~").mkdir(parents=True)
    (root / "~/notes.txt").write_text("a dir literally named ~\n")
    (root / "app.py").write_text("x = 1\n")
    git_init(root)
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root, home


@pytest.mark.parametrize(("agent", "tool", "field"), [
    ("claude-code", "Read", "file_path"),
    ("claude-code", "Write", "file_path"),
    ("claude-code", "Grep", "path"),
    ("gemini", "read_file", "absolute_path"),
])
@pytest.mark.parametrize("path", ["~/.bashrc", "~/.ssh/config", "~", "~/notes.txt"])
def test_tilde_paths_are_judged_where_they_lead(layout: tuple[Path, Path], agent: str, tool: str,
                                                field: str, path: str) -> None:
    root, _home = layout
    tool_input = {field: path}
    if tool == "Write":
        tool_input["content"] = "x\n"
    if tool == "Grep":
        tool_input["pattern"] = "x"
    reason = _reason(agent, root, tool, tool_input)
    assert reason is not None and reason.startswith("[FILE_OUTSIDE_PROJECT]"), reason
    assert _reason(agent, root, tool, {**tool_input, field: "app.py" if tool != "Grep" else "."}) is None


def test_tilde_inside_the_project_is_judged_by_the_gates(layout: tuple[Path, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root, _home = layout
    (root / ".env").write_text("K=1\n")
    monkeypatch.setenv("HOME", str(root))
    assert _reason("claude-code", root, "Read", {"file_path": "~/.env"}) == "[BLOCKED]"
    assert _reason("claude-code", root, "Read", {"file_path": "~/app.py"}) is None
