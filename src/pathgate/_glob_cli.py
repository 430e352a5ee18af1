"""``pathgate glob`` without an event loop: the glob tool's steps, run in the calling thread.

The ``glob`` tool (:mod:`pathgate.runtime.tools.glob` with the per-call ``Discovery`` of
:mod:`pathgate.runtime.tools._discover`) hops to anyio worker threads at every step, so that
a runtime serving many agents keeps its event loop free. A one-shot command gains nothing
from those hops and pays for asyncio, anyio, the tool registry and an event loop — more than
the whole command costs on a small project. :func:`glob_now` takes the same steps, in the
same order and with the same engine functions, on a bare
:class:`~pathgate.runtime._gating.GateCore`:

* the pattern compiled by ``compile_glob``; the start directory judged by the path-only
  gates through the same pipeline (``InlineFacts``: the same resolution and ignore decision
  ``read_files`` fetches in worker threads), a secret's hard link as opaque as the secret;
* the pruning :class:`~pathgate.runtime._walk.Walker`, stepped ``CHUNK`` entries at a time,
  with the secret-inode registry asked about multi-linked files, the walk budget charged as
  if secrets did not exist, unlistable directories kept as "not searched";
* each candidate judged by the built-in path-only gates (path, secrets, ignore) as the tool
  judges them inline, a symlink resolved and judged by its target through the pipeline;
* matches inside excluded directories counted within the same budget, listed from held
  parent descriptors (``DirChain``), secrets and their hard links neither listed nor counted.

It covers the configuration where every one of those steps is synchronous: the built-in
gates only (no host gate or filter) and no live index. Anything else — and any error, whose
wording is the tool chain's to give — raises :class:`NeedsEventLoop`: the command then runs
the tool on a :class:`~pathgate.Runtime` (``pathgate.cli._cmd_glob``). Both routes' outputs
are compared byte for byte by ``tests/test_glob_cli.py`` (secrets, hard links, ignored and
unreadable directories, symlinks, non-UTF-8 names, budgets).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pathgate._names import spell_names, unspell_path
from pathgate.results import GlobResult, Omission, Unsearched
from pathgate.runtime._gating import InlineFacts, NeedsEventLoop, run_now
from pathgate.runtime._walk import DIR, FILE, SYMLINK, Entry, Walker, list_files_below
from pathgate.runtime.gates import Fact, GateContext, GatePipeline, PathFacts, lexical_name
from pathgate.runtime.gates.path import GIT_INTERNALS, PathGate
from pathgate.runtime.tools._pattern import compile_glob
from pathgate.runtime.tools._scan import DirChain
from pathgate.verdicts import Gate, Status, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["glob_now", "render_glob_now"]

# The tool's constants (pathgate.runtime.tools._discover; a test checks they are equal).
#: Entries one call may walk before it stops.
WALK_BUDGET = 400_000
#: Entries one call may visit inside excluded directories to count omitted matches.
COUNT_BUDGET = 20_000
#: Entries per walk step.
CHUNK = 1024
#: Excluded directories named per result ("not searched" notes).
MAX_UNSEARCHED = 10
#: Examples per omission note.
MAX_EXAMPLES = 3

_INLINE_GATES = frozenset({"path", "secrets", "ignore"})
_SECRET = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)
_OPAQUE_IGNORE = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, opaque=True)
_GIT = Verdict(status=Status.BLOCKED, gate=Gate.PATH, detail=GIT_INTERNALS)


def render_glob_now(core: GateCore, pattern: str, path: str, limit: int, *, model: str | None,
                    renderer: str | None) -> Any:
    """What ``rt.call("glob", {"pattern", "path", "limit"}, model=, renderer=)`` returns on a
    runtime built like ``core`` — model spellings in, the renderer's output out — without
    an event loop; :class:`NeedsEventLoop` when only the tool chain can answer."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise NeedsEventLoop("an argument the tool chain validates")
    try:
        chosen = core.renderer_for(model, renderer)
        result = glob_now(core, unspell_path(pattern), unspell_path(path), limit, model=model)
    except NeedsEventLoop:
        raise
    except Exception as exc:
        # the tool chain words errors (argument errors name the field, others are generic
        # and logged): the same call on a Runtime gives the exact answer (glob only reads)
        raise NeedsEventLoop(f"an error the tool chain reports: {type(exc).__name__}") from exc
    from pathgate.renderers._discovery import render_discovery

    return render_discovery(chosen, spell_names(result))


