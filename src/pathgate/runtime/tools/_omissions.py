"""The omission notes of one discovery call: per gate, how many entries it left out and a
few examples (opaque blocks never counted: a secret leaves no trace in a note)."""

from __future__ import annotations

from pathgate.results import Omission
from pathgate.verdicts import Gate, Verdict

__all__ = ["MAX_EXAMPLES", "Omissions"]

#: Examples per omission note.
MAX_EXAMPLES = 3


class Omissions:
    """Per-gate omission counts of one call (non-opaque gates only)."""

    __slots__ = ("counts", "examples", "lower_bound", "max_examples")

    def __init__(self, *, max_examples: int = MAX_EXAMPLES) -> None:
        self.counts: dict[tuple[Gate, bool], int] = {}
        self.examples: dict[tuple[Gate, bool], list[str]] = {}
        self.lower_bound: set[Gate] = set()
        self.max_examples = max_examples

    def add(self, verdict: Verdict, relpath: str) -> None:
        if verdict.opaque:
            return
        key = (verdict.gate, verdict.fail_closed)  # fail-closed blocks get their own, hedged note
        self.counts[key] = self.counts.get(key, 0) + 1
        ex = self.examples.setdefault(key, [])
        if len(ex) < self.max_examples:
            ex.append(relpath)

    def empty(self) -> Omissions:
        """A fresh, empty set of the same kind (to count a part apart, then :meth:`merge`)."""
        return Omissions(max_examples=self.max_examples)

    def merge(self, other: Omissions) -> None:
        """Add ``other``'s counts after this one's: the same as if its notes had been
        added here in turn (examples: this one's first, then ``other``'s)."""
        for key, n in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + n
        for key, more in other.examples.items():
            ex = self.examples.setdefault(key, [])
            ex.extend(more[:max(0, self.max_examples - len(ex))])
        self.lower_bound |= other.lower_bound

    def freeze(self) -> tuple[Omission, ...]:
        order = list(Gate)
        return tuple(
            Omission(
                gate=g,
                count=n,
                examples=tuple(sorted(self.examples.get((g, fc), ()))),
                lower_bound=g in self.lower_bound,
                fail_closed=fc,
            )
            for (g, fc), n in sorted(self.counts.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1]))
            if n > 0
        )
