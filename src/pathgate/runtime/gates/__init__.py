"""The gates of SPEC §2 and the one loop that runs them.

:class:`GatePipeline` holds the gates in order (``path`` always first) and runs them over a
batch of paths: before the first gate that needs a kind of fact, it asks the caller's
:class:`FactSource` to fetch that fact for every path still pending (concurrently, once);
each gate then decides from facts. Before the loop, and before anything touches the disk,
the opaque gates judge the spelling *as written* (``check_written``: a secret-named
component, a host-filtered directory left again with ``..``), so the answer cannot depend on
what exists behind those names, and a secret-named symlink is ``[BLOCKED]`` whatever the
path gate would say about its target. After the loop one check holds for every tool: a
verdict on a secret is opaque, whatever gate caught it (except the path gate, whose verdict
is about location, not the file).

Two entry points:

* ``await pipeline.run(facts, ctx, source)`` — ``read_files``: all gates, facts fetched on
  demand by the tool.
* ``await pipeline.check_entries(entries, ctx)`` — discovery tools (glob, list, search):
  walked entries with the ``NAME``/``REAL``/``MATCH`` facts the walk already has; gates that
  need ``OPEN`` are skipped and nothing is statted. A verdict with ``opaque=True`` means:
  do not list, do not count. ``pipeline.is_secret(relpath)`` is the cheap sync pre-filter.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from pathgate.runtime._links import SecretInodes
from pathgate.runtime.fs import Resolved
from pathgate.runtime.gates._base import Fact, GateCheck, GateContext, GateResult, PathFacts, lexical_name
from pathgate.runtime.gates.existence import ExistenceGate
from pathgate.runtime.gates.host_filter import HostFilterGate
from pathgate.runtime.gates.ignore import IgnoreGate
from pathgate.runtime.gates.path import PathGate
from pathgate.runtime.gates.read import ReadGate
from pathgate.runtime.gates.secrets import LinkedSecretGate, SecretMatcher, SecretsGate
from pathgate.runtime.gates.size import SizeGate
from pathgate.runtime.ignore import Match
from pathgate.verdicts import Gate as GateName
from pathgate.verdicts import Status, Verdict

if TYPE_CHECKING:
    from pathgate.config import Policy

__all__ = [
    "ExistenceGate",
    "Fact",
    "FactSource",
    "GateCheck",
    "GateContext",
    "GatePipeline",
    "GateResult",
    "HostFilterGate",
    "IgnoreGate",
    "LinkedSecretGate",
    "PathFacts",
    "PathGate",
    "ReadGate",
    "SecretMatcher",
    "SecretsGate",
    "SizeGate",
    "WalkedEntry",
    "default_gates",
    "lexical_name",
]


class FactSource(Protocol):
    """Fetches one kind of fact for a batch of pending paths (filling the ``PathFacts``)."""

    async def fetch(self, fact: Fact, pending: Sequence[PathFacts]) -> None: ...


class WalkedEntry(Protocol):
    """What a walker knows about one entry (a tuple-like or small struct works)."""

    @property
    def relpath(self) -> str: ...
    @property
    def is_dir(self) -> bool: ...
    @property
    def match(self) -> Match | None: ...


def default_gates(policy: Policy, matcher: SecretMatcher | None = None) -> list[GateCheck]:
    """The built-in gates for ``policy``, in SPEC order; switched-off gates are left out.
    ``matcher``: the policy's secret matcher, if already built (it compiles the patterns)."""
    if matcher is None:
        matcher = SecretMatcher(policy.secret_patterns)
    gates: list[GateCheck] = [PathGate(allow_outside_root=policy.allow_outside_root)]
    if policy.enforce_secrets:
        gates.append(SecretsGate(matcher))
    if policy.host_filter is not None:
        gates.append(HostFilterGate(policy.host_filter))
    gates.append(IgnoreGate(mode=policy.ignore_mode))
    if policy.enforce_secrets:
        gates.append(LinkedSecretGate(matcher, strict=policy.strict_hard_links))
    gates += [ExistenceGate(), SizeGate(), ReadGate()]
    return gates


def _opaque(verdict: Verdict) -> Verdict:
    return Verdict(status=Status.BLOCKED, gate=verdict.gate, opaque=True)


