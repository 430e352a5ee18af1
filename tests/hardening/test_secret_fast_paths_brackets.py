"""SecretMatcher fast paths (``in_dir``, incremental ``_dir_info``) vs ``is_secret``.

A path pattern whose ``/`` sits inside a bracket (``a[/]b``: fnmatch matches ``a/b``) has a
"literal last component" ``]b`` to ``_QuickNames``, so the per-directory fast paths never try
the path pattern: a walk's ``in_dir`` and a warmed directory cache answer "not secret" where
the cold ``is_secret`` says secret (fail open, order dependent).
"""

from __future__ import annotations

from pathlib import Path

import anyio

from pathgate import Policy, Runtime
from pathgate.runtime.gates.secrets import SecretMatcher


def test_rv_in_dir_equals_is_secret_bracket_slash() -> None:
    """in_dir("a")("b") must equal is_secret("a/b") for pattern ``a[/]b``."""
    assert SecretMatcher(("a[/]b",)).is_secret("a/b")
    assert SecretMatcher(("a[/]b",)).in_dir("a")("b")


def test_rv_dir_cache_order_independent() -> None:
    """is_secret("a/b/c") must not depend on whether "a/b" was asked before."""
    cold = SecretMatcher(("a[/]b",)).is_secret("a/b/c")
    warm = SecretMatcher(("a[/]b",))
    warm.is_secret("a/x")  # a walk meets parents first: caches directory "a"
    assert cold
    assert warm.is_secret("a/b/c") == cold


def test_glob_hides_a_bracketed_path_pattern_secret(tmp_path: Path) -> None:
    """End to end: a walk (glob, list) never shows ``a/b`` when ``a[/]b`` names a secret,
    whatever was walked before it."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("x")
    (tmp_path / "a" / "b").write_text("TOKEN")
    rt = Runtime(tmp_path, Policy(extra_secret_patterns=("a[/]b",)))

    async def main() -> tuple[tuple[str, ...], list[str]]:
        found = (await rt.glob("**")).matches
        listed = [e.name for e in (await rt.list_directory("a")).entries]
        return found, listed

    found, listed = anyio.run(main)
    assert "a/x" in found and "a/b" not in found
    assert "x" in listed and "b" not in listed
