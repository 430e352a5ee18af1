"""glob, list_directory and code_search: what is listed, what is omitted and counted, and
that opaque paths (secrets, host-filtered) are never mentioned in any rendered output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pathgate import Gate, Policy, Runtime
from pathgate.runtime.tools import _discover
from pathgate.runtime.tools import code_search as code_search_mod

pytestmark = pytest.mark.anyio

SECRET_CONTENT = "SUPERSECRET_TOKEN_42"
FILTERED_CONTENT = "HOST_HIDDEN_MARKER"


def make_tree(root: Path) -> Path:
    files: dict[str, str] = {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/app.py": "def main():\n    return 'needle'\n",
        "src/util.py": "x = 1\n",
        "src/notes.log": "needle in a log\n",
        "keep.log": "needle kept\n",
        "build/out.js": "needle built\n",
        "build/sub/deep.js": "needle deep\n",
        ".env": f"TOKEN={SECRET_CONTENT}\n",
        "config/.env.production": f"TOKEN={SECRET_CONTENT}\n",
        ".env.example": "TOKEN=<token>\n",
        "private/hidden.txt": f"{FILTERED_CONTENT} needle\n",
        "docs/readme.md": "# docs\n",
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (root / "innocent.txt").symlink_to(".env")
    return root


def host_filter(relpath: str) -> bool:
    return relpath != "private" and not relpath.startswith("private/")


@pytest.fixture
def rt(tmp_path: Path) -> Runtime:
    return Runtime(make_tree(tmp_path / "p"), policy=Policy(host_filter=host_filter))


def assert_no_opaque(rendered: Any) -> None:
    if isinstance(rendered, dict):
        rendered = {k: v for k, v in rendered.items() if k not in ("regex", "pattern")}  # echoed args
    text = json.dumps(rendered)
    for leak in (SECRET_CONTENT, FILTERED_CONTENT, ".env\"", ".env.production", "innocent.txt",
                 "private", "hidden.txt", "secrets", "host_filter"):
        assert leak not in text, (leak, text)


async def test_glob_lists_kept_and_counts_ignored(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.glob("**/*.js")
    assert result.matches == ()
    (om,) = result.omitted
    assert om.gate is Gate.IGNORE and om.count == 2
    assert set(om.examples) == {"build/out.js", "build/sub/deep.js"}
    assert [u.path for u in result.unsearched] == ["build"]
    assert result.unsearched[0].rule is not None
    assert result.unsearched[0].rule.location() == ".gitignore:1:build/"


async def test_glob_everything_never_lists_or_counts_opaque(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.glob("**")
    assert set(result.matches) == {".gitignore", "src/app.py", "src/util.py", "keep.log", ".env.example",
                                   "docs/readme.md"}
    counted = {om.gate: om.count for om in result.omitted}
    # build/out.js, build/sub/deep.js, src/notes.log: nothing else (no secret, no filtered file)
    assert counted == {Gate.IGNORE: 3}
    for renderer in ("sentinel", "verbose", "structured"):
        assert_no_opaque(await rt.call("glob", {"pattern": "**"}, renderer=renderer))


async def test_glob_relative_to_path_and_limit(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.glob("*.py", path="src")
    assert result.matches == ("src/app.py", "src/util.py")
    limited = await rt.glob("**", limit=2)
    assert len(limited.matches) == 2 and limited.truncated and limited.total == 6
    rendered = await rt.call("glob", {"pattern": "**", "limit": 2})
    assert any("showing 2 of 6" in n for n in rendered["notes"])
    assert len((await rt.glob("**", limit=0)).matches) == 6


async def test_glob_count_inside_excluded_dir_is_bounded(
    anyio_backend: str, rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_discover, "COUNT_BUDGET", 1)
    result = await rt.glob("**/*.js")
    (om,) = result.omitted
    assert om.lower_bound and om.count < 2
    rendered = await rt.call("glob", {"pattern": "**/*.js"})
    assert any(n.startswith("at least") for n in rendered["notes"])


async def test_glob_excluded_dir_named_only_when_it_could_hold_matches(anyio_backend: str, rt: Runtime) -> None:
    assert (await rt.glob("src/*.py")).unsearched == ()
    assert [u.path for u in (await rt.glob("**/*.py")).unsearched] == ["build"]


async def test_search_only_in_secret_gives_nothing(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.code_search(SECRET_CONTENT)
    assert result.hits == ()
    assert all(om.gate is Gate.IGNORE for om in result.omitted)
    for renderer in ("sentinel", "verbose", "structured"):
        assert_no_opaque(await rt.call("code_search", {"regex": SECRET_CONTENT}, renderer=renderer))
    filtered = await rt.code_search(FILTERED_CONTENT)
    assert filtered.hits == ()


async def test_search_hits_and_omissions(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.code_search("needle")
    assert [(h.path, h.line) for h in result.hits] == [("keep.log", 1), ("src/app.py", 2)]
    counted = {om.gate: om.count for om in result.omitted}
    assert counted == {Gate.IGNORE: 3}
    rendered = await rt.call("code_search", {"regex": "needle", "glob": "**/*.py"})
    assert rendered["hits"] == ["src/app.py:2:    return 'needle'"]
    ctx = await rt.call("code_search", {"regex": "needle", "glob": "src/*.py", "context": 1})
    assert ctx["hits"] == ["src/app.py-1-def main():", "src/app.py:2:    return 'needle'"]


async def test_search_skips_binary_and_large(anyio_backend: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "q"
    root.mkdir()
    (root / "bin.dat").write_bytes(b"needle\x00\x01")
    (root / "big.txt").write_text("needle\n" * 100)
    (root / "ok.txt").write_text("needle\n")
    rt = Runtime(root, policy=Policy(size_limit=100))
    # over the read limit, under the search cap: searched
    result = await rt.code_search("needle")
    assert [h.path for h in result.hits] == ["big.txt"] * 100 + ["ok.txt"]
    assert (result.skipped_binary, result.skipped_too_large) == (1, 0)
    # over the search cap (here: the read limit): skipped and counted
    monkeypatch.setattr(code_search_mod, "SEARCH_SIZE_LIMIT", 0)
    result = await rt.code_search("needle")
    assert [h.path for h in result.hits] == ["ok.txt"]
    assert (result.skipped_binary, result.skipped_too_large) == (1, 1)


async def test_search_bad_regex_is_a_clear_error(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.call("code_search", {"regex": "(unclosed"})
    assert result["error_type"] == "invalid_arguments" and result["field"] == "regex"
    assert "regular expression" in result["error"]


async def test_list_directory(anyio_backend: str, rt: Runtime) -> None:
    result = await rt.list_directory(".")
    names = {(e.name, e.kind) for e in result.entries}
    assert names == {(".gitignore", "file"), ("src", "dir"), ("keep.log", "file"), (".env.example", "file"),
                     ("docs", "dir"), ("config", "dir")}
    (om,) = result.omitted
    assert om.gate is Gate.IGNORE and om.examples == ("build/",)
    for renderer in ("sentinel", "verbose", "structured"):
        assert_no_opaque(await rt.call("list_directory", {"path": "."}, renderer=renderer))
    assert (await rt.list_directory("config")).entries == ()
    assert (await rt.list_directory("config")).omitted == ()


async def test_blocked_start_directory_is_a_verdict(anyio_backend: str, rt: Runtime) -> None:
    outside = await rt.glob("*", path="../..")
    assert outside.verdict is not None and outside.verdict.gate is Gate.PATH
    ignored = await rt.call("list_directory", {"path": "build"})
    assert ignored["notes"][0].startswith("[BLOCKED]: ")
    filtered = await rt.call("glob", {"pattern": "*", "path": "private"}, renderer="verbose")
    assert filtered["notes"] == ["[BLOCKED]"]
    missing = await rt.list_directory("nope")
    assert missing.verdict is not None and missing.verdict.status.value == "[FILE_DOES_NOT_EXIST]"


async def test_symlinks_judged_by_target(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("outside needle\n")
    (root / "a.txt").write_text("a\n")
    (root / "out").symlink_to(outside)
    (root / "alias").symlink_to("a.txt")
    rt = Runtime(root, policy=Policy())
    result = await rt.glob("*")
    assert set(result.matches) == {"a.txt", "alias"}
    assert {(om.gate, om.count) for om in result.omitted} == {(Gate.PATH, 1)}
    search = await rt.code_search("needle")
    assert search.hits == ()


@pytest.mark.parametrize("enforce_secrets", [True, False])
async def test_inline_judging_equals_the_gate_pipeline(
    anyio_backend: str, tmp_path: Path, enforce_secrets: bool
) -> None:
    """The discovery fast path gives exactly the verdicts of GatePipeline.check_entries."""
    from pathgate.runtime._walk import walk

    root = make_tree(tmp_path / "p")
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n*.pem\nsecrets.env/\n")
    for rel in ("k/id_rsa", "k/x.pem", ".env.local", "secrets.env/a.txt", "build/.env", "vendor/.npmrc"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    rt = Runtime(root, policy=Policy(enforce_secrets=enforce_secrets))
    d = _discover.Discovery(rt)
    assert d._inline
    entries = [e for e in walk(d.session) if e.kind != "symlink"]
    assert len(entries) > 15
    fast = await d.judge(entries)
    d._inline = False
    slow = await d.judge(entries)
    assert fast == slow
    assert any(v is not None and v.opaque for v in fast)  # x.pem: secret and ignored: opaque either way


async def test_fail_closed_omissions_are_hedged(anyio_backend: str, tmp_path: Path) -> None:
    from pathgate.runtime.fs import OsFS

    root = make_tree(tmp_path / "p")
    (root / "src" / ".gitignore").write_text("*.tmp\n")
    unreadable = str(root / "src" / ".gitignore")

    class Unreadable(OsFS):
        def read_bytes(self, path: str) -> bytes:
            if path == unreadable:
                raise PermissionError(13, "Permission denied", path)
            return super().read_bytes(path)

    rt = Runtime(root, policy=Policy(), fs=Unreadable())
    result = await rt.glob("**/*.py")
    fail_closed = [om for om in result.omitted if om.fail_closed]
    assert len(fail_closed) == 1 and fail_closed[0].count == 2
    notes = (await rt.call("glob", {"pattern": "**/*.py"}))["notes"]
    hedged = [n for n in notes if "src/app.py" in n]
    assert hedged and "ignore-rule checking" in hedged[0] and "ignore rules," not in hedged[0]
