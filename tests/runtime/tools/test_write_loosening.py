"""An agent's writes cannot loosen the rules it runs under (red-team findings).

* A deeper ``.gitignore`` is read after the agent ignore files above it, so a ``!`` line in
  it would re-include what ``.pathgateignore`` hides, and a removed or moved rule
  re-includes what it excluded: a write or edit of a ``.gitignore`` may only add exclusion
  lines and remove negations (existing negations may stay). Git is the oracle that such
  edits never un-ignore a path (``test_accepted_edits_never_un_ignore_per_git``).
* The root ``pyproject.toml`` is a policy file while it declares pathgate settings.
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pathgate import Gate, Status, ToolArgumentError
from pathgate.runtime.tools._write_rules import loosening_change
from tests._gitinit import git_init
from tests.runtime.tools._writes import make_rt, write_tree

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("old", "new", "why"), [
    (None, "a\n!b\n", "would add or move the negation rule `!b`"),
    (None, "a\n \n# c\n", None),
    ("!keep\n", "x\n!keep\n", None),
    ("!keep\n", "!keep  \n!new\n", "would add or move the negation rule `!new`"),
    ("build/\ndist/\n!keep.txt\n", "build/\n!keep.txt\n", "would lose the rule `dist/`"),
    ("build/\n", "", "would lose the rule `build/`"),
    ("build/\n", "# build/\n", "would lose the rule `build/`"),
    ("a\n!a/keep\n", "a\n", None),  # a negation removed: tighter
    ("!a/keep\na\n", "a\n!a/keep\n", "would add or move the negation rule `!a/keep`"),
    ("a\n!a/keep\n", "!a/keep\na\n", "would lose the rule `a`"),
    ("!x\nb\n", "b\n", None),
    ("!x\n!y\nb\n!z\nc\n", "q\nb\nc\nr\n", None),
    ("a\r\nb   \n", "a\nb\n", None),  # CRLF and trailing spaces are not part of a rule
    ("foo\\ \n", "foo\\\n", "would lose the rule `foo\\ `"),  # an escaped space is
    ("a\tb\n", "ab\n", "would lose the rule `a\tb`"),
    ("\ufeffa\n", "a\nb\n", None),
    ("a\n", "\\!a\na\n", None),  # ``\!a`` is an exclusion of a file named ``!a``
    # the greedy alignment takes the inserted ``*.log`` for the old one after ``!/a``: decided exactly
    ("**/c\n*.log\n!/a\n*.log\n/a\n", "**/c\n*.log\n*.log\n!/a\n*.log\n/a\na\nc/\n", None),
    ("a\n!n\na\n", "a\na\n!n\n", "would add or move the negation rule `!n`"),
    # git breaks lines at \n only: `x\r#` is one rule to git, not `x` and a comment (rt7 F1)
    *[("private_notes.txt\n", f"private_notes.txt{sep}#\n", "would lose the rule `private_notes.txt`")
      for sep in ("\r", "\x0c", "\x0b", "\x1c", "\x85", "\u2028")],
    ("a\r\n", "a\r\nb\n", None),
])
def test_loosening_change(old: str | None, new: str, why: str | None) -> None:
    assert loosening_change(old, new) == why


_VOCAB = ["a", "a/", "/a", "b", "*.log", "a/b", "**/c", "a/**", "c/", "x*", "*/d.log", "b/c"]
_PATHS = ["a", "a/b", "a/b/c", "a/x.log", "a/d.log", "b", "b/c", "b/c/d.log", "c", "c/a", "xa", "x/y.log",
          "d/a/b", "d/c/e", "e.log"]


def test_a_rewrite_too_large_to_align_exactly_stays_refused() -> None:
    old = "".join(f"r{i}\n!n{i}\n" for i in range(2000))
    shuffled = "".join(f"r{i}\n" for i in range(1999, -1, -1))
    assert loosening_change(old, shuffled) is not None
    assert loosening_change(old, old + "more\n") is None  # a long file, a line appended


def _ignored_by_git(repo: Path, rules: str) -> set[str]:
    (repo / ".gitignore").write_text(rules)
    out = subprocess.run(["git", "-C", str(repo), "check-ignore", "--no-index", "--stdin"],
                         input="\n".join(_PATHS) + "\n", capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return set(out.stdout.split())


@pytest.mark.skipif(shutil.which("git") is None, reason="git is the oracle and is not installed")
def test_accepted_edits_never_un_ignore_per_git(tmp_path: Path) -> None:
    """Random rule lists and random edits of them (lines inserted, removed, moved, negated):
    whatever ``loosening_change`` accepts, git ignores at least every path it ignored
    before. Generated edits of the accepted kind are checked to be accepted too."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git_init(repo)
    for p in _PATHS:  # check-ignore needs no files, but directories decide directory-only rules
        (repo / p).parent.mkdir(parents=True, exist_ok=True)
    for p in _PATHS:
        if not (repo / p).exists():
            (repo / p).write_text("x\n")
    rng = random.Random(20261201)
    accepted = refused = 0
    for _ in range(60):
        old = [("!" if rng.random() < 0.35 else "") + rng.choice(_VOCAB) for _ in range(rng.randint(0, 6))]
        new = list(old)
        for _ in range(rng.randint(1, 3)):
            op = rng.random()
            if op < 0.4:
                new.insert(rng.randint(0, len(new)), rng.choice(_VOCAB))
            elif op < 0.6 and new:
                del new[rng.randrange(len(new))]
            elif op < 0.8:
                new.insert(rng.randint(0, len(new)), "!" + rng.choice(_VOCAB))
            elif new:
                new.insert(rng.randint(0, len(new)), new.pop(rng.randrange(len(new))))
        old_text, new_text = "".join(f"{x}\n" for x in old), "".join(f"{x}\n" for x in new)
        if loosening_change(old_text, new_text) is None:
            accepted += 1
            assert _ignored_by_git(repo, old_text) <= _ignored_by_git(repo, new_text), (old, new)
        else:
            refused += 1
        # the accepted kind: exclusions inserted, negations removed
        monotone = [x for x in old if not (x.startswith("!") and rng.random() < 0.5)]
        for _ in range(rng.randint(0, 3)):
            monotone.insert(rng.randint(0, len(monotone)), rng.choice(_VOCAB))
        assert loosening_change(old_text, "".join(f"{x}\n" for x in monotone)) is None, (old, monotone)
    assert accepted >= 10 and refused >= 10  # both sides exercised


