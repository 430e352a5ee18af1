"""Big ignore files (issue F6): thousands of wildcard lines, negations among them, decide
exactly as the lines one by one and as ``git check-ignore``.

Past :data:`~pathgate.runtime.ignore._groups.CHUNK` globs a list indexes them by literal
prefix / suffix and compiles a bucket only when a path reaches it: these tests make every
kind of bucket (basename and path globs with a literal start, with only a literal tail,
with neither; ``wildmatch``-port lines; malformed lines; dir-only lines) hold more than
one chunk, and check the decisions rule by rule and against git.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pathgate.runtime.ignore import IgnoreList, Pattern, compile_pattern
from pathgate.runtime.ignore._groups import CHUNK
from pathgate.runtime.ignore._rules import decide
from pathgate.verdicts import Rule

_STEMS = ["ab", "abc", "b", "x1", "Ab", "q"]
_RARE = [f"n{k}" for k in range(40)]  # stems of small buckets (one or two lines each)
_TAILS = [".c", ".log", "z", "c", ".C", ""]


def _line(rng: random.Random) -> str:
    """One random wildcard line over a small alphabet (so lines and paths meet often)."""
    s, t = rng.choice(_RARE if rng.random() < 0.05 else _STEMS), rng.choice(_TAILS)
    shapes = [
        f"{s}*{t}", f"{s}?{t}", f"*{s}*{t}", f"[ab]*{t}", f"*{s}[0-9a-c]", f"{s}*",
        f"?{s}*", f"*{s}*", f"*[!x]{t}", f"{s}/*{t}", f"{s}/**/{s}*", f"**/{s}*{t}",
        f"*/{s}{t}", f"/{s}*/{t or 'z'}", f"{s}/[a-c]*/**", f"*{s}*{s}*{t}",
        f"**/*{s}*/**/*{t}", f"{s}\\*{t}", f"[{s}", f"{s}*{t}\\", f"[[:upper:]]{s}*",
        f"{s}**{t}", f"*{s}/", f"{s}*{t}/", f"**/{s}/{s}{t}", f"/**/{s}/x1z", f"!**/{s}/{s}",
    ]
    line = rng.choice(shapes)
    return ("!" + line) if rng.random() < 0.3 else line


def _lines(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [_line(rng) for _ in range(n)]


def _paths(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    comps = [*_STEMS, "ab.c", "abc.log", "x1z", "bq.C", "qc", "abxabz", "b*z", "[ab",
             "ab1", "Abc.c", "x", "z", *_RARE, *(f"{r}.c" for r in _RARE),
             *(f"{r}.logz" for r in _RARE)]
    return sorted({"/".join(rng.choice(comps) for _ in range(rng.randint(1, 4)))
                   for _ in range(n)})


def _compiled(lines: list[str], fold: bool) -> list[Pattern]:
    return [compile_pattern(line, Rule("t", i + 1, line, line.startswith("!")), fold)
            for i, line in enumerate(lines)]


def _one_by_one(pats: list[Pattern], rel: str, is_dir: bool) -> int:
    """The index of the last line that matches ``rel``, rule by rule; -1 when none."""
    name = rel.rpartition("/")[2]
    for i in reversed(range(len(pats))):
        pt = pats[i]
        if pt.dir_only and not is_dir:
            continue
        if pt.matches(name, rel):
            return i
    return -1


@pytest.mark.parametrize("fold", [False, True], ids=["case", "ignore-case"])
def test_big_list_equals_rules_one_by_one(fold: bool) -> None:
    lines = _lines(6, 40 * CHUNK)
    lst = IgnoreList.from_lines(lines, fold=fold)
    pats = _compiled(lines, fold)
    assert lst.dtab.bglob is not None and lst.dtab.bglob.pmap and lst.dtab.bglob.smap
    assert lst.dtab.bglob.rest is not None and len(lst.dtab.bglob.rest.chunks) > 1
    for rel in _paths(7, 400):
        view = rel.lower() if fold else rel
        for is_dir in (False, True):
            want = _one_by_one(pats, view, is_dir)
            got = decide((lst,), view, view.rpartition("/")[2], is_dir, lambda _, d=is_dir: d,
                         rel)
            assert (lst.patterns.index(got) if got is not None else -1) == want, (rel, is_dir)


def test_big_list_below_a_base_equals_rules_one_by_one() -> None:
    lines = _lines(8, 20 * CHUNK)
    lst = IgnoreList.from_lines(lines, base="m/n")
    pats = _compiled(lines, False)
    for rel in _paths(9, 300):
        want = _one_by_one(pats, rel, False)
        got = decide((lst,), "m/n/" + rel, rel.rpartition("/")[2], False, lambda _: False,
                     "m/n/" + rel)
        assert (lst.patterns.index(got) if got is not None else -1) == want, rel


@pytest.fixture(scope="module")
def big_ignore_repo(tmp_path_factory: pytest.TempPathFactory, git_bin: str) -> Path:
    """The generated repository of the test below, built once for both case modes (the
    mode is a check-ignore option; nothing is written)."""
    from tests.oracle._git import git_init, write_tree

    root = tmp_path_factory.mktemp("big-ignore")
    git_init(git_bin, root)
    paths = _paths(11, 500)
    files = {p: b"x" for p in paths
             if p != "ab" and not any(q.startswith(p + "/") for q in paths)}
    files[".gitignore"] = "\n".join(_lines(12, 2500)).encode() + b"\n"
    files["ab/.gitignore"] = "\n".join(_lines(13, 600)).encode() + b"\n"
    write_tree(root, files)
    return root


@pytest.mark.parametrize("fold", [False, True], ids=["case", "ignore-case"])
def test_big_generated_ignore_file_equals_git(big_ignore_repo: Path, git_bin: str, fold: bool) -> None:
    """A 2,500-line root ``.gitignore`` and a 600-line nested one of wildcard lines, a
    third of them negations, on a generated tree: ``pathgate check-ignore`` == git."""
    from tests.oracle._git import git_check_ignore, pathgate_check_ignore, stdin_payload

    root = big_ignore_repo
    paths = _paths(11, 500)
    queries = [*paths, *(f"{p}/" for p in paths[::5])]
    args = ["-v", "-n", "--non-matching", "--stdin"]
    payload = stdin_payload(queries)
    expected = git_check_ignore(git_bin, root, args, payload,
                                ["core.ignoreCase=true"] if fold else [])
    got = pathgate_check_ignore(root, ["--ignore-case", *args] if fold else args, payload)
    assert expected[1].count(b"\n") == len(queries)
    assert got[1].decode() == expected[1].decode()
    assert got == expected


@pytest.mark.parametrize("filler", ["**/q{k}/*", "*/q{k}/*", "q{k}*z"])
def test_double_star_slash_before_a_literal_tail_matches_zero_directories(
        tmp_path: Path, git_bin: str, filler: str) -> None:
    """Red team 5: past 64 wildcard lines a line is indexed by the literal text every match
    ends with; for ``**/foo/bar`` that is ``foo/bar``, not ``/foo/bar`` (``**/`` matches zero
    directories), or ``foo/bar`` itself was never tested (served where git ignores it)."""
    from tests.oracle._git import git_check_ignore, git_init, pathgate_check_ignore, stdin_payload, write_tree

    git_init(git_bin, tmp_path)
    lines = ["*", "!*/", *(filler.format(k=k) for k in range(70)), "**/foo/bar", "!**/keep/me",
             "/**/deep/x", "**/**/y z"]
    files = {p: b"x" for p in ("foo/bar", "a/foo/bar", "keep/me", "a/keep/me", "deep/x", "a/deep/x",
                                "y z", "a/y z", "other")}
    files[".gitignore"] = ("\n".join(lines) + "\n").encode()
    write_tree(tmp_path, files)
    queries = sorted(p for p in files if p != ".gitignore")
    args = ["-v", "-n", "--non-matching", "--stdin"]
    payload = stdin_payload(queries)
    expected = git_check_ignore(git_bin, tmp_path, args, payload, [])
    assert pathgate_check_ignore(tmp_path, args, payload) == expected
    lst = IgnoreList.from_lines(lines)
    for rel in queries:
        got = decide((lst,), rel, rel.rpartition("/")[2], False, lambda _: False, rel)
        want = _one_by_one(lst.patterns, rel, False)
        assert (lst.patterns.index(got) if got is not None else -1) == want, rel


def _star_line(rng: random.Random) -> str:
    """A line git's wildmatch port decides (three or more runs of ``*``), with classes,
    escapes, ``**`` and slashes: the rules the chunks' RE2 filter screens."""
    atoms = ["a", "b", "c", "x1", "*", "*", "**", "?", "[ab]", "[!a]", "[a-c]", "[[:upper:]]", "\\*",
             "\\a", ".", "/", "**/", "/**/", "\xe9"]
    body = "*" + "*".join(rng.choice(atoms) for _ in range(rng.randint(2, 5))) + rng.choice(["*", "*c", "*.c"])
    return ("!" + body) if rng.random() < 0.2 else body


