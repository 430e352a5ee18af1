"""Red team 18 J4, J9: what an agent CLI's own configuration makes it run, named where the
write guard did not look.

* J4: a directory-marketplace plugin's ``plugin.json`` (or its marketplace entry) may move
  its hooks (``"hooks": "./config/hooks.json"``): that file and the script it runs stayed
  writable.
* J9: a settings file's ``env`` applies to every process of the session: ``BASH_ENV=bashenv``,
  ``LD_PRELOAD=lib.so``, ``GIT_CONFIG_GLOBAL=gitcfg``, ``HOME=.`` make programs read a project
  file a bare word names. Now every value is read as paths; one that steers git to the
  project leaves nothing writable (git's configuration is read with the host's environment).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening._write_env import git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio

_HOOKS = {"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh"}]}]}}


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


def _plugin(root: Path, plugin_json: object, entry: dict[str, object], files: dict[str, str]) -> None:
    market = {"name": "team", "owner": {"name": "t"}, "plugins": [{"name": "fmt", "source": "./fmt", **entry}]}
    settings = {"extraKnownMarketplaces": {"team": {"source": {"source": "directory", "path": "./mkt"}}},
                "enabledPlugins": {"fmt@team": True}}
    write_tree(root, {".claude/settings.json": json.dumps(settings),
                      "mkt/.claude-plugin/marketplace.json": json.dumps(market),
                      "mkt/fmt/.claude-plugin/plugin.json": json.dumps(plugin_json),
                      "mkt/fmt/scripts/fmt.sh": "exit 0\n", "mkt/fmt/README.md": "# fmt\n",
                      **{f"mkt/fmt/{k}": v for k, v in files.items()}})


@pytest.mark.parametrize(("plugin_json", "entry"), [
    ({"name": "fmt", "hooks": "./config/hooks.json"}, {}),
    ({"name": "fmt", "hooks": ["${CLAUDE_PLUGIN_ROOT}/config/hooks.json"]}, {}),
    ({"name": "fmt"}, {"strict": False, "hooks": "./config/hooks.json"}),
])
async def test_a_plugins_moved_hooks_file_and_its_script_are_not_writable(
        anyio_backend: str, env: Path, plugin_json: object, entry: dict[str, object]) -> None:
    _plugin(env, plugin_json, entry, {"config/hooks.json": json.dumps(_HOOKS)})
    got = await _writable(env, "mkt/fmt/config/hooks.json", "mkt/fmt/scripts/fmt.sh", "mkt/fmt/README.md",
                          "notes.md")
    assert got == {"mkt/fmt/config/hooks.json": False, "mkt/fmt/scripts/fmt.sh": False,
                   "mkt/fmt/README.md": True, "notes.md": True}


async def test_a_marketplace_entrys_inline_hooks_are_read(anyio_backend: str, env: Path) -> None:
    _plugin(env, {"name": "fmt"}, {"strict": False, **_HOOKS}, {})
    got = await _writable(env, "mkt/fmt/scripts/fmt.sh", "mkt/fmt/README.md", "notes.md")
    assert got == {"mkt/fmt/scripts/fmt.sh": False, "mkt/fmt/README.md": True, "notes.md": True}


async def test_a_plugins_component_directories_are_not_writable(anyio_backend: str, env: Path) -> None:
    _plugin(env, {"name": "fmt", "commands": ["./extra/cmd.md"], "agents": "./custom/agents/",
                  "outputStyles": "./styles/"},
            {}, {"extra/cmd.md": "x\n", "custom/agents/a.md": "x\n", "styles/s.md": "x\n", "bin/fmt": "x\n"})
    got = await _writable(env, "mkt/fmt/extra/cmd.md", "mkt/fmt/custom/agents/a.md", "mkt/fmt/styles/s.md",
                          "mkt/fmt/bin/fmt", "mkt/fmt/extra/other.md", "notes.md")
    assert got == {"mkt/fmt/extra/cmd.md": False, "mkt/fmt/custom/agents/a.md": False, "mkt/fmt/styles/s.md": False,
                   "mkt/fmt/bin/fmt": False, "mkt/fmt/extra/other.md": True, "notes.md": True}


@pytest.mark.parametrize("plugin_json", [
    {"name": "fmt", "hooks": "../../elsewhere/hooks.json"},
    {"name": "fmt", "hooks": "$OTHER/hooks.json"},
    {"name": "fmt", "hooks": 7},
    "not an object",
])
async def test_a_plugin_manifest_not_understood_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                        plugin_json: object) -> None:
    _plugin(env, plugin_json, {}, {})
    assert await _writable(env, "mkt/fmt/README.md", "notes.md") == {"mkt/fmt/README.md": False, "notes.md": False}


def _settings_env(variables: dict[str, str]) -> dict[str, str]:
    return {".claude/settings.json": json.dumps({"env": variables})}


_FILES = {"gitcfg": "[core]\n\tfsmonitor = sh tools/fsmon.sh\n", "tools/fsmon.sh": "exit 0\n", "lib.so": "x",
          "bashenv": "true\n", "npmrc": "x\n", "pre.js": "x\n", "agent.jar": "x", "cfg/git/config": "x\n",
          "data/x/init.lua": "x\n"}


@pytest.mark.parametrize(("variables", "named"), [
    ({"BASH_ENV": "bashenv"}, ["bashenv"]),
    ({"LD_PRELOAD": "lib.so"}, ["lib.so"]),
    ({"NPM_CONFIG_USERCONFIG": "npmrc"}, ["npmrc"]),
    ({"NODE_OPTIONS": "--require ./pre"}, ["pre.js"]),
    ({"JAVA_TOOL_OPTIONS": "-javaagent:agent.jar"}, ["agent.jar"]),
    ({"XDG_DATA_HOME": "data"}, ["data/x/init.lua"]),
])
async def test_a_file_an_env_value_names_is_not_writable(anyio_backend: str, env: Path, variables: dict[str, str],
                                                         named: list[str]) -> None:
    write_tree(env, {**_FILES, **_settings_env({"NODE_ENV": "production", **variables})})
    got = await _writable(env, *named, "tools/fsmon.sh", "notes.md")
    assert got == {**dict.fromkeys(named, False), "tools/fsmon.sh": True, "notes.md": True}


@pytest.mark.parametrize("variables", [
    {"GIT_CONFIG_GLOBAL": "gitcfg"}, {"GIT_CONFIG_GLOBAL": "./gitcfg"}, {"HOME": "."},
    {"XDG_CONFIG_HOME": "cfg"}, {"GIT_DIR": "$CLAUDE_PROJECT_DIR/.git"}, {"GIT_CONFIG_COUNT": "1"},
])
async def test_env_steering_git_into_the_project_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                         variables: dict[str, str]) -> None:
    write_tree(env, {**_FILES, **_settings_env(variables)})
    assert await _writable(env, "tools/fsmon.sh", "notes.md") == {"tools/fsmon.sh": False, "notes.md": False}


async def test_env_steering_git_outside_the_project_changes_nothing(anyio_backend: str, env: Path,
                                                                    tmp_path: Path) -> None:
    write_tree(env, {**_FILES, **_settings_env({"GIT_CONFIG_GLOBAL": str(tmp_path / "elsewhere"),
                                                "HOME": str(tmp_path / "home"), "EDITOR": "vim"})})
    assert await _writable(env, "tools/fsmon.sh", "notes.md") == {"tools/fsmon.sh": True, "notes.md": True}


async def test_plugin_component_paths_past_the_bound_leave_nothing_writable(anyio_backend: str, env: Path) -> None:
    _plugin(env, {"name": "fmt", "commands": [f"./c/{i}.md" for i in range(8200)]}, {}, {})
    assert await _writable(env, "notes.md") == {"notes.md": False}


async def test_env_paths_outside_past_the_bound_leave_nothing_writable(anyio_backend: str, env: Path) -> None:
    variables = {f"V{i}": " ".join(f"/elsewhere/{i}/{k}" for k in range(11)) for i in range(100)}
    write_tree(env, _settings_env(variables))
    assert await _writable(env, "notes.md") == {"notes.md": False}
    write_tree(env, _settings_env(dict(list(variables.items())[:90])))
    assert await _writable(env, "notes.md") == {"notes.md": True}
