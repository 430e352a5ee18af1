"""Hard-link aliases of a secret are secrets in discovery too (SPEC §2): ``glob``,
``list_directory`` and ``code_search`` neither list nor count them, with or without the live
index, in kept and in ignored directories; as a walk start an alias is a bare ``[BLOCKED]``."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.tools._discover import Discovery
from tests.hardening._twotrees import RENDERERS, Call, Spec, build

BASE: dict[str, str | tuple[str, str]] = {
    ".env": "TOKEN=MARKER1\n",
    ".gitignore": "build/\n*.log\n",
    "src/app.py": "print('MARKER app')\n",
    "build/out.js": "MARKER build\n",
    "notes.log": "MARKER log\n",
    "b.txt": "MARKER b\n",
    "c.txt": ("hardlink", "b.txt"),  # multi-linked, no secret's alias: listed as usual
    # enough files per directory that later walks validate the registry first instead of
    # stating every file (both ways run: the first walk of a runtime stats)
    **{f"many/f{i:02}.txt": f"MARKER {i}\n" for i in range(30)},
}

#: where the alias goes: a kept directory, an ignored directory (counted), an ignored name
ALIASES: dict[str, Spec] = {
    "kept": {"settings.txt": ("hardlink", ".env"), "src/cfg.py": ("hardlink", ".env")},
    "ignored-dir": {"build/settings.js": ("hardlink", ".env")},
    "ignored-name": {"alias.log": ("hardlink", ".env")},
}

CALLS: list[Call] = [
    ("glob", {"pattern": "**"}),
    ("glob", {"pattern": "**/*.js"}),
    ("glob", {"pattern": "**", "path": "src"}),
    ("list_directory", {"path": "."}),
    ("list_directory", {"path": "src"}),
    ("list_directory", {"path": "build"}),
    ("code_search", {"regex": "MARKER"}),
    ("code_search", {"regex": "MARKER", "path": "src"}),
]


async def _render(root: Path, calls: list[Call], policy: Policy, live: bool) -> list[str]:
    rt = Runtime(root, policy, live_index=live)
    outs: list[str] = []
    try:
        for renderer in RENDERERS:
            for tool, args in calls:
                out: Any = await rt.call(tool, args, renderer=renderer)
                outs.append(json.dumps(out, sort_keys=True, default=str))
    finally:
        await rt.aclose()
    return outs


def _compare(tmp: Path, extra: Spec, policy: Policy, live: bool) -> None:
    build(tmp / "with", {**BASE, **extra})
    build(tmp / "without", dict(BASE))

    async def main() -> tuple[list[str], list[str]]:
        return (await _render(tmp / "with", CALLS, policy, live),
                await _render(tmp / "without", CALLS, policy, live))

    a, b = anyio.run(main)
    for x, y, call in zip(a, b, CALLS * len(RENDERERS), strict=True):
        assert x == y, (call, x, y)
    assert any("c.txt" in x for x in a)  # a harmless multi-linked file still shows
    assert any("MARKER app" in x for x in a)  # the searches ran
    assert any("build" in x and "omitted" in x for x in a)  # ignored-dir counts were made


@pytest.mark.parametrize("live", [False, True], ids=["walk", "live"])
@pytest.mark.parametrize("where", sorted(ALIASES))
def test_alias_is_neither_listed_nor_counted(tmp_path: Path, where: str, live: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    validated: list[bool] = []
    real = Discovery._armed_check

    def spy(self: Discovery) -> Any:
        check = real(self)
        validated.append(check is not None)
        return check

    monkeypatch.setattr(Discovery, "_armed_check", spy)
    _compare(tmp_path, ALIASES[where], Policy(), live)
    if not live:  # both ways ran: stat every file (first walks), validate first (later ones)
        assert True in validated and False in validated, validated


def test_strict_hard_links_hides_every_multi_linked_file(tmp_path: Path) -> None:
    """``strict_hard_links``: a multi-linked file is a secret whatever links to it."""
    base = {k: v for k, v in BASE.items() if k != "c.txt"}
    build(tmp_path / "with", {**base, "c.txt": ("hardlink", "b.txt"), "d.txt": "MARKER d\n",
                              "build/e.js": ("hardlink", "d.txt")})
    build(tmp_path / "without", {**base, "d.txt": "MARKER d\n"})
    os.unlink(tmp_path / "without" / "b.txt")  # b.txt is multi-linked too in "with"
    os.unlink(tmp_path / "without" / "d.txt")
    policy = Policy(strict_hard_links=True)

    async def main() -> tuple[list[str], list[str]]:
        return (await _render(tmp_path / "with", CALLS, policy, False),
                await _render(tmp_path / "without", CALLS, policy, False))

    a, b = anyio.run(main)
    for x, y, call in zip(a, b, CALLS * len(RENDERERS), strict=True):
        assert x == y, (call, x, y)


@pytest.mark.parametrize("live", [False, True], ids=["walk", "live"])
def test_alias_as_walk_start_is_a_bare_block(tmp_path: Path, live: bool) -> None:
    build(tmp_path, {**BASE, "settings.txt": ("hardlink", ".env")})

    async def main() -> None:
        rt = Runtime(tmp_path, live_index=live)
        try:
            for renderer in RENDERERS:
                for tool, key in (("list_directory", "path"), ("glob", "path")):
                    args: dict[str, Any] = {key: "settings.txt"}
                    secret: dict[str, Any] = {key: ".env"}
                    if tool == "glob":
                        args["pattern"] = secret["pattern"] = "*"
                    alias = json.dumps(await rt.call(tool, args, renderer=renderer), sort_keys=True)
                    env = json.dumps(await rt.call(tool, secret, renderer=renderer), sort_keys=True)
                    assert "NOT_A_FILE" not in alias and "file" not in alias.lower().replace("files", "")
                    assert alias == env.replace(".env", "settings.txt"), (alias, env)
        finally:
            await rt.aclose()

    anyio.run(main)


def test_live_index_notices_a_new_link_to_an_indexed_file(tmp_path: Path) -> None:
    """``settings.txt`` indexed with one link; then ``.env`` is made a hard link of it in
    another directory: IN_ATTRIB re-lists ``sub/`` and the alias disappears."""
    build(tmp_path, {"sub/settings.txt": "TOKEN=MARKER\n", "a.txt": "MARKER a\n"})

    async def main() -> None:
        rt = Runtime(tmp_path, live_index=True)
        try:
            before = await rt.call("glob", {"pattern": "**"}, renderer="structured")
            assert "sub/settings.txt" in json.dumps(before)
            os.link(tmp_path / "sub" / "settings.txt", tmp_path / ".env")
            after = await rt.call("glob", {"pattern": "**"}, renderer="structured")
            assert "settings.txt" not in json.dumps(after)
            searched = await rt.call("code_search", {"regex": "MARKER"}, renderer="verbose")
            assert "settings" not in json.dumps(searched) and "MARKER a" in json.dumps(searched)
        finally:
            await rt.aclose()

    anyio.run(main)