async def test_a_nested_gitignore_cannot_re_include_what_the_agent_file_hides(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".pathgateignore": "*.private\n", "sub/x.private": "PRIVATE\n"})
    rt = make_rt(root)
    assert (await rt.read_files(["sub/x.private"]))[0].verdict is not None
    with pytest.raises(ToolArgumentError) as err:
        await rt.write_file("sub/.gitignore", "!*.private\n")
    assert err.value.field == "content" and "`!*.private`" in str(err.value)
    assert not (root / "sub/.gitignore").exists()
    assert (await rt.read_files(["sub/x.private"]))[0].verdict is not None


async def test_an_edit_adding_a_negation_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".gitignore": "build/\n!keep.txt\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError) as err:
        await rt.edit_file(".gitignore", "build/", "build/\n!build/out")
    assert err.value.field == "new_string"
    assert (root / ".gitignore").read_text() == "build/\n!keep.txt\n"
    # exclusions may be added, and an existing negation may stay
    result = await rt.edit_file(".gitignore", "build/", "build/\ndist/")
    assert result.verdict is None
    assert (root / ".gitignore").read_text() == "build/\ndist/\n!keep.txt\n"
    result = await rt.write_file(".gitignore", "build/\ndist/\n!keep.txt\nnode_modules/\n")
    assert result.verdict is None
    # removing an exclusion (or moving a negation after it) re-includes what it excluded
    with pytest.raises(ToolArgumentError) as err:
        await rt.write_file(".gitignore", "!keep.txt\nnode_modules/\n")
    assert "`build/`" in str(err.value) or "`!keep.txt`" in str(err.value)
    with pytest.raises(ToolArgumentError) as err:
        await rt.edit_file(".gitignore", "dist/\n", "")
    assert "would lose the rule `dist/`" in str(err.value) and "Ask the user" in str(err.value)
    assert (root / ".gitignore").read_text() == "build/\ndist/\n!keep.txt\nnode_modules/\n"
    # removing a negation only ignores more
    assert (await rt.edit_file(".gitignore", "!keep.txt\n", "")).verdict is None


