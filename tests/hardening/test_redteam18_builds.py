"""Red team 18 J2, J3, J11: build files and package-manager code a settings hook's runner
reads, spelled so the write guard skipped them.

* J2: Maven reads a ``<module>`` as its effective model has it (properties interpolated,
  entities and CDATA decoded, ``\\`` as ``/``); the guard skipped ``${m}`` and misread the
  rest, so the module ``pom.xml`` stayed writable. Now a value that is not literal text
  leaves nothing writable, and the spellings that are (``<module >``, ``core\\sub``) are read.
* J3: Gradle evaluates the build script ``buildFileName`` names, in the directory a
  ``projectDir = new File(settingsDir, 'x')`` sets: both were missed.
* J11: Yarn's ``yarnPath``/``plugins``, Yarn 1's ``yarn-path``, npm's ``node-options``, bun's
  ``preload`` and pnpm's ``.pnpmfile.cjs`` are loaded by the package manager itself.

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


def _npm_user(npmrc: str, command: str = "npm run lint") -> dict[str, str]:
    """Settings whose hook runs ``command`` with ``NPM_CONFIG_USERCONFIG=conf/npmrc`` holding
    ``npmrc`` (the project's own ``.npmrc`` is a default secret: never read, red team 21 M1)."""
    hooks = {"PreToolUse": [{"hooks": [{"type": "command", "command": command}]}]}
    return {".claude/settings.json": json.dumps({"env": {"NPM_CONFIG_USERCONFIG": "conf/npmrc"}, "hooks": hooks}),
            "conf/npmrc": npmrc}


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths, text="x\n")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"notes.md": "# n\n"})


def _maven(modules: str, props: str = "") -> dict[str, str]:
    return {**claude_hook("mvn -q verify"),
            "pom.xml": f"<project><properties>{props}</properties><modules>{modules}</modules></project>\n",
            "core/pom.xml": "<project/>\n", "core/sub/pom.xml": "<project/>\n"}


@pytest.mark.parametrize(("modules", "props"), [
    ("<module>${m}</module>", "<m>core/sub</m>"),
    ("<module>${project.basedir}/core/sub</module>", ""),
    ("<module>core/&#115;ub</module>", ""),
    ("<module><![CDATA[core/sub]]></module>", ""),
    ("<module>core/sub<!-- x --></module>", ""),
    ('<module id="x">core/sub</module>', ""),
    ("<module>core/sub", ""),
])
async def test_a_maven_module_not_written_literally_leaves_nothing_writable(
        anyio_backend: str, env: Path, modules: str, props: str) -> None:
    write_tree(env, _maven(modules, props))
    assert await _writable(env, "core/sub/pom.xml", "notes.md") == {"core/sub/pom.xml": False, "notes.md": False}


@pytest.mark.parametrize("modules", ["<module>core\\sub</module>", "<module >core/sub</module >",
                                     "<module>\n  core/sub\n</module>", "<subproject>core/sub</subproject>"])
async def test_maven_module_spellings_read_as_maven_reads_them(anyio_backend: str, env: Path, modules: str) -> None:
    write_tree(env, _maven(modules))
    got = await _writable(env, "core/sub/pom.xml", "core/pom.xml", "notes.md")
    assert got == {"core/sub/pom.xml": False, "core/pom.xml": True, "notes.md": True}


async def test_an_empty_parent_relative_path_is_no_module(anyio_backend: str, env: Path) -> None:
    write_tree(env, {**_maven("<module>core</module>"),
                     "core/pom.xml": "<project><parent><relativePath/></parent><parent><relativePath />"
                                     "</parent></project>\n"})
    got = await _writable(env, "core/pom.xml", "core/sub/pom.xml", "notes.md")
    assert got == {"core/pom.xml": False, "core/sub/pom.xml": True, "notes.md": True}


def _gradle(settings: str) -> dict[str, str]:
    return {**claude_hook("./gradlew -q build"), "gradlew": "#!/bin/sh\n", "settings.gradle": settings,
            "x/build.gradle": "\n", "modules/x/build.gradle": "\n", "x/x.gradle": "\n", "main.gradle": "\n"}


@pytest.mark.parametrize("assign", ["new File(settingsDir, 'modules/x')", 'new File(rootDir, "modules/x")',
                                    "File(settingsDir, 'modules/x')", 'settingsDir.resolve("modules/x")',
                                    "file('modules/x')"])
async def test_a_gradle_project_dir_from_the_settings_directory_is_read(anyio_backend: str, env: Path,
                                                                        assign: str) -> None:
    write_tree(env, _gradle(f"include ':x'\nproject(':x').projectDir = {assign}\n"))
    got = await _writable(env, "modules/x/build.gradle", "notes.md")
    assert got == {"modules/x/build.gradle": False, "notes.md": True}


@pytest.mark.parametrize("settings", [
    "include ':x'\nproject(':x').buildFileName = 'x.gradle'\n",
    "rootProject.buildFileName = 'main.gradle'\n",
    "include ':x'\nproject(':x').projectDir = new File(System.getenv('D'), 'x')\n",
    "include ':x'\nproject(':x').setProjectDir(file('modules/x'))\n",
    'include ":x-$flavor"\n',
])
async def test_a_gradle_settings_script_not_read_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                         settings: str) -> None:
    write_tree(env, _gradle(settings))
    assert await _writable(env, "x/x.gradle", "main.gradle", "notes.md") == dict.fromkeys(
        ("x/x.gradle", "main.gradle", "notes.md"), False)


