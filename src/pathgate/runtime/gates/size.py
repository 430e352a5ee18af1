"""Gate 6, ``size``: ``[FILE_TOO_LARGE]`` above the limit (default 10 MiB, per model).

The size comes from ``fstat`` on the open descriptor; a file that grew past the limit after
that ``fstat`` is caught by the read itself, which never takes more than ``limit + 1``
bytes. ``size`` and ``limit`` are bytes.
"""

from __future__ import annotations

from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["SizeGate"]


class SizeGate:
    """``[FILE_TOO_LARGE]`` with the size and the limit."""

    name = Gate.SIZE.value
    needs = frozenset({Fact.OPEN})

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        opened = facts.opened
        if opened is None or opened.error is not None or opened.changed:
            return None
        size = opened.size
        if size is not None and size > ctx.size_limit:
            return Verdict(
                status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, exists=True, size=size, limit=ctx.size_limit
            )
        return None
