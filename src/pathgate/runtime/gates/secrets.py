"""Gate 2, ``secrets`` (opaque): ``.env`` files and credential names.

A name is normalised before matching the way Windows/NTFS would see it: everything from the
first ``:`` (an alternate data stream, ``.env:$DATA``) is cut, then trailing spaces and dots
(``.env ``, ``.env.``), then it is case-folded (``.ENV``). Secret when the normalised basename
is ``.env`` or starts with ``.env.`` — except the templates ``.env.example``,
``.env.sample``, ``.env.template`` (same normalisation: ``.ENV.EXAMPLE`` is a template) — or
matches one of the policy's ``secret_patterns`` (:data:`pathgate.config.DEFAULT_SECRET_PATTERNS`).
``.envrc`` and ``app.env`` are not secrets.

A spelling is secret when the requested name, its lexical normalisation or the real
(symlink-resolved) target is: an innocently named link to ``.env`` is a secret.
Everything below a directory named like a secret (``.env/``, ``.env.d/``, ``keys.pem/``) is
secret too: the directory itself is opaque, so no tool may reveal what it holds (glob, search
and an explicit read would otherwise show the directory exists and list its files).
The verdict is a bare, opaque ``[BLOCKED]``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

from pathgate.runtime.fs import PATH_MAX
from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["ENV_TEMPLATES", "SecretMatcher", "SecretsGate", "normalize_name"]

#: ``.env`` variants that are templates, not secrets (after normalisation).
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})

_NEVER = re.compile(r"(?!)")
#: Directories whose secret decision a matcher keeps (cleared when full; dict operations are
#: atomic, so concurrent sessions share it), and the longest directory path it keeps.
DIR_CACHE = 16384
MAX_CACHED_DIR = 1024


def normalize_name(name: str) -> str:
    """A basename as NTFS would resolve it: cut ``:stream``, trailing spaces/dots; casefold."""
    name = name.split(":", 1)[0].rstrip(" .")
    return name.casefold()


class SecretMatcher:
    """Decides whether a path names a secret. Built once per policy; no I/O."""

    def __init__(self, patterns: Iterable[str]) -> None:
        base: list[str] = []
        full: list[str] = []
        full_dir: list[str] = []
        for pattern in patterns:
            p = pattern.casefold().strip("/")
            if not p:
                continue
            if "/" in p:
                full.append(r"(?:.*/)?" + fnmatch.translate(p))
                full_dir.append(r"(?:.*/)?" + fnmatch.translate(p).removesuffix(r"\Z") + r"(?=/|\Z)")
            else:
                base.append(fnmatch.translate(p))
        self._base = re.compile("|".join(base)) if base else _NEVER
        self._full = re.compile("|".join(full)) if full else _NEVER
        # the same path patterns, matching a directory or any of its ancestors
        self._full_dir = re.compile("|".join(full_dir)) if full_dir else _NEVER
        self._dirs: dict[str, tuple[bool, str]] = {}

    def is_secret_name(self, basename: str) -> bool:
        """Is this basename (any case, NTFS tricks included) a secret?"""
        return self._is_secret_norm(normalize_name(basename))

    def _is_secret_norm(self, norm: str) -> bool:
        if norm == ".env" or (norm.startswith(".env.") and norm not in ENV_TEMPLATES):
            return True
        return self._base.match(norm) is not None

    def _dir_info(self, head: str) -> tuple[bool, str]:
        """``(secret, normalised)`` for a directory path: secret when one of its components
        is named like a secret, or it or an ancestor matches a path pattern. Cached per
        directory (short paths only: a hostile path may be huge)."""
        hit = self._dirs.get(head)
        if hit is not None:
            return hit
        if len(head) > PATH_MAX:
            # No tool serves a path this long (resolution and walks stop at PATH_MAX), so
            # its components need no scan; the basename and path patterns still apply.
            return False, head.casefold()
        names = {c: normalize_name(c) for c in set(head.split("/"))}
        norm = "/".join(names[c] for c in head.split("/"))
        secret = any(self._is_secret_norm(n) for n in set(names.values()))
        info = (secret or self._full_dir.match(norm) is not None, norm)
        if len(head) <= MAX_CACHED_DIR:
            if len(self._dirs) >= DIR_CACHE:
                self._dirs.clear()
            self._dirs[head] = info
        return info

    def is_secret(self, path: str) -> bool:
        """Is this path (project-relative or absolute, ``/``-separated, without ``..``) a
        secret, or below a directory named like one?"""
        path = path.strip("/")
        head, _, basename = path.rpartition("/")
        norm = normalize_name(basename)
        if self._is_secret_norm(norm):
            return True
        if not head:
            return self._full.match(norm) is not None
        secret, head_norm = self._dir_info(head)
        return secret or self._full.match(f"{head_norm}/{norm}") is not None

    def is_secret_facts(self, facts: PathFacts) -> bool:
        """Secret by the requested spelling, its normalisation or the real target (cached on
        ``facts`` once the real path is known). The raw spelling is judged by its basename
        only (``src/.env/../a.py`` is ``src/a.py``); the normalised and real paths by every
        component."""
        if facts.secret is not None:
            return facts.secret
        resolved = facts.resolved
        names = {facts.name or ""}
        if resolved is not None:
            names.add(resolved.relpath if resolved.relpath is not None else resolved.real or "")
        names.discard("")
        secret = self.is_secret_name(facts.request.rstrip("/").rsplit("/", 1)[-1]) or any(
            self.is_secret(n) for n in names
        )
        if resolved is not None:
            facts.secret = secret
        return secret


class SecretsGate:
    """Opaque ``[BLOCKED]`` for secrets (left out of the chain when ``enforce_secrets`` is
    off; the pipeline still makes any later verdict on a secret opaque)."""

    name = Gate.SECRETS.value
    needs = frozenset({Fact.NAME})

    def __init__(self, matcher: SecretMatcher) -> None:
        self.matcher = matcher

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        if self.matcher.is_secret_facts(facts):
            return Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)
        return None