def glob_now(core: GateCore, pattern: str, path: str, limit: int, *, model: str | None = None) -> GlobResult:
    """:func:`pathgate.runtime.tools.glob.glob` on ``core``, in the calling thread (``limit``
    ``0``: no limit). :class:`NeedsEventLoop` when the configuration needs the tool's
    asynchronous steps (host gates, a live index)."""
    d = _Discovery(core, model=model)
    pat = compile_glob(pattern)
    cap = limit or None
    start, verdict = d.start_dir(path)
    if verdict is not None:
        return GlobResult(pattern=pattern, path=path, matches=(), verdict=verdict, limit=cap)
    cut = len(start) + 1 if start else 0

    def descend(rel: str) -> bool:
        return pat.could_match_below(rel[cut:])

    def want(rel: str) -> bool:
        return pat.match(rel[cut:])

    prunes = pat.prunes
    chunks = d.walk(start, descend if prunes else None, want)
    if d.start_error is not None:
        return GlobResult(pattern=pattern, path=path, matches=(), verdict=d.start_error, limit=cap)
    excluded_dirs: list[Entry] = []
    candidates: list[Entry] = []
    for chunk in chunks:
        for e in chunk:
            if e.kind == DIR:
                if e.match is not None and (not prunes or pat.could_match_below(e.relpath[cut:])):
                    excluded_dirs.append(e)
                continue
            candidates.append(e)
    matches: list[str] = []
    for e, v in zip(candidates, d.judge(candidates), strict=True):
        if v is None:
            matches.append(e.relpath)
        else:
            d.omissions.add(v, e.relpath)
    unsearched = d.count_excluded(excluded_dirs, lambda rel: pat.match(rel[cut:]))
    matches.sort()
    return GlobResult(
        pattern=pattern,
        path=path,
        matches=tuple(matches[:cap] if cap is not None else matches),
        total=len(matches),
        truncated=cap is not None and len(matches) > cap,
        limit=cap,
        omitted=d.omissions.freeze(),
        unsearched=tuple(unsearched),
        walk_stopped_early=d.stopped_early,
    )


class _Omissions:
    """Per-gate omission counts of one call (the tool's ``Omissions``)."""

    def __init__(self) -> None:
        self.counts: dict[tuple[Gate, bool], int] = {}
        self.examples: dict[tuple[Gate, bool], list[str]] = {}
        self.lower_bound: set[Gate] = set()

    def add(self, verdict: Verdict, relpath: str) -> None:
        if verdict.opaque:
            return
        key = (verdict.gate, verdict.fail_closed)
        self.counts[key] = self.counts.get(key, 0) + 1
        ex = self.examples.setdefault(key, [])
        if len(ex) < MAX_EXAMPLES:
            ex.append(relpath)

    def freeze(self) -> tuple[Omission, ...]:
        order = list(Gate)
        return tuple(
            Omission(gate=g, count=n, examples=tuple(sorted(self.examples.get((g, fc), ()))),
                     lower_bound=g in self.lower_bound, fail_closed=fc)
            for (g, fc), n in sorted(self.counts.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1]))
            if n > 0
        )


class _Links:
    """Is a multi-linked regular file (its ``lstat``) a secret's hard link? The secret-inode
    registry is asked once, on the first multi-linked file met; strict mode: every one is.
    :meth:`entry` notes a walked alias in ``aliases`` (the tool's ``_LinkCheck``)."""

    def __init__(self, core: GateCore, aliases: set[str]) -> None:
        self.core = core
        self.aliases = aliases
        self._check: Callable[[os.stat_result], bool] | None = None

    def __call__(self, st: os.stat_result) -> bool:
        return self._checker()(st)

    def armed(self) -> bool:
        return self._checker() is not _never

    def _checker(self) -> Callable[[os.stat_result], bool]:
        if self._check is None:
            pipeline = self.core.pipeline
            if pipeline.strict_hard_links:
                self._check = _always
            else:
                reg = pipeline.secret_inodes(self.core.root)
                self._check = (None if reg is None else reg.checker()) or _never
        return self._check

    def entry(self, e: Entry) -> bool:
        if e.links is None or not self(e.links):
            return False
        self.aliases.add(e.relpath)
        return True


