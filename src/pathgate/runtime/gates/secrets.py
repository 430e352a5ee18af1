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
The verdict is a bare, opaque ``[BLOCKED]``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["ENV_TEMPLATES", "SecretMatcher", "SecretsGate", "normalize_name"]

#: ``.env`` variants that are templates, not secrets (after normalisation).
ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})

_NEVER = re.compile(r"(?!)")


def normalize_name(name: str) -> str:
    """A basename as NTFS would resolve it: cut ``:stream``, trailing spaces/dots; casefold."""
    name = name.split(":", 1)[0].rstrip(" .")
    return name.casefold()


class SecretMatcher:
    """Decides whether a path names a secret. Built once per policy; no I/O."""

    def __init__(self, patterns: Iterable[str]) -> None:
        base: list[str] = []
        full: list[str] = []
        for pattern in patterns:
            p = pattern.casefold().strip("/")
            if not p:
                continue
            if "/" in p:
                full.append(r"(?:.*/)?" + fnmatch.translate(p))
            else:
                base.append(fnmatch.translate(p))
        self._base = re.compile("|".join(base)) if base else _NEVER
        self._full = re.compile("|".join(full)) if full else _NEVER

    def is_secret_name(self, basename: str) -> bool:
        """Is this basename (any case, NTFS tricks included) a secret?"""
        norm = normalize_name(basename)
        if norm == ".env" or (norm.startswith(".env.") and norm not in ENV_TEMPLATES):
            return True
        return self._base.match(norm) is not None

    def is_secret(self, path: str) -> bool:
        """Is this path (project-relative or absolute, ``/``-separated) a secret?"""
        path = path.rstrip("/")
        basename = path.rsplit("/", 1)[-1]
        if self.is_secret_name(basename):
            return True
        if self._full is _NEVER:
            return False
        head, _, _ = path.rpartition("/")
        norm = f"{head}/{normalize_name(basename)}".casefold() if head else normalize_name(basename)
        return self._full.match(norm) is not None

    def is_secret_facts(self, facts: PathFacts) -> bool:
        """Secret by the requested spelling, its normalisation or the real target (cached on
        ``facts`` once the real path is known)."""
        if facts.secret is not None:
            return facts.secret
        resolved = facts.resolved
        names = {facts.request, facts.name or ""}
        if resolved is not None:
            names.add(resolved.relpath if resolved.relpath is not None else resolved.real or "")
        names.discard("")
        secret = any(self.is_secret(n) for n in names)
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
