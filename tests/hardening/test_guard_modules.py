"""A hook that starts Maven or Gradle runs what every module's build file configures.

Only the manifest of the directory the runner starts in was protected: a Maven module's
``pom.xml`` (an ``exec-maven-plugin`` execution runs a command) or a Gradle subproject's
``build.gradle`` stayed writable. Now the modules the root manifest names are read (bounded,
never through a link) and their build files are unwritable too; an edited module list is
noticed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pathgate.runtime.tools import _agent_commands, _modules
from pathgate.runtime.tools._settings_load import Unchecked
from tests.hardening._write_env import git_project, writable
from tests.runtime.tools._writes import write_tree

pytestmark = pytest.mark.anyio


def _claude(command: str) -> dict[str, str]:
    hooks = {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}
    return {".claude/settings.json": json.dumps({"hooks": hooks})}


def _pom(*modules: str, parent: str | None = None) -> str:
    mods = "".join(f"<module>{m}</module>" for m in modules)
    par = f"<parent><relativePath>{parent}</relativePath></parent>" if parent else ""
    return f"<project>{par}<modules>{mods}</modules></project>\n"


async def _writable(root: Path, *paths: str) -> dict[str, bool]:
    return await writable(root, *paths, text="<project/>\n")


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return git_project(tmp_path, monkeypatch, {"src/app.py": "x\n", "notes.md": "# n\n"})


async def test_maven_module_poms_are_not_writable(anyio_backend: str, env: Path) -> None:
    write_tree(env, {**_claude("./mvnw -q verify"), "pom.xml": _pom("core", "apps"),
                     "core/pom.xml": _pom(parent="../parent"), "apps/pom.xml": _pom("web", "alt/other.xml"),
                     "apps/web/pom.xml": _pom(), "apps/alt/other.xml": _pom(), "parent/pom.xml": _pom(),
                     "unlisted/pom.xml": _pom(), "core/src/Main.java": "class Main {}\n"})
    got = await _writable(env, "core/pom.xml", "apps/pom.xml", "apps/web/pom.xml", "apps/alt/other.xml",
                          "parent/pom.xml", "unlisted/pom.xml", "core/src/Main.java", "notes.md")
    assert got == {"core/pom.xml": False, "apps/pom.xml": False, "apps/web/pom.xml": False,
                   "apps/alt/other.xml": False, "parent/pom.xml": False, "unlisted/pom.xml": True,
                   "core/src/Main.java": True, "notes.md": True}


async def test_a_module_added_later_is_noticed(anyio_backend: str, env: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_agent_commands, "_RACY", -1.0)  # cached at once: the module list's signature decides
    write_tree(env, {**_claude("mvn -q verify"), "pom.xml": _pom("core"), "core/pom.xml": _pom(),
                     "extra/pom.xml": _pom()})
    assert await _writable(env, "extra/pom.xml") == {"extra/pom.xml": True}
    write_tree(env, {"pom.xml": _pom("core", "extra")})
    assert await _writable(env, "extra/pom.xml") == {"extra/pom.xml": False}


async def test_gradle_included_projects_and_builds_are_not_writable(anyio_backend: str, env: Path) -> None:
    settings = ("rootProject.name = 'demo'\n"
                "include ':core', ':apps:web'\n"
                'include(\n    "lib",\n)\n'
                "includeBuild('build-logic')\n"
                "project(':lib').projectDir = file('libs/lib')\n")
    write_tree(env, {**_claude("./gradlew check"), "settings.gradle": settings, "build.gradle": "\n",
                     "core/build.gradle": "\n", "apps/web/build.gradle.kts": "\n", "libs/lib/build.gradle": "\n",
                     "build-logic/src/main/kotlin/conv.gradle.kts": "\n", "other/build.gradle": "\n",
                     "core/src/Main.kt": "\n"})
    got = await _writable(env, "core/build.gradle", "apps/web/build.gradle.kts", "lib/build.gradle",
                          "libs/lib/build.gradle", "build-logic/src/main/kotlin/conv.gradle.kts",
                          "other/build.gradle", "core/src/Main.kt")
    assert got == {"core/build.gradle": False, "apps/web/build.gradle.kts": False, "lib/build.gradle": False,
                   "libs/lib/build.gradle": False, "build-logic/src/main/kotlin/conv.gradle.kts": False,
                   "other/build.gradle": True, "core/src/Main.kt": True}


async def test_a_linked_module_pom_leaves_nothing_writable(anyio_backend: str, env: Path) -> None:
    write_tree(env, {**_claude("mvn verify"), "pom.xml": _pom("core"), ".env": _pom("secret")})
    (env / "core").mkdir()
    os.symlink("../.env", env / "core" / "pom.xml")
    assert await _writable(env, "notes.md", "src/app.py") == {"notes.md": False, "src/app.py": False}


async def test_no_runner_no_module_read(anyio_backend: str, env: Path) -> None:
    write_tree(env, {**_claude("sh tools/check.sh"), "pom.xml": _pom("core"), "core/pom.xml": _pom()})
    assert await _writable(env, "core/pom.xml", "pom.xml") == {"core/pom.xml": True, "pom.xml": True}


def test_module_reading_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reactor past the file bound cannot be checked (nothing below is writable), and a
    module cycle is read once."""
    root = tmp_path.resolve()
    write_tree(root, {"pom.xml": _pom("a"), "a/pom.xml": _pom("..", "../b"), "b/pom.xml": _pom("../a")})
    found = list(_modules.module_manifests(str(root / "pom.xml"), str(root), {}))
    assert sorted(os.path.relpath(p, root) for p, _ in found) == ["a/pom.xml", "b/pom.xml"]
    monkeypatch.setattr(_modules, "MAX_FILES", 2)
    with pytest.raises(Unchecked):
        list(_modules.module_manifests(str(root / "pom.xml"), str(root), {}))


