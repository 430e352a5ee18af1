"""The live index's records: one compact record per kept directory, and a glob's
traversal of them over stored verdict classes (issue 15)."""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable
from typing import NamedTuple

from pathgate.runtime._walk import DIR, FILE, KINDS, OTHER, SYMLINK, Entry
from pathgate.runtime.ignore import Match

__all__ = [
    "CLASSIFIED",
    "C_DIR",
    "C_GIT",
    "C_IGNORE",
    "C_IGNORE_FC",
    "C_LINK",
    "C_MATCH",
    "C_OPAQUE",
    "SECRET",
    "Classify",
    "Flat",
    "GlobScan",
    "Select",
    "flatten",
    "replay",
    "scan_glob",
    "scan_odd",
    "with_plain",
]

#: Verdict classes of stored entries (:meth:`LiveIndex.glob_scan`), ``| SECRET`` when the
#: relpath is secret by name (never charged to the walk budget).
C_MATCH, C_OPAQUE, C_GIT, C_IGNORE, C_IGNORE_FC, C_LINK, C_DIR = range(7)
SECRET = 8
#: Set in a record's kind bytes once its verdict classes are stored there.
CLASSIFIED = 0x80
#: ``classify(relpath, kind, match)``: an entry's class (a pure function of the policy).
Classify = Callable[[str, str, "Match | None"], int]


class GlobScan(NamedTuple):
    """A glob's walk answered from the index with the entries' verdicts precomputed:
    ``matches`` (walk order), per class ``counts`` and the first ``examples`` as
    ``(position, relpath)``, the symlinks still to judge ``(position, entry)`` (a target
    may change without an event here), the excluded directories met, the error entries,
    and the entries the walk budget would charge."""

    matches: list[str]
    counts: list[int]
    examples: list[list[tuple[int, str]]]
    links: list[tuple[int, Entry]]
    excluded: list[Entry]
    errors: list[Entry]
    counted: int
    #: what names this scan's outcome while the records are unchanged (``None``: nothing)
    key: object = None
    #: the walk budget stopped it (the walk would have stopped at the same entry)
    stopped: bool = False


_KINDS = KINDS  # (FILE, DIR, SYMLINK, OTHER): the walker's record-mode codes
_CODE = {k: i for i, k in enumerate(_KINDS)}
_DIR_CODE = _CODE[DIR]


class _Dir:
    """One kept directory, stored compactly: its entries' names (the walker's order), one
    kind byte each, the ignore :class:`Match` of each (``None`` when nothing in it is
    excluded), or its error entry; its watch. A kind byte also holds the entry's verdict
    class once a glob asked (``kind | class << 2 | CLASSIFIED``; dropped with the record)."""

    __slots__ = ("error", "kinds", "matches", "names", "wd")

    def __init__(self, wd: int) -> None:
        self.names: tuple[str, ...] = ()
        self.kinds: bytes = b""
        self.matches: tuple[Match | None, ...] | None = None
        self.error: Entry | None = None
        self.wd = wd

    def record(self, entries: list[Entry]) -> None:
        """Store one listing (entries of this directory, in the walker's order)."""
        if not entries:
            self.names, self.kinds, self.matches = (), b"", None
            return
        rp = entries[0].relpath
        cut = rp.rfind("/") + 1  # one directory's entries: one prefix
        code = _CODE
        self.names = tuple([e.relpath[cut:] for e in entries])
        self.kinds = bytes([code[e.kind] for e in entries])
        matches = [e.match for e in entries]
        self.matches = None if matches.count(None) == len(matches) else tuple(matches)

    def listed(self, names: list[str], kinds: bytearray, matches: list[Match | None] | None) -> None:
        """Store one listing as the walker's record mode hands it (:data:`~pathgate.runtime._walk.Record`)."""
        self.names = tuple(names)
        self.kinds = bytes(kinds)
        self.matches = None if matches is None else tuple(matches)

    def clear(self, error: Entry | None = None) -> None:
        self.names, self.kinds, self.matches, self.error = (), b"", None, error

    def entries(self, rel: str) -> list[Entry]:
        """The stored listing as the walker's entries (``rel``: this directory)."""
        prefix = rel + "/" if rel else ""
        kinds, matches = self.kinds, self.matches
        if matches is None:
            return [Entry(prefix + n, _KINDS[k & 3]) for n, k in zip(self.names, kinds, strict=True)]
        return [Entry(prefix + n, _KINDS[k & 3], m)
                for n, k, m in zip(self.names, kinds, matches, strict=True)]

    def kept_subdirs(self, rel: str) -> list[str]:
        """Relpaths of the kept subdirectories (those the index records too)."""
        prefix = rel + "/" if rel else ""
        matches = self.matches
        return [prefix + n for i, (n, k) in enumerate(zip(self.names, self.kinds, strict=True))
                if k & 3 == _DIR_CODE and (matches is None or matches[i] is None)]


