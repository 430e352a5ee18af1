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

import inspect
import os
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pathgate._types import CallNext, CallState, Middleware, ToolCall
from pathgate.config import Policy, RendererRule, load_config
from pathgate.errors import ConfigError, ToolArgumentError
from pathgate.renderers._base import Renderer, RendererSelector, default_registry
from pathgate.renderers._discovery import render_discovery
from pathgate.results import GlobResult, ListResult, SearchResult
from pathgate.runtime._chain import ErrorBoundaryMiddleware, build_chain
from pathgate.runtime._dispatch import (
    CodeSearchArgs,
    GlobArgs,
    ListDirectoryArgs,
    ReadFilesArgs,
    ToolSpec,
    unknown_tool,
    validate_args,
)
from pathgate.runtime._tracing import SpanMode, TracingMiddleware
from pathgate.runtime.fs import Backends, FileOps, IoLimiter, OsFS, SyncFS
from pathgate.runtime.gates import GateCheck, GatePipeline
from pathgate.runtime.ignore import IgnoreIndex
from pathgate.runtime.tools.code_search import code_search as _code_search
from pathgate.runtime.tools.glob import glob as _glob
from pathgate.runtime.tools.list_directory import list_directory as _list_directory
from pathgate.runtime.tools.read_files import read_files as _read_files
from pathgate.verdicts import FileResult
from pathgate.verdicts import Gate as GateName

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

RendererRules = RendererSelector | Iterable[RendererRule | tuple[str, str]]

GLOB_DESCRIPTION = (
    "Find files by glob pattern, matched against paths relative to `path` (default: the "
    "project root). `*` and `?` stay within one path segment, `**` spans directories "
    "(`**/*.py` for any depth; `*.py` is the top level only). Returns project-relative paths, "
    "sorted. Notes say how many matches were omitted and why (for example by ignore rules), "
    "and which ignored directories were not searched."
)
LIST_DIRECTORY_DESCRIPTION = (
    "List one directory's entries (directories end with `/`, symlinks with `@`). Notes say "
    "how many entries are hidden and why."
)
CODE_SEARCH_DESCRIPTION = (
    "Search file contents with a Python regular expression, line by line, below `path`, "
    "optionally only in files matching `glob`. Hits are `path:line:text` (context lines "
    "`path-line-text`). Notes say what was omitted or skipped and why."
)

__all__ = ["Runtime"]


