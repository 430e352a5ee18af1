"""What glob, list_directory and code_search share: the start directory, the walk in worker
threads, path-only gates on walked entries, and omission accounting.

A discovery call:

1. checks its start directory like an explicit read would (path, secrets, host filter,
   ignore — the gates that need no descriptor); a blocked start directory is the result's
   ``verdict``, never an exception;
2. walks below it with the pruning walker in chunks, one worker-thread hop per chunk, so
   cancellation is prompt and no thread job outlives the call;
3. runs the walked candidates through the path-only gates (``GatePipeline.check_entries``);
   symlinked entries are resolved first, so a link to a secret or out of the project is
   judged by its target;
4. accounts for what it left out: an opaque verdict drops the entry silently (never listed,
   never counted); a non-opaque one adds to :class:`Omissions` for its gate, with up to three
   examples. Matches inside excluded directories the walk did not enter are counted within
   an entry budget (and marked as a lower bound when the budget runs out).

Every blocking step goes through the core that drives the call (``runtime.run_blocking``,
``runtime.wait_in_step``, ``runtime._discovery_facts``): a :class:`~pathgate.Runtime` runs
each in a worker thread (one hop each, under its limiter), a bare
:class:`~pathgate.runtime._gating.GateCore` in the calling thread, where the coroutines never
suspend and :func:`~pathgate.runtime._gating.run_now` drives them (``pathgate glob``: one
code path, no event loop). This module imports neither anyio nor the tools.

Budgets (the walk budget, the count budget) are charged as if opaque paths did not exist:
secrets are recognised by name in the walk's thread; with gates beyond the built-in ones (a
host filter, host gates) each walked chunk is judged on the event loop *before* it is
charged (the verdicts are kept for the tools), and the count inside excluded directories
asks the host filter from the worker thread (a sync filter directly, an async one on the
event loop through ``anyio.from_thread``), skipping a filtered directory whole.
"""

from __future__ import annotations

import errno
import stat
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from pathgate.results import Unsearched
from pathgate.runtime._links import secret_memo
from pathgate.runtime._walk import DIR, FILE, SYMLINK, Entry, Walker
from pathgate.runtime.gates import Fact, GateContext, GatePipeline, HostFilterGate, IgnoreGate, PathFacts, lexical_name
from pathgate.runtime.gates.path import GIT_INTERNALS, PathGate
from pathgate.runtime.ignore import IgnoreSession, Match
from pathgate.runtime.tools._excluded import MAX_UNSEARCHED, count_in_excluded
from pathgate.runtime.tools._hidden import negated_matches, to_rematch, unless_hidden
from pathgate.runtime.tools._judge_batch import admit_whole, git_batchable, to_judge
from pathgate.runtime.tools._link_check import LinkCheck, Restat, stat_budget
from pathgate.runtime.tools._omissions import Omissions
from pathgate.runtime.tools._secret_walk import _ONE_CALL, _by_dir, _each, _memo, _pretested
from pathgate.verdicts import Gate, Status, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.runtime._live._records import Select
    from pathgate.runtime.tools._pattern import GlobPattern

__all__ = [
    "COUNT_BUDGET",
    "WALK_BUDGET",
    "Discovery",
    "Omissions",
    "discovery_pipeline",
]

#: Entries one call may walk before it stops (bounded work per call: one agent's huge glob
#: must not starve the others). The result says when it stopped early.
WALK_BUDGET = 400_000
#: Entries one call may visit inside excluded directories to count omitted matches.
COUNT_BUDGET = 20_000
#: Entries handed over per worker-thread hop.
CHUNK = 1024
#: Largest batch of walked entries judged inline on the event loop; larger ones take a hop.
INLINE_ON_LOOP = 512


_INLINE_GATES = frozenset({"path", "secrets", "ignore"})
_SECRET = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)
_OPAQUE_IGNORE = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, opaque=True)
_GIT = Verdict(status=Status.BLOCKED, gate=Gate.PATH, detail=GIT_INTERNALS)


def _listing_verdict(exc: OSError) -> Verdict:
    """The verdict for a start directory that passed the gates but cannot be listed."""
    name = errno.errorcode.get(exc.errno or 0, "EIO")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE, detail=name)
    return Verdict(status=Status.FILE_READ_ERROR, gate=Gate.READ, detail=name)


