"""The gate protocol and the facts a gate decides from.

A gate is a small object with a ``name`` (its ``pathgate.Gate`` value for built-in gates),
the set of :class:`Fact` kinds it ``needs``, and ``check(facts, ctx)`` returning ``None``
(pass) or a :class:`~pathgate.Verdict` — or an awaitable of either, for a gate that must call
async host code. Gates do no I/O of their own: the runner (``GatePipeline.run`` in
:mod:`pathgate.runtime.gates`) fetches each kind of fact once, for all paths still pending,
concurrently, just before the first gate that needs it. Cheap facts come first:

==========  ==================================================  =====================
``NAME``    the spelling and its lexical normalisation            no I/O
``REAL``    symlink-resolved real path + its ``lstat``            ``lstat``/``readlink``
``MATCH``   the ignore engine's decision (and a verified remedy)  ignore files (cached)
``OPEN``    what the open descriptor says + the bytes read        ``open``/``fstat``/``read``
==========  ==================================================  =====================

Discovery tools (glob/list/search) supply ``NAME``, ``REAL`` and ``MATCH`` from their walk;
gates needing ``OPEN`` do not apply to walked entries.
"""

from __future__ import annotations

import enum
import posixpath
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pathgate.runtime.fs import Opened, Resolved
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Remedy, Verdict

if TYPE_CHECKING:
    from pathgate.config import Policy

__all__ = ["Fact", "GateCheck", "GateContext", "GateResult", "PathFacts", "lexical_name"]


class Fact(enum.IntEnum):
    """Kinds of per-path facts, cheapest first (the order they are fetched in)."""

    NAME = 0
    REAL = 1
    MATCH = 2
    OPEN = 3


GateResult = Verdict | None | Awaitable[Verdict | None]


@dataclass(slots=True)
class PathFacts:
    """Everything known about one requested spelling, filled in as facts are fetched.

    * ``request``: the spelling as given; ``name``: its lexical normalisation relative to the
      root (``./a`` → ``a``), ``None`` when it is not a plain inside path.
    * ``resolved``: where it really leads (``REAL``); ``match``/``remedy`` (``MATCH``);
      ``opened`` (``OPEN``).
    * ``secret``: the secret matcher's answer, cached once ``resolved`` is known.
    """

    request: str
    name: str | None = None
    resolved: Resolved | None = None
    match: Match | None = None
    remedy: Remedy | None = None
    opened: Opened | None = None
    secret: bool | None = None

    @property
    def relpath(self) -> str | None:
        """The real project-relative path, when known and inside the root."""
        return None if self.resolved is None else self.resolved.relpath

    @property
    def subject(self) -> str:
        """The best path to show a filter: real relpath, else real path, else the name."""
        r = self.resolved
        if r is not None and r.relpath is not None:
            return r.relpath or "."
        if r is not None and r.real is not None:
            return r.real
        return self.name or self.request


@dataclass(frozen=True, slots=True)
class GateContext:
    """Per-call settings every gate sees (one call, never shared between calls).

    ``purpose`` is ``"read"`` for an explicit read and ``"discover"`` for a walked entry of
    glob/list/search (ignored entries are hidden from discovery in both ignore modes).
    """

    policy: Policy
    purpose: Literal["read", "discover"] = "read"
    model: str | None = None
    size_limit: int = 0


class GateCheck(Protocol):
    """One check on one path. Hosts add their own gates with the same shape.

    A host gate's verdicts use an existing ``pathgate.Gate`` value (``HOST_FILTER`` for a
    host policy, with ``opaque=True`` if the reason must not reach the model) and may put
    their own name in ``detail``.
    """

    @property
    def name(self) -> str:
        """The gate's name (a ``pathgate.Gate`` value for built-in gates)."""
        ...

    @property
    def needs(self) -> frozenset[Fact]:
        """The facts ``check`` reads; the runner fetches them first."""
        ...

    def check(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        """``None`` to pass, a verdict to block (or an awaitable of either)."""
        ...


def lexical_name(request: str, root: str) -> str | None:
    """The spelling normalised without I/O, relative to ``root`` (``""`` is the root);
    ``None`` for empty, NUL, absolute-outside or ``..``-escaping spellings."""
    if not request or "\x00" in request:
        return None
    path = request
    if path.startswith("/"):
        if root != "/" and path != root and not path.startswith(root + "/"):
            return None
        path = path[len(root) :].lstrip("/") or "."
    norm = posixpath.normpath(path)
    if norm == ".":
        return ""
    if norm == ".." or norm.startswith("../") or norm.startswith("/"):
        return None
    return norm
