"""Red team 21 M2: a remedy must not show what an ignore source the host filter hides holds.

A hidden source's own decisions are the filter's bare ``[BLOCKED]`` (j8), but a path a
*visible* rule decides gets a remedy, and the remedy was verified against the whole rule
chain -- hidden sources included -- and bounded by the chain's rule count: a hidden line
``x.txt`` in ``sub/.gitignore`` moved the lines offered for ``sub/d/x.txt`` from
``.pathgateignore`` to ``sub/.pathgateignore``, and a hidden file of 10,001 lines removed
them. Now a remedy is shown only when the filter hides no place an ignore source of the
path's chain can be (names alone). The oracle: trees whose hidden source differs only in
content (absent, empty, one line, lines that match or negate the asked path, 10,001 lines)
answer every tool, renderer and filter kind byte for byte the same; and a path with no
hidden place in its chain keeps the remedy it had without any filter.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime
from pathgate.runtime._remedy import MAX_REMEDY_RULES, remedy_chain

pytestmark = pytest.mark.anyio

RENDERERS = ("sentinel", "verbose", "structured")

_FILES = {
    ".gitignore": "sub/d/\n*.log\n",
    "sub/d/x.txt": "alpha x\n",
    "sub/d/y.txt": "alpha y\n",
    "sub/a.txt": "alpha a\n",
    "sub/b.log": "alpha b\n",
    "sub/e/f.txt": "alpha f\n",
    "top.log": "alpha top\n",
    "private/plan.md": "alpha plan\n",
}

#: The hidden source's content in each tree (``None``: absent). None of these lines decides a
#: path the calls ask about or list (they match or negate only names below the excluded
#: ``sub/d/``), so every difference an answer shows would come from the remedy.
_CONTENTS: dict[str, str | None] = {
    "absent": None,
    "empty": "",
    "names_x": "x.txt\n",
    "names_other": "zzz.txt\n",
    "negates_x": "!x.txt\n",
    "anchored_x": "/d/x.txt\n!/d/y.txt\n",
    "many": "".join(f"junk{i}.q\n" for i in range(MAX_REMEDY_RULES + 1)),
}

#: where the hidden source is -> (its path, the names the filter hides)
_WHERE = {
    "gitignore": ("sub/.gitignore", ("sub/.gitignore",)),
    "agent_file": ("sub/.pathgateignore", ("sub/.pathgateignore",)),
    "excludes_file": ("private/rules", ("private",)),
}

_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_files", {"paths": ["sub/d/x.txt", "sub/d/y.txt", "sub/d", "sub/b.log", "top.log", "sub/a.txt"]}),
    ("read_files", {"paths": ["sub/d/x.txt"]}),
    ("glob", {"pattern": "**/*"}),
    ("glob", {"pattern": "sub/d/*"}),
    ("list_directory", {"path": "sub"}),
    ("list_directory", {"path": "sub/d"}),
    ("code_search", {"regex": "alpha"}),
    ("code_search", {"regex": "alpha", "path": "sub/d"}),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_global_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _tree(root: Path, where: str, content: str | None) -> Path:
    for rel, text in _FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    path = _WHERE[where][0]
    if where == "excludes_file":
        subprocess.run(["git", "-C", str(root), "config", "core.excludesFile", path], check=True)
    if content is not None:
        (root / path).write_text(content)
    return root


def _hiding(names: tuple[str, ...], kind: str) -> Callable[[str], bool | Awaitable[bool]]:
    def sync(rel: str) -> bool:
        return not any(rel == n or rel.startswith(n + "/") for n in names)

    async def asynchronous(rel: str) -> bool:
        return sync(rel)

    return sync if kind == "sync" else asynchronous


async def _answers(root: Path, policy: Policy, live: bool = False) -> list[str]:
    out: list[str] = []
    async with Runtime(root, policy, live_index=live) as rt:
        for renderer in RENDERERS:
            for tool, args in _CALLS:
                got = await rt.call(tool, args, renderer=renderer)
                out.append(f"{renderer} {tool} {args}: " + json.dumps(got, sort_keys=True, default=str))
    return out


@pytest.mark.parametrize(("kind", "live"), [("sync", False), ("async", False), ("sync", True)])
@pytest.mark.parametrize("where", sorted(_WHERE))
async def test_a_hidden_sources_content_never_changes_an_answer(
        anyio_backend: str, tmp_path: Path, where: str, kind: str, live: bool) -> None:
    hidden = _WHERE[where][1]
    policy = Policy(host_filter=_hiding(hidden, kind))
    first: list[str] | None = None
    for name, content in _CONTENTS.items():
        got = await _answers(_tree(tmp_path / name, where, content), policy, live)
        if first is None:
            first = got
            continue
        for one, other in zip(first, got, strict=True):
            assert one == other, name
    assert first is not None
    joined = "\n".join(first)
    # not vacuous: the visible rules are still explained, nothing hidden is named
    assert ".gitignore:1:sub/d/" in joined and ".gitignore:2:*.log" in joined
    assert "private/rules" not in joined and "zzz" not in joined and "junk" not in joined


async def test_m2_the_remedy_no_longer_moves_with_a_hidden_line(anyio_backend: str, tmp_path: Path) -> None:
    """The finding's own pair: hidden ``x.txt`` vs ``zzz.txt``, structured and verbose."""
    policy = Policy(host_filter=_hiding(("sub/.gitignore",), "sync"))
    outs = []
    for name in ("names_x", "names_other"):
        async with Runtime(_tree(tmp_path / name, "gitignore", _CONTENTS[name]), policy) as rt:
            outs.append([await rt.call("read_files", {"paths": ["sub/d/x.txt"]}, renderer=r)
                         for r in ("verbose", "structured")])
    assert outs[0] == outs[1]
    assert "sub/.pathgateignore" not in json.dumps(outs[0])


