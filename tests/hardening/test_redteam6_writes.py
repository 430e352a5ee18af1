"""Red-team pass 6: writes that plant a git repository, rewrite what the agent CLIs' hooks
run, or steer git and Claude Code from the home directory.

Found: ``x/config`` (with ``core.pager``), then ``x/objects/…``, ``x/refs/…``, ``x/HEAD`` were
all written, and git then treated ``x/`` as a repository and ran the pager (F6); the script
that ``.claude/settings.json`` runs as a hook (``$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh``)
was writable, so an agent could switch pathgate's hook off (F9); with the root at ``$HOME``,
``~/.claude.json`` (Claude Code's MCP servers) and ``~/.config/git/attributes`` (git's
default attributes file) were writable (F4). Each write below is refused by the runtime and
by ``pathgate hook`` alike, and touches nothing; ordinary writes stay allowed.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from pathgate import Gate, Status, ToolArgumentError
from pathgate._hooks._run import run_hook
from pathgate.verdicts import MAKES_GIT_DIR, POLICY_FILE
from tests._backends import alternating
from tests._gitinit import git_init
from tests.hardening._write_env import clean_home
from tests.runtime.tools._writes import make_rt, snapshot, write_tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory with nothing in it; git's system and global files switched off."""
    clean_home(tmp_path, monkeypatch)
    return tmp_path


