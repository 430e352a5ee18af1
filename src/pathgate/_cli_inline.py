"""``pathgate glob`` and ``pathgate search`` without an event loop: the tool's own code on a
bare :class:`~pathgate.runtime._gating.GateCore`.

:func:`run_inline` answers what ``rt.call(tool, tool_args)`` returns on a
:class:`~pathgate.Runtime` (model spellings in, the renderer's output out): the same tool
function (``runtime/tools/glob.py``, ``runtime/tools/code_search.py``, one ``Discovery``)
with every blocking step run in the calling thread by the core
(:meth:`GateCore.run_blocking`), so its coroutine never suspends and
:func:`~pathgate.runtime._gating.run_now` drives it. One route to every file: nothing of the
walk, the gates or the scan is copied here; only the chain's own steps around the tool —
``unspell_path`` of the path arguments, ``spell_names`` and ``render_discovery`` of the
result — are repeated, with the chain's functions.

Anything only the tool chain answers raises
:class:`~pathgate.runtime._gating.NeedsEventLoop`, and the command runs the tool through
``rt.call`` on a ``Runtime`` instead: an argument the chain rejects, an error it words
(argument errors name the field, others are generic), a step that must await (an async host
filter). A process makes one call: no asyncio, anyio, worker threads or tool registry load.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["INLINE_TOOLS", "run_inline"]

#: The tools :func:`run_inline` runs (the command's tool names, as ``rt.call`` takes them).
INLINE_TOOLS = frozenset({"glob", "code_search"})

#: Per tool: its arguments the chain checks as ``int >= 0 or None`` (its argument struct).
_COUNTS = {"glob": ("limit",), "code_search": ("max_results",)}


def run_inline(make_core: Callable[[], GateCore], tool: str, tool_args: Mapping[str, Any], *,
               model: str | None = None, renderer: str | None = None, last: bool = False) -> Any:
    """What ``rt.call(tool, tool_args, model=model, renderer=renderer)`` returns, on the bare
    core ``make_core()`` builds (called once the tool's code is loaded). ``last``: the
    process ends after this call (the console script): what the tool made is moved out of
    the collector's sight when it returns (see :func:`_few_collections`)."""
    from pathgate.runtime._gating import NeedsEventLoop

    if tool not in INLINE_TOOLS:
        raise NeedsEventLoop(f"{tool}: only on a runtime")
    for key in _COUNTS[tool]:
        n = tool_args.get(key)
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise NeedsEventLoop("an argument the tool chain rejects")
    if not all(isinstance(v, (str, int)) or v is None for v in tool_args.values()):
        raise NeedsEventLoop("an argument the tool chain checks")
    from pathgate._names import spell_names
    from pathgate.renderers._discovery import render_discovery
    from pathgate.runtime._gating import run_now
    from pathgate.runtime.tools._secret_walk import one_call

    call = (_glob if tool == "glob" else _code_search)()  # loaded before the core is built
    with _lazy_ignore(tool):
        core = make_core()
        one_call(core)  # the process makes this one call: nothing is kept for another
        try:
            chosen = core.renderer_for(model, renderer)
            with _few_collections(last):
                result = run_now(call(core, tool_args, model))
            return render_discovery(chosen, _spelled(result, spell_names))
        except NeedsEventLoop:
            raise
        except Exception as exc:  # these tools only read: the same call on a runtime words it exactly
            raise NeedsEventLoop(f"an error the tool chain reports: {type(exc).__name__}") from exc


#: Scans of a huge ignore file a ``glob`` walk makes (one per entry it decides) before the
#: file is compiled whole (:mod:`pathgate.runtime.ignore._lazy`).
GLOB_SCANS = 8


def _lazy_ignore(tool: str) -> contextlib.AbstractContextManager[None]:
    """``glob``: huge ignore files read line by line while the walk decides few entries
    (a pattern under one directory), compiled whole after :data:`GLOB_SCANS` scans (a walk
    of the tree). The decisions are the whole compile's either way; the walk's cost is not
    that of a whole compile up front, whose per-directory plans of a 300,000-line list cost
    more than the walk itself (``benchmarks/RESULTS.md``, tenth session)."""
    if tool != "glob":
        return contextlib.nullcontext()
    from pathgate.runtime.ignore._lazy import one_shot

    return one_shot(GLOB_SCANS)


def _glob() -> Callable[..., Any]:
    """``Runtime._tool_glob`` without the chain: the glob tool on ``core``."""
    from pathgate._names import unspell_path
    from pathgate.runtime.tools.glob import DEFAULT_GLOB_LIMIT, glob

    def call(core: GateCore, args: Mapping[str, Any], model: str | None) -> Any:
        return glob(core, unspell_path(args["pattern"]), unspell_path(args.get("path", ".")),
                    limit=args.get("limit", DEFAULT_GLOB_LIMIT), model=model)

    return call


def _code_search() -> Callable[..., Any]:
    """``Runtime._tool_code_search`` and ``Runtime.code_search`` without the chain: the
    search tool on ``core``, the core's hard-link test for the files it opens."""
    from pathgate._names import unspell_path
    from pathgate.runtime.tools.code_search import DEFAULT_MAX_RESULTS, code_search

    def call(core: GateCore, args: Mapping[str, Any], model: str | None) -> Any:
        pattern = args.get("glob")
        return code_search(core, args["regex"], unspell_path(args.get("path", ".")),
                           glob=None if pattern is None else unspell_path(pattern),
                           max_results=args.get("max_results", DEFAULT_MAX_RESULTS),
                           context=args.get("context", 0), case_sensitive=args.get("case_sensitive", True),
                           model=model, linked_secret=core.index.linked_secret)

    return call


def _spelled(result: Any, spell_names: Callable[[Any], Any]) -> Any:
    """``spell_names(result)``, a search's hits checked at once: when every hit path is
    printable ASCII not starting with a double quote and no hit line or context line holds
    a lone surrogate (what :func:`~pathgate._names.spell_names` would change), the hits
    stay as they are and only the rest of the result is spelled (its fields are spelled
    one by one, the hits apart from the others); otherwise (a path with a double quote
    anywhere included) the whole result is spelled."""
    import msgspec

    from pathgate.results import SearchResult

    hits = result.hits if isinstance(result, SearchResult) else ()
    if not hits or not _plain_hits(hits):
        return spell_names(result)
    return msgspec.structs.replace(spell_names(msgspec.structs.replace(result, hits=())), hits=hits)


def _plain_hits(hits: tuple[Any, ...]) -> bool:
    """No hit that :func:`~pathgate._names.spell_names` would change (see :func:`_spelled`):
    checked on all paths joined and all lines joined (both tests are per character)."""
    paths = "".join([h.path for h in hits])  # printable ASCII without '"' throughout: each path plain
    if not paths.isascii() or not paths.isprintable() or '"' in paths:
        return False
    texts = "".join([h.text for h in hits])
    if any(h.context_before or h.context_after for h in hits):
        texts += "".join(["".join(h.context_before) + "".join(h.context_after) for h in hits])
    if texts.isascii():
        return True
    try:
        texts.encode("utf-8")  # a lone surrogate in any of them cannot be encoded
    except UnicodeEncodeError:
        return False
    return True


@contextlib.contextmanager
def _few_collections(last: bool = False) -> Iterator[None]:
    """Rare cyclic garbage collections while the tool walks (as ``check-ignore --stdin``):
    what a walk makes is acyclic (reference counting frees it) or kept to the end (the
    ignore index's nodes, the secret tests' answers, the walked entries), and each full
    collection would walk all of it again — three of them were ≈ 0.3 s of a 2.8 s search
    of the eugenp corpus, for nothing found. Restored afterwards (``main`` also runs
    in-process). ``last`` (the process ends after the call): what is left then is frozen
    first (``gc.freeze``), so the collections the restored thresholds start while the
    answer is rendered and printed do not walk the walk's objects again (≈ 0.1 s after a
    search of the eugenp corpus)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(50_000, 50, 50)
    try:
        yield
    finally:
        if last:
            gc.freeze()
        gc.set_threshold(*thresholds)
