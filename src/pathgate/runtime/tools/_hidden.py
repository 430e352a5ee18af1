"""Discovery and the ignore sources a host filter hides (red team 18 J8, 19 K3).

A walk keeps an entry no rule excludes with no decision attached (``Entry.match`` is
``None``), also when a *negation* re-included it. With a host filter, such a negation may
come from a source the filter hides, and then the path must be answered as the filter hiding
it (the ignore gate's :meth:`~pathgate.runtime.gates.ignore.IgnoreGate.source_verdict`), in
listings as in reads. :func:`negated_matches` finds, in a worker thread, the kept entries a
negation decided, so the gates see that decision; entries of directories whose rule chain
holds no negation from a hidden source (:func:`to_rematch`, on the loop: the filter is asked
once per list holding a negation) are not matched again, and a call meeting none takes no
extra worker-thread hop.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

from pathgate.runtime._walk import DIR, Entry
from pathgate.runtime.gates import GatePipeline, GateResult, IgnoreGate
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.runtime.ignore._rules import IgnoreList
from pathgate.verdicts import BUILTIN_SOURCE, Verdict

__all__ = ["negated_matches", "to_rematch", "unless_hidden"]

_NEGATES: weakref.WeakKeyDictionary[IgnoreList, bool] = weakref.WeakKeyDictionary()


def _negates(lst: IgnoreList) -> bool:
    """Does ``lst`` hold a negated rule? (once per compiled list)"""
    got = _NEGATES.get(lst)
    if got is None:
        got = _NEGATES[lst] = any(p.negated for p in lst.patterns)
    return got


async def to_rematch(session: IgnoreSession, entries: Sequence[Entry], plain: Sequence[int],
                     judge: Callable[[str], GateResult]) -> list[int]:
    """Of ``plain`` (indices into ``entries``), the kept entries (no decision attached) whose
    directory's rule chain holds a negation from a source the host filter hides (``judge``:
    the ignore gate's filter verdict on a source label, asked once per such list, awaited
    when async), or is not known here. No I/O: the session's nodes, else the index's."""
    out: list[int] = []
    chains: dict[str, bool] = {}
    hidden: dict[int, bool] = {}
    mine, shared = session._dirs, session._index._nodes
    for i in plain:
        e = entries[i]
        if e.match is not None:
            continue
        parent = e.relpath.rpartition("/")[0]
        negates = chains.get(parent)
        if negates is None:
            node = mine.get(parent) or shared.get(parent)
            if node is None:
                negates = True
            else:
                negates = False
                for lst in node.chain:
                    if lst.source != BUILTIN_SOURCE and _negates(lst):
                        got = hidden.get(id(lst))
                        if got is None:
                            verdict = judge(lst.source)
                            if verdict is not None and not isinstance(verdict, Verdict):
                                verdict = await verdict
                            got = hidden[id(lst)] = verdict is not None
                        if got:
                            negates = True
                            break
            chains[parent] = negates
        if negates:
            out.append(i)
    return out


def negated_matches(session: IgnoreSession, entries: Sequence[Entry], which: Sequence[int]) -> dict[int, Match]:
    """Of the entries ``which`` (:func:`to_rematch`), those a negation re-included, with that
    decision (blocking: a worker thread)."""
    out: dict[int, Match] = {}
    for i in which:
        e = entries[i]
        m = session.match(e.relpath, e.kind == DIR)
        if m.rule is not None and not m.ignored:
            out[i] = m
    return out


async def unless_hidden(pipeline: GatePipeline, match: Match, verdict: Verdict) -> Verdict:
    """``verdict``, or the host filter's opaque one when the ignore source that decided
    ``match`` is one it hides (:meth:`IgnoreGate.source_verdict`)."""
    for gate in pipeline.gates:
        if isinstance(gate, IgnoreGate) and gate.hidden is not None:
            got = gate.source_verdict(match)
            if got is not None and not isinstance(got, Verdict):
                got = await got
            return verdict if got is None else got
    return verdict