def _init(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git_init(root)
    return root


def _hook_reason(root: Path, path: str, content: str = "x\n", agent: str = "claude-code") -> str | None:
    payload = {"cwd": str(root), "tool_name": "Write", "tool_input": {"file_path": path, "content": content}}
    answer = run_hook(agent, json.dumps(payload).encode(), root=str(root))
    assert answer.exit_code == 0, answer.stderr
    if not answer.stdout.strip():
        return None
    return str(json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecisionReason"])


def _is_git_dir(path: Path) -> bool:
    """git's own answer: is ``path`` a git directory (``rev-parse --git-dir`` is ``.``)?"""
    out = subprocess.run(["git", "-C", str(path), "rev-parse", "--git-dir"], capture_output=True, text=True,
                         check=False, env={**os.environ, "GIT_CEILING_DIRECTORIES": str(path.parent)})
    return out.returncode == 0 and out.stdout.strip() == "."


# --- F6: a write that would make a git directory --------------------------------------------

_PARTS = {"HEAD": "ref: refs/heads/main\n", "objects/info/.keep": "", "refs/heads/.keep": ""}
_PAGER = "[core]\n\tbare = true\n\tpager = touch PWNED; cat\n"


@pytest.mark.parametrize("order", list(itertools.permutations(_PARTS)))
async def test_no_write_order_plants_a_git_directory(anyio_backend: str, env: Path, order: tuple[str, ...]) -> None:
    root = _init(env / "proj")
    verdicts = []
    async with make_rt(root, require_read_before_write=False) as rt:
        assert (await rt.write_file("x/config", _PAGER)).ok  # an ordinary file while x/ is not a git directory
        for part in order:
            verdicts.append((part, (await rt.write_file(f"x/{part}", _PARTS[part])).verdict))
        assert (await rt.call("write_file", {"path": f"x/{order[-1]}", "content": _PARTS[order[-1]]},
                              renderer="verbose"))[f"x/{order[-1]}"].startswith("[BLOCKED]: Writing it would make")
    *allowed, (last, refused) = verdicts
    assert all(v is None for _, v in allowed), allowed
    assert refused is not None and refused.status is Status.BLOCKED and refused.gate is Gate.WRITE
    assert refused.detail == MAKES_GIT_DIR and not refused.opaque, last
    assert not _is_git_dir(root / "x")
    # the hook refuses the same write on the same tree, with the same text
    reason = _hook_reason(root, f"x/{last}")
    assert reason is not None and reason.startswith("[BLOCKED]: Writing it would make a directory a git repository")
    assert not _is_git_dir(root / "x")


@pytest.mark.parametrize(("tree", "write"), [
    ({"d/HEAD": "ref: refs/heads/main\n"}, "d/commondir"),
    ({"d/commondir": "../..\n"}, "d/HEAD"),
    ({"a/b/objects/.keep": "", "a/b/refs/.keep": ""}, "a/b/HEAD"),
    ({"x/HEAD": "ref: refs/heads/main\n", "x/objects/.keep": ""}, "x/refs/heads/main"),
    ({"x/HEAD": "ref: refs/heads/main\n", "x/refs/.keep": ""}, "x/objects/ab/cdef"),
    ({"x/objects/.keep": "", "x/refs/.keep": ""}, "x/head"),  # a case-insensitive filesystem opens HEAD
    ({"objects/.keep": "", "refs/.keep": ""}, "HEAD"),  # the root itself
])
async def test_a_write_completing_a_git_directory_is_refused(anyio_backend: str, env: Path,
                                                             tree: dict[str, str], write: str) -> None:
    root = _init(env / "proj")
    write_tree(root, tree)
    before = snapshot(root)
    async with make_rt(root, require_read_before_write=False) as rt:
        v = (await rt.write_file(write, "ref: refs/heads/main\n")).verdict
        assert v is not None and v.gate is Gate.WRITE and v.detail == MAKES_GIT_DIR, v
        assert (await rt.write_file("src/app.py", "ok\n")).ok
    after = snapshot(root)
    assert {k: b for k, b in after.items() if not k.startswith("src")} == before
    reason = _hook_reason(root, write)
    assert reason is not None and "git repository" in reason


async def test_executable_files_count_as_objects_and_refs(anyio_backend: str, env: Path) -> None:
    """Red team 7, F2: git only asks ``access(X_OK)`` of ``objects`` and ``refs``, which an
    executable regular file passes: ``vendor/tool`` holding such files becomes a git
    directory once ``HEAD`` is written."""
    root = _init(env / "proj")
    write_tree(root, {"vendor/tool/objects": "#!/bin/sh\n", "vendor/tool/refs": "#!/bin/sh\n"})
    for name in ("objects", "refs"):
        os.chmod(root / "vendor/tool" / name, 0o755)
    async with make_rt(root, require_read_before_write=False) as rt:
        assert (await rt.write_file("vendor/tool/config", _PAGER)).ok
        v = (await rt.write_file("vendor/tool/HEAD", "ref: refs/heads/main\n")).verdict
        assert v is not None and v.detail == MAKES_GIT_DIR, v
    assert not _is_git_dir(root / "vendor/tool")
    assert _hook_reason(root, "vendor/tool/HEAD") is not None


async def test_git_directory_names_in_ordinary_directories_stay_writable(anyio_backend: str, env: Path) -> None:
    root = _init(env / "proj")
    writes = ["docs/config", "src/objects/model.py", "src/refs/links.py", "notes/HEAD", "lib/commondir",
              "app/objects", "app/config"]
    async with make_rt(root, require_read_before_write=False) as rt:
        for path in writes:
            assert (await rt.write_file(path, "x\n")).ok, path
    for path in writes:
        assert _hook_reason(root, path) is None, path


@pytest.mark.parametrize("path", ["sub/.git", "sub/.git/config", "sub/deeper/.GIT", "sub/.git."])
async def test_a_planted_dot_git_is_refused(anyio_backend: str, env: Path, path: str) -> None:
    root = _init(env / "proj")
    async with make_rt(root, require_read_before_write=False) as rt:
        v = (await rt.write_file(path, "gitdir: ../evil\n")).verdict
        assert v is not None and v.status is Status.BLOCKED and v.opaque, v
    assert not (root / "sub").exists()
    reason = _hook_reason(root, path, "gitdir: ../evil\n")
    assert reason is not None and reason.startswith("[BLOCKED]")


# --- F9: what the agent CLIs' settings run ------------------------------------------------

_SETTINGS = {
    ".claude/settings.json": {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh", "onFailure": "block"},
        {"type": "command", "command": 'bash "${CLAUDE_PROJECT_DIR}/scripts/check.sh" --strict'},
        {"type": "command", "command": "python3 plainscript"}]}]},
        "statusLine": {"type": "command", "command": "tools/status"}},
    ".cursor/hooks.json": {"version": 1, "hooks": {"preToolUse": [{"command": "./hooks-bin/run", "failClosed": True}]}},
    ".gemini/settings.json": {"hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "command": "$GEMINI_PROJECT_DIR/g/x.sh"}]}]}},
    ".mcp.json": {"mcpServers": {"s": {"command": "node", "args": ["srv/index.js"]}}},
    ".vscode/mcp.json": {"servers": {"v": {"command": "python3", "args": ["-m", "pytools.mcp_server"]}}},
    ".cursor/mcp.json": {"mcpServers": {"c": {"command": "uv", "args": ["run", "serve.py"], "cwd": "cur"},
                                        "e": {"command": "node", "args": ["x"], "envFile": "mcp.envrc",
                                              "env": {"NODE_OPTIONS": "--require ./preload.cjs"}}}},
}
_SETTINGS[".claude/settings.local.json"] = {"hooks": {"PostToolUse": [{"hooks": [
    {"type": "command", "command": "python3 $CLAUDE_PROJECT_DIR/pydir"},
    {"type": "command", "command": "node $CLAUDE_PROJECT_DIR/jsdir/lint"},
    {"type": "command", "command": "npm run --silent lint"},
    {"type": "command", "command": "CI=1 make -s lint"}]}]}}