async def test_reading_a_project_dir_is_not_setting_it(anyio_backend: str, env: Path) -> None:
    write_tree(env, _gradle('include \':x\'\nprintln "${rootProject.projectDir}"\n'))
    got = await _writable(env, "x/build.gradle", "x/x.gradle", "notes.md")
    assert got == {"x/build.gradle": False, "x/x.gradle": True, "notes.md": True}


@pytest.mark.parametrize(("command", "files", "loaded"), [
    ("yarn lint", {".yarnrc.yml": "yarnPath: tools/yarn.cjs\nplugins:\n  - path: tools/plugin.cjs\n"
                                  "    spec: x\n  - 'tools/other.cjs'  # a comment\n"},
     ["tools/yarn.cjs", "tools/plugin.cjs", "tools/other.cjs", ".yarn/releases/y.cjs", ".yarn/plugins/p.cjs",
      ".pnp.cjs"]),
    ("yarn lint", {".yarnrc": 'yarn-path "./vendor/yarn.js"\n'}, ["vendor/yarn.js"]),
    ("npm run lint", {**_npm_user("//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nnode-options=--require ./pre\n"
                                  "script-shell = tools/sh\nuserconfig=cfg/npmrc\n"),
                      "cfg/npmrc": "onload-script=tools/onload.js\n"},
     ["pre.js", "tools/sh", "cfg/npmrc", "tools/onload.js"]),
    ("bun run lint", {"bunfig.toml": 'preload = ["./pre.ts"]\n[test]\npreload = "./tpre.ts"\n'}, ["pre.ts", "tpre.ts"]),
    ("pnpm install", {"pnpm-workspace.yaml": "packages: []\npnpmfile: tools/hooks.cjs\n"},
     [".pnpmfile.cjs", ".pnpmfile.mjs", "pnpm-workspace.yaml", "tools/hooks.cjs"]),
])
async def test_what_a_package_manager_loads_first_is_not_writable(anyio_backend: str, env: Path, command: str,
                                                                  files: dict[str, str], loaded: list[str]) -> None:
    write_tree(env, {**claude_hook(command), "package.json": '{"name": "x"}', **files})
    got = await _writable(env, *loaded, "src/app.js", "notes.md")
    assert got == {**dict.fromkeys(loaded, False), "src/app.js": True, "notes.md": True}


@pytest.mark.parametrize("files", [
    {".yarnrc.yml": "yarnPath: ${YARN}\n"},
    {".yarnrc.yml": "plugins: [tools/plugin.cjs]\n"},
    {".yarnrc.yml": "{yarnPath: tools/yarn.cjs}\n"},
    {".yarnrc.yml": "yarnPath: >-\n  tools/yarn.cjs\n"},
    {".yarnrc": "yarn-path = tools/yarn.js\n"},
    _npm_user("node-options=--require ${HOME}/pre.js\n"),
    {"bunfig.toml": "preload = [1]\n"},
    {"bunfig.toml": "preload = \n"},
])
async def test_a_package_manager_setting_not_read_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                         files: dict[str, str]) -> None:
    write_tree(env, {**claude_hook("yarn lint"), "package.json": '{"name": "x"}', **files})
    assert await _writable(env, "notes.md") == {"notes.md": False}


@pytest.mark.parametrize("target", [".env", "missing", "../outside.yml", "plain.txt"])
async def test_a_linked_package_manager_file_is_never_read(anyio_backend: str, env: Path, target: str) -> None:
    """Whatever the link leads to (a secret, nothing, out of the root), the answer is the
    same; a link to a plain file of the project is read, that file protected too (helper
    wg22: the guard follows a link to a file the read gates serve)."""
    write_tree(env, {**claude_hook("yarn lint"), "package.json": '{"name": "x"}', ".env": "yarnPath: x.cjs\n",
                     "plain.txt": "yarnPath: x.cjs\n"})
    (env.parent / "outside.yml").write_text("yarnPath: x.cjs\n")
    (env / ".yarnrc.yml").symlink_to(target)
    plain = target == "plain.txt"
    assert await _writable(env, "notes.md", "x.cjs", "plain.txt") == {"notes.md": plain, "x.cjs": False,
                                                                      "plain.txt": False}


@pytest.mark.parametrize("files", [
    _npm_user("".join(f"node-options=--require ./p{i}.js\n" for i in range(1100))),
    {".yarnrc.yml": "plugins:\n" + "".join(f"  - path: p/{i}.cjs\n" for i in range(1100))},
    {"bunfig.toml": "preload = [" + ", ".join(f'"./p{i}.ts"' for i in range(1100)) + "]\n"},
    {"bunfig.toml": "# " + "x" * (64 * 1024) + "\n"},
])
async def test_a_package_manager_file_past_its_bounds_leaves_nothing_writable(anyio_backend: str, env: Path,
                                                                             files: dict[str, str]) -> None:
    write_tree(env, {**claude_hook("yarn lint"), "package.json": '{"name": "x"}', **files})
    assert await _writable(env, "notes.md") == {"notes.md": False}


@pytest.mark.parametrize("present", [True, False], ids=["with-npmrc", "without"])
async def test_a_secret_npmrc_is_never_read(anyio_backend: str, env: Path, present: bool) -> None:
    """Red team 21 M1: the project's ``.npmrc`` is a default secret; reading it told whether
    it exists and what it names (``pre.js`` unwritable). Never read: the same answer with
    and without it."""
    write_tree(env, {**claude_hook("npm run lint"), "package.json": '{"name": "x"}',
                     **({".npmrc": "node-options=--require ./pre.js\n"} if present else {})})
    assert await _writable(env, "pre.js", "notes.md") == {"pre.js": True, "notes.md": True}
