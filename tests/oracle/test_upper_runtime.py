"""A runtime rooted *below* the top of its git work tree decides as git does (git is the oracle).

Generated trees: a repository whose runtime root is 1-3 directories below the top, random
``.gitignore`` files above and inside the root (anchored lines naming the root's own path,
with ``*``, ``**``, ``?``, brackets, negations, directory-only lines, lines that exclude an
ancestor of the root), ``info/exclude``, ``core.excludesFile`` and sometimes
``core.ignoreCase``. Every path under the root gets the decision (and the deciding line)
``git check-ignore`` gives when run in the root; ``glob("**")`` lists exactly
``git ls-files -o --exclude-standard``. Plus: an edit of a ``.gitignore`` above the root is
noticed by the next call; a secret above the root is never referenced; a root at the top or
outside any repository is unchanged.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import anyio
import pytest

from pathgate import Policy, Runtime
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from tests.oracle._git import GIT_ENV, git_init, write_tree

COMPS = ["a", "b", "c"]
NAMES = ["src", "build", "gen", "x", "b", "lib", "B"]
FILES = ["f.js", "g.log", "h.txt", "keep.log", "y", "Build"]


def _mutate(rng: random.Random, comp: str) -> str:
    r = rng.random()
    if r < 0.15:
        return "*"
    if r < 0.25:
        return "**"
    if r < 0.33:
        return comp[0] + "*"
    if r < 0.37:
        return "?" + comp[1:]
    if r < 0.42:
        return f"[{comp[0]}z]{comp[1:]}"
    if r < 0.45:
        return comp.upper()
    if r < 0.49:
        return comp[:1] + "**"  # a ** glued to a name
    return comp


def _line(rng: random.Random, below: list[str]) -> str:
    """A random ignore line for a directory whose path down to the root is ``below``."""
    r = rng.random()
    if r < 0.2:
        line = rng.choice(["*.log", "build", "gen/", "!keep.log", "*.js", "x", "!y", "B*"])
    else:
        take = rng.randint(0, len(below))
        # a line with no name below the root's own path may exclude the root or an ancestor:
        # now and then only
        least = 0 if take and rng.random() < 0.08 else 1
        tail = [rng.choice(NAMES + FILES) for _ in range(rng.randint(least, 2))]
        comps = [_mutate(rng, c) for c in below[:take]] + [_mutate(rng, c) if rng.random() < 0.3 else c for c in tail]
        line = "/".join(comps)
        if "/" in line and rng.random() < 0.1:  # an escaped slash matches a slash
            cut = rng.choice([i for i, ch in enumerate(line) if ch == "/"])
            line = line[:cut] + "\\" + line[cut:]
        if rng.random() < 0.3:
            line = "/" + line
        if rng.random() < 0.2 and "/" not in line:
            line = "**/" + line
    if rng.random() < 0.2:
        line += "/"
    if rng.random() < 0.2 and not line.startswith("!"):
        line = "!" + line
    return line


def _lines(rng: random.Random, below: list[str], n: int) -> bytes:
    return "".join(_line(rng, below) + "\n" for _ in range(n)).encode()


def _tree(rng: random.Random, base: Path) -> tuple[Path, Path]:
    """A repository ``base/top`` and a runtime root 1-3 levels below it."""
    top = base / "top"
    git_init("git", top)
    depth = rng.randint(1, 3)
    parts = COMPS[:depth]
    root = top.joinpath(*parts)
    files: dict[str, bytes] = {}
    for _ in range(rng.randint(8, 20)):
        comps = [rng.choice(NAMES) for _ in range(rng.randint(0, 2))] + [rng.choice(FILES)]
        files["/".join([*parts, *comps])] = b"x\n"
    files["outside/f.js"] = b"x\n"
    for k in range(depth):  # .gitignore files above the root (the top's included)
        if rng.random() < 0.85:
            files["/".join([*parts[:k], ".gitignore"])] = _lines(rng, parts[k:], rng.randint(1, 5))
    for d in {"/".join(p.split("/")[:-1]) for p in list(files) if p.startswith("/".join(parts))}:
        if rng.random() < 0.3:
            files[f"{d}/.gitignore"] = _lines(rng, [], rng.randint(1, 3))
    write_tree(top, files)
    (top / ".git" / "info").mkdir(exist_ok=True)
    (top / ".git" / "info" / "exclude").write_bytes(_lines(rng, parts, rng.randint(0, 3)))
    excl = base / "excludes"
    excl.write_bytes(_lines(rng, parts, rng.randint(0, 3)))
    _git(top, "config", "core.excludesFile", str(excl))
    if rng.random() < 0.2:
        _git(top, "config", "core.ignoreCase", "true")
    return top, root


def _git(cwd: Path, *args: str, stdin: bytes = b"") -> bytes:
    proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=GIT_ENV, check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def _walk(root: Path) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        prefix = "" if rel == "." else rel + "/"
        dirnames[:] = [d for d in dirnames if d != ".git"]
        out += [(prefix + d, True) for d in dirnames]
        out += [(prefix + f, False) for f in filenames]
    return sorted(out)


def _git_decisions(root: Path, paths: list[str]) -> dict[str, tuple[int, str] | None]:
    """path -> (line, pattern) of the rule git says excludes it, or None."""
    raw = _git(root, "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin",
               stdin=b"".join(os.fsencode(p) + b"\0" for p in paths))
    fields = raw.split(b"\0")
    out: dict[str, tuple[int, str] | None] = {}
    for i in range(0, len(fields) - 1, 4):
        source, line, pattern, path = (f.decode() for f in fields[i:i + 4])
        ignored = bool(source) and not pattern.startswith("!")
        out[path] = (int(line), pattern) if ignored else None
    return out


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in [k for k in os.environ if k.startswith("GIT_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _check_tree(seed: int, base: Path) -> None:
    rng = random.Random(seed)
    _top, root = _tree(rng, base)
    entries = _walk(root)
    want = _git_decisions(root, [p for p, _ in entries])
    session = IgnoreIndex(root, IgnoreConfig.git_only()).session()
    for path, is_dir in entries:
        m = session.match(path, is_dir)
        got = (m.rule.line, m.rule.pattern) if m.ignored and m.rule is not None else None
        assert not m.fail_closed, (seed, path, m)
        assert got == want[path], (seed, path, m, want[path])
    listed = {p.decode() for p in _git(root, "ls-files", "-o", "--exclude-standard", "-z").split(b"\0") if p}

    async def glob() -> set[str]:
        rt = Runtime(root, Policy().git_only())
        res = await rt.glob("**", limit=0)
        return set(res.matches)

    assert anyio.run(glob) == listed, seed


@pytest.mark.parametrize("seed", range(30))
def test_generated_trees_match_git(seed: int, git_bin: str, tmp_path: Path) -> None:
    _check_tree(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(30, 400))
def test_generated_trees_match_git_many(seed: int, git_bin: str, tmp_path: Path) -> None:
    _check_tree(seed, tmp_path)


# Lines above the root whose wildcard part begins inside the root's own path, written
# every awkward way git allows (the root is top/a/bc, the .gitignore is the top's).
ODD_LINES = [
    "a\\/bc/x", "a\\/b*/x", "a\\/*/**/x", "a\\/**\\/x", "a/b\\c/x", "a/[b]c/x", "a/[/]c/x",
    "a/[a-c]?/x/", "*/*/x", "**/bc/**", "a/**", "a/bc/**", "a/bc/**/", "**/**/x", "a/**/**/x",
    "a/*c*/x", "a/b**c/x", "a/**c/x", "*/b**", "a/**/bc/x/**/y", "a/b[", "a/bc\\", "/**/x",
    "a//bc/x", "a/bc//x", "A/BC/x", "a/*/", "!a/*/x", "*/bc", "a**/x", "a/bc**/x",
    "a**", "a/bc**", "a/b**", "a/b**/x", "a**/**/x", "a**/b**/x", "a**\\/x", "a/b**\\/x",
    "**\\/x", "a\\/**\\/bc\\/x", "a/**\\/x/", "**\\/bc/**", "a**x/y", "a/b**c**", "*/b**/x",
]
ODD_FILES = ["x", "y", "e/x/y", "e/x/x", "c/x", "bc/x", "d/e/x", "d/y/z", "q/x/r/y"]


@pytest.mark.parametrize("line", ODD_LINES)
@pytest.mark.parametrize("fold", [False, True])
def test_odd_lines_above_the_root_match_git(line: str, fold: bool, git_bin: str, tmp_path: Path) -> None:
    top = tmp_path / "top"
    git_init(git_bin, top)
    root = top / "a" / "bc"
    write_tree(top, {".gitignore": f"{line}\n".encode(), **{f"a/bc/{f}": b"1\n" for f in ODD_FILES}})
    if fold:
        _git(top, "config", "core.ignoreCase", "true")
    entries = _walk(root)
    want = _git_decisions(root, [p for p, _ in entries])
    session = IgnoreIndex(root, IgnoreConfig.git_only()).session()
    for path, is_dir in entries:
        m = session.match(path, is_dir)
        assert not m.fail_closed, (line, path, m)
        got = (m.rule.line, m.rule.pattern) if m.ignored and m.rule is not None else None
        assert got == want[path], (line, path, m, want[path])
