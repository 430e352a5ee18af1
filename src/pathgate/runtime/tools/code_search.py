"""``code_search(regex, path=".", glob=None, ...)``: a regular expression, line by line, in
the files every gate lets through.

Secrets and host-filtered files are never opened, so their contents can never appear in a
hit, and they are never counted. Each candidate is opened once; the descriptor decides
(a regular file, not over the size limit, still inside the project): binary, too large
and unreadable files are skipped and counted. Reads run in worker-thread chunks under the
runtime's capacity limiter; the first ``max_results`` hits in path order are returned.
"""

from __future__ import annotations

import errno
import os
import re
import stat as stat_mod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from pathgate.errors import ToolArgumentError
from pathgate.results import SearchHit, SearchResult
from pathgate.runtime._walk import DIR, Entry
from pathgate.runtime.fs import FileOps, decode
from pathgate.runtime.tools._discover import Discovery
from pathgate.runtime.tools._pattern import GlobPattern, compile_glob

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["DEFAULT_MAX_RESULTS", "code_search"]

#: Hits returned when the caller gives no ``max_results`` (``0``: no limit).
DEFAULT_MAX_RESULTS = 200
#: Files per worker-thread hop (a few ms of work: cancellation stays prompt, and fewer
#: hops wait less for the event loop on a busy machine).
FILES_PER_HOP = 256
#: Files per limiter token in one window; ``max_results`` is checked after each window.
WINDOW_PER_TOKEN = 64
#: ``read(2)`` size after the first read of a file (which asks for its fstat size + 1).
READ_STEP = 1 << 16
#: Longest line text returned in a hit (characters); longer lines are cut with "…".
MAX_LINE = 500


@dataclass(slots=True)
class _Scan:
    hits: list[SearchHit]
    binary: int = 0
    too_large: int = 0
    unreadable: int = 0


def _clip(line: str) -> str:
    return line if len(line) <= MAX_LINE else line[:MAX_LINE] + "…"


