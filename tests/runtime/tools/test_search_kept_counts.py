"""code_search on a plain runtime keeps its count inside excluded directories and reuses it
only while every listed directory and every counted file is unchanged: each result equals
a fresh runtime's on the same tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.results import SearchResult
from pathgate.runtime.tools import _excluded

pytestmark = pytest.mark.anyio


def _tree(root: Path) -> None:
    root.mkdir()
    (root / ".gitignore").write_text("node_modules/\nbuild/\n")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("needle\n")
    for top in ("node_modules", "src/build"):
        for sub in ("x", "x/y", "z"):
            d = root / top / sub
            d.mkdir(parents=True, exist_ok=True)
            (d / "f.js").write_text("needle\n")
            (d / "g.js").write_text("other\n")


def _seen(res: SearchResult) -> tuple[object, ...]:
    return (res.hits, res.files_searched, res.omitted, res.unsearched, res.skipped_binary,
            res.skipped_too_large, res.skipped_unreadable, res.walk_stopped_early)


async def _fresh(root: Path, **kw: object) -> SearchResult:
    return await Runtime(root, policy=Policy(enforce_secrets=True)).code_search("needle", **kw)  # type: ignore[arg-type]


def _reused(rt: Runtime) -> int:
    kept = _excluded._PLAIN.get(rt)
    return 0 if kept is None else kept.reused


@pytest.fixture
def no_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Directories made by the test are seconds old at most: trust them at once."""
    monkeypatch.setattr(_excluded, "RACY_NS", -10**12)


async def test_kept_count_reused_and_invalidated(anyio_backend: str, tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "p"
    _tree(root)
    rt = Runtime(root, policy=Policy(enforce_secrets=True))
    first = await rt.code_search("needle")
    assert first.omitted and first.omitted[0].count == 12
    assert _seen(first) == _seen(await _fresh(root))
    again = await rt.code_search("needle")
    assert _reused(rt) == 1
    assert _seen(again) == _seen(first)
    # a glob is another key: counted afresh, then kept too
    globbed = await rt.code_search("needle", glob="**/f.js")
    assert _reused(rt) == 1
    assert _seen(globbed) == _seen(await _fresh(root, glob="**/f.js"))
    assert _seen(await rt.code_search("needle", glob="**/f.js")) == _seen(globbed)
    assert _reused(rt) == 2
    # a new file deep inside: its directory's signature moved
    (root / "node_modules" / "x" / "y" / "new.js").write_text("x\n")
    changed = await rt.code_search("needle")
    assert _reused(rt) == 2
    assert changed.omitted[0].count == 13
    assert _seen(changed) == _seen(await _fresh(root))
    # a removed directory, a renamed one
    for f in (root / "src" / "build" / "z").iterdir():
        f.unlink()
    (root / "src" / "build" / "z").rmdir()
    (root / "node_modules" / "x").rename(root / "node_modules" / "w")
    assert _seen(await rt.code_search("needle")) == _seen(await _fresh(root))
    assert _reused(rt) == 2
    assert _seen(await rt.code_search("needle")) == _seen(await _fresh(root))
    assert _reused(rt) == 3


async def test_hard_link_to_a_secret_is_never_counted(anyio_backend: str, tmp_path: Path, no_racy: None) -> None:
    """A counted file that becomes a secret's hard link (its directory unchanged) drops out
    of the count, exactly as a fresh runtime counts it."""
    root = tmp_path / "p"
    _tree(root)
    rt = Runtime(root, policy=Policy(enforce_secrets=True))
    await rt.code_search("needle")
    await rt.code_search("needle")
    assert _reused(rt) == 1
    os.link(root / "node_modules" / "z" / "g.js", root / "src" / ".env")
    linked = await rt.code_search("needle")
    fresh = await _fresh(root)
    assert _seen(linked) == _seen(fresh)
    assert linked.omitted[0].count == 11
    assert _reused(rt) == 1
    # a count that met a multi-linked file is not kept: a rename can make its other link
    # a secret without touching the counted directories
    (root / "src" / ".env").rename(root / "src" / "plain.txt")
    for _ in range(2):
        assert _seen(await rt.code_search("needle")) == _seen(await _fresh(root))
    assert _reused(rt) == 1
    (root / "src" / "plain.txt").rename(root / "src" / ".env")
    assert _seen(await rt.code_search("needle")) == _seen(await _fresh(root))
    assert (await rt.code_search("needle")).omitted[0].count == 11


async def test_same_result_with_and_without_a_secret_inside(anyio_backend: str, tmp_path: Path,
                                                            no_racy: None) -> None:
    """Kept or not, a secret inside an excluded directory changes nothing the model sees."""
    plain, secret = tmp_path / "a", tmp_path / "b"
    _tree(plain)
    _tree(secret)
    (secret / "node_modules" / "x" / ".env").write_text("needle\n")
    (secret / "node_modules" / "z" / "id_rsa").write_text("needle\n")
    rts = [Runtime(r, policy=Policy(enforce_secrets=True)) for r in (plain, secret)]
    for _ in range(3):
        a, b = [await rt.code_search("needle") for rt in rts]
        assert _seen(a) == _seen(b)
    assert [_reused(rt) for rt in rts] == [2, 2]


async def test_recent_directories_are_not_kept(anyio_backend: str, tmp_path: Path) -> None:
    root = tmp_path / "p"
    _tree(root)
    rt = Runtime(root, policy=Policy(enforce_secrets=True))
    for _ in range(2):
        assert _seen(await rt.code_search("needle")) == _seen(await _fresh(root))
    assert _reused(rt) == 0
