"""``SecretMatcher.is_secret``'s string tests equal the pattern regexes they stand for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pathgate import Policy
from pathgate.runtime.gates.secrets import SecretMatcher, name_variants


def _by_regexes(m: SecretMatcher, path: str) -> bool:
    """``is_secret`` as it was written before the string tests: every name through the
    basename regex, every path through the path-pattern regex."""
    path = path.strip("/")
    head, _, basename = path.rpartition("/")
    norms = name_variants(basename)
    if any(m._is_secret_norm(n) for n in norms):
        return True
    if not head:
        return any(m._full.match(n) is not None for n in norms)
    secret, head_norm = m._dir_info(head)  # (unchanged: its own tests compare it with the whole path)
    if secret or any(m._full.match(f"{head_norm}/{n}") is not None for n in norms):
        return True
    if ":" in path:
        whole = "/".join(c.rstrip(" .").casefold() for c in path.split("/"))
        return m._full.match(whole) is not None
    return False


_PATTERNS = ["*", "*.x", "x*", "?x", "[ab]c", "a/*", "a/b?", "a/b", "b/*/c", "lit", "q*r", "a[!/]b", "p/[/]q",
             ".aws/credentials", "*.pem", "id_rsa*", "c/lit", "*/lit2"]
_NAME = st.text(alphabet="abcpqrtx.*?/[]:~# ", min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PATTERNS), max_size=5),
       st.lists(st.tuples(st.sampled_from(["", "a", "b/q", "a/b", "b/q/c", "p", "x/a/b/y", ".aws", "c", "q:r"]),
                          _NAME), min_size=1, max_size=20))
def test_is_secret_equals_the_regexes(patterns: list[str], paths: list[tuple[str, str]]) -> None:
    m = SecretMatcher(patterns)
    for head, name in paths:
        rel = f"{head}/{name}" if head else name
        assert m._is_secret_path(rel) == _by_regexes(m, rel), (patterns, rel)


def test_default_patterns_backups_and_env() -> None:
    pats = list(Policy().secret_patterns)
    m = SecretMatcher(pats)
    for rel in [".env", "a/.env.local", "a/.env.example", ".env~", "x/#.env#", "y/..env.swp", "id_rsa",
                "k/id_rsa.pub~", "z/.aws/credentials", "z/.aws/credentials~", "z/.aws/other", "ok.txt",
                "src/Main.java", "s/server.pem", "s/SERVER.PEM. ", "credentials.json", "d/.docker/config.json",
                "a/b/c/d/README.md", ".npmrc", "p/.kube/config", "p/kube/config"]:
        assert m._is_secret_path(rel) == _by_regexes(m, rel), rel
