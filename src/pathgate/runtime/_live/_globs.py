"""What warm globs keep of the live index's records (issue 15): the plain records
flattened, the odd records' part per pattern; and a glob past the walk budget, scanned in
walk order and stopped where the walk stops."""

from __future__ import annotations

from collections.abc import Callable

from pathgate.runtime._live._records import (
    Classify,
    Flat,
    GlobScan,
    Select,
    _Dir,
    flatten,
    scan_glob,
    scan_odd,
    with_plain,
)

__all__ = ["MAX_GLOB_MEMOS", "GlobParts"]

#: Glob patterns whose odd records' part one generation of the records keeps.
MAX_GLOB_MEMOS = 16


class GlobParts:
    """The parts of warm glob scans one generation of the records keeps (the index's
    lock held by every caller)."""

    def __init__(self) -> None:
        #: the records below one start flattened (its start, the generation it is of)
        self.flat: tuple[str, int, Flat] | None = None
        #: the odd records' part of glob scans, per (start, memo), of generation ``odd_gen``
        self.odd: dict[tuple[str, object], GlobScan] = {}
        self.odd_gen = -1
        self.odd_scans = 0
        #: (start, memo, budget) of globs this generation (``odd_gen``) found over budget:
        #: scanned in walk order at once
        self.over: set[tuple[str, object, int]] = set()

    def scan(self, dirs: dict[str, _Dir], gen: int, start: str,
             descend: Callable[[str], bool] | None, want: Callable[[str], bool] | None,
             classify: Classify, n_examples: int, select: Select | None, memo: object,
             budget: int | None) -> GlobScan | None:
        """:meth:`LiveIndex.glob_scan` over ``dirs`` (records of generation ``gen``); the
        odd records' part (:func:`scan_odd`) kept per ``(start, memo)``. One that charges
        more than ``budget`` is scanned again in walk order, stopped where the walk stops.
        Raises :class:`KeyError` like :func:`scan_glob`."""
        if self.odd_gen != gen:
            self.odd_gen, self.odd, self.over = gen, {}, set()
        over = None if memo is None or budget is None else (start, memo, budget)
        if over is None or over not in self.over:
            got = self._scan(dirs, gen, start, descend, want, classify, n_examples, select, memo)
            if got is None or budget is None or got.counted <= budget:
                return got
            if over is not None:
                if len(self.over) >= MAX_GLOB_MEMOS:
                    self.over.clear()
                self.over.add(over)
        return scan_glob(dirs, start, descend, want, classify, n_examples, budget=budget)

    def _scan(self, dirs: dict[str, _Dir], gen: int, start: str,
              descend: Callable[[str], bool] | None, want: Callable[[str], bool] | None,
              classify: Classify, n_examples: int, select: Select | None,
              memo: object) -> GlobScan | None:
        def flat() -> Flat:
            got = self.flat
            if got is None or got[0] != start or got[1] != gen:
                got = self.flat = (start, gen, flatten(dirs, start, classify))
            return got[2]

        if memo is None or select is None or descend is not None:
            return scan_glob(dirs, start, descend, want, classify, n_examples, flat, select)
        first = dirs.get(start)
        if first is None or first.error is not None:
            return None
        f = flat()
        odd = self.odd.get((start, memo))
        if odd is None:
            if len(self.odd) >= MAX_GLOB_MEMOS:
                self.odd.clear()
                self.over.clear()
            odd = scan_odd(dirs, f, want, classify, n_examples)
            for (at, _), other in self.odd.items():
                # every pattern meets the same (no pruning): one copy kept
                if at == start and other.excluded == odd.excluded and other.errors == odd.errors:
                    odd = odd._replace(excluded=other.excluded, errors=other.errors)
                    break
            self.odd[(start, memo)] = odd
            self.odd_scans += 1
        return with_plain(odd, f, select)._replace(key=(gen, start, memo))