class _Discovery:
    """One loop-free glob call: the tool's ``Discovery`` for the built-in path-only gates."""

    def __init__(self, core: GateCore, *, model: str | None) -> None:
        if core.policy.live_index:
            raise NeedsEventLoop("a live index answers discovery on a Runtime")
        self.core = core
        self.pipeline = GatePipeline([g for g in core.pipeline.gates if Fact.OPEN not in g.needs],
                                     core.pipeline.secrets)
        if not {g.name for g in self.pipeline.gates} <= _INLINE_GATES:
            raise NeedsEventLoop("host gates are judged on a Runtime")
        self.enforce = any(g.name == "secrets" for g in self.pipeline.gates)
        policy = core.policy
        self.ctx = GateContext(policy=policy, purpose="discover", model=model,
                               size_limit=policy.size_limit_for(model), root=core.root)
        self.read_ctx = GateContext(policy=policy, purpose="read", model=model,
                                    size_limit=self.ctx.size_limit, root=core.root)
        self.source = InlineFacts(core, self.read_ctx)
        self.session = core.index.session()
        self.omissions = _Omissions()
        self.walked = 0
        self.stopped_early = False
        self.start_error: Verdict | None = None
        self.unlisted: list[Entry] = []
        self.count_left = COUNT_BUDGET
        path_gate = self.pipeline.gates[0]
        self.is_git = path_gate.is_git_path if isinstance(path_gate, PathGate) else None
        self.secret_name = _memo(self.pipeline.secrets.in_dir)  # by name only
        self.aliases: set[str] = set()

    def is_secret(self, rel: str) -> bool:
        """A secret by name, or a hard link of one met by this walk."""
        return rel in self.aliases or self.secret_name(rel)

    # -- the start directory ---------------------------------------------------------------

    def start_dir(self, path: str) -> tuple[str, Verdict | None]:
        facts = PathFacts(request=path, name=lexical_name(path, self.core.root))
        (verdict,) = run_now(self.pipeline.run([facts], self.read_ctx, self.source))
        if verdict is not None:
            return "", verdict
        resolved = facts.resolved
        if resolved is None or resolved.relpath is None:
            error = None if resolved is None else resolved.error
            return "", Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE,
                               detail=errno.errorcode.get(error or 0))
        if not resolved.is_dir:
            st = resolved.st
            if st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode) and _Links(self.core, self.aliases)(st):
                return "", _SECRET
            if st is not None:
                return "", Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True,
                                   detail="not a directory")
            return "", Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE)
        return resolved.relpath, None

    # -- the walk --------------------------------------------------------------------------

    def plan_marks(self) -> tuple[_Links | None, bool]:
        """How this walk finds secrets' hard-link aliases (the tool's ``_plan_marks``)."""
        pipeline = self.core.pipeline
        if pipeline.strict_hard_links:
            return _Links(self.core, self.aliases), True
        reg = pipeline.secret_inodes(self.core.root)
        if reg is None:
            return None, False
        dirs, files = reg.dirs, reg.walk_files
        if dirs is not None and files is not None and dirs * 3 <= files:
            check = _Links(self.core, self.aliases)
            return (check, True) if check.armed() else (None, False)
        return _Links(self.core, self.aliases), True

    def walk(self, start: str, descend: Callable[[str], bool] | None,
             want: Callable[[str], bool] | None) -> list[list[Entry]]:
        chunks: list[list[Entry]] = []
        check, mark = self.plan_marks()
        walker = Walker(self.session, start, descend=descend, want=want, links=mark)
        try:
            while True:
                try:
                    chunk = walker.step(CHUNK)
                except OSError as exc:
                    self.start_error = _listing_verdict(exc)
                    break
                if not chunk:
                    break
                if check is not None:
                    for e in chunk:
                        check.entry(e)
                chunks.append(self.admit(chunk))
                if self.stopped_early:
                    break
        finally:
            walker.close()
        reg = self.core.pipeline.secret_inodes(self.core.root)
        if reg is not None:
            reg.walk_files = sum(1 for c in chunks for e in c if e.kind == FILE)
        return chunks

    def admit(self, chunk: list[Entry]) -> list[Entry]:
        """The walked entries the budget admits; error entries go to :attr:`unlisted`."""
        kept: list[Entry] = []
        for e in chunk:
            if e.error is not None:
                self.unlisted.append(e)
                continue
            if self.is_secret(e.relpath):
                kept.append(e)  # dropped by the gates; never counted
                continue
            if self.walked >= WALK_BUDGET:
                self.stopped_early = True
                break
            self.walked += 1
            kept.append(e)
        return kept

    # -- judging ---------------------------------------------------------------------------

    def judge(self, entries: Sequence[Entry]) -> list[Verdict | None]:
        """The path-only gates for walked entries; a symlink is judged by its target."""
        out: list[Verdict | None] = [None] * len(entries)
        links: list[int] = []
        is_secret, is_git = self.is_secret, self.is_git
        for i, e in enumerate(entries):
            if e.kind == SYMLINK:
                links.append(i)
                continue
            m = e.match
            if is_git is not None and is_git(e.relpath) and not is_secret(e.relpath):
                out[i] = _GIT
            elif m is None:
                if self.enforce and is_secret(e.relpath):
                    out[i] = _SECRET
            elif is_secret(e.relpath):
                out[i] = _SECRET if self.enforce else _OPAQUE_IGNORE
            else:
                out[i] = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=m.rule, ancestor=m.ancestor,
                                 fail_closed=m.fail_closed, unreadable=m.unreadable)
        if links:
            facts = [PathFacts(request=entries[i].relpath, name=entries[i].relpath) for i in links]
            verdicts = run_now(self.pipeline.run(facts, self.ctx, self.source))
            for i, f, v in zip(links, facts, verdicts, strict=True):
                own = entries[i].match
                if v is None and own is not None:
                    v = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=own.rule, ancestor=own.ancestor)
                    if self.pipeline.secrets.is_secret_facts(f):
                        v = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, opaque=True)
                out[i] = v
        return out

    # -- excluded and unlisted directories ---------------------------------------------------

    def count_excluded(self, dirs: Sequence[Entry], wanted: Callable[[str], bool]) -> list[Unsearched]:
        """The excluded directories that could hold matches (named), the matches inside them
        (counted within the budget), then the directories the walk could not enter."""
        unlisted = self.unsearched_unlisted()
        return (self._count_excluded(dirs, wanted) + unlisted)[:MAX_UNSEARCHED]

    def unsearched_unlisted(self) -> list[Unsearched]:
        if not self.unlisted:
            return []
        seen: dict[str, Entry] = {}
        for e in self.unlisted:
            seen.setdefault(e.relpath, e)
        dirs = [Entry(rel, DIR) for rel in seen]
        return [Unsearched(path=d.relpath, error=seen[d.relpath].error)
                for d, v in zip(dirs, self.judge(dirs), strict=True) if v is None][:MAX_UNSEARCHED]

    def _count_excluded(self, dirs: Sequence[Entry], wanted: Callable[[str], bool]) -> list[Unsearched]:
        if not dirs:
            return []
        visible = [d for d, v in zip(dirs, self.judge(dirs), strict=True) if v is None or not v.opaque]
        unsearched = [
            Unsearched(path=d.relpath, rule=d.match.rule if d.match else None,
                       fail_closed=bool(d.match and d.match.fail_closed))
            for d in visible[:MAX_UNSEARCHED]
        ]
        if not visible:
            return unsearched
        candidates: list[Entry] = []
        for d, (files, short) in zip(visible, self._list_all([d.relpath for d in visible]), strict=True):
            if short:
                self.omissions.lower_bound.add(Gate.IGNORE)
            candidates.extend(Entry(rel, kind, d.match) for rel, kind in files if wanted(rel))
        for e, v in zip(candidates, self.judge(candidates), strict=True):
            if v is not None:
                self.omissions.add(v, e.relpath)
        return unsearched

    def _list_all(self, excluded_dirs: Sequence[str]) -> list[tuple[list[tuple[str, str]], bool]]:
        """The files below each excluded directory, sharing the count budget; each opened
        from its parent's held descriptor."""
        out: list[tuple[list[tuple[str, str]], bool]] = []
        check, mark = self.plan_marks()
        linked = check if mark else None
        fs, root = self.core.index.fs, self.core.root
        parents = DirChain(fs, root)

        def opener(rel: str) -> int:
            parent, _, name = rel.rpartition("/")
            return fs.open_dir(name, dir_fd=parents.enter(parent))

        try:
            for rel in excluded_dirs:
                if self.count_left <= 0:
                    out.append(([], True))
                    continue
                files, seen, short = list_files_below(fs, root, rel, self.count_left, opaque=self.secret_name,
                                                      linked=linked, opener=opener)
                self.count_left = 0 if short else self.count_left - seen
                out.append((files, short))
        finally:
            parents.close()
        return out


def _listing_verdict(exc: OSError) -> Verdict:
    """The verdict for a start directory that passed the gates but cannot be listed."""
    name = errno.errorcode.get(exc.errno or 0, "EIO")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE, detail=name)
    return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail=name)


def _always(st: os.stat_result) -> bool:
    return True


def _never(st: os.stat_result) -> bool:
    return False


def _memo(in_dir: Callable[[str], Callable[[str], bool]]) -> Callable[[str], bool]:
    """A secret test of relpaths for one call, each decided once, a directory's part once per
    run of its entries (the tool's ``_memo``)."""
    seen: dict[str, bool] = {}
    cur: list[tuple[str, Callable[[str], bool]]] = [("\0", in_dir(""))]

    def memo(rel: str) -> bool:
        hit = seen.get(rel)
        if hit is None:
            head, _, name = rel.rpartition("/")
            last = cur[0]
            if last[0] != head:
                last = cur[0] = (head, in_dir(head))
            hit = seen[rel] = last[1](name)
        return hit

    return memo
