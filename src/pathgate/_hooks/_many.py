"""Names Gemini CLI's ``read_many_files`` could read more than one file for.

Gemini CLI globs **every** ``read_many_files`` entry, one that exists as written too: it
escapes the name and globs it with ``nocase: true`` (``read-many-files.ts``), and minimatch
turns a literal with a cased letter into a case-insensitive regular expression unless
``nocaseMagicOnly`` is set. ``NOTES.txt`` therefore also reads ``notes.txt``, which may be a
hard link to ``.env``, an ignored file or a host-filtered one; ``PRIVATE/plan.md`` also reads
``private/plan.md``.

The hook judges the spelling it is given; this module answers whether the tool could read
anything else, **from the entry alone**: an entry with a cased character in a component the
glob matches could reach a case variant, and is refused whether one exists or not. A judgment
from the directory's listing (refuse only when a variant is there) told the model whether a
variant it cannot see exists — a hard link to ``.env`` named ``notes.txt``, a host-filtered
``secrets/`` — since the model can create ``NOTES.txt`` itself and ask (red team 18 J5): no
answer that keeps such a variant out of the tool's read and does not depend on whether it
exists can look at the tree. An entry deeper than :data:`_MAX_DEPTH` components is refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

__all__ = ["glob_view", "may_vary"]

#: Components of one entry walked below its base; a deeper entry is refused.
_MAX_DEPTH = 64

#: Case-insensitive "equal" as JavaScript's regular expressions may read it, widened: the
#: ``i`` flag compares upper cases (``u`` flag: simple case folding, so ``ſ`` is ``s`` and
#: the Kelvin sign ``k``). Two names are variants when any of these folds makes them equal,
#: a superset of what the tool matches (a name counted as a variant that the tool would not
#: match only makes the hook refuse more). The first "fold" is the name itself.
_FOLDS: tuple[Callable[[str], str], ...] = (
    str, str.lower, str.upper, str.casefold, lambda s: s.upper().casefold(),
)


def glob_view(entry: str, base: str) -> tuple[str, list[str]]:
    """``(literal directory, components matched below it)`` of the ``/``-separated
    ``entry`` as node-glob walks it from ``base``: ``.`` and empty components dropped, ``..``
    taken lexically (glob's path objects go to the parent they came from), an absolute
    entry matched from the filesystem's root."""
    if os.path.isabs(entry):
        drive, _rest = os.path.splitdrive(entry)
        start = drive + os.sep
    else:
        start = os.path.abspath(base)
    tail: list[str] = []
    for comp in entry.split("/"):
        if comp in ("", "."):
            continue
        if comp != "..":
            tail.append(comp)
        elif tail:
            tail.pop()
        else:
            start = os.path.dirname(start)
    return start, tail


def may_vary(entry: str, bases: Iterable[str]) -> bool:
    """Could a case-insensitive glob of ``entry`` (``/``-separated) from any of ``bases``
    reach a path other than the one spelled, whatever the tree holds: a component it
    matches holds a character some fold of :data:`_FOLDS` changes, or it is past
    :data:`_MAX_DEPTH` components. Looks at nothing on disk."""
    for base in dict.fromkeys(bases):
        _start, tail = glob_view(entry, base)
        if len(tail) > _MAX_DEPTH or any(_cased(comp) for comp in tail):
            return True
    return False


def _cased(name: str) -> bool:
    """Does some fold of :data:`_FOLDS` change ``name`` (a letter with another case, ``ß``,
    the Kelvin sign …)?"""
    return any(fold(name) != name for fold in _FOLDS[1:])
