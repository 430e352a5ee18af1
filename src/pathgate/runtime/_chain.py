"""The middleware chain, built once.

The frame is fixed, outermost first::

    ErrorBoundaryMiddleware   bad arguments / unexpected exceptions -> an error result
    TracingMiddleware         one span per call, counters, latency   (runtime/_tracing.py)
    <host middlewares>        runtime.use(mw), first added = outermost
    RenderingMiddleware       raw results -> what the model receives (per-model renderer)
    <tool endpoint>           argument validation, gates, the tool itself

Each link is ``async (call, call_next) -> result`` and ``call_next`` is a direct await of the
next link, so the span set by tracing is current in every link below it, and thread work
started with ``anyio.to_thread.run_sync`` inherits it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import anyio

from pathgate._types import CallNext, Middleware, ToolCall
from pathgate.errors import ToolArgumentError, UnknownToolError

__all__ = ["ERROR_TYPES", "ErrorBoundaryMiddleware", "build_chain", "error_result", "tool_error_text"]

log = logging.getLogger("pathgate")

#: The documented, low-cardinality values of ``error.type`` (span attribute and metric).
ERROR_TYPES = {
    "invalid_arguments": "a tool argument failed validation (the result names the field)",
    "unknown_tool": "no tool of that name is registered",
    "internal": "an unexpected exception inside pathgate or a host tool/middleware",
}


def error_result(message: str, *, error_type: str, field: str | None = None) -> dict[str, Any]:
    """The JSON-ready error result a model receives instead of a traceback."""
    out: dict[str, Any] = {"error": message, "error_type": error_type}
    if field is not None:
        out["field"] = field
    return out


def tool_error_text(tool: str, exc: ToolArgumentError) -> str:
    """``exc``'s message with the tool's prefix every argument error carries
    (``"glob: argument `pattern`: must be a non-empty glob pattern"``), added when a helper
    shared by several tools (a glob compiler, say) raised it without one."""
    text = str(exc)
    if text.startswith(f"{tool}: "):
        return text
    if exc.field and text.startswith(f"{exc.field}: "):
        return f"{tool}: argument `{exc.field}`: {text[len(exc.field) + 2:]}"
    return f"{tool}: {text}"


def classify_error(exc: BaseException) -> str:
    """Map an exception to one of :data:`ERROR_TYPES`."""
    if isinstance(exc, ToolArgumentError):
        return "invalid_arguments"
    if isinstance(exc, UnknownToolError):
        return "unknown_tool"
    return "internal"


class ErrorBoundaryMiddleware:
    """Outermost link: no exception reaches the host except cancellation.

    Argument errors carry their own (safe) message naming the field. Any other exception
    becomes a generic message: exception texts can hold file names, and nothing about an
    opaque path may reach the model through an error message.
    """

    async def __call__(self, call: ToolCall, call_next: CallNext) -> Any:
        try:
            return await call_next(call)
        except Exception as exc:
            return self.handle(call, exc)

    @staticmethod
    def handle(call: ToolCall, exc: Exception) -> Any:
        """The result for ``exc`` raised below the boundary (inside its ``except``): an
        error result, or ``exc`` raised again when it is the async library's cancellation."""
        if isinstance(exc, anyio.get_cancelled_exc_class()):
            raise exc
        if isinstance(exc, ToolArgumentError):
            call.state.error_type = "invalid_arguments"
            return error_result(tool_error_text(call.tool, exc), error_type="invalid_arguments",
                                field=exc.field)
        if isinstance(exc, UnknownToolError):
            call.state.error_type = "unknown_tool"
            return error_result(str(exc), error_type="unknown_tool")
        call.state.error_type = "internal"
        log.exception("pathgate: tool %r failed", call.tool)
        return error_result(f"internal error in tool {call.tool!r}", error_type="internal")


def build_chain(endpoint: CallNext, middlewares: Sequence[Middleware]) -> CallNext:
    """Compose ``middlewares`` (outermost first) around ``endpoint`` into one callable."""
    handler: CallNext = endpoint
    for mw in reversed(middlewares):
        handler = _link(mw, handler)
    return handler


def _link(mw: Middleware, call_next: CallNext) -> CallNext:
    async def run(call: ToolCall) -> Any:
        return await mw(call, call_next)

    run.__qualname__ = f"link<{type(mw).__name__}>"
    return run
