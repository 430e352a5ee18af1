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

With a host filter, the ignore source whose rule decided (the path's own rule, an excluded
ancestor's, an unreadable file's name -- and a negation that re-included the path) is first
put to the filter (:attr:`IgnoreGate.hidden`): a source the filter hides still applies its
rules (a filter only hides more) but is never named nor quoted, so what it decides is the
host filter's own opaque ``[BLOCKED]``, as if the filter hid the path itself (no reason, no
remedy, not counted in omission notes). A filter that raises answers the same (fail closed).
A verdict a visible rule decides keeps its remedy only when the filter hides no place of the
path's rule chain (:attr:`IgnoreGate.chain_hidden`, asked after the deciding source, with or
without a remedy, so the filter's calls too depend on names alone: red team 23 N3): the
remedy was verified against every source of the chain, hidden ones included, so its lines
(or their absence) would tell what a hidden file holds (red team 21 M2). Which places are
asked depends on names alone, so the answer never depends on a hidden file's content.
"""

from __future__ import annotations

import functools
import stat
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import msgspec

from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts
from pathgate.verdicts import BUILTIN_SOURCE, Gate, Status, Verdict

if TYPE_CHECKING:
    import os

    from pathgate.runtime.ignore import Match

#: What a secret's alias is answered with (the secrets gate's own opaque verdict).
_ALIAS = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)
#: A remedy's chain that could not be put to the filter: treated as hidden.
CHAIN_UNKNOWN = Verdict(status=Status.BLOCKED, gate=Gate.HOST_FILTER, opaque=True)

__all__ = ["CHAIN_UNKNOWN", "IgnoreGate"]


class IgnoreGate:
    """``[BLOCKED]`` with the deciding rule for ignored paths."""

    name = Gate.IGNORE.value
    needs = frozenset({Fact.MATCH})

    def __init__(self, *, mode: str = "block") -> None:
        self.mode = mode
        #: Set by the runtime when secrets are enforced: is this multi-linked regular file
        #: (its ``lstat``) a secret's alias? (blocking work done the runtime's way)
        self.alias: Callable[[os.stat_result], Awaitable[bool]] | None = None
        #: Set by the runtime when a host filter applies: the filter's verdict on the ignore
        #: source labelled so (``Rule.source``, ``Match.unreadable``; ``None``: visible).
        self.hidden: Callable[[str], GateResult] | None = None
        #: Set with :attr:`hidden`: the filter's verdict on every place an ignore source of
        #: the real relpath's rule chain can be (``None``: none hidden, its remedy is shown).
        self.chain_hidden: Callable[[str], GateResult] | None = None

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        match = facts.match
        if match is None:
            return None
        if not match.ignored:
            rule = match.rule
            if rule is None or self.hidden is None or (ctx.purpose == "read" and self.mode == "discovery"):
                return None
            # a negation re-included it: the hidden source's decision shows as the filter's
            return self.source_verdict(match)
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
        alias = self.alias
        if alias is None or st is None or st.st_nlink < 2 or not stat.S_ISREG(st.st_mode):
            st = None
        if self.hidden is not None:
            opaque = self.source_verdict(match)
            if isinstance(opaque, Verdict):
                return opaque
            relpath = None if resolved is None else resolved.relpath
            # asked whether a remedy was found or not: which names the filter is asked about
            # must not depend on what the hidden files hold (red team 23 N3)
            ask: Callable[[], GateResult] | None = functools.partial(self._ask_chain, relpath)
            if opaque is not None:
                return self._unless_hidden(opaque, ask, alias if st is not None else None, st, verdict)
            if ask is not None:
                got = ask()
                if got is not None and not isinstance(got, Verdict):
                    return self._unless_hidden(None, ask, alias if st is not None else None, st, verdict, got)
                if got is not None:
                    verdict = _without_remedy(verdict)
        if st is not None and alias is not None:
            return self._unless_alias(alias, st, verdict)
        return verdict

    def source_verdict(self, match: Match) -> GateResult:
        """The host filter's verdict on the ignore source that decided ``match`` (its rule's,
        else the unreadable file's; ``None``: no filter, the built-in list, or visible)."""
        hidden = self.hidden
        if hidden is None:
            return None
        label = match.unreadable if match.rule is None else match.rule.source
        if label is None or label == BUILTIN_SOURCE:
            return None
        return hidden(label)

    @staticmethod
    async def _unless_alias(alias: Callable[[os.stat_result], Awaitable[bool]], st: os.stat_result,
                            verdict: Verdict) -> Verdict:
        return _ALIAS if await alias(st) else verdict

    def _ask_chain(self, relpath: str | None) -> GateResult:
        """The filter's verdict on the places of ``relpath``'s rule chain (:attr:`chain_hidden`);
        no judge or no relpath counts as hidden (the remedy is dropped: fail closed)."""
        chain = self.chain_hidden
        if chain is None or relpath is None:
            return CHAIN_UNKNOWN
        return chain(relpath)

    @classmethod
    async def _unless_hidden(cls, opaque: Awaitable[Verdict | None] | None, ask: Callable[[], GateResult] | None,
                             alias: Callable[[os.stat_result], Awaitable[bool]] | None,
                             st: os.stat_result | None, verdict: Verdict,
                             asked: Awaitable[Verdict | None] | None = None) -> Verdict:
        """An async filter's verdict on the deciding source (``opaque``), then on the places of
        the remedy's chain (``ask``, or ``asked`` when already asked: a hidden one drops the
        remedy), then the alias check: one filter call at a time, in that order."""
        if opaque is not None:
            got = await opaque
            if got is not None:
                return got
        if ask is not None:
            hid = asked if asked is not None else ask()
            if hid is not None and not isinstance(hid, Verdict):
                hid = await hid
            if hid is not None:
                verdict = _without_remedy(verdict)
        if alias is not None and st is not None:
            return await cls._unless_alias(alias, st, verdict)
        return verdict


def _without_remedy(verdict: Verdict) -> Verdict:
    """``verdict`` without its remedy."""
    return msgspec.structs.replace(verdict, remedy=None)
