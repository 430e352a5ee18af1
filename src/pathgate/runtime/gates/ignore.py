"""Gate 4, ``ignore``: the ignore engine's decision, with its provenance.

Blocks ``[BLOCKED]`` (not opaque) when the real path or an ancestor directory is excluded
(``rule``, ``ancestor``) or when an ignore file governing it could not be read
(``fail_closed``, ``unreadable``; no rule claimed). In ``ignore_mode="discovery"`` an
explicit read passes; walked entries of discovery tools are hidden in both modes.

``exists`` is ``True`` only when this call's ``lstat`` of the real path found it (an
ignored-and-deleted path gets no claim).

A regular file with more than one link that this gate would block is first put to
:attr:`IgnoreGate.alias` (the runtime's secret-inode registry): a secret's alias (a hard
link to ``.env`` inside an ignored ``build/``) is a bare opaque ``[BLOCKED]``, as the
secrets gate answers for the secret itself — the explanation would otherwise say the file
exists and quote the rule that hides it. ``remedy`` holds lines verified to unblock the path,
when the renderers' remedy module is installed (see ``MATCH`` fetching in ``read_files``).
"""

from __future__ import annotations

import stat
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

if TYPE_CHECKING:
    import os

#: What a secret's alias is answered with (the secrets gate's own opaque verdict).
_ALIAS = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)

__all__ = ["IgnoreGate"]


class IgnoreGate:
    """``[BLOCKED]`` with the deciding rule for ignored paths."""

    name = Gate.IGNORE.value
    needs = frozenset({Fact.MATCH})

    def __init__(self, *, mode: str = "block") -> None:
        self.mode = mode
        #: Set by the runtime when secrets are enforced: is this multi-linked regular file
        #: (its ``lstat``) a secret's alias? (blocking work done the runtime's way)
        self.alias: Callable[[os.stat_result], Awaitable[bool]] | None = None

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        match = facts.match
        if match is None or not match.ignored:
            return None
        if ctx.purpose == "read" and self.mode == "discovery":
            return None
        resolved = facts.resolved
        exists = True if resolved is not None and resolved.exists is True else None
        verdict = Verdict(
            status=Status.BLOCKED,
            gate=Gate.IGNORE,
            rule=match.rule,
            ancestor=match.ancestor,
            exists=exists,
            fail_closed=match.fail_closed,
            unreadable=match.unreadable,
            remedy=facts.remedy,
        )
        st = None if resolved is None else resolved.st
        if self.alias is not None and st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode):
            return self._unless_alias(self.alias, st, verdict)
        return verdict

    @staticmethod
    async def _unless_alias(alias: Callable[[os.stat_result], Awaitable[bool]], st: os.stat_result,
                            verdict: Verdict) -> Verdict:
        return _ALIAS if await alias(st) else verdict