async def test_a_chain_without_a_hidden_place_keeps_its_remedy(anyio_backend: str, tmp_path: Path) -> None:
    """The fix removes no useful remedy where nothing is hidden: with a filter hiding only
    ``private/`` (no ignore source's place) every answer equals the unfiltered runtime's,
    remedies included."""
    root = _tree(tmp_path / "t", "gitignore", "x.txt\n")
    paths = ["sub/d/x.txt", "sub/b.log", "top.log"]
    async with Runtime(root) as plain:
        base = [await plain.call("read_files", {"paths": paths}, renderer=r) for r in RENDERERS]
    for kind in ("sync", "async"):
        async with Runtime(root, Policy(host_filter=_hiding(("private",), kind))) as rt:
            got = [await rt.call("read_files", {"paths": paths}, renderer=r) for r in RENDERERS]
        assert got == base
    verbose = base[1]
    # (visible, sub/.gitignore's x.txt beats the root's lines: the remedy rightly moves)
    assert "To unblock it, add these lines to `sub/.pathgateignore`:\n!/d/\n/d/*\n!/d/x.txt" in verbose["sub/d/x.txt"]
    assert "!/sub/b.log" in verbose["sub/b.log"] and "!/top.log" in verbose["top.log"]


async def test_only_a_chain_holding_a_hidden_place_loses_its_remedy(anyio_backend: str, tmp_path: Path) -> None:
    """With ``sub/.gitignore`` hidden, ``top.log`` (whose chain is the root's alone) keeps
    the remedy it has without a filter; the paths below ``sub/`` are explained without one."""
    root = _tree(tmp_path / "t", "gitignore", "x.txt\n")
    paths = ["sub/d/x.txt", "sub/b.log", "top.log"]
    async with Runtime(root) as plain:
        verbose = await plain.call("read_files", {"paths": paths}, renderer="verbose")
    async with Runtime(root, Policy(host_filter=_hiding(("sub/.gitignore",), "sync"))) as rt:
        hid = await rt.call("read_files", {"paths": paths}, renderer="verbose")
    assert hid["top.log"] == verbose["top.log"] and "To unblock" in hid["top.log"]
    assert "To unblock" not in hid["sub/d/x.txt"] and "To unblock" not in hid["sub/b.log"]
    assert ".gitignore:1:sub/d/" in hid["sub/d/x.txt"]  # still explained, only without lines


async def test_a_write_gets_no_remedy_through_a_hidden_source(anyio_backend: str, tmp_path: Path) -> None:
    """The write route's remedy follows the same rule (its lines would re-include the file)."""
    outs = []
    for name in ("names_x", "many"):
        root = _tree(tmp_path / name, "gitignore", _CONTENTS[name])
        policy = Policy(host_filter=_hiding(("sub/.gitignore",), "sync"), allow_writes=True)
        async with Runtime(root, policy) as rt:
            outs.append([await rt.call("write_file", {"path": "sub/d/new.txt", "content": "n\n"}, renderer=r)
                         for r in RENDERERS])
    assert outs[0] == outs[1]


def test_the_chain_is_names_only(tmp_path: Path) -> None:
    """Every per-directory name in each directory above the path, whether a file is there
    or not, and the repository-wide sources as configured (present or not)."""
    from pathgate.runtime.ignore import IgnoreIndex

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.excludesFile", "nowhere/rules"], check=True)
    ix = IgnoreIndex(tmp_path)
    assert remedy_chain(ix, "a/b/c.txt") is None  # nothing loaded yet: unknown (dropped)
    ix.session().match("a/b/c.txt")
    chain = remedy_chain(ix, "a/b/c.txt")
    assert chain is not None
    assert [c for c in chain if not c.endswith(("rules", "exclude"))] == [
        ".gitignore", ".pathgateignore", "a/.gitignore", "a/.pathgateignore", "a/b/.gitignore",
        "a/b/.pathgateignore"]
    assert any(c.endswith("nowhere/rules") for c in chain) and any(c.endswith("info/exclude") for c in chain)


@pytest.mark.parametrize("outside", [False, True])
def test_the_names_asked_are_the_chains_spellings(tmp_path: Path, outside: bool) -> None:
    """:func:`remedy_names` (per-directory places spelled directly) asks exactly what the
    gate's own spelling of each place of the chain gives (``source_names``)."""
    from pathgate.runtime._remedy import remedy_names
    from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
    from pathgate.runtime.ignore._secret_sources import source_names

    subprocess.run(["git", "init", "-q", str(tmp_path / "top")], check=True)
    subprocess.run(["git", "-C", str(tmp_path / "top"), "config", "core.excludesFile", "../rules"], check=True)
    root = tmp_path / "top" / "pkg"  # below the top of its work tree: .gitignore files above it
    root.mkdir()
    ix = IgnoreIndex(root, IgnoreConfig(agent_files=(".pathgateignore", ".aiignore")))
    for rel in ("a.txt", "a/b/c.txt", "x/y/z/w/v.txt"):
        ix.session().match(rel)
        chain = remedy_chain(ix, rel)
        assert chain is not None
        assert remedy_names(ix, rel, outside) == list(dict.fromkeys(
            n for label in chain for n in source_names(ix, label, outside)))
    assert any(label.endswith("top/.gitignore") for label in chain)
