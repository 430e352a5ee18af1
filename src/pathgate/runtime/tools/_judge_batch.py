"""Discovery's steps over a whole batch of walked entries, for
:class:`~pathgate.runtime.tools._discover.Discovery`: a chunk the walk budget admits whole
counted at once, and the entries of a batch that can get a verdict found at once (the
others are kept). Each answers exactly what the entry-by-entry step answers, or ``None`` /
every entry where that cannot be shown (``tests/runtime/tools/test_discover_batch.py``)."""

from __future__ import annotations

import operator
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, compress, repeat
from typing import TYPE_CHECKING

from pathgate.runtime.gates.path import PathGate

if TYPE_CHECKING:
    from pathgate.runtime._walk import Entry
    from pathgate.runtime.tools._discover import Discovery

__all__ = ["admit_whole", "git_batchable", "to_judge"]

_RELPATH = operator.attrgetter("relpath")
_ERROR = operator.attrgetter("error")
_MATCH = operator.attrgetter("match")


def admit_whole(d: Discovery, chunk: list[Entry], budget: int) -> list[Entry] | None:
    """:meth:`Discovery._admit` of a chunk the budget admits whole, counted at once: no error
    entry, no alias, no verdict judged ahead, every entry's secret test answered (by
    :meth:`Discovery._step`); ``None`` otherwise (then entry by entry)."""
    if d._verdicts or d._aliases or not chunk:
        return None
    if any(map(_ERROR, chunk)):
        return None
    try:  # the entries that are no secret (is_secret answers from ``known`` here)
        charged = sum(map(operator.not_, map(d._secret_known.__getitem__, map(_RELPATH, chunk))))
    except KeyError:
        return None
    if d.walked + charged > budget:
        return None
    d.walked += charged
    return chunk


def git_batchable(d: Discovery) -> bool:
    """Is a path holding no "git" (casefolded) no git path here? The path gate's own test
    (``is_git_internal``) with no git directory a ``.git`` file points to, or no test."""
    is_git = d._is_git
    if is_git is None:
        return True
    gate = d.pipeline.gates[0]
    return (getattr(is_git, "__self__", None) is gate and getattr(is_git, "__func__", None) is PathGate.is_git_path
            and isinstance(gate, PathGate) and not gate.git_dirs)


def to_judge(d: Discovery, entries: Sequence[Entry], plain: Sequence[int]) -> Sequence[int]:
    """The indices of ``plain`` :meth:`Discovery._judge_inline` can give a verdict (in order): the
    excluded entries, the secrets and the git paths, found for the whole batch at once
    (``plain`` itself where that cannot be done exactly: aliases, a secret test not
    answered yet, a live index's memo, a ``.git`` file's git directories). Every other
    entry is kept (``None``)."""
    is_git = d._is_git
    if d._aliases or len(plain) < 64 or not git_batchable(d):
        return plain
    rels = list(map(_RELPATH, map(entries.__getitem__, plain)))
    try:
        secret = list(map(d._secret_known.__getitem__, rels))
    except KeyError:
        return plain
    chosen = set(compress(plain, map(operator.is_not, map(_MATCH, map(entries.__getitem__, plain)), repeat(None))))
    chosen.update(compress(plain, secret))
    if is_git is not None:
        # is_git_internal's first test, "git" in the casefolded path (no git
        # directories here), for the paths joined: found where a path holds it
        text = "\n".join(rels)
        if not text.isascii():
            chosen.update(i for i, rel in zip(plain, rels, strict=True) if "git" in rel.casefold())
        else:
            text = text.lower()  # casefold, for ASCII
            starts = list(accumulate(map(operator.add, map(len, rels), repeat(1)), initial=0))
            at = text.find("git")
            while at >= 0:
                k = bisect_right(starts, at) - 1
                chosen.add(plain[k])
                at = text.find("git", starts[k + 1])
    return sorted(chosen)