def _inside(fd: int, root: str) -> bool:
    """Is the open descriptor's file still inside ``root``? (a directory swapped for a link
    between the walk and the open must not leak). Unknown (no /proc) counts as inside: the
    last component was opened with O_NOFOLLOW and the walk never follows links."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return True
    return real.startswith(root + "/")


def _scan_files(ops: FileOps, root: str, relpaths: Sequence[str], rx: re.Pattern[str],
                size_limit: int, context: int) -> _Scan:
    scan = _Scan(hits=[])
    prefix = root + "/"
    for rel in relpaths:
        try:
            fd = ops.open_fd(prefix + rel)
        except OSError:
            scan.unreadable += 1
            continue
        try:
            st = ops.fstat(fd)
            if not stat_mod.S_ISREG(st.st_mode) or not _inside(fd, root):
                continue
            if st.st_size > size_limit:
                scan.too_large += 1
                continue
            chunks: list[bytes] = []
            want = size_limit + 1
            # read(2) sizes: what fstat gave (plus one, to see growth), then small steps
            # to reach end of file. Asking for the whole limit at once would allocate a
            # limit-sized buffer (10 MiB: mmap + munmap) for every file.
            step = min(want, st.st_size + 1)
            while want > 0:
                chunk = ops.read_fd(fd, step)
                if not chunk:
                    break
                chunks.append(chunk)
                want -= len(chunk)
                if len(chunk) == st.st_size < step:
                    break  # all of it, as fstat said: at end of file (saves a read(2))
                step = min(want, READ_STEP)
            data = b"".join(chunks)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                scan.unreadable += 1
            continue
        finally:
            ops.close(fd)
        opened = decode(data, size_limit)
        if opened.text is None:
            if opened.binary:
                scan.binary += 1
            else:
                scan.too_large += 1
            continue
        text = opened.text
        if rx.search(text) is None:
            continue
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if rx.search(line) is not None:
                before = tuple(_clip(x) for x in lines[max(0, i - context):i]) if context else ()
                after = tuple(_clip(x) for x in lines[i + 1:i + 1 + context]) if context else ()
                scan.hits.append(SearchHit(path=rel, line=i + 1, text=_clip(line),
                                           context_before=before, context_after=after))
    return scan


def _compile(regex: object, case_sensitive: bool) -> re.Pattern[str]:
    if not isinstance(regex, str) or not regex:
        raise ToolArgumentError("code_search: `regex` must be a non-empty string", field="regex")
    try:
        return re.compile(regex, 0 if case_sensitive else re.IGNORECASE)
    except re.error as exc:
        raise ToolArgumentError(f"code_search: invalid regular expression {regex!r}: {exc}",
                                field="regex") from None


async def code_search(
    runtime: Runtime,
    regex: str,
    path: str = ".",
    *,
    glob: str | None = None,
    max_results: int | None = None,
    context: int = 0,
    case_sensitive: bool = True,
    model: str | None = None,
) -> SearchResult:
    """See :meth:`pathgate.Runtime.code_search`."""
    rx = _compile(regex, case_sensitive)
    if not isinstance(path, str):
        raise ToolArgumentError("code_search: `path` must be a string", field="path")
    if max_results is not None and (isinstance(max_results, bool) or not isinstance(max_results, int)
                                    or max_results < 0):
        raise ToolArgumentError("code_search: `max_results` must be an integer >= 0", field="max_results")
    if isinstance(context, bool) or not isinstance(context, int) or not 0 <= context <= 50:
        raise ToolArgumentError("code_search: `context` must be an integer from 0 to 50", field="context")
    pat: GlobPattern | None = compile_glob(glob, field="glob") if glob is not None else None
    cap = DEFAULT_MAX_RESULTS if max_results is None else (max_results or None)

    d = Discovery(runtime, model=model)
    start, verdict = await d.start_dir(path)
    if verdict is not None:
        return SearchResult(regex=regex, path=path, hits=(), verdict=verdict, limit=cap)
    cut = len(start) + 1 if start else 0

    def wanted(rel: str) -> bool:
        return pat is None or pat.match(rel[cut:])

    descend = None if pat is None or not pat.prunes else (lambda rel: pat.could_match_below(rel[cut:]))
    candidates: list[Entry] = []
    excluded_dirs: list[Entry] = []
    chunks = await d.walk(start, descend, None if pat is None else wanted)
    if d.start_error is not None:
        return SearchResult(regex=regex, path=path, hits=(), verdict=d.start_error, limit=cap)
    for chunk in chunks:
        for e in chunk:
            if e.kind == DIR:
                if e.match is not None and (descend is None or descend(e.relpath)):
                    excluded_dirs.append(e)
            else:
                candidates.append(e)

    files: list[str] = []
    for e, v in zip(candidates, await d.judge(candidates), strict=True):
        if v is None:
            if e.kind == "file":  # like rg: links are not followed (their targets are walked)
                files.append(e.relpath)
        else:
            d.omissions.add(v, e.relpath)
    unsearched = await d.count_excluded(excluded_dirs, wanted)
    files.sort()

    hits: list[SearchHit] = []
    binary = too_large = unreadable = 0
    truncated = False
    limiter = runtime.limiter.get()
    ops = runtime.ops
    root = runtime.root
    size_limit = d.ctx.size_limit
    window = WINDOW_PER_TOKEN * max(1, int(limiter.total_tokens))
    for w in range(0, len(files), window):
        # one hop at a time: with a warm page cache the scan is GIL-bound, and parallel
        # hops of one call ran 1.5-3x slower than sequential ones (benchmarks/bench_tools.py);
        # concurrent calls still spread over the shared limiter. The cap is checked per
        # window, as before, so results and skip counts do not depend on the hop size.
        end = min(w + window, len(files))
        for h in range(w, end, FILES_PER_HOP):
            part = await anyio.to_thread.run_sync(
                _scan_files, ops, root, files[h:min(h + FILES_PER_HOP, end)], rx, size_limit,
                context, limiter=limiter)
            hits.extend(part.hits)
            binary += part.binary
            too_large += part.too_large
            unreadable += part.unreadable
        if cap is not None and len(hits) > cap:
            truncated = True
            break
    if cap is not None and len(hits) > cap:
        hits = hits[:cap]
        truncated = True
    return SearchResult(
        regex=regex,
        path=path,
        hits=tuple(hits),
        files_searched=len(files),
        truncated=truncated,
        limit=cap,
        skipped_binary=binary,
        skipped_too_large=too_large,
        skipped_unreadable=unreadable,
        omitted=d.omissions.freeze(),
        unsearched=tuple(unsearched),
        walk_stopped_early=d.stopped_early,
    )