def replay(dirs: dict[str, _Dir], start: str, descend: Callable[[str], bool] | None,
           want: Callable[[str], bool] | None, limit: int | None = None,
           uncounted: Callable[[Entry], bool] | None = None, *, restat: str | None = None) -> list[Entry] | None:
    """The walker's entries below ``start``, in its order, from the records ``dirs``; with
    a ``limit``, whole directories until that many counted entries (neither error entries
    nor ``uncounted``: the caller's budget then cuts exactly where a walk would have
    stopped). ``None``: ``start`` is excluded, missing or unlistable (the walk answers, and
    errs). Raises :class:`KeyError` when a recorded subdirectory has no record.

    ``restat`` (the root, ending in ``/``): every regular file replayed is ``lstat``-ed
    now and marked as a walker with ``links`` marks it (:attr:`Entry.links`); one gone is
    left out."""
    first = dirs.get(start)
    if first is None or first.error is not None:
        return None
    out: list[Entry] = []
    stack = [start]
    counted = 0
    while stack and (limit is None or counted < limit):
        rel = stack.pop()
        d = dirs[rel]
        if d.error is not None:
            out.append(d.error)
            continue
        subs: list[str] = []
        mark = len(out)
        for e in d.entries(rel):
            if e.kind == DIR:
                out.append(e)
                if e.match is None and (descend is None or descend(e.relpath)):
                    subs.append(e.relpath)
            elif want is None or want(e.relpath):
                if restat is not None and e.kind == FILE:
                    got = _marked(e, restat)
                    if got is None:
                        continue
                    e = got
                out.append(e)
        if limit is not None:
            counted += len(out) - mark if uncounted is None else \
                sum(1 for e in out[mark:] if not uncounted(e))
        subs.reverse()
        stack.extend(subs)
    return out


def _marked(e: Entry, root: str) -> Entry | None:
    """Regular file ``e`` with its link mark (see :func:`replay`), ``lstat``-ed now below
    ``root`` (ending in ``/``); ``None`` when it is gone (``ENOENT``/``ENOTDIR``: left out,
    as a walk now would leave it; listing a name that was a secret's hard link would say it
    existed); one that cannot be ``lstat``-ed otherwise is kept unmarked, as the walker
    keeps it."""
    try:
        st = os.lstat(root + e.relpath)
    except OSError as exc:
        return None if exc.errno in (errno.ENOENT, errno.ENOTDIR) else e
    return e._replace(links=st) if st.st_nlink > 1 else e


#: ``select(flat)``: those of ``flat.plain`` the glob wants, in order (the pattern's test
#: over the whole list, as ``want`` would answer each).
Select = Callable[["Flat"], list[str]]

