"""``code_search(regex, path=".", glob=None, ...)``: a regular expression (RE2, ripgrep's
dialect family), line by line, in the files every gate lets through.

Secrets and host-filtered files are never opened, so their contents can never appear in a
hit, and they are never counted. The pattern is compiled in a worker thread
(:mod:`._regex`: linear-time matching, bounded program); the files are scanned in path
order by :class:`._scan.Scanner` in worker-thread hops of bounded bytes (a timeout or a
cancellation is honoured within one hop, even in the middle of a huge file), each file
opened relative to its directory's descriptor (no path string, no symlink followed), type,
size and link count taken from the descriptor. Binary files, files over the search size cap
(:data:`SEARCH_SIZE_LIMIT`, or the read limit when larger) and unreadable files are skipped
and counted. Files over the read limit but under the cap are searched, streamed in pieces.
Lines are ``\n``-separated, as ``grep -n`` counts them; the first ``max_results`` hits in
path order are returned, within the call's output budget (:mod:`._search_budget`:
``Policy.read_budget`` characters of hit text, whatever ``max_results`` says) and its time
limit (``Policy.search_seconds`` of work in its hops: a pattern whose RE2 search thrashes on
text shaped for it stops there, with a note counting the files not searched).

Every blocking step (the compilation, each scan hop) goes through the core that drives the
call (``runtime.run_blocking``): a :class:`~pathgate.Runtime` runs it in a worker thread
under its limiter, a bare :class:`~pathgate.runtime._gating.GateCore` in the calling thread
(``pathgate search``: the same code, no event loop; see :mod:`._discover`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

import msgspec

from pathgate.errors import ToolArgumentError
from pathgate.results import SearchResult, Unsearched
from pathgate.runtime._walk import DIR, FILE, Entry
from pathgate.runtime.tools._arg_bounds import check_path_size
from pathgate.runtime.tools._compiled import KEPT_SEARCHES, compiled
from pathgate.runtime.tools._discover import Discovery
from pathgate.runtime.tools._excluded import MAX_UNSEARCHED, count_in_excluded
from pathgate.runtime.tools._link_check import stat_budget
from pathgate.runtime.tools._pattern import GlobPattern, compile_glob
from pathgate.runtime.tools._regex import Regex, compile_regex
from pathgate.runtime.tools._scan import MAX_LINE, DirChain, LinkedSecret, Scanner
from pathgate.runtime.tools._search_budget import cut_hits

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["DEFAULT_MAX_RESULTS", "MAX_LINE", "SEARCH_SIZE_LIMIT", "code_search"]

#: Hits returned when the caller gives no ``max_results`` (``0``: no count limit; the
#: call's output budget holds either way).
DEFAULT_MAX_RESULTS = 200
#: Largest file searched (bytes) when the read limit is smaller: files over the read limit
#: (which ``read_files`` refuses whole, suggesting a search) are searched up to this size,
#: streamed in pieces; larger files are skipped and counted as over the size limit.
SEARCH_SIZE_LIMIT = 64 << 20
#: An output budget (characters) no search can spend, searched as no budget at all
#: (``pathgate search`` sets 2**62: a person sees every hit). A hit is at most 101 lines
#: of at most ~4,600 characters (a path within ``PATH_MAX``, a line number, a line cut at
#: ``MAX_LINE``), so spending 2**60 would take over 2**41 hits, far past any memory.
UNREACHABLE_BUDGET = 1 << 60


def _check_args(regex: object, path: object, max_results: object, context: object) -> None:
    if not isinstance(regex, str) or not regex:
        raise ToolArgumentError("code_search: `regex` must be a non-empty string", field="regex")
    if not isinstance(path, str):
        raise ToolArgumentError("code_search: `path` must be a string", field="path")
    check_path_size("code_search", path)  # (red team 19 K2)
    if max_results is not None and (isinstance(max_results, bool) or not isinstance(max_results, int)
                                    or max_results < 0):
        raise ToolArgumentError("code_search: `max_results` must be an integer >= 0", field="max_results")
    if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= 50:
        raise ToolArgumentError("code_search: `context` must be an integer from 0 to 50", field="context")


def _compile(regex: str, case_sensitive: bool, glob: str | None) -> tuple[Regex, GlobPattern | None]:
    """Both patterns (pure CPU, bounded; run in a worker thread, never on the event loop)."""
    rx = compile_regex(regex, case_sensitive)
    return rx, (compile_glob(glob, field="glob") if glob is not None else None)


async def code_search(
    runtime: GateCore,
    regex: str,
    path: str = ".",
    *,
    glob: str | None = None,
    max_results: int | None = None,
    context: int = 0,
    case_sensitive: bool = True,
    model: str | None = None,
    linked_secret: LinkedSecret | None = None,
) -> SearchResult:
    """See :meth:`pathgate.Runtime.code_search`.

    ``linked_secret``: consulted after ``fstat`` for regular files with ``st_nlink > 1``;
    when it says the inode is shared with a secret, the file is skipped silently."""
    _check_args(regex, path, max_results, context)
    rx, pat = await compiled(runtime.run_blocking, _compile, regex, bool(case_sensitive), glob,
                             keep=KEPT_SEARCHES)
    cap = DEFAULT_MAX_RESULTS if max_results is None else (max_results or None)

    # the runtime's own hard-link test: kept files are tested on their descriptors when
    # opened (the scan's fstat), not by an lstat each in the walk
    defer = linked_secret is not None and linked_secret is runtime.index.linked_secret
    for kept_links in (not defer, True):
        d = Discovery(runtime, model=model)
        start, verdict = await d.start_dir(path)
        if verdict is not None:
            return SearchResult(regex=regex, path=path, hits=(), verdict=verdict, limit=cap)
        files, unsearched = await _candidates(d, start, pat, kept_links)
        if d.start_error is not None:
            return SearchResult(regex=regex, path=path, hits=(), verdict=d.start_error, limit=cap)
        if kept_links or not d.stopped_early:
            break
        # where the walk budget cuts depends on which kept files are secrets' hard links
        # (never charged): walk again, testing each in the walk
        defer = False

    budget = runtime.policy.read_budget
    # a budget no search can spend is none (no characters counted per hit): the same hits
    charged = None if budget >= UNREACHABLE_BUDGET else budget
    scanner = Scanner(runtime.ops, runtime.root, files, rx, context=context, cap=cap,
                      search_limit=max(SEARCH_SIZE_LIMIT, d.ctx.size_limit), linked_secret=linked_secret,
                      budget=charged, seconds=runtime.policy.search_seconds)
    run = runtime.run_blocking
    try:
        while not scanner.done:
            # one hop at a time (bounded bytes): a cancellation or timeout is honoured when
            # the running hop returns; concurrent calls share the runtime's limiter
            await run(scanner.step)
    finally:
        scanner.close()
    searched = len(files)
    left = files[scanner.index:] if defer or scanner.timed_out else []
    # a secret's hard link is not a file searched, opened or not (early stop), nor one left
    aliases = await _count_aliases(d, left) if defer and left else 0
    if defer:
        searched -= scanner.linked + aliases
    not_searched = 0
    if scanner.timed_out:  # counts only: never what the files left hold
        not_searched = len(left) - aliases + scanner.unfinished
        searched -= not_searched
    hits, by_cap, by_budget = cut_hits(scanner.hits, cap, charged)
    return SearchResult(
        regex=regex,
        path=path,
        hits=tuple(hits),
        files_searched=searched,
        truncated=by_cap or by_budget,
        limit=cap,
        output_budget=budget if by_budget else None,
        skipped_binary=scanner.binary,
        skipped_too_large=scanner.too_large,
        skipped_unreadable=scanner.unreadable,
        # files left out were not searched: counted as files, never as matches
        omitted=tuple(msgspec.structs.replace(om, unit="files") for om in d.omissions.freeze()),
        unsearched=tuple(unsearched),
        walk_stopped_early=d.stopped_early,
        time_limit=runtime.policy.search_seconds if scanner.timed_out else None,
        files_not_searched=not_searched,
    )


#: Files left by a capped search whose links one hop looks at (a hop stays short: the
#: walk may leave up to ``WALK_BUDGET`` files).
ALIAS_HOP = 4096


async def _count_aliases(d: Discovery, left: Sequence[str]) -> int:
    """How many of the files ``left`` (not opened by the scan) are secrets' hard links, in
    hops of :data:`ALIAS_HOP` files (other calls' hops run between them)."""
    run = d.runtime.run_blocking
    if await run(partial(_none_linked, d, len(left))):
        return 0
    n = 0
    for i in range(0, len(left), ALIAS_HOP):
        n += await run(partial(_aliases_in, d, left[i:i + ALIAS_HOP]))
    return n


def _none_linked(d: Discovery, files: int) -> bool:
    """Can no file be a secret's alias, asked of the registry itself (worker thread)? Only
    when that is cheaper than looking at ``files`` files (:func:`stat_budget`, the walk's
    own rule); one validation (one ``lstat`` per project directory) then spares every
    file's ``lstat``."""
    pipeline = d.runtime.pipeline
    budget = None if pipeline.strict_hard_links else stat_budget(pipeline.secret_inodes(d.runtime.root))
    return budget is not None and budget <= files and not d._linked_check().armed()


def _aliases_in(d: Discovery, rels: Sequence[str]) -> int:
    """How many of the files ``rels`` are secrets' hard links (worker thread; each
    ``lstat``-ed on its directory's descriptor, no link followed). Only a multi-linked
    regular file is put to the registry, so a search cut by its cap validates the
    registry's snapshot (one ``lstat`` per project directory) only when a file left is
    multi-linked, not on every call."""
    check = d._linked_check()
    runtime = d.runtime
    chain = DirChain(runtime.index.fs, runtime.root)
    n = 0
    try:
        for rel in rels:
            parent, _, name = rel.rpartition("/")
            try:
                st = os.stat(name, dir_fd=chain.enter(parent), follow_symlinks=False)
            except OSError:
                continue
            n += stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and check(st)
    finally:
        chain.close()
    return n


async def _candidates(d: Discovery, start: str, pat: GlobPattern | None,
                      kept_links: bool = True) -> tuple[list[str], list[Unsearched]]:
    """The files to search below ``start`` (sorted), gated; omissions go to ``d``.
    ``kept_links`` false: kept files are not tested for hard links to secrets in the walk."""
    cut = len(start) + 1 if start else 0

    def wanted(rel: str) -> bool:
        return pat is None or pat.match(rel[cut:])

    descend = None if pat is None or not pat.prunes else (lambda rel: pat.could_match_below(rel[cut:]))
    candidates: list[Entry] = []
    excluded_dirs: list[Entry] = []
    chunks = await d.walk(start, descend, None if pat is None else wanted, kept_links=kept_links)
    if d.start_error is not None:
        return [], []
    for chunk in chunks:
        candidates += [e for e in chunk if e.kind != DIR]
        excluded_dirs += [e for e in chunk if e.kind == DIR and e.match is not None
                          and (descend is None or descend(e.relpath))]
    verdicts = await d.judge(candidates)
    # like rg: links are not followed (their targets are walked)
    files = [e.relpath for e, v in zip(candidates, verdicts, strict=True) if v is None and e.kind == FILE]
    for e, v in [(candidates[i], v) for i, v in enumerate(verdicts) if v is not None]:
        d.omissions.add(v, e.relpath)
    # d.count_excluded with a key: on a plain runtime the count is kept for the next call
    # with the same start and glob (validated by the listed directories' signatures)
    unlisted = await d.unsearched_unlisted()
    counted = await count_in_excluded(d, excluded_dirs, wanted,
                                      key=("code_search", start, None if pat is None else (pat.pattern, pat.wildmatch)))
    unsearched = (counted + unlisted)[:MAX_UNSEARCHED]
    files.sort()
    return files, unsearched
