"""``pathgate hook <agent>``: each tool's documented payloads in, its documented answer out.

The tree has a secret (``.env``), a gitignored file (``debug.log``), a file below an excluded
directory (``build/out.js``), a normal file, and a file outside the project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pathgate._hooks._run import run_hook

SECRET = "[BLOCKED]"
OUTSIDE = "[FILE_OUTSIDE_PROJECT]: It resolves outside the project root."
LOG_RULE = "`.gitignore:2:*.log`"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    files = {
        ".gitignore": "build/\n*.log\n",
        ".env": "SECRET=topsecret-value\n",
        "debug.log": "log\n",
        "build/out.js": "built\n",
        "src/app.py": "print('hello')\n",
        "node_modules/x/index.js": "x\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (tmp_path / "outside.txt").write_text("outside\n")
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def claude(root: Path, tool: str, **tool_input: Any) -> bytes:
    """A Claude Code PreToolUse payload as documented (file paths absolute)."""
    return json.dumps({
        "session_id": "abc123", "transcript_path": "/tmp/t.jsonl", "cwd": str(root),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool,
        "tool_input": tool_input, "tool_use_id": "toolu_01",
    }).encode()


def claude_reason(stdout: str) -> str:
    out = json.loads(stdout)
    assert set(out) == {"hookSpecificOutput"}
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse" and spec["permissionDecision"] == "deny"
    assert set(spec) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    reason: str = spec["permissionDecisionReason"]
    return reason


# -- Claude Code --------------------------------------------------------------------------------

def test_claude_allows_a_normal_file_silently(project: Path) -> None:
    answer = run_hook("claude-code", claude(project, "Read", file_path=str(project / "src/app.py")))
    assert (answer.stdout, answer.stderr, answer.exit_code) == ("", "", 0)


def test_claude_denies_a_secret_with_a_bare_sentinel(project: Path) -> None:
    answer = run_hook("claude-code", claude(project, "Read", file_path=str(project / ".env")))
    assert answer.exit_code == 0
    assert claude_reason(answer.stdout) == SECRET
    assert "topsecret" not in answer.stdout


def test_claude_explains_a_gitignored_file_with_verified_lines(project: Path) -> None:
    answer = run_hook("claude-code", claude(project, "Read", file_path=str(project / "debug.log")))
    reason = claude_reason(answer.stdout)
    assert reason.startswith("[BLOCKED]: Excluded by ignore rules: ")
    assert LOG_RULE in reason
    assert reason.endswith("add these lines to `.pathgateignore`:\n!/debug.log")


def test_claude_explains_a_file_below_an_excluded_directory(project: Path) -> None:
    answer = run_hook("claude-code", claude(project, "Edit", file_path=str(project / "build/out.js"),
                                            old_string="a", new_string="b"))
    reason = claude_reason(answer.stdout)
    assert "its directory `build/` matches `.gitignore:1:build/`" in reason
    assert reason.endswith("!/build/\n/build/*\n!/build/out.js")


def test_claude_denies_an_outside_path(project: Path) -> None:
    answer = run_hook("claude-code", claude(project, "Read", file_path=str(project.parent / "outside.txt")))
    assert claude_reason(answer.stdout) == OUTSIDE


def test_claude_writes_to_secrets_and_git_internals_are_denied(project: Path) -> None:
    (project / ".git").mkdir()
    answer = run_hook("claude-code", claude(project, "Write", file_path=str(project / ".env.local"),
                                            content="X=1"))
    assert claude_reason(answer.stdout) == SECRET
    answer = run_hook("claude-code", claude(project, "Write", file_path=str(project / ".git/config"),
                                            content="x"))
    assert claude_reason(answer.stdout).startswith("[BLOCKED]: `.git/` holds git's internal files")
    new = run_hook("claude-code", claude(project, "Write", file_path=str(project / "src/new.py"), content="x"))
    assert (new.stdout, new.exit_code) == ("", 0)


def test_claude_grep_and_glob_are_decided_by_their_path_and_pattern(project: Path) -> None:
    grep_build = run_hook("claude-code", claude(project, "Grep", pattern="x", path=str(project / "build")))
    assert "`.gitignore:1:build/` matches it" in claude_reason(grep_build.stdout)
    glob_env = run_hook("claude-code", claude(project, "Glob", pattern="**/.env*"))
    assert claude_reason(glob_env.stdout) == SECRET
    grep_env = run_hook("claude-code", claude(project, "Grep", pattern="KEY", glob=".env"))
    assert claude_reason(grep_env.stdout) == SECRET
    glob_nm = run_hook("claude-code", claude(project, "Glob", pattern="node_modules/**/*.js"))
    assert "built-in default `node_modules/`" in claude_reason(glob_nm.stdout)
    for ok in (claude(project, "Glob", pattern="**/*.py"),
               claude(project, "Grep", pattern="hello", path=str(project / "src"), glob="*.py"),
               claude(project, "Bash", command="ls"),
               claude(project, "Grep", pattern="x")):
        answer = run_hook("claude-code", ok)
        assert (answer.stdout, answer.exit_code) == ("", 0)


def test_claude_fails_closed_on_garbage(project: Path) -> None:
    for data in (b"not json", b"[1, 2]", b'{"hook_event_name": "PreToolUse", "tool_name": "Read"}'):
        answer = run_hook("claude-code", data)
        assert answer.exit_code == 2 and answer.stdout == ""
        assert answer.stderr.startswith("pathgate hook claude-code: blocked because the check failed")


def test_claude_fails_closed_on_a_bad_config(project: Path) -> None:
    (project / "pathgate.toml").write_text("no_such_key = 1\n")
    answer = run_hook("claude-code", claude(project, "Read", file_path=str(project / "src/app.py")))
    assert answer.exit_code == 2 and "no_such_key" in answer.stderr


# -- Cursor -------------------------------------------------------------------------------------

def cursor(root: Path, event: str, **fields: Any) -> bytes:
    """A Cursor hook payload as documented (common fields + the event's own)."""
    return json.dumps({"conversation_id": "c1", "generation_id": "g1", "model": "gpt-5",
                       "hook_event_name": event, "cursor_version": "2.0.0",
                       "workspace_roots": [str(root)], "user_email": None, **fields}).encode()


def cursor_deny(stdout: str) -> str:
    out = json.loads(stdout)
    assert out["permission"] == "deny" and out["user_message"] == out["agent_message"]
    assert set(out) == {"permission", "user_message", "agent_message"}
    message: str = out["agent_message"]
    return message


def test_cursor_before_read_file(project: Path) -> None:
    def read(rel: str) -> Any:
        return run_hook("cursor", cursor(project, "beforeReadFile", file_path=str(project / rel),
                                         content="...", attachments=[]))

    ok = read("src/app.py")
    assert (json.loads(ok.stdout), ok.exit_code) == ({"permission": "allow"}, 0)
    assert cursor_deny(read(".env").stdout) == SECRET
    assert LOG_RULE in cursor_deny(read("debug.log").stdout)
    assert "its directory `build/`" in cursor_deny(read("build/out.js").stdout)
    outside = run_hook("cursor", cursor(project, "beforeReadFile",
                                        file_path=str(project.parent / "outside.txt"), content=""))
    assert cursor_deny(outside.stdout) == OUTSIDE


def test_cursor_pre_tool_use_and_other_events(project: Path) -> None:
    grep = run_hook("cursor", cursor(project, "preToolUse", tool_name="Grep",
                                     tool_input={"pattern": "x", "path": str(project / "build")}))
    assert "`.gitignore:1:build/`" in cursor_deny(grep.stdout)
    shell = run_hook("cursor", cursor(project, "beforeShellExecution", command="ls", cwd=str(project)))
    assert (json.loads(shell.stdout), shell.exit_code) == ({}, 0)


def test_cursor_fails_closed(project: Path) -> None:
    answer = run_hook("cursor", cursor(project, "beforeReadFile"))
    assert answer.exit_code == 2
    assert json.loads(answer.stdout)["permission"] == "deny"
    assert "file_path" in answer.stderr


# -- Gemini CLI ---------------------------------------------------------------------------------

def gemini(root: Path, tool: str, **tool_input: Any) -> bytes:
    """A Gemini CLI BeforeTool payload as documented."""
    return json.dumps({"session_id": "s1", "transcript_path": "/tmp/t.json", "cwd": str(root),
                       "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z",
                       "tool_name": tool, "tool_input": tool_input}).encode()


def gemini_reason(stdout: str) -> str:
    out = json.loads(stdout)
    assert set(out) == {"decision", "reason"} and out["decision"] == "deny"
    reason: str = out["reason"]
    return reason


def test_gemini_before_tool(project: Path) -> None:
    ok = run_hook("gemini", gemini(project, "read_file", file_path="src/app.py"))
    assert (json.loads(ok.stdout), ok.exit_code) == ({}, 0)
    assert gemini_reason(run_hook("gemini", gemini(project, "read_file", file_path=".env")).stdout) == SECRET
    log = run_hook("gemini", gemini(project, "read_file", absolute_path=str(project / "debug.log")))
    assert LOG_RULE in gemini_reason(log.stdout)
    out = run_hook("gemini", gemini(project, "write_file", file_path=str(project.parent / "outside.txt"),
                                    content="x"))
    assert gemini_reason(out.stdout) == OUTSIDE
    search = run_hook("gemini", gemini(project, "search_file_content", pattern="x", dir_path="build"))
    assert "`.gitignore:1:build/`" in gemini_reason(search.stdout)


def test_gemini_read_many_files_names_each_blocked_path(project: Path) -> None:
    answer = run_hook("gemini", gemini(project, "read_many_files",
                                       paths=["src/app.py", ".env", "debug.log", "**/.env.*"]))
    reason = gemini_reason(answer.stdout)
    lines = reason.splitlines()
    assert "`.env`: [BLOCKED]" in lines
    assert any(line.startswith("`debug.log`: [BLOCKED]: Excluded by ignore rules") for line in lines)
    assert "`**/.env.*`: [BLOCKED]" in lines
    assert any(line.startswith("`src/app.py`: [BLOCKED]: this tool returns") for line in lines)  # J5


@pytest.mark.parametrize("with_secret", [True, False])
def test_gemini_read_many_files_denies_globs_and_directories_whatever_they_match(
        project: Path, with_secret: bool) -> None:
    """Red team 14, F12: ``read_many_files`` returns contents; ``.*``, ``*``, ``**/*`` and ``.``
    were allowed (the globs were judged as names, a directory as a file) and Gemini read
    ``.env.local`` and ``server.pem``. A glob or directory is denied the same way whether a
    secret matches or not; files named one by one are judged each."""
    if with_secret:
        (project / ".env.local").write_text("K=1\n")
        (project / "src/server.pem").write_text("KEY\n")
    else:
        (project / ".env").unlink()
    for entry in (".*", "*", "**/*", ".", "src", "src/*.py", "./"):
        reason = gemini_reason(run_hook("gemini", gemini(project, "read_many_files", paths=[entry])).stdout)
        assert reason.startswith("[BLOCKED]: this tool returns the contents of every file"), entry
    (project / "42").write_text("x\n")  # a name without cased letters has no case variant (J5)
    ok = run_hook("gemini", gemini(project, "read_many_files", paths=["42"]))
    assert (json.loads(ok.stdout), ok.exit_code) == ({}, 0)
    named = run_hook("gemini", gemini(project, "read_many_files", paths=["42", ".env.local"]))
    assert gemini_reason(named.stdout) == SECRET
    # red team 15, R3: the tool turns `\` into `/` and globs a name that is not there exactly
    # (case-insensitively: `SRC/APP.PY` reads `src/app.py`, `APP.CFG` a link named `app.cfg`)
    assert gemini_reason(run_hook("gemini", gemini(project, "read_many_files", include=["src\\.env"])).stdout) == SECRET
    for entry in ("SRC/APP.PY", "missing.txt", "src\\APP.py"):
        reason = gemini_reason(run_hook("gemini", gemini(project, "read_many_files", paths=[entry])).stdout)
        assert reason.startswith("[BLOCKED]: this tool returns the contents of every file"), entry
    (project / "12").mkdir()
    (project / "12" / "7").write_text("x\n")
    ok = run_hook("gemini", gemini(project, "read_many_files", include=["12\\7"]))
    assert (json.loads(ok.stdout), ok.exit_code) == ({}, 0)


def test_gemini_fails_closed(project: Path) -> None:
    answer = run_hook("gemini", b"{")
    assert answer.exit_code == 2 and answer.stdout == "" and "blocked" in answer.stderr


def test_gemini_uses_the_project_dir_env(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_PROJECT_DIR", str(project))
    answer = run_hook("gemini", gemini(project / "src", "read_file", file_path="../.env"))
    assert gemini_reason(answer.stdout) == SECRET


# -- the real command ---------------------------------------------------------------------------

def test_command_line_round_trip(project: Path) -> None:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "pathgate", "hook", "claude-code"], env=env,
                          input=claude(project, "Read", file_path=str(project / ".env")),
                          capture_output=True, check=False)
    assert proc.returncode == 0
    assert claude_reason(proc.stdout.decode()) == SECRET
    bad = subprocess.run([sys.executable, "-m", "pathgate", "hook", "claude-code"], env=env,
                         input=b"\xff", capture_output=True, check=False)
    assert bad.returncode == 2 and b"blocked" in bad.stderr