#: Classified kind bytes of the common entries: a kept, non-secret subdirectory; a file
#: (or other non-directory) of the matching class, not secret.
_PLAIN_DIR = _DIR_CODE | C_DIR << 2 | CLASSIFIED
_PLAIN_FILES = (_CODE[FILE] | C_MATCH << 2 | CLASSIFIED, _CODE[OTHER] | C_MATCH << 2 | CLASSIFIED)
#: A byte that makes a record need the per-entry loop (anything but the above).
_ODD = re.compile(b"[^" + b"".join(re.escape(bytes([c])) for c in (_PLAIN_DIR, *_PLAIN_FILES)) + b"]")


class Flat(NamedTuple):
    """The records below one start flattened for globs without pruning (``**/…``), valid
    while the index and the verdict classes are unchanged: the relpaths of the files of
    *plain* records (kept non-secret subdirectories and matching-class files only, most
    of them), sorted; how many subdirectories those records hold (each charged to the
    walk budget); and the other records (or error records), in the walk's order. ``ascii``
    says whether every plain relpath is ASCII (then it is its own latin-1 view: a regex
    takes it as is)."""

    plain: list[str]
    ascii: bool
    plain_dirs: int
    odd: list[str]


def flatten(dirs: dict[str, _Dir], start: str, classify: Classify) -> Flat:
    """:class:`Flat` of the records below ``start`` (a listable kept directory), walked in
    the replay's order. Raises :class:`KeyError` like :func:`scan_glob`."""
    plain: list[str] = []
    odd: list[str] = []
    plain_dirs = 0
    stack = [start]
    pd = _PLAIN_DIR
    while stack:
        rel = stack.pop()
        d = dirs[rel]
        if d.error is not None:
            odd.append(rel)
            continue
        cls = d.kinds
        if cls and not cls[0] & CLASSIFIED:
            cls = d.kinds = _classes(rel, d, classify)
        prefix = rel + "/" if rel else ""
        if d.matches is None and _ODD.search(cls) is None:
            plain.extend([prefix + n for n, c in zip(d.names, cls, strict=True) if c != pd])
            plain_dirs += cls.count(pd)
        else:
            odd.append(rel)
        subs = d.kept_subdirs(rel)
        subs.reverse()
        stack.extend(subs)
    plain = sorted(plain)  # (no spare capacity kept)
    return Flat(plain, all(map(str.isascii, plain)), plain_dirs, odd)


class _Scan:
    """One glob traversal's accumulators (see :func:`scan_glob`)."""

    __slots__ = ("cap", "counted", "n_examples", "out", "pos", "stopped")

    def __init__(self, n_examples: int, cap: int = -1) -> None:
        self.out = GlobScan([], [0] * SECRET, [[] for _ in range(SECRET)], [], [], [], 0)
        self.counted = self.pos = 0
        self.n_examples = n_examples
        #: entries the walk budget charges at most (``-1``: no budget); the entry that
        #: would be charged past it stops the scan, as it stops the walk
        self.cap = cap
        self.stopped = False

    def record(self, rel: str, d: _Dir, descend: Callable[[str], bool] | None,
               want: Callable[[str], bool] | None, classify: Classify) -> list[str]:
        """Take one record's entries, entry by entry; the subdirectories to enter."""
        out = self.out
        if d.error is not None:
            out.errors.append(d.error)
            return []
        cls = d.kinds
        if cls and not cls[0] & CLASSIFIED:
            cls = d.kinds = _classes(rel, d, classify)
        prefix = rel + "/" if rel else ""
        ms = d.matches
        matches, counts, examples, links = out.matches, out.counts, out.examples, out.links
        counted, pos, cap = self.counted, self.pos, self.cap
        subs: list[str] = []
        for i, name in enumerate(d.names):
            c = cls[i] >> 2
            kind = c & 7
            crel = prefix + name
            if kind == C_DIR:
                if not c & SECRET:  # (a secret is never charged: its number must not show)
                    if counted == cap:
                        self.stopped = True
                        break
                    counted += 1
                m = None if ms is None else ms[i]
                if m is not None:
                    out.excluded.append(Entry(crel, DIR, m))
                elif descend is None or descend(crel):
                    subs.append(crel)
                continue
            if want is not None and not want(crel):
                continue
            if not c & SECRET:
                if counted == cap:
                    self.stopped = True
                    break
                counted += 1
            if kind == C_MATCH:
                matches.append(crel)
            elif kind == C_LINK:
                links.append((pos, Entry(crel, SYMLINK, None if ms is None else ms[i])))
            elif kind != C_OPAQUE:
                counts[kind] += 1
                if len(examples[kind]) < self.n_examples:
                    examples[kind].append((pos, crel))
            pos += 1
        self.counted, self.pos = counted, pos
        return subs


