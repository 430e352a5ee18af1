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
from typing import TYPE_CHECKING, Literal, Protocol

from pathgate.runtime.fs import Opened, Resolved
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Remedy, Verdict

if TYPE_CHECKING:
    from pathgate.config import Policy

__all__ = [
    "Fact",
    "GateCheck",
    "GateContext",
    "GateResult",
    "PathFacts",
    "WrittenGate",
    "dropped_prefixes",
    "lexical_name",
    "written_walk",
]


class Fact(enum.IntEnum):
    """Kinds of per-path facts, cheapest first (the order they are fetched in)."""

    NAME = 0
    REAL = 1
    MATCH = 2
    OPEN = 3


GateResult = Verdict | None | Awaitable[Verdict | None]


class PathFacts:
    """Everything known about one requested spelling, filled in as facts are fetched.

    * ``request``: the spelling as given; ``name``: its lexical normalisation relative to the
      root (``./a`` → ``a``), ``None`` when it is not a plain inside path.
    * ``resolved``: where it really leads (``REAL``); ``match``/``remedy`` (``MATCH``);
      ``opened`` (``OPEN``).
    * ``secret``: the secret matcher's answer, cached once ``resolved`` is known;
      ``plain_secret``: its answer for a plain spelling itself (a function of ``request``).
    * ``cleared``: how many of the pipeline's leading gates the fact source has already run
      on these very facts and seen pass (``read_files`` runs the path-only built-in gates in
      its worker to decide what to open); the runner does not run them again.

    Compared by its fields. (Plain slotted classes here and in :class:`GateContext`, not
    dataclasses: defining one costs about a millisecond and a half of every command's start.)
    """

    __slots__ = ("cleared", "match", "name", "opened", "plain_secret", "remedy", "request", "resolved", "secret")
    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(self, request: str, name: str | None = None, resolved: Resolved | None = None,
                 match: Match | None = None, remedy: Remedy | None = None, opened: Opened | None = None,
                 secret: bool | None = None, plain_secret: bool | None = None, cleared: int = 0) -> None:
        self.request = request
        self.name = name
        self.resolved = resolved
        self.match = match
        self.remedy = remedy
        self.opened = opened
        self.secret = secret
        self.plain_secret = plain_secret
        self.cleared = cleared

    def _fields(self) -> tuple[object, ...]:
        return (self.request, self.name, self.resolved, self.match, self.remedy, self.opened, self.secret,
                self.plain_secret, self.cleared)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return (f"PathFacts(request={self.request!r}, name={self.name!r}, resolved={self.resolved!r}, "
                f"match={self.match!r}, remedy={self.remedy!r}, opened={self.opened!r}, secret={self.secret!r}, "
                f"plain_secret={self.plain_secret!r}, cleared={self.cleared!r})")

    @property
    def relpath(self) -> str | None:
        """The real project-relative path, when known and inside the root."""
        return None if self.resolved is None else self.resolved.relpath

    @property
    def shown_relpath(self) -> str | None:
        """The path a result shows: the real project-relative path (``"."`` for the root),
        else the real path outside, else the lexical name."""
        r = self.resolved
        if r is None:
            return self.name
        if r.relpath is not None:
            return r.relpath or "."
        return r.real

    @property
    def subject(self) -> str:
        """The best path to show a filter: real relpath, else real path, else the name."""
        r = self.resolved
        if r is not None and r.relpath is not None:
            return r.relpath or "."
        if r is not None and r.real is not None:
            return r.real
        return self.name or self.request


class GateContext:
    """Per-call settings every gate sees (one call, never shared between calls).

    ``purpose`` is ``"read"`` for an explicit read, ``"discover"`` for a walked entry of
    glob/list/search (ignored entries are hidden from discovery in both ignore modes) and
    ``"write"`` for the target of ``write_file`` / ``edit_file``.
    ``root`` is the real project root (``None``: unknown; an absolute spelling is then
    judged by the stricter rules that need no root).

    Immutable; compared and hashed by its fields.
    """

    __slots__ = ("model", "policy", "purpose", "root", "size_limit")

    policy: Policy
    purpose: Literal["read", "discover", "write"]
    model: str | None
    size_limit: int
    root: str | None

    def __init__(self, policy: Policy, purpose: Literal["read", "discover", "write"] = "read",
                 model: str | None = None, size_limit: int = 0, root: str | None = None) -> None:
        put = object.__setattr__
        put(self, "policy", policy)
        put(self, "purpose", purpose)
        put(self, "model", model)
        put(self, "size_limit", size_limit)
        put(self, "root", root)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple[object, ...]:
        return (self.policy, self.purpose, self.model, self.size_limit, self.root)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"GateContext(policy={self.policy!r}, purpose={self.purpose!r}, model={self.model!r}, "
                f"size_limit={self.size_limit!r}, root={self.root!r})")


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


class WrittenGate(GateCheck, Protocol):
    """A gate that also judges the spelling *as written*, before any I/O (ahead of the path
    gate): the opaque gates, so that ``..`` after a secret or filtered name answers the same
    whatever exists behind it."""

    def check_written(self, facts: PathFacts, ctx: GateContext) -> GateResult:
        """``None`` to pass, a verdict to block (or an awaitable of either)."""
        ...


def written_walk(request: str, root: str | None) -> tuple[list[str], str | None] | None:
    """The lexical prefixes a spelling visits as written, and where it ends (both relative to
    the root; the end is ``None`` when it climbs above the root); ``None`` for an absolute
    spelling outside ``root``. ``a/b/../c`` visits ``a``, ``a/b``, ``a/c``, ends at ``a/c``."""
    body = request
    if request.startswith("/"):
        if root is None or not (root == "/" or request == root or request.startswith(root + "/")):
            return None
        body = request[len(root):]
    cur: list[str] = []
    visited: list[str] = []
    for c in body.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            if not cur:
                return visited, None
            cur.pop()
            continue
        cur.append(c)
        visited.append("/".join(cur))
    return visited, "/".join(cur)


def dropped_prefixes(request: str, root: str | None) -> list[str]:
    """The written prefixes a later ``..`` cancels (not the end point nor its ancestors),
    distinct, shortest first: ``private/x/../../a`` → ``["private", "private/x"]``."""
    walked = written_walk(request, root)
    if walked is None:
        return []
    visited, end = walked
    if end is None:
        out = set(visited)
    else:
        kept = end + "/"
        out = {v for v in visited if v != end and not kept.startswith(v + "/")}
    return sorted(out, key=lambda v: (v.count("/"), v))


def lexical_name(request: str, root: str) -> str | None:
    """The spelling normalised without I/O, relative to ``root`` (``""`` is the root);
    ``None`` for empty, NUL, absolute-outside or ``..``-escaping spellings."""
    if not request or "\x00" in request:
        return None
    if request[0] not in "./" and "/." not in request and "//" not in request and request[-1] != "/":
        return request  # no empty, "." or ".." component, relative: its own normalisation
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
