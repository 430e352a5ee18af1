"""Secret tests of the relpaths a discovery call meets, for
:class:`~pathgate.runtime.tools._discover.Discovery`: directory by directory (a walk and a
count ask about whole directories' entries), with the secret matcher's name pre-test
(:attr:`~pathgate.runtime.gates.secrets.SecretMatcher.maybe`) so that only names that could
be secrets take the full test; and the cores that make one call (``pathgate glob`` and
``pathgate search``), whose calls keep nothing for a later one. Every function here answers
exactly what ``SecretMatcher.is_secret`` answers (``tests/runtime/gates/test_secret_pretest.py``).
"""

from __future__ import annotations

import sys
import weakref
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate, repeat
from operator import add
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.runtime._walk import Entry
    from pathgate.runtime.gates.secrets import SecretMatcher

__all__ = ["one_call"]


#: Cores that make one discovery call and end (:func:`one_call`).
_ONE_CALL: weakref.WeakSet[GateCore] = weakref.WeakSet()


def one_call(core: GateCore) -> None:
    """Mark ``core`` as making one discovery call before it is dropped (``pathgate glob`` and
    ``pathgate search``): its calls keep nothing for later ones — the walk's ignore nodes
    stay in its session, the secret tests in the call, the count inside excluded
    directories is not kept — the same answers, without the bookkeeping."""
    _ONE_CALL.add(core)


def _each(is_secret: Callable[[str], bool], chunk: list[Entry], known: dict[str, bool]) -> None:
    """Each walked entry's secret test into ``known``."""
    for e in chunk:
        known[e.relpath] = is_secret(e.relpath)


def _by_dir(matcher: SecretMatcher, is_secret: Callable[[str], bool], chunk: list[Entry],
            known: dict[str, bool]) -> None:
    """:func:`_by_dir_each`, a walked chunk at once where RE2 is loaded (``pathgate search``
    loads it for the pattern; elsewhere, entry by entry): a relpath whose casefolded text
    holds none of the pre-test's needles (:attr:`SecretMatcher.needles`, looked for by one
    RE2 scan of the chunk's relpaths joined) is no secret — its basename clears the
    pre-test and so does every component of its directory, so no component is named like a
    secret and no path pattern (its match ends in a component holding its needle) reaches
    it or an ancestor. The others, in walk order (a directory before its entries), are
    decided as :func:`_by_dir_each` decides them. A chunk that is not ASCII (``casefold``
    may change lengths) is decided entry by entry."""
    scan = _needle_scan(matcher)
    rels = [e.relpath for e in chunk]
    text = "\n".join(rels)
    if scan is None or not text.isascii():
        _by_dir_each(matcher, is_secret, chunk, known)
        return
    folded = text.lower().encode("ascii")  # casefold, for ASCII
    end = len(folded)
    at = scan(_UNANCHORED, folded, 0, end)[0][0]
    if at < 0:
        known.update(dict.fromkeys(rels, False))
        return
    # each relpath's offset in ``text``: its start is the previous one's end + 1
    starts = list(accumulate(map(add, map(len, rels), repeat(1)), initial=0))
    found: list[int] = []
    while at >= 0:
        i = bisect_right(starts, at) - 1
        found.append(i)
        if starts[i + 1] >= end:
            break
        at = scan(_UNANCHORED, folded, starts[i + 1], end)[0][0]  # from the next relpath on
    # the others hold no needle: no secret. The candidates are decided next, in order, and
    # hold no answer until then: a candidate directory listed after its own entries (a chunk
    # out of walk order) is asked by ``_dir_secret``, never read as a placeholder ``False``
    candidates = set(found)
    known.update((rel, False) for i, rel in enumerate(rels) if i not in candidates)
    in_plain_dir = matcher.in_plain_dir
    head, secret_dir = "\0", False  # no head is "\0"
    for i in found:
        rel = rels[i]
        h, _, name = rel.rpartition("/")
        if h != head:
            head, secret_dir = h, _dir_secret(matcher, known, h)
        known[rel] = secret_dir or in_plain_dir(h, name)


#: RE2's unanchored search (set with the first needle scan)
_UNANCHORED: object = None
#: per matcher, its needles' RE2 scan (``None``: no ASCII needle can be scanned for so)
_SCANS: weakref.WeakKeyDictionary[SecretMatcher, Callable[..., Any] | None] = weakref.WeakKeyDictionary()