def test_a_root_spelled_through_a_symlink(project: Path) -> None:
    link = project.parent / "link"
    link.symlink_to(project, target_is_directory=True)
    ok = run_hook("claude-code", claude(link, "Read", file_path=str(link / "src/app.py")))
    assert (ok.stdout, ok.exit_code) == ("", 0)
    secret = run_hook("claude-code", claude(link, "Read", file_path=str(link / ".env")))
    assert claude_reason(secret.stdout) == SECRET


def test_a_glob_with_too_many_brackets_is_not_judged_but_denied(project: Path) -> None:
    """The standard library's glob translation is quadratic in unclosed brackets (red team 16
    G10: 17 s a hook call for 20,000): past the bound the glob is denied unjudged, the same
    whatever the tree holds; a glob under the bound is judged as before."""
    from pathgate._hooks import _core

    many = "{" + "[" * 20_000 + ",.env*}"
    answer = run_hook("claude-code", claude(project, "Glob", pattern=many))
    assert answer.exit_code == 0 and claude_reason(answer.stdout)
    (project / ".env").unlink()
    assert run_hook("claude-code", claude(project, "Glob", pattern=many)).stdout == answer.stdout
    under = "[s]" * _core._MAX_BRACKETS + "*.py"
    assert "deny" not in run_hook("claude-code", claude(project, "Glob", pattern=under)).stdout
    assert "deny" in run_hook("claude-code", claude(project, "Glob", pattern="[s]" + under)).stdout
