"""The deciding half of a runtime: root, policy, ignore index, gate pipeline, renderers.

:class:`GateCore` holds what decides a path without reading it; :class:`~pathgate.Runtime`
is a ``GateCore`` plus the tools, the middleware chain, tracing and the worker threads. The
one decision route — :meth:`GatePipeline.run <pathgate.runtime.gates.GatePipeline.run>`,
behind :meth:`GateCore.check_paths` (the path-only gates) and :meth:`GateCore.read_verdicts`
(every gate of a read) — is driven two ways:

* by a :class:`~pathgate.Runtime` on an event loop: the facts are fetched in worker threads
  (``read_files``' fact source);
* by a one-shot command (``pathgate hook``, ``pathgate explain``) without any event loop: a
  bare ``GateCore`` fetches the same facts with the same sans-IO resolution
  (:func:`resolve_flow` driven by :func:`drive_sync`), the same ignore session and the same
  descriptor-anchored :func:`open_read` in the calling thread, so its coroutine never
  suspends and :func:`run_now` runs it to the end. Neither anyio, asyncio nor the
  tools are imported (each is tens of milliseconds of a process that runs on every tool
  call of an agent).

A check that must await (an async host filter or host gate) or needs anyio's worker threads
(the secret-inode check of a multi-linked file, on the ``OPEN`` facts of ``explain``) cannot
finish without a loop: :func:`run_now` raises :class:`NeedsEventLoop`; ``pathgate explain``
then runs the same check on a ``Runtime``, and a hook fails closed.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

from pathgate.config import DEFAULT_SECRET_PATTERNS, Policy, RendererRule, load_config, project_secret_patterns
from pathgate.errors import ConfigError, ToolArgumentError
from pathgate.renderers._base import Renderer, RendererSelector, default_registry
from pathgate.runtime._remedy import ignore_decider, remedy_names
from pathgate.runtime.fs import DirFds, FileOps, Opened, OsFS, ReadRequest, SyncFS, drive_sync, open_read, resolve_flow
from pathgate.runtime.gates import Fact, GateCheck, GateContext, GatePipeline, PathFacts, SecretMatcher, lexical_name
from pathgate.runtime.gates.host_filter import HostFilterGate
from pathgate.runtime.gates.ignore import CHAIN_UNKNOWN, IgnoreGate
from pathgate.runtime.gates.path import PathGate
from pathgate.runtime.ignore import IgnoreIndex
from pathgate.runtime.ignore._secret_sources import source_names
from pathgate.verdicts import Verdict

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from pathgate.runtime._live import LiveIndex
    from pathgate.runtime.gates import FactSource

__all__ = ["GateCore", "InlineFacts", "NeedsEventLoop", "ReadVerdict", "RendererRules", "project_git_dirs", "run_now"]

T = TypeVar("T")

RendererRules = RendererSelector | Iterable[RendererRule | tuple[str, str]]


class ReadVerdict(NamedTuple):
    """One path of :meth:`GateCore.read_verdicts`: ``verdict`` ``None`` means readable;
    ``relpath`` as ``FileResult.relpath`` gives it."""

    path: str
    verdict: Verdict | None
    relpath: str | None


def project_git_dirs(root: str) -> tuple[str, ...]:
    """Project-relative git directories that a root ``.git`` *file* points to (``gitdir:``)
    and that lie inside the project without a ``.git`` component of their own (those are
    caught by name): the path gate never serves them. ``root`` is a real path."""
    from pathgate.runtime.gates.path import is_git_internal
    from pathgate.runtime.ignore._gitconfig import GitFatal, find_git_layout

    dirs: tuple[str, ...]
    try:
        layout = find_git_layout(root)
        dirs = (layout.git_dir, layout.common_dir) if layout is not None else ()
    except GitFatal:
        # a malformed .git file (git exits 128): the runtime still starts, its ignore index
        # fails closed; whatever the file loosely names stays hidden all the same
        from pathgate.runtime.tools._write_rules import _gitdir_of

        loose = _gitdir_of(root)
        dirs = (loose,) if loose is not None else ()
    out: list[str] = []
    for d in dirs:
        real = os.path.realpath(d)
        rel = os.path.relpath(real, root)
        if rel == "." or rel == ".." or rel.startswith("../") or is_git_internal(rel):
            continue
        out.append(rel)
    return tuple(dict.fromkeys(out))


class NeedsEventLoop(RuntimeError):
    """A check :func:`run_now` cannot finish without an event loop: it awaits (an async host
    gate or filter) or asks anyio for a worker thread (a multi-linked file's secret-inode
    check). The caller runs the same check on a :class:`~pathgate.Runtime` instead, or, for
    a hook, fails closed."""


def _no_event_loop(exc: RuntimeError) -> bool:
    """Did anyio refuse for want of a running event loop? (``NoEventLoopError`` in anyio 4.16
    and later; sniffio's ``AsyncLibraryNotFoundError`` before.)"""
    kinds = [getattr(sys.modules.get("anyio"), "NoEventLoopError", None),
             getattr(sys.modules.get("sniffio"), "AsyncLibraryNotFoundError", None)]
    return any(isinstance(k, type) and isinstance(exc, k) for k in kinds)


def run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end in the calling thread, without an event loop: for a
    coroutine that never suspends (a bare :class:`GateCore`'s check). One that does is
    closed, and :class:`NeedsEventLoop` raised."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    except RuntimeError as exc:
        if _no_event_loop(exc):
            raise NeedsEventLoop("this check needs an event loop (a worker thread)") from exc
        raise
    coro.close()
    raise NeedsEventLoop("this check awaits (an async host gate or filter) and needs an event loop")


async def _wait(answer: Awaitable[T]) -> T:
    return await answer


class InlineFacts:
    """The ``REAL``, ``MATCH`` and ``OPEN`` facts, fetched in the calling thread
    (``read_files``' :class:`~pathgate.runtime.tools.read_files.ReadFacts` fetches the same
    facts, with the same functions, in worker threads)."""

    def __init__(self, core: GateCore, ctx: GateContext) -> None:
        self.core = core
        self.ctx = ctx

    async def fetch(self, fact: Fact, pending: Sequence[PathFacts]) -> None:
        core = self.core
        if fact is Fact.REAL:
            allow = core.policy.allow_outside_root
            for f in pending:
                if f.resolved is None:
                    f.resolved = drive_sync(resolve_flow(core.root, f.request, allow_outside=allow), core.ops)
        elif fact is Fact.MATCH:
            from pathgate.runtime.ignore._lazy import expecting

            decide = ignore_decider(core.policy, self.ctx.purpose)
            is_secret = core.pipeline.secrets.is_secret_facts
            relpaths = [f.resolved.relpath for f in pending if f.resolved is not None and f.resolved.relpath]
            # (a huge ignore file read lazily by a one-shot command is scanned once for them all)
            with expecting(relpaths):
                session = core.index.session()
                for f in pending:
                    r = f.resolved
                    if r is not None and r.relpath is not None and f.match is None:
                        f.match, f.remedy = decide(session, r.relpath, r.is_dir, is_secret(f, self.ctx.root))
        elif fact is Fact.OPEN:
            self._open(pending)

    def _open(self, pending: Sequence[PathFacts]) -> None:
        """The descriptor-anchored read (:func:`open_read`, from the root without following
        symlinks), once per real file, as ``read_files`` opens in its worker threads."""
        core, known = self.core, dict[str, Opened]()
        with DirFds(core.ops, core.root) as dirs:
            for f in pending:
                r = f.resolved
                if f.opened is not None:
                    continue
                if r is None or r.real is None or r.st is None:
                    f.opened = Opened(error=errno.ENOENT if r is None or r.error is None else r.error)
                elif r.real in known:
                    f.opened = known[r.real]
                else:
                    root = core.root if r.relpath is not None else None
                    req = ReadRequest(r.real, self.ctx.size_limit, r.identity, root)
                    f.opened = known[r.real] = open_read(core.ops, req, dirs)


class GateCore:
    """The decision half of :class:`~pathgate.Runtime` (see its parameters): built once,
    then only read. On its own it decides in the calling thread (:meth:`check_paths`
    driven by :func:`run_now`); a ``Runtime`` fetches the facts in worker threads.

    It is also the driver of the discovery steps (``runtime/tools/_discover.py``): their
    blocking work goes through :meth:`run_blocking` and :meth:`wait_in_step`, their facts
    come from :meth:`_discovery_facts` — here all in the calling thread, so a discovery
    coroutine on a bare ``GateCore`` never suspends and :func:`run_now` runs it (``pathgate
    glob``); a ``Runtime`` runs the same code with worker threads on its event loop."""

    #: Discovery from memory (issue 15): only a ``Runtime`` keeps one; a bare core walks.
    live_index: LiveIndex | None = None

    def __init__(
        self,
        root: str | os.PathLike[str],
        policy: Policy | None = None,
        *,
        renderers: RendererRules | None = None,
        fs: SyncFS | None = None,
        gates: Sequence[GateCheck] = (),
    ) -> None:
        real = os.path.realpath(root)
        if not os.path.isdir(real):
            raise ConfigError(f"project root {os.fspath(root)!r} is not a directory", key="root")
        self.root = real
        self.policy = load_config(real) if policy is None else policy
        self.fs: SyncFS = fs if fs is not None else OsFS()
        self.ops: FileOps = self.fs if isinstance(self.fs, FileOps) else OsFS()
        self.index = IgnoreIndex(real, self.policy.ignore_config(), fs=self.fs)
        self.pipeline = GatePipeline.for_policy(self.policy, extra=gates)
        # an ignore file hard-linked to a secret is never read as rules (its lines would be
        # quoted to the model by the verbose renderer)
        self.index.linked_secret = self._linked_secret()
        # nor is an agent ignore file whose path is a secret (`.aws/credentials` when an
        # agent file is called `credentials`): it counts as absent
        self.index.secret_source = self.pipeline.secrets.is_secret
        if any(p not in DEFAULT_SECRET_PATTERNS for p in self.policy.secret_patterns):
            # patterns the project's own file adds tighten reads and never silence the
            # user's info/exclude, excludes file or agent ignore files (red team 6 F5, 7 F3)
            added = frozenset(project_secret_patterns(real))
            if added:
                kept = tuple(p for p in self.policy.secret_patterns if p not in added)
                self.index.secret_source = SecretMatcher(kept).is_secret
        self.git_dirs = project_git_dirs(real)
        # the path gate learns the root and any in-project git directory (git internals
        # are never served); it is the pipeline's first gate by construction
        self.pipeline.gates = (
            PathGate(allow_outside_root=self.policy.allow_outside_root, root=real, git_dirs=self.git_dirs,
                     is_secret=self.pipeline.secrets.is_secret_facts,
                     host_filter=next((g.judge_name for g in self.pipeline.gates if isinstance(g, HostFilterGate)),
                                      None)),
            *self.pipeline.gates[1:],
        )
        self._arm_aliases(self.pipeline)
        if isinstance(renderers, RendererSelector):
            self.renderers = renderers
        else:
            rules = self.policy.renderers if renderers is None else tuple(renderers)
            self.renderers = RendererSelector(rules, self.policy.default_renderer)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.root!r})"

    async def check_paths(
        self,
        paths: Sequence[str],
        *,
        purpose: Literal["read", "discover"] = "read",
        model: str | None = None,
    ) -> list[Verdict | None]:
        """The path-only gates for ``paths``, without opening any file: one verdict (or
        ``None``: every path-only gate lets it through) per path, in request order.

        Runs the gates that decide from the name, the resolved real path and the ignore
        rules — ``path``, ``secrets``, ``host_filter``, host gates needing no content, and
        ``ignore`` (with its verified remedy) — and skips those that need the open file
        (``existence``, ``size``, ``read``), so a missing file or a directory passes. Hooks
        of other agents' tools (``pathgate hook``) and writers use it before acting on a
        path. A bad argument raises :class:`~pathgate.ToolArgumentError`.
        """
        if isinstance(paths, (str, bytes)) or not all(isinstance(p, str) for p in paths):
            raise ToolArgumentError("check_paths: `paths` must be a list of strings", field="paths")
        if purpose not in ("read", "discover"):
            raise ToolArgumentError("check_paths: `purpose` must be 'read' or 'discover'", field="purpose")
        if not paths:
            return []
        policy = self.policy
        ctx = GateContext(policy=policy, purpose=purpose, model=model, size_limit=policy.size_limit_for(model),
                          root=self.root)
        spellings = list(dict.fromkeys(paths))
        facts = [PathFacts(request=s, name=lexical_name(s, self.root)) for s in spellings]
        source = self._path_facts(ctx)
        await source.fetch(Fact.REAL, facts)
        await source.fetch(Fact.MATCH, facts)
        verdicts = await self.pipeline.run(
            facts, ctx, None, have=frozenset({Fact.NAME, Fact.REAL, Fact.MATCH})
        )
        by_spelling = dict(zip(spellings, verdicts, strict=True))
        return [by_spelling[p] for p in paths]

    async def read_verdicts(self, paths: Sequence[str], *, model: str | None = None) -> list[ReadVerdict]:
        """Every gate an explicit read runs (``OPEN`` facts included: existence, size,
        content), for each path in request order: what ``read_files`` decides, without its
        content, windows nor budget (``pathgate explain``). Each item is ``(path, verdict
        or None, the project-relative path shown for it)``; an opaque verdict shows none."""
        policy = self.policy
        ctx = GateContext(policy=policy, purpose="read", model=model, size_limit=policy.size_limit_for(model),
                          root=self.root)
        spellings = list(dict.fromkeys(paths))
        facts = [PathFacts(request=s, name=lexical_name(s, self.root)) for s in spellings]
        verdicts = await self.pipeline.run(facts, ctx, self._read_facts(ctx))
        decided = {s: (f, v) for s, f, v in zip(spellings, facts, verdicts, strict=True)}
        out: list[ReadVerdict] = []
        for path in paths:
            f, v = decided[path]
            shown = f.shown_relpath
            out.append(ReadVerdict(path, v, None if v is not None and (v.opaque or f.relpath is None) else shown))
        return out

    def _read_facts(self, ctx: GateContext) -> FactSource:
        """Where :meth:`read_verdicts` gets its facts: the calling thread (a ``Runtime``:
        ``read_files``' one-hop worker threads)."""
        return InlineFacts(self, ctx)

    def _path_facts(self, ctx: GateContext) -> FactSource:
        """Where :meth:`check_paths` gets its ``REAL`` and ``MATCH`` facts: here, the calling
        thread (a ``Runtime`` uses worker threads)."""
        return InlineFacts(self, ctx)

    async def run_blocking(self, fn: Callable[[], T]) -> T:
        """Run a blocking call (a ``stat``, a walk step): here, in the calling thread (a
        ``Runtime`` runs it in a worker thread)."""
        return fn()

    def wait_in_step(self, answer: Awaitable[T]) -> T:
        """From inside a blocking step (:meth:`run_blocking`), the value of ``answer`` (an
        async host filter's verdict): here, run to its end in the calling thread
        (:func:`run_now`: :class:`NeedsEventLoop` if it suspends); a ``Runtime`` awaits it
        on its event loop from the worker thread."""
        return run_now(_wait(answer))

    def _discovery_facts(self, ctx: GateContext) -> FactSource:
        """Where discovery gets the facts of its start directory and of walked symlinks:
        here, the calling thread (a ``Runtime``: worker threads, ``read_files``' source)."""
        return InlineFacts(self, ctx)

    def renderer_for(self, model: str | None = None, name: str | None = None) -> Renderer:
        """The renderer a call would use: ``name`` if given, else chosen by ``model``."""
        if name is None:
            return self.renderers.select(model)
        built = self.renderers.renderers.get(name)
        if built is not None:
            return built
        try:
            return default_registry().create(name, key="renderer")
        except ConfigError as exc:
            raise ToolArgumentError(str(exc), field="renderer") from None

    def _arm_aliases(self, pipeline: GatePipeline) -> None:
        """Let ``pipeline``'s ignore gates ask whether a multi-linked file they would block
        is a secret's alias (then opaque, not explained), when secrets are enforced; and,
        with a host filter, whether the ignore source that decided is one the filter hides
        (then the filter's opaque verdict: :meth:`_hidden_source`)."""
        host = next((g for g in self.pipeline.gates if isinstance(g, HostFilterGate)), None)
        for gate in pipeline.gates:
            if isinstance(gate, IgnoreGate):
                if self.policy.enforce_secrets:
                    gate.alias = self._is_secret_alias
                if host is not None:
                    gate.hidden = functools.partial(self._hidden_source, host)
                    gate.chain_hidden = functools.partial(self._hidden_chain, host)

    def _hidden_source(self, host: HostFilterGate, label: str) -> Verdict | Awaitable[Verdict | None] | None:
        """The read host filter's verdict on the ignore source labelled ``label`` (each of its
        spellings: :func:`~pathgate.runtime.ignore._secret_sources.source_names`; no I/O).
        Its rules keep applying; the ignore gate answers what they decide with this verdict,
        so the source's name and lines never reach the model."""
        return host.judge_names(source_names(self.index, label, self.policy.allow_outside_root))

    def _hidden_chain(self, host: HostFilterGate, relpath: str) -> Verdict | Awaitable[Verdict | None] | None:
        """The read host filter's verdict on every place an ignore source of ``relpath``'s
        rule chain can be (:func:`~pathgate.runtime._remedy.remedy_names`; no I/O): any
        hidden one drops the path's remedy (red team 21 M2)."""
        names = remedy_names(self.index, relpath, self.policy.allow_outside_root)
        return CHAIN_UNKNOWN if names is None else host.judge_names(names)

    async def _is_secret_alias(self, st: os.stat_result) -> bool:
        """Is the multi-linked regular file with this ``lstat`` a secret's alias (any such
        file, with ``strict_hard_links``)? The ignore gate asks before explaining a block."""
        linked = self._linked_secret()
        if linked is None:
            return False
        return await self.run_blocking(functools.partial(linked, st))

    def _linked_secret(self) -> Callable[[os.stat_result], bool] | None:
        """For tools that open files themselves (code_search): is this multi-linked regular
        file (its ``fstat``) a secret? ``strict_hard_links`` refuses them all; otherwise the
        secret-inode registry decides (sync: called in worker threads)."""
        if self.pipeline.strict_hard_links:
            return lambda st: st.st_nlink > 1
        reg = self.pipeline.secret_inodes(self.root)
        return None if reg is None else reg.linked_secret
