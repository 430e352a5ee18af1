"""Ignore lines with more than 64 bracket expressions (matched by git's ``wildmatch`` automaton,
not a regex: red team 18 J7, a 100 KB line of ``[a-z]`` cost seconds to compile) against
``git check-ignore`` on generated trees, with ``core.ignoreCase`` off and on."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pathgate.runtime.ignore._rules import WILD_BRACKETS
from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload, write_tree

#: Each class with names it matches (a generated path takes one almost always).
MEMBERS = {"[a-c]": "abc", "[!a]": "bz1", "[^b]": "az", "[abc]": "abc", "[[:alpha:]]": "qZ", "[[:digit:]]": "59",
           "[A-C]": "ABC", "[x-z]": "xyz", "[]a]": "]a", "[!]]": "a1", "[-a]": "-a"}
ATOMS = [*MEMBERS] * 3 + ["a", "b", "?", "*", "x", "1"]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("ignore_case", ["false", "true"])
def test_bracket_heavy_lines_decide_as_git(git_bin: str, tmp_path: Path, seed: int, ignore_case: str) -> None:
    rnd = random.Random(seed)
    lines: list[str] = []
    paths: set[str] = set()
    for _ in range(10):
        pat = [rnd.choice(ATOMS) for _ in range(rnd.randint(WILD_BRACKETS + 1, WILD_BRACKETS + 16))]
        lines.append(("!" if rnd.random() < 0.15 else "") + rnd.choice(["", "/", "d/", "**/"]) + "".join(pat)
                     + rnd.choice(["", "/"]))
        for _ in range(16):
            name = "".join(
                rnd.choice(["", "a", "bb"]) if a == "*" else rnd.choice("abcxyz1") if a == "?"
                else (rnd.choice(MEMBERS[a]) if rnd.random() < 0.97 else rnd.choice("abcxyzABC019]-"))
                if a in MEMBERS else a for a in pat)
            if rnd.random() < 0.3:
                name = name[:-1] + rnd.choice("aZ9")
            paths.update((name, "d/" + name))
    git_init(git_bin, tmp_path)
    write_tree(tmp_path, {".gitignore": ("\n".join(lines) + "\n").encode()})
    config = [f"core.ignoreCase={ignore_case}"]
    with (tmp_path / ".git" / "config").open("a") as f:
        f.write(f"[core]\n\tignoreCase = {ignore_case}\n")
    stdin = stdin_payload(sorted(paths))
    want = git_check_ignore(git_bin, tmp_path, ["-v", "-n", "--stdin"], stdin, config)
    assert want[1].count(b"\n") == len(paths) and b".gitignore:" in want[1]  # some lines match
    assert pathgate_check_ignore(tmp_path, ["-v", "-n", "--stdin"], stdin) == want
