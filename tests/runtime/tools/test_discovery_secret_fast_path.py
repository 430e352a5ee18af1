"""code_search's fast paths give the same answers as the slow ones: the per-directory,
once-per-call secret test of discovery walks equals ``SecretMatcher.is_secret``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import Policy
from pathgate.runtime.gates.secrets import SecretMatcher
from pathgate.runtime.tools._discover import _memo

_NAMES = [".env", ".ENV. ", ".env.example", ".Env.Example.", "x.pem", "host:443.pem", ".env:$DATA", "a:b",
          "credentials", "config", "config.json", "id_rsa.pub", "client_secret_1.json", "ok.txt", "..", "."]
_DIRS = ["", "src", ".aws", "a/.aws", ".docker", "x/.kube", ".env.d", "k.pem", "a:b", "c.pem:x", "A/.AWS ",
         "q/.env/z", "deep/er/est", "p/q", "p/q/r", "p/q/r/s", "a/.aws/credentials", "z/.kube/config/w"]
_PATTERNS = [*Policy().secret_patterns, "p/*/r", "deep/", "*.x", "a/*b", "x*y", "*z*", "[q]w", "lit"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_DIRS), st.sampled_from(_DIRS), st.sampled_from(_NAMES)),
                min_size=1, max_size=40))
def test_per_directory_secret_test_equals_is_secret(paths: list[tuple[str, str, str]]) -> None:
    """Any order of asking (directory runs broken, parents not seen first, repeats)."""
    fast = _memo(SecretMatcher(_PATTERNS).in_dir)
    slow = SecretMatcher(_PATTERNS)
    for a, b, name in paths:
        rel = "/".join(p for p in (a, b, name) if p)
        assert fast(rel) == slow.is_secret(rel), rel


def test_incremental_directory_info_equals_whole_path() -> None:
    """A directory's secret decision built from its cached parent equals the one computed
    from its whole path (a path pattern matching an ancestor still matches below it)."""
    warm, cold = SecretMatcher(_PATTERNS), SecretMatcher(_PATTERNS)
    for d in ["p", "p/q", "p/q/r", "p/q/r/s", "a", "a/xb", "a/xb/c", "deep", "deep/x", "k.pem", "k.pem/y", "z",
              "z/.aws", "z/.aws/credentials", "z/.aws/credentials/x", "z/.aws/other"]:
        assert warm.is_secret(d + "/f") == cold.is_secret(d + "/f") == SecretMatcher(_PATTERNS).is_secret(d + "/f")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["*", "*.x", "x*", "?x", "[ab]c", "a/*", "a/b?", "a/b", "b/*/c", "lit", "q*r"]),
                max_size=5),
       st.lists(st.tuples(st.sampled_from(["", "a", "b/q", "a/b", "b/q/c", "b/x/c/d", "a/b/lit", "x/a/b/y"]),
                          st.text(alphabet="abcqrx.*?/[]:", min_size=1, max_size=6)), min_size=1, max_size=20))
def test_quick_name_tests_equal_the_patterns(patterns: list[str], paths: list[tuple[str, str]]) -> None:
    """Literal, suffix and prefix patterns tested as strings, path patterns skipped by their
    literal last component: the same answers as the regexes."""
    fast = _memo(SecretMatcher(patterns).in_dir)
    slow = SecretMatcher(patterns)
    for head, name in paths:
        name = name.replace("/", "_")
        rel = f"{head}/{name}" if head else name
        assert fast(rel) == slow.is_secret(rel), (patterns, rel)
