"""Omission notes name what was really counted (issue 16).

glob counts *matches* (omitted paths do match the pattern); list_directory counts
*entries*; code_search counts *files not searched* — it never claims "matches" for files it
did not open, whatever they hold. Every renderer, the CLI text and the structured data
(``unit``, in the published schema) agree; opaque files are never counted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgate import Runtime
from pathgate.cli import main
from pathgate.renderers._discovery import discovery_output_schema
from pathgate.results import SearchResult

pytestmark = pytest.mark.anyio

RENDERERS = ("sentinel", "verbose", "structured")


def make_tree(root: Path, *, with_secret: bool = True) -> Path:
    files = {
        ".gitignore": "build/\n",
        "src/app.py": "needle = 1\n",
        "build/out.js": "nothing to see\n",  # ignored, and does NOT contain the pattern
        "build/gen.js": "nothing here either\n",
    }
    if with_secret:
        files["build/.env"] = "needle=hunter2\n"
        files[".env"] = "needle=hunter2\n"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _notes(out: dict[str, Any]) -> list[str]:
    return [str(n) for n in out["notes"]]


@pytest.mark.parametrize("renderer", RENDERERS)
async def test_search_counts_files_not_searched_never_matches(tmp_path: Path, renderer: str) -> None:
    rt = Runtime(make_tree(tmp_path))
    out = await rt.call("code_search", {"regex": "needle"}, renderer=renderer)
    notes = _notes(out)
    assert "2 files not searched: excluded by ignore rules, e.g. build/gen.js, build/out.js" in notes
    assert not any("match" in n for n in notes), notes
    assert "hunter2" not in json.dumps(out) and ".env" not in json.dumps(out)


async def test_structured_search_says_the_unit(tmp_path: Path) -> None:
    rt = Runtime(make_tree(tmp_path))
    out = await rt.call("code_search", {"regex": "needle"}, renderer="structured")
    assert out["omitted"] == [{"gate": "ignore", "count": 2, "examples": ["build/gen.js", "build/out.js"],
                               "lower_bound": False, "fail_closed": False, "unit": "files"}]
    raw = await rt.code_search("needle")
    assert [(o.unit, o.count) for o in raw.omitted] == [("files", 2)]


async def test_glob_and_list_keep_their_units(tmp_path: Path) -> None:
    rt = Runtime(make_tree(tmp_path))
    glob = await rt.call("glob", {"pattern": "**/*.js"}, renderer="verbose")
    assert "2 matches omitted by ignore rules, e.g. build/gen.js, build/out.js" in _notes(glob)
    listing = await rt.call("list_directory", {"path": "."}, renderer="verbose")
    assert "1 entry hidden by ignore rules, e.g. build/" in _notes(listing)
    assert [o.unit for o in (await rt.glob("**/*.js")).omitted] == ["matches"]
    assert [o.unit for o in (await rt.list_directory(".")).omitted] == ["entries"]


async def test_secrets_do_not_change_the_file_count(tmp_path: Path) -> None:
    """Counts are computed as if opaque files did not exist (the ignored build/.env too)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_secret = await Runtime(make_tree(tmp_path / "a")).call("code_search", {"regex": "needle"})
    without = await Runtime(make_tree(tmp_path / "b", with_secret=False)).call("code_search", {"regex": "needle"})
    assert with_secret == without


def test_schema_names_the_unit() -> None:
    schema = discovery_output_schema(SearchResult)
    unit = schema["$defs"]["Omission"]["properties"]["unit"]
    assert sorted(unit["enum"]) == ["entries", "files", "matches"]
    assert "files not searched" in unit["description"]


def test_cli_search_notes_say_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_tree(tmp_path)
    code = main(["search", "--root", str(root), "needle"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out.splitlines() == ["src/app.py:1:needle = 1"]
    assert "2 files not searched: excluded by ignore rules" in captured.err
    assert "matches omitted" not in captured.err and ".env" not in captured.out + captured.err
