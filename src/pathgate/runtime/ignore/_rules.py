"""One ignore file's pattern list and git's last-match-wins decision, pure.

Compare with git's ``dir.c``: :func:`parse_lines` is ``add_patterns_from_buffer``,
:func:`compile_pattern` is ``add_pattern`` (plus the choice of matcher per line),
:meth:`IgnoreList.best`-style tables answer ``last_matching_pattern_from_list`` and
:func:`decide` is ``last_matching_pattern_from_lists`` over a chain of lists. No I/O: build
a list from bytes (:meth:`IgnoreList.from_bytes`) or from lines
(:meth:`IgnoreList.from_lines`, the filesystem-free test seam).
"""

from __future__ import annotations

import contextvars
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence

import msgspec

from pathgate.runtime.ignore._groups import glob_group
from pathgate.runtime.ignore._wildmatch import (
    WILD_STAR_RUNS,
    Wildmatch,
    _fold,
    _simple_length,
    literal_regex,
    star_runs,
    translate_wildmatch,
)
from pathgate.verdicts import Rule

__all__ = ["NO_MATCH", "IgnoreList", "Match", "Pattern", "compile_pattern", "decide", "parse_lines"]

#: A glob line with more brackets than this is matched by git's ``wildmatch`` (its automaton),
#: not by a regex: Python's ``re`` compiles a class in ~40 µs.
WILD_BRACKETS = 64

