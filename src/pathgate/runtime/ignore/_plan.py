"""Per-directory rule chains: a directory's ignore chain pruned to the rules that can
match its entries (:class:`ChainPlan`, carried by each
:class:`~pathgate.runtime.ignore._index.DirNode` and derived from its parent's). Pure: no
I/O; decisions are git's last-match-wins over the same lists, on fewer rules.
"""

from __future__ import annotations

from pathgate.runtime.ignore._rules import (
    _LIT,
    _PLIT,
    NO_MATCH,
    IgnoreList,
    Match,
    Pattern,
    _pattern,
    _Table,
    comp_matches,
)
from pathgate.runtime.ignore._wildmatch import _fold

__all__ = ["MEMO_CHAINS", "MEMO_NAMES", "ChainPlan"]
#: One list's state at one directory: ``(settled, pending, alive, depth)``, rule indices.
#: ``settled``: anchored rules whose literal lead the directory's path already holds (they
#: may match anything below); ``pending``: anchored rules whose lead runs past it (they
#: match only on that lead); ``alive``: segmented rules (a fixed number of components)
#: whose first ``depth`` components match the directory's path below the list's base.
_State = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]
#: Basenames a basename-only chain remembers the decision of (per plan, per kind).
MEMO_NAMES = 4096
#: Distinct basename-only chains whose remembered decisions a list shares.
MEMO_CHAINS = 4096


def _below(lst: IgnoreList, view: str) -> str:
    """The path prefix (``"x/y/"``, ``""`` at the base) of entries of the directory whose
    latin-1 view is ``view``, relative to ``lst``'s base, folded as the list matches."""
    rel = view[lst.offset:] if lst.offset else view
    if not rel:
        return ""
    return (_fold(rel) if lst.fold else rel) + "/"


def _start(lst: IgnoreList) -> _State:
    """A list's state at its own directory."""
    return (), lst.anchored, tuple(lst.segmented), 0


def _step(lst: IgnoreList, state: _State, view: str, name: str) -> _State:
    """``state`` narrowed to the subdirectory (latin-1 ``view``, basename ``name``)."""
    settled, pending, alive, depth = state
    if pending:
        pats = lst.patterns
        prefix = _below(lst, view)
        now = tuple(i for i in pending if prefix.startswith(pats[i].anchor or ""))
        pending = tuple(i for i in pending
                        if len(pats[i].anchor or "") > len(prefix)
                        and (pats[i].anchor or "").startswith(prefix))
        if now:
            settled += now
    if alive:
        segd = lst.segmented
        comp = _fold(name) if lst.fold else name
        nxt = depth + 1
        alive = tuple(i for i in alive
                      if len(segd[i]) > nxt and comp_matches(segd[i][depth], comp))
    return settled, pending, alive, depth + 1


def _entry_table(lst: IgnoreList, files: bool, state: _State, prefix: str) -> _Table | None:
    """The table of ``lst``'s rules that can match an entry whose base-relative path is
    ``prefix + name`` (``files``: a non-directory): unanchored and settled rules as they
    are; a pending path literal naming an entry here as a basename literal and other
    pending rules whose lead ends here as they are; a segmented rule whose directory
    components all matched as the basename rule of its last component. ``None`` when no
    rule can match."""
    if not lst.plannable:
        return lst.file_table() if files else lst.dtab  # a lazy list: asked whole (``_lazy``)
    settled, pending, alive, depth = state
    pats = lst.patterns
    keep: list[tuple[int, Pattern]] = []
    key: list[object] = [files, settled]
    cut = len(prefix)
    for i in pending:
        pt = pats[i]
        rest = (pt.anchor or "")[cut:]
        if "/" in rest:
            continue  # matches only deeper down
        if pt.kind == _PLIT:
            keep.append((i, _pattern(pt.rule, _LIT, rest, pt.negated, pt.dir_only)))
            key.append((i, rest))
        else:
            keep.append((i, pt))
            key.append(i)
    segd = lst.segmented
    for i in alive:
        if len(segd[i]) == depth + 1:
            keep.append((i, lst.last_of(i)))
            key.append(-1 - i)
    k = tuple(key)
    specs = lst.specs
    if k in specs:
        return specs[k]
    keep.extend((i, pats[i]) for i in lst.unanchored)
    keep.extend((i, pats[i]) for i in settled)
    if files:
        keep = [(i, pt) for i, pt in keep if not pt.dir_only]
    keep.sort(key=lambda t: t[0])
    tab = _Table(keep) if keep else None
    if len(specs) < 4096:
        specs[k] = tab
    return tab


