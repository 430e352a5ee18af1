"""A lazy ignore list's lines decided for a scan's texts without compiling them.

:class:`._lazy.LazyIgnoreList` finds, for the few paths a one-shot command asks, the lines that
can match them (a regular expression over the file's bytes) and compiles only those. When that
leaves many lines -- a file of 60,000 lines like ``*[ab]x*q*z*`` whose literal runs all occur in
the path (red team 20 L1) -- compiling them cost seconds and hundreds of megabytes on every hook
call. :class:`Direct` reads them instead with :mod:`._wildbits` (git's ``wildmatch`` for a few
fixed texts, one line at a time, last line first), and compiles only the line that decides a
text, whose rule must match it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pathgate.runtime.ignore._rules import Pattern
from pathgate.runtime.ignore._wildbits import Texts, matching_lines

if TYPE_CHECKING:
    from pathgate.runtime.ignore._lazy import LazyIgnoreList

__all__ = ["Direct", "Doubt"]


class Doubt(Exception):
    """A line :mod:`._wildbits` found to match is not matched by its compiled rule (never
    seen: the two are tested equal): the list is compiled whole, whose answer stands."""


class Direct:
    """A scan's candidate lines (their starts, ascending; ``None``: every line, when the scan
    would let most through) decided for all its texts (``(name, rel)`` views) at once by
    :func:`._wildbits.matching_lines`, last line first. Only the line found to decide a text
    is compiled, and its rule must match it too (:class:`Doubt`)."""

    __slots__ = ("answers", "index", "names", "owner", "rels", "starts", "texts")

    def __init__(self, owner: LazyIgnoreList, texts: Sequence[tuple[str, str]],
                 starts: Sequence[int] | None) -> None:
        self.owner = owner
        self.texts = list(texts)
        self.starts = starts
        self.index = {text: k for k, text in enumerate(self.texts)}
        self.names = Texts([name for name, _ in self.texts], False, owner.fold)
        self.rels = Texts([rel for _, rel in self.texts], True, owner.fold)
        #: ``(files, text index)`` -> ``(start, end)`` of its last matching line
        self.answers: dict[tuple[bool, int], tuple[int, int]] | None = None

    def _decide(self) -> dict[tuple[bool, int], tuple[int, int]]:
        """Each text's last matching line, for any entry and for a file (no dir-only rule):
        one reading of the lines for all texts, ended once every text has both."""
        answers: dict[tuple[bool, int], tuple[int, int]] = {}
        every = (1 << len(self.texts)) - 1
        want = [every, every]  # (texts without an answer: any rule, rules not dir-only)
        owner = self.owner
        for start, end, dir_only, hit in matching_lines(owner.data, self.starts, owner.first, self.names, self.rels,
                                                        want):
            for k in range(len(self.texts)):
                if hit >> k & 1:
                    if want[0] >> k & 1:
                        answers[False, k] = (start, end)
                    if not dir_only and want[1] >> k & 1:
                        answers[True, k] = (start, end)
            want[0] &= ~hit
            if not dir_only:
                want[1] &= ~hit
        self.answers = answers
        return answers

    def _checked(self, start: int, end: int, files: bool, name: str, rel: str) -> tuple[int, Pattern]:
        """The slot and rule of the line at ``start`` (to ``end``), compiled and seen to match."""
        owner = self.owner
        slot = owner.data.count(b"\n", 0, start)
        pt = owner._rule(slot, start, end)
        if pt is None or (files and pt.dir_only) or not pt.matches(name, rel):
            raise Doubt
        return slot, pt

    def best(self, files: bool, name: str, rel: str) -> int:
        """:meth:`LazyIgnoreList.best` for one of this scan's texts."""
        answers = self.answers
        if answers is None:
            answers = self._decide()
        got = answers.get((files, self.index[name, rel]))
        return -1 if got is None else self._checked(got[0], got[1], files, name, rel)[0]

    def matching(self, files: bool, name: str, rel: str) -> list[Pattern]:
        """Every rule matching one of this scan's texts, last line first."""
        bit = 1 << self.index[name, rel]
        want = [0, bit] if files else [bit, 0]
        owner = self.owner
        return [self._checked(start, end, files, name, rel)[1]
                for start, end, _, _ in matching_lines(owner.data, self.starts, owner.first, self.names, self.rels,
                                                       want)]
