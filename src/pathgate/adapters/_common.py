"""What every framework adapter shares: the tool listing, the call, and the text a model reads.

Adapters stay thin: each call goes through :meth:`pathgate.Runtime.call` (error boundary,
tracing, host middlewares, rendering per model, gates), so a framework's tool call is traced
and rendered like any other. Nothing here imports a framework.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import os
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import msgspec

from pathgate._types import CallNext, ToolCall
from pathgate.renderers._base import Renderer
from pathgate.renderers._discovery import render_discovery
from pathgate.renderers._writes import render_write
from pathgate.results import GlobResult, ListResult, SearchResult, WriteResult
from pathgate.runtime.tools.write_file import WRITE_TOOLS
from pathgate.verdicts import FileResult, Gate

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = [
    "BUILTIN_TOOLS",
    "DEFAULT_PATH_KEYS",
    "WRITE_TOOLS",
    "Guarded",
    "ToolInfo",
    "call_tool",
    "call_tool_twice_rendered",
    "default_tools",
    "guard_arguments",
    "guard_paths",
    "is_error",
    "path_arguments",
    "run_sync",
    "scan_arguments",
    "to_text",
    "tool_infos",
]

def missing_extra(adapter: str, extra: str, exc: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error an adapter raises when its framework is not installed: names the extra to
    install (still a ``ModuleNotFoundError``, so ``except ImportError`` keeps working)."""
    missing = exc.name or str(exc)
    return ModuleNotFoundError(
        f"pathgate.adapters.{adapter} needs the {extra!r} extra: pip install 'pathgate[{extra}]' "
        f"(module {missing!r} is not installed)",
        name=exc.name,
    )


#: pathgate's own file tools, in listing order; the write tools (``WRITE_TOOLS``) are
#: listed after them only on a runtime with writes enabled.
BUILTIN_TOOLS = ("read_files", "glob", "list_directory", "code_search")


def default_tools(runtime: Runtime) -> tuple[str, ...]:
    """The tools an adapter declares by default: the four file tools, plus ``write_file``
    and ``edit_file`` when the host enabled writes (``Runtime(allow_writes=True)``)."""
    return BUILTIN_TOOLS + WRITE_TOOLS if runtime.allow_writes else BUILTIN_TOOLS

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as a framework declares it: name, description, input JSON Schema."""

    name: str
    description: str
    schema: dict[str, Any]


def tool_infos(runtime: Runtime, names: Iterable[str] | None = None, *,
               renderer: str | None = None, model: str | None = None) -> list[ToolInfo]:
    """The tools to declare (default: :func:`default_tools`). ``read_files`` gets the
    description of the renderer the model will get (``renderer`` or chosen by ``model``)."""
    specs = runtime.tools
    wanted = list(default_tools(runtime) if names is None else names)
    unknown = [n for n in wanted if n not in specs]
    if unknown:
        raise ValueError(f"no tool named {', '.join(map(repr, unknown))} on this runtime; "
                         f"known tools: {', '.join(sorted(specs))}")
    read_description = runtime.renderer_for(model, renderer).read_files_description
    return [
        ToolInfo(name, read_description if name == "read_files" else specs[name].description,
                 specs[name].schema())
        for name in wanted
    ]


async def call_tool(runtime: Runtime, name: str, args: Mapping[str, Any] | None, *,
                    model: str | None = None, call_id: str | None = None, agent: str | None = None,
                    renderer: str | None = None) -> Any:
    """One tool call through the runtime's chain; what the model receives (never raises for a
    bad argument: that is an error result, see :func:`is_error`)."""
    return await runtime.call(name, args if args is not None else {}, model=model, call_id=call_id,
                              agent=agent, renderer=renderer)


def is_error(result: Any) -> bool:
    """Whether ``result`` is the error result of a failed call (bad argument, unknown tool,
    internal error) rather than a tool result (which may hold blocked paths)."""
    return isinstance(result, dict) and "error" in result and "error_type" in result


def to_text(result: Any) -> str:
    """The text a model reads: an error's message, a string as is, anything else as JSON
    (``{path: content or status}`` for ``read_files`` with a text renderer)."""
    if is_error(result):
        return str(result["error"])
    if isinstance(result, str):
        return result
    return msgspec.json.encode(result).decode()


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run an async pathgate call from synchronous framework code.

    Outside an event loop this runs one (``anyio.run``); called from a thread whose event
    loop is running, it runs the call on a worker thread's own loop and waits for it.
    """
    job = functools.partial(fn, *args, **kwargs)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(job)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, job).result()


# -- one run, two renders ------------------------------------------------------------------

_UNSET: Any = object()


@dataclass(slots=True)
class _Capture:
    """Per-call box: the raw tool result, left by the capture middleware."""

    raw: Any = _UNSET
    claimed: bool = False


_CAPTURE: contextvars.ContextVar[_Capture | None] = contextvars.ContextVar("pathgate_capture", default=None)
_INSTALLED: weakref.WeakSet[Runtime] = weakref.WeakSet()