#: red team 7, F5: a directory in a run position counts with what is below it; a task
#: runner's manifest counts
_RUN_INDIRECT = ["pydir/__main__.py", "pydir/sub/x.py", "jsdir/lint/index.js", "package.json", "Makefile"]
_RUN = [*_RUN_INDIRECT,
        ".claude/hooks/guard.sh", "scripts/check.sh", "plainscript", "tools/status", "hooks-bin/run", "g/x.sh",
        "srv/index.js", "pytools/mcp_server.py", "mcp.envrc", "preload.cjs", "pytools/__init__.py", "cur/serve.py",
        "serve.py",
        ".claude/hooks/not-named.sh", ".cursor/hooks/a.sh", ".gemini/hooks/b.py", "./scripts/../scripts/check.sh"]


@pytest.fixture
def hooked(env: Path) -> Path:
    root = _init(env / "proj")
    write_tree(root, {path: json.dumps(doc) for path, doc in _SETTINGS.items()})
    write_tree(root, {"scripts/check.sh": "#!/bin/sh\nexec pathgate hook claude-code\n", "src/app.py": "x\n"})
    return root


@pytest.mark.parametrize(("path", "anyio_backend"), alternating(_RUN))  # a loop per path: see _backends
async def test_what_the_agent_settings_run_is_not_writable(anyio_backend: str, hooked: Path, path: str) -> None:
    before = snapshot(hooked)
    async with make_rt(hooked, require_read_before_write=False) as rt:
        v = (await rt.write_file(path, "#!/bin/sh\nexit 0\n")).verdict
        assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE, (path, v)
        assert v.detail == POLICY_FILE and not v.opaque
    assert snapshot(hooked) == before
    reason = _hook_reason(hooked, path, "#!/bin/sh\nexit 0\n")
    assert reason is not None and reason.startswith("[BLOCKED]: It is one of the files"), reason
    for agent in ("cursor", "gemini"):
        payload = ({"hook_event_name": "preToolUse", "tool_name": "Write", "workspace_roots": [str(hooked)],
                    "tool_input": {"file_path": path, "content": "exit 0\n"}} if agent == "cursor" else
                   {"hook_event_name": "BeforeTool", "cwd": str(hooked), "tool_name": "write_file",
                    "tool_input": {"file_path": path, "content": "exit 0\n"}})
        answer = run_hook(agent, json.dumps(payload).encode(), root=str(hooked))
        assert "deny" in answer.stdout, (agent, answer.stdout)


async def test_ordinary_files_next_to_agent_settings_stay_writable(anyio_backend: str, hooked: Path) -> None:
    ordinary = ["src/app.py", "hook", "claude-code", "scripts/other.sh", "srv/lib.js", "pytools/other.py",
                ".claude/notes.md", "bash", "node"]
    async with make_rt(hooked, require_read_before_write=False) as rt:
        for path in ordinary:
            assert (await rt.write_file(path, "x\n")).ok, path
    for path in ordinary:
        assert _hook_reason(hooked, path) is None, path


async def test_malformed_settings_fall_back_to_the_hook_directories(anyio_backend: str, env: Path) -> None:
    root = _init(env / "proj")
    write_tree(root, {".claude/settings.json": '{"hooks": {"PreToolUse": [ "bash scripts/x.sh"',
                      ".mcp.json": "\x00\x01"})
    async with make_rt(root, require_read_before_write=False) as rt:
        v = (await rt.write_file(".claude/hooks/x.sh", "exit 0\n")).verdict
        assert v is not None and v.detail == POLICY_FILE
        assert (await rt.write_file("scripts/y.sh", "ok\n")).ok
    assert _hook_reason(root, ".Claude/Hooks/x.sh") is not None
    assert _hook_reason(root, "scripts/y.sh") is None