def scan_glob(dirs: dict[str, _Dir], start: str, descend: Callable[[str], bool] | None,
              want: Callable[[str], bool] | None, classify: Classify,
              n_examples: int, flat: Callable[[], Flat] | None = None,
              select: Select | None = None, budget: int | None = None) -> GlobScan | None:
    """A glob's traversal of the records below ``start`` (the replay's order) over their
    verdict classes (stored on first use); ``None``: the start is not a listable kept
    directory. Raises :class:`KeyError` when a recorded subdirectory has no record.

    With ``flat`` (the :class:`Flat` records below ``start``; only when ``descend`` is
    ``None``) and ``select``, the plain records' files are taken as one list (``select``
    over the flat relpaths) and only the other records entry by entry: the same matches,
    counts and charge, the omission examples and symlinks in the same relative order.

    ``budget`` (the walk budget; not with ``flat``): the scan stops where the walk would,
    at the entry that would be charged past it (``stopped``), in walk order: what came
    before it (entries, excluded directories, error entries) is the walk's, nothing after."""
    first = dirs.get(start)
    if first is None or first.error is not None:
        return None
    if flat is not None and select is not None and descend is None:
        f = flat()
        return with_plain(scan_odd(dirs, f, want, classify, n_examples), f, select)
    scan = _Scan(n_examples, -1 if budget is None else budget)
    stack = [start]
    while stack and not scan.stopped:
        rel = stack.pop()
        subs = scan.record(rel, dirs[rel], descend, want, classify)
        subs.reverse()
        stack.extend(subs)
    return scan.out._replace(counted=scan.counted, stopped=scan.stopped)


def scan_odd(dirs: dict[str, _Dir], f: Flat, want: Callable[[str], bool] | None,
             classify: Classify, n_examples: int) -> GlobScan:
    """The part of a glob's traversal :class:`Flat` leaves to the records one by one (its
    ``odd`` records, in walk order): their matches (sorted), counts, examples, symlinks,
    excluded directories, errors and charge. A pure function of the records, ``want`` and
    ``classify``: the index keeps it per pattern until the records change."""
    scan = _Scan(n_examples)
    for rel in f.odd:
        scan.record(rel, dirs[rel], None, want, classify)
    scan.out.matches.sort()
    return scan.out._replace(counted=scan.counted)


def with_plain(odd: GlobScan, f: Flat, select: Select) -> GlobScan:
    """``odd`` (:func:`scan_odd`, never mutated) with the plain records' matches
    (``select`` over ``f``) put first: a fresh matches list, two sorted runs."""
    got = select(f)
    got.extend(odd.matches)
    return odd._replace(matches=got, counted=odd.counted + f.plain_dirs + len(got) - len(odd.matches))


def _classes(rel: str, d: _Dir, classify: Classify) -> bytes:
    """One record's kind bytes with each entry's verdict class added."""
    prefix = rel + "/" if rel else ""
    ms = d.matches or (None,) * len(d.names)
    return bytes(k | classify(prefix + n, _KINDS[k], m) << 2 | CLASSIFIED
                 for n, k, m in zip(d.names, d.kinds, ms, strict=True))
