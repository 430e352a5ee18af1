"""Remedy lines: candidate generation, placement and verification.

Verification runs against ``git check-ignore`` through :class:`GitSession`, a stand-in for
``IgnoreSession`` whose ``match_with_extra`` appends the lines to the directory's
``.gitignore`` on disk and asks git (the oracle of SPEC §4). The end-to-end test against
pathgate's own engine lives in ``test_remedy_engine.py``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from pathgate.runtime._remedy import (
    PROBE_NAME,
    candidate_lines,
    escape_component,
    remedy_bases,
    suggest_remedy,
)
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.verdicts import Remedy, Rule
from tests._gitinit import git_init


class GitSession:
    """``match``/``match_with_extra`` answered by ``git check-ignore --no-index``."""

    def __init__(self, git: str, root: Path, rules: Mapping[str, Sequence[str]],
                 files: Sequence[str]) -> None:
        self.git, self.root, self.rules = git, root, dict(rules)
        git_init(root, git=git)
        for f in files:
            path = root / f
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        self.calls: list[tuple[str, dict[str, list[str]]]] = []

    def _write(self, extra: Mapping[str, Sequence[str]]) -> None:
        for d in set(self.rules) | set(extra):
            lines = [*self.rules.get(d, ()), *extra.get(d, ())]
            (self.root / d / ".gitignore").write_text("".join(f"{ln}\n" for ln in lines), "utf-8")

    def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                         is_dir: bool | None = None) -> Match:
        self.calls.append((relpath, {k: list(v) for k, v in extra.items()}))
        self._write(extra)
        out = subprocess.run([self.git, "check-ignore", "--no-index", "-v", "-n", relpath],
                             cwd=self.root, capture_output=True, text=True, check=False).stdout
        self._write({})
        info, _, _ = out.partition("\t")
        source, line, pattern = info.split(":", 2)
        if not source:
            return Match(ignored=False)
        rule = Rule(source=source, line=int(line), pattern=pattern, negated=pattern.startswith("!"))
        return Match(ignored=not rule.negated, rule=rule)

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        return self.match_with_extra(relpath, {}, is_dir)


@pytest.fixture
def make_session(git_bin: str, tmp_path: Path) -> Any:
    def make(rules: Mapping[str, Sequence[str]], files: Sequence[str]) -> GitSession:
        return GitSession(git_bin, tmp_path / "repo", rules, files)
    return make


def suggest(session: GitSession, relpath: str, match: Match, **kw: Any) -> Remedy | None:
    return suggest_remedy(cast(IgnoreSession, session), relpath, match, **kw)


# --- escaping and candidates (no engine) ---------------------------------------------------

@pytest.mark.parametrize(("name", "escaped"), [
    ("plain.txt", "plain.txt"),
    ("a*b", "a\\*b"),
    ("q?.md", "q\\?.md"),
    ("[x].log", "\\[x].log"),
    ("back\\slash", "back\\\\slash"),
    ("#notes", "#notes"),  # never at the start of a line: lines begin with "/" or "!/"
    ("!bang", "!bang"),
])
def test_escape_component(name: str, escaped: str) -> None:
    assert escape_component(name) == escaped


def test_candidate_for_a_file_level_match_is_one_anchored_negation() -> None:
    assert candidate_lines("debug.log", "") == ["!/debug.log"]
    assert candidate_lines("src/app/debug.log", "") == ["!/src/app/debug.log"]


def test_candidate_is_relative_to_its_base_directory() -> None:
    assert candidate_lines("pkg/gen/x.py", "pkg") == ["!/gen/x.py"]


def test_candidate_below_an_excluded_directory_reincludes_level_by_level() -> None:
    assert candidate_lines("build/sub/out.js", "", "build") == [
        "!/build/", "/build/*", "!/build/sub/", "/build/sub/*", "!/build/sub/out.js"]
    assert candidate_lines("build/out.js", "", "build") == ["!/build/", "/build/*", "!/build/out.js"]
    assert candidate_lines("a/build/sub/out.js", "a", "a/build/sub") == [
        "!/build/sub/", "/build/sub/*", "!/build/sub/out.js"]


def test_candidate_escapes_names_and_quotes_trailing_spaces() -> None:
    assert candidate_lines("d[1]/f*.txt", "", "d[1]") == ["!/d\\[1]/", "/d\\[1]/*", "!/d\\[1]/f\\*.txt"]
    assert candidate_lines("dir /name  ", "") == ["!/dir /name\\ \\ "]


def test_bases_start_at_the_deciding_rules_directory() -> None:
    m = Match(ignored=True, rule=Rule("pkg/.gitignore", 1, "*.log"))
    assert remedy_bases("pkg/a/b/x.log", m) == ["pkg", "pkg/a", "pkg/a/b"]


@pytest.mark.parametrize("source", ["<built-in>", ".git/info/exclude", "/home/u/.config/git/ignore",
                                    "~/.gitignore"])
def test_global_sources_start_at_the_root(source: str) -> None:
    m = Match(ignored=True, rule=Rule(source, 1, "*.log"))
    assert remedy_bases("a/x.log", m) == ["", "a"]


def test_bases_stay_above_the_excluded_ancestor() -> None:
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "build/"), ancestor="a/build")
    assert remedy_bases("a/build/sub/out.js", m) == ["", "a"]


# --- suggest_remedy, verified by git ------------------------------------------------------

def test_file_level_rule(make_session: Any) -> None:
    s = make_session({"": ["*.log"]}, ["debug.log", "other.log"])
    m = s.match("debug.log")
    assert suggest(s, "debug.log", m) == Remedy(file=".pathgateignore", lines=("!/debug.log",))
    assert s.match_with_extra("other.log", {"": ["!/debug.log"]}).ignored  # siblings stay out


def test_excluded_ancestor_gets_the_level_by_level_lines(make_session: Any) -> None:
    s = make_session({"": ["build/"]}, ["build/sub/out.js", "build/sub/other.js", "build/x"])
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "build/"), ancestor="build")
    remedy = suggest(s, "build/sub/out.js", m)
    assert remedy == Remedy(file=".pathgateignore", ancestor="build", lines=(
        "!/build/", "/build/*", "!/build/sub/", "/build/sub/*", "!/build/sub/out.js"))
    extra = {"": list(remedy.lines)}
    assert not s.match_with_extra("build/sub/out.js", extra).ignored
    for sibling in ("build/x", "build/sub/other.js"):
        assert s.match_with_extra(sibling, extra).ignored, sibling


def test_rule_in_a_nested_gitignore_goes_to_that_directorys_agent_file(make_session: Any) -> None:
    s = make_session({"pkg": ["gen/"]}, ["pkg/gen/x.py"])
    m = Match(ignored=True, rule=Rule("pkg/.gitignore", 1, "gen/"), ancestor="pkg/gen")
    assert suggest(s, "pkg/gen/x.py", m) == Remedy(
        file="pkg/.pathgateignore", lines=("!/gen/", "/gen/*", "!/gen/x.py"), ancestor="pkg/gen")


def test_root_lines_cannot_beat_a_deeper_rule(make_session: Any) -> None:
    # The precedence trap: "!/pkg/a.log" in the root file loses to pkg/.gitignore's "*.log".
    s = make_session({"pkg": ["*.log"]}, ["pkg/a.log"])
    assert s.match_with_extra("pkg/a.log", {"": ["!/pkg/a.log"]}).ignored
    remedy = suggest(s, "pkg/a.log", s.match("pkg/a.log"))
    assert remedy == Remedy(file="pkg/.pathgateignore", lines=("!/a.log",))


def test_special_names_verify(make_session: Any) -> None:
    names = ["[x].txt", "a*b.txt", "q?.txt", "#notes.txt", "!bang.txt", "back\\slash.txt", "trail.txt  "]
    s = make_session({"": ["*.txt*"]}, names)
    for name in names:
        remedy = suggest(s, name, s.match(name))
        assert remedy is not None, name
        assert not s.match_with_extra(name, {"": list(remedy.lines)}).ignored, name


def test_deeper_ignore_file_inside_the_reincluded_directory_defeats_it(make_session: Any) -> None:
    # Once build/ is re-included, build/.gitignore is read and its "*.js" wins over the root's
    # lines; no single file can fix that, so nothing is offered.
    s = make_session({"": ["build/"], "build": ["*.js"]}, ["build/out.js"])
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "build/"), ancestor="build")
    assert suggest(s, "build/out.js", m) is None


def test_not_ignored_fail_closed_and_unwritable_names_get_nothing(make_session: Any) -> None:
    s = make_session({"": ["*.log"]}, ["a.log"])
    assert suggest(s, "a.log", Match(ignored=False)) is None
    assert suggest(s, "a.log", Match(ignored=True, fail_closed=True, unreadable=".gitignore")) is None
    nl = Match(ignored=True, rule=Rule(".gitignore", 1, "*.log"))
    assert suggest(s, "a\nb.log", nl) is None
    assert suggest(s, "a\rb.log", nl) is None
    assert suggest(s, "", nl) is None
    assert s.calls == []  # nothing was even evaluated


# --- verification logic with stubs ---------------------------------------------------------

class StubSession:
    """Answers from a function of (relpath, extra)."""

    def __init__(self, decide: Any) -> None:
        self.decide = decide
        self.calls: list[tuple[str, dict[str, list[str]]]] = []

    def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                         is_dir: bool | None = None) -> Match:
        self.calls.append((relpath, {k: list(v) for k, v in extra.items()}))
        return Match(ignored=bool(self.decide(relpath, extra)))


def test_falls_back_to_a_deeper_directory_when_the_first_does_not_verify() -> None:
    stub = StubSession(lambda path, extra: "" in extra)  # root lines never work
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "*.log"))
    remedy = suggest_remedy(cast(IgnoreSession, stub), "a/b/x.log", m)
    assert remedy == Remedy(file="a/.pathgateignore", lines=("!/b/x.log",))


def test_nothing_verifies_gives_none() -> None:
    stub = StubSession(lambda path, extra: True)
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "*.log"))
    assert suggest_remedy(cast(IgnoreSession, stub), "a/x.log", m) is None
    assert [extra for _, extra in stub.calls] == [{"": ["!/a/x.log"]}, {"a": ["!/x.log"]}]


def test_a_remedy_that_reincludes_siblings_is_rejected() -> None:
    stub = StubSession(lambda path, extra: False)  # everything readable, probes included
    m = Match(ignored=True, rule=Rule(".gitignore", 1, "build/"), ancestor="build")
    assert suggest_remedy(cast(IgnoreSession, stub), "build/out.js", m) is None
    assert ("build/" + PROBE_NAME, {"": ["!/build/", "/build/*", "!/build/out.js"]}) in stub.calls


def test_fail_closed_after_the_lines_is_not_a_remedy() -> None:
    class FailClosed(StubSession):
        def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                             is_dir: bool | None = None) -> Match:
            return Match(ignored=False, fail_closed=True)

    m = Match(ignored=True, rule=Rule(".gitignore", 1, "*.log"))
    assert suggest_remedy(cast(IgnoreSession, FailClosed(None)), "x.log", m) is None


def test_deciding_rule_in_another_agent_file_is_appended_to_that_file() -> None:
    stub = StubSession(lambda path, extra: False)
    m = Match(ignored=True, rule=Rule("pkg/.cursorignore", 4, "*.md"))
    remedy = suggest_remedy(cast(IgnoreSession, stub), "pkg/README.md", m)
    assert remedy == Remedy(file="pkg/.cursorignore", lines=("!/README.md",))


def test_agent_file_name_is_configurable() -> None:
    stub = StubSession(lambda path, extra: False)
    m = Match(ignored=True, rule=Rule("<built-in>", 3, "*.min.*"))
    remedy = suggest_remedy(cast(IgnoreSession, stub), "web/app.min.js", m, agent_file=".aiignore")
    assert remedy == Remedy(file=".aiignore", lines=("!/web/app.min.js",))
