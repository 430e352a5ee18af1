"""Gate 3, ``host_filter`` (opaque): the host's own callable decides.

``policy.host_filter(relpath)`` returns a bool or an awaitable of one; anything but ``True``
blocks with a bare, opaque ``[BLOCKED]``, and so does an exception inside it (fail closed).
It sees the real project-relative path (``"."`` for the root; the absolute real path when
``allow_outside_root`` let an outside path through). Unlike the TypeScript original, a host
filter does not switch ignore rules off: both apply.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable

from pathgate.config import HostFilter
from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["HostFilterGate"]

log = logging.getLogger("pathgate")

_BLOCK = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True)
_FAILED = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True, detail="filter raised")


class HostFilterGate:
    """Opaque ``[BLOCKED]`` unless the host filter returns ``True``."""

    name = Gate.HOST_FILTER.value
    needs = frozenset({Fact.NAME})

    def __init__(self, host_filter: HostFilter) -> None:
        self.host_filter = host_filter

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        try:
            answer = self.host_filter(facts.subject)
        except Exception:
            log.warning("pathgate host_filter raised; blocking (fail closed)", exc_info=True)
            return _FAILED
        if inspect.isawaitable(answer):
            return self._await(answer)
        return None if answer is True else _BLOCK

    @staticmethod
    async def _await(answer: Awaitable[bool]) -> Verdict | None:
        try:
            result = await answer
        except Exception:
            log.warning("pathgate host_filter raised; blocking (fail closed)", exc_info=True)
            return _FAILED
        return None if result is True else _BLOCK