def _needle_scan(matcher: SecretMatcher) -> Callable[..., Any] | None:
    """RE2's ``Match`` for the matcher's needles (every character but letters and digits
    written ``\\xHH``; needles that are not ASCII are left out: an ASCII text cannot hold
    them), or ``None`` when RE2 is not loaded in this process (or the program fails)."""
    global _UNANCHORED
    re2 = sys.modules.get("re2")
    if re2 is None:
        return None
    try:
        return _SCANS[matcher]
    except KeyError:
        pass
    needles = [n for n in matcher.needles or () if n.isascii()]
    scan = None
    if needles:
        options = re2.Options()
        options.never_capture = True
        options.log_errors = False
        pattern = "|".join("".join(c if c.isalnum() else f"\\x{ord(c):02x}" for c in n) for n in needles)
        program = re2._re2.RE2(pattern.encode("ascii"), options)
        if program.ok():
            _UNANCHORED = re2._Anchor.UNANCHORED
            scan = program.Match
    else:
        scan = _none_found
    _SCANS[matcher] = scan
    return scan


def _none_found(anchor: object, text: bytes, pos: int, end: int) -> tuple[tuple[int, int]]:
    return ((-1, -1),)


def _by_dir_each(matcher: SecretMatcher, is_secret: Callable[[str], bool], chunk: list[Entry],
                 known: dict[str, bool]) -> None:
    """:func:`_each` with the matcher's name pre-test, entry by entry: a walked chunk comes
    directory by directory, each directory's part is decided once, and a name the pre-test
    clears in a directory that is no secret is none; only the other names ask ``is_secret``."""
    maybe = matcher.maybe
    assert maybe is not None
    head, secret_dir = "\0", False  # no head is "\0"
    for e in chunk:
        rel = e.relpath
        h, _, name = rel.rpartition("/")
        if h != head:
            head, secret_dir = h, _dir_secret(matcher, known, h)
        known[rel] = secret_dir or (maybe(name.casefold()) is not None and is_secret(rel))


def _dir_secret(matcher: SecretMatcher, known: dict[str, bool], head: str) -> bool:
    """:meth:`SecretMatcher.dir_is_secret`, answered from ``known`` (relpaths' secret tests)
    when it holds ``False`` for ``head`` itself: a directory that is no secret as a path is
    none as a directory either (a secret component, or a path pattern ending at it or an
    ancestor, makes the path a secret too; NTFS ``:`` spellings are always asked)."""
    if known.get(head) is False and ":" not in head:
        return False
    return matcher.dir_is_secret(head)


def _pretested(matcher: SecretMatcher, is_secret: Callable[[str], bool],
               known: dict[str, bool]) -> Callable[[str], bool]:
    """``is_secret`` (the matcher's test of relpaths) asked only about names the matcher's
    pre-test does not clear in a directory that is no secret (see :func:`_by_dir`); each
    directory's part decided once per run of its entries. Each answer is noted in
    ``known`` (the call's: so are the directories a count lists)."""
    maybe = matcher.maybe
    assert maybe is not None
    cur = [("\0", False)]  # no head is "\0"

    def test(rel: str) -> bool:
        head, _, name = rel.rpartition("/")
        last = cur[0]  # one read, one write: threads may share it (a stale pair is only slower)
        if last[0] != head:
            last = cur[0] = (head, _dir_secret(matcher, known, head))
        got = known[rel] = last[1] or (maybe(name.casefold()) is not None and is_secret(rel))
        return got

    return test


def _memo(in_dir: Callable[[str], Callable[[str], bool]]) -> Callable[[str], bool]:
    """A secret test of relpaths for one call, a directory's part decided once per run of
    its entries (walks and counts ask directory by directory). Each relpath's answer is
    kept by the caller (:func:`~pathgate.runtime._links.secret_memo`), not again here."""
    cur: list[tuple[str, Callable[[str], bool]]] = [("\0", in_dir(""))]  # no head is "\0"

    def memo(rel: str) -> bool:
        head, _, name = rel.rpartition("/")
        last = cur[0]  # one read, one write: threads may share it (a stale pair is only slower)
        if last[0] != head:
            last = cur[0] = (head, in_dir(head))
        return last[1](name)

    return memo
