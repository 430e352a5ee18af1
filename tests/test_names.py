"""Non-UTF-8 (and otherwise unprintable) file names: one reversible, JSON-safe spelling.

The break: one name like ``docs/r\\xe9sum\\xe9.txt`` in a glob/list/search result made the
MCP call fail and ``pathgate glob --json`` exit 2 (surrogate-escaped ``str`` cannot be encoded).
Here real non-UTF-8 names on disk go through every tool, every renderer and the CLI; the
spelled names are copied back as arguments and must name the same files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pathgate import Runtime
from pathgate._names import needs_quoting, spell_path, unspell_path
from pathgate.cli import main

RENDERERS = ["sentinel", "verbose", "structured"]
RESUME = b"docs/r\xe9sum\xe9.txt"
SPELLED = '"docs/r\\351sum\\351.txt"'


@given(st.binary(min_size=1, max_size=40))
def test_every_os_name_round_trips_and_is_json_safe(raw: bytes) -> None:
    name = os.fsdecode(raw)
    spelled = spell_path(name)
    assert unspell_path(spelled) == name
    assert os.fsencode(unspell_path(spelled)) == raw
    spelled.encode("utf-8")  # no surrogates left
    assert "\n" not in spelled and "\x00" not in spelled


@given(st.text(min_size=1, max_size=30).filter(lambda s: not needs_quoting(s)))
def test_plain_names_are_unchanged(name: str) -> None:
    assert spell_path(name) == name
    assert unspell_path(name) == name or name.startswith('"')


def test_examples() -> None:
    assert spell_path(os.fsdecode(RESUME)) == SPELLED
    assert spell_path("résumé.txt") == "résumé.txt"  # valid UTF-8 stays as it is
    assert spell_path("a\nb") == '"a\\nb"'
    assert spell_path('"quoted"') == '"\\"quoted\\""'
    assert spell_path("back\\slash") == "back\\slash"
    assert unspell_path('docs/"r\\351sum\\351.txt"') == os.fsdecode(RESUME)  # a listed name joined
    assert unspell_path('"bad\\q"') == '"bad\\q"'  # malformed: literal


def test_decoding_smuggles_nothing_past_the_gates(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / ".env").write_text("TOKEN=hunter2\n")
    (tmp_path / "outside.txt").write_text("outside\n")
    rt = Runtime(root)

    async def go() -> Any:
        return await rt.call("read_files", {"paths": [
            '"\\056env"', '".\\145nv"', '"\\056\\056/outside.txt"', '"a\\057..\\057..\\057outside.txt"',
            '"a\\000b"', 'x/"\\056\\056"/"\\056\\056"/outside.txt',
        ]}, renderer="verbose")

    out = anyio.run(go)
    assert out[".env"] == "[BLOCKED]"
    texts = list(out.values())
    assert all("hunter2" not in t and "outside\n" != t for t in texts)
    assert sum(t.startswith("[FILE_OUTSIDE_PROJECT]") for t in texts) >= 3


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    os.makedirs(os.fsencode(root) + b"/docs/d\xff")
    for rel in (RESUME, b"docs/d\xff/x.txt", b"docs/plain.txt", b"ign\xe9.log", b"docs/new\nline.txt"):
        with open(os.fsencode(root) + b"/" + rel, "wb") as fh:
            fh.write(b"needle " + rel.decode("latin-1").encode("ascii", "replace").replace(b"\n", b"_") + b"\n")
    (root / ".gitignore").write_bytes(b"*.log\n")
    return root


def _call(rt: Runtime, tool: str, args: dict[str, Any], renderer: str) -> Any:
    async def go() -> Any:
        return await rt.call(tool, args, renderer=renderer)

    return anyio.run(go)


def _paths(out: dict[str, Any], key: str) -> list[str]:
    items = out[key]
    if items and isinstance(items[0], dict):
        return [i.get("path") or i.get("name") for i in items]
    if key == "hits":
        return [line.rsplit(":", 2)[0] for line in items]
    return [i.rstrip("/@") for i in items]


@pytest.mark.parametrize("renderer", RENDERERS)
def test_every_tool_and_renderer_spells_names(project: Path, renderer: str) -> None:
    rt = Runtime(project)
    globbed = _call(rt, "glob", {"pattern": "**"}, renderer)
    listed = _call(rt, "list_directory", {"path": "docs"}, renderer)
    searched = _call(rt, "code_search", {"regex": "needle"}, renderer)
    for out in (globbed, listed, searched):
        msgspec.json.encode(out)  # JSON-safe: this raised before
        json.dumps(out, ensure_ascii=False).encode("utf-8")
    matches = _paths(globbed, "matches")
    assert SPELLED in matches and '"docs/d\\377/x.txt"' in matches and '"docs/new\\nline.txt"' in matches
    assert "docs/plain.txt" in matches
    notes = " ".join(globbed.get("notes", ()))
    assert '"ign\\351.log"' in notes or renderer == "structured"
    assert {'"r\\351sum\\351.txt"', '"d\\377"', "plain.txt"} <= set(_paths(listed, "entries"))
    assert SPELLED in _paths(searched, "hits")
    # copied back: every spelled match names its file
    read = _call(rt, "read_files", {"paths": [m for m in matches if m != ".gitignore"]}, renderer)
    contents = ([f["content"] for f in read["files"]] if renderer == "structured" else list(read.values()))
    assert all(c.startswith("needle ") for c in contents), contents
    assert _call(rt, "list_directory", {"path": '"docs/d\\377"'}, renderer)
    joined = _call(rt, "read_files", {"paths": ['docs/"r\\351sum\\351.txt"']}, "sentinel")
    assert next(iter(joined.values())) == "needle docs/r?sum?.txt\n"


def test_cli_json_and_plain(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["glob", "**", "--json"], ["glob", "**"], ["ls", "docs", "--json"],
                 ["search", "needle", "--json"], ["search", "needle"], ["read", SPELLED, "--json"],
                 ["explain", SPELLED, "--json"]):
        code = main([*argv, "--root", str(project)])
        out, err = capsys.readouterr()
        assert code in (0, 1), (argv, err)
        assert "error" not in err, err
        text = _strings(json.loads(out)) if "--json" in argv else out
        assert "r\\351sum\\351.txt" in text, (argv, out)


def _strings(data: Any) -> str:
    if isinstance(data, dict):
        return " ".join(_strings(k) + " " + _strings(v) for k, v in data.items())
    if isinstance(data, list):
        return " ".join(_strings(v) for v in data)
    return str(data)
