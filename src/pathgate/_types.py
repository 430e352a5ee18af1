"""Shared aliases and protocols: one tool call, and the middleware signature.

A middleware is ``async (call, call_next) -> result``. ``call_next`` is a direct await of the
next link (no task group between links), so context variables — and with them the current
OpenTelemetry span — flow down and back up the chain unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pathgate.verdicts import Gate, Verdict

__all__ = ["CallNext", "CallState", "Middleware", "ToolCall"]


@dataclass(slots=True)
class CallState:
    """Per-call facts the links of the chain leave for each other (never shared between calls).

    The tool fills ``verdicts`` (one entry per requested path: ``None`` = allowed) and
    ``omitted`` (discovery tools: omissions per non-opaque gate); the rendering link sets
    ``renderer`` and keeps the tool's raw result in ``raw`` (host middlewares read it after
    ``await call_next(call)``); the error boundary sets ``error_type``. The tracing link
    reads them all.
    """

    render: bool = True
    raw: Any = None
    renderer: str | None = None
    verdicts: list[Verdict | None] = field(default_factory=list)
    omitted: dict[Gate, int] = field(default_factory=dict)
    error_type: str | None = None


@dataclass(slots=True)
class ToolCall:
    """One tool call: ``(tool, args, model, call_id, agent)`` plus its per-call state."""

    tool: str
    args: Mapping[str, Any]
    model: str | None = None
    call_id: str | None = None
    agent: str | None = None
    state: CallState = field(default_factory=CallState)


CallNext = Callable[[ToolCall], Awaitable[Any]]


class Middleware(Protocol):
    """``async (call, call_next) -> result``: do something around ``await call_next(call)``."""

    def __call__(self, call: ToolCall, call_next: CallNext, /) -> Awaitable[Any]: ...


ToolFn = Callable[[ToolCall], Awaitable[Any]]
ArgsMapping = Mapping[str, Any]
