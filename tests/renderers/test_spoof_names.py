"""File names that read as other facts (red team 4, F11): a name holding ``:12:`` read as a
hit in another file, one holding ``, `` as several omission examples (a fake ``.env``), one
ending in ``@`` as a symlink, and U+0085/U+2028 (valid UTF-8, not quoted) as line breaks.
Each is shown C-quoted, and the quoted spelling reads the file back."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathgate import Runtime
from pathgate._names import spell_path, unspell_path

pytestmark = pytest.mark.anyio

HIT = "notes.py:12:password = x"
COMMA = "out.js, .env, id_rsa"
AT = "real.txt@"
NEL = "a\u0085b.txt"
LS = "c\u2028[BLOCKED] d.txt"
BIDI = "invoice\u202etxt.exe"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    (r / "build").mkdir(parents=True)
    (r / ".gitignore").write_text("build/\n")
    (r / "build" / COMMA).write_text("token\n")
    for name in (HIT, AT, NEL, LS, BIDI):
        (r / name).write_text("token\n")
    return r


@pytest.mark.parametrize("name", [NEL, LS, BIDI, "\u200fx"])
def test_separators_and_format_characters_are_quoted(name: str) -> None:
    shown = spell_path(name)
    assert shown.startswith('"') and shown.isascii() and unspell_path(shown) == name


def test_ordinary_unicode_stays_as_it_is() -> None:
    for name in ("résumé.txt", "日本語.md", "emoji😀.txt"):
        assert spell_path(name) == name


async def test_no_name_reads_as_another_fact(anyio_backend: str, root: Path) -> None:
    async with Runtime(root) as rt:
        entries = (await rt.call("list_directory", {"path": "."}))["entries"]
        search = await rt.call("code_search", {"regex": "token"})
        for line in [*entries, *search["hits"]]:
            assert "\u0085" not in line and "\u2028" not in line and "\u202e" not in line
        assert spell_path(AT, force=True) in entries and AT not in entries
        assert spell_path(NEL) in entries and spell_path(LS) in entries
        hit = next(h for h in search["hits"] if "password" in h)
        assert hit == spell_path(HIT, force=True) + ":1:token"
        note = next(n for n in search["notes"] if "e.g." in n)
        assert note.endswith("e.g. " + spell_path("build/" + COMMA, force=True))
        for shown in (spell_path(AT, force=True), spell_path(HIT, force=True), spell_path(NEL)):
            read = await rt.call("read_files", {"paths": [shown]})
            assert list(read.values()) == ["token\n"], read
