"""Gate 7, ``read``: the bytes read through the approved descriptor must be text.

``[FILE_READ_ERROR]`` for ``EACCES``, ``EIO`` and any other errno (``detail`` is its name),
and when the descriptor is not the file the path gate approved (``detail="CHANGED"``: it was
swapped between check and read; nothing of it was read). ``[BINARY_FILE]`` for a NUL byte in
the first 8 KiB or invalid UTF-8.
"""

from __future__ import annotations

import errno

from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["ReadGate"]


class ReadGate:
    """``[FILE_READ_ERROR]`` / ``[BINARY_FILE]``."""

    name = Gate.READ.value
    needs = frozenset({Fact.OPEN})

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        opened = facts.opened
        if opened is None:
            return None
        if opened.error is not None:
            name = errno.errorcode.get(opened.error, str(opened.error))
            return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail=name)
        if opened.changed:
            return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail="CHANGED")
        if opened.binary:
            return Verdict(status=Status.BINARY_FILE, gate=Gate.READ, exists=True, size=opened.size)
        if opened.text is None:
            return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail="EIO")
        return None
