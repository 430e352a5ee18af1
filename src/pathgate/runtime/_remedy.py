"""Verified remedies: the lines that would re-include one ignored path.

The ignore gate calls :func:`suggest_remedy` for a path the ignore rules excluded and stores
the result in ``Verdict.remedy``; renderers print it. Nothing is offered that was not
checked: every candidate is evaluated against the real rule chain with the lines appended in
memory (``IgnoreSession.match_with_extra``), and only lines that make exactly that path
readable — without re-including its siblings under an excluded directory — are returned.

Where the lines go. Later rules win, and a deeper directory's ignore files come after a
shallower one's, so lines in the root ``.pathgateignore`` cannot override a rule of
``pkg/.gitignore``. The lines go into the agent ignore file of the directory whose rule
decided (paths written relative to it, anchored with a leading ``/``); rules of
``.git/info/exclude``, the excludes file and the built-in defaults are beaten by any
per-directory file, so those go to the root's. If that does not verify, deeper directories
on the way to the path are tried, the deepest last.

What the lines are. A file matched by a rule of its own is re-included by one anchored
negation, ``!/path/to/file``. Below an excluded directory a file-level negation cannot work
(git never looks inside an excluded directory), so the directory is re-included, its
contents excluded again, and so on down to the file::

    !/build/
    /build/*
    !/build/sub/
    /build/sub/*
    !/build/sub/out.js

Names are escaped as git requires (``*``, ``?``, ``[`` and ``\\`` get a backslash; trailing
spaces are backslash-quoted). A name holding a line break cannot be written in an ignore file,
so it gets no remedy. Fail-closed decisions get none either: no rule matched, so no line can
help. Nor does a path whose rule chain holds more than :data:`MAX_REMEDY_RULES` rules, nor
one deeper than :data:`MAX_REMEDY_DEPTH` components: each candidate is verified by compiling
the chain again with its lines, down the whole path, and a repository's huge ignore file or
an agent's deep path must not make a blocked call cost seconds of CPU (at most
:data:`MAX_REMEDY_BASES` directories are tried, with :data:`MAX_REMEDY_CHECKS`
verifications in all).

With a host filter, a remedy is shown only when the filter hides no place an ignore source of
the path's chain can be (:func:`remedy_names`, asked by the ignore gate): a remedy is
verified against every source of the chain and bounded by their rule count, so a source the
filter hides would show through the file and lines offered, or through their absence (red
team 21 M2). The places are decided from names alone -- every per-directory ignore file name
in each directory above the path, the repository-wide sources as configured -- never from
whether or what a file there holds, so the answer is the same whatever a hidden file holds
(or whether it exists); a chain with no hidden place consults only sources the model may see.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pathgate.runtime.fs import WouldBlock
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.runtime.ignore._secret_sources import source_names
from pathgate.verdicts import BUILTIN_SOURCE, Remedy, Rule

if TYPE_CHECKING:
    from pathgate.config import Policy
    from pathgate.runtime.ignore import IgnoreIndex

__all__ = ["Decider", "candidate_lines", "escape_component", "ignore_decider", "remedy_bases", "remedy_chain",
           "remedy_names", "suggest_remedy"]

#: ``(session, real relpath, is_dir, is_secret) -> (match, verified remedy or None)``.
Decider = Callable[[IgnoreSession, str, bool, bool], tuple[Match, "Remedy | None"]]


def ignore_decider(policy: Policy, purpose: str, *, on_loop: bool = False) -> Decider:
    """The ``MATCH`` fact of one real relpath: the ignore decision and, for a block that
    explains itself, its verified remedy (never for a secret nor a fail-closed decision).
    Blocking, pure of any event loop: ``read_files`` runs it in its worker threads, a
    one-shot command (``pathgate hook``) in its own thread. ``on_loop``: the read runs on
    the event loop, where a remedy search (which recompiles the rule chain of each
    candidate: seconds under a huge ignore file) must not run: it raises
    :class:`~pathgate.runtime.fs.WouldBlock` instead, and the read hops to a thread."""
    agent_files = policy.all_agent_files
    blocks = policy.ignore_mode == "block" or purpose == "write"
    want_remedy = blocks and bool(agent_files)
    agent_file = agent_files[0] if agent_files else ""

    def decide(session: IgnoreSession, relpath: str, is_dir: bool, secret: bool) -> tuple[Match, Remedy | None]:
        match = session.match(relpath, is_dir)
        remedy = None
        if want_remedy and match.ignored and not match.fail_closed and not secret:
            if on_loop:
                raise WouldBlock
            remedy = _safe_remedy(session, relpath, match, agent_file, is_dir)
        return match, remedy

    return decide


def _safe_remedy(session: IgnoreSession, relpath: str, match: Match, agent_file: str, is_dir: bool) -> Remedy | None:
    """A bug in the remedy search never fails a read: no remedy, and a warning."""
    try:
        return suggest_remedy(session, relpath, match, agent_file, is_dir=is_dir)
    except Exception:
        import logging

        logging.getLogger("pathgate").warning("pathgate: suggest_remedy failed for an ignored path", exc_info=True)
        return None

#: Rules (in every source a path's decision consults) past which no remedy is searched.
MAX_REMEDY_RULES = 10_000
#: Path components past which no remedy is searched: each candidate is verified by a new
#: session down the whole path, and below an excluded ancestor by one more per level (a
#: probe that must stay excluded), so the search grows with the cube of the depth (a
#: 100-level path below ``node_modules/`` took 6 s of CPU, 400 levels minutes).
MAX_REMEDY_DEPTH = 32
#: Directories whose agent ignore file is tried for the lines (the deciding rule's first).
MAX_REMEDY_BASES = 8
#: Verifications (a new session down the path, each) one remedy search may make: a
#: repository's lines can make every candidate fail only at its last probe.
MAX_REMEDY_CHECKS = 40

#: The name of a sibling that must stay excluded after a remedy under an excluded directory.
PROBE_NAME = ".pathgate-remedy-probe"

_SPECIAL = frozenset("*?[\\")


def escape_component(name: str) -> str:
    """One path component as a literal gitignore pattern fragment."""
    return "".join("\\" + ch if ch in _SPECIAL else ch for ch in name)


def _quote_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    return stripped + "\\ " * (len(line) - len(stripped))


def _join(parts: Sequence[str]) -> str:
    return "/".join(escape_component(p) for p in parts)


def _relative(path: str, base: str) -> str:
    return path if not base else path[len(base) + 1:]


def _is_under(path: str, base: str) -> bool:
    """Whether ``path`` lies strictly below directory ``base`` (``""`` is the root)."""
    return not base or path.startswith(base + "/")


def candidate_lines(relpath: str, base: str, ancestor: str | None = None) -> list[str]:
    """The lines to append to the agent ignore file in directory ``base`` so that
    ``relpath`` is re-included (unverified). ``ancestor``: the excluded directory above it."""
    parts = _relative(relpath, base).split("/")
    lines: list[str] = []
    if ancestor is not None:
        depth = len(_relative(ancestor, base).split("/"))
        for i in range(depth, len(parts)):
            directory = _join(parts[:i])
            lines += [f"!/{directory}/", f"/{directory}/*"]
    lines.append(_quote_trailing_spaces(f"!/{_join(parts)}"))
    return lines


def _per_directory_source(rule: Rule | None, global_sources: frozenset[str] = frozenset()) -> bool:
    """Whether ``rule`` comes from a per-directory ignore file inside the project (not the
    built-in defaults, ``.git/info/exclude`` or the excludes file: ``global_sources``, the
    session's repository-wide sources, tells a relative excludes file such as ``myrules``
    from a per-directory file)."""
    if rule is None or rule.source == BUILTIN_SOURCE or rule.source in global_sources:
        return False
    source = rule.source
    return not (source.startswith(("/", "~", ".git/", "../")) or "\\" in source
                or posixpath.isabs(source))


def _rule_dir(rule: Rule | None, global_sources: frozenset[str] = frozenset()) -> str:
    """The directory of the per-directory ignore file that holds ``rule``; ``""`` (the root)
    for the built-in defaults, ``.git/info/exclude`` and the excludes file."""
    if rule is None or not _per_directory_source(rule, global_sources):
        return ""
    return posixpath.dirname(rule.source)


def remedy_bases(relpath: str, match: Match, global_sources: frozenset[str] = frozenset()) -> list[str]:
    """The directories whose agent ignore file could hold the lines, in the order tried:
    the deciding rule's directory, then each deeper one on the way to the path (above the
    excluded ancestor, when there is one). ``global_sources``: see :func:`_per_directory_source`."""
    limit = match.ancestor if match.ancestor is not None else relpath
    parents = limit.split("/")[:-1]
    dirs = [""] + ["/".join(parents[: i + 1]) for i in range(len(parents))]
    start = _rule_dir(match.rule, global_sources)
    if start not in dirs:
        start = ""
    return dirs[dirs.index(start):]


def _remedy_file(base: str, rule: Rule | None, agent_file: str,
                 global_sources: frozenset[str] = frozenset()) -> str:
    """The file to append to in ``base``: the agent file, unless the deciding rule itself sits
    in another agent file of that directory (read after ``agent_file``, it would win)."""
    if (rule is not None and _per_directory_source(rule, global_sources) and _rule_dir(rule) == base
            and posixpath.basename(rule.source) != ".gitignore"):
        return rule.source
    return posixpath.join(base, agent_file) if base else agent_file


def _verified(session: IgnoreSession, relpath: str, base: str, lines: list[str],
              ancestor: str | None, is_dir: bool | None, budget: list[int]) -> bool:
    """Do ``lines`` in ``base``'s agent ignore file re-include exactly ``relpath``? Each
    check spends one of ``budget[0]``; none left: no (the search ends)."""
    extra = {base: lines}
    parts = relpath.split("/")
    first = len(ancestor.split("/")) if ancestor is not None else len(parts)
    budget[0] -= 1 + len(parts) - first
    if budget[0] < 0:
        return False
    after = session.match_with_extra(relpath, extra, is_dir)
    if after.ignored or after.fail_closed:
        return False
    # Every directory re-included on the way down must still exclude the rest of its contents.
    for i in range(first, len(parts)):
        probe = "/".join([*parts[:i], PROBE_NAME])
        if not session.match_with_extra(probe, extra, False).ignored:
            return False
    return True


def suggest_remedy(
    session: IgnoreSession,
    relpath: str,
    match: Match,
    agent_file: str = ".pathgateignore",
    *,
    is_dir: bool | None = None,
) -> Remedy | None:
    """Verified lines that would re-include ``relpath``, or ``None``.

    ``match`` is the decision that excluded it (from ``session``). ``agent_file`` is the
    agent ignore file name to suggest (the policy's first, ``.pathgateignore`` by default).
    Returns ``None`` when the path is not ignored, the decision was fail-closed, a name cannot
    be written in an ignore file, or no candidate verifies.
    """
    if not match.ignored or match.fail_closed or not relpath:
        return None
    if any(ch in relpath for ch in "\n\r\0") or relpath.count("/") >= MAX_REMEDY_DEPTH:
        return None
    ancestor = match.ancestor
    if ancestor is not None and not _is_under(relpath, ancestor):
        return None
    # (a duck-typed session without it, such as a git-backed test double, has none)
    global_sources: frozenset[str] = getattr(session, "global_sources", frozenset())
    infos = getattr(session, "source_infos", None)
    if infos is not None and sum(s.rules for s in infos(relpath)) > MAX_REMEDY_RULES:
        return None
    budget = [MAX_REMEDY_CHECKS]
    for base in remedy_bases(relpath, match, global_sources)[:MAX_REMEDY_BASES]:
        lines = candidate_lines(relpath, base, ancestor)
        if _verified(session, relpath, base, lines, ancestor, is_dir, budget):
            return Remedy(file=_remedy_file(base, match.rule, agent_file, global_sources), lines=tuple(lines),
                          ancestor=ancestor)
    return None


def remedy_chain(index: IgnoreIndex, relpath: str) -> tuple[str, ...] | None:
    """The labels of every place an ignore source of ``relpath``'s rule chain can be: the
    repository-wide sources as configured (``core.excludesFile``, ``.git/info/exclude``),
    each ``.gitignore`` above the root looked at, and every per-directory ignore file name
    (``.gitignore``, the agent files) in the root and in each directory above ``relpath``,
    present or not. :func:`suggest_remedy` consults no other source (it decides ``relpath``
    and probes names in those directories, and counts the rules of the same chain). ``None``:
    the repository-wide sources are not loaded (unknown). No I/O."""
    g = index._globals
    if g is None:
        return None
    return (*g.names, *(path for path, _ in g.upper), *_per_directory(index._names(), relpath))


def _per_directory(names: Sequence[str], relpath: str) -> list[str]:
    """Each of ``names`` in the root and in each directory above ``relpath``, shallowest first."""
    out = list(names)
    parts = relpath.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        base = "/".join(parts[:i])
        out += [f"{base}/{name}" for name in names]
    return out


def remedy_names(index: IgnoreIndex, relpath: str, outside: bool = False) -> list[str] | None:
    """What the host filter is asked about before a remedy for ``relpath`` is shown: each
    spelling of each place of :func:`remedy_chain`, distinct (``outside``:
    ``allow_outside_root``, as :func:`~pathgate.runtime.ignore._secret_sources.source_names`
    takes it). A per-directory place is its own spelling (``source_names`` of a plain name
    below a real relpath), so only the repository-wide ones are looked up. ``None``: unknown
    (the remedy is dropped). No I/O."""
    g = index._globals
    if g is None:
        return None
    names = index._names()
    out = [name for label in (*g.names, *(path for path, _ in g.upper))
           for name in source_names(index, label, outside)]
    if all(name and "/" not in name and name not in (".", "..") for name in names):
        out += _per_directory(names, relpath)
    else:  # (a policy takes plain names only; any other is spelled as the gate spells it)
        out += [spelled for label in _per_directory(names, relpath)
                for spelled in source_names(index, label, outside)]
    return list(dict.fromkeys(out))
