"""An ignore source the host filter hides: its rules apply, its name and lines never show.

Red team 18 J8: a ``core.excludesFile`` (or ``info/exclude``, or a per-directory agent file)
at a path the host filter hides was read as rules and quoted to the model
(``private/rules:2:*.bak matches it``). Red team 19 K3: reading it as absent instead made a
filter un-hide what it excludes (a "no dotfiles" filter served ``.gitignore``'s files).

Now every verdict such a source decides -- a path's own rule, an excluded ancestor's, a
negation that re-included the path -- is the host filter's bare opaque ``[BLOCKED]``. The
oracle: tree A (the hidden source, with its rules) answers every tool, renderer and route
exactly as tree B, where the source holds nothing and the filter hides the paths A's source
decides instead (``indistinguishable from the filter hiding the path itself``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from pathgate import Policy, Runtime

pytestmark = pytest.mark.anyio

RENDERERS = ("sentinel", "verbose", "structured")

_COMMON = {
    "a.txt": "alpha\n",
    "x.bak": "alpha backup\n",
    "gen/a.js": "alpha js\n",
    "gen/sub/b.js": "alpha b\n",
    "pkg/.gitignore": "*.log\n",
    "pkg/keep.log": "alpha keep\n",
    "pkg/other.log": "alpha other\n",
    "pkg/y.bak": "alpha y\n",
    "pkg/gen/c.js": "alpha c\n",
    "private/plan.md": "alpha plan\n",
    "src/m.py": "alpha = 1\n",
}
_RULES = "# internal: project falcon\n*.bak\ngen/\n"
_INNOCUOUS = "# nothing here\n"

#: variant -> (what the hidden source decides: the paths tree B's filter hides instead,
#: the exact names tree A's filter hides besides private/)
_VARIANTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "excludes_file": (("x.bak", "pkg/y.bak", "gen", "pkg/gen"), ()),
    "info_exclude": (("x.bak", "pkg/y.bak", "gen", "pkg/gen"), ()),
    "per_directory": (("pkg/y.bak", "pkg/gen", "pkg/keep.log"), ("pkg/.pathgateignore",)),
}

_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_files", {"paths": ["a.txt", "x.bak", "gen/a.js", "gen", "pkg/y.bak", "pkg/keep.log",
                              "pkg/other.log", "pkg/gen/c.js", "private/plan.md", "src/m.py"]}),
    ("glob", {"pattern": "**/*"}),
    ("glob", {"pattern": "**/*.bak"}),
    ("glob", {"pattern": "**/*.js"}),
    ("list_directory", {}),
    ("list_directory", {"path": "pkg"}),
    ("list_directory", {"path": "gen"}),
    ("code_search", {"regex": "alpha"}),
    ("code_search", {"regex": "alpha", "glob": "**/*.js"}),
]

#: What must never appear in an answer of tree A.
_TELLS = ("falcon", "private/rules", "/rules:", "pathgateignore:", "info/exclude:")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the matrix is large; both backends run the smaller tests below


@pytest.fixture(autouse=True)
def _no_global_git(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _tree(root: Path, variant: str, rules: str) -> Path:
    for rel, text in _COMMON.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if variant == "per_directory":
        (root / "pkg/.pathgateignore").write_text(rules + "!keep.log\n")
        return root
    (root / "private/rules").write_text(rules)
    if variant == "excludes_file":
        subprocess.run(["git", "-C", str(root), "config", "core.excludesFile", "private/rules"], check=True)
    else:  # info/exclude is a link whose real target the filter hides
        exclude = root / ".git/info/exclude"
        exclude.unlink(missing_ok=True)
        os.symlink("../../private/rules", exclude)
    return root


def _hiding(names: tuple[str, ...], kind: str) -> Callable[[str], bool | Awaitable[bool]]:
    def sync(rel: str) -> bool:
        return not any(rel == n or rel.startswith(n + "/") for n in names)

    async def asynchronous(rel: str) -> bool:
        return sync(rel)

    return sync if kind == "sync" else asynchronous


async def _answers(root: Path, policy: Policy, live: bool) -> list[str]:
    out: list[str] = []
    async with Runtime(root, policy, live_index=live) as rt:
        for renderer in RENDERERS:
            for tool, args in _CALLS:
                got = await rt.call(tool, args, renderer=renderer)
                out.append(f"{renderer} {tool} {args}: " + json.dumps(got, sort_keys=True, default=str))
    return out


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize("variant", sorted(_VARIANTS))
async def test_a_hidden_source_answers_as_the_filter_hiding_what_it_decides(
        anyio_backend: str, tmp_path: Path, variant: str, kind: str) -> None:
    decided, also_hidden = _VARIANTS[variant]
    a = _tree(tmp_path / "a", variant, _RULES)
    b = _tree(tmp_path / "b", variant, _INNOCUOUS)
    filter_a = _hiding(("private", *also_hidden), kind)
    filter_b = _hiding(("private", *also_hidden, *decided), kind)
    for live in (False, True):
        got_a = await _answers(a, Policy(host_filter=filter_a), live)
        got_b = await _answers(b, Policy(host_filter=filter_b), live)
        for one, other in zip(got_a, got_b, strict=True):
            assert one == other
        joined = "\n".join(got_a)
        assert not [t for t in _TELLS if t in joined]
        # the visible rule is still explained (the differential is not vacuous)
        assert "pkg/.gitignore:1:*.log" in joined


async def test_without_a_filter_the_same_source_is_quoted(anyio_backend: str, tmp_path: Path) -> None:
    """The control: the same tree with nothing hidden names the rule (what the gate hides)."""
    root = _tree(tmp_path, "excludes_file", _RULES)
    async with Runtime(root) as rt:
        out = await rt.call("read_files", {"paths": ["x.bak"]}, renderer="verbose")
    assert "private/rules:2:*.bak" in out["x.bak"]


_K3 = {
    ".gitignore": "dist/\n*.log\n!keep.log\n",
    ".pathgateignore": "internal_notes.md\n",
    "dist/app.js": "built bundle\n",
    "dist/deep/x.js": "built\n",
    "debug.log": "token=abc\n",
    "keep.log": "kept\n",
    "internal_notes.md": "do not show the agent\n",
    "src/generated.py": "gen\n",
    "src/a.py": "print(1)\n",
    "README.md": "readme\n",
}


def _k3_tree(root: Path) -> list[str]:
    for rel, text in _K3.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    with open(root / ".git/info/exclude", "a") as f:
        f.write("src/generated.py\n")
    return [*_K3, "dist", "dist/deep", "src"]


def _no_dotfiles(rel: str) -> bool:
    return not any(c.startswith(".") for c in rel.split("/"))


def _raising(rel: str) -> bool:
    return rel.split("/")[1] != "secret"  # a bug: raises on every top-level name


async def _no_dotfiles_async(rel: str) -> bool:
    return _no_dotfiles(rel)


@pytest.mark.parametrize("flt", [_no_dotfiles, _raising, _no_dotfiles_async])
async def test_a_filter_only_ever_blocks_more(anyio_backend: str, tmp_path: Path, flt: Any) -> None:
    """Red team 19 K3's tree: for every path, blocked without the filter means blocked with
    it; and what a hidden source decides is never explained."""
    paths = _k3_tree(tmp_path)
    async with Runtime(tmp_path) as plain, Runtime(tmp_path, Policy(host_filter=flt)) as filtered:
        base = await plain.call("read_files", {"paths": paths}, renderer="verbose")
        got = await filtered.call("read_files", {"paths": paths}, renderer="verbose")
        listed = await filtered.call("glob", {"pattern": "**/*"}, renderer="verbose")
    for p in paths:
        if str(base[p]).startswith("[BLOCKED]"):
            assert str(got[p]).startswith("[BLOCKED]"), p
    for p in ("dist/app.js", "debug.log", "internal_notes.md"):  # decided by a hidden root file
        assert got[p] == "[BLOCKED]"
    assert base["keep.log"] == "kept\n" and got["keep.log"] == "[BLOCKED]"  # a hidden negation
    shown = json.dumps([got, listed])
    assert ".gitignore:" not in shown and ".pathgateignore:" not in shown
    assert "keep.log" not in str(listed)


async def test_a_filter_raising_on_the_source_blocks_opaquely(anyio_backend: str, tmp_path: Path) -> None:
    """A filter that raises when asked about the source: fail closed -- its rules apply and
    what they decide is a bare [BLOCKED] (never served, never explained)."""
    root = _tree(tmp_path, "excludes_file", _RULES)

    def flt(rel: str) -> bool:
        if rel.startswith("private"):
            raise RuntimeError("no")
        return True

    async with Runtime(root, Policy(host_filter=flt)) as rt:
        out = await rt.call("read_files", {"paths": ["x.bak", "gen/a.js", "a.txt", "pkg/other.log"]},
                            renderer="verbose")
        listed = await rt.call("glob", {"pattern": "**/*"}, renderer="verbose")
    assert out["x.bak"] == "[BLOCKED]" and out["gen/a.js"] == "[BLOCKED]"
    assert out["a.txt"] == "alpha\n" and "pkg/.gitignore:1:*.log" in out["pkg/other.log"]
    assert "x.bak" not in str(listed) and "gen" not in str(listed) and "private" not in str(listed)


async def test_a_write_decided_by_a_hidden_source_is_opaque(anyio_backend: str, tmp_path: Path) -> None:
    root = _tree(tmp_path, "excludes_file", _RULES)
    policy = Policy(host_filter=_hiding(("private",), "sync"), allow_writes=True)
    async with Runtime(root, policy) as rt:
        out = await rt.call("write_file", {"path": "new.bak", "content": "x\n"}, renderer="verbose")
    assert "rules" not in json.dumps(out) and "BLOCKED" in json.dumps(out)
    assert not (root / "new.bak").exists()


def test_source_names_ask_outside_spellings_only_when_outside_paths_are_allowed(tmp_path: Path) -> None:
    from pathgate.runtime.ignore import IgnoreIndex
    from pathgate.runtime.ignore._secret_sources import source_names

    ix = IgnoreIndex(tmp_path)
    assert source_names(ix, "pkg/.gitignore") == ("pkg/.gitignore",)
    assert source_names(ix, "/elsewhere/ignore") == ()
    assert source_names(ix, "/elsewhere/ignore", outside=True) == ("/elsewhere/ignore",)
    assert source_names(ix, "../.gitignore", outside=True) == (str(tmp_path.parent / ".gitignore"),)


async def test_a_hidden_config_include_that_fails_git_is_not_named(anyio_backend: str, tmp_path: Path) -> None:
    """A config ``[include]`` target the filter hides that git cannot parse: every path fails
    closed, as the filter's bare block (the fail-closed reason would name the hidden file)."""
    root = tmp_path / "t"
    (root / "private").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    with open(root / ".git/config", "a") as f:
        f.write("[include]\n\tpath = ../private/cfg\n")
    (root / "private/cfg").write_text("[core\nbroken\n")
    (root / "a.txt").write_text("alpha\n")
    async with Runtime(root) as plain:
        assert "private/cfg" in (await plain.call("read_files", {"paths": ["a.txt"]}, renderer="verbose"))["a.txt"]
    async with Runtime(root, Policy(host_filter=_hiding(("private",), "sync"))) as rt:
        for renderer in RENDERERS:
            out = [await rt.call("read_files", {"paths": ["a.txt"]}, renderer=renderer),
                   await rt.call("glob", {"pattern": "*"}, renderer=renderer)]
            assert "cfg" not in json.dumps(out) and "ignore" not in json.dumps(out)
        assert out[0] == {"files": [{"path": "a.txt", "status": "blocked"}]} or "a.txt" in json.dumps(out[0])