_PARENT = "<project><parent><groupId>g</groupId><artifactId>p</artifactId></parent></project>\n"


@pytest.mark.parametrize("parent", [
    "<parent><groupId>g</groupId><artifactId>p</artifactId></parent>",
    "<parent >\n  <artifactId>p</artifactId>\n</parent >",
    "<parent/>",
    "<!-- <parent><artifactId>p</artifactId></parent> -->",
])
async def test_a_parent_without_a_relative_path_is_read_from_the_directory_above(
        anyio_backend: str, env: Path, parent: str) -> None:
    """Maven's default ``relativePath`` is ``../pom.xml`` (helper wg22, residual 4)."""
    write_tree(env, {**_claude("mvn -f app/svc/pom.xml verify"), "pom.xml": "<project/>\n",
                     "app/pom.xml": _PARENT, "app/svc/pom.xml": f"<project>{parent}</project>\n",
                     "app/svc/src/Main.java": "class Main {}\n", "other/pom.xml": "<project/>\n"})
    got = await _writable(env, "app/svc/pom.xml", "app/pom.xml", "pom.xml", "other/pom.xml",
                          "app/svc/src/Main.java")
    assert got == {"app/svc/pom.xml": False, "app/pom.xml": False, "pom.xml": False, "other/pom.xml": True,
                   "app/svc/src/Main.java": True}


@pytest.mark.parametrize("parent", [
    "<parent><artifactId>p</artifactId><relativePath/></parent>",
    "<parent><artifactId>p</artifactId><relativePath>../other</relativePath></parent>",
    "<modules><module>x</module></modules>",
])
async def test_a_parent_with_its_own_relative_path_or_none_does_not_name_the_directory_above(
        anyio_backend: str, env: Path, parent: str) -> None:
    write_tree(env, {**_claude("mvn -f a/b/pom.xml verify"), "pom.xml": "<project/>\n", "a/pom.xml": _PARENT,
                     "a/b/pom.xml": f"<project>{parent}</project>\n", "a/other/pom.xml": "<project/>\n"})
    got = await _writable(env, "a/b/pom.xml", "a/pom.xml", "a/other/pom.xml")
    assert got == {"a/b/pom.xml": False, "a/pom.xml": True, "a/other/pom.xml": "../other" not in parent}


def test_implicit_parents_are_found_in_linear_time() -> None:
    """A megabyte of unclosed ``<parent`` tags: one implicit parent each, found without
    rescanning to the end from each (bisection over the ends found once)."""
    raw = b"<parent>" * 100_000 + b"<relativePath>x</relativePath></parent>"
    refs = list(_modules._implicit_parents(raw))
    assert len(refs) == 0  # every one of them is closed by the one end, after the relative path
    raw = b"<parent></parent>" * 50_000
    assert len(list(_modules._implicit_parents(raw))) == 50_000
