"""What every framework adapter shares: the tool listing, the call, and the text a model reads.

Adapters stay thin: each call goes through :meth:`pathgate.Runtime.call` (error boundary,
tracing, host middlewares, rendering per model, gates), so a framework's tool call is traced
and rendered like any other. Nothing here imports a framework.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import msgspec

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = [
    "BUILTIN_TOOLS",
    "ToolInfo",
    "call_tool",
    "is_error",
    "run_sync",
    "to_text",
    "tool_infos",
]

#: pathgate's own file tools, in listing order.
BUILTIN_TOOLS = ("read_files", "glob", "list_directory", "code_search")

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as a framework declares it: name, description, input JSON Schema."""

    name: str
    description: str
    schema: dict[str, Any]


def tool_infos(runtime: Runtime, names: Iterable[str] | None = None, *,
               renderer: str | None = None, model: str | None = None) -> list[ToolInfo]:
    """The tools to declare (default: pathgate's four file tools). ``read_files`` gets the
    description of the renderer the model will get (``renderer`` or chosen by ``model``)."""
    specs = runtime.tools
    wanted = list(BUILTIN_TOOLS if names is None else names)
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
