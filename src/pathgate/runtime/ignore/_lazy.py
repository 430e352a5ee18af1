"""Ignore lists decided line by line for the few paths of a one-shot command.

``pathgate hook`` is one process per agent tool call and judges a handful of paths: compiling
every line of a repository's huge ignore file for them (300,000 lines: seconds and hundreds of
megabytes, on every tool call) is wasted work. Inside :func:`one_shot`,
:meth:`IgnoreList.compiled <._rules.IgnoreList.compiled>` hands out a :class:`LazyIgnoreList`
for a file of :data:`._rules.LAZY_MIN_BYTES` or more, which decides as git does: for each
basename and path asked, the lines that can match them are found by one regular expression over
the file's bytes (:func:`candidates_rx`, in C), and only those lines are compiled -- by the
very function a whole compile uses (:func:`._rules.line_pattern`) -- and tested last to first,
the first that matches deciding (a glob rule only once its literal runs were all found in the
path: :func:`_pieces_fit`, before it is translated). A check that announces its paths
(:func:`expecting`: ``GateCore``'s ignore facts) has each list scanned once for all of them
and their directories.

The expression is a necessary condition only, so it may let through lines that cannot match;
it never leaves out one that can (:func:`candidates_rx` says why), and every decision is a
compiled rule's own. When it lets through more than :data:`DIRECT_AFTER` lines (lines like
``*[ab]x*q*z*``, with no literal head or tail, are candidates for every path: red team 20 L1),
or most of the file's last :data:`PROBE` bytes (then it is not run over the rest), those lines
are not compiled but read by :class:`._lazy_direct.Direct` -- git's ``wildmatch`` run for the
scan's texts together, line by line from the last, by :mod:`._wildbits` -- and only the line
deciding a text is compiled (its rule must match too). After :data:`MAX_SCANS` scans, or once
more lines were compiled one by one than a quarter of the file holds, the whole list is
compiled once, by line
(``pathgate check-ignore`` or ``glob`` asking many paths): at most about the cost of compiling
it up front. A command may lower that budget (:func:`one_shot`'s ``max_scans``: ``glob``, which
asks entry by entry) or end it (:func:`settled`: a ``check-ignore --stdin`` stream past its bound).

Rules are indexed by their 0-based line (``slot``), not by their rank among the rules: the
tables compare indices of one list only, and :attr:`LazyIgnoreList.patterns` maps a slot back
to its rule.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
import threading
import weakref
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from pathgate.runtime.ignore import _rules
from pathgate.runtime.ignore._lazy_direct import Direct as _Direct
from pathgate.runtime.ignore._lazy_direct import Doubt as _Doubt
from pathgate.runtime.ignore._rules import IgnoreList, Pattern, _Table, clean_line, line_pattern
from pathgate.runtime.ignore._wildmatch import _fold

__all__ = ["MAX_BATCH", "MAX_SCANS", "LazyIgnoreList", "candidates_rx", "expecting", "lazy_list", "one_shot",
           "settled"]

#: Scans of its bytes (one per text asked, or per batch of announced texts) a lazy list
#: makes before it compiles whole.
MAX_SCANS = 32
#: Characters of a text the literal-head test follows (past them, any line passes).
HEAD_CAP = 48
#: Characters of a text the literal-tail test compares (a necessary condition still).
TAIL_CAP = 16

_WILD = rb"[*?\[\\]"  # what ends a pattern's literal head (``_simple_length``)
_SP = rb"[*?\[\]\\]"  # any wildcard syntax (a bracket's ``]`` too)
_NSP = rb"[^\n*?\[\]\\]"
_END = rb"/? *\r?(?:\n|\Z)"  # what a line may hold after its pattern: dir slash, spaces, CR
_SKIPPED = re.compile(rb"\n(?=[\n#])")  # a line after this break holds no rule


#: The paths (project-relative, real) a one-shot command is about to decide (:func:`expecting`).
_EXPECTED: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("pathgate_ignore_expected", default=())
#: Texts (a path and each of its ancestors, below a list's base) one scan looks for at most.
MAX_BATCH = 16
#: Lines found for several texts at once past which each text keeps only its own.
NARROW = 32
#: Candidate lines past which a scan's texts are decided without compiling a line that does
#: not match them (:class:`_Direct`).
DIRECT_AFTER = 32
#: Bytes at the file's end where a scan first counts the lines it lets through
#: (:meth:`LazyIgnoreList._most`).
PROBE = 64 << 10


@contextlib.contextmanager
def expecting(relpaths: Sequence[str]) -> Iterator[None]:
    """Within: the decisions asked of lazy lists are those of ``relpaths`` and their
    ancestor directories, so a list scans its bytes once for all of them (an optimisation
    only: the lines found for several texts include those found for each)."""
    token = _EXPECTED.set(tuple(relpaths))
    try:
        yield
    finally:
        _EXPECTED.reset(token)


@contextlib.contextmanager
def one_shot(max_scans: int = MAX_SCANS) -> Iterator[None]:
    """Within: ignore files of :data:`._rules.LAZY_MIN_BYTES` or more are read as
    :class:`LazyIgnoreList` (for a command that asks a few paths, then exits), each
    compiling whole after ``max_scans`` scans (fewer for a walk, which asks entry by entry)."""
    token = _rules._ONE_SHOT.set(True)
    budget = _BUDGET.set(max_scans)
    try:
        yield
    finally:
        _BUDGET.reset(budget)
        _rules._ONE_SHOT.reset(token)


#: Scans a lazy list makes before it compiles whole (:func:`one_shot`).
_BUDGET: contextvars.ContextVar[int] = contextvars.ContextVar("pathgate_ignore_scans", default=MAX_SCANS)


#: Set by :func:`settled`: lazy lists compile whole at their next scan.
_SETTLED: contextvars.ContextVar[bool] = contextvars.ContextVar("pathgate_ignore_settled", default=False)


@contextlib.contextmanager
def settled() -> Iterator[None]:
    """Within: a lazy list compiles whole instead of scanning its bytes again (a command
    that turned out to ask many paths: ``pathgate check-ignore --stdin`` past its bound).
    Decisions already made stay (they are the whole compile's)."""
    token = _SETTLED.set(True)
    try:
        yield
    finally:
        _SETTLED.reset(token)


def _heads(texts: Sequence[bytes]) -> bytes:
    """A line body (after ``!`` and a leading ``/``) whose literal head -- what precedes its
    first ``*?[\\`` -- is a prefix of one of ``texts``, or that is one of them itself (then
    followed by a dir slash, spaces, CR, NUL or its end). Past :data:`HEAD_CAP` characters
    of a text, anything. One trie of the texts: a line is read once, whatever their number."""
    trie: dict[int, dict[int, Any] | bool] = {}
    for text in texts:
        node = trie
        for c in text[:HEAD_CAP]:
            node = node.setdefault(c, {})  # type: ignore[assignment]
        node[_ENDS if len(text) <= HEAD_CAP else _GOES_ON] = True
    return _trie_rx(trie)


_ENDS, _GOES_ON = -1, -2  # (trie marks: a text ends here; a text goes on past the cap)


def _trie_rx(node: dict[int, Any]) -> bytes:
    if _GOES_ON in node:
        return b""
    alts = [_WILD]
    if _ENDS in node:
        alts.append(rb"[/ \r\0\n]|\Z")
    alts.extend(re.escape(bytes((c,))) + _trie_rx(node[c]) for c in sorted(k for k in node if k >= 0))
    return b"(?:" + b"|".join(alts) + b")"


def _tail(texts: Sequence[bytes]) -> bytes:
    """A line whose literal tail -- what follows its last wildcard character, or the whole
    body when it has none -- ends as one of ``texts`` does (its last :data:`TAIL_CAP`
    characters) or is a suffix of it; or a line holding a NUL (its pattern ends there: let
    through). The line is read once (its last wildcard found without backtracking), however
    many texts: the endings and suffixes are tries."""
    ends = list(dict.fromkeys(t[-TAIL_CAP:] for t in texts))
    sufs = list(dict.fromkeys(s[k:] for s in ends for k in range(len(s) + 1)))
    return (rb"(?>(?:" + _NSP + rb"*" + _SP + rb")*)(?:" + _NSP + rb"*" + _literals(ends)
            + rb"|!?/?" + _literals(sufs) + rb")" + _END + rb"|[^\n]*\0")


def _literals(strings: Sequence[bytes]) -> bytes:
    """Any one of ``strings`` (literally), as a trie: at each character one branch."""
    trie: dict[int, Any] = {}
    for text in strings:
        node = trie
        for c in text:
            node = node.setdefault(c, {})
        node[_ENDS] = True
    return _literal_rx(trie)


def _literal_rx(node: dict[int, Any]) -> bytes:
    alts = [re.escape(bytes((c,))) + _literal_rx(node[c]) for c in sorted(k for k in node if k >= 0)]
    if _ENDS in node:
        alts.append(b"")
    return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"


def candidates_rx(name: bytes, rel: bytes, fold: bool) -> re.Pattern[bytes]:
    """The lines (each found at the line break before it) that can match basename ``name``
    or base-relative path ``rel`` (latin-1 views, folded when ``fold``; then compared
    ignoring ASCII case, as ``_fold`` folds).

    Why no line that can match is left out: a line is ``!``, then a pattern, then what
    :func:`._rules.clean_line` trims. A pattern without a ``/`` before its end is tested on
    ``name``, else (a leading ``/`` dropped) on ``rel``; a literal one matches only the
    text itself, a glob only texts starting with its literal head (``_simple_length``: up
    to the first ``*?[\\``) -- :func:`_heads`. Whatever it is tested on, a match ends with
    the pattern's literal tail (after its last ``*?[]\\``: nothing after it is a wildcard),
    and ``name`` is a suffix of ``rel``: so the tail is a suffix of ``"/" + rel`` (the
    ``/`` for ``**/x``, which matches ``x``) -- :func:`_tail`.
    """
    return _union([(name, rel)], fold)


def _union(texts: Sequence[tuple[bytes, bytes]], fold: bool) -> re.Pattern[bytes]:
    """The lines whose head fits one of ``texts`` (``(name, rel)`` pairs) and whose tail
    fits one of them: every line :func:`candidates_rx` finds for any of them (and maybe
    more), at the cost of one text's test per line."""
    first = b"!/*?\\[\\\\ \r\0" + b"".join(dict.fromkeys(re.escape(t[:1]) for pair in texts for t in pair if t))
    heads = _heads([t for pair in texts for t in pair])
    tail = _tail([b"/" + rel for _, rel in texts])
    return re.compile(rb"\n(?=[" + first + rb"])(?=!?/?(?:" + heads + rb"))(?=" + tail + rb")",
                      re.IGNORECASE if fold else 0)


def _skipped(data: bytes, start: int) -> int:
    """The lines after ``start`` holding no rule (empty or a comment): a line break followed
    by one or by ``#``, counted a window at a time (a file of line breaks alone makes no list
    of them all)."""
    n, size = 0, len(data)
    for pos in range(start, size, _WINDOW):  # (endpos one further: the lookahead sees past it)
        n += len(_SKIPPED.findall(data, pos, pos + _WINDOW + 1))
    return n


_WINDOW = 1 << 20
_PIECES = re.compile(r"[*?\\]+")


def _pieces_fit(pt: Pattern, rel: str) -> bool:
    """Does every literal run of glob rule ``pt`` (between its ``*?\\``; a rule with a
    bracket expression is not looked at) occur in ``rel`` -- a necessary condition for it
    to match ``rel`` or its basename, checked before translating the rule? The runs' edge
    slashes are left out (``**/`` also matches no directory)."""
    glob = pt.glob
    if not glob or "[" in glob:
        return True
    for piece in _PIECES.split(glob):
        piece = piece.strip("/")
        if piece and (_fold(piece) if pt.fold else piece) not in rel:
            return False
    return True


class _PastCap(Exception):
    """More lines compiled one by one than a lazy list allows: compile it whole."""


class _LazyTable(_Table):
    """:class:`._rules._Table`'s ``best`` for a :class:`LazyIgnoreList` (one for the entries
    known to be files, one for the others)."""

    __slots__ = ("files", "owner")

    def __init__(self, owner: LazyIgnoreList, files: bool) -> None:  # (no rule tables)
        self.owner = owner
        self.files = files
        self.pathwise = True  # (its decisions depend on the path: nothing remembers by name)

    def best(self, name: str, path: str, off: int = 0) -> int:
        return self.owner.best(self.files, name, path[off:] if off else path)


class _Slots(Sequence[Pattern]):
    """A lazy list's rules by slot (0-based line): those compiled so far; iterating (or a
    slot never compiled) compiles the whole list."""

    __slots__ = ("owner",)

    def __init__(self, owner: LazyIgnoreList) -> None:
        self.owner = owner

    @overload
    def __getitem__(self, slot: int) -> Pattern: ...
    @overload
    def __getitem__(self, slot: slice) -> Sequence[Pattern]: ...
    def __getitem__(self, slot: int | slice) -> Pattern | Sequence[Pattern]:
        if isinstance(slot, slice):
            raise TypeError("a lazy ignore list's rules are indexed by line")
        got = self.owner._pats.get(slot)
        if got is None:
            self.owner.whole()
            got = self.owner._pats.get(slot)
            if got is None:
                raise IndexError(slot)
        return got

    def __len__(self) -> int:
        return len(self.owner)

    def __iter__(self) -> Iterator[Pattern]:
        return iter(self.owner.rules())

    def __reversed__(self) -> Iterator[Pattern]:
        return reversed(self.owner.rules())


class LazyIgnoreList(IgnoreList):
    """An ignore file's list that compiles only the lines the paths asked of it can match
    (see the module). Its indices are 0-based lines; it answers what
    :meth:`IgnoreList.from_bytes` of the same bytes answers."""

    __slots__ = ("_cands", "_cap", "_found", "_full", "_lock", "_n", "_pats", "_scans", "_shared", "data", "first")
    plannable = False

    def __init__(self, source: str, base: str, data: bytes, fold: bool, sig: object = None) -> None:
        # (IgnoreList.__init__ is not called: it would compile every line)
        self.source = source
        self.base = base
        self.offset = len(base)
        self.fold = fold
        self.sig = sig
        self.data = data
        self.first = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # where line 0 starts
        breaks = data.count(b"\n")
        ends = data.endswith(b"\n")
        self.nlines = breaks + (0 if ends or not data else 1)
        # the rules: the lines (``breaks + 1`` pieces, the last empty after a final break)
        # less the empty and comment ones
        skipped = _skipped(data, self.first) + (data[self.first:self.first + 1] in (b"", b"\n", b"#"))
        self._n = breaks + 1 - skipped - ends
        self._pats: dict[int, Pattern | None] = {}  # slot -> its rule (None: no rule there)
        self._found: dict[tuple[bool, str, str], int] = {}
        self._cands: dict[tuple[str, str], list[tuple[int, int, int]] | _Direct] = {}  # by (name, rel)
        self._shared: dict[tuple[str, str], list[tuple[int, int, int]]] = {}  # (see _scan)
        self._scans = 0
        self._cap = max(64, self._n // 4)  # lines compiled one by one before a whole compile
        self._full: tuple[_Table, _Table] | None = None  # (others, files), by slot
        self._lock = threading.Lock()
        self.patterns = _Slots(self)
        self.has_dir_rules = True
        self.dtab = _LazyTable(self, False)
        self.ftab = _LazyTable(self, True)
        self.segmented = {}
        self._lasts = {}
        self.unanchored = ()
        self.anchored = ()
        self.specs = {}
        self.memos = {}

    def __len__(self) -> int:
        return self._n

    def best(self, files: bool, name: str, rel: str) -> int:
        """The slot of the last rule matching basename ``name`` or base-relative path
        ``rel`` (folded latin-1 views), dir-only rules left out for ``files``; or -1."""
        full = self._full
        if full is not None:
            return full[files].best(name, rel)
        key = (files, name, rel)
        got = self._found.get(key)
        if got is not None:
            return got
        found = self._candidates(name, rel)
        if found is None:
            return self.whole()[files].best(name, rel)
        try:
            got = found.best(files, name, rel) if isinstance(found, _Direct) else self._last(found, files, name, rel)
        except (_PastCap, _Doubt):
            return self.whole()[files].best(name, rel)
        self._found[key] = got
        return got

    def _last(self, found: list[tuple[int, int, int]], files: bool, name: str, rel: str) -> int:
        """The slot of the last of the lines ``found`` whose rule matches, compiled one by
        one from the last (their literal runs found in ``rel`` first); or -1."""
        for slot, start, end in reversed(found):
            pt = self._rule(slot, start, end)
            if pt is not None and not (files and pt.dir_only) and _pieces_fit(pt, rel) and pt.matches(name, rel):
                return slot
        return -1

    def matching(self, name: str, rel: str, files: bool) -> list[Pattern]:
        """:meth:`IgnoreList.matching`: every rule matching, from the lines that can match
        only (the lines :meth:`best` looks at, all of them)."""
        if self._full is None:
            found = self._candidates(name, rel)
            if isinstance(found, _Direct):
                with contextlib.suppress(_PastCap, _Doubt):
                    return found.matching(files, name, rel)
            elif found is not None:
                with contextlib.suppress(_PastCap):
                    return [pt for pt in (self._rule(*line) for line in reversed(found))
                            if pt is not None and not (files and pt.dir_only) and _pieces_fit(pt, rel)
                            and pt.matches(name, rel)]
        return super().matching(name, rel, files)  # (every rule: the whole compile)

    def _candidates(self, name: str, rel: str) -> list[tuple[int, int, int]] | _Direct | None:
        """``(slot, start, end)`` of the lines that can match ``(name, rel)`` (remembered),
        or past :data:`DIRECT_AFTER` of them the :class:`_Direct` deciding them; ``None`` when
        the list is to be compiled whole instead."""
        found = self._cands.get((name, rel))
        if found is None:
            shared = self._shared.pop((name, rel), None)  # found by the scan for another text
            found = self._scan(name, rel) if shared is None else self._narrow(name, rel, shared)
            if found is not None:
                self._cands[name, rel] = found
        return found

    def _rule(self, slot: int, start: int, end: int) -> Pattern | None:
        """The rule of line ``slot`` (bytes ``start:end``), compiled on first use; ``None``
        for a line holding none. Raises :class:`_PastCap` past :attr:`_cap` lines compiled
        one by one."""
        pats = self._pats
        if slot in pats:
            return pats[slot]
        if len(pats) >= self._cap:
            raise _PastCap
        cleaned = clean_line(self.data[start:end])
        pt = pats[slot] = None if cleaned is None else line_pattern(self.source, slot + 1, cleaned, self.fold)
        return pt

    def _scan(self, name: str, rel: str) -> list[tuple[int, int, int]] | _Direct | None:
        """``(slot, start, end)`` of each line :func:`candidates_rx` lets through for
        ``(name, rel)`` or for another text :func:`expecting` announced (:meth:`_batch`:
        the same lines serve them all), in file order; past :data:`DIRECT_AFTER` lines, the
        :class:`_Direct` deciding them for all those texts. ``None`` past :data:`MAX_SCANS`
        scans (then the list is compiled whole)."""
        self._scans += 1
        if self._scans > min(MAX_SCANS, _BUDGET.get()) or _SETTLED.get():
            return None
        texts = self._batch(name, rel)
        rx = _union([(n.encode("latin-1"), r.encode("latin-1")) for n, r in texts], self.fold)
        data = self.data
        size = len(data)
        start = self.first
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        direct = not any("\0" in r for _, r in texts)  # (NUL joins the texts: never in a path)
        if direct and self._most(rx):
            return self._direct(texts, None)
        starts = array("q")
        if rx.match(b"\n" + data[start:end]) is not None:
            starts.append(start)
        starts.extend(map(re.Match.end, rx.finditer(data, end)))
        if direct and len(starts) > DIRECT_AFTER:
            return self._direct(texts, starts)
        out: list[tuple[int, int, int]] = []
        slot, counted = 0, 0
        count, find = data.count, data.find
        for start in starts:
            slot += count(b"\n", counted, start)
            counted = start
            end = find(b"\n", start)
            out.append((slot, start, end if end >= 0 else size))
        if len(out) > self._cap:
            return None
        if len(texts) > 1:
            for text in texts[1:]:
                self._shared[text] = out
            return self._narrow(name, rel, out)
        return out

    def _most(self, rx: re.Pattern[bytes]) -> bool:
        """Does ``rx`` let through more than a quarter of the lines in the file's last
        :data:`PROBE` bytes? (Then it is not worth running over the rest: every line is
        read by :class:`_Direct` instead.)"""
        data = self.data
        if len(data) - self.first <= PROBE:
            return False
        cut = data.rfind(b"\n", self.first, len(data) - PROBE)
        if cut < 0:
            return False
        lines = data.count(b"\n", cut)
        return lines >= 64 and 4 * sum(1 for _ in rx.finditer(data, cut)) > lines

    def _direct(self, texts: list[tuple[str, str]], starts: Sequence[int] | None) -> _Direct:
        """A :class:`_Direct` for ``texts`` (the first the text asked; the others found
        there by their own look-up)."""
        direct = _Direct(self, texts, starts)
        for text in texts[1:]:
            self._cands[text] = direct
        return direct

    def _narrow(self, name: str, rel: str, lines: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        """Of ``lines`` (found for several texts at once), those :func:`candidates_rx` finds
        for ``(name, rel)`` alone (a few lines: kept as they are)."""
        if len(lines) <= NARROW:
            return lines
        rx, data = candidates_rx(name.encode("latin-1"), rel.encode("latin-1"), self.fold), self.data
        return [(slot, start, end) for slot, start, end in lines
                if (rx.match(data, start - 1) if slot else rx.match(b"\n" + data[start:end])) is not None]

    def _batch(self, name: str, rel: str) -> list[tuple[str, str]]:
        """``(name, rel)`` and the texts of the paths :func:`expecting` announced and of
        their directories below this list's base not scanned for yet (at most
        :data:`MAX_BATCH`), as this list's views (latin-1, folded as it folds)."""
        out = {(name, rel): None}
        base, known, shared = self.base, self._cands, self._shared
        for path in _EXPECTED.get():
            view = os.fsencode(path).decode("latin-1")
            if self.fold:
                view = _fold(view)
            if not view.startswith(base) or len(view) == len(base):
                continue
            parts = view[len(base):].split("/")
            for k in range(1, len(parts) + 1):
                text = (parts[k - 1], "/".join(parts[:k]))
                if text not in known and text not in shared:
                    out[text] = None
                    if len(out) >= MAX_BATCH:
                        return list(out)
        return list(out)

    def whole(self) -> tuple[_Table, _Table]:
        """The tables of every rule by slot (``(others, files)``), compiled once."""
        with self._lock:
            full = self._full
            if full is None:
                pats, source, fold = self._pats, self.source, self.fold
                items: list[tuple[int, Pattern]] = []
                for lineno, cleaned in _rules._iter_lines(self.data):
                    pt = pats.get(lineno - 1)
                    if pt is None:
                        pt = pats[lineno - 1] = line_pattern(source, lineno, cleaned, fold)
                    items.append((lineno - 1, pt))
                dtab = _Table(items)
                ftab = _Table([(i, p) for i, p in items if not p.dir_only]) \
                    if any(p.dir_only for _, p in items) else dtab
                full = self._full = (dtab, ftab)
                self._found.clear()
                self._cands.clear()
                self._shared.clear()
        return full

    def rules(self) -> list[Pattern]:
        """Every rule, in line order (compiles the whole list)."""
        self.whole()
        return [pt for _, pt in sorted(self._pats.items()) if pt is not None]


#: The lazy lists by ``(source, base, fold, bytes)``, held weakly (as ``_rules._COMPILED``):
#: the remedy search's sessions share the list of the session they check for.
_LAZY: weakref.WeakValueDictionary[tuple[str, str, bool, bytes], LazyIgnoreList] = weakref.WeakValueDictionary()
_LAZY_LOCK = threading.Lock()


def lazy_list(source: str, base: str, data: bytes, fold: bool, sig: object = None) -> LazyIgnoreList:
    """The :class:`LazyIgnoreList` of these bytes (one per distinct key while it lives)."""
    key = (source, base, fold, data)
    with _LAZY_LOCK:
        got = _LAZY.get(key)
        if got is None:
            got = _LAZY[key] = LazyIgnoreList(source, base, data, fold, sig)
    return got
