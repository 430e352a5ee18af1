"""Case variants of a file that Gemini CLI's ``read_many_files`` is asked for by name.

Gemini CLI globs **every** ``read_many_files`` entry, one that exists as written too: it
escapes the name and globs it with ``nocase: true`` (``read-many-files.ts``), and minimatch
turns a literal with a cased letter into a case-insensitive regular expression unless
``nocaseMagicOnly`` is set. ``NOTES.txt`` therefore also reads ``notes.txt``, which may be a
hard link to ``.env``, an ignored file or a host-filtered one; ``PRIVATE/plan.md`` also reads
``private/plan.md``.

The hook judges the spelling it is given; this module answers whether the tool could read
anything else. Each component of the path the glob walks is looked up in a listing of its
directory, and the entry is refused when some component has a case-variant sibling —
whatever that sibling is or leads to, so the answer never depends on a secret (a hard link
to ``.env`` and an ordinary file of the same name give the same answer). Only the exact
path is walked, so only siblings of its components are ever looked at. Anything that cannot
be told (a listing that fails, a path too deep, more names than the call may list) counts
as a variant: the caller fails closed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Literal

__all__ = ["CaseVariants"]

#: Components of one entry walked below its base; a deeper entry is refused.
_MAX_DEPTH = 64
#: Directory entries one hook call may list (all entries together); past it, refused.
_MAX_NAMES = 1 << 18

#: Case-insensitive "equal" as JavaScript's regular expressions may read it, widened: the
#: ``i`` flag compares upper cases (``u`` flag: simple case folding, so ``ſ`` is ``s`` and
#: the Kelvin sign ``k``). Two names are variants when any of these folds makes them equal,
#: a superset of what the tool matches (a name counted as a variant that the tool would not
#: match only makes the hook refuse more). The first "fold" is the name itself.
_FOLDS: tuple[Callable[[str], str], ...] = (
    str, str.lower, str.upper, str.casefold, lambda s: s.upper().casefold(),
)

Seen = Literal["exact", "none", "other"]


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


class CaseVariants:
    """One hook call's judge of case variants: each directory is listed once however many
    entries pass through it (:class:`_Listing`), and the names listed in all are bounded."""

    def __init__(self, max_names: int | None = None, max_depth: int | None = None) -> None:
        self._dirs: dict[str, _Listing | None] = {}
        self._left = _MAX_NAMES if max_names is None else max_names
        self._max_depth = _MAX_DEPTH if max_depth is None else max_depth

    def any_variant(self, entry: str, bases: Iterable[str]) -> bool:
        """Could a case-insensitive glob of ``entry`` (``/``-separated) from any of
        ``bases`` reach a path other than the one spelled? ``True`` when it cannot be told."""
        for base in dict.fromkeys(bases):
            start, tail = glob_view(entry, base)
            if len(tail) > self._max_depth:
                return True
            directory = start
            for comp in tail:
                seen = self._look(directory, comp)
                if seen is None or seen == "other":
                    return True
                if seen == "none":
                    break  # the glob matches nothing below here
                directory = os.path.join(directory, comp)
        return False

    def _look(self, directory: str, name: str) -> Seen | None:
        """What a case-insensitive match of ``name`` finds in ``directory``: only ``name``
        itself, nothing, or another name (``None``: the directory cannot be listed)."""
        listing = self._listing(directory)
        if listing is None:
            return None
        return listing.look(name)

    def _listing(self, directory: str) -> _Listing | None:
        """``directory`` listed (links followed, as the glob lists it); ``None`` when it
        cannot be listed or the call's names are spent."""
        if directory not in self._dirs:
            try:
                names = os.listdir(directory)
            except (OSError, ValueError):
                names = None
            if names is not None:
                self._left -= len(names)
            self._dirs[directory] = None if names is None or self._left < 0 else _Listing(names)
        return self._dirs[directory]


class _Listing:
    """One directory's names, kept for case-insensitive lookups: the ASCII names (nearly
    all) counted by their lower case, the others by each fold of :data:`_FOLDS`."""

    def __init__(self, names: list[str]) -> None:
        self.names = frozenset(names)
        self.lowered = Counter(n.lower() for n in names if n.isascii())
        self.wide: Counter[tuple[int, str]] = Counter()
        for n in names:
            if not n.isascii():
                self.wide.update((i, fold(n)) for i, fold in enumerate(_FOLDS))

    def look(self, name: str) -> Seen:
        """``other`` when a name other than ``name`` matches it case-insensitively, else
        ``exact`` when ``name`` is here, else ``none``. An ASCII name ``n`` matches under a
        fold when ``n.lower()`` is one of ``name``'s folds lowered (its upper, casefold and
        lower cases all come down to it)."""
        present = name in self.names
        keys = {name.lower(), name.upper().lower(), name.casefold(), name.upper().casefold()}
        narrow = sum(self.lowered[k] for k in keys) - int(present and name.isascii())
        own = int(present and not name.isascii())
        if narrow > 0 or any(self.wide[(i, fold(name))] > own for i, fold in enumerate(_FOLDS) if i):
            return "other"
        return "exact" if present else "none"
