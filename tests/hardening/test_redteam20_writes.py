"""Red team 20 L2-L5, L7-L10: files a settings hook's runner, a git hook's tool or an agent
CLI runs or loads that the write guard left writable.

* L7: runners' own files: ``rakelib/*.rake``, every root ``*.sbt``, ``hatch.toml``,
  ``Taskfile.dist.yml``, ``setup.cfg`` (tox's ``[tox:tox]``).
* L10: commitlint's configuration (code) under a husky ``commit-msg`` hook.
* L5: ``RUBYOPT``/``PERL5OPT``-style option variables read as those interpreters' options.
* L8: Gemini CLI's nested ``tools.discoveryCommand``/``tools.callCommand``, VS Code's
  ``git.path`` and terminal profile paths.
* L9: runner options that move the run (``./gradlew -p``, ``task -d``, ``uvx --from``,
  ``cargo --manifest-path``).
* L3: Gradle settings naming projects other than by plain literals, ``apply from:``.
* L2: a Maven ``<module>``/``<relativePath>`` naming a file.
* L4: npm's ini quoting and comments, js-yaml folded scalars.

Each case also writes ``notes.md``: writable when the file was read, refused when it could
not be checked (nothing writable).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hardening._write_env import claude_hook, git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths, text="x\n")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


@pytest.mark.parametrize(("cmd", "path"), [
    ("rake lint", "rakelib/evil.rake"),
    ("rake lint", "rakefile.rb"),
    ("sbt test", "evil.sbt"),
    ("hatch run lint", "hatch.toml"),
    ("task lint", "Taskfile.dist.yml"),
    ("task lint", "taskfile.dist.yaml"),
    ("tox -e lint", "setup.cfg"),
    ("tox -e lint", "tox.toml"),
    ("uv run pytest", "setup.py"),
    ("docker compose run --rm mcp", "compose.override.yaml"),
    ("docker compose up", "docker-compose.yml"),
    ("mise run lint", ".config/mise/tasks/lint"),
    ("devbox run lint", "devbox.json"),
    ("nix run .#lint", "flake.nix"),
])
async def test_l7_a_runners_own_files_are_protected(anyio_backend: str, env: Path, cmd: str, path: str) -> None:
    write_tree(env, {**claude_hook(cmd), path: "x\n"})
    assert await _writable(env, path, "notes.md", "other.sbt.txt") == {
        path: False, "notes.md": True, "other.sbt.txt": True}


def _husky(root: Path, hooks: dict[str, str]) -> None:
    """husky v9: ``core.hooksPath = .husky/_`` whose scripts run ``.husky/<hook>``."""
    import subprocess

    write_tree(root, {**{f".husky/{h}": text for h, text in hooks.items()},
                      **{f".husky/_/{h}": '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' for h in hooks},
                      ".husky/_/h": '#!/usr/bin/env sh\nsh -e "$(dirname "$(dirname "$0")")/$(basename "$0")" "$@"\n'})
    subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".husky/_"], check=True)


@pytest.mark.parametrize("path", ["commitlint.config.js", ".commitlintrc.cjs", "commitlint.config.mts",
                                  ".commitlintrc", ".commitlintrc.yaml"])
async def test_l10_commitlints_configuration_is_protected_under_a_husky_hook(
        anyio_backend: str, env: Path, path: str) -> None:
    _husky(env, {"commit-msg": "npx --no -- commitlint --edit $1\n"})
    write_tree(env, {path: "module.exports = {}\n"})
    assert await _writable(env, path, "notes.md", "commitlint.md") == {
        path: False, "notes.md": True, "commitlint.md": True}


def _settings(env: dict[str, str], cmd: str) -> dict[str, str]:
    return {".claude/settings.json": json.dumps(
        {"env": env, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": cmd}]}]}})}


@pytest.mark.parametrize(("var", "value", "cmd", "path"), [
    ("RUBYOPT", "-r./evil", "ruby tools/check.rb", "evil.rb"),
    ("RUBYOPT", "-Ilib", "ruby tools/check.rb", "lib/rubygems.rb"),
    ("RUBYOPT", "-I lib -w", "ruby tools/check.rb", "lib/json.rb"),
    ("PERL5OPT", "-Ilib -Mfoo", "perl tools/check.pl", "lib/foo.pm"),
    ("PERL5OPT", "-Mfoo", "perl tools/check.pl", "foo.pm"),
    ("JDK_JAVA_OPTIONS", "-cp lib:ext", "java tools.Check", "ext/tools/Check.class"),
    ("JAVA_TOOL_OPTIONS", "-Xbootclasspath/a:boot", "mvn -q verify", "boot/java/lang/X.class"),
])
async def test_l5_an_interpreters_option_variable_is_read_as_its_options(
        anyio_backend: str, env: Path, var: str, value: str, cmd: str, path: str) -> None:
    write_tree(env, {**_settings({var: value}, cmd), "tools/check.rb": "1\n", "lib/keep": "x"})
    assert await _writable(env, path, "notes.md", "tools/other.md") == {
        path: False, "notes.md": True, "tools/other.md": True}


@pytest.mark.parametrize(("at", "doc", "path"), [
    (".gemini/settings.json", {"tools": {"discoveryCommand": "python3 tools/disc.py"}}, "tools/disc.py"),
    (".gemini/settings.json", {"tools": {"callCommand": "tools/call.sh"}}, "tools/call.sh"),
    (".gemini/settings.json", {"mcp": {"serverCommand": "python3 tools/m.py"}}, "tools/m.py"),
    (".gemini/settings.json", {"mcpServerCommand": "python3 tools/m.py"}, "tools/m.py"),
    (".vscode/settings.json", {"git.path": "tools/git"}, "tools/git"),
    (".vscode/settings.json", {"git.path": ["/usr/bin/git", "tools/git"]}, "tools/git"),
    (".vscode/settings.json", {"terminal.integrated.automationProfile.linux": {"path": "tools/tsh"}}, "tools/tsh"),
    (".vscode/settings.json", {"terminal.integrated.profiles.linux": {"x": {"path": ["/bin/zsh", "tools/tsh"]}}},
     "tools/tsh"),
    (".vscode/settings.json", {"typescript.tsdk": "tools/ts/lib"}, "tools/ts/lib/tsserver.js"),
])
async def test_l8_settings_keys_naming_a_program_are_read(anyio_backend: str, env: Path, at: str,
                                                          doc: dict[str, object], path: str) -> None:
    write_tree(env, {at: json.dumps(doc), path: "#!/bin/sh\n"})
    assert await _writable(env, path, "notes.md", "tools/notes.md") == {
        path: False, "notes.md": True, "tools/notes.md": True}


@pytest.mark.parametrize(("cmd", "path"), [
    ("./gradlew -p sub check", "sub/build.gradle"),
    ("./gradlew --project-dir=sub check", "sub/settings.gradle.kts"),
    ("gradle -b ci/main.gradle check", "ci/settings.gradle"),
    ("gradle -I ci/init.gradle check", "ci/buildSrc/src/X.kt"),
    ("task -d ci lint", "ci/Taskfile.yml"),
    ("uvx --from ./tools/srv srv", "tools/srv/pyproject.toml"),
    ("uvx --from ./tools/srv srv", "tools/srv/src/srv/__init__.py"),
    ("uv run --with-editable=./pkgs/a pytest", "pkgs/a/a/__init__.py"),
    ("cargo test --manifest-path crates/a/Cargo.toml", "crates/a/build.rs"),
    ("cargo test --manifest-path=crates/a/Cargo.toml", "crates/a/.cargo/config.toml"),
])
async def test_l9_a_runners_option_moving_the_run_moves_its_files(anyio_backend: str, env: Path, cmd: str,
                                                                  path: str) -> None:
    write_tree(env, {**claude_hook(cmd), path: "# x\n"})  # (valid TOML: a .cargo/config.toml is parsed)
    assert await _writable(env, path, "notes.md", "sub2/build.gradle") == {
        path: False, "notes.md": True, "sub2/build.gradle": True}


async def test_l9_uvx_from_the_root_names_its_entries_not_everything(anyio_backend: str, env: Path) -> None:
    write_tree(env, {**claude_hook("uvx --from . srv", "cargo -p core test"), "core/lib.rs": "x\n"})
    assert await _writable(env, "notes.md", "pyproject.toml", "core/lib.rs") == {
        "notes.md": True, "pyproject.toml": False, "core/lib.rs": True}


def _gradle(settings: str, name: str = "settings.gradle") -> dict[str, str]:
    return {**claude_hook("./gradlew check"), name: settings, "build.gradle": "\n", "core/build.gradle": "\n",
            "conf/more.gradle": "include 'core'\n"}


@pytest.mark.parametrize(("settings", "name"), [
    ("include 'co' + 're'\n", "settings.gradle"),
    ("include 'co\\u0072e'\n", "settings.gradle"),
    ("include(/core/)\n", "settings.gradle"),
    ("include $/core/$\n", "settings.gradle"),
    ("['core'].each { include it }\n", "settings.gradle"),
    ('include("co" + "re")\n', "settings.gradle.kts"),
    ("def x = /\n/* 2; ['core'].each { include it } // */\n", "settings.gradle"),
    ("include 'app'; ['core'].each { include it }\n", "settings.gradle"),
    ("apply from: file('conf/more.gradle')\n", "settings.gradle"),
])
async def test_l3_gradle_projects_not_named_by_plain_literals_leave_nothing_writable(
        anyio_backend: str, env: Path, settings: str, name: str) -> None:
    write_tree(env, _gradle(settings, name))
    assert await _writable(env, "core/build.gradle", "notes.md") == {"core/build.gradle": False, "notes.md": False}


@pytest.mark.parametrize("settings", ["apply from: 'conf/more.gradle'\n", 'apply(from = "conf/more.gradle")\n'])
async def test_l3_an_applied_settings_script_is_protected_and_read(anyio_backend: str, env: Path,
                                                                   settings: str) -> None:
    write_tree(env, _gradle(settings))
    assert await _writable(env, "conf/more.gradle", "core/build.gradle", "notes.md") == {
        "conf/more.gradle": False, "core/build.gradle": False, "notes.md": True}


async def test_l3_ordinary_settings_scripts_are_read(anyio_backend: str, env: Path) -> None:
    settings = ("/*\n * This file was generated by the Gradle 'init' task.\n *\n * The settings file is used to "
                "specify which projects to include in your build.\n * See https://docs.gradle.org/8.5/userguide\n"
                " */\npluginManagement { repositories { gradlePluginPortal() } }\nrootProject.name = 'demo'\n"
                "apply plugin: 'x'\n// include 'old'\ninclude 'app',\n        ':core' // the core\n"
                "include(\"lib\"); includeBuild('build-logic'); rootProject.name = 'demo'\n")
    write_tree(env, _gradle(settings))
    assert await _writable(env, "core/build.gradle", "app/build.gradle", "lib/build.gradle", "build-logic/x.kt",
                           "old/build.gradle", "notes.md") == {
        "core/build.gradle": False, "app/build.gradle": False, "lib/build.gradle": False, "build-logic/x.kt": False,
        "old/build.gradle": True, "notes.md": True}


@pytest.mark.parametrize(("pom", "path"), [
    ("<modules><module>core/build.pom</module></modules>", "core/build.pom"),
    ("<modules><module>core/POM.XML</module></modules>", "core/POM.XML"),
    ("<parent><relativePath>base/parent.pom</relativePath></parent>", "base/parent.pom"),
    ("<modules><module>core/build.pom</module></modules>", "core/sub/pom.xml"),  # read for its modules
])
async def test_l2_a_maven_module_naming_a_file_is_that_modules_pom(anyio_backend: str, env: Path, pom: str,
                                                                   path: str) -> None:
    write_tree(env, {**claude_hook("mvn -q verify"), "pom.xml": f"<project>{pom}</project>\n",
                     "core/build.pom": "<project><modules><module>sub</module></modules></project>\n",
                     "core/POM.XML": "<project/>\n", "base/parent.pom": "<project/>\n", "core/sub/pom.xml": "x"})
    assert await _writable(env, path, "notes.md", "core/notes.pom.md") == {
        path: False, "notes.md": True, "core/notes.pom.md": True}


@pytest.mark.parametrize(("npmrc", "path"), [
    ('"node\\u002doptions"=--require ./pre.js\n', "pre.js"),
    ('node-options="--require\\u0020./pre.js"\n', "pre.js"),
    ("'node-options'=--require ./pre.js\n", "pre.js"),
    ("\ufeffnode-options=--require ./pre.js\n", "pre.js"),
    ("node-options=--require ./pre.js#c\n", "pre.js"),
    ("script-shell=./sh;x\n", "sh"),
    ("script-shell=./a\\;b\n", "a;b"),
])
async def test_l4_an_npmrc_is_read_as_npms_ini_decodes_it(anyio_backend: str, env: Path,
                                                           npmrc: str, path: str) -> None:
    """(Through ``NPM_CONFIG_USERCONFIG``: the project's own ``.npmrc`` is a default secret,
    never read — red team 21 M1.)"""
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": "npm run lint"}]}]}
    write_tree(env, {".claude/settings.json": json.dumps({"env": {"NPM_CONFIG_USERCONFIG": "conf/npmrc"},
                                                          "hooks": hooks}),
                     "package.json": '{"name": "x"}', "conf/npmrc": npmrc})
    assert await _writable(env, path, "notes.md") == {path: False, "notes.md": True}


@pytest.mark.parametrize("yarnrc", ["yarnPath: x\n  y.cjs\n", "yarnPath:\n  y.cjs\n",
                                    "plugins:\n  - path: a.cjs\n      b.cjs\n"])
async def test_l4_a_yarn_value_going_on_past_its_line_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                               yarnrc: str) -> None:
    write_tree(env, {**claude_hook("yarn lint"), "package.json": '{"name": "x"}', ".yarnrc.yml": yarnrc})
    assert await _writable(env, "notes.md") == {"notes.md": False}


async def test_l4_yarns_usual_plugin_list_is_read(anyio_backend: str, env: Path) -> None:
    yarnrc = ("nodeLinker: node-modules\nplugins:\n  - path: .yarn/plugins/@yarnpkg/plugin-x.cjs\n"
              "    spec: \"@yarnpkg/plugin-x\"\nyarnPath: .yarn/releases/yarn-4.1.0.cjs\n")
    write_tree(env, {**claude_hook("yarn lint"), "package.json": '{"name": "x"}', ".yarnrc.yml": yarnrc})
    assert await _writable(env, "notes.md", "tools/x.cjs") == {"notes.md": True, "tools/x.cjs": True}


async def test_l9_a_moved_project_directory_is_read_as_the_root_is(anyio_backend: str, env: Path) -> None:
    """``./gradlew -p sub`` reads ``sub``'s build files; its sources stay writable, as the root's do."""
    write_tree(env, {**claude_hook("./gradlew -p sub check", "task -d ci lint"), "sub/build.gradle": "\n",
                     "sub/src/Main.java": "x\n", "ci/Taskfile.yml": "x\n", "ci/notes.md": "x\n"})
    assert await _writable(env, "sub/build.gradle", "sub/src/Main.java", "ci/Taskfile.yml", "ci/notes.md") == {
        "sub/build.gradle": False, "sub/src/Main.java": True, "ci/Taskfile.yml": False, "ci/notes.md": True}


@pytest.mark.parametrize(("command", "local"), [
    ("uvx --with requests pytest", False), ("uv run --with rich,requests python -m app", False),
    ("uvx --from ./requests pytest", True), ("uv run --with ./rich,requests python -m app", True),
])
async def test_m3_uv_requirements_count_only_as_local_paths(anyio_backend: str, env: Path, command: str,
                                                            local: bool) -> None:
    """Red team 21 M3: ``--with requests`` names a package of an index, not the project's
    ``requests/`` directory; ``./requests`` (or ``./rich``) is a local package."""
    write_tree(env, {**claude_hook(command), "requests/api.py": "x\n", "rich/console.py": "x\n"})
    got = await _writable(env, "requests/api.py", "rich/console.py", "notes.md")
    assert got["notes.md"] and (not got["requests/api.py"] or not got["rich/console.py"]) == local