def _filters(lst: IgnoreList) -> list[object]:
    from pathgate.runtime.ignore._groups import _Chunk, _Chunks

    found: list[object] = []
    for group in (lst.dtab.bglob, lst.dtab.pglob):
        rest = getattr(group, "rest", group)
        chunks = rest.chunks if isinstance(rest, _Chunks) else [rest] if isinstance(rest, _Chunk) else []
        found += [c.filt for c in chunks if c.filt]
    return found


@pytest.mark.parametrize("fold", [False, True], ids=["case", "ignore-case"])
def test_star_run_rules_screened_by_one_regex_decide_as_one_by_one(fold: bool) -> None:
    """Red team 20 L1: star-run rules (one Python automaton run each) are screened per chunk
    by one RE2 regex once a chunk has been asked about a few texts; the screen only skips
    rules that cannot match, so every decision equals the rules tested one by one (the
    generated patterns include classes, escapes, ``**`` and latin-1 bytes)."""
    rng = random.Random(20)
    lines = [_star_line(rng) for _ in range(6 * CHUNK)]
    lst = IgnoreList.from_lines(lines, fold=fold)
    pats = _compiled(lines, fold)
    comps = ["a", "b", "c", "ab", "abc", "x1", "Abc.c", "a*b", "ca.c", "\xe9ab", "bca", "z", "a.c", "cab.c"]
    rels = sorted({"/".join(rng.choice(comps) for _ in range(rng.randint(1, 4))) for _ in range(600)})
    for rel in rels:
        view = rel.lower() if fold else rel
        want = _one_by_one(pats, view, False)
        got = decide((lst,), view, view.rpartition("/")[2], False, lambda _: False, rel)
        assert (lst.patterns.index(got) if got is not None else -1) == want, rel
    assert _filters(lst), "no chunk built its filter: the screen was not exercised"