class GatePipeline:
    """An ordered, immutable list of gates plus the secret matcher. Built once per runtime."""

    def __init__(self, gates: Sequence[GateCheck], secrets: SecretMatcher) -> None:
        self.gates = tuple(gates)
        self.secrets = secrets

    @property
    def gates(self) -> tuple[GateCheck, ...]:
        """The gates in order (``path`` first). Setting them re-derives, once, what each
        run needs: the as-written checks and each gate's facts in fetch order."""
        return self._gates

    @gates.setter
    def gates(self, gates: Sequence[GateCheck]) -> None:
        if not gates or gates[0].name != GateName.PATH.value:
            raise ValueError("the path gate must come first")
        self._gates: tuple[GateCheck, ...] = tuple(gates)
        written = (getattr(g, "check_written", None) for g in self._gates)
        self._written = tuple(w for w in written if w is not None)
        # the as-written pass, each step as one loop when the gate has one (its own ``check_written``)
        self._written_steps = tuple((w, _whole_written(w)) for w in self._written)
        self._needs = tuple(tuple(sorted(g.needs)) for g in self._gates)
        self._plans: dict[tuple[frozenset[Fact], bool], tuple[tuple[Fact, ...], ...]] = {}

    @property
    def written(self) -> tuple[Callable[[PathFacts, GateContext], GateResult], ...]:
        """The gates' ``check_written`` methods, in order: the as-written pass :meth:`run`
        makes before any I/O."""
        return self._written

    def _plan(self, have: frozenset[Fact], fetches: bool) -> tuple[tuple[Fact, ...], ...]:
        """Per gate, the facts to fetch before it (``fetches``: a source fills in what is
        missing, so each fact is fetched once, before the first gate needing it; without a
        source nothing is fetched and each gate lacking a fact is skipped). Derived once per
        ``have``: the gates do not change after construction."""
        plan = self._plans.get((have, fetches))
        if plan is None:
            known = set(have)
            steps: list[tuple[Fact, ...]] = []
            for needs in self._needs:
                missing = tuple(fact for fact in needs if fact not in known)
                steps.append(missing)
                if fetches:
                    known.update(missing)
            plan = self._plans[have, fetches] = tuple(steps)
        return plan

    @classmethod
    def for_policy(
        cls, policy: Policy, *, extra: Sequence[GateCheck] = (), before: str = "ignore"
    ) -> GatePipeline:
        """The default gates for ``policy``, with host gates ``extra`` inserted before the
        gate named ``before`` (default: ahead of ``ignore``, after the opaque gates)."""
        matcher = SecretMatcher(policy.secret_patterns)  # one per policy: shared by the gates
        gates = default_gates(policy, matcher)
        names = [g.name for g in gates]
        at = names.index(before) if before in names else len(gates)
        gates[at:at] = list(extra)
        return cls(gates, matcher)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.gates)

    def secret_inodes(self, root: str) -> SecretInodes | None:
        """The secret-inode registry of ``root`` (``None`` when secrets are not enforced).
        Tools that open files themselves (code_search) ask ``reg.linked_secret(fstat)`` in
        their worker thread after each open, before reading."""
        for gate in self.gates:
            if isinstance(gate, LinkedSecretGate):
                return gate.registry(root)
        return None

    @property
    def strict_hard_links(self) -> bool:
        """Whether every multi-linked regular file is refused (``Policy.strict_hard_links``)."""
        return any(isinstance(g, LinkedSecretGate) and g.strict for g in self.gates)

    def is_secret(self, relpath: str) -> bool:
        """Cheap, sync: is this (real, project-relative) path a secret? Discovery tools use
        it to drop entries before anything else: secrets are never listed nor counted."""
        return self.secrets.is_secret(relpath)

    async def run(
        self,
        facts: Sequence[PathFacts],
        ctx: GateContext,
        source: FactSource | None,
        *,
        have: frozenset[Fact] = frozenset({Fact.NAME}),
    ) -> list[Verdict | None]:
        """Run every gate over ``facts``; return one verdict (or ``None``) per path.

        Facts not in ``have`` are fetched from ``source`` before the first gate needing them,
        for the paths still pending. Without a source, gates needing missing facts are
        skipped (discovery)."""
        verdicts: list[Verdict | None] = [None] * len(facts)
        pending = list(range(len(facts)))
        for written, whole in self._written_steps:  # the spelling as written, before any I/O
            if pending:
                if whole is not None:
                    if whole(facts, ctx, pending, verdicts):
                        pending = [i for i in pending if verdicts[i] is None]
                    continue
                waits = _check_all(written, facts, ctx, pending, verdicts, -1)
                if waits is not None:
                    if waits:
                        await _gather_into(verdicts, waits)
                    pending = [i for i in pending if verdicts[i] is None]
        plan = self._plan(have, source is not None)
        last = len(self._gates)
        for at, gate in enumerate(self._gates):
            if not pending:
                break
            missing = plan[at]
            if missing:
                if source is None:
                    continue
                batch = [facts[i] for i in pending]
                for fact in missing:
                    await source.fetch(fact, batch)
                # a path whose source already ran every gate on these facts is done
                pending = [i for i in pending if facts[i].cleared < last]
                if not pending:
                    break
            waits = _check_all(gate.check, facts, ctx, pending, verdicts, at)
            if waits is not None:  # something blocked (or must be awaited)
                if waits:
                    await _gather_into(verdicts, waits)
                pending = [i for i in pending if verdicts[i] is None]
        if verdicts.count(None) == len(verdicts):
            return verdicts  # nothing blocked: no verdict to make opaque
        for i, verdict in enumerate(verdicts):
            if (
                verdict is not None
                and not verdict.opaque
                and verdict.gate is not GateName.PATH
                and self.secrets.is_secret_facts(facts[i], ctx.root)
            ):
                verdicts[i] = _opaque(verdict)
        return verdicts

    async def check_entries(self, entries: Sequence[WalkedEntry], ctx: GateContext) -> list[Verdict | None]:
        """The path-only gates for walked entries (no I/O): secrets, host filter, ignore and
        host gates that need no ``OPEN`` fact. ``ctx.purpose`` should be ``"discover"``.
        An opaque verdict: drop the entry silently; a non-opaque one: omit and count it."""
        facts = [
            PathFacts(
                request=e.relpath,
                name=e.relpath,
                resolved=Resolved(e.relpath, None, e.relpath),
                match=e.match,
            )
            for e in entries
        ]
        return await self.run(facts, ctx, None, have=frozenset({Fact.NAME, Fact.REAL, Fact.MATCH}))