def discovery_pipeline(pipeline: GatePipeline) -> GatePipeline:
    """The gates that need no open descriptor (path, secrets, host filter, ignore, host
    gates): what a walked entry or a start directory can be judged by."""
    return GatePipeline([g for g in pipeline.gates if Fact.OPEN not in g.needs], pipeline.secrets)


class _Walked:
    """Adapter: a walked entry as the pipeline's ``WalkedEntry``. (Plain classes here, not
    dataclasses: a dataclass costs about half a millisecond to define, at every start of
    ``pathgate glob``.)"""

    __slots__ = ("is_dir", "match", "relpath")

    def __init__(self, relpath: str, is_dir: bool, match: Match | None) -> None:
        self.relpath = relpath
        self.is_dir = is_dir
        self.match = match


class Discovery:
    """The per-call helper of one discovery tool call (never shared between calls), driven
    by ``runtime``: a :class:`~pathgate.Runtime` (worker threads) or a bare ``GateCore``
    (the calling thread)."""

    def __init__(self, runtime: GateCore, *, model: str | None = None) -> None:
        self.runtime = runtime
        self.pipeline = discovery_pipeline(runtime.pipeline)
        # Only the built-in path-only gates: walked plain entries can be judged inline
        # (same verdicts as GatePipeline.check_entries, without its per-entry machinery).
        self._inline = {g.name for g in self.pipeline.gates} <= _INLINE_GATES
        self._enforce = any(g.name == "secrets" for g in self.pipeline.gates)
        policy = runtime.policy
        self.ctx = GateContext(policy=policy, purpose="discover", model=model,
                               size_limit=policy.size_limit_for(model), root=runtime.root)
        self.read_ctx = GateContext(policy=policy, purpose="read", model=model,
                                    size_limit=self.ctx.size_limit, root=runtime.root)
        #: the core makes this one call and ends (``pathgate glob``/``search``: :func:`one_call`)
        self._one_call = runtime.live_index is None and runtime in _ONE_CALL
        # a one-call core's session keeps its nodes to itself (nothing is shared later)
        self.session: IgnoreSession = IgnoreSession(runtime.index, private=True) if self._one_call \
            else runtime.index.session()
        self.omissions = Omissions()
        self.walked = 0
        self.stopped_early = False
        self.start_error: Verdict | None = None
        #: error entries of directories the walk could not enter (see :meth:`unsearched_unlisted`)
        self.unlisted: list[Entry] = []
        self.count_left = COUNT_BUDGET
        #: verdicts of walked entries judged before charging the walk budget (relpath keyed)
        self._verdicts: dict[str, Verdict | None] = {}
        self._host = next((g for g in self.pipeline.gates if isinstance(g, HostFilterGate)), None)
        self._source = runtime._discovery_facts(self.read_ctx)
        # the path-only facts of walked entries (pure functions of the relpath); a live
        # index keeps them memoised across calls (issue 15)
        matcher = self.pipeline.secrets
        # each walked entry's secret test (by name), answered in the worker thread
        # (:meth:`_step`), so the event loop only looks them up: a big walk's secret checks
        # never block other calls (issue 19); also what shows a directory is no secret
        known: dict[str, bool] = {}
        self._secret_known = known
        self._is_secret: Callable[[str], bool] = matcher.is_secret
        path_gate = self.pipeline.gates[0]
        is_git: Callable[[str], bool] | None = path_gate.is_git_path if isinstance(path_gate, PathGate) else None
        live = runtime.live_index
        if live is not None:
            self._is_secret = live.memo("secret", self._is_secret)
            is_git = None if is_git is None else live.memo("git", is_git)
        elif self._one_call:
            # decided once per call (each walked entry is asked about at least twice:
            # charging the budget, then judging; :meth:`_step` answers them)
            self._is_secret = _memo(matcher.in_dir)
            if matcher.maybe is not None:
                self._is_secret = _pretested(matcher, self._is_secret, known)
        else:
            # decided once, kept for the matcher's lifetime (issue 14)
            decide = _memo(matcher.in_dir)
            self._is_secret = secret_memo(
                matcher, decide if matcher.maybe is None else _pretested(matcher, decide, known))
        #: how a walked chunk's secret tests are answered (:meth:`_step`): a one-call core's
        #: directory by directory with the name pre-test (nothing kept for later calls)
        self._decide: Callable[[list[Entry], dict[str, bool]], None] = partial(_each, self._is_secret)
        if self._one_call and matcher.maybe is not None:
            self._decide = partial(_by_dir, matcher, self._is_secret)
        self._is_git: Callable[[str], bool] | None = is_git
        self._secret_name = self._is_secret  # by name only (no hard-link aliases)
        #: the secret-inode registry's snapshot a live glob validated (no multi-linked secret)
        self._snapshot: object | None = None
        #: a live glob's list-at-once matcher (from the root), also for excluded directories
        self._select: Select | None = None
        #: a live glob's outcome key (:attr:`GlobScan.key`): its count inside excluded
        #: directories is kept under it with the registry's snapshot
        self._count_key: object = None
        # hard-link aliases of secrets met by this walk (the secret-inode registry asked in
        # the worker thread, once per step, only about multi-linked regular files): secrets
        # too, opaque and uncounted like the secret they alias
        self._aliases: set[str] = set()
        base_secret = self._secret_name
        aliases = self._aliases

        def is_secret(rel: str) -> bool:
            if rel in aliases:
                return True
            got = known.get(rel)
            if got is None:
                got = known[rel] = base_secret(rel)
            return got

        self._is_secret = is_secret

    # -- the start directory ---------------------------------------------------------------

    async def start_dir(self, path: str) -> tuple[str, Verdict | None]:
        """Resolve the start directory like an explicit read; ``(relpath, verdict)``."""
        facts = PathFacts(request=path, name=lexical_name(path, self.runtime.root))
        (verdict,) = await self.pipeline.run([facts], self.read_ctx, self._source)
        if verdict is not None:
            return "", verdict
        resolved = facts.resolved
        if resolved is None or resolved.relpath is None:
            # passed the path gate without a project-relative real path: a spelling that
            # cannot name anything (too long, unencodable)
            error = None if resolved is None else resolved.error
            return "", Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE,
                               detail=errno.errorcode.get(error or 0))
        if not resolved.is_dir:
            st = resolved.st
            if st is not None and st.st_nlink > 1 and stat.S_ISREG(st.st_mode) and await self.runtime.run_blocking(
                    partial(self._linked_check(), st)):
                return "", _SECRET  # a secret's hard link: as opaque as the secret
            if st is not None:
                return "", Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True,
                                   detail="not a directory")
            return "", Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE)
        return resolved.relpath, None

    # -- the walk --------------------------------------------------------------------------

    async def walk(self, start: str, descend: Callable[[str], bool] | None = None,
                   want: Callable[[str], bool] | None = None, *, kept_links: bool = True) -> list[list[Entry]]:
        """Walk below ``start`` in worker-thread steps; return the chunks (bounded).

        The walk is a :class:`Walker` advanced by one step per hop; the thread that runs a
        step owns it until the step returns, and closing it (here, also on cancellation)
        never touches a running step: the step releases the descriptors itself. The budget
        counts entries as if secrets did not exist (their number must not show). Entries
        that report a directory that could not be entered are collected in
        :attr:`unlisted`, not returned. ``kept_links`` false: kept files are not tested for
        hard links to secrets here (the caller tests each one it opens, code_search)."""
        run = self.runtime.run_blocking
        chunks: list[list[Entry]] = []
        live = self.runtime.live_index
        if live is not None:  # the live index replays the same entries (issue 15)
            from pathgate.runtime._live import set_index_mode

            replayed = await run(partial(self._replay, start, descend, want))
            set_index_mode("fallback" if replayed is None else "live")
            if replayed is not None:
                if not self._inline:  # judge before charging: opaque entries cost nothing
                    await self._prejudge([e for e in replayed if e.error is None])
                chunks.append(self._admit(replayed))
                return chunks
        walker = Walker(self.session, start, descend=descend, want=want, kept_links=kept_links)
        check: LinkCheck | None = None
        first = True
        try:
            while True:
                try:
                    if first:  # the first step's hop also decides the walk's hard-link test
                        first = False
                        check, chunk, err = await run(partial(self._first_step, walker))
                        if err is not None:
                            raise err
                    else:
                        chunk = await run(partial(self._step, walker, check))
                except OSError as exc:
                    # only entering the start directory itself raises (deeper errors are
                    # reported on their entries): the call's answer is a verdict
                    self.start_error = _listing_verdict(exc)
                    break
                if not chunk:
                    break
                if not self._inline:  # judge before charging: opaque entries cost nothing
                    await self._prejudge([e for e in chunk if e.error is None])
                chunks.append(self._admit(chunk))
                if self.stopped_early or walker.done:  # (no hop to learn there is no more)
                    break
        finally:
            walker.close()
        reg = self.runtime.pipeline.secret_inodes(self.runtime.root)
        if reg is not None:
            reg.walk_files = sum(1 for c in chunks for e in c if e.kind == FILE)
        return chunks

    async def live_glob(self, start: str, descend: Callable[[str], bool] | None,
                        want: Callable[[str], bool], pattern: GlobPattern | None = None,
                        ) -> tuple[list[str], list[Entry]] | None:
        """glob's walk and verdicts from the live index's stored verdict classes (see
        :func:`~pathgate.runtime.tools._live_glob.live_glob`); ``None``: use :meth:`walk`."""
        if self.runtime.live_index is None:
            return None
        from pathgate.runtime.tools._live_glob import live_glob  # with the live index only

        return await live_glob(self, start, descend, want, WALK_BUDGET, pattern)

    def _linked_check(self) -> LinkCheck:
        """A fresh hard-link test for one worker-thread hop (see :class:`LinkCheck`)."""
        return LinkCheck(self.runtime, self._aliases)

    def _plan_marks(self) -> tuple[LinkCheck | None, bool]:
        """How this walk finds secrets' hard-link aliases (worker thread): ``(check,
        mark)``, ``mark``: the walker stats its files. Two ways, the cheaper chosen from
        the last walk's file count and the registry's directory count (a validation
        ``lstat``-s every project directory, ignored ones too, about twice a file's
        ``stat``): validate first and stat only while some secret is multi-linked; or stat
        every file and ask the registry only about multi-linked ones (no registry I/O
        unless one is met; also the choice before the first walk)."""
        pipeline = self.runtime.pipeline
        if pipeline.strict_hard_links:
            return self._linked_check(), True
        reg = pipeline.secret_inodes(self.runtime.root)
        if reg is None:
            return None, False
        budget, files = stat_budget(reg), reg.walk_files
        if budget is not None and files is not None and budget <= files:
            check = self._armed_check()
            return check, check is not None
        return self._linked_check(), True

    def _armed_check(self) -> LinkCheck | None:
        """The hard-link test of this walk (worker thread), ``None`` when no file can be a
        secret's alias now (the registry knows no multi-linked secret, no strict mode)."""
        check = self._linked_check()
        return check if check.armed() else None

    def _first_step(self, walker: Walker) -> tuple[LinkCheck | None, list[Entry], OSError | None]:
        """How this walk finds secrets' hard-link aliases (:meth:`_plan_marks`, once per
        walk) and its first step, in one worker-thread hop; the step's error is returned
        (entering the start directory failed)."""
        check, walker.links = self._plan_marks()  # (its errors are not the start directory's)
        try:
            return check, self._step(walker, check), None
        except OSError as exc:
            return check, [], exc

    def _step(self, walker: Walker, check: LinkCheck | None) -> list[Entry]:
        """One walk step (worker thread), its secrets' hard-link aliases noted and every
        entry's secret check answered here rather than on the event loop."""
        chunk = walker.step(CHUNK)
        if check is not None:
            for e in chunk:
                if e.links is not None:  # check.entry(e) is false for the others
                    check.entry(e)
        self._decide(chunk, self._secret_known)
        return chunk

    def _replay(self, start: str, descend: Callable[[str], bool] | None,
                want: Callable[[str], bool] | None) -> list[Entry] | None:
        """The live index's replay (worker thread); its stored ``links`` marks are asked
        about now, so aliases are noted and never charged to the replay's limit."""
        live = self.runtime.live_index
        assert live is not None
        pipeline = self.runtime.pipeline
        # the first scan before the registry is asked: it seeds the registry's first walk
        scanned = live.first_scan(None if pipeline.strict_hard_links else pipeline.secret_inodes(self.runtime.root))
        check = self._linked_check()
        # The live index's records hold no link counts, and a file's link count changing
        # sends no event to its directory's watch (IN_ATTRIB reaches only the inode's own
        # watchers): the stored files are ``lstat``-ed now and only multi-linked ones put
        # to the registry — until more files than :func:`stat_budget` were, when one
        # validation of the registry (``armed``: one ``lstat`` per project directory) is
        # cheaper: then files are ``lstat``-ed only while some secret is
        # multi-linked (or in strict mode). Before, every replay validated first: a warm
        # ``list_directory('.')`` of a 45,000-directory project cost 46,000 ``lstat`` s.
        # Its first scan's own answer (``scanned``) carries the walk's link marks instead:
        # no registry unless a file is multi-linked.
        reg = None if pipeline.strict_hard_links else pipeline.secret_inodes(self.runtime.root)
        restat = Restat(check, None if scanned else self.runtime.root, stat_budget(reg))
        is_secret = self._is_secret

        def uncounted(e: Entry) -> bool:
            return restat.entry(e) or is_secret(e.relpath)

        if self._inline:
            # the replay stops where the budget would (each entry judged once, in it)
            return live.entries(start, descend, want, limit=WALK_BUDGET + 1, uncounted=uncounted, scanned=scanned)
        # host gates decide opacity on the loop (_prejudge): no cut here, _admit cuts
        # exactly where a walk would, charging only what is not opaque
        replayed = live.entries(start, descend, want, limit=None, uncounted=None, scanned=scanned)
        for e in replayed or ():
            restat.entry(e)
        return replayed

    def _admit(self, chunk: list[Entry]) -> list[Entry]:
        """The walked entries the budget admits; error entries go to :attr:`unlisted`."""
        whole = self._admit_whole(chunk)
        if whole is not None:
            return whole
        kept: list[Entry] = []
        is_secret = self._is_secret
        verdicts = self._verdicts  # judged ahead when host gates apply (opaque: not charged)
        for e in chunk:
            if e.error is not None:
                self.unlisted.append(e)
                continue
            v = verdicts.get(e.relpath)
            if is_secret(e.relpath) or (v is not None and v.opaque):
                kept.append(e)  # dropped later by the gates; never counted
                continue
            if self.walked >= WALK_BUDGET:
                self.stopped_early = True
                break
            self.walked += 1
            kept.append(e)
        return kept

    def _admit_whole(self, chunk: list[Entry]) -> list[Entry] | None:
        """:meth:`_admit` of a chunk the budget admits whole, at once (``None``: entry by
        entry; :func:`~._judge_batch.admit_whole`)."""
        return admit_whole(self, chunk, WALK_BUDGET)

    async def unsearched_unlisted(self) -> list[Unsearched]:
        """The directories the walk could not enter (permission denied, path too long...),
        as "not searched" notes; opaque ones (secrets, host-filtered) are never named."""
        if not self.unlisted:
            return []
        seen: dict[str, Entry] = {}
        for e in self.unlisted:
            seen.setdefault(e.relpath, e)
        dirs = [Entry(rel, DIR) for rel in seen]
        verdicts = await self.judge(dirs)
        return [Unsearched(path=d.relpath, error=seen[d.relpath].error)
                for d, v in zip(dirs, verdicts, strict=True) if v is None][:MAX_UNSEARCHED]

    def _judge_inline(self, entries: Sequence[Entry], plain: Sequence[int], out: list[Verdict | None]) -> None:
        """``check_entries`` for the default gates (path, secrets, ignore), inline: a walked
        entry is inside the root (the path gate passes); a secret is opaque whatever decides
        it; an ignored entry gets the ignore verdict."""
        is_secret = self._is_secret
        enforce = any(g.name == "secrets" for g in self.pipeline.gates)
        is_git = self._is_git
        made: dict[int, Verdict] = {}  # one (frozen) verdict per deciding match (alive in entries)
        for i in self._to_judge(entries, plain):
            e = entries[i]
            m = e.match
            if is_git is not None and is_git(e.relpath) and not is_secret(e.relpath):
                out[i] = _GIT
            elif m is None:
                if enforce and is_secret(e.relpath):
                    out[i] = _SECRET
            elif is_secret(e.relpath):
                out[i] = _SECRET if enforce else _OPAQUE_IGNORE
            else:
                v = made.get(id(m))
                if v is None:
                    v = made[id(m)] = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=m.rule,
                                              ancestor=m.ancestor, fail_closed=m.fail_closed,
                                              unreadable=m.unreadable)
                out[i] = v

    def _is_git_batchable(self) -> bool:
        """Is a path holding no "git" no git path here (:func:`~._judge_batch.git_batchable`)?"""
        return git_batchable(self)

    def _to_judge(self, entries: Sequence[Entry], plain: Sequence[int]) -> Sequence[int]:
        """The indices of ``plain`` :meth:`_judge_inline` can give a verdict, in order
        (:func:`~._judge_batch.to_judge`)."""
        return to_judge(self, entries, plain)

    async def _prejudge(self, entries: Sequence[Entry]) -> None:
        """Judge one walked chunk now and keep the verdicts for :meth:`judge` (a host filter
        is asked once per entry)."""
        for e, v in zip(entries, await self._judge(entries), strict=True):
            self._verdicts[e.relpath] = v

    async def judge(self, entries: Sequence[Entry]) -> list[Verdict | None]:
        """Path-only gates for walked entries; symlinks are resolved and judged by target.
        Entries the walk already judged (see :meth:`walk`) keep their verdict."""
        known = self._verdicts
        if not known:
            return await self._judge(entries)
        missing = [e for e in entries if e.relpath not in known]
        fresh = dict(zip((e.relpath for e in missing), await self._judge(missing), strict=True))
        return [known[e.relpath] if e.relpath in known else fresh[e.relpath] for e in entries]

    async def _judge(self, entries: Sequence[Entry]) -> list[Verdict | None]:
        if not entries:
            return []
        plain = [i for i, e in enumerate(entries) if e.kind != SYMLINK]
        links = [i for i, e in enumerate(entries) if e.kind == SYMLINK]
        out: list[Verdict | None] = [None] * len(entries)
        if plain and self._inline and len(plain) > INLINE_ON_LOOP:
            # a big batch (a whole walk's candidates, an excluded directory's count) is judged
            # in a worker hop: the event loop stays free for other calls (issue 19)
            await self.runtime.run_blocking(partial(self._judge_inline, entries, plain, out))
        elif plain and self._inline:
            self._judge_inline(entries, plain, out)
        elif plain:
            negated = await self._hidden_negations(entries, plain)
            verdicts = await self.pipeline.check_entries(
                [_Walked(entries[i].relpath, entries[i].kind == DIR, negated.get(i, entries[i].match))
                 for i in plain],
                self.ctx,
            )
            aliases = self._aliases
            for i, v in zip(plain, verdicts, strict=True):
                out[i] = _SECRET if entries[i].relpath in aliases and (v is None or not v.opaque) else v
        if links:
            facts = [PathFacts(request=entries[i].relpath, name=entries[i].relpath) for i in links]
            verdicts = await self.pipeline.run(facts, self.ctx, self._source)
            for i, f, v in zip(links, facts, verdicts, strict=True):
                own = entries[i].match
                if v is None and own is not None:
                    v = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=own.rule, ancestor=own.ancestor)
                    if self.pipeline.secrets.is_secret_facts(f):
                        v = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, opaque=True)
                    else:  # decided by a source the host filter hides: its opaque verdict
                        v = await unless_hidden(self.pipeline, own, v)
                out[i] = v
        return out

    async def _hidden_negations(self, entries: Sequence[Entry], plain: Sequence[int]) -> dict[int, Match]:
        """With a host filter, the kept entries a negation re-included (the gates answer
        one a hidden source's negation decided as the filter's block: :mod:`._hidden`)."""
        gate = next((g for g in self.pipeline.gates if isinstance(g, IgnoreGate) and g.hidden is not None), None)
        if gate is None or gate.hidden is None:
            return {}
        which = await to_rematch(self.session, entries, plain, gate.hidden)
        if not which:
            return {}
        return await self.runtime.run_blocking(partial(negated_matches, self.session, entries, which))

    # -- excluded directories ----------------------------------------------------------------

    async def count_excluded(
        self,
        dirs: Sequence[Entry],
        wanted: Callable[[str], bool],
    ) -> list[Unsearched]:
        """Name the excluded directories that could hold matches and count, within the
        budget, the matching files inside them (omitted by the ignore gate); then name the
        directories the walk could not enter (:meth:`unsearched_unlisted`)."""
        unlisted = await self.unsearched_unlisted()
        return (await count_in_excluded(self, dirs, wanted) + unlisted)[:MAX_UNSEARCHED]
