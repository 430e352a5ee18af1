"""Gate 4, ``ignore``: the ignore engine's decision, with its provenance.

Blocks ``[BLOCKED]`` (not opaque) when the real path or an ancestor directory is excluded
(``rule``, ``ancestor``) or when an ignore file governing it could not be read
(``fail_closed``, ``unreadable``; no rule claimed). In ``ignore_mode="discovery"`` an
explicit read passes; walked entries of discovery tools are hidden in both modes.

``exists`` is ``True`` only when this call's ``lstat`` of the real path found it (an
ignored-and-deleted path gets no claim). ``remedy`` holds lines verified to unblock the path,
when the renderers' remedy module is installed (see ``MATCH`` fetching in ``read_files``).
"""

from __future__ import annotations

from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["IgnoreGate"]


class IgnoreGate:
    """``[BLOCKED]`` with the deciding rule for ignored paths."""

    name = Gate.IGNORE.value
    needs = frozenset({Fact.MATCH})

    def __init__(self, *, mode: str = "block") -> None:
        self.mode = mode

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        match = facts.match
        if match is None or not match.ignored:
            return None
        if ctx.purpose == "read" and self.mode == "discovery":
            return None
        resolved = facts.resolved
        exists = True if resolved is not None and resolved.exists is True else None
        return Verdict(
            status=Status.BLOCKED,
            gate=Gate.IGNORE,
            rule=match.rule,
            ancestor=match.ancestor,
            exists=exists,
            fail_closed=match.fail_closed,
            unreadable=match.unreadable,
            remedy=facts.remedy,
        )
