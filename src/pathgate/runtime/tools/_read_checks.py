"""The gate checks ``read_files``' fused step runs in its worker (or on the loop), and what
one chunk of it shares: split out of :mod:`._read_facts`.

* :class:`_KnownGates`: the built-in gates alone, whose outcome the direct route knows from
  how it made the facts;
* :func:`_tail_passed` / :func:`_discard`: how many gates pass without awaiting, an answer dropped;
* :class:`_ChunkState`: the resolution memo, decisions and reads one chunk shares.
"""

from __future__ import annotations

from collections.abc import Callable

from pathgate.runtime.fs import DirStatMemo, Opened, Resolved
from pathgate.runtime.gates import GateCheck, GateContext, PathFacts
from pathgate.runtime.gates.existence import ExistenceGate
from pathgate.runtime.gates.ignore import IgnoreGate
from pathgate.runtime.gates.path import PathGate
from pathgate.runtime.gates.read import ReadGate
from pathgate.runtime.gates.secrets import LinkedSecretGate, SecretsGate
from pathgate.runtime.gates.size import SizeGate
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Remedy, Verdict

__all__ = ["_ChunkState", "_KnownGates", "_checks", "_discard", "_no_cancel", "_passes_before_open", "_tail_passed"]

_Gates = tuple[GateCheck, ...]
_Check = Callable[[PathFacts, GateContext], object]
#: id(gate tuple) -> (the tuple, its gates' bound ``check`` methods): keeping the tuple makes
#: the id safe (the tuples are those kept in ``_read_facts._INLINE_OF``).
_CHECKS_OF: dict[int, tuple[_Gates, tuple[_Check, ...]]] = {}


def _passes_before_open(f: PathFacts, real: str, match: Match, checks: tuple[_Check, ...],
                        ctx: GateContext) -> bool:
    """Do all ``checks`` (the gates before the first ``OPEN`` gate) pass the plain spelling
    ``f`` resolved to ``real`` (no ``st`` yet) with ignore decision ``match``? The facts are
    left as they were."""
    f.resolved = Resolved(f.request, real, f.request)
    f.match = match
    passed = _tail_passed(checks, f, ctx)
    f.resolved = f.match = f.secret = None
    return passed == len(checks)  # none blocked, none must await


class _KnownGates:
    """The built-in gates, alone, in their order: ``_INLINE_GATES`` (path, secrets when
    enforced, ignore) then ``_TAIL_GATES`` (linked secret when enforced, existence, size, read),
    exactly these classes. ``git_dirs``: the path gate's; ``linked``: the linked-secret gate's
    ``check`` (``None``: not in the tuple).

    Then what each gate checks is known from how the direct route made the facts: the path
    gate blocks a plain spelling resolved inside only for git internals (asked before the
    open), the secrets gate only a secret (asked), the ignore gate only an ignored path
    (asked); on the descriptor, the existence, size and read gates pass exactly when the read
    gave text (a regular file, within the limit, no error, the descriptor the name led to), and
    the linked-secret gate is asked for a file of one link. Any other outcome runs the gates
    themselves (tests/runtime/test_batch_fastpaths.py runs every gate on what this cleared)."""

    __slots__ = ("git_dirs", "linked", "registries")

    _SHAPES = (
        ((PathGate, SecretsGate, IgnoreGate), (LinkedSecretGate, ExistenceGate, SizeGate, ReadGate)),
        ((PathGate, IgnoreGate), (ExistenceGate, SizeGate, ReadGate)),
    )

    def __init__(self, git_dirs: tuple[str, ...], linked: LinkedSecretGate | None) -> None:
        self.git_dirs = git_dirs
        self.linked: _Check | None = None if linked is None else linked.check
        #: the linked-secret gate's registries by root (``None``: no such gate), which its
        #: ``check`` asks about a file of one link (``LinkedSecretGate.registries_of``)
        self.registries = None if linked is None else linked.registries_of()

    @classmethod
    def of(cls, inline: _Gates, tail: _Gates) -> _KnownGates | None:
        shape = (tuple(type(g) for g in inline), tuple(type(g) for g in tail))
        if shape not in cls._SHAPES:
            return None
        linked = tail[0] if type(tail[0]) is LinkedSecretGate else None
        return cls(inline[0].git_dirs, linked)  # type: ignore[attr-defined]


class _ChunkState:
    """What one chunk shares across its paths: the resolution memo (made when a spelling
    needs ``resolve_flow``), the ignore decisions of the general route by real relpath, and
    the descriptor reads by real path (one per real file), and the time before its first
    open from which a single-link file's name is looked at again
    (:func:`~pathgate.runtime.fs.seen_links`: ``0``, always, on a tree not known to be local)."""

    __slots__ = ("matches", "memo", "opened", "relink_since")

    def __init__(self, relink_since: int = 0) -> None:
        self.relink_since = relink_since
        self.memo: DirStatMemo | None = None
        self.matches: dict[str, tuple[Match, Remedy | None]] = {}
        self.opened: dict[str, Opened] = {}


def _checks(gates: _Gates) -> tuple[_Check, ...]:
    """The bound ``check`` methods of ``gates`` (made once per gate tuple)."""
    got = _CHECKS_OF.get(id(gates))
    if got is not None and got[0] is gates:
        return got[1]
    checks = tuple(g.check for g in gates)
    if len(_CHECKS_OF) > 128:
        _CHECKS_OF.clear()
    _CHECKS_OF[id(gates)] = (gates, checks)
    return checks


def _tail_passed(tail: tuple[_Check, ...], facts: PathFacts, ctx: GateContext) -> int:
    """How many of the leading ``tail`` gates (their ``check`` methods) pass ``facts`` without
    awaiting (the first that blocks or must await stops the count; an awaitable it returned is
    closed unawaited: the pipeline runs that gate again on the loop)."""
    n = 0
    for check in tail:
        result = check(facts, ctx)
        if result is not None:
            close = getattr(result, "close", None)
            if close is not None and not isinstance(result, Verdict):
                close()
            break
        n += 1
    return n


def _discard(result: object) -> None:
    """Drop a gate's answer that is not a pass: an awaitable is closed unawaited (the
    pipeline runs that gate again on the loop)."""
    close = getattr(result, "close", None)
    if close is not None and not isinstance(result, Verdict):
        close()


def _no_cancel() -> None:
    """On the loop, cancellation is checked at the next checkpoint, not between files."""