async def test_removing_an_exclusion_does_not_serve_what_it_hid(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".gitignore": "private/\n", "private/notes.txt": "PRIVATE\n"})
    rt = make_rt(root, require_read_before_write=False)
    assert (await rt.read_files(["private/notes.txt"]))[0].verdict is not None
    for content in ("", "# nothing\n", "private\n"):
        with pytest.raises(ToolArgumentError):
            await rt.write_file(".gitignore", content)
    assert (root / ".gitignore").read_text() == "private/\n"
    assert (await rt.read_files(["private/notes.txt"]))[0].verdict is not None


@pytest.mark.parametrize("name", [".GitIgnore", ".gitignore.", "sub/.GITIGNORE"])
async def test_other_spellings_of_gitignore_are_guarded(tmp_path: Path, name: str) -> None:
    """On a case-insensitive filesystem these open git's ``.gitignore``."""
    root = write_tree(tmp_path, {name: "private/\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError):
        await rt.write_file(name, "")
    assert (await rt.write_file(name, "private/\nmore/\n")).verdict is None


async def test_a_gitignore_that_is_not_text_is_not_overwritten(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"keep.txt": "x\n"})
    (root / ".gitignore").write_bytes(b"secret\xff/\n")
    rt = make_rt(root, require_read_before_write=False)
    result = await rt.write_file(".gitignore", "other/\n")
    assert result.verdict is not None and result.verdict.status is Status.BINARY_FILE
    assert (root / ".gitignore").read_bytes() == b"secret\xff/\n"


async def test_pyproject_declaring_pathgate_is_a_policy_file(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"})
    rt = make_rt(root, require_read_before_write=False)
    assert (await rt.write_file("pyproject.toml", "[project]\nname = 'y'\n")).verdict is None
    (root / "pyproject.toml").write_text("[tool.pathgate]\nsize_limit = 100\n")
    result = await rt.write_file("pyproject.toml", "[project]\n")
    assert result.verdict is not None and result.verdict.gate is Gate.WRITE
    assert result.verdict.status is Status.BLOCKED and not result.verdict.opaque
    assert (root / "pyproject.toml").read_text() == "[tool.pathgate]\nsize_limit = 100\n"
    # a nested pyproject.toml is not read as configuration
    assert (await rt.write_file("pkg/pyproject.toml", "[tool.pathgate]\n")).verdict is None


async def test_a_bom_does_not_hide_a_negation(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {".pathgateignore": "secret.txt\n", "sub/secret.txt": "S\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError):
        await rt.write_file("sub/.gitignore", "\ufeff!secret.txt\n")
    assert (await rt.read_files(["sub/secret.txt"]))[0].verdict is not None


async def test_a_pyproject_may_not_gain_pathgate_settings(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"notes.txt": "x\n"})
    rt = make_rt(root, require_read_before_write=False)
    with pytest.raises(ToolArgumentError) as err:
        await rt.write_file("pyproject.toml", '[tool.pathgate]\nagent_files = [".pathgateignore", "notes.txt"]\n')
    assert err.value.field == "content"
    assert not (root / "pyproject.toml").exists()
    assert (await rt.write_file("pyproject.toml", "[project]\nname = 'x'\n")).verdict is None
