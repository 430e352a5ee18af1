"""Gate 5, ``existence``: decided on the open descriptor, not on an earlier stat.

``[FILE_DOES_NOT_EXIST]`` when resolution or ``open`` found no such file (``ENOENT``,
``ENOTDIR``, ``ENAMETOOLONG``, an unencodable name); ``[NOT_A_FILE]`` when the descriptor is
a directory, FIFO, device or socket. ``detail`` is the errno name or the file type.
"""

from __future__ import annotations

import errno
import stat

from pathgate.runtime.fs import MISSING_ERRNOS
from pathgate.runtime.gates._base import Fact, GateContext, PathFacts
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["ExistenceGate", "file_kind"]

# open() errors that mean "there is something, but not a regular file" (EISDIR: Python's
# file objects, as aiofiles uses them, refuse directories themselves; ENXIO: a socket).
_NOT_A_FILE = {errno.EISDIR: "directory", errno.ENXIO: "socket"}


def file_kind(mode: int) -> str:
    """A short name for a file type (``directory``, ``fifo``, ``socket`` …)."""
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "regular" if stat.S_ISREG(mode) else "other"


class ExistenceGate:
    """``[FILE_DOES_NOT_EXIST]`` / ``[NOT_A_FILE]`` from what ``open``/``fstat`` said."""

    name = Gate.EXISTENCE.value
    needs = frozenset({Fact.OPEN})

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        opened = facts.opened
        if opened is None:
            return None
        if opened.error in MISSING_ERRNOS:
            return Verdict(
                status=Status.FILE_DOES_NOT_EXIST,
                gate=Gate.EXISTENCE,
                detail=errno.errorcode.get(opened.error or 0),
            )
        if opened.error in _NOT_A_FILE:
            detail = _NOT_A_FILE[opened.error]
            return Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True, detail=detail)
        if opened.st is not None and not stat.S_ISREG(opened.st.st_mode):
            kind = file_kind(opened.st.st_mode)
            return Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True, detail=kind)
        return None