@pytest.mark.parametrize("cached", [False, True])
async def test_a_changed_settings_file_is_read_again(anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch,
                                                     cached: bool) -> None:
    """The parsed settings are kept while the files keep their ``stat`` signature (not while
    one is racily new); a new command names a new script at once, and the old one is free
    again."""
    from pathgate.runtime.tools import _agent_commands

    if cached:  # every signature counts as settled, so the kept answer is what decides
        monkeypatch.setattr(_agent_commands, "_RACY", -1e9)
    root = _init(env / "proj")
    settings = root / ".mcp.json"

    def configure(script: str, when: float) -> None:
        settings.write_text(json.dumps({"mcpServers": {"s": {"command": "node", "args": [script]}}}))
        os.utime(settings, (when, when))  # old enough to be cached

    configure("one.js", time.time() - 100)
    async with make_rt(root, require_read_before_write=False) as rt:
        for _ in range(2):
            assert (await rt.write_file("one.js", "x\n")).verdict is not None
            assert (await rt.write_file("two.js", "x\n")).ok
        assert (str(root) in _agent_commands._cache) is cached
        configure("two.js", time.time() - 100)
        assert (await rt.write_file("one.js", "x\n")).ok
        assert (await rt.write_file("two.js", "x\n")).verdict is not None


async def test_a_script_reached_through_a_link_and_a_linked_settings_file(anyio_backend: str, env: Path) -> None:
    root = _init(env / "proj")
    write_tree(root, {"real/guard.sh": "exit 1\n", "conf/claude.json": "{}\n",
                      ".mcp.json": json.dumps({"mcpServers": {"s": {"command": "sh", "args": ["bin/guard.sh"]}}})})
    (root / "bin").symlink_to("real")
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").symlink_to("../conf/claude.json")
    async with make_rt(root, require_read_before_write=False) as rt:
        for path in ("real/guard.sh", "conf/claude.json"):
            v = (await rt.write_file(path, "{}\n")).verdict
            assert v is not None and v.detail == POLICY_FILE, path
    for path in ("real/guard.sh", "conf/claude.json"):
        assert _hook_reason(root, path, "{}\n") is not None, path


async def test_a_secret_among_the_hook_scripts_stays_opaque(anyio_backend: str, hooked: Path) -> None:
    write_tree(hooked, {"x/HEAD": "ref: refs/heads/main\n", "x/refs/.keep": ""})
    for path in (".claude/hooks/.env", "x/objects/.env"):
        async with make_rt(hooked, require_read_before_write=False) as rt:
            v = (await rt.write_file(path, "K=1\n")).verdict
            assert v is not None and v.opaque, (path, v)
        assert _hook_reason(hooked, path) == "[BLOCKED]", path


# --- F4: the root at $HOME ---------------------------------------------------------------

@pytest.mark.parametrize("xdg", [None, "xdg"])
async def test_home_root_agent_and_git_user_files(anyio_backend: str, env: Path, monkeypatch: pytest.MonkeyPatch,
                                                  xdg: str | None) -> None:
    home = _init(env / "home")
    guarded = [".claude.json", ".config/git/attributes", ".config/git/ignore", ".config/git/config", ".gitconfig"]
    if xdg is not None:
        monkeypatch.setenv("XDG_CONFIG_HOME", str(home / xdg))
        guarded += [f"{xdg}/git/attributes", f"{xdg}/git/ignore", f"{xdg}/git/config"]
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")  # git's global files are ~/.gitconfig and XDG's
    content = '{"mcpServers": {"x": {"command": "sh", "args": ["-c", "id"]}}}\n'
    async with make_rt(home, require_read_before_write=False) as rt:
        for path in guarded:
            v = (await rt.write_file(path, content)).verdict
            assert v is not None and v.status is Status.BLOCKED and v.gate is Gate.WRITE, (path, v)
        assert (await rt.write_file("notes/todo.md", "x\n")).ok
    assert not (home / ".claude.json").exists() and not (home / ".config").exists()
    for path in guarded:
        assert _hook_reason(home, path, content) is not None, path


async def test_a_root_above_home_guards_the_home_files(anyio_backend: str, env: Path) -> None:
    root = _init(env)
    async with make_rt(root, require_read_before_write=False) as rt:
        for path in ("home/.claude.json", "home/.config/git/attributes", "home/.claude/settings.json"):
            v = (await rt.write_file(path, "{}\n")).verdict
            assert v is not None and v.gate is Gate.WRITE, path


async def test_a_directory_an_mcp_server_is_given_stays_writable(anyio_backend: str, env: Path) -> None:
    """Only a directory in a position that *runs* it counts with its contents: a filesystem
    server's root argument (``./src``) does not lock ``src/``."""
    root = _init(env / "proj")
    mcp = {"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./src"]}}}
    write_tree(root, {".mcp.json": json.dumps(mcp), "src/app.py": "x\n"})
    async with make_rt(root, require_read_before_write=False) as rt:
        assert (await rt.write_file("src/app.py", "y\n")).ok
        assert (await rt.write_file("src/new/mod.py", "y\n")).ok
        v = (await rt.write_file("package.json", "{}\n")).verdict  # npx: the runner's manifest
        assert v is not None and v.detail == POLICY_FILE
    assert _hook_reason(root, "src/app.py") is None


