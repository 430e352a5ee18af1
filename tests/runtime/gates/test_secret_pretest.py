"""The secret matcher's name pre-test (``SecretMatcher.maybe``) and the walk's per-directory
use of it (``_discover._by_dir``) decide exactly what ``SecretMatcher.is_secret`` decides:
a name the pre-test clears, in a directory that is no secret, is no secret; a secret
directory makes everything below it secret."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import Policy
from pathgate.runtime._walk import FILE, Entry
from pathgate.runtime.gates.secrets import SecretMatcher, normalize_name
from pathgate.runtime.tools import _regex  # noqa: F401  # loads RE2: _by_dir's chunk scan
from pathgate.runtime.tools._secret_walk import _by_dir, _by_dir_each, _memo, _needle_scan, _pretested

_DEFAULTS = list(Policy().secret_patterns)
#: host ``extra_secret_patterns``-like additions: wildcards, brackets, path patterns, case
_EXTRA = ["*.x", "x*", "?x", "[ab]c", "[]ab]x", "a[!/]b", "a[/]b", "p/[/]q", "x[!]y]z", "[q", "b/*/c", "lit", "q*r",
          "*/lit2", "Tok*.TXT", "sub/dir/", "*.ß", "kelvin*", "p/*q", "we?rd/na.me", "deep/"]
_NO_NEEDLE = ["*", "?", "*?", "[ab]", "a/*", "[!x]*", "x/[q]", "p/q/*", "a/b?", "p/q*"]

#: backup, swap and NTFS spellings of secrets (default patterns)
_BACKUPS = [".env~", "#.env#", ".env.swp", "..env.swp", "..env.swo", ".env.bak", ".env.orig", ".env.old", ".env.save",
            ".env.backup", ".env___jb_old___", ".env___jb_tmp___", "server.key.~1~", "server.key.~12~", "server.key~~",
            "id_rsa.bak", "id_rsa.pub~", "#id_rsa#", ".id_rsa.swp", "cert.pem.orig", ".ENV", ".Env.Local", ".env ",
            ".env.", ".env:$DATA", "x.PEM:zone", "SERVER.KEY. ", "Credentials.JSON", ".netrc~", "#.npmrc#",
            "client_secret_1.json.bak", "service-account-x.json~", ".env-prod", ".env_dev", "x.pem:443",
            "host:443.pem", ".env.local.swp", "..env.local.swa"]

_ALPHABET = "abcpqrtxyzkm.~#: /_-*?[]ßİKΣςENVKEYPM0123456789"
#: names the extra patterns make secret (brackets, wildcards, path tails)
_MATCHING = ["ax", "]x", "bx", "bc", "ac", "xaz", "[q", "[qa", "lit", "lit2", "tokyo.txt", "TOK.TXT", "na.me", "dir",
             "deep", "q1r", "kelvin", "KELVIN9", "a.ss", "a.ß", "a.x", "b", "q", "c", "yq", "x"]
_NAME = st.one_of(st.sampled_from([*_BACKUPS, *_MATCHING, ".env.example", "config", "config~", "credentials", "ok"]),
                  st.text(alphabet=_ALPHABET, min_size=1, max_size=10).map(lambda s: s.replace("/", "_")),
                  st.builds(lambda a, b: a + b, st.sampled_from(_BACKUPS + _MATCHING),
                            st.sampled_from(["", "~", ".bak", ".swp", "#", " ", ".", ":s"])))
_HEAD = st.sampled_from(["", "src", "a", "a/b", "b/q", "b/q/c", "p", "p/q", "x/.aws", ".aws", ".AWS ", "d/.docker",
                         "k/.kube", ".env.d", "k.pem", "k.pem/deep", "a:b", "c.pem:x", "q/.env/z", "sub/dir",
                         "sub/dir/x", "we?rd", "we_rd", "z/.aws/credentials", "z/.kube/config/w", "deep", "m/deep/n",
                         "id_rsa.d", "x/#.env#", "ﬁle", "ß"])


def test_backup_and_ntfs_spellings_pass_the_pretest() -> None:
    m = SecretMatcher(_DEFAULTS)
    assert m.maybe is not None
    for name in _BACKUPS:
        assert m.is_secret(f"src/{name}"), name
        assert m.maybe(name.casefold()) is not None, name
    for rel in ["z/.aws/credentials~", "d/.docker/config.json.bak", "k/.kube/config.swp"[:-4] + "~"]:
        assert m.is_secret(rel) and m.maybe(rel.rpartition("/")[2].casefold()) is not None, rel
    for name in ["Main.java", "pom.xml", "README.md", "app.env", ".envrc", "monkey.java"]:
        assert not m.is_secret(f"src/{name}"), name


def test_no_pretest_when_a_pattern_has_no_literal_text() -> None:
    for pattern in _NO_NEEDLE:
        assert SecretMatcher([*_DEFAULTS, pattern]).maybe is None, pattern
    assert SecretMatcher(_DEFAULTS + _EXTRA).maybe is not None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA), max_size=6), st.booleans(),
       st.lists(st.tuples(_HEAD, _NAME), min_size=1, max_size=30))
def test_pretest_never_clears_a_secret(patterns: list[str], defaults: bool, paths: list[tuple[str, str]]) -> None:
    m = SecretMatcher((_DEFAULTS if defaults else []) + patterns)
    maybe = m.maybe
    assert maybe is not None
    for head, name in paths:
        rel = f"{head}/{name}" if head else name
        secret = SecretMatcher((_DEFAULTS if defaults else []) + patterns).is_secret(rel)  # cold: no cache
        if m.dir_is_secret(head):
            assert secret, rel
        elif maybe(name.casefold()) is None:
            assert not secret, (patterns, rel)
        assert m.in_dir(head)(name) == secret, (patterns, rel)
        if not m.dir_is_secret(head):
            assert m.in_plain_dir(head, name) == secret, (patterns, rel)
            cold = SecretMatcher((_DEFAULTS if defaults else []) + patterns)
            assert cold.in_plain_dir(head, name) == secret, (patterns, rel)  # nothing cached


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA), max_size=6), st.booleans(),
       st.lists(st.tuples(_HEAD, _NAME), min_size=1, max_size=30))
def test_pretest_never_clears_a_secret_exhaustive(
    patterns: list[str], defaults: bool, paths: list[tuple[str, str]]
) -> None:
    """``test_pretest_never_clears_a_secret`` with the full example count."""
    test_pretest_never_clears_a_secret.hypothesis.inner_test(patterns, defaults, paths)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA + _NO_NEEDLE[:2]), max_size=5),
       st.lists(st.tuples(_HEAD, st.lists(_NAME, min_size=1, max_size=6)), min_size=1, max_size=12),
       st.booleans())
def test_walk_chunk_decisions_equal_is_secret(patterns: list[str], dirs: list[tuple[str, list[str]]],
                                              walked_parents: bool) -> None:
    """A walked chunk (directory runs, repeats, parents not first) decided by ``_by_dir``
    and one relpath at a time by ``_pretested`` (where a pre-test exists; each directory
    known as a path first when the walk met it) as each relpath by a fresh matcher's
    ``is_secret``."""
    m = SecretMatcher([*_DEFAULTS, *patterns])
    if m.maybe is None:
        return
    slow = SecretMatcher([*_DEFAULTS, *patterns])
    chunk = [Entry(f"{head}/{name}" if head else name, FILE) for head, names in dirs for name in names]
    seeded = {head: slow.is_secret(head) for head, _ in dirs if head} if walked_parents else {}
    known = dict(seeded)
    _by_dir(m, m.is_secret, chunk, known)
    one = _pretested(SecretMatcher([*_DEFAULTS, *patterns]), _memo(m.in_dir), dict(seeded))
    for e in chunk:
        assert known[e.relpath] == slow.is_secret(e.relpath) == one(e.relpath), (patterns, e.relpath)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA + _NO_NEEDLE[:2]), max_size=5),
       st.lists(st.tuples(_HEAD, st.lists(_NAME, min_size=1, max_size=6)), min_size=1, max_size=12),
       st.booleans())
def test_walk_chunk_decisions_equal_is_secret_exhaustive(
    patterns: list[str], dirs: list[tuple[str, list[str]]], walked_parents: bool
) -> None:
    """``test_walk_chunk_decisions_equal_is_secret`` with the full example count."""
    test_walk_chunk_decisions_equal_is_secret.hypothesis.inner_test(patterns, dirs, walked_parents)


@settings(max_examples=70, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA), max_size=6),
       st.lists(st.tuples(_HEAD, _NAME), min_size=1, max_size=20))
def test_a_directory_no_secret_as_a_path_is_none_as_a_directory(patterns: list[str],
                                                                paths: list[tuple[str, str]]) -> None:
    """What lets a walk skip a directory's own secret test: the directory was judged no
    secret as a walked entry (``is_secret``) so ``dir_is_secret`` is false (no ``:``)."""
    for head, name in paths:
        d = f"{head}/{name}".strip("/") if head else name
        if ":" in d:
            continue
        if not SecretMatcher([*_DEFAULTS, *patterns]).is_secret(d):
            assert not SecretMatcher([*_DEFAULTS, *patterns]).dir_is_secret(d), (patterns, d)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_DEFAULTS + _EXTRA), max_size=6),
       st.lists(st.tuples(_HEAD, _NAME), min_size=1, max_size=20))
def test_a_directory_no_secret_as_a_path_is_none_as_a_directory_exhaustive(
    patterns: list[str], paths: list[tuple[str, str]]
) -> None:
    """``test_a_directory_no_secret_as_a_path_is_none_as_a_directory`` with the full example count."""
    test_a_directory_no_secret_as_a_path_is_none_as_a_directory.hypothesis.inner_test(patterns, paths)


_ASCII_HEAD = st.sampled_from(["", "src", "a/b", "x/.aws", ".aws", "d/.docker", "k/.kube", ".env.d", "k.pem",
                               "k.pem/deep", "q/.env/z", "sub/dir", "sub/dir/x", "z/.aws/credentials",
                               "z/.kube/config/w", "deep", "m/deep/n", "id_rsa.d", "x/#.env#", "config",
                               "com/app/config", "Config/Keys", "a:b", ".AWS "])
_ASCII_NAME = st.one_of(
    st.sampled_from([n for n in [*_BACKUPS, *_MATCHING] if n.isascii()] + ["AppConfig.java", "config", "Main.java"]),
    st.text(alphabet="abcpqrtxyzkm.~#: _-ENVKEYPMconfig0123", min_size=1, max_size=12))


@settings(max_examples=70, deadline=None)
@given(st.lists(st.sampled_from([p for p in _DEFAULTS + _EXTRA if p.isascii()] + ["*.ß", "kelvin*"]), max_size=5),
       st.lists(st.tuples(_ASCII_HEAD, st.lists(_ASCII_NAME, min_size=1, max_size=6)), min_size=1, max_size=12),
       st.booleans())
def test_chunk_needle_scan_equals_each_entry(patterns: list[str], dirs: list[tuple[str, list[str]]],
                                             walked_parents: bool) -> None:
    """``_by_dir``'s RE2 scan of an ASCII chunk (no needle in a relpath: no secret; the
    others decided one by one) decides as ``_by_dir_each`` and a fresh ``is_secret``, with
    and without the directories known first; needles that are not ASCII (``*.ß``) are left
    out of the scan."""
    m = SecretMatcher([*_DEFAULTS, *patterns])
    if m.maybe is None:
        return
    assert _needle_scan(m) is not None
    slow = SecretMatcher([*_DEFAULTS, *patterns])
    chunk = [Entry(f"{head}/{name}" if head else name, FILE) for head, names in dirs for name in names]
    seeded = {head: slow.is_secret(head) for head, _ in dirs if head} if walked_parents else {}
    batch, each = dict(seeded), dict(seeded)
    _by_dir(m, m.is_secret, chunk, batch)
    _by_dir_each(SecretMatcher([*_DEFAULTS, *patterns]), slow.is_secret, chunk, each)
    for e in chunk:
        assert batch[e.relpath] == each[e.relpath] == slow.is_secret(e.relpath), (patterns, e.relpath)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([p for p in _DEFAULTS + _EXTRA if p.isascii()] + ["*.ß", "kelvin*"]), max_size=5),
       st.lists(st.tuples(_ASCII_HEAD, st.lists(_ASCII_NAME, min_size=1, max_size=6)), min_size=1, max_size=12),
       st.booleans())
def test_chunk_needle_scan_equals_each_entry_exhaustive(
    patterns: list[str], dirs: list[tuple[str, list[str]]], walked_parents: bool
) -> None:
    """``test_chunk_needle_scan_equals_each_entry`` with the full example count."""
    test_chunk_needle_scan_equals_each_entry.hypothesis.inner_test(patterns, dirs, walked_parents)


def test_no_needle_in_a_relpath_means_no_secret() -> None:
    """What the chunk scan rests on, on the default patterns and backups: every secret
    relpath (below a secret directory too) holds a needle."""
    m = SecretMatcher(_DEFAULTS)
    assert m.needles is not None
    heads = ["", "src", ".env.d", "x/.aws", "k/.kube", "k.pem", "q/#.env#/z"]
    for head in heads:
        for name in [*_BACKUPS, "config", "credentials", "ok.txt", "Main.java"]:
            rel = f"{head}/{name}" if head else name
            if m.is_secret(rel):
                assert any(n in rel.casefold() for n in m.needles), rel


def _whole_path(m: SecretMatcher, head: str) -> tuple[bool, str]:
    """``_dir_info`` from every component of the path (its rule, written out)."""
    comps = head.split("/")
    secret = any(m.is_secret_name(c) for c in comps)
    norm = "/".join(normalize_name(c) for c in comps)
    return secret or m._full_dir.match(norm) is not None, norm


def test_ancestors_answer_as_the_whole_path() -> None:
    """A directory's answer made from its cached ancestors down (``_ancestors``: its
    ancestors were never asked about) equals the answer from its whole path."""
    heads = ["a/b/c/d", "x/.aws/credentials/y", "k/.kube/config/z/w", "p/.env.d/q/r", "m/k.pem/n", "s/id_rsa~/t/u",
             "deep/deeper/" * 20 + "end", "a/b/.ENV /c", "q/b/x/c/d", "w/sub/dir/e"]
    patterns = [*_DEFAULTS, "b/*/c", "sub/dir/"]
    for head in heads:
        for cut in range(head.count("/") + 1, 0, -1):
            h = "/".join(head.split("/")[:cut])
            m = SecretMatcher(patterns)
            assert m._dir_info(h) == _whole_path(m, h), h  # cold: every ancestor made on the way
            assert all(m._dirs[h.rsplit("/", k)[0]] == _whole_path(m, h.rsplit("/", k)[0])
                       for k in range(h.count("/") + 1)), h
