"""A search cut by its cap counts the files it did not open: a secret's hard link among them
is not a file searched (the same count as on a tree where that name does not exist), and a
tree with no multi-linked file never has the project's hard-link registry validated for it
(one ``lstat`` per project directory: it was paid by every capped search)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime import _links
from pathgate.runtime.tools import code_search

pytestmark = pytest.mark.anyio


def _tree(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("needle TOKEN=hunter2\n")
    for i in range(40):  # more bytes than one scan region: the cap stops before the last files
        (root / "src" / f"f{i:02}.txt").write_text("needle\n" + "padding line\n" * 2000)


async def _search(root: Path, rt: Runtime | None = None) -> tuple[object, ...]:
    rt = rt or Runtime(root, policy=Policy(enforce_secrets=True))
    res = await rt.code_search("needle", "src", max_results=1)
    return res.hits, res.files_searched, res.truncated, res.files_not_searched


@pytest.mark.parametrize("hop", [code_search.ALIAS_HOP, 3])
async def test_secret_hard_link_left_unopened_is_not_counted(anyio_backend: str, tmp_path: Path, hop: int,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """(``hop`` 3: the files left are looked at in many hops.)"""
    monkeypatch.setattr(code_search, "ALIAS_HOP", hop)
    linked, plain = tmp_path / "linked", tmp_path / "plain"
    for root in (linked, plain):
        _tree(root)
    os.link(linked / ".env", linked / "src" / "zz_notes.txt")  # after the cap, never opened
    os.link(linked / ".env", linked / "src" / "f33_b.txt")
    a, b = await _search(linked), await _search(plain)
    assert a == b
    assert a[1] == 40 and a[2] is True


async def test_capped_search_without_multi_linked_files_leaves_the_registry_alone(
        anyio_backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "p"
    _tree(root)
    asked: list[str] = []
    real = _links.SecretInodes.current

    def current(self: _links.SecretInodes) -> object:
        asked.append(self.root)
        return real(self)

    monkeypatch.setattr(_links.SecretInodes, "current", current)
    hits, searched, truncated, _ = await _search(root)
    assert truncated is True and searched == 40 and len(hits) == 1  # type: ignore[arg-type]
    assert asked == []
    os.link(root / "src" / "f39.txt", root / "src" / "f40.txt")  # now one file left is multi-linked
    assert (await _search(root))[1] == 41
    assert asked != []


async def test_known_small_registry_is_validated_first(anyio_backend: str, tmp_path: Path) -> None:
    """Once the registry has a snapshot of few directories (here 2 against ~39 files left),
    it is validated first; the counts stay those of the tree without the link, and a secret
    linked later is seen."""
    linked, plain = tmp_path / "linked", tmp_path / "plain"
    for root in (linked, plain):
        _tree(root)
    os.link(linked / ".env", linked / "src" / "zz_notes.txt")
    rt = Runtime(linked, policy=Policy(enforce_secrets=True))
    want = await _search(plain)
    for _ in range(2):
        assert await _search(linked, rt) == want
    (linked / "src" / "zz_notes.txt").unlink()
    (plain / "src" / "zz_other.txt").write_text("other\n")
    (linked / "src" / "zz_other.txt").write_text("other\n")
    assert await _search(linked, rt) == await _search(plain)
    os.link(linked / ".env", linked / "src" / "zz_late.txt")
    assert await _search(linked, rt) == await _search(plain)
