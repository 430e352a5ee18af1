"""``code_search``'s output budget: the characters of hit text one call may return.

Like ``read_files``' budget (``Policy.read_budget``, 100,000 characters by default), it
holds whatever ``max_results`` says (``0`` lifts the count limit, never this one). A hit
costs what the text renderers show of it: each of its lines (``path:line:text``, context
lines ``path-line-text``) with its line break (:func:`hit_chars`). The first hit is always
kept (one hit is bounded: :data:`~._scan.MAX_LINE` characters a line, at most 50 context
lines each side); each later one only while the running total stays within the budget.

The scanner charges hits as it collects them and stops once the budget is spent
(:meth:`~._scan.Scanner.step`), so memory stays bounded whatever the files hold; the exact
cut is then made here (:func:`cut_hits`), on the hits as they will be returned. Only hits
are charged, and a secret is never opened, so where the budget cuts never depends on a
secret (nor on a host-filtered file).
"""

from __future__ import annotations

from collections.abc import Sequence

from pathgate.results import SearchHit

__all__ = ["cut_hits", "enough", "hit_chars"]


def hit_chars(hit: SearchHit) -> int:
    """Characters of ``hit`` as the text renderers show it: each line (``path:N:text``,
    context lines ``path-N-text``) and its line break."""
    per_line = len(hit.path) + 3  # two separators and the line break
    n = per_line + len(str(hit.line)) + len(hit.text)
    first = hit.line - len(hit.context_before)
    for k, text in enumerate(hit.context_before):
        n += per_line + len(str(first + k)) + len(text)
    for k, text in enumerate(hit.context_after):
        n += per_line + len(str(hit.line + 1 + k)) + len(text)
    return n


def enough(hits: int, chars: int, stop_at: int | None, budget: int | None) -> bool:
    """May the scan stop collecting? ``hits`` collected so far costing ``chars``: yes at
    ``stop_at`` hits (``max_results`` + 1: one more proves the cut), or once a hit past the
    first takes the total over ``budget`` (that hit proves the budget cut)."""
    return (stop_at is not None and hits >= stop_at) or (budget is not None and hits >= 2 and chars > budget)


def cut_hits(hits: Sequence[SearchHit], cap: int | None,
             budget: int | None) -> tuple[Sequence[SearchHit], bool, bool]:
    """``(kept, cut by max_results, cut by the budget)``: the first ``cap`` hits, then the
    first hit and each later one while the total stays within ``budget``."""
    by_cap = cap is not None and len(hits) > cap
    if by_cap:
        hits = hits[:cap]
    if budget is not None:
        chars = 0
        for i, hit in enumerate(hits):
            chars += hit_chars(hit)
            if i and chars > budget:
                return hits[:i], by_cap, True
    return hits, by_cap, False
