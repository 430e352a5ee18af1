"""Red team 21 M1: the write guard never reads a file a repository's configuration names
when the read gates would not serve it. A secret is read as absent, a host-filtered file
cannot be checked (nothing writable) — by its name alone: what is writable is the same with
and without the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from tests.hardening._write_env import claude_hook, git_project
from tests.runtime.tools._writes import make_rt

pytestmark = pytest.mark.anyio

_NPM = {**claude_hook("npm run lint"), "package.json": '{"scripts": {"lint": "true"}}'}


def _market(path: str) -> dict[str, str]:
    return {".claude/settings.json": json.dumps(
        {"extraKnownMarketplaces": {"m": {"source": {"source": "file", "path": path}}}})}


CASES = {
    "file-marketplace-env": (_market("./.env"), ".env", "API_KEY=abc\n", ["notes.md"]),
    "file-marketplace-credentials": (_market("./credentials.json"), "credentials.json", "not json\n", ["notes.md"]),
    "npmrc-default-secret": (_NPM, ".npmrc", "node-options=--require ./pre.js\n", ["pre.js", "notes.md"]),
    "npmrc-var": (_NPM, ".npmrc", "script-shell=${SHELL}\n", ["notes.md"]),
    "userconfig-secret": ({".claude/settings.json": json.dumps({"env": {"NPM_CONFIG_USERCONFIG": "conf/.npmrc"}})},
                          "conf/.npmrc", "node-options=--require ./pre.js\n", ["pre.js"]),
    "pom-module-env": ({**claude_hook("mvn -q verify"),
                        "pom.xml": "<project><modules><module>.env</module></modules></project>"},
                       ".env", "<module>x</module>\n", ["x/pom.xml"]),
    "gradle-apply-env": ({**claude_hook("./gradlew check"), "settings.gradle": "apply from: '.env'\n"},
                         ".env", "A=1 include it\n", ["notes.md"]),
    "plugin-hooks-env": ({".claude/settings.json": json.dumps(
        {"enabledPlugins": {"p@m": True},
         "extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": "./mk"}}}}),
        "mk/.claude-plugin/marketplace.json": json.dumps(
            {"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p", "hooks": "./.env"}]})},
        "mk/p/.env", 'PASSWORD="hunter2"\n', ["mk/hunter2", "notes.md"]),
}


async def _answers(root: Path, targets: list[str], **policy: object) -> dict[str, bool]:
    async with make_rt(root, require_read_before_write=False, **policy) as rt:
        return {p: (await rt.write_file(p, "x\n")).ok for p in targets}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_named_secret_changes_nothing_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       case: str) -> None:
    files, secret, content, targets = CASES[case]
    got = []
    for present in (True, False):
        (tmp_path / str(present)).mkdir()
        root = git_project(tmp_path / str(present), monkeypatch,
                           {**files, "notes.md": "x\n", **({secret: content} if present else {})})
        got.append(await _answers(root, targets))
    assert got[0] == got[1]


@pytest.mark.parametrize("files", [
    _market("./private/m.json"),
    {**claude_hook("./gradlew check"), "settings.gradle": "apply from: 'private/s.gradle'\n"},
], ids=["file-marketplace", "gradle-apply"])
async def test_a_named_host_filtered_file_cannot_be_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            files: dict[str, str]) -> None:
    def hide(rel: str, purpose: str = "read") -> bool:
        return not rel.startswith("private")

    got = []
    for present in (True, False):
        extra = {"private/m.json": '{"plugins": []}', "private/s.gradle": "include 'x'\n"} if present else {}
        (tmp_path / str(present)).mkdir()
        root = git_project(tmp_path / str(present), monkeypatch, {**files, "notes.md": "x\n", **extra})
        got.append(await _answers(root, ["notes.md"], host_filter=hide))
    assert got == [{"notes.md": False}, {"notes.md": False}]



async def test_a_runtime_with_gates_of_its_own_still_never_reads_a_named_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its judge follows no link (the host's gates cannot be asked by the guard), but a
    secret a configuration names is still read as absent."""

    class HostGate:
        name = "mine"
        needs = frozenset()

        def check(self, facts: object, ctx: object) -> None:
            return None

    files, secret, content, targets = CASES["pom-module-env"]
    got = []
    for present in (True, False):
        (tmp_path / str(present)).mkdir()
        root = git_project(tmp_path / str(present), monkeypatch,
                           {**files, "notes.md": "x\n", **({secret: content} if present else {})})
        async with Runtime(root, Policy(allow_writes=True, require_read_before_write=False),
                           gates=[HostGate()]) as rt:  # type: ignore[list-item]
            got.append({p: (await rt.write_file(p, "x\n")).ok for p in targets})
    assert got[0] == got[1]
