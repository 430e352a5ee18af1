"""The gates of a write, and the facts they decide from.

A write passes the read pipeline's path-only gates, in the same order, with
``GateContext.purpose == "write"`` (a host filter or host gate can tell reads from writes):

``path`` (never outside the root, whatever ``allow_outside_root`` says) → ``write`` (never
writable: ``.git`` internals, opaque) → ``secrets`` (always on for writes, opaque) →
``host_filter`` (a filter ``(relpath, purpose="read")`` is called with ``"write"``) → host
gates (they see ``ctx.purpose == "write"``) → ``ignore`` (left out with
``allow_ignored_writes``).

The ``write`` gate blocks, with an opaque bare ``[BLOCKED]`` decided before the target itself
is looked at, a path with a ``.git`` component (as written, normalised or real; NTFS
spellings such as ``.GIT`` or ``.git.`` included), any path inside the git directory a
``.git`` *file* (worktrees, submodules) of an ancestor names, and any path below a
directory that is a git directory by git's own test (``HEAD`` + ``objects/`` + ``refs/``,
or ``HEAD`` + ``commondir``: bare repositories, gitdirs kept elsewhere in the project). The
component test is the path gate's own (``gates/path.py``: ``.git/`` is never served), which
already refuses writes there opaquely; this gate asks it again so it holds on its own.

A write that would *make* a directory from the root down to the target's parent a git
directory (it completes ``HEAD`` + ``objects/`` + ``refs/``, or ``HEAD`` + ``commondir``, in
whatever order the files come) is a plain ``[BLOCKED]`` (``detail`` :data:`MAKES_GIT_DIR`):
git would obey the ``config`` an agent wrote there.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio.to_thread

from pathgate.runtime.gates import (
    Fact,
    GateCheck,
    GateContext,
    GatePipeline,
    HostFilterGate,
    IgnoreGate,
    PathFacts,
    PathGate,
    SecretMatcher,
    SecretsGate,
)
from pathgate.runtime.gates.path import is_git_internal
from pathgate.runtime.gates.secrets import normalize_name
from pathgate.runtime.tools._agent_commands import in_hook_dir
from pathgate.runtime.tools._guard_read import guard_judge
from pathgate.runtime.tools._write_rules import (
    CONFIG_FILE,
    declares_pathgate,
    in_linked_gitdir,
    is_agent_settings,
    is_root_pyproject,
    makes_gitdir,
    steers_guard,
)
from pathgate.runtime.tools.read_files import ReadFacts
from pathgate.verdicts import MAKES_GIT_DIR, POLICY_FILE, Status, Verdict
from pathgate.verdicts import Gate as GateName

if TYPE_CHECKING:
    from pathgate.config import HostFilter, Policy
    from pathgate.runtime._runtime import Runtime
    from pathgate.runtime.fs import Resolved

__all__ = [
    "CONFIG_FILE",
    "POLICY_FILE",
    "NeverWritableGate",
    "WriteFacts",
    "WriteHostFilterGate",
    "WritePathFacts",
    "build_write_pipeline",
    "has_git_component",
]

_BLOCK = Verdict(status=Status.BLOCKED, gate=GateName.WRITE, opaque=True, detail="git internals")
#: ``Verdict.detail`` of a write refused because the target is one of pathgate's own policy
#: files (not opaque: the renderers say that only a person may change it).
_POLICY = Verdict(status=Status.BLOCKED, gate=GateName.WRITE, detail=POLICY_FILE)
#: A write that would make a directory a git directory (not opaque: says to ask the user).
_GIT_DIR = Verdict(status=Status.BLOCKED, gate=GateName.WRITE, detail=MAKES_GIT_DIR)


class WritePathFacts(PathFacts):
    """:class:`PathFacts` plus ``git_internal``: inside git's own directory (set with
    ``REAL``); ``policy_path``: the root ``pyproject.toml`` while it declares pathgate
    settings, a host config file, a file that steers git (its config, excludes file,
    hooks) or that an agent CLI's settings run (set with ``REAL``); ``makes_git_dir``: the
    write would make a directory a git directory (set with ``REAL``)."""

    __slots__ = ("git_internal", "makes_git_dir", "policy_path")

    def __init__(self, request: str, *args: Any, git_internal: bool = False, policy_path: bool = False,
                 makes_git_dir: bool = False, **kw: Any) -> None:
        super().__init__(request, *args, **kw)
        self.git_internal = git_internal
        self.policy_path = policy_path
        self.makes_git_dir = makes_git_dir

    def _fields(self) -> tuple[object, ...]:
        return (*super()._fields(), self.git_internal, self.policy_path, self.makes_git_dir)

    def __repr__(self) -> str:
        return (f"Write{super().__repr__()[:-1]}, git_internal={self.git_internal!r}, "
                f"policy_path={self.policy_path!r}, makes_git_dir={self.makes_git_dir!r})")


def has_git_component(path: str) -> bool:
    """Does any ``/``-separated component of ``path`` name ``.git`` (any case, NTFS
    spellings)? The path gate's own test (:func:`~pathgate.runtime.gates.path.is_git_internal`),
    asked again here so this gate holds on its own."""
    return is_git_internal(path)


class NeverWritableGate:
    """Gate ``write``: opaque ``[BLOCKED]`` for ``.git`` internals; a plain ``[BLOCKED]``
    (``detail="policy file"``) for pathgate's own policy files — ``pathgate.toml``, the
    agent ignore files, the root ``pyproject.toml`` while it declares pathgate settings —
    the agent CLIs' hook settings and MCP server lists and the files they run (everything
    below ``.claude/hooks/``, ``.cursor/hooks/``, ``.gemini/hooks/`` too), the host's config
    files and what steers git (its config files, excludes file, ``core.hooksPath``,
    ``core.attributesFile``), so an agent cannot loosen the rules it runs under; a plain
    ``[BLOCKED]`` (``detail="makes git directory"``) for a write that would make a git
    directory."""

    name = GateName.WRITE.value
    needs = frozenset({Fact.REAL})

    def __init__(self, policy_files: Sequence[str] = (CONFIG_FILE,)) -> None:
        self.policy_files = frozenset(normalize_name(n) for n in policy_files)

    def check(self, facts: PathFacts, ctx: GateContext) -> Verdict | None:
        if isinstance(facts, WritePathFacts) and facts.git_internal:
            return _BLOCK
        names = [facts.request, facts.name or ""]
        if facts.resolved is not None:
            names.append(facts.resolved.relpath or "")
        if any(has_git_component(n) for n in names):
            return _BLOCK
        if any(normalize_name(n.rstrip("/").rsplit("/", 1)[-1]) in self.policy_files for n in names if n):
            return _POLICY
        normalized = ["/".join(normalize_name(c) for c in n.split("/")) for n in names if n]
        if any(is_agent_settings(n) or in_hook_dir(n) for n in normalized):
            return _POLICY
        if isinstance(facts, WritePathFacts) and facts.policy_path:
            return _POLICY
        if isinstance(facts, WritePathFacts) and facts.makes_git_dir:
            return _GIT_DIR
        return None


def _takes_purpose(fn: HostFilter) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


class WriteHostFilterGate(HostFilterGate):
    """The host filter for writes: a filter taking a second argument
    (``def host_filter(relpath, purpose="read")``) is called with ``"write"``; a one-argument
    filter decides writes as it decides reads."""

    def __init__(self, host_filter: HostFilter) -> None:
        if _takes_purpose(host_filter):
            super().__init__(functools.partial(_with_purpose, host_filter))
        else:
            super().__init__(host_filter)


def _with_purpose(fn: Callable[..., bool | Awaitable[bool]], relpath: str) -> bool | Awaitable[bool]:
    return fn(relpath, "write")


def build_write_pipeline(policy: Policy, extra: Sequence[GateCheck] = ()) -> GatePipeline:
    """The write gates for ``policy`` (built once per runtime)."""
    matcher = SecretMatcher(policy.secret_patterns)
    never = NeverWritableGate((CONFIG_FILE, *policy.all_agent_files))
    gates: list[GateCheck] = [PathGate(allow_outside_root=False), never, SecretsGate(matcher)]
    if policy.host_filter is not None:
        gates.append(WriteHostFilterGate(policy.host_filter))
    gates.extend(extra)
    if not policy.allow_ignored_writes:
        gates.append(IgnoreGate(mode="block"))
    return GatePipeline(gates, matcher)


class WriteFacts:
    """The fact source of one write: ``REAL`` (resolution, never outside the root, plus the
    ``.git``-file check) and ``MATCH`` (the ignore decision and verified remedy, as reads)."""

    def __init__(self, runtime: Runtime, ctx: GateContext) -> None:
        self.runtime = runtime
        self._reads = ReadFacts(runtime, runtime.backends.thread, ctx)

    async def fetch(self, fact: Fact, pending: Sequence[PathFacts]) -> None:
        if fact is Fact.REAL:
            results = await self.runtime.backends.thread.resolve(
                self.runtime.root, [f.request for f in pending], allow_outside=False)
            for f, resolved in zip(pending, results, strict=True):
                f.resolved = resolved
                if isinstance(f, WritePathFacts) and resolved.relpath:
                    f.git_internal, f.policy_path, f.makes_git_dir = await anyio.to_thread.run_sync(
                        self._never_writable, resolved, limiter=self.runtime.limiter.get())
        elif fact is Fact.MATCH:
            await self._reads.fetch(fact, pending)

    def _never_writable(self, resolved: Resolved) -> tuple[bool, bool, bool]:
        """``(git_internal, policy_path, makes_git_dir)`` of a resolved target inside the
        root (blocking, one worker hop): inside a git directory not named ``.git``; the root
        ``pyproject.toml`` while it declares pathgate settings, a host config file, what
        steers git or what an agent CLI runs; a write that would make a git directory."""
        root, relpath = self.runtime.root, resolved.relpath
        assert relpath is not None
        policy = is_root_pyproject(relpath) and declares_pathgate(root, self.runtime._linked_secret())
        if not policy and resolved.real is not None:
            policy = steers_guard(resolved.real, self.runtime.index, guard_judge(self.runtime))
        internal = in_linked_gitdir(root, relpath)
        return internal, policy, not internal and makes_gitdir(root, relpath)
