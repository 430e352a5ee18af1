"""The middleware chain: order, one context for the whole chain, the error boundary."""

from __future__ import annotations

import contextvars
from typing import Any

import anyio
import pytest

from pathgate._types import CallNext, ToolCall
from pathgate.errors import ToolArgumentError, UnknownToolError
from pathgate.runtime._chain import ErrorBoundaryMiddleware, build_chain

pytestmark = pytest.mark.anyio

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


class Recorder:
    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    async def __call__(self, call: ToolCall, call_next: CallNext) -> Any:
        self.log.append(f"{self.name}>")
        result = await call_next(call)
        self.log.append(f"<{self.name}")
        return result


async def test_outermost_first_and_back(anyio_backend: str) -> None:
    log: list[str] = []

    async def endpoint(call: ToolCall) -> str:
        log.append("tool")
        return "done"

    chain = build_chain(endpoint, [Recorder("a", log), Recorder("b", log)])
    assert await chain(ToolCall("t", {})) == "done"
    assert log == ["a>", "b>", "tool", "<b", "<a"]


async def test_context_set_above_is_seen_below_and_in_threads(anyio_backend: str) -> None:
    async def setter(call: ToolCall, call_next: CallNext) -> Any:
        token = VAR.set("outer")
        try:
            return await call_next(call)
        finally:
            VAR.reset(token)

    async def endpoint(call: ToolCall) -> tuple[str, str]:
        in_thread = await anyio.to_thread.run_sync(VAR.get)
        return VAR.get(), in_thread

    chain = build_chain(endpoint, [setter])
    assert await chain(ToolCall("t", {})) == ("outer", "outer")


@pytest.mark.parametrize(
    ("exc", "error_type", "field", "text"),
    [
        # a shared helper's message gets the tool's prefix, like every other argument error
        (ToolArgumentError("paths: expected an array", field="paths"), "invalid_arguments", "paths",
         "t: argument `paths`: expected an array"),
        (ToolArgumentError("t: `paths` must be a list", field="paths"), "invalid_arguments", "paths",
         "t: `paths` must be a list"),
        (UnknownToolError("no tool named 'x'"), "unknown_tool", None, "no tool named 'x'"),
    ],
)
async def test_boundary_turns_known_errors_into_results(
    anyio_backend: str, exc: Exception, error_type: str, field: str | None, text: str
) -> None:
    async def endpoint(call: ToolCall) -> Any:
        raise exc

    call = ToolCall("t", {})
    result = await build_chain(endpoint, [ErrorBoundaryMiddleware()])(call)
    assert result["error_type"] == error_type
    assert result["error"] == text
    assert result.get("field") == field
    assert call.state.error_type == error_type


async def test_boundary_hides_unexpected_exception_text(anyio_backend: str) -> None:
    async def endpoint(call: ToolCall) -> Any:
        raise OSError(13, "Permission denied", "/project/.env.production")

    result = await build_chain(endpoint, [ErrorBoundaryMiddleware()])(ToolCall("read_files", {}))
    assert result["error_type"] == "internal"
    assert ".env" not in repr(result)
    assert "Permission" not in repr(result)


async def test_boundary_lets_cancellation_through(anyio_backend: str) -> None:
    reached_after = False

    async def endpoint(call: ToolCall) -> Any:
        await anyio.sleep(10)

    chain = build_chain(endpoint, [ErrorBoundaryMiddleware()])
    with anyio.move_on_after(0.05) as scope:
        await chain(ToolCall("t", {}))
        reached_after = True
    assert scope.cancelled_caught
    assert not reached_after