@dataclass(slots=True)
class _CaptureMiddleware:
    """A host middleware, inert unless an adapter's call set a :class:`_Capture` box.

    There it switches the rendering link off (``state.render = False``), keeps the raw
    result in the box, and returns the chosen renderer's output, so middlewares added before
    it see what they always see.
    """

    runtime: Runtime = field(repr=False)

    async def __call__(self, call: ToolCall, call_next: CallNext) -> Any:
        box = _CAPTURE.get()
        if box is None or box.claimed:
            return await call_next(call)
        box.claimed = True
        call.state.render = False
        raw = await call_next(call)
        box.raw = raw
        return render(self.runtime.renderer_for(call.model, call.state.renderer), raw)


def render(renderer: Renderer, raw: Any) -> Any:
    """Render a raw pathgate result as the rendering link does (others are returned as is)."""
    if isinstance(raw, list) and all(isinstance(r, FileResult) for r in raw):
        return renderer.render_read(raw)
    if isinstance(raw, (GlobResult, ListResult, SearchResult)):
        return render_discovery(renderer, raw)
    if isinstance(raw, WriteResult):
        return render_write(renderer, raw)
    return raw


def install_capture(runtime: Runtime) -> None:
    """Add the capture middleware to ``runtime`` (once per runtime)."""
    if runtime not in _INSTALLED:
        runtime.use(_CaptureMiddleware(runtime))
        _INSTALLED.add(runtime)


async def call_tool_raw(runtime: Runtime, name: str, args: Mapping[str, Any] | None, **kwargs: Any,
                        ) -> tuple[Any, Any]:
    """One call through the chain: ``(what the model receives, the raw result)``; the raw
    result is ``None`` when the call failed. Installs the capture middleware on first use."""
    install_capture(runtime)
    box = _Capture()
    token = _CAPTURE.set(box)
    try:
        result = await call_tool(runtime, name, args, **kwargs)
    finally:
        _CAPTURE.reset(token)
    if is_error(result) or box.raw is _UNSET:
        return result, None
    return result, box.raw


async def call_tool_twice_rendered(runtime: Runtime, name: str, args: Mapping[str, Any] | None,
                                   **kwargs: Any) -> tuple[Any, Any]:
    """``(what the model receives, the structured renderer's output)`` from one run; the
    second is ``None`` when the call failed (bad argument, unknown tool)."""
    result, raw = await call_tool_raw(runtime, name, args, **kwargs)
    if raw is None:
        return result, None
    return result, render(runtime.renderer_for(name="structured"), raw)


# -- guarding other tools' path arguments --------------------------------------------------

#: Argument names taken as paths by :func:`path_arguments` (a list of strings is many paths).
DEFAULT_PATH_KEYS = frozenset({
    "path", "paths", "file", "files", "file_path", "file_paths", "filepath", "filename",
    "target_file", "source", "destination", "dir", "directory",
})

#: Gates that decide on the path alone; later gates (existence, size, read) are the tool's
#: own business (a write tool's target need not exist yet). A write guard adds the write
#: gate (what is never writable: pathgate's and the agent CLIs' own files, git's …).
_GUARD_GATES = frozenset({Gate.PATH, Gate.SECRETS, Gate.HOST_FILTER, Gate.IGNORE})
_WRITE_GUARD_GATES = _GUARD_GATES | {Gate.WRITE, Gate.EXISTENCE}


#: What the model reads for a path-named argument the guard cannot judge (the call is refused).
_UNJUDGED = "[BLOCKED]: not a path string pathgate can check"

#: Values under a path key that clearly are not paths (JSON's null, booleans and numbers).
_NOT_PATHS = (type(None), bool, int, float)


@dataclass(frozen=True, slots=True)
class PathScan:
    """The path arguments found in a tool's arguments: ``paths`` (strings, in order, without
    repeats) and ``unjudged`` (where a path key holds a value that is neither a string, an
    object or list to look into, nor null/bool/number: the call must be refused)."""

    paths: list[str]
    unjudged: list[str]


def _is_items(node: Any) -> bool:
    return isinstance(node, (Sequence, AbstractSet)) and not isinstance(node, (str, bytes, bytearray))


def scan_arguments(args: Any, keys: Iterable[str] = DEFAULT_PATH_KEYS) -> PathScan:
    """Find the path arguments in ``args`` (JSON-like data): the values of ``keys`` anywhere.

    A path key's value is a path (a string or ``os.PathLike``), a list of them, or objects
    (alone or in lists) that name their paths with ``keys`` in turn; anything else under a
    path key, bar null, booleans and numbers, is *unjudged* (fail closed: refuse the call).
    Values under other keys are looked into, never taken as paths themselves.
    """
    wanted = frozenset(keys)
    found: list[str] = []
    unjudged: list[str] = []

    def visit(node: Any, where: str, is_path: bool) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                visit(value, f"{where}.{key}" if where else str(key), key in wanted)
        elif _is_items(node):
            for i, item in enumerate(node):
                visit(item, f"{where}[{i}]", is_path)
        elif not is_path or isinstance(node, _NOT_PATHS):
            return
        elif isinstance(node, str):
            found.append(node)
        elif isinstance(node, os.PathLike) and isinstance(path := os.fspath(node), str):
            found.append(path)
        else:
            unjudged.append(where)

    visit(args, "", False)
    return PathScan(list(dict.fromkeys(found)), unjudged)


