"""What an agent settings file's ``env`` makes programs find or read in the project (helper
wg22, residuals 1–3).

* ``PATH=./bin`` (or ``PATH=.``, an empty entry): a hook's command word is looked up there,
  so any file of that directory may be run — each entry inside the project counts with
  everything below it, the project's root (``.``, ``$CLAUDE_PROJECT_DIR``, an empty entry)
  leaves nothing writable, like ``LD_LIBRARY_PATH=.``;
* ``NPM_CONFIG_USERCONFIG=npmrc``: the file is read as an ``.npmrc`` (``node-options``,
  ``script-shell``, ``onload-script``);
* Yarn's ``injectEnvironmentFiles`` (``.yarnrc.yml``) and what they set.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening._write_env import git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio

_FILES = {"bin/lint": "exit 0\n", "bin/sub/x": "exit 0\n", "tools/run.sh": "exit 0\n", "notes.md": "# n\n",
          "src/app.py": "x\n", "pre.js": "x\n", "sh.sh": "x\n", "onload.js": "x\n"}


def _settings(env: dict[str, str], command: str = "lint") -> dict[str, str]:
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}
    return {".claude/settings.json": json.dumps({"env": env, "hooks": hooks})}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, _FILES)


@pytest.mark.parametrize("path", ["./bin:$PATH", "bin:/usr/bin", "$CLAUDE_PROJECT_DIR/bin:${PATH}",
                                  "/usr/bin:./bin"])
async def test_a_project_directory_on_path_is_not_writable(anyio_backend: str, env: Path, path: str) -> None:
    write_tree(env, _settings({"PATH": path}))
    got = await writable(env, "bin/lint", "bin/new", "bin/sub/x", "tools/run.sh", "notes.md")
    assert got == {"bin/lint": False, "bin/new": False, "bin/sub/x": False, "tools/run.sh": True,
                   "notes.md": True}


@pytest.mark.parametrize("path", [".", "./", ".:/usr/bin", "/usr/bin:", ":/usr/bin", "/usr/bin::/bin",
                                  "$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}/:$PATH", ""])
async def test_the_root_on_path_leaves_nothing_writable(anyio_backend: str, env: Path, path: str) -> None:
    write_tree(env, _settings({"PATH": path}))
    assert await writable(env, "src/app.py", "notes.md") == {"src/app.py": False, "notes.md": False}


async def test_path_outside_the_project_changes_nothing(anyio_backend: str, env: Path) -> None:
    write_tree(env, _settings({"PATH": "/usr/local/bin:/usr/bin:/bin:$PATH", "LD_LIBRARY_PATH": "$LD_LIBRARY_PATH"}))
    got = await writable(env, "bin/lint", "src/app.py", "notes.md")
    assert got == {"bin/lint": True, "src/app.py": True, "notes.md": True}


async def test_an_empty_library_path_entry_is_the_working_directory(anyio_backend: str, env: Path) -> None:
    write_tree(env, _settings({"LD_LIBRARY_PATH": "/opt/lib:"}))
    assert await writable(env, "notes.md") == {"notes.md": False}


_NPMRC = "node-options=--require ./pre.js\nscript-shell=./sh.sh\nonload-script=./onload.js\n"


@pytest.mark.parametrize("name", ["NPM_CONFIG_USERCONFIG", "npm_config_userconfig", "NPM_CONFIG_GLOBALCONFIG",
                                  "Npm_Config_UserConfig"])
async def test_an_npmrc_named_by_env_is_read_as_one(anyio_backend: str, env: Path, name: str) -> None:
    write_tree(env, {"cfg/npmrc": _NPMRC, **_settings({name: "cfg/npmrc"}, "npm test")})
    got = await writable(env, "cfg/npmrc", "pre.js", "sh.sh", "onload.js", "notes.md")
    assert got == {"cfg/npmrc": False, "pre.js": False, "sh.sh": False, "onload.js": False, "notes.md": True}


async def test_an_npmrc_named_by_env_that_cannot_be_read_literally_leaves_nothing_writable(
        anyio_backend: str, env: Path) -> None:
    write_tree(env, {"cfg/npmrc": "node-options=--require ${X}/pre.js\n",
                     **_settings({"NPM_CONFIG_USERCONFIG": "cfg/npmrc"})})
    assert await writable(env, "notes.md") == {"notes.md": False}


def _yarn(rc: str, env_files: dict[str, str]) -> dict[str, str]:
    return {**_settings({}, "yarn lint"), "package.json": '{"name": "x"}', ".yarnrc.yml": rc, **env_files}


@pytest.mark.parametrize("rc", [
    "injectEnvironmentFiles:\n  - .env.yarn?\n  - config/yarn.env\n",
    "injectEnvironmentFiles: [.env.yarn?, config/yarn.env?]\n",
    'injectEnvironmentFiles: ["config/yarn.env"]  # shared\n',
    "nodeLinker: node-modules\ninjectEnvironmentFiles:\n- 'config/yarn.env'\nenableTelemetry: false\n",
])
async def test_an_environment_file_yarn_injects_and_what_it_sets_are_not_writable(
        anyio_backend: str, env: Path, rc: str) -> None:
    """Yarn 4 loads ``injectEnvironmentFiles`` into every script's environment (helper
    wg22, residual 2): ``NODE_OPTIONS=--require ./pre.js`` runs ``pre.js`` first."""
    write_tree(env, _yarn(rc, {"config/yarn.env": "# team\nexport NODE_OPTIONS='--require ./pre.js'\n"
                                                  "SHELL_HOOK=sh.sh\nNODE_ENV=production\n"}))
    got = await writable(env, "config/yarn.env", "pre.js", "sh.sh", "onload.js", "notes.md")
    assert got == {"config/yarn.env": False, "pre.js": False, "sh.sh": False, "onload.js": True, "notes.md": True}


@pytest.mark.parametrize("text", ["NODE_OPTIONS=--require ${DIR}/pre.js\n", 'NODE_OPTIONS="--require\n./pre.js"\n',
                                  "not a variable line\n", "GIT_CONFIG_GLOBAL=gitcfg\n"])
async def test_an_environment_file_that_cannot_be_read_literally_leaves_nothing_writable(
        anyio_backend: str, env: Path, text: str) -> None:
    write_tree(env, _yarn("injectEnvironmentFiles: [config/yarn.env]\n", {"config/yarn.env": text}))
    assert await writable(env, "notes.md") == {"notes.md": False}


@pytest.mark.parametrize("rc", ["injectEnvironmentFiles: {a: b}\n", "injectEnvironmentFiles: .env.yarn\n",
                                "{injectEnvironmentFiles: [x]}\n"])
async def test_an_environment_file_list_not_read_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                         rc: str) -> None:
    write_tree(env, _yarn(rc, {}))
    assert await writable(env, "notes.md") == {"notes.md": False}


async def test_a_secret_environment_file_is_never_read(anyio_backend: str, env: Path) -> None:
    """Yarn's default ``.env.yarn`` is a secret: never writable, never read — the same
    answers whatever it holds, or whether it exists."""
    seen = set()
    for text in (None, "NODE_OPTIONS=--require ./pre.js\n", "PATH=.\n", "NODE_OPTIONS=${X}\n"):
        files = {} if text is None else {".env.yarn": text}
        write_tree(env, _yarn("injectEnvironmentFiles: [.env.yarn?]\n", files))
        seen.add(tuple((await writable(env, "pre.js", "notes.md", "src/app.py")).values()))
        (env / ".env.yarn").unlink(missing_ok=True)
    assert seen == {(True, True, True)}
