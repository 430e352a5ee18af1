"""Red-team pass 18: what a repository or a tool argument could make reads cost or tell.

Found: a bracket in a glob or an ignore line was expanded by a loop over the 256 byte values
about four times over, ~0.3 ms a bracket, and glob patterns had no length bound: a model's
200 KB glob of ``[a-z]`` held the one worker hop for 12.5 s (every other agent waited), and a
repository's 100 KB ``.gitignore`` of brackets cost 5 s on every hook call (J6, J7).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from pathgate import Runtime, ToolArgumentError
from pathgate.runtime.ignore._wildmatch import _CLASSES, bracket_members
from pathgate.runtime.tools._pattern import MAX_GLOB

pytestmark = pytest.mark.anyio


def _per_byte(singles: set[int], ranges: list[tuple[int, int]], classes: list[str],
              negated: bool, pathname: bool, fold: bool) -> list[int]:
    """The members of a parsed bracket byte by byte, as git's ``dowild`` tests a text byte
    (the loop the set arithmetic replaced)."""
    out = []
    for t in range(256):
        if fold and 65 <= t <= 90:
            continue  # a folded text holds no upper-case letter
        hit = t in singles or any(
            lo <= t <= hi or (fold and 97 <= t <= 122 and lo <= t - 32 <= hi) for lo, hi in ranges
        ) or any(t in _CLASSES[c] or (fold and c == "upper" and 97 <= t <= 122) for c in classes)
        if hit != negated and not (pathname and t == 47):
            out.append(t)
    return out


def test_bracket_members_agree_with_a_byte_by_byte_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathgate.runtime.ignore import _wildmatch

    members = _wildmatch._members
    seen: list[object] = []

    def checked(*args: object) -> list[int]:
        got = members(*args)  # type: ignore[arg-type]
        assert got == _per_byte(*args), args  # type: ignore[arg-type]
        seen.append(args)
        return got

    monkeypatch.setattr(_wildmatch, "_members", checked)
    atoms = ["a", "z", "A", "Z", "-", "\\", "!", "^", "]", "[", ":", "[:alpha:]", "[:upper:]",
             "[:lower:]", "[:digit:]", "/", "0", "\xe9", "\u0101", "M", "m", "_"]
    rnd = random.Random(18)
    for _ in range(1000):
        p = "[" + "".join(rnd.choice(atoms) for _ in range(rnd.randint(0, 6))) + "]"
        for pathname in (False, True):
            for fold in (False, True):
                bracket_members(p, 0, pathname, fold)
    assert len(seen) > 2600  # most random brackets parse
    assert bracket_members("[[:upper:]]", 0, False, True) == (sorted(_CLASSES["lower"]), 11)
    assert bracket_members("[!a-z]", 0, True, False) == (
        [t for t in range(256) if not 97 <= t <= 122 and t != 47], 6)


async def test_a_glob_past_its_length_bound_is_refused_naming_the_argument(
        anyio_backend: str, tmp_path: Path) -> None:
    (tmp_path / ("a" * 200 + ".txt")).write_text("x\n")
    async with Runtime(tmp_path) as rt:
        assert (await rt.glob("[a-z]" * 200 + ".txt")).matches == ("a" * 200 + ".txt",)
        assert (await rt.glob("[a-z]" * (MAX_GLOB // 5))).matches == ()  # within the bound
        with pytest.raises(ToolArgumentError, match=r"pattern: the pattern is .* the limit is") as info:
            await rt.glob("[a-z]" * 40_000)
        assert info.value.field == "pattern"
        with pytest.raises(ToolArgumentError) as info:
            await rt.code_search("x", glob="?" * (MAX_GLOB + 1))
        assert info.value.field == "glob"


_CALLS: list[tuple[str, dict[str, object]]] = [
    ("read_files", {"paths": ["x.log", "a.txt"]}), ("glob", {"pattern": "**/*"}),
    ("list_directory", {"path": "."}), ("code_search", {"regex": "hello"}),
]


def _git_tree(root: Path, variant: str, secret: bool) -> Path:
    """A project whose git files lead to ``.env`` (J1): ``.git`` itself, its ``config`` or its
    ``commondir`` a symbolic link to it; the secret there or not (the link then dangles)."""
    from tests._gitinit import git_init

    root.mkdir()
    if variant == "upper":  # red team 19 K4: the root below the top, whose .git leads to it
        os.symlink("proj/.env", root / ".git")
        root = root / "proj"
        root.mkdir()
    elif variant == "dotgit":
        os.symlink(".env", root / ".git")
    else:
        git_init(root)
        target = root / ".git" / variant
        target.unlink(missing_ok=True)
        os.symlink("../.env", target)
    (root / ".gitignore").write_text("*.log\n")
    (root / "a.txt").write_text("hello\n")
    (root / "x.log").write_text("log\n")
    if secret:
        (root / ".env").write_text("# the keys are set in CI\n")  # parses as git config too
    return root


@pytest.mark.parametrize("variant", ["dotgit", "config", "commondir", "upper"])
async def test_git_files_leading_to_a_secret_answer_as_without_it(
        anyio_backend: str, tmp_path: Path, variant: str) -> None:
    """``.git -> .env`` was read as a gitfile: every answer failed closed while the secret
    existed and none did without it (15 of 15 answers differed); ``.git/config -> ../.env``
    did the same for a secret that parses as git configuration."""
    from pathgate import Policy
    from tests.hardening._twotrees import render_all

    outs = [await render_all(_git_tree(tmp_path / f"{variant}-{secret}", variant, secret), _CALLS, Policy())
            for secret in (True, False)]
    assert outs[0] == outs[1]
    assert any('"x.log"' in o and "ignore" in o.lower() for o in outs[0])  # rules still apply


async def test_a_read_past_its_paths_bound_is_refused_naming_the_argument(
        anyio_backend: str, tmp_path: Path) -> None:
    """Red team 18 J10: a batch is spelled, gated and rendered on the event loop; 150,000
    paths stalled every other agent's calls for seconds."""
    from pathgate.runtime.tools.read_files import MAX_PATHS

    (tmp_path / "a.txt").write_text("x\n")
    async with Runtime(tmp_path) as rt:
        at_bound = await rt.call("read_files", {"paths": ["a.txt"] + [f"m{i}" for i in range(MAX_PATHS - 1)]})
        assert at_bound["a.txt"] == "x\n"
        with pytest.raises(ToolArgumentError, match="the limit is 4,096") as info:
            await rt.read_files(["a.txt"] * (MAX_PATHS + 1))
        assert info.value.field == "paths"