class Runtime:
    """pathgate for one project root.

    * ``root``: the project directory (resolved with ``realpath`` once).
    * ``policy``: a :class:`~pathgate.Policy`; ``None`` loads ``pathgate.toml`` /
      ``[tool.pathgate]`` from the root (:func:`~pathgate.load_config`).
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
        self.limiter = IoLimiter(self.policy.max_concurrency)
        self.backends = Backends(self.ops, self.limiter)
        if isinstance(renderers, RendererSelector):
            self.renderers = renderers
        else:
            rules = self.policy.renderers if renderers is None else tuple(renderers)
            self.renderers = RendererSelector(rules, self.policy.default_renderer)
        self._tracing = TracingMiddleware(
            tracer_provider=tracer_provider, meter_provider=meter_provider, span_mode=span_mode
        )
        self._tools: dict[str, ToolSpec] = {}
        self._middlewares: list[Middleware] = []
        self._register_builtins()
        self._chain: CallNext = self._build_chain()

    def __repr__(self) -> str:
        return f"Runtime({self.root!r})"

    async def read_files(
        self,
        paths: Sequence[str],
        *,
        offset: int | None = None,
        limit: int | None = None,
        budget: int | None = None,
        model: str | None = None,
    ) -> list[FileResult]:
        """Read ``paths`` through the gates; one :class:`~pathgate.FileResult` per path.

        Results keep the request's order; spellings of one file (``a``, ``./a``, ``d/../a``)
        are read once and reported under each spelling. ``offset`` (1-based first line) and
        ``limit`` (line count) window every file; ``budget`` (characters, default
        ``policy.read_budget``) caps the call's total content, cutting with a
        ``[FILE_TOO_LARGE]`` notice. ``model`` selects per-model size limits. A blocked path
        is a verdict, never an exception; a bad argument raises
        :class:`~pathgate.ToolArgumentError` naming it.
        """
        return await _read_files(self, paths, offset=offset, limit=limit, budget=budget, model=model)

    # -- discovery tools (typed, raw results) ----------------------------------------------

    async def glob(
        self, pattern: str, path: str = ".", *, limit: int | None = None, model: str | None = None
    ) -> GlobResult:
        """Files below ``path`` matching ``pattern`` that every path-only gate lets through,
        with what was omitted and why (:class:`~pathgate.results.GlobResult`). ``limit``:
        maximum matches (default 500, ``0`` = no limit)."""
        return await _glob(self, pattern, path, limit=limit, model=model)

    async def list_directory(self, path: str = ".", *, model: str | None = None) -> ListResult:
        """The visible entries of directory ``path`` and a summary of the hidden ones."""
        return await _list_directory(self, path, model=model)

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
        (secrets are never opened). ``max_results``: default 200, ``0`` = no limit."""
        return await _code_search(
            self, regex, path, glob=glob, max_results=max_results, context=context,
            case_sensitive=case_sensitive, model=model,
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
        return await self._chain(ToolCall(tool, args or {}, model, call_id, agent, state))

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
        takes_call = len(inspect.signature(fn).parameters) >= 2

        async def impl(args: Any, call: ToolCall) -> Any:
            return await (fn(args, call) if takes_call else fn(args))

        self._tools[name] = ToolSpec(name, impl, args_type, description, schema)

    @property
    def tools(self) -> Mapping[str, ToolSpec]:
        """The registered tools by name (built-in and host)."""
        return dict(self._tools)

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

    def _build_chain(self) -> CallNext:
        return build_chain(
            self._endpoint,
            [ErrorBoundaryMiddleware(), self._tracing, *self._middlewares, self._render],
        )

    async def _render(self, call: ToolCall, call_next: CallNext) -> Any:
        """The rendering link: raw pathgate results -> what the model receives."""
        renderer = self.renderer_for(call.model, call.state.renderer)
        call.state.renderer = renderer.name
        raw = await call_next(call)
        call.state.raw = raw  # the raw results stay available to the links above
        if not call.state.render:
            return raw
        if isinstance(raw, list) and all(isinstance(r, FileResult) for r in raw):
            return renderer.render_read(raw)
        if isinstance(raw, (GlobResult, ListResult, SearchResult)):
            return render_discovery(renderer, raw)
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
        for spec in specs:
            self._tools[spec.name] = spec

    async def _tool_read_files(self, args: ReadFilesArgs, call: ToolCall) -> list[FileResult]:
        results = await self.read_files(args.paths, offset=args.offset, limit=args.limit, model=call.model)
        call.state.verdicts = [None if r.truncated else r.verdict for r in results]
        return results

    @staticmethod
    def _record_discovery(call: ToolCall, result: GlobResult | ListResult | SearchResult) -> None:
        omitted: dict[GateName, int] = {}
        for om in result.omitted:
            omitted[om.gate] = omitted.get(om.gate, 0) + om.count
        call.state.omitted = omitted
        call.state.verdicts = [result.verdict] if result.verdict is not None else []

    async def _tool_glob(self, args: GlobArgs, call: ToolCall) -> GlobResult:
        result = await self.glob(args.pattern, args.path, limit=args.limit, model=call.model)
        self._record_discovery(call, result)
        return result

    async def _tool_list_directory(self, args: ListDirectoryArgs, call: ToolCall) -> ListResult:
        result = await self.list_directory(args.path, model=call.model)
        self._record_discovery(call, result)
        return result

    async def _tool_code_search(self, args: CodeSearchArgs, call: ToolCall) -> SearchResult:
        result = await self.code_search(
            args.regex, args.path, glob=args.glob, max_results=args.max_results,
            context=args.context, case_sensitive=args.case_sensitive, model=call.model,
        )
        self._record_discovery(call, result)
        return result
