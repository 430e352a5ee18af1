"""End to end: every remedy pathgate offers, appended to the real agent ignore file on disk,
makes the path not ignored for a fresh ``IgnoreIndex`` — and git agrees where git can judge.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pathgate.runtime._remedy import suggest_remedy
from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex
from pathgate.verdicts import Remedy
from tests._gitinit import git_init

# git_sources off and no defaults unless a test asks: the tree's own files are the whole story.
PLAIN = IgnoreConfig(defaults=(), git_sources=False)




def build(root: Path, ignores: Mapping[str, str], files: Sequence[str]) -> None:
    for f in files:
        p = root / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x", encoding="utf-8")
    for rel, text in ignores.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def remedy_for(root: Path, path: str, config: IgnoreConfig = PLAIN) -> Remedy | None:
    session = IgnoreIndex(root, config).session()
    match = session.match(path)
    assert match.ignored, f"{path} should start out ignored"
    return suggest_remedy(session, path, match)


def apply(root: Path, remedy: Remedy) -> None:
    target = root / remedy.file
    old = target.read_text(encoding="utf-8") if target.exists() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    target.write_text(old + "".join(f"{line}\n" for line in remedy.lines), encoding="utf-8")


def assert_unblocks(root: Path, path: str, remedy: Remedy | None,
                    config: IgnoreConfig = PLAIN) -> Remedy:
    assert remedy is not None, f"no remedy offered for {path}"
    apply(root, remedy)
    after = IgnoreIndex(root, config).match(path)
    assert not after.ignored, (path, remedy, after)
    return remedy


CASES: list[tuple[str, dict[str, str], list[str], str, Remedy]] = [
    ("file rule", {".gitignore": "*.log\n"}, ["debug.log"], "debug.log",
     Remedy(file=".pathgateignore", lines=("!/debug.log",))),
    ("excluded ancestor", {".gitignore": "build/\n"}, ["build/sub/out.js", "build/x"], "build/sub/out.js",
     Remedy(file=".pathgateignore", ancestor="build",
            lines=("!/build/", "/build/*", "!/build/sub/", "/build/sub/*", "!/build/sub/out.js"))),
    ("nested gitignore", {"pkg/.gitignore": "gen/\n"}, ["pkg/gen/x.py"], "pkg/gen/x.py",
     Remedy(file="pkg/.pathgateignore", ancestor="pkg/gen", lines=("!/gen/", "/gen/*", "!/gen/x.py"))),
    ("deeper rule beats root", {".gitignore": "*.tmp\n", "pkg/.gitignore": "*.log\n"}, ["pkg/a.log"],
     "pkg/a.log", Remedy(file="pkg/.pathgateignore", lines=("!/a.log",))),
    ("agent file rule", {".pathgateignore": "docs/*.md\n"}, ["docs/a.md"], "docs/a.md",
     Remedy(file=".pathgateignore", lines=("!/docs/a.md",))),
    ("special names", {".gitignore": "*.txt\n"}, ["[x]*?.txt"], "[x]*?.txt",
     Remedy(file=".pathgateignore", lines=("!/\\[x]\\*\\?.txt",))),
]


@pytest.mark.parametrize(("ignores", "files", "path", "expected"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_offered_remedy_is_the_expected_one_and_works_on_disk(
        tmp_path: Path, ignores: dict[str, str], files: list[str], path: str, expected: Remedy) -> None:
    build(tmp_path, ignores, files)
    remedy = remedy_for(tmp_path, path)
    assert remedy == expected
    assert_unblocks(tmp_path, path, remedy)


def test_siblings_stay_excluded_after_the_ancestor_remedy(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "build/\n"}, ["build/sub/out.js", "build/sub/y.js", "build/x"])
    assert_unblocks(tmp_path, "build/sub/out.js", remedy_for(tmp_path, "build/sub/out.js"))
    index = IgnoreIndex(tmp_path, PLAIN)
    assert index.match("build/x").ignored
    assert index.match("build/sub/y.js").ignored


def test_builtin_default(tmp_path: Path) -> None:
    config = IgnoreConfig(defaults=("node_modules/",), git_sources=False)
    build(tmp_path, {}, ["node_modules/lib/index.js"])
    remedy = remedy_for(tmp_path, "node_modules/lib/index.js", config)
    assert remedy is not None and remedy.file == ".pathgateignore"
    assert_unblocks(tmp_path, "node_modules/lib/index.js", remedy, config)


def test_info_exclude(tmp_path: Path, git_bin: str) -> None:
    git_init(tmp_path, git=git_bin)
    config = IgnoreConfig(defaults=(), git_sources=True)
    build(tmp_path, {".git/info/exclude": "notes/\n"}, ["notes/todo.md"])
    remedy = remedy_for(tmp_path, "notes/todo.md", config)
    assert remedy is not None and remedy.file == ".pathgateignore"
    assert_unblocks(tmp_path, "notes/todo.md", remedy, config)


def test_no_remedy_when_a_nested_file_inside_the_directory_wins(tmp_path: Path) -> None:
    build(tmp_path, {".gitignore": "build/\n", "build/.gitignore": "*.js\n"}, ["build/out.js"])
    assert remedy_for(tmp_path, "build/out.js") is None


# --- generated trees: whatever is offered must work, and git must agree ----------------------

PATTERNS = ["*.log", "build/", "/out", "gen", "**/cache/**", "a/**/z.txt", "*.txt", "!keep.txt",
            "sub/", "d*/", "!d1/", "x?", "/a/b/"]
PATHS = ["a/b/c/z.txt", "build/x/y.log", "out/keep.txt", "pkg/gen/m.txt", "lib/cache/k/v.txt",
         "d1/sub/xy", "a/b/keep.txt", "src/x1"]


def git_ignored(git: str, root: Path, path: str) -> bool:
    out = subprocess.run([git, "check-ignore", "--no-index", "-q", path], cwd=root,
                         capture_output=True, check=False)
    return out.returncode == 0


@pytest.mark.parametrize("seed", range(12))
def test_generated_trees(tmp_path: Path, git_bin: str, seed: int) -> None:
    rng = random.Random(seed)
    git_init(tmp_path, git=git_bin)
    dirs = sorted({"/".join(p.split("/")[:i]) for p in PATHS for i in range(len(p.split("/")))})
    ignores = {}
    for d in rng.sample(dirs, 4):
        lines = rng.sample(PATTERNS, rng.randint(1, 4))
        ignores[f"{d}/.gitignore" if d else ".gitignore"] = "".join(f"{ln}\n" for ln in lines)
    build(tmp_path, ignores, PATHS)
    for path in PATHS:
        session = IgnoreIndex(tmp_path, PLAIN).session()
        match = session.match(path)
        if not match.ignored:
            continue
        remedy = suggest_remedy(session, path, match)
        if remedy is None:
            continue
        before = {p: IgnoreIndex(tmp_path, PLAIN).match(p).ignored for p in PATHS}
        apply(tmp_path, remedy)
        assert not IgnoreIndex(tmp_path, PLAIN).match(path).ignored, (path, remedy, ignores)
        if not remedy.file.endswith(".gitignore"):  # git reads agent files only as .gitignore
            git_file = (tmp_path / remedy.file).with_name(".gitignore")
            git_before = git_file.read_text(encoding="utf-8") if git_file.exists() else ""
            git_file.write_text(git_before + "".join(f"{ln}\n" for ln in remedy.lines), encoding="utf-8")
            assert not git_ignored(git_bin, tmp_path, path), (path, remedy, ignores)
            git_file.write_text(git_before, encoding="utf-8")
        # Nothing unrelated that was ignored comes back because of the offered lines. (A
        # negation in an ignore file inside the re-included directory may bring a path back:
        # that is the user's own rule, read again once its directory is visible.)
        index = IgnoreIndex(tmp_path, PLAIN)
        for p, was in before.items():
            after = index.match(p)
            if p != path and was and not after.ignored:
                rule = after.rule
                assert rule is not None and rule.source != remedy.file, (p, "re-included by", remedy)
        (tmp_path / remedy.file).unlink()
        for rel, text in ignores.items():  # restore in case the remedy went to a rule's file
            (tmp_path / rel).write_text(text, encoding="utf-8")
