"""``pathgate explain``: why an agent can or cannot read a path — for a person, not a model.

A person may see what the model never does: that a path is a secret and which rule made
it one, and every ignore source consulted. The decision itself is the runtime's own (every
gate ``read_files`` runs, through :meth:`GateCore.read_verdicts
<pathgate.runtime._gating.GateCore.read_verdicts>`), so ``explain`` can never disagree with
what an agent gets; the ignore details come from the engine's :meth:`IgnoreSession.explain`.
``pathgate explain`` runs it without an event loop (a bare ``GateCore`` driven by
:func:`~pathgate.runtime._gating.run_now`); a :class:`~pathgate.Runtime` awaits it.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

import msgspec

from pathgate._names import spell_names, unspell_path
from pathgate.runtime.gates import lexical_name
from pathgate.runtime.gates.path import GIT_INTERNALS
from pathgate.runtime.gates.secrets import BACKUP_LAYERS, backup_of, is_env_name, normalize_name
from pathgate.runtime.ignore import SourceInfo
from pathgate.verdicts import Gate, Remedy, Rule, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["PathExplanation", "explain_paths", "format_explanation"]


class PathExplanation(msgspec.Struct, frozen=True, kw_only=True):
    """One path, explained. ``allowed``: an agent's ``read_files`` returns its content."""

    path: str
    allowed: bool
    status: str
    gate: str | None = None
    relpath: str | None = None
    secret_rule: str | None = None
    rule: Rule | None = None
    ancestor: str | None = None
    fail_closed: bool = False
    unreadable: str | None = None
    exists: bool | None = None
    sources: tuple[SourceInfo, ...] = ()
    matching: tuple[Rule, ...] = ()
    remedy: Remedy | None = None
    detail: str | None = None


def _secret_rule(runtime: GateCore, relpath: str) -> str | None:
    """Why ``relpath`` is a secret: its name's rule, or the secret an editor's backup of it
    keeps a copy of, layer by layer (``#.env#~``). As the gate, at most
    :data:`~pathgate.runtime.gates.secrets.BACKUP_LAYERS` layers are peeled, in a loop (red
    team 20 L14: a name of 1,500 ``#`` pairs overflowed the recursion this was); past them the
    name is a secret, failing closed."""
    head = relpath.rpartition("/")[0]
    originals: list[str] = []  # the names peeled, outermost first
    path = relpath
    for _ in range(BACKUP_LAYERS + 1):
        rule = _own_rule(runtime, path)
        if rule is not None:
            break
        original = backup_of(normalize_name(path.rsplit("/", 1)[-1]))
        if original is None:
            return None
        originals.append(original)
        path = f"{head}/{original}" if head else original
    else:
        rule = f"more than {BACKUP_LAYERS} layers of editors' backups: judged a secret (fail closed)"
    for original in reversed(originals):
        rule = f"an editor's backup or swap file of a secret (`{original}`: {rule})"
    return rule


def _own_rule(runtime: GateCore, relpath: str) -> str | None:
    """The rule that makes ``relpath``'s own name a secret (no backups followed)."""
    name = normalize_name(relpath.rsplit("/", 1)[-1])
    if is_env_name(name):
        return "`.env`, `.env.*`, `.env-*` and `.env_*` files are secrets (any case, NTFS variants; templates excepted)"
    for pattern in runtime.policy.secret_patterns:
        p = pattern.casefold().strip("/")
        target = relpath.casefold() if "/" in p else name
        if fnmatch.fnmatchcase(target, p) or ("/" in p and fnmatch.fnmatchcase(target, "*/" + p)):
            return f"secret pattern `{pattern}` (policy.secret_patterns)"
    return None


