"""Red-team findings on ``pathgate hook``: what the agent's own tool would open decides.

Each case is a payload a hostile model could make an agent CLI send; the hook must give the
answer the runtime gives for the same file (the runtime judges ``..`` on the disk), deny
globs in ripgrep's own syntax that are aimed at secrets or ``.git``, run the write gates for
write tools, and fail closed on fields of the wrong type."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pathgate._hooks._core import split_glob
from pathgate._hooks._run import run_hook
from tests._gitinit import git_init

SECRET = "[BLOCKED]"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    outside = tmp_path / "outside"
    for rel, text in {
        "proj/.gitignore": "build/\n",
        "proj/.env": "API_KEY=s3cr3t\n",
        "proj/a.pem": "KEY\n",
        "proj/.aws/credentials": "aws_secret=1\n",
        "proj/.aws/sub/keep.txt": "k\n",
        "proj/build/x": "ignored\n",
        "proj/build/deep/y": "ignored\n",
        "proj/src/app.py": "print(1)\n",
        "proj/x": "plain top-level x\n",
        "outside/x": "OUTSIDE SECRET\n",
        "outside/sub/z": "z\n",
    }.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git_init(root)
    (root / "out").symlink_to(outside / "sub")
    (root / "gh").symlink_to(".git/hooks")
    (root / "as").symlink_to(".aws/sub")
    (root / "bd").symlink_to("build/deep")
    for var in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    return root


def _hook(agent: str, root: Path, tool: str, tool_input: Any, **extra: Any) -> tuple[str | None, int]:
    """``(deny reason or None, exit code)`` for one payload."""
    payload = {"cwd": str(root), "tool_name": tool, "tool_input": tool_input, **extra}
    answer = run_hook(agent, json.dumps(payload).encode(), root=str(root))
    if answer.exit_code == 2:
        return answer.stderr, 2
    if not answer.stdout.strip() or answer.stdout.strip() in ("{}", '{"permission": "allow"}'):
        return None, answer.exit_code
    out = json.loads(answer.stdout)
    if "hookSpecificOutput" in out:
        return out["hookSpecificOutput"]["permissionDecisionReason"], answer.exit_code
    if "reason" in out:
        return out["reason"], answer.exit_code
    return out.get("agent_message"), answer.exit_code


@pytest.mark.parametrize(("spelling", "expected"), [
    ("out/../x", "[FILE_OUTSIDE_PROJECT]"),  # the OS opens outside/x
    ("as/../credentials", SECRET),  # .aws/credentials
    ("bd/../x", "[BLOCKED]: Excluded by ignore rules"),  # build/x
    ("gh/../config", "[BLOCKED]"),  # .git/config
])
def test_dotdot_after_a_symlink_is_judged_where_the_os_goes(project: Path, spelling: str, expected: str) -> None:
    assert os.path.exists(project / spelling)  # the file the agent's tool would open
    reason, code = _hook("claude-code", project, "Read", {"file_path": spelling})
    assert code == 0 and reason is not None and reason.startswith(expected)
    reason, _ = _hook("claude-code", project, "Read", {"file_path": str(project / spelling)})
    assert reason is not None and reason.startswith(expected)


def test_dotdot_spellings_that_stay_inside_are_still_allowed(project: Path) -> None:
    assert _hook("claude-code", project, "Read", {"file_path": "src/../x"}) == (None, 0)
    # on the disk `.aws/sub/keep.txt` (not a secret), as text `sub/keep.txt` (missing): allowed
    assert _hook("claude-code", project, "Read", {"file_path": "as/../sub/keep.txt"}) == (None, 0)
    # on the disk `.aws/sub/../../x` is `x`, but as text `../x`, outside: a tool that
    # normalises before opening would read that one, so the call is denied
    reason, _ = _hook("claude-code", project, "Read", {"file_path": "as/../../x"})
    assert reason is not None and reason.startswith("[FILE_OUTSIDE_PROJECT]")


def test_a_write_through_a_symlink_and_dotdot_into_git_is_denied(project: Path) -> None:
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "gh/../config", "content": "[core]\n"})
    assert reason is not None and reason.startswith("[BLOCKED]")
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "url", "path": "gh/.."})
    assert reason is not None and reason.startswith("[BLOCKED]")


@pytest.mark.parametrize("glob", [
    ".env", "{.env}", ".{e}nv", ".e\\nv", ".en[^x]", "*.{pem}", "**/{.env}", "{x,.e{n,m}v}",
])
def test_ripgrep_glob_syntax_aimed_at_secrets_is_denied(project: Path, glob: str) -> None:
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "=", "path": ".", "glob": glob})
    assert reason == SECRET


@pytest.mark.parametrize("glob", ["**/.git/config", "{.git,x}/config", ".gi?/config", ".GIT/*", "x/.git"])
def test_globs_aimed_at_git_internals_are_denied(project: Path, glob: str) -> None:
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "url", "path": ".", "glob": glob})
    assert reason is not None and reason.startswith("[BLOCKED]")
    assert "s3cr3t" not in reason


@pytest.mark.parametrize("glob", ["*.py", "**/*.py", "src/{a,b}.py", "!.git", "*", "{src,lib}/**/*.ts"])
def test_ordinary_globs_pass(project: Path, glob: str) -> None:
    assert _hook("claude-code", project, "Grep", {"pattern": "x", "path": ".", "glob": glob}) == (None, 0)


def test_a_glob_is_judged_joined_to_its_base_directory(project: Path) -> None:
    (project / "keys").mkdir()
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "secret", "path": "keys", "glob": "id_rsa"})
    assert reason is not None and reason.endswith(SECRET)
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "secret", "path": ".aws", "glob": "credentials"})
    assert reason is not None and reason.endswith(SECRET)
    reason, _ = _hook("claude-code", project, "Grep", {"pattern": "x", "path": "src", "glob": "app.py"})
    assert reason is None


def test_an_absolute_glob_is_judged_where_it_points(project: Path) -> None:
    outside = str(project.parent / "outside")
    assert split_glob(outside + "/*") == (outside, "*")
    for agent, tool, args in [
        ("claude-code", "Glob", {"pattern": outside + "/*"}),
        ("claude-code", "Grep", {"pattern": "S", "glob": outside + "/*"}),
        ("gemini", "read_many_files", {"paths": [outside + "/*"]}),
        ("gemini", "glob", {"pattern": outside + "/*"}),
    ]:
        reason, _ = _hook(agent, project, tool, args)
        assert reason is not None and reason.startswith("[FILE_OUTSIDE_PROJECT]"), (tool, reason)
    assert _hook("claude-code", project, "Glob", {"pattern": str(project / "src") + "/*.py"}) == (None, 0)


@pytest.mark.parametrize(("agent", "tool", "args", "extra"), [
    ("claude-code", "Read", {"file_path": [".env"]}, {}),
    ("claude-code", "Read", {"file_path": {"p": ".env"}}, {}),
    ("gemini", "read_many_files", {"paths": ".env"}, {}),
    ("gemini", "read_many_files", {"paths": [".env", 3]}, {}),
    ("cursor", "Read", {"file_path": [".env"]}, {"hook_event_name": "preToolUse"}),
])
def test_fields_of_the_wrong_type_fail_closed(project: Path, agent: str, tool: str, args: Any,
                                              extra: dict[str, Any]) -> None:
    reason, code = _hook(agent, project, tool, args, **extra)
    assert code == 2 and reason is not None and "blocked because the check failed" in reason


# -- writes through a hook run the write gates ----------------------------------------------------

def test_writes_to_policy_files_and_hook_settings_are_denied(project: Path) -> None:
    (project / ".pathgateignore").write_text("*.private\n")
    for path in (".pathgateignore", "src/.pathgateignore", "pathgate.toml", ".claude/settings.json",
                 ".gemini/settings.json", ".cursor/hooks.json"):
        reason, _ = _hook("claude-code", project, "Write", {"file_path": path, "content": ""})
        assert reason is not None and "decide what agents may do" in reason, path
    reason, _ = _hook("claude-code", project, "Edit", {"file_path": ".pathgateignore", "old_string": "*.private",
                                                       "new_string": "!*.private"})
    assert reason is not None and "decide what agents may do" in reason


def test_pyproject_is_a_policy_file_only_while_it_declares_pathgate(project: Path) -> None:
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert _hook("claude-code", project, "Write", {"file_path": "pyproject.toml", "content": "x"}) == (None, 0)
    (project / "pyproject.toml").write_text("[tool.pathgate]\nsize_limit = 10\n")
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "pyproject.toml", "content": "x"})
    assert reason is not None and "decide what agents may do" in reason


def test_a_write_into_a_bare_repository_is_denied(project: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", str(project / "vendor/lib.git")], check=True)
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "vendor/lib.git/hooks/post-update",
                                                        "content": "#!/bin/sh\nid\n"})
    assert reason == SECRET


def test_a_gitignore_gaining_a_negation_is_denied(project: Path) -> None:
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "sub/.gitignore", "content": "!*.private\n"})
    assert reason is not None and "`!*.private`" in reason
    reason, _ = _hook("claude-code", project, "MultiEdit", {"file_path": ".gitignore", "edits": [
        {"old_string": "build/", "new_string": "build/\n!build/keep"}]})
    assert reason is not None and "`!build/keep`" in reason
    plain = {"file_path": ".gitignore", "content": "build/\n*.log\n"}
    assert _hook("claude-code", project, "Write", plain) == (None, 0)


def test_write_denials_are_the_same_with_and_without_a_secret(project: Path) -> None:
    """A write aimed at a missing secret name is as bare as one at an existing secret."""
    absent, _ = _hook("claude-code", project, "Write", {"file_path": ".env.production", "content": "x"})
    present, _ = _hook("claude-code", project, "Write", {"file_path": ".env", "content": "x"})
    assert absent == present == SECRET


# -- second red-team pass -------------------------------------------------------------------------

@pytest.mark.parametrize("pattern", [
    "**/.[[:alpha:]]nv", "**/@(.env)", "**/.{d..f}nv", "**/id_rs[[:alpha:]]", "**/.aws/+(credentials)",
    ".@(git)/config",
])
def test_glob_syntax_the_hook_cannot_judge_fails_closed(project: Path, pattern: str) -> None:
    reason, _ = _hook("gemini", project, "read_many_files", {"paths": [pattern]})
    assert reason is not None and reason.startswith("[BLOCKED]")


@pytest.mark.parametrize("glob", ["**/.git*", "**/*config*", "**/*service*", "**/*client*", "**/.g*"])
def test_common_broad_globs_are_not_denied(project: Path, glob: str) -> None:
    assert _hook("claude-code", project, "Glob", {"pattern": glob}) == (None, 0)


def test_a_gitignore_negation_cannot_hide_behind_a_bom_or_split_edits(project: Path) -> None:
    (project / "sub").mkdir()
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "sub/.gitignore", "content": "\ufeff!x\n"})
    assert reason is not None and "`!x`" in reason
    (project / ".gitignore").write_text("build/\n# note: !secret.txt\n")
    edits = [{"old_string": "build/", "new_string": "build/\nZZ!secret.txt"}, {"old_string": "ZZ", "new_string": ""}]
    reason, _ = _hook("claude-code", project, "MultiEdit", {"file_path": ".gitignore", "edits": edits})
    assert reason is not None and "`!secret.txt`" in reason
    reason, _ = _hook("claude-code", project, "Edit", {"file_path": ".gitignore", "old_string": "# note: ",
                                                       "new_string": ""})
    assert reason is not None and "`!secret.txt`" in reason


def test_a_gitignore_losing_a_rule_is_denied(project: Path) -> None:
    """Removing an exclusion (or moving a negation after it) re-includes what it hid."""
    (project / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    for tool, payload in [
        ("Write", {"file_path": ".gitignore", "content": "*.log\n!keep.log\n"}),
        ("Edit", {"file_path": ".gitignore", "old_string": "build/\n", "new_string": ""}),
        ("Write", {"file_path": ".gitignore", "content": ""}),
        ("Write", {"file_path": ".gitignore", "content": "!keep.log\nbuild/\n*.log\n"}),
    ]:
        reason, code = _hook("claude-code", project, tool, payload)
        assert code == 0 and reason is not None and reason.startswith("[BLOCKED]: This .gitignore edit would"), payload
        assert "Ask the user" in reason
    ok = {"file_path": ".gitignore", "old_string": "!keep.log\n", "new_string": ""}  # tighter
    assert _hook("claude-code", project, "Edit", ok) == (None, 0)


def test_a_gitignore_the_hook_cannot_read_as_text_is_not_rewritten(project: Path) -> None:
    (project / ".gitignore").write_bytes(b"build/\nsecret\xff\n")
    reason, _ = _hook("claude-code", project, "Write", {"file_path": ".gitignore", "content": "build/\nsecret\n"})
    assert reason is not None and "cannot be checked" in reason


def test_keeping_an_existing_negation_is_allowed(project: Path) -> None:
    (project / ".gitignore").write_text("node_modules/\n!keep.log\n")
    again = {"file_path": ".gitignore", "content": "node_modules/\n!keep.log\ndist/\n"}
    assert _hook("claude-code", project, "Write", again) == (None, 0)


def test_a_pyproject_gaining_pathgate_settings_is_denied(project: Path) -> None:
    text = '[project]\nname = "x"\n[tool.pathgate]\nagent_files = [".pathgateignore", "notes.txt"]\n'
    reason, _ = _hook("claude-code", project, "Write", {"file_path": "pyproject.toml", "content": text})
    assert reason is not None and "decide what agents may do" in reason
    assert _hook("claude-code", project, "Write", {"file_path": "pyproject.toml", "content": "[project]\n"}) == (
        None, 0)


def test_hook_writes_outside_the_root_are_denied_even_when_reads_may_leave_it(project: Path) -> None:
    host = project.parent / "host.toml"
    host.write_text("allow_outside_root = true\n")
    target = str(project.parent / "outside" / "pathgate.toml")
    payload = {"cwd": str(project), "tool_name": "Write", "tool_input": {"file_path": target, "content": "x"}}
    answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(project), config=str(host))
    assert "[FILE_OUTSIDE_PROJECT]" in answer.stdout


@pytest.mark.parametrize("path", [".claude/settings.json.", ".claude/settings.json ", ".claude./settings.json",
                                  ".cursor/hooks.json::$DATA", ".CLAUDE/Settings.json"])
def test_ntfs_spellings_of_hook_settings_are_policy_files(project: Path, path: str) -> None:
    reason, _ = _hook("claude-code", project, "Write", {"file_path": path, "content": "{}"})
    assert reason is not None and "decide what agents may do" in reason


def test_ntfs_spelling_of_a_gitignore_is_guarded(project: Path) -> None:
    reason, _ = _hook("claude-code", project, "Write", {"file_path": ".gitignore.", "content": "!x\n"})
    assert reason is not None and "`!x`" in reason


@pytest.mark.parametrize(("tool", "args"), [
    ("grep_search", {"query": "SECRET", "include_pattern": ".env"}),
    ("list_dir", {"relative_workspace_path": ".git"}),
    ("delete_file", {"target_file": ".pathgateignore"}),
    ("delete_file", {"target_file": ".cursor/hooks.json"}),
])
def test_cursor_tool_fields_are_judged(project: Path, tool: str, args: dict[str, Any]) -> None:
    (project / ".pathgateignore").write_text("x\n")
    reason, _ = _hook("cursor", project, tool, args, hook_event_name="preToolUse")
    assert reason is not None and reason.startswith("[BLOCKED]"), reason


def test_every_path_key_is_judged(project: Path) -> None:
    reason, _ = _hook("claude-code", project, "Read", {"file_path": "src/app.py", "notebook_path": ".env"})
    assert reason == SECRET
    reason, _ = _hook("gemini", project, "glob", {"pattern": "cred*", "path": "src", "dir_path": ".aws"})
    assert reason is not None and reason.endswith(SECRET)


def test_a_directory_holding_a_secret_path_is_not_walked(project: Path) -> None:
    (project / "awsl").symlink_to(".aws")
    for tool, args in [("Grep", {"pattern": "k", "path": ".aws"}), ("LS", {"path": ".aws/"}),
                       ("Grep", {"pattern": "k", "path": "awsl", "glob": "credentials"}),
                       ("Grep", {"pattern": "k", "path": "src/../.aws"})]:
        reason, _ = _hook("claude-code", project, tool, args)
        assert reason is not None and reason.endswith(SECRET), (tool, args, reason)
    reason, _ = _hook("gemini", project, "read_many_files", {"paths": [".aws"]})
    assert reason == SECRET
    assert _hook("claude-code", project, "Grep", {"pattern": "k", "path": "src"}) == (None, 0)


def test_a_gitignore_edit_is_judged_under_every_reading(project: Path) -> None:
    """Red team 7, F6: Gemini's ``replace`` with ``expected_replacements`` replaces every
    occurrence (the hook judged the first only: a comment), and Cursor's ``code_edit`` is a
    snippet applied loosely (the hook judged it as appended lines)."""
    (project / ".gitignore").write_text("# build/ holds generated files\nbuild/\n")
    args = {"file_path": str(project / ".gitignore"), "old_string": "build/", "new_string": "build-cache/",
            "expected_replacements": 2}
    reason, _ = _hook("gemini", project, "replace", args, hook_event_name="BeforeTool")
    assert reason is not None and "would lose the rule `build/`" in reason
    snippet = {"target_file": str(project / ".gitignore"), "code_edit": "# generated files\n"}
    reason, _ = _hook("cursor", project, "edit_file", snippet, hook_event_name="preToolUse",
                      workspace_roots=[str(project)])
    assert reason is not None and "cannot be checked" in reason
    missing = {"file_path": ".gitignore", "old_string": "dist/\n", "new_string": ""}
    reason, _ = _hook("claude-code", project, "Edit", missing)
    assert reason is not None and "cannot be checked" in reason
    adding = {"file_path": ".gitignore", "old_string": "build/\n", "new_string": "build/\n*.log\n"}
    assert _hook("claude-code", project, "Edit", adding) == (None, 0)  # unique text, an exclusion added


@pytest.mark.parametrize("tool", ["StrReplace", "TabWrite", "SomeNewEditor"])
def test_cursor_edit_tools_and_unmapped_writers_are_judged_as_writes(project: Path, tool: str) -> None:
    """Red team 8, F7: tools missing from the map were judged as reads, so an edit through
    Cursor's ``StrReplace``/``TabWrite`` could remove pathgate's hook or empty a ``.gitignore``."""
    (project / ".cursor").mkdir(exist_ok=True)
    (project / ".cursor/hooks.json").write_text('{"hooks": {"preToolUse": [{"command": "pathgate hook cursor"}]}}')
    for path, old, new in ((".cursor/hooks.json", "pathgate hook cursor", "true"), (".gitignore", "build/\n", "")):
        args = {"file_path": str(project / path), "path": str(project / path), "old_string": old, "new_string": new}
        reason, _ = _hook("cursor", project, tool, args, hook_event_name="preToolUse", workspace_roots=[str(project)])
        assert reason is not None and reason.startswith("[BLOCKED]"), (tool, path)
    read = {"file_path": str(project / ".gitignore")}  # an unmapped tool naming a file only: a read
    assert _hook("cursor", project, "SomeNewReader", read, hook_event_name="preToolUse",
                 workspace_roots=[str(project)])[0] is None


def test_a_gitignore_edit_with_javascript_replacement_patterns_is_refused(project: Path) -> None:
    """Red team 8, F3: an editor handing ``new_string`` to JavaScript's ``String.replace``
    expands ``$` $' $& $$`` (Gemini CLI once did): ``private/*\\n$``` would write the
    negation above the exclusion again after it."""
    (project / ".gitignore").write_text("!private/a.txt\nprivate/*\n")
    edit = {"file_path": ".gitignore", "old_string": "private/*\n", "new_string": "private/*\n$`"}
    reason, _ = _hook("claude-code", project, "Edit", edit)
    assert reason is not None and "cannot be checked" in reason


@pytest.mark.parametrize(("tool", "args"), [
    ("move_file", {"source": "notes.txt", "destination": ".mcp.json"}),
    ("MCP:fs:write", {"target": ".mcp.json", "content": "{}"}),
    ("MCP:fs:write", {"file": {"path": ".mcp.json"}, "content": "{}"}),
    ("MCP:fs:write_many", {"files": [{"path": ".mcp.json", "content": "{}"}]}),
    ("MCP:fs:write", {"path": ".mcp.json", "data": "{}"}),
    ("MCP:fs:write", {"filePath": ".mcp.json", "Content": "{}"}),
    ("read_text_file", {"path": ".env"}),
])
def test_unmapped_tools_in_other_shapes(project: Path, tool: str, args: dict[str, Any]) -> None:
    """Red team 9, G4: Cursor's hook sees MCP tools too; their paths sit under other keys,
    nested, and their text under other names."""
    reason, _ = _hook("cursor", project, tool, args, hook_event_name="preToolUse", workspace_roots=[str(project)])
    assert reason is not None and reason.startswith("[BLOCKED]"), (tool, args)


def test_an_unmapped_read_of_an_ordinary_file_is_allowed(project: Path) -> None:
    args = {"path": "src/app.py"}
    assert _hook("cursor", project, "read_text_file", args, hook_event_name="preToolUse",
                 workspace_roots=[str(project)]) == (None, 0)


# Red team 10, F8: MCP servers name their path arguments freely; the hook judged only a
# closed list of names, so these reached `.env` or `.claude/settings.json` unjudged.
_MCP_CALLS = [
    ("MCP:serena:read_file", {"relative_path": ".env"}),
    ("MCP:serena:search_for_pattern", {"substring_pattern": "API_KEY", "relative_path": ".env"}),
    ("MCP:serena:create_text_file", {"relative_path": ".claude/settings.json", "content": "{}"}),
    ("MCP:jetbrains:get_file_text_by_path", {"pathInProject": ".env"}),
    ("MCP:x:read_files", {"file_paths": [".env"]}),
    ("MCP:x:read_files", {"filePaths": ["src/app.py", ".env"]}),
    ("MCP:x:copy_file", {"src": ".env", "dst": "env.txt"}),
    ("MCP:x:convert", {"source_path": ".env", "output": "o.txt"}),
    ("MCP:x:fetch", {"url": "file://PROJ/.env"}),
    ("MCP:x:apply_patch", {"input": "*** Begin Patch\n*** Update File: .claude/settings.json\n@@\n-{}\n+{\"a\": 1}\n"
                                    "*** End Patch\n"}),
    ("MCP:x:run", {"diff": "--- a/.gitignore\n+++ b/.gitignore\n@@ -1 +0,0 @@\n-build/\n"}),
    ("MCP:x:run", {"patch": "diff --git a/src/app.py b/.pathgateignore\nrename from src/app.py\n"
                            "rename to .pathgateignore\n"}),
    # a server any settings file may register under pathgate's name is judged too (F10)
    ("MCP:pathgate:read_text_file", {"path": ".env"}),
    ("MCP:pathgate:read_files", {"paths": ["src/app.py", ".env"]}),
    ("mcp__pathgate__write_file", {"path": ".claude/settings.json", "content": "{}"}),
]


@pytest.mark.parametrize(("tool", "args"), _MCP_CALLS)
@pytest.mark.parametrize("agent", ["cursor", "claude-code"])
def test_mcp_tools_are_judged_whatever_their_argument_names(project: Path, agent: str, tool: str,
                                                            args: dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text("{}\n")
    args = json.loads(json.dumps(args).replace("PROJ", str(project)))
    if agent == "claude-code":  # Claude Code names MCP tools mcp__<server>__<tool>
        tool = "mcp__" + "__".join(tool.split(":")[1:]) if tool.startswith("MCP:") else tool
    event = "PreToolUse" if agent == "claude-code" else "preToolUse"
    reason, _ = _hook(agent, project, tool, args, hook_event_name=event)
    assert reason is not None and "[BLOCKED]" in reason, (tool, args, reason)


@pytest.mark.parametrize(("tool", "args"), [
    ("MCP:serena:read_file", {"relative_path": "src/app.py"}),
    ("MCP:x:copy_file", {"src": "src/app.py", "dst": "src/copy.py"}),
    ("MCP:x:create_issue", {"title": "x", "body": "see .env.example"}),
    ("MCP:x:apply_patch", {"input": "*** Begin Patch\n*** Update File: src/app.py\n@@\n-print(1)\n+print(2)\n"}),
    ("MCP:pathgate:code_search", {"regex": "API_KEY"}),
    ("MCP:pathgate:glob", {"pattern": "**/*.py"}),
    ("TodoWrite", {"todos": [{"content": "edit .env handling", "status": "pending"}]}),
])
def test_ordinary_mcp_calls_still_pass(project: Path, tool: str, args: dict[str, Any]) -> None:
    reason, _ = _hook("cursor", project, tool, args, hook_event_name="preToolUse")
    assert reason is None, (tool, reason)


def test_a_gitignore_negation_hidden_in_escaped_newlines_is_denied(project: Path) -> None:
    """Gemini CLI's edit corrector may write over-escaped text unescaped: ``*.tmp\\n!x`` sent
    with a literal backslash-n is judged as the negation it may become (red team 10, F9)."""
    (project / "secret.txt").write_text("internal\n")
    (project / ".gitignore").write_text("build/\nsecret.txt\n")
    sent = "build/\nsecret.txt\n*.tmp\\n!secret.txt\n"
    for tool, args in (("write_file", {"file_path": ".gitignore", "content": sent}),
                       ("replace", {"file_path": ".gitignore", "old_string": "secret.txt\n",
                                    "new_string": "secret.txt\n*.tmp\\n!secret.txt\n"})):
        reason, _ = _hook("gemini", project, tool, args, hook_event_name="BeforeTool")
        assert reason is not None and reason.startswith("[BLOCKED]"), (tool, reason)
    ok = "build/\nsecret.txt\n*.tmp\n"
    reason, _ = _hook("gemini", project, "write_file", {"file_path": ".gitignore", "content": ok},
                      hook_event_name="BeforeTool")
    assert reason is None


@pytest.mark.parametrize(("tool", "args", "denied"), [
    # red team 11: https URLs name no local file (G3) ...
    ("WebFetch", {"url": "https://unpkg.com/react@18/build/react.js", "prompt": "x"}, False),
    ("mcp__fetch__fetch", {"url": "https://example.com/.git/config"}, False),
    # ... file URLs in every spelling do (G4) ...
    ("mcp__files__read_resource", {"uri": "file:PROJ/%2Eenv"}, True),
    ("mcp__files__read_resource", {"uri": "FILE://PROJ/%2Eenv"}, True),
    ("mcp__files__read_resource", {"uri": "File://PROJ/%2e%65nv"}, True),
    # ... and git's C-quoted patch headers name their files (G5)
    ("mcp__git__apply_patch", {"patch": 'diff --git "a/.claude/settings.json" "b/.claude/settings.json"\n'
                                        'new file mode 100644\n--- /dev/null\n+++ "b/.claude/settings.json"\n'
                                        '@@ -0,0 +1 @@\n+{}\n'}, True),
    ("mcp__git__apply_patch", {"patch": "--- i/.pathgateignore\n+++ w/.pathgateignore\n@@ -1 +1 @@\n-a\n+b\n"}, True),
])
def test_urls_and_quoted_patch_headers(project: Path, tool: str, args: dict[str, Any], denied: bool) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".pathgateignore").write_text("a\n")
    args = json.loads(json.dumps(args).replace("PROJ", str(project)))
    reason, _ = _hook("claude-code", project, tool, args, hook_event_name="PreToolUse")
    assert (reason is not None) == denied, (tool, args, reason)


def test_brace_ranges_are_found_by_a_linear_scan() -> None:
    """Red team 15, R9: the ``{a..z}`` test was one regex, quadratic in a ``{`` followed by
    dots (40,000 took 12 s of the hook's CPU); the same answers from a possessive scan of
    the brace groups."""
    from pathgate._hooks._core import _unjudged

    assert _unjudged("src/{a..z}.py") and _unjudged("x{1..3}y{b,c}") and _unjudged("{{a..b}")
    assert _unjudged("[[:alpha:]]*") and _unjudged("@(a|b).py")
    assert not _unjudged("src/{a,b}.py") and not _unjudged("{" + "." * 40_000)
    assert not _unjudged("{a..b,c}") and not _unjudged("a..b}") and not _unjudged("{a}..{b}")