def path_arguments(args: Any, keys: Iterable[str] = DEFAULT_PATH_KEYS) -> list[str]:
    """The path strings in a tool's arguments (see :func:`scan_arguments`); raises
    ``ValueError`` when a path key holds a value that cannot be judged."""
    scan = scan_arguments(args, keys)
    if scan.unjudged:
        raise ValueError(f"path arguments pathgate cannot check: {', '.join(scan.unjudged)}")
    return scan.paths


@dataclass(frozen=True, slots=True)
class Guarded:
    """The guard's decision on a call's paths: ``blocked`` maps each refused path to what
    the model should read about it (rendered for its model; a secret stays bare)."""

    paths: list[str]
    blocked: dict[str, Any]

    @property
    def allowed(self) -> bool:
        return not self.blocked

    def message(self, tool: str) -> str:
        """The text the model reads instead of the tool's result."""
        head = f"{tool} was not run: pathgate refused "
        head += "its path" if len(self.blocked) == 1 else f"{len(self.blocked)} of its paths"
        return head + ".\n" + to_text(self.blocked)


def _forms(path: str) -> list[str]:
    """The paths a host tool may open for ``path``: itself and, for ``~`` or ``~user``, the
    home path it expands to (a host tool may call ``expanduser``; pathgate does not)."""
    if not path.startswith("~"):
        return [path]
    home = os.path.expanduser(path)
    return [path] if home == path else [path, home]


async def guard_paths(runtime: Runtime, paths: Sequence[str], *, model: str | None = None,
                      call_id: str | None = None, agent: str | None = None,
                      renderer: str | None = None, writes: bool = False) -> Guarded:
    """Check ``paths`` (another tool's path arguments) with the gates that decide on the path
    alone: escapes, secrets, the host filter, ignore rules. Runs as a zero-line
    ``read_files`` through the runtime's chain, so it is traced like any call. A path
    starting with ``~`` is checked both as written and as the home path it expands to
    (outside the project: refused), since the host tool may expand it.

    ``writes``: the tool writes to these paths — they pass the write gates instead
    (:func:`~pathgate.runtime.tools.write_file.judge_writes`: never outside the root, never
    what the agent may not write — pathgate's and the agent CLIs' own files, what steers
    git, git directories — secrets, the host filter asked with ``"write"``, ignore rules)."""
    paths = list(dict.fromkeys(paths))
    if not paths:
        return Guarded([], {})
    forms = {p: _forms(p) for p in paths}
    checked = list(dict.fromkeys(f for fs in forms.values() for f in fs))
    if writes:
        from pathgate.runtime.tools.write_file import judge_writes

        found = await judge_writes(runtime, checked, model=model)
        gates = _WRITE_GUARD_GATES
    else:
        rendered, raw = await call_tool_raw(runtime, "read_files", {"paths": checked, "limit": 0},
                                            model=model, call_id=call_id, agent=agent, renderer=renderer)
        if raw is None or len(raw) != len(checked):  # pathgate rejected the arguments: refuse them all
            return Guarded(paths, {p: to_text(rendered) if raw is None else _UNJUDGED for p in paths})
        found = [res.verdict if not res.truncated else None for res in raw]
        gates = _GUARD_GATES
    chosen = runtime.renderer_for(model, renderer)
    verdicts = dict(zip(checked, found, strict=True))
    blocked: dict[str, Any] = {}
    for path, path_forms in forms.items():
        for form in path_forms:
            verdict = verdicts[form]
            if verdict is not None and verdict.gate in gates:
                blocked[path] = chosen.render_verdict(path, verdict)
                break
    return Guarded(paths, blocked)


async def guard_arguments(runtime: Runtime, args: Any, keys: Iterable[str] = DEFAULT_PATH_KEYS,
                          **kwargs: Any) -> Guarded:
    """:func:`guard_paths` on the path arguments in ``args`` (see :func:`scan_arguments`); a
    path key holding a value that cannot be judged is refused too (named by where it sits,
    e.g. ``files[0]``), so the call is not run."""
    scan = scan_arguments(args, keys)
    guarded = await guard_paths(runtime, scan.paths, **kwargs)
    if not scan.unjudged:
        return guarded
    return Guarded(guarded.paths, {**dict.fromkeys(scan.unjudged, _UNJUDGED), **guarded.blocked})