async def explain_paths(runtime: GateCore, paths: list[str]) -> list[PathExplanation]:
    """Explain each path: the runtime's decision plus the details a person needs."""
    results = await runtime.read_verdicts([unspell_path(p) for p in paths])
    out: list[PathExplanation] = []
    session = runtime.index.session()
    for res in results:
        verdict: Verdict | None = res.verdict
        relpath = res.relpath
        sources: tuple[SourceInfo, ...] = ()
        matching: tuple[Rule, ...] = ()
        git = verdict is not None and verdict.gate is Gate.PATH and verdict.detail == GIT_INTERNALS
        if relpath is not None and relpath not in ("", ".") and not git:
            exp = session.explain(relpath)
            sources, matching = exp.sources, exp.matching
        if verdict is None:
            out.append(PathExplanation(path=res.path, allowed=True, status="readable", relpath=relpath,
                                       sources=sources, matching=matching))
            continue
        secret = None
        if verdict.opaque:
            name = relpath or lexical_name(res.path, runtime.root)
            secret = _secret_rule(runtime, name) if name else None
        out.append(PathExplanation(
            path=res.path,
            allowed=False,
            status=verdict.status.value,
            gate=verdict.gate.value,
            relpath=relpath,
            secret_rule=secret,
            rule=verdict.rule,
            ancestor=verdict.ancestor,
            fail_closed=verdict.fail_closed,
            unreadable=verdict.unreadable,
            exists=verdict.exists,
            sources=sources,
            matching=matching,
            remedy=verdict.remedy,
            detail=verdict.detail,
        ))
    return [spell_names(e) for e in out]  # names as a model would see them (JSON-safe)


def _rule(rule: Rule) -> str:
    if rule.is_builtin:
        return f"built-in default `{rule.pattern}`"
    return rule.location()


def format_explanation(e: PathExplanation, *, color: bool = False) -> str:
    """Plain text for a terminal."""

    def bold(s: str) -> str:
        return f"\x1b[1m{s}\x1b[0m" if color else s

    lines = [bold(e.path)]
    if e.relpath is not None and e.relpath != e.path:
        lines.append(f"  real path: {e.relpath}")
    if e.allowed:
        lines.append("  readable: every gate lets it through")
    else:
        lines.append(f"  blocked: {e.status} by the `{e.gate}` gate")
    if e.gate == "secrets" or e.secret_rule:
        lines.append(f"  secret: {e.secret_rule or 'matched the secret rules'}")
        lines.append("  the model only ever sees a bare [BLOCKED] for it, whatever the renderer")
    if e.gate == "host_filter":
        lines.append("  the host's filter refused it; the model only sees a bare [BLOCKED]")
    if e.gate == "path" and e.detail == GIT_INTERNALS:
        lines.append("  git internals: paths inside .git/ (any case) or the git directory a .git file "
                     "points to are never served to an agent, whatever the ignore rules or the ignore "
                     "mode say; there is no unblock (.pathgateignore cannot re-include them)")
        return "\n".join(lines)
    if e.fail_closed:
        lines.append(f"  fail-closed: the ignore file {e.unreadable} could not be read")
    if e.ancestor is not None and e.rule is not None:
        lines.append(f"  excluded directory: {e.ancestor}/ by {_rule(e.rule)}")
        lines.append("  (git cannot re-include a file below an excluded directory)")
    elif e.rule is not None and e.gate == "ignore":
        lines.append(f"  decided by: {_rule(e.rule)}")
    if e.exists is True:
        lines.append("  exists on disk: yes")
    if e.sources:
        lines.append("  ignore sources consulted (lowest precedence first):")
        for s in e.sources:
            extra = f", {s.rules} rules" if s.state == "read" else (f" ({s.error})" if s.error else "")
            lines.append(f"    {s.source}: {s.state}{extra}")
    if e.matching:
        lines.append("  rules matching the path itself (the first one wins):")
        for r in e.matching:
            lines.append(f"    {_rule(r)}")
    if e.remedy is not None:
        lines.append(f"  to unblock, add to {e.remedy.file} (verified):")
        for line in e.remedy.lines:
            lines.append(f"    {line}")
    if e.detail and e.gate not in ("secrets", "host_filter"):
        lines.append(f"  detail: {e.detail}")
    return "\n".join(lines)