@pytest.mark.parametrize("path", ["PyProject.toml", "PYPROJECT.TOML", "pyproject.toml.", "Tools/Lint.sh",
                                  "tools/lint.sh.", ".GitHooks/pre-commit"])
async def test_case_and_ntfs_spellings_of_protected_files(anyio_backend: str, env: Path, path: str) -> None:
    """Red team 8, F5: a case-insensitive filesystem (macOS, Windows) opens these as the
    root pyproject.toml (gaining pathgate settings), a script a hook runs, and git's hooks
    directory; the runtime compared some of them exactly."""
    root = _init(env / "proj")
    subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".githooks"], check=True)
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "bash tools/lint.sh"}]}]}}
    write_tree(root, {".claude/settings.json": json.dumps(hooks), "tools/lint.sh": "exit 0\n"})
    async with make_rt(root, require_read_before_write=False) as rt:
        try:
            result = await rt.write_file(path, "[tool.pathgate]\nagent_files = ['.myign']\n")
        except ToolArgumentError:
            return  # refused: the root pyproject.toml may not gain pathgate settings
        assert result.verdict is not None and result.verdict.gate is Gate.WRITE, (path, result)


@pytest.mark.parametrize("path", [".claude/agents/reviewer.md", ".claude/skills/review/SKILL.md",
                                  ".claude/commands/review.md", ".lsp.json",
                                  ".gemini/extensions/x/gemini-extension.json", "lsp/server.py"])
async def test_other_places_agent_clis_take_commands_from(anyio_backend: str, env: Path, path: str) -> None:
    """Red team 8, F6: subagents, skills and slash commands carry hooks and tool grants in
    their front matter; ``.lsp.json`` starts servers; Gemini's extensions list MCP servers."""
    root = _init(env / "proj")
    write_tree(root, {".lsp.json": json.dumps({"py": {"command": "python3", "args": ["lsp/server.py"]}})})
    async with make_rt(root, require_read_before_write=False) as rt:
        v = (await rt.write_file(path, "---\nhooks: {}\n---\n")).verdict
        assert v is not None and v.gate is Gate.WRITE, (path, v)
    assert _hook_reason(root, path) is not None


_CD_WRAPPED = [
    ("sh -c 'cd sub && ./run.sh'", "sub/run.sh"), ("bash -lc 'cd sub && python3 main.py'", "sub/main.py"),
    ("cd sub && node index.js", "sub/index.js"), ("env FOO=1 npm run lint", "package.json"),
    ("exec make lint", "Makefile"), ("timeout 10 make lint", "Makefile"), ("sh -c 'make lint'", "Makefile"),
    ("make -C sub lint", "sub/Makefile"), ("npm --prefix sub run lint", "sub/package.json"),
    ("make -f build.mk lint", "build.mk"), ("python3 -W ignore tools", "tools/__main__.py"),
    ("python3 -X dev tools", "tools/__main__.py"), ("node -r ./pre.js tools/lint", "tools/lint/index.js"),
    ("python3 -m tools.lint", "tools.py"), ("python3 -m json.tool", "json.py"), ("yarn lint", ".yarnrc.yml"),
    # red team 9, G3
    ("cd tools; bash run", "tools/run"), ("sh -c 'cd tools; ./run'", "tools/run"), ("make -Ctools", "tools/Makefile"),
    ("npm --prefix=tools run x", "tools/package.json"), ("make --file=build.mk", "build.mk"),
    ("node -r ./pre srv.js", "pre.js"), ("node --require=./pre srv.js", "pre.js"), ("bash < run", "run"),
    ("pushd tools; ./run", "tools/run"),
]


@pytest.mark.parametrize(("command", "path", "anyio_backend"), alternating(_CD_WRAPPED))  # a loop per case
async def test_commands_seen_through_cd_wrappers_and_runner_options(anyio_backend: str, env: Path, command: str,
                                                                    path: str) -> None:
    """Red team 8, F1: ``cd`` first, a wrapper word before a runner, a runner pointed at
    another directory or file, interpreter options taking a value, a module's shadow."""
    root = _init(env / "proj")
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
    write_tree(root, {".claude/settings.json": json.dumps(hooks)})
    async with make_rt(root, require_read_before_write=False) as rt:
        v = (await rt.write_file(path, "x\n")).verdict
        assert v is not None and v.detail == POLICY_FILE, (command, path, v)
        assert (await rt.write_file("src/ok.py", "x\n")).ok
