"""Gate 2 on the open descriptor: a secret's hard link under another name (``[BLOCKED]``).

:class:`LinkedSecretGate` asks the project's secret-inode registry
(:class:`~pathgate.runtime._links.SecretInodes`) about the ``fstat`` of the descriptor a
read used. Split out of :mod:`.secrets`, whose name rules it shares.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Mapping

from pathgate.runtime._links import SecretInodes
from pathgate.runtime.gates._base import Fact, GateContext, GateResult, PathFacts
from pathgate.runtime.gates.secrets import _SECRET, SecretMatcher
from pathgate.verdicts import Gate, Status, Verdict

__all__ = ["LinkedSecretGate"]

#: The read gate's answer for a file that changed while it was read: here, links that moved
#: while the registry was asked (the same answer whatever the inode was).
_CHANGED = Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail="CHANGED")


class LinkedSecretGate:
    """Gate 2 on the open descriptor: a regular file with more than one link is an opaque
    ``[BLOCKED]`` when a secret-named link to the same ``(st_dev, st_ino)`` exists in the
    project (or always, with ``strict``). Decided from ``fstat`` of the descriptor the read
    used, before existence, size and read verdicts could say anything about it. The
    registry of each project root is built on first need, in a worker thread."""

    name = Gate.SECRETS.value
    needs = frozenset({Fact.OPEN})

    def __init__(self, matcher: SecretMatcher, *, strict: bool = False) -> None:
        self.matcher = matcher
        self.strict = strict
        self._lock = threading.Lock()
        self._registries: dict[str, SecretInodes] = {}

    def registry(self, root: str) -> SecretInodes:
        """The secret-inode registry of ``root`` (created on first use, shared)."""
        with self._lock:
            reg = self._registries.get(root)
            if reg is None:
                reg = self._registries[root] = SecretInodes(root, self.matcher.is_secret)
            return reg

    def registries_of(self) -> Mapping[str, SecretInodes]:
        """The registries made so far, by root (live: one made later is in it). A regular
        file of one link whose ``resolved`` is inside ``ctx.root`` (truthy) passes
        :meth:`check` exactly when ``registries.get(ctx.root)`` is ``None`` or does not
        know its ``fstat`` (``SecretInodes.known``): the fused read asks that without a frame."""
        return self._registries

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        opened = facts.opened
        st = None if opened is None else opened.st
        if st is None or not stat.S_ISREG(st.st_mode):
            return None
        if st.st_nlink > 1 and self.strict:
            return _SECRET
        r = facts.resolved
        if r is None or r.real is None or r.relpath is None:
            return None  # outside the project: the documented residual
        root = ctx.root or (r.real[: -len(r.relpath) - 1] if r.relpath else r.real) or "/"
        if st.st_nlink <= 1:
            # one link: a secret's own inode only if the last snapshot knows it (a
            # descriptor opened on an alias renamed away before the fstat); no I/O
            reg = self._registries.get(root)
            if reg is None or not reg.known(st):
                return None
            return self._ask(reg, st, r.real)
        return self._ask(self.registry(root), st, r.real)

    @staticmethod
    async def _ask(reg: SecretInodes, st: os.stat_result, real: str) -> Verdict | None:
        import anyio.to_thread  # OPEN facts only: a hook's path-only check never gets here

        return await anyio.to_thread.run_sync(_asked, reg, st, real)


def _asked(reg: SecretInodes, st: os.stat_result, real: str) -> Verdict | None:
    """The registry's answer for ``st`` (the ``fstat`` of the descriptor read from ``real``),
    or ``[FILE_READ_ERROR]: CHANGED`` when the file's links moved between that ``fstat`` and
    the answer (the registry was validated later: an alias whose secret was re-saved under a
    new inode meanwhile would read as no secret's). Blocking."""
    if reg.linked_secret(st):
        return _SECRET
    try:
        now = os.stat(real, follow_symlinks=False)
    except OSError:
        return _CHANGED
    if (now.st_dev, now.st_ino, now.st_nlink, now.st_ctime_ns) != (st.st_dev, st.st_ino, st.st_nlink,
                                                                    st.st_ctime_ns):
        return _CHANGED
    return None
