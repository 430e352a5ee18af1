"""Gate 1, ``path``: the real path must stay inside the project root.

Blocks an empty spelling, a NUL byte, an absolute path outside the root, a ``..`` that
climbs above the root, and any symlink (any component, the last included, dangling or
looping) whose real target leaves the root → ``[FILE_OUTSIDE_PROJECT]``. With
``allow_outside_root`` only empty and NUL spellings are refused. ``detail`` says which case
(``empty``, ``nul``, ``escape``, ``absolute``, ``symlink``, ``loop``) for operators.
"""

from __future__ import annotations

from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["PathGate"]

_ALWAYS = frozenset({"empty", "nul"})


class PathGate:
    """``[FILE_OUTSIDE_PROJECT]`` for spellings whose real path is not inside the root."""

    name = Gate.PATH.value
    needs = frozenset({Fact.REAL})

    def __init__(self, *, allow_outside_root: bool = False) -> None:
        self.allow_outside_root = allow_outside_root

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        resolved = facts.resolved
        if resolved is None or resolved.outside is None:
            return None
        if self.allow_outside_root and resolved.outside not in _ALWAYS:
            return None
        return Verdict(status=Status.FILE_OUTSIDE_PROJECT, gate=Gate.PATH, detail=resolved.outside)
