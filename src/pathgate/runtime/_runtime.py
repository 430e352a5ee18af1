"""The runtime: one per project root, shared by many concurrent agents.

A :class:`Runtime` is built once and then only read: it owns the real root, the
:class:`~pathgate.Policy`, one cached :class:`IgnoreIndex`, the :class:`GatePipeline`, the
filesystem backends and the pathgate-owned :class:`anyio.CapacityLimiter` that bounds worker
threads. Everything one call needs lives in per-call objects (``GateContext``, the tool's
fact source), so calls never share mutable state.

Tools are thin functions over a runtime (``runtime/tools/*.py``); typed methods like
:meth:`Runtime.read_files` return raw results (contents and verdicts, no text), while
:meth:`Runtime.call` runs a tool call through the middleware chain, built once (see
:mod:`pathgate.runtime._chain`)::

    ErrorBoundaryMiddleware -> TracingMiddleware -> host middlewares (runtime.use)
        -> RenderingMiddleware -> the tool (arguments validated, gates, work)

and returns what the model receives, rendered for the call's model.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread

from pathgate._names import spell_names, unspell_path
from pathgate._types import CallNext, CallState, Middleware, ToolCall
from pathgate.config import Policy
from pathgate.errors import ConfigError
from pathgate.renderers._discovery import render_discovery
from pathgate.renderers._writes import render_write
from pathgate.results import GlobResult, ListResult, SearchResult, WriteResult
from pathgate.runtime._chain import ErrorBoundaryMiddleware, build_chain
from pathgate.runtime._dispatch import (
    CodeSearchArgs,
    EditFileArgs,
    GlobArgs,
    ListDirectoryArgs,
    ReadFilesArgs,
    ToolSpec,
    WriteFileArgs,
    unknown_tool,
    validate_args,
)
from pathgate.runtime._gating import GateCore, RendererRules, project_git_dirs
from pathgate.runtime._live import INDEX_MODE, LiveIndex
from pathgate.runtime._tracing import SpanMode, TracingMiddleware
from pathgate.runtime.fs import Backends, IoLimiter, OsFS, SyncFS
from pathgate.runtime.fs._calls import VIEW, enter_view
from pathgate.runtime.fs._sched import _CALL, Ticket
from pathgate.runtime.gates import GateCheck, GateContext
from pathgate.runtime.tools._inline import InlineReads
from pathgate.runtime.tools._versions import FileLocks, VersionStore
from pathgate.runtime.tools._write_gates import build_write_pipeline
from pathgate.runtime.tools.read_files import ReadFacts
from pathgate.runtime.tools.read_files import read_files as _read_files
from pathgate.verdicts import FileResult
from pathgate.verdicts import Gate as GateName

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

    from pathgate.renderers._base import Renderer
    from pathgate.runtime.gates import FactSource

T = TypeVar("T")

GLOB_DESCRIPTION = (
    "Find files by glob pattern, matched against paths relative to `path` (default: the "
    "project root). `*` and `?` stay within one path segment, `**` spans directories "
    "(`**/*.py` for any depth; `*.py` is the top level only). Returns project-relative paths, "
    "sorted. Notes say how many matches were omitted and why (for example by ignore rules), "
    "and which ignored directories were not searched."
)
LIST_DIRECTORY_DESCRIPTION = (
    "List one directory's entries (directories end with `/`, symlinks with `@`), sorted by "
    "name, up to `limit` (default 500). Notes say how many entries are hidden and why, and "
    "how many were left out past the limit (raise `limit`, or glob a pattern in that directory)."
)
CODE_SEARCH_DESCRIPTION = (
    "Search file contents with a regular expression, line by line, below `path`, "
    "optionally only in files matching `glob`. The dialect is ripgrep's (RE2): no "
    "backreferences or look-around; a match never spans lines. Hits are `path:line:text` (context lines "
    "`path-line-text`). Notes say what was omitted or skipped and why. One call returns at most "
    "its output budget of hit text (100,000 characters by default), whatever `max_results` says "
    "(0 lifts only the count limit); past it the hits are cut and a note says so: narrow the search."
)

__all__ = ["Runtime", "project_git_dirs"]


class Runtime(GateCore):
    """pathgate for one project root.

    * ``root``: the project directory (resolved with ``realpath`` once).
    * ``policy``: the host's :class:`~pathgate.Policy`, used as given (it may loosen); to
      let the project's own files tighten it, pass ``load_config(root, host=policy)``.
      ``None``: the defaults tightened by the project's ``pathgate.toml`` /
      ``[tool.pathgate]`` (:func:`~pathgate.load_config`); a loosening key there raises
      :class:`~pathgate.ConfigError` (README: Trust model).
    * ``fs``: the blocking filesystem seam (default the real one). It serves the ignore
      engine and, when it also implements the read operations (any ``OsFS`` subclass does),
      the reads: tests and hosts inject faults or a remote filesystem here.
    * ``gates``: host gates, inserted before the ``ignore`` gate (after the opaque ones).
    * ``renderers``: which renderer each model gets — a
      :class:`~pathgate.renderers.RendererSelector`, or ordered ``(model glob, renderer
      name)`` rules (default: the policy's ``[renderers]`` rules and default). An unknown
      renderer name raises :class:`~pathgate.ConfigError` here, naming it.
    * ``tracer_provider`` / ``meter_provider``: OpenTelemetry providers (default: the
      global ones); ``span_mode``: ``"create"`` an ``execute_tool`` span per call, or
      ``"enrich"`` the caller's current span (frameworks that already make one).
    * ``allow_writes``: register ``write_file`` / ``edit_file`` (default: the policy's
      ``allow_writes``, off — a runtime is read-only unless the host enables writes).
    * ``live_index``: answer discovery from an in-memory index kept current by inotify
      (default: the policy's ``live_index``, off; README: Live index). Stop it with
      ``async with Runtime(...)`` or :meth:`aclose`.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        policy: Policy | None = None,
        *,
        renderers: RendererRules | None = None,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        span_mode: SpanMode = "create",
        fs: SyncFS | None = None,
        gates: Sequence[GateCheck] = (),
        allow_writes: bool | None = None,
        live_index: bool | None = None,
    ) -> None:
        super().__init__(root, policy, renderers=renderers, fs=fs, gates=gates)
        # discovery from memory (issue 15; opt-in): None walks on every call
        use_live = self.policy.live_index if live_index is None else bool(live_index)
        self.live_index: LiveIndex | None = LiveIndex(self.index) if use_live else None
        # writes (off unless enabled): their gates, what each agent read, one lock per file
        self.allow_writes = self.policy.allow_writes if allow_writes is None else bool(allow_writes)
        self.write_pipeline = build_write_pipeline(self.policy, extra=gates)
        self._arm_aliases(self.write_pipeline)
        self.versions = VersionStore()
        self.file_locks = FileLocks()
        self.limiter = IoLimiter(self.policy.max_concurrency)
        # a one-file read may run on the event loop when every step of it is bounded
        # (local filesystem, the real one, page-cached, small; runtime/tools/_inline.py)
        real_fs = type(self.fs) is OsFS and self.ops is self.fs
        self.inline_reads = InlineReads(self.root, None if real_fs else False)
        self.backends = Backends(self.ops, self.limiter)
        self._tracing = TracingMiddleware(
            tracer_provider=tracer_provider, meter_provider=meter_provider, span_mode=span_mode
        )
        self._tools: dict[str, ToolSpec] = {}
        self._middlewares: list[Middleware] = []
        self._register_builtins()
        self._chain: CallNext = self._build_chain()

    async def __aenter__(self) -> Runtime:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Stop what the runtime runs in the background (the live index's inotify
        descriptor); idempotent. Tools called afterwards walk the tree."""
        live = self.live_index
        if live is not None:
            await anyio.to_thread.run_sync(live.close, limiter=self.limiter.get())

    async def read_files(
        self,
        paths: Sequence[str],
        *,
        offset: int | None = None,
        limit: int | None = None,
        budget: int | None = None,
        model: str | None = None,
        agent: str | None = None,
    ) -> list[FileResult]:
        """Read ``paths`` through the gates; one :class:`~pathgate.FileResult` per path.

        Results keep the request's order; spellings of one file (``a``, ``./a``, ``d/../a``)
        are read once and reported under each spelling. ``offset`` (1-based first line) and
        ``limit`` (line count) window every file; ``budget`` (characters, default
        ``policy.read_budget``) caps the call's total content, cutting with a
        ``[FILE_TOO_LARGE]`` notice. ``model`` selects per-model size limits. A blocked path
        is a verdict, never an exception; a bad argument raises
        :class:`~pathgate.ToolArgumentError` naming it. ``agent`` identifies the reader for
        the no-lost-update check of writes (what it read is recorded when writes are enabled).
        """
        with self.limiter.call():  # hops granted by the call's start (fs/_sched.py)
            return await _read_files(self, paths, offset=offset, limit=limit, budget=budget, model=model,
                                     agent=agent)

    # -- write tools (typed, raw results; only when writes are enabled) --------------------

    async def write_file(
        self, path: str, content: str, *, agent: str | None = None, model: str | None = None
    ) -> WriteResult:
        """Create or overwrite ``path`` with ``content`` through the write gates.

        Missing parent directories inside the project are created. Overwriting an existing
        file needs ``agent``'s last read of it to be the current version (unless
        ``require_read_before_write`` is off). A blocked or refused write is a verdict and
        leaves the file untouched. Raises :class:`~pathgate.ConfigError` when writes are not
        enabled, :class:`~pathgate.ToolArgumentError` for a bad argument."""
        from pathgate.runtime.tools.write_file import write_file as _write_file  # writes load on use

        return await _write_file(self, path, content, agent=agent, model=model)

    async def edit_file(
        self,
        path: str,
        old_string: str,
        new_string: str,
        *,
        replace_all: bool = False,
        agent: str | None = None,
        model: str | None = None,
    ) -> WriteResult:
        """Replace the exact text ``old_string`` (unique unless ``replace_all``) with
        ``new_string`` in ``path``, under the same gates and version check as
        :meth:`write_file`. An edit that cannot apply raises
        :class:`~pathgate.ToolArgumentError` naming the argument and what to do."""
        from pathgate.runtime.tools.write_file import edit_file as _edit_file

        return await _edit_file(self, path, old_string, new_string, replace_all=replace_all,
                                agent=agent, model=model)

    def _read_facts(self, ctx: GateContext) -> FactSource:
        """:meth:`read_verdicts` fetches its facts as ``read_files`` does (one worker hop)."""
        return ReadFacts(self, self.backends.pick(self.policy.fs_backend), ctx, one_hop=True)

    def _path_facts(self, ctx: GateContext) -> FactSource:
        """:meth:`check_paths` fetches its facts in worker threads, as ``read_files`` does."""
        return ReadFacts(self, self.backends.pick(self.policy.fs_backend), ctx)

    async def run_blocking(self, fn: Callable[[], T]) -> T:
        """Run a blocking call in a worker thread (under the runtime's limiter)."""
        return await anyio.to_thread.run_sync(fn, limiter=self.limiter.get())

    def wait_in_step(self, answer: Awaitable[T]) -> T:
        """From a worker thread of :meth:`run_blocking`, ``answer`` awaited on the event loop."""
        import anyio.from_thread

        return anyio.from_thread.run(_wait, answer)

    def _discovery_facts(self, ctx: GateContext) -> FactSource:
        """Discovery's start directory and symlinks: ``read_files``' facts, thread backend."""
        return ReadFacts(self, self.backends.pick("thread"), ctx)

    # -- discovery tools (typed, raw results) ----------------------------------------------

    async def glob(
        self, pattern: str, path: str = ".", *, limit: int | None = None, model: str | None = None
    ) -> GlobResult:
        """Files below ``path`` matching ``pattern`` that every path-only gate lets through,
        with what was omitted and why (:class:`~pathgate.results.GlobResult`). ``limit``:
        maximum matches (default 500, ``0`` = no limit)."""
        from pathgate.runtime.tools.glob import glob as _glob  # discovery tools load on first use

        with self.limiter.call():
            return await _glob(self, pattern, path, limit=limit, model=model)

    async def list_directory(self, path: str = ".", *, limit: int | None = None,
                             model: str | None = None) -> ListResult:
        """The visible entries of directory ``path`` and a summary of the hidden ones.
        ``limit``: maximum entries, by name (default 500, ``0`` = no limit)."""
        from pathgate.runtime.tools.list_directory import list_directory as _list_directory

        with self.limiter.call():
            return await _list_directory(self, path, limit=limit, model=model)

    async def code_search(
        self,
        regex: str,
        path: str = ".",
        *,
        glob: str | None = None,
        max_results: int | None = None,
        context: int = 0,
        case_sensitive: bool = True,
        model: str | None = None,
    ) -> SearchResult:
        """Lines matching ``regex`` in the files below ``path`` that every gate lets through
        (secrets are never opened). ``max_results``: default 200, ``0`` = no count limit; the
        hits stay within the output budget (``policy.read_budget`` characters) either way."""
        from pathgate.runtime.tools.code_search import code_search as _code_search

        with self.limiter.call():
            return await _code_search(
                self, regex, path, glob=glob, max_results=max_results, context=context,
                case_sensitive=case_sensitive, model=model, linked_secret=self.index.linked_secret,
            )

    # -- the middleware chain --------------------------------------------------------------

    async def call(
        self,
        tool: str,
        args: Mapping[str, Any] | None = None,
        *,
        model: str | None = None,
        call_id: str | None = None,
        agent: str | None = None,
        renderer: str | None = None,
    ) -> Any:
        """Run one tool call through the chain and return what the model receives.

        ``read_files`` gives, for text renderers, ``{path: content or status text}`` in
        request order; for ``structured``, ``{"files": [...]}``. Discovery tools give
        ``{"matches" | "entries" | "hits": [...], "notes": [...]}`` (structured: the result
        as data). A bad argument or an unknown tool gives ``{"error": ..., "error_type":
        ..., "field": ...}``, never an exception. ``renderer`` forces a renderer by name
        instead of choosing by ``model``.
        """
        state = CallState()
        if renderer is not None:
            state.renderer = renderer
        call = ToolCall(tool, args or {}, model, call_id, agent, state)
        # the call's scope (``self.limiter.call()``, inline: its hops are granted by its
        # start; a view of the project's hard links of its own, even nested: fs/_calls.py)
        view = enter_view()
        try:
            if _CALL.get() is not None:  # a call inside another's scope is part of it
                return await self._chain(call)
            token = _CALL.set(Ticket(time.monotonic()))
            try:
                return await self._chain(call)
            finally:
                _CALL.reset(token)
        finally:
            VIEW.reset(view)

    def use(self, middleware: Middleware) -> None:
        """Add a host middleware ``async (call, call_next) -> result``. Host middlewares run
        inside tracing and the error boundary and outside rendering, first added outermost;
        the chain is rebuilt once here, not per call."""
        if not callable(middleware):
            raise TypeError("middleware must be an async callable (call, call_next) -> result")
        self._middlewares.append(middleware)
        self._chain = self._build_chain()

    def register_tool(
        self,
        name: str,
        fn: Callable[..., Awaitable[Any]],
        schema: Mapping[str, Any] | None = None,
        *,
        args_type: type[Any] | None = None,
        description: str = "",
        replace: bool = False,
    ) -> None:
        """Wrap a host tool with the same chain (tracing, host middlewares, error boundary).

        ``fn`` is ``async (args)`` or ``async (args, call)``: ``args`` is the validated
        ``args_type`` struct when one is given (a msgspec Struct; its JSON Schema is the
        input schema unless ``schema`` is given), else the raw mapping. Its result is
        returned as is (renderers only format pathgate's own results).
        """
        if not isinstance(name, str) or not name:
            raise ConfigError("tool name must be a non-empty string", key="tool")
        if name in self._tools and not replace:
            raise ConfigError(f"tool {name!r} is already registered (pass replace=True)", key="tool")
        if not callable(fn):
            raise ConfigError(f"tool {name!r}: fn must be an async callable", key="tool")
        import inspect  # ~10 ms of start-up, for host tools only

        takes_call = len(inspect.signature(fn).parameters) >= 2

        async def impl(args: Any, call: ToolCall) -> Any:
            return await (fn(args, call) if takes_call else fn(args))

        self._tools[name] = ToolSpec(name, impl, args_type, description, schema)

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        """The registered tools by name (built-in and host)."""
        return dict(self._tools)

    def _build_chain(self) -> CallNext:
        if not self._middlewares:
            return self._fixed_frame(ErrorBoundaryMiddleware())
        return build_chain(
            self._endpoint,
            [ErrorBoundaryMiddleware(), self._tracing, *self._middlewares, self._render],
        )

    def _fixed_frame(self, boundary: ErrorBoundaryMiddleware) -> CallNext:
        """The chain without host middlewares, as one frame: the error boundary around
        tracing around rendering around the endpoint -- the links ``build_chain`` makes, in
        the same order and with the same code, without a coroutine per link per call."""
        tracing, render, endpoint = self._tracing, self._render, self._endpoint
        tools, renderer_for, rendered_raw = self._tools, self.renderer_for, self._rendered

        async def rendered(call: ToolCall) -> Any:
            return await render(call, endpoint)

        async def frame(call: ToolCall) -> Any:
            try:
                if tracing.is_quiet():
                    INDEX_MODE.set(None)  # what the quiet tracing link does
                    # the rendering link and the endpoint, in this frame (``_render``, ``_endpoint``)
                    state = call.state
                    renderer = renderer_for(call.model, state.renderer)
                    state.renderer = renderer.name
                    spec = tools.get(call.tool)
                    if spec is None:
                        raise unknown_tool(call.tool, list(tools))
                    raw = await spec.fn(validate_args(spec, call.args), call)
                    state.raw = raw
                    return rendered_raw(renderer, raw) if state.render else raw
                return await tracing._traced(call, rendered)
            except Exception as exc:
                return boundary.handle(call, exc)

        return frame

    async def _render(self, call: ToolCall, call_next: CallNext) -> Any:
        """The rendering link: raw pathgate results -> what the model receives."""
        renderer = self.renderer_for(call.model, call.state.renderer)
        call.state.renderer = renderer.name
        raw = await call_next(call)
        call.state.raw = raw  # the raw results stay available to the links above
        if not call.state.render:
            return raw
        return self._rendered(renderer, raw)

    @staticmethod
    def _rendered(renderer: Renderer, raw: Any) -> Any:
        """What the model receives for a tool's raw result ``raw``."""
        if isinstance(raw, list) and _all_reads(raw):
            return renderer.render_read(raw)
        if isinstance(raw, (GlobResult, ListResult, SearchResult)):
            return render_discovery(renderer, raw)
        if isinstance(raw, WriteResult):
            return render_write(renderer, raw)
        return raw

    async def _endpoint(self, call: ToolCall) -> Any:
        spec = self._tools.get(call.tool)
        if spec is None:
            raise unknown_tool(call.tool, list(self._tools))
        args = validate_args(spec, call.args)
        return await spec.fn(args, call)

    def _register_builtins(self) -> None:
        from pathgate.renderers._base import READ_FILES_DESCRIPTION

        specs = [
            ToolSpec("read_files", self._tool_read_files, ReadFilesArgs, READ_FILES_DESCRIPTION,
                     builtin=True),
            ToolSpec("glob", self._tool_glob, GlobArgs, GLOB_DESCRIPTION, builtin=True),
            ToolSpec("list_directory", self._tool_list_directory, ListDirectoryArgs,
                     LIST_DIRECTORY_DESCRIPTION, builtin=True),
            ToolSpec("code_search", self._tool_code_search, CodeSearchArgs, CODE_SEARCH_DESCRIPTION,
                     builtin=True),
        ]
        if self.allow_writes:
            from pathgate.runtime.tools.write_file import EDIT_FILE_DESCRIPTION, WRITE_FILE_DESCRIPTION

            specs += [
                ToolSpec("write_file", self._tool_write_file, WriteFileArgs, WRITE_FILE_DESCRIPTION,
                         builtin=True),
                ToolSpec("edit_file", self._tool_edit_file, EditFileArgs, EDIT_FILE_DESCRIPTION,
                         builtin=True),
            ]
        for spec in specs:
            self._tools[spec.name] = spec

    # -- tool calls: model spellings in, JSON-safe spellings out (pathgate._names) ----------

    async def _tool_write_file(self, args: WriteFileArgs, call: ToolCall) -> WriteResult:
        result = await self.write_file(unspell_path(args.path), args.content, agent=call.agent,
                                       model=call.model)
        call.state.verdicts = [result.verdict]
        return spell_names(result)

    async def _tool_edit_file(self, args: EditFileArgs, call: ToolCall) -> WriteResult:
        result = await self.edit_file(unspell_path(args.path), args.old_string, args.new_string,
                                      replace_all=args.replace_all, agent=call.agent, model=call.model)
        call.state.verdicts = [result.verdict]
        return spell_names(result)

    async def _tool_read_files(self, args: ReadFilesArgs, call: ToolCall) -> list[FileResult]:
        # a spelling without a double quote is its own path (``unspell_path`` returns it as is)
        paths = args.paths
        if len(paths) != 1 or '"' in paths[0]:
            paths = [p if '"' not in p else unspell_path(p) for p in paths]
        # inside the call's scope already (``call``): the tool itself, not ``read_files``' scope
        results = await _read_files(self, paths, offset=args.offset, limit=args.limit, model=call.model,
                                    agent=call.agent)
        if len(results) == 1:
            r = results[0]
            call.state.verdicts = [None if r.truncated else r.verdict]
        else:
            call.state.verdicts = [None if r.truncated else r.verdict for r in results]
        return _spell_reads(results)

    @staticmethod
    def _record_discovery(call: ToolCall, result: GlobResult | ListResult | SearchResult) -> None:
        omitted: dict[GateName, int] = {}
        for om in result.omitted:
            omitted[om.gate] = omitted.get(om.gate, 0) + om.count
        call.state.omitted = omitted
        call.state.verdicts = [result.verdict] if result.verdict is not None else []

    async def _tool_glob(self, args: GlobArgs, call: ToolCall) -> GlobResult:
        result = await self.glob(unspell_path(args.pattern), unspell_path(args.path), limit=args.limit,
                                 model=call.model)
        self._record_discovery(call, result)
        return spell_names(result)

    async def _tool_list_directory(self, args: ListDirectoryArgs, call: ToolCall) -> ListResult:
        result = await self.list_directory(unspell_path(args.path), limit=args.limit, model=call.model)
        self._record_discovery(call, result)
        return spell_names(result)

    async def _tool_code_search(self, args: CodeSearchArgs, call: ToolCall) -> SearchResult:
        result = await self.code_search(
            args.regex, unspell_path(args.path), glob=None if args.glob is None else unspell_path(args.glob),
            max_results=args.max_results, context=args.context, case_sensitive=args.case_sensitive,
            model=call.model,
        )
        self._record_discovery(call, result)
        return spell_names(result)


#: The fields of :class:`~pathgate.FileResult` :func:`_spell_reads` knows; with any other
#: layout every result goes through ``spell_names``.
_READ_FIELDS = ("path", "content", "verdict", "relpath", "truncated", "total_lines", "same_as")


def _all_reads(raw: list[Any]) -> bool:
    """Is every item a :class:`~pathgate.FileResult` (``read_files``' raw result)?"""
    for r in raw:
        if type(r) is not FileResult and not isinstance(r, FileResult):
            return False
    return True


def _plain_name(name: str | None) -> bool:
    """Is ``name`` spelled as itself (``spell_path``: printable ASCII, no leading quote)?"""
    return name is None or (name.isascii() and name.isprintable() and not name.startswith('"'))


def _spell_reads(results: list[FileResult]) -> list[FileResult]:
    """``spell_names(results)`` without its per-field walk where it would change nothing: a
    result with no verdict whose names are printable ASCII and whose content is ASCII (no
    lone surrogate) is kept as is; any other goes through ``spell_names``."""
    if FileResult.__struct_fields__ != _READ_FIELDS:
        return spell_names(results)
    # the whole batch at once: every result passes the test below when none has a verdict or
    # a ``same_as``, each shows its path as its relpath (the same object), every content is
    # ASCII, and the paths joined are printable ASCII without a quote -- else each one is
    # tested (one loop: a field read by the interpreter's specialised attribute load costs a
    # tenth of ``operator.attrgetter``'s)
    for r in results:
        content = r.content
        if (r.verdict is not None or r.same_as is not None or r.relpath is not r.path or content is None
                or not content.isascii()):
            break
    else:
        joined = "".join([r.path for r in results])
        # printable ASCII: no control character (``str.isprintable`` on ASCII), one table look-up a byte
        if joined.isascii() and '"' not in joined and joined.encode("ascii").translate(
                b"\x00" * 32 + b"\x01" * 95 + b"\x00" * 129).find(b"\x00") < 0:
            return list(results)
    out: list[FileResult] = []
    for r in results:
        p = r.path
        if (r.verdict is None and p.isascii() and p.isprintable() and p[:1] != '"'
                and (r.relpath is p or _plain_name(r.relpath)) and (r.same_as is None or _plain_name(r.same_as))
                and (r.content is None or r.content.isascii())):
            out.append(r)
        else:
            out.append(spell_names(r))
    return out


async def _wait(answer: Awaitable[T]) -> T:
    return await answer
