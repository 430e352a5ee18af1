"""Hand-written cases, one per parsing or matching rule of gitignore.

Each case states the expected decisions and is also checked against the real git binary
(``git check-ignore --no-index -v -n``) so a wrong expectation cannot hide.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex, translate_wildmatch
from tests.oracle._git import (
    git_check_ignore,
    git_init,
    pathgate_check_ignore,
    stdin_payload,
    write_tree,
)

# (id, .gitignore bytes, files, dirs, {path: expected ignored})
CASES: list[tuple[str, bytes, list[str], list[str], dict[str, bool]]] = [
    ("basename-any-depth", b"x.log\n", ["x.log", "a/x.log", "a/b/x.log"], [],
     {"x.log": True, "a/x.log": True, "a/b/x.log": True}),
    ("anchored-leading-slash", b"/x.log\n", ["x.log", "a/x.log"], [],
     {"x.log": True, "a/x.log": False}),
    ("anchored-middle-slash", b"a/x.log\n", ["a/x.log", "b/a/x.log"], [],
     {"a/x.log": True, "b/a/x.log": False}),
    ("dir-only-needs-real-dir", b"build/\n", ["build", "a/build/f"], [],
     {"build": False, "a/build": True, "a/build/f": True}),
    ("negation-last-wins", b"*.log\n!keep.log\n", ["a.log", "keep.log"], [],
     {"a.log": True, "keep.log": False}),
    ("negation-cannot-reinclude-below-excluded-dir", b"d/\n!d/keep\n", ["d/keep"], [],
     {"d/keep": True}),
    ("dir-contents-then-reinclude", b"/d/*\n!/d/keep\n", ["d/keep", "d/other"], [],
     {"d/keep": False, "d/other": True}),
    ("double-star-leading", b"**/foo\n", ["foo", "a/foo", "a/b/foo"], [],
     {"foo": True, "a/foo": True, "a/b/foo": True}),
    ("double-star-middle", b"a/**/b\n", ["a/b", "a/x/b", "a/x/y/b", "ab"], [],
     {"a/b": True, "a/x/b": True, "a/x/y/b": True, "ab": False}),
    ("double-star-trailing", b"a/**\n", ["a/x", "a/y/z", "ab"], [],
     {"a/x": True, "a/y/z": True, "ab": False}),
    ("double-star-not-a-component", b"a**b\n", ["axxb", "a/b"], ["a"], {"axxb": True}),
    ("double-star-after-literal-prefix", b"x/foo**/bar\n", ["x/foo/bar", "x/foox/y/bar"], [],
     {"x/foo/bar": True, "x/foox/y/bar": True}),
    ("star-does-not-cross-slash", b"a/*.c\n", ["a/x.c", "a/b/x.c"], [],
     {"a/x.c": True, "a/b/x.c": False}),
    ("question-mark-one-byte", b"?.txt\n??.txt\n", ["a.txt", "é.txt"], [],
     {"a.txt": True, "é.txt": True}),
    ("brackets-ranges-negation", b"[a-c].x\n[!a-c].y\n[^z].z\n", ["b.x", "d.x", "b.y", "d.y", "z.z", "q.z"],
     [], {"b.x": True, "d.x": False, "b.y": False, "d.y": True, "z.z": False, "q.z": True}),
    ("posix-classes", b"[[:digit:]]*\n[[:upper:]][[:lower:]]\n", ["1a", "Ab", "ab", "AB"], [],
     {"1a": True, "Ab": True, "ab": False, "AB": False}),
    ("unknown-class-matches-nothing", b"[[:bogus:]]\n*.t\n", ["a", "x.t"], [],
     {"a": False, "x.t": True}),
    ("unterminated-bracket-matches-nothing", b"[ab\nz\n", ["[ab", "z"], [],
     {"[ab": False, "z": True}),
    ("bracket-first-close-is-literal", b"[]]\n", ["]"], [], {"]": True}),
    ("escapes", b"\\!bang\n\\#hash\n\\*star\n", ["!bang", "#hash", "*star", "xstar"], [],
     {"!bang": True, "#hash": True, "*star": True, "xstar": False}),
    ("comment-only-in-column-1", b"# a\n #b\n", ["# a", " #b"], [], {"# a": False, " #b": True}),
    ("trailing-spaces-trimmed", b"sp   \nesc\\ \n", ["sp", "esc "], [], {"sp": True, "esc ": True}),
    ("trailing-tab-kept", b"tab\t\n", ["tab", "tab\t"], [], {"tab": False, "tab\t": True}),
    ("crlf", b"c.txt\r\nd.txt\r\n", ["c.txt", "d.txt"], [], {"c.txt": True, "d.txt": True}),
    ("lone-cr-kept-mid-line", b"a\rb\n", ["a\rb"], [], {"a\rb": True}),
    ("bom-skipped", b"\xef\xbb\xbfbom.txt\n", ["bom.txt"], [], {"bom.txt": True}),
    ("lone-trailing-backslash-matches-nothing", b"foo\\\nbar\n", ["foo", "foo\\", "bar"], [],
     {"foo": False, "foo\\": False, "bar": True}),
    ("no-final-newline", b"last", ["last"], [], {"last": True}),
    ("file-named-like-dir", b"node_modules/\n", ["node_modules", "x/node_modules/y"], [],
     {"node_modules": False, "x/node_modules/y": True}),
    ("negated-dir-lets-dir-through", b"*\n!d/\n!d/f\n", ["d/f", "e"], [],
     {"d/f": False, "e": True}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule(case: tuple[str, bytes, list[str], list[str], dict[str, bool]], tmp_path: Path,
              git_bin: str) -> None:
    _, gitignore, files, dirs, expected = case
    git_init(git_bin, tmp_path)
    write_tree(tmp_path, {**{f: b"x" for f in files}, ".gitignore": gitignore}, dirs)
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null"))
    session = index.session()
    got = {p: session.match(p).ignored for p in expected}
    assert got == expected
    paths = [*files, *dirs, *expected]
    payload = stdin_payload(paths)
    args = ["-v", "-n", "--stdin"]
    assert pathgate_check_ignore(tmp_path, args, payload) == \
        git_check_ignore(git_bin, tmp_path, args, payload)


def test_rule_provenance(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": b"# c\n\n*.log\n!keep.log\nbuild/\n",
                          "sub/.gitignore": b"*.tmp\n", "build/x": b"", "sub/a.tmp": b""})
    s = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null")).session()
    m = s.match("a.log")
    assert m.ignored and m.rule is not None
    assert (m.rule.source, m.rule.line, m.rule.pattern, m.rule.negated) == (".gitignore", 3, "*.log", False)
    m = s.match("keep.log")
    assert not m.ignored and m.rule is not None and m.rule.negated and m.rule.pattern == "!keep.log"
    m = s.match("build/x")
    assert m.ignored and m.ancestor == "build" and m.rule is not None and m.rule.pattern == "build/"
    m = s.match("sub/a.tmp")
    assert m.rule is not None and m.rule.location() == "sub/.gitignore:1:*.tmp"
    assert s.match("other").rule is None


def test_sources_order_and_agent_files_win(tmp_path: Path, git_bin: str) -> None:
    git_init(git_bin, tmp_path)
    write_tree(tmp_path, {".gitignore": b"*.log\n", ".pathgateignore": b"!keep.log\n",
                          "a/.gitignore": b"x\n", "keep.log": b"", "a/x": b""})
    (tmp_path / ".git" / "info" / "exclude").write_bytes(b"*.q\n")
    cfg = IgnoreConfig(excludes_file="/dev/null")
    s = IgnoreIndex(tmp_path, cfg).session()
    assert not s.match("keep.log").ignored
    assert s.match("z.q").rule is not None and s.match("z.q").rule.source == ".git/info/exclude"
    assert s.sources("a/x") == ["<built-in>", "/dev/null", ".git/info/exclude", ".gitignore",
                                ".pathgateignore",
                                "a/.gitignore"]
    # built-in defaults: lowest precedence, line = position in the list
    m = s.match("node_modules/pkg/index.js")
    assert m.ignored and m.rule is not None and m.rule.is_builtin and m.ancestor == "node_modules"
    git_only = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null")).session()
    assert git_only.match("keep.log").ignored
    assert not git_only.match("node_modules/pkg/index.js").ignored


def test_excludes_file_below_info_exclude(tmp_path: Path, git_bin: str) -> None:
    git_init(git_bin, tmp_path)
    excl = tmp_path / "global-ignore"
    excl.write_bytes(b"*.w\n!keep.w\n")
    (tmp_path / ".git" / "info" / "exclude").write_bytes(b"keep.w\n")
    s = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file=str(excl))).session()
    assert s.match("a.w").rule is not None and s.match("a.w").rule.source == str(excl)
    assert s.match("keep.w").ignored  # info/exclude wins over core.excludesFile


def test_excludes_file_from_git_config(tmp_path: Path, git_bin: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    git_init(git_bin, tmp_path)
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "ignore").write_bytes(b"*.xdg\n")
    (home / "custom").write_bytes(b"*.cfg\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    cfg = IgnoreConfig.git_only()
    assert IgnoreIndex(tmp_path, cfg).match("a.xdg").ignored  # the XDG default
    (home / ".gitconfig").write_text("[core]\n\texcludesFile = ~/custom\n")
    s = IgnoreIndex(tmp_path, cfg).session()
    assert s.match("a.cfg").ignored and not s.match("a.xdg").ignored
    with open(tmp_path / ".git" / "config", "a") as fh:
        fh.write("[core]\n\tignorecase = true\n")
    assert IgnoreIndex(tmp_path, cfg).match("A.CFG").ignored


def test_not_a_git_repository(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": b"*.log\n"})
    s = IgnoreIndex(tmp_path, IgnoreConfig(excludes_file="")).session()
    assert s.match("a.log").ignored and not s.match("a.txt").ignored


def test_symlinked_gitignore_is_not_followed(tmp_path: Path, git_bin: str) -> None:
    git_init(git_bin, tmp_path)
    write_tree(tmp_path, {"real": b"*.txt\n", "s/a.txt": b""})
    os.symlink("../real", tmp_path / "s" / ".gitignore")
    s = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null")).session()
    assert not s.match("s/a.txt").ignored
    assert [i.state for i in s.source_infos("s/a.txt")][-1] == "symlink"
    payload = stdin_payload(["s/a.txt"])
    assert pathgate_check_ignore(tmp_path, ["-v", "-n", "--stdin"], payload) == \
        git_check_ignore(git_bin, tmp_path, ["-v", "-n", "--stdin"], payload)


def test_non_utf8_names(tmp_path: Path, git_bin: str) -> None:
    git_init(git_bin, tmp_path)
    name = os.fsdecode(b"\xff\xfe.bin")
    write_tree(tmp_path, {".gitignore": b"?\xfe.bin\n", name: b""})
    assert IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null")).match(name).ignored
    for args in (["-v", "-n", "--stdin"], ["-v", "-z", "--stdin"]):
        payload = stdin_payload([name], nul="-z" in args)
        assert pathgate_check_ignore(tmp_path, args, payload) == \
            git_check_ignore(git_bin, tmp_path, args, payload)


def test_translate_wildmatch_shapes() -> None:
    assert translate_wildmatch("a\\", True) is None
    assert translate_wildmatch("[a", True) is None
    assert translate_wildmatch("[[:nope:]]", False) is None
    assert translate_wildmatch("**/x", True) == "(?:.*/)?x"
    # literals are plain where no regex metacharacter, escaped otherwise
    assert translate_wildmatch("a.b(c)+$", True) == "a\\x2eb\\x28c\\x29\\x2b\\x24"
    assert translate_wildmatch("\xe9 #", True) == "\\xe9\\x20\\x23"


def test_ignore_case_like_git(tmp_path: Path, git_bin: str) -> None:
    git_init(git_bin, tmp_path)
    files = ["x.log", "X.LOG", "Build/f", "a/B", "Ab", "aB", "Q", "q"]
    write_tree(tmp_path, {**{f: b"x" for f in files},
                          ".gitignore": b"*.LOG\nbuild/\nA/b\n[A-Z]b\n\\Q\n[[:upper:]]\n"})
    index = IgnoreIndex(tmp_path, IgnoreConfig.git_only(excludes_file="/dev/null", ignore_case=True))
    assert index.match("x.log").ignored and index.match("Build/f").ignored
    payload = stdin_payload(files)
    args = ["-v", "-n", "--stdin"]
    assert pathgate_check_ignore(tmp_path, ["--ignore-case", *args], payload) == \
        git_check_ignore(git_bin, tmp_path, args, payload, ["core.ignoreCase=true"])