#: One as-written step over every pending path: ``(facts, ctx, pending, verdicts) -> blocked``.
_WholeStep = Callable[[Sequence[PathFacts], GateContext, list[int], list["Verdict | None"]], bool]


def _whole_written(written: Callable[[PathFacts, GateContext], GateResult]) -> _WholeStep | None:
    """The secrets gate's as-written check as one loop (:meth:`SecretsGate.written_all
    <pathgate.runtime.gates.secrets.SecretsGate.written_all>`), when ``written`` is exactly
    that gate's own ``check_written``; else ``None`` (:func:`_check_all` runs it)."""
    gate = getattr(written, "__self__", None)
    if type(gate) is SecretsGate and getattr(written, "__func__", None) is SecretsGate.check_written:
        return gate.written_all
    return None


def _check_all(
    check: Callable[[PathFacts, GateContext], GateResult],
    facts: Sequence[PathFacts],
    ctx: GateContext,
    pending: list[int],
    verdicts: list[Verdict | None],
    at: int,
) -> list[tuple[int, Awaitable[Verdict | None]]] | None:
    """One gate step (the pipeline's gate number ``at``; ``-1``: the as-written pass) over
    the pending paths: verdicts filled in, awaitables returned (``None``: every path passed).
    A path whose facts already cleared this gate (``PathFacts.cleared``) is not checked again."""
    waits: list[tuple[int, Awaitable[Verdict | None]]] = []
    blocked = False
    for i in pending:
        f = facts[i]
        if f.cleared > at >= 0:
            continue
        result = check(f, ctx)
        if result is None:
            continue
        if not isinstance(result, Verdict) and inspect.isawaitable(result):
            waits.append((i, result))
        else:
            verdicts[i] = result
            blocked = True
    return waits if waits or blocked else None


async def _gather_into(
    verdicts: list[Verdict | None], waits: list[tuple[int, Awaitable[Verdict | None]]]
) -> None:
    if len(waits) == 1:  # one awaited check: no task group
        i, waitable = waits[0]
        verdicts[i] = await waitable
        return
    import anyio  # only async host gates get here: a hook decides without anyio

    try:
        tg = anyio.create_task_group()
    except BaseException:  # no event loop (a check driven without one): nothing left un-awaited
        for _, waitable in waits:
            close = getattr(waitable, "close", None)
            if close is not None:
                close()
        raise

    async def one(i: int, waitable: Awaitable[Verdict | None]) -> None:
        verdicts[i] = await waitable

    async with tg:
        for i, waitable in waits:
            tg.start_soon(one, i, waitable)