async def test_a_host_filter_never_shows_what_ignore_rules_exclude(anyio_backend: str, tmp_path: Path) -> None:
    """Red team 19 K3: reading a host-hidden ignore source as absent (a first fix of red team
    18 J8) made a "no dotfiles" filter serve what `.gitignore` excludes. A filter may only
    hide more: the rules of a source it hides still apply."""
    from pathgate import Policy

    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / "debug.log").write_text("log\n")
    (tmp_path / "a.txt").write_text("x\n")

    def no_dotfiles(rel: str) -> bool:
        return not any(c.startswith(".") for c in rel.split("/"))

    for policy in (Policy(), Policy(host_filter=no_dotfiles)):
        async with Runtime(tmp_path, policy) as rt:
            out = await rt.call("read_files", {"paths": ["debug.log", "a.txt"]})
            assert out["a.txt"] == "x\n" and out["debug.log"].startswith("[BLOCKED]")


def test_a_regex_of_many_unicode_classes_is_refused_before_re2_parses_it() -> None:
    """Red team 19 K1: RE2 parsed 32 KB of ``\\pL`` for 3-5 s (the interpreter lock held)
    before its program budget applied."""
    from pathgate.runtime.tools._regex import MAX_UNICODE_CLASSES, _unicode_classes, compile_regex

    assert _unicode_classes(r"\pL\\p\PN[^\pL]x\\\p{Greek}") == 4  # `\\p` is a backslash, then p
    compile_regex(r"\pL" * MAX_UNICODE_CLASSES)
    for pat in (r"\pL" * (MAX_UNICODE_CLASSES + 1), r"[^\PL]" * 5_000, r"\pL*" * 8_192):
        with pytest.raises(ToolArgumentError, match="Unicode property classes") as info:
            compile_regex(pat)
        assert info.value.field == "regex"


async def test_a_read_past_its_components_bound_is_refused(anyio_backend: str, tmp_path: Path) -> None:
    """Red team 19 K2: one path of 1,000,000 components stalled the event loop 7-9 s (each
    written component is judged as a secret's name on the loop)."""
    from pathgate.runtime.tools._arg_bounds import MAX_PATH_CHARS, MAX_PATH_COMPONENTS

    async with Runtime(tmp_path) as rt:
        deep = "a/" * MAX_PATH_COMPONENTS
        assert (await rt.call("read_files", {"paths": [deep]}))[deep].startswith("[FILE_DOES_NOT_EXIST]")
        for paths in (["a/" * (MAX_PATH_COMPONENTS + 1)], ["a\\"] * 4000 + ["a\\" * 30_000],
                      ["x" * MAX_PATH_CHARS, "y"]):
            with pytest.raises(ToolArgumentError, match="path components or") as info:
                await rt.read_files(paths)
            assert info.value.field == "paths"


@pytest.mark.parametrize("tool", ["list_directory", "glob", "code_search"])
async def test_a_discovery_path_past_its_components_bound_is_refused(
        anyio_backend: str, tmp_path: Path, tool: str) -> None:
    from pathgate.runtime.tools._arg_bounds import MAX_PATH_COMPONENTS

    args = {"list_directory": {}, "glob": {"pattern": "*"}, "code_search": {"regex": "x"}}[tool]
    async with Runtime(tmp_path) as rt:
        await rt.call(tool, {**args, "path": "a/" * MAX_PATH_COMPONENTS})  # answered (not there)
        with pytest.raises(ToolArgumentError, match=f"{tool}: `path` holds more than") as info:
            await getattr(rt, tool)(**args, path="a/" * (MAX_PATH_COMPONENTS + 1))
        assert info.value.field == "path"