def _shared_memo(owner: IgnoreList, fchain: object, dchain: object,
                 ) -> tuple[dict[str, Match], dict[str, Match]]:
    """The remembered decisions of a basename-only chain, shared by every directory whose
    entry tables are the same objects (``_entry_table`` hands out one table per distinct
    rule set); kept on the chain's first list (at most :data:`MEMO_CHAINS` chains)."""
    key = (fchain, dchain)  # the tables themselves (identity): kept alive by the key
    memos = owner.memos
    got = memos.get(key)
    if got is None:
        got = ({}, {})
        if len(memos) < MEMO_CHAINS:
            memos[key] = got
    return got


class ChainPlan:
    """The rule chain of one directory, pruned for its entries (shared by the directories
    below it while nothing anchored or segmented can narrow further).

    ``states`` holds each list of the chain's :data:`_State`; :meth:`tables` the tables
    that can match an entry (lists without such rules left out), built on first use.
    When every table holds only basename rules, a decision depends on the basename alone
    and is remembered (:attr:`memo`, at most :data:`MEMO_NAMES` names per kind).
    """

    __slots__ = ("chain", "dchain", "fchain", "kids", "memo", "narrows", "prefixes", "states")

    def __init__(self, chain: tuple[IgnoreList, ...], states: tuple[_State, ...],
                 prefixes: tuple[str, ...]) -> None:
        self.chain = chain
        self.states = states
        self.prefixes = prefixes
        # can a subdirectory's plan differ (some anchored or segmented rule still open)?
        self.narrows = any(st[1] or st[2] for st in states)
        #: the plans of subdirectories without lists of their own, by their states and
        #: prefixes (a plan is a function of its chain, states and prefixes: siblings that
        #: narrow alike share one, with its tables and remembered decisions)
        self.kids: dict[tuple[tuple[_State, ...], tuple[str, ...]], ChainPlan] | None = None
        self.fchain: tuple[tuple[_Table, IgnoreList], ...] | None = None
        self.dchain: tuple[tuple[_Table, IgnoreList], ...] | None = None
        self.memo: tuple[dict[str, Match], dict[str, Match]] | None = None

    @classmethod
    def for_dir(cls, parent: ChainPlan | None, own: tuple[IgnoreList, ...],
                chain: tuple[IgnoreList, ...], view: str) -> ChainPlan:
        """The plan of a directory (latin-1 ``view``; ``""``: the root, whose parent is
        the repository-wide lists' node) whose own non-empty lists are ``own`` (deepest
        first) and whose whole chain is ``chain``."""
        if parent is not None and not own and not parent.narrows:
            return parent  # nothing can narrow: the same tables below
        states: list[_State] = []
        prefixes: list[str] = []
        for lst in own:
            states.append(_start(lst))
            prefixes.append("")
        if parent is not None:
            name = view.rpartition("/")[2]
            for lst, st in zip(parent.chain, parent.states, strict=True):
                if view and (st[1] or st[2]):
                    st = _step(lst, st, view, name)
                states.append(st)
                prefixes.append(_below(lst, view) if st[1] else "")
        if parent is None or own or chain is not parent.chain:
            return cls(chain, tuple(states), tuple(prefixes))
        key = (tuple(states), tuple(prefixes))
        kids = parent.kids
        if kids is None:
            kids = parent.kids = {}
        got = kids.get(key)
        if got is None:
            got = cls(chain, *key)
            if len(kids) < MEMO_CHAINS:
                kids[key] = got
        return got

    def tables(self, files: bool) -> tuple[tuple[_Table, IgnoreList], ...]:
        """The non-empty entry tables, highest precedence first."""
        got = self.fchain if files else self.dchain
        if got is not None:
            return got
        out: list[tuple[_Table, IgnoreList]] = []
        for lst, st, prefix in zip(self.chain, self.states, self.prefixes, strict=True):
            tab = _entry_table(lst, files, st, prefix)
            if tab is not None:
                out.append((tab, lst))
        got = tuple(out)
        if files:
            self.fchain = got
        else:
            self.dchain = got
        if self.memo is None and self.chain and not any(t.pathwise for t, _ in got):
            other = self.tables(not files)
            if self.memo is None and not any(t.pathwise for t, _ in other):
                self.memo = _shared_memo(self.chain[0], self.fchain, self.dchain)
        return got

    def decide(self, path: str, name: str, is_dir: bool) -> Match:
        """The decision for an entry (folded latin-1 views of its path and basename)."""
        memo = self.memo
        if memo is not None:
            got = memo[is_dir].get(name)
            if got is not None:
                return got
        m = NO_MATCH
        tabs = self.dchain if is_dir else self.fchain
        for tab, lst in tabs if tabs is not None else self.tables(not is_dir):
            r = tab.best(name, path, lst.offset)
            if r >= 0:
                m = lst.patterns[r].match
                break
        if memo is not None:
            seen = memo[is_dir]
            if len(seen) < MEMO_NAMES:
                seen[name] = m
        return m