class Match(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A decision and its provenance.

    * ``ignored``: excluded by ignore rules (or fail-closed).
    * ``rule``: the rule that decided — possibly a negated rule, with ``ignored=False``;
      ``None`` when no rule matched (or fail-closed).
    * ``ancestor``: when an excluded ancestor directory decided, its relpath; ``rule`` is that
      directory's rule.
    * ``fail_closed`` / ``unreadable``: an ignore file governing the path could not be read;
      ``ignored`` is ``True`` and ``rule`` is ``None``; ``unreadable`` is that file's relpath.
    """

    ignored: bool
    rule: Rule | None = None
    ancestor: str | None = None
    fail_closed: bool = False
    unreadable: str | None = None
    # (``gc=False``: never tracked by the garbage collector -- its fields, a rule and
    # strings, cannot lead back to it -- so a big ignore file's decisions cost no collection)


NO_MATCH = Match(ignored=False)

# ---------------------------------------------------------------------------------------
# patterns and lists
# ---------------------------------------------------------------------------------------

_LIT, _SUFFIX, _BGLOB, _PLIT, _PGLOB = range(5)


class Pattern(msgspec.Struct, gc=False, eq=False):
    """One compiled ignore line. ``text`` is the matching view (latin-1 of the bytes).

    A glob line (``_BGLOB`` on the basename, ``_PGLOB`` on the base-relative path) keeps
    its wildmatch part (``glob``) and is translated on first use: to a regex (``body``,
    ``regex``), or to git's ``wildmatch`` port (``wild``) when a regex could backtrack, or
    to nothing when it can match nothing (malformed bracket, lone trailing backslash).

    Made by :func:`_pattern` (which sets ``match``). A struct the garbage collector never
    tracks (``gc=False``: a rule, a match, strings, a regex and a :class:`Wildmatch` cannot
    lead back to it): a 300,000-line file adds no object a full collection walks, so its
    compile never holds the interpreter lock for a long collection. Compared by identity."""

    rule: Rule
    kind: int
    text: str
    negated: bool
    dir_only: bool
    glob: str = ""  # the wildmatch part (after the anchor of a path glob)
    fold: bool = False
    # _PGLOB: the first path component every match starts with ("" when the pattern
    # starts with a wildcard): the tables test a rule only on paths under it
    lead: str = ""
    # a rule tested on the base-relative path: the literal text every path it matches
    # starts with ("" when it starts with a wildcard); None for a basename rule
    anchor: str | None = None
    # a glob: the literal text (folded) every basename / path it matches starts with
    head: str = ""
    match: Match = NO_MATCH
    _prepped: bool = True
    _body: str | None = None
    _wild: Wildmatch | None = None
    _rx: re.Pattern[str] | None = None

    def _prep(self) -> None:
        # ``_prepped`` is set last: a thread that sees it sees the translation
        pathname = self.kind == _PGLOB
        if self.glob.count("[") > WILD_BRACKETS:
            # many classes: the automaton (one set per bracket) instead of a regex of as many
            # classes, which Python's `re` compiles at ~40 µs a class (red team 18 J7: a
            # 100 KB line of `[a-z]` cost seconds on every hook call)
            self._wild = Wildmatch(self.glob, pathname, self.fold, self.anchor or "")
            self._prepped = True
            return
        body = self.filter_body()
        if body is not None:
            if star_runs(self.glob) >= WILD_STAR_RUNS:
                self._wild = Wildmatch(self.glob, pathname, self.fold, self.anchor or "", translated=True)
            else:
                self._body = body
        self._prepped = True

    @property
    def body(self) -> str | None:
        """The regex source (``fullmatch``, ``re.DOTALL``) of a glob line; ``None`` when
        :attr:`wild` decides it or it can match nothing."""
        if not self._prepped:
            self._prep()
        return self._body

    @property
    def wild(self) -> Wildmatch | None:
        """git's ``wildmatch`` for a glob line with :data:`WILD_STAR_RUNS` runs of ``*`` or
        more than :data:`WILD_BRACKETS` brackets."""
        if not self._prepped:
            self._prep()
        return self._wild

    def filter_body(self) -> str | None:
        """The regex source of this glob line (its anchor, then its translation), also when
        :attr:`wild` decides it: :attr:`body` for the others, and what the linear-time screen
        of :mod:`._groups` matches with RE2 (never with ``re``); ``None`` when it can match
        nothing."""
        body = translate_wildmatch(self.glob, self.kind == _PGLOB, self.fold)
        if body is None:
            return None
        return literal_regex(self.anchor) + body if self.anchor else body

    @property
    def regex(self) -> re.Pattern[str] | None:
        """:attr:`body`, compiled (on first use)."""
        rx = self._rx
        if rx is None:
            body = self.body
            if body is not None:
                rx = self._rx = re.compile(body, re.DOTALL)
        return rx

    def matches(self, name: str, rel: str) -> bool:
        """Test one (already folded, latin-1 view) basename / base-relative path."""
        k = self.kind
        if k == _LIT:
            return name == self.text
        if k == _SUFFIX:
            return name.endswith(self.text)
        if k == _PLIT:
            return rel == self.text
        if k == _BGLOB or k == _PGLOB:
            text = rel if k == _PGLOB else name
            if not text.startswith(self.head):
                return False  # (no translation for a line that cannot match)
            rx = self._rx
            if rx is not None:
                return rx.fullmatch(text) is not None
            wild = self.wild
            if wild is not None:
                return wild(text)
            rx = self.regex
            return rx is not None and rx.fullmatch(text) is not None
        return False


def _pattern(rule: Rule, kind: int, text: str, negated: bool, dir_only: bool, glob: str = "",
             fold: bool = False, lead: str = "", anchor: str | None = None, head: str = "") -> Pattern:
    """A :class:`Pattern` with its ``match`` (and, for a glob, its translation pending)."""
    return Pattern(rule, kind, text, negated, dir_only, glob, fold, lead, anchor, head,
                   Match(ignored=not negated, rule=rule), kind != _BGLOB and kind != _PGLOB)


def compile_pattern(line: str, rule: Rule, fold: bool = False) -> Pattern:
    """Compile one trimmed ignore line (latin-1 view of its bytes), as ``add_pattern``.
    Glob lines are classified here and translated on first use (:class:`Pattern`)."""
    p = line
    negated = p.startswith("!")
    if negated:
        p = p[1:]
    length = len(p)
    dir_only = False
    if length and p[-1] == "/":
        length -= 1
        dir_only = True
    nodir = "/" not in p[:length]
    nowild = min(_simple_length(p), length)
    pat = p[:length]
    if nodir:
        if nowild == length:
            return _pattern(rule, _LIT, _fold(pat) if fold else pat, negated, dir_only)
        if p.startswith("*") and _simple_length(p[1:]) == len(p) - 1:
            return _pattern(rule, _SUFFIX, _fold(pat[1:]) if fold else pat[1:], negated,
                           dir_only)
        head = pat[:nowild]
        return _pattern(rule, _BGLOB, pat, negated, dir_only, pat, fold,
                       head=_fold(head) if fold else head)
    prefix = nowild
    if pat.startswith("/"):
        pat = pat[1:]
        prefix -= 1
    lit = _fold(pat[:prefix]) if fold else pat[:prefix]
    tail = pat[3:]
    if (pat.startswith("**/") and tail and "/" not in tail
            and _simple_length(tail) == len(tail)):
        # "**/name" matches "name" at any depth below the base: it is the basename
        # literal "name" (wildmatch: "**/" matches zero or more leading directories)
        return _pattern(rule, _LIT, _fold(tail) if fold else tail, negated, dir_only)
    if prefix == len(pat):
        return _pattern(rule, _PLIT, lit, negated, dir_only, anchor=lit)
    lead = lit.partition("/")[0] if "/" in lit else ""
    return _pattern(rule, _PGLOB, pat, negated, dir_only, pat[prefix:], fold, lead, lit, lit)


def _trim_trailing_spaces(s: bytes) -> bytes:
    if not s.endswith(b" "):
        return s
    last_space = -1
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == 0x20:
            if last_space < 0:
                last_space = i
        elif c == 0x5C:
            i += 1
            if i >= n:
                return s
            last_space = -1
        else:
            last_space = -1
        i += 1
    return s[:last_space] if last_space >= 0 else s


def parse_lines(data: bytes) -> list[tuple[int, bytes]]:
    """``add_patterns_from_buffer``: (1-based line number, trimmed pattern bytes)."""
    return list(_iter_lines(data))


def _iter_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """:func:`parse_lines`, one line at a time (a huge file's lines are never all held,
    so freeing them is spread over the compile, not one long stretch at its end)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lineno = 0
    for raw in data.split(b"\n"):
        lineno += 1
        got = clean_line(raw)
        if got is not None:
            yield lineno, got


def clean_line(raw: bytes) -> bytes | None:
    """One line of an ignore file (its bytes between two line breaks, after the file's
    byte-order mark for the first) as :func:`parse_lines` gives its pattern, or ``None``
    when it holds none (empty, a comment): ``add_patterns_from_buffer``'s per-line steps."""
    if not raw or raw[0] == 0x23:  # empty or '#'
        return None
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    nul = raw.find(b"\0")
    if nul >= 0:
        raw = raw[:nul]
    return _trim_trailing_spaces(raw)


def line_pattern(source: str, lineno: int, cleaned: bytes, fold: bool) -> Pattern:
    """The rule :meth:`IgnoreList.from_bytes` compiles for line ``lineno`` (1-based) of
    ``source`` whose pattern bytes (:func:`clean_line`) are ``cleaned``."""
    shown = cleaned.decode("utf-8", "surrogateescape")
    return compile_pattern(cleaned.decode("latin-1"), Rule(source, lineno, shown, shown.startswith("!")), fold)


class _Table:
    """The rules of one list usable for one kind of path (files: no dir-only rules)."""

    __slots__ = ("bglob", "lit", "pathwise", "pdirs", "pglob", "plit", "sfx", "sfx_rules")

    def __init__(self, pats: Iterable[tuple[int, Pattern]]) -> None:
        self.lit: dict[str, int] = {}
        self.plit: dict[str, int] = {}
        sfx: list[tuple[int, str]] = []
        bglob: list[tuple[int, Pattern]] = []
        anywhere: list[tuple[int, Pattern]] = []
        groups: dict[str, list[tuple[int, Pattern]]] = {}
        for idx, pt in pats:
            k = pt.kind
            if k == _LIT:
                self.lit[pt.text] = idx
            elif k == _PLIT:
                self.plit[pt.text] = idx
            elif k == _SUFFIX:
                sfx.append((idx, pt.text))
            elif k == _BGLOB:
                bglob.append((idx, pt))
            elif k == _PGLOB:
                # path globs: those starting with a wildcard are tested on every path; the
                # others only on paths whose first component is theirs (one dict lookup)
                if pt.lead:
                    groups.setdefault(pt.lead, []).append((idx, pt))
                else:
                    anywhere.append((idx, pt))
        sfx.reverse()
        self.sfx = tuple(s for _, s in sfx) or None
        self.sfx_rules = sfx
        self.bglob = glob_group(bglob) if bglob else None
        self.pglob = glob_group(anywhere) if anywhere else None
        self.pdirs = {lead: glob_group(group) for lead, group in groups.items()}
        # does any rule look past the basename? (if not, the path is never sliced)
        self.pathwise = bool(self.plit or self.pglob is not None or self.pdirs)

    def best(self, name: str, path: str, off: int = 0) -> int:
        """Index of the last rule matching the basename ``name`` or the base-relative
        path ``path[off:]``, or -1."""
        best = self.lit.get(name, -1)
        sfx = self.sfx
        if sfx is not None and name.endswith(sfx):
            for idx, s in self.sfx_rules:
                if idx <= best:
                    break
                if name.endswith(s):
                    best = idx
                    break
        g = self.bglob
        if g is not None:
            q = g.quick  # a small group's regex: a miss costs no Python call
            if q is None or q(name) is not None:
                best = g.best(name, best)
        if not self.pathwise:
            return best
        rel = path[off:] if off else path
        if self.plit:
            v = self.plit.get(rel, -1)
            if v > best:
                best = v
        g = self.pglob
        if g is not None:
            q = g.quick
            if q is None or q(rel) is not None:
                best = g.best(rel, best)
        if self.pdirs:
            cut = rel.find("/")
            g = self.pdirs.get(rel[:cut]) if cut > 0 else None
            if g is not None:
                q = g.quick
                if q is None or q(rel) is not None:
                    best = g.best(rel, best)
        return best


class IgnoreList:
    """The compiled lines of one source (an ignore file, or the built-in list).

    ``base`` is the directory it applies to, as a latin-1 view ending in ``/`` (``""`` for
    the root and the repository-wide lists).
    """

    #: Can a directory's plan narrow it (:mod:`._plan`)? A lazy list (:mod:`._lazy`) is
    #: asked whole, its table finding the few lines that can match a path.
    plannable = True

    __slots__ = ("__weakref__", "_lasts", "anchored", "base", "dtab", "fold", "ftab",
                 "has_dir_rules", "memos", "nlines", "offset", "patterns", "segmented", "sig",
                 "source", "specs", "unanchored")

    def __init__(self, source: str, base: str, lines: Iterable[tuple[int, str, str]],
                 fold: bool, sig: object = None, nlines: int = 0) -> None:
        self.source = source
        self.nlines = nlines
        self.base = base
        self.offset = len(base)  # where a path below the base starts
        self.fold = fold
        self.sig = sig
        # compiled in slices, the interpreter lock offered between them (:data:`SLICE`)
        pats: list[Pattern] = []
        add = pats.append
        for k, (lineno, view, shown) in enumerate(lines, 1):
            add(compile_pattern(view, Rule(source, lineno, shown, shown.startswith("!")), fold))
            if not k % SLICE:
                _pause(0)
        #: the rules, by index (a :class:`._lazy.LazyIgnoreList` indexes them by line)
        self.patterns: Sequence[Pattern] = pats
        self.has_dir_rules = any(p.dir_only for p in self.patterns)
        # the table for entries known to be files is built on first use when it differs
        # (check-ignore, which never knows, rarely needs it)
        self.dtab = _Table(enumerate(self.patterns))
        self.ftab: _Table | None = None if self.has_dir_rules else self.dtab
        # for the per-directory tables (:class:`ChainPlan`): the rules that hold wherever
        # the entry is (basename rules, path rules starting with a wildcard) and the path
        # rules with a literal lead, which only directories on that lead can see
        self.segmented: dict[int, tuple[str | Pattern, ...]] = {}
        parts_of: dict[str, str | Pattern] = {}
        for i, p in enumerate(self.patterns):
            if p.anchor is not None:
                segs = _segments(p, fold, parts_of)
                if segs is not None:
                    self.segmented[i] = segs
            if i and not i % SLICE:
                _pause(0)
        self._lasts: dict[int, Pattern] = {}
        self.unanchored = tuple(i for i, p in enumerate(self.patterns)
                                if not p.anchor
                                and i not in self.segmented)
        self.anchored = tuple(i for i, p in enumerate(self.patterns)
                              if p.anchor and i not in self.segmented)
        self.specs: dict[tuple[object, ...], _Table | None] = {}
        # remembered decisions of basename-only chains starting with this list (_plan.py)
        self.memos: dict[tuple[object, object], tuple[dict[str, Match], dict[str, Match]]] = {}

    def last_of(self, i: int) -> Pattern:
        """Segmented rule ``i``'s last component as a basename rule with the rule's negation
        and dir-only flag (what decides once its directory components all matched); made
        on first use (two threads may both make it: equal values)."""
        got = self._lasts.get(i)
        if got is None:
            pt = self.patterns[i]
            last = pt.text.rpartition("/")[2]
            got = self._lasts[i] = compile_pattern(
                ("!" if pt.negated else "") + last + ("/" if pt.dir_only else ""), pt.rule, self.fold)
        return got

    def file_table(self) -> _Table:
        """The rules that can match a non-directory (no dir-only rules)."""
        tab = self.ftab
        if tab is None:
            tab = self.ftab = _Table([(i, p) for i, p in enumerate(self.patterns)
                                      if not p.dir_only])
        return tab

    @classmethod
    def from_bytes(cls, source: str, base: str, data: bytes, fold: bool,
                   sig: object = None) -> IgnoreList:
        lines = ((n, b.decode("latin-1"), b.decode("utf-8", "surrogateescape"))
                 for n, b in _iter_lines(data))
        nlines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        return cls(source, base, lines, fold, sig, nlines)

    @classmethod
    def compiled(cls, source: str, base: str, data: bytes, fold: bool,
                 sig: object = None) -> IgnoreList:
        """:meth:`from_bytes`, compiled once per distinct ``(source, base, fold, data)`` while
        some holder keeps the list alive (:data:`_COMPILED`): every session, runtime and
        remedy check that reads the same bytes of the same file at the same directory shares
        one list. The key is the content itself (compared byte for byte), so an edit is
        always a new compile; ``sig`` is the signature of the first compile (informative).
        Inside :func:`._lazy.one_shot` (a command asking a few paths), bytes of
        :data:`LAZY_MIN_BYTES` or more not compiled already give a :class:`._lazy.LazyIgnoreList`."""
        key = (source, base, fold, data)
        with _COMPILED_LOCK:
            got = _COMPILED.get(key)
        if got is not None:
            return got
        if len(data) >= LAZY_MIN_BYTES and _ONE_SHOT.get():
            # a one-shot command asks a few paths: only the lines that can match them are
            # compiled (:mod:`._lazy`; a list compiled whole already, above, is reused)
            from pathgate.runtime.ignore._lazy import lazy_list

            return lazy_list(source, base, data, fold, sig)
        lst = cls.from_bytes(source, base, data, fold, sig)
        with _COMPILED_LOCK:
            got = _COMPILED.get(key)  # (a thread that compiled the same bytes meanwhile)
            if got is not None:
                return got
            _COMPILED[key] = lst
        return lst

    @classmethod
    def from_strings(cls, source: str, base: str, lines: Sequence[str], fold: bool,
                     first_line: int = 1) -> IgnoreList:
        data = "\n".join(lines).encode("utf-8", "surrogateescape")
        parsed = [(n + first_line - 1, b.decode("latin-1"), b.decode("utf-8", "surrogateescape"))
                  for n, b in parse_lines(data)]
        return cls(source, base, parsed, fold, None, len(lines))

    @classmethod
    def from_lines(cls, lines: Sequence[str], *, source: str = "<lines>", base: str = "",
                   fold: bool = False) -> IgnoreList:
        """The filesystem-free test seam: a list from ignore-file lines, applying to the
        directory ``base`` (``""``: the root; else a relpath, with or without a trailing
        ``/``). Decide with :meth:`decide`."""
        if base and not base.endswith("/"):
            base += "/"
        return cls.from_strings(source, base, list(lines), fold)

    def decide(self, relpath: str, is_dir: bool = False) -> Match:
        """Last-match-wins over this list alone for ``relpath`` (relative to the project
        root, below :attr:`base`); :data:`NO_MATCH` when no line matches."""
        name = relpath.rpartition("/")[2]
        path_v = _fold(os.fsencode(relpath).decode("latin-1")) if self.fold else \
            os.fsencode(relpath).decode("latin-1")
        name_v = path_v.rpartition("/")[2] if name else ""
        pt = decide((self,), path_v, name_v, is_dir, lambda _: is_dir, relpath)
        return NO_MATCH if pt is None else pt.match

    def matching(self, name: str, rel: str, files: bool) -> list[Pattern]:
        """Every rule matching basename ``name`` or base-relative path ``rel`` (folded latin-1
        views), last line first; dir-only rules left out for ``files``."""
        return [pt for pt in reversed(self.patterns) if not (files and pt.dir_only) and pt.matches(name, rel)]

    def __len__(self) -> int:
        return len(self.patterns)


#: Lines compiled between two offers of the interpreter lock (``time.sleep(0)``): a huge
#: file's first compile, in a worker thread, lets the event loop run every few milliseconds.
SLICE = 2048
_pause: Callable[[float], None] = time.sleep  # (a seam: tests count the offers)

#: The compiled lists by ``(source, base, fold, bytes)``, held weakly: an entry lives exactly as
#: long as some directory node (or session) holds its list, so the cache adds no list of its
#: own to memory, only each live list's bytes (a fraction of its compiled size). A list is a
#: pure function of its key (rules name ``source``; ``base`` anchors them; ``fold`` folds
#: them), and its lazily built parts (regexes, tables, remembered decisions) are functions of
#: the list alone: sharing it between sessions and runtimes changes no decision.
_COMPILED: weakref.WeakValueDictionary[tuple[str, str, bool, bytes], IgnoreList] = \
    weakref.WeakValueDictionary()
_COMPILED_LOCK = threading.Lock()

#: Bytes from which an ignore file read inside :func:`._lazy.one_shot` is a lazy list.
LAZY_MIN_BYTES = 64 << 10
#: Set by :func:`._lazy.one_shot` (``pathgate hook``): this context asks a few paths only.
_ONE_SHOT: contextvars.ContextVar[bool] = contextvars.ContextVar("pathgate_ignore_one_shot", default=False)


def decide(chain: tuple[IgnoreList, ...], path: str, name: str, is_dir: bool | None,
            isdir_of: Callable[[str], bool], relpath: str) -> Pattern | None:
    """``last_matching_pattern_from_lists`` over a chain (views already folded).
    ``is_dir=None``: ``isdir_of(relpath)`` tells, asked only when a dir-only rule would
    decide."""
    for lst in chain:
        off = lst.offset
        if is_dir is False:
            r = (lst.ftab or lst.file_table()).best(name, path, off)
        else:
            # the dir table is a superset: its best rule decides unless it is dir-only
            r = lst.dtab.best(name, path, off)
            if r >= 0 and is_dir is None and lst.patterns[r].dir_only:
                is_dir = isdir_of(relpath)
                if not is_dir:
                    r = (lst.ftab or lst.file_table()).best(name, path, off)
        if r >= 0:
            return lst.patterns[r]
    return None


def _segments(pt: Pattern, fold: bool, parts_of: dict[str, str | Pattern]) -> tuple[str | Pattern, ...] | None:
    """A path rule without ``**``, brackets or escapes as its components (with
    ``WM_PATHNAME``, ``*`` and ``?`` never match ``/``: such a rule matches a path exactly
    when the component counts agree and each component matches), each a literal (the folded
    string) or a basename rule, shared through ``parts_of`` by the rules of one list; else
    ``None``. The last component as a rule of its own: :meth:`IgnoreList.last_of`."""
    if pt.anchor is None:
        return None
    text = pt.text
    if "**" in text or "[" in text or "\\" in text:
        return None
    if text.startswith("!") or "/!" in text:
        return None
    rule = pt.rule
    comps: list[str | Pattern] = []
    for c in text.split("/"):
        got = parts_of.get(c)
        if got is None:
            if _simple_length(c) == len(c):  # a literal: compile_pattern's _LIT text
                got = parts_of[c] = _fold(c) if fold else c
            else:
                got = parts_of[c] = compile_pattern(c, rule, fold)
        comps.append(got)
    return tuple(comps)


def comp_matches(comp: str | Pattern, name: str) -> bool:
    """Does one component of a segmented rule (:func:`_segments`) match ``name`` (folded)?"""
    return comp == name if type(comp) is str else comp.matches(name, name)  # type: ignore[union-attr]
