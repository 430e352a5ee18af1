"""Gate 3, ``host_filter`` (opaque): the host's own callable decides.

``policy.host_filter(relpath)`` returns a bool or an awaitable of one; anything but ``True``
blocks with a bare, opaque ``[BLOCKED]``, and so does an exception inside it (fail closed).
It sees the real project-relative path (``"."`` for the root; the absolute real path when
``allow_outside_root`` let an outside path through) and, when a symlink makes the spelling
as written (its lexical normalisation) lead elsewhere in the project, that spelling first:
``src/l_private`` linked to ``src/app.py`` asks about both, so a name the filter refuses is
refused whatever it points to. Unlike the TypeScript original, a host
filter does not switch ignore rules off: both apply -- even the rules of an ignore source the
filter hides (a filter only ever hides more), whose decisions are then answered with this
gate's opaque verdict (:meth:`HostFilterGate.judge_names`, asked by the ignore gate).

Before any I/O (:meth:`HostFilterGate.check_written`), the filter also judges the
directories a spelling passes through *as written* and then leaves with ``..``
(``private/../a`` asks about ``private``; shortest first, each once, at most
:data:`MAX_WRITTEN` of them, more is refused), so such a spelling answers the same whatever
exists behind the filtered name. A sync filter stops at the first refusal; an async one is
awaited in the same order, one call at a time (a host filter may be a network call: no burst).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Sequence

from pathgate.config import HostFilter
from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts, dropped_prefixes
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["HostFilterGate"]


def _warn_raised() -> None:
    """The host filter raised: log it with the traceback (``logging`` loads on first use)."""
    import logging

    logging.getLogger("pathgate").warning("pathgate host_filter raised; blocking (fail closed)", exc_info=True)


_BLOCK = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True)
_FAILED = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True, detail="filter raised")
_TOO_MANY = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True, detail="too many .. prefixes")

#: Most ``..``-cancelled prefixes one spelling may ask the filter about (a hostile spelling
#: could name thousands; refusing it depends only on the spelling).
MAX_WRITTEN = 64


class HostFilterGate:
    """Opaque ``[BLOCKED]`` unless the host filter returns ``True``."""

    name = Gate.HOST_FILTER.value
    needs = frozenset({Fact.NAME})

    def __init__(self, host_filter: HostFilter) -> None:
        self.host_filter = host_filter

    def check_written(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        """The filter on each directory the spelling enters and leaves again with ``..``."""
        prefixes = dropped_prefixes(facts.request, ctx.root)
        if not prefixes:
            return None
        if len(prefixes) > MAX_WRITTEN:
            return _TOO_MANY
        return self._ask_all(prefixes)

    def _ask_all(self, paths: list[str]) -> GateResult:
        """The filter on each of ``paths`` in order, stopping at the first refusal (a sync
        filter); an async one is awaited one call at a time (:meth:`_await_all`)."""
        for i, path in enumerate(paths):
            try:
                answer = self.host_filter(path)
            except Exception:
                _warn_raised()
                return _FAILED
            if inspect.isawaitable(answer):
                return self._await_all(answer, paths[i + 1 :])
            if answer is not True:
                return _BLOCK
        return None

    async def _await_all(self, first: Awaitable[bool], rest: list[str]) -> Verdict | None:
        verdict = await self._await(first)
        for prefix in rest:
            if verdict is not None:
                return verdict
            try:
                answer = self.host_filter(prefix)
            except Exception:
                _warn_raised()
                return _FAILED
            if inspect.isawaitable(answer):
                verdict = await self._await(answer)
            elif answer is not True:
                verdict = _BLOCK
        return verdict

    def judge_name(self, name: str) -> GateResult:
        """The filter's answer for one project-relative spelling (the path gate asks before
        explaining a block, so a refused name stays opaque)."""
        return self._ask_all([name])

    def judge_names(self, names: Sequence[str]) -> GateResult:
        """The filter's answer for several spellings of one file, in order (the first refusal
        decides; ``None``: every one passes). The ignore gate asks it about the ignore source
        whose rule decided a path, so a source the filter hides is never quoted."""
        return self._ask_all(list(names)) if names else None

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        subject = facts.subject
        name = facts.name
        if name and name != subject and facts.resolved is not None:
            # a symlink on the way (inside the project or, with allow_outside_root, out of
            # it): the spelling as written (SPEC), then where it leads
            return self._ask_all([name, subject])
        return self._ask_all([subject])

    @staticmethod
    async def _await(answer: Awaitable[bool]) -> Verdict | None:
        try:
            result = await answer
        except Exception:
            _warn_raised()
            return _FAILED
        return None if result is True else _BLOCK
