"""Tracing and metrics: the only module that imports OpenTelemetry (on the first call, not
at import: a ``pathgate hook`` run never needs it).

One span per tool call, named after the GenAI semantic conventions (``execute_tool <tool>``),
with pathgate's own attributes, and one child span per blocked path named by its gate
(``pathgate.block ignore``, ``pathgate.block secrets`` …: one name per gate, so a dashboard
groups blocks by gate without opening them) carrying the gate, status and, for ignore
blocks, the rule. Spans are for operators: opaque blocks record their gate too, but
no file content, tool argument, tool result or requested path is ever put on a span.

Attribute names are our own string constants: the GenAI constants shipped in
``opentelemetry-semantic-conventions`` are deprecated there, and that package is not a
runtime dependency.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pathgate._types import CallNext, ToolCall
from pathgate.runtime._chain import classify_error
from pathgate.runtime._live import INDEX_MODE
from pathgate.verdicts import Verdict

if TYPE_CHECKING:
    from opentelemetry import metrics, trace

__all__ = ["SpanMode", "TracingMiddleware", "block_span_name"]

SpanMode = Literal["create", "enrich"]

# GenAI conventions (execute_tool spans).
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_TOOL_NAME = "gen_ai.tool.name"
GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id"
GEN_AI_TOOL_TYPE = "gen_ai.tool.type"
GEN_AI_AGENT_NAME = "gen_ai.agent.name"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
ERROR_TYPE = "error.type"
EXECUTE_TOOL = "execute_tool"

# pathgate's own.
PG_RENDERER = "pathgate.renderer"
PG_PATHS_REQUESTED = "pathgate.paths.requested"
PG_PATHS_BLOCKED = "pathgate.paths.blocked"
PG_BLOCKED_BY = "pathgate.blocked."  # + gate name: count per gate
PG_OMITTED_BY = "pathgate.omitted."  # + gate name: discovery omissions per gate
PG_DECISION = "pathgate.decision"  # allow | partial | deny
PG_INDEX = "pathgate.index"  # live | fallback (a runtime with a live index; issue 15)
PG_BLOCKS_UNREPORTED = "pathgate.blocks.unreported"
PG_GATE = "pathgate.gate"
PG_STATUS = "pathgate.status"
PG_OPAQUE = "pathgate.opaque"
PG_RULE_SOURCE = "pathgate.rule.source"
PG_RULE_LINE = "pathgate.rule.line"
PG_RULE_PATTERN = "pathgate.rule.pattern"
PG_RULE_NEGATED = "pathgate.rule.negated"
PG_ANCESTOR = "pathgate.ancestor"
PG_FAIL_CLOSED = "pathgate.fail_closed"
PG_UNREADABLE = "pathgate.unreadable_ignore_file"
BLOCK_SPAN_NAME = "pathgate.block"  # + " <gate>": one span name per gate

DECISIONS_COUNTER = "pathgate.gate.decisions"
DURATION_HISTOGRAM = "gen_ai.execute_tool.duration"


def block_span_name(gate: str) -> str:
    """The name of a blocked path's child span: ``pathgate.block <gate>`` (low cardinality:
    one name per gate, never a path or a rule)."""
    return f"{BLOCK_SPAN_NAME} {gate}"


def _version() -> str:
    from pathgate import __version__

    return __version__


class TracingMiddleware:
    """Span, child spans, counters and the latency histogram for every call.

    * ``tracer_provider`` / ``meter_provider``: default to the global ones.
    * ``span_mode="create"`` makes the ``execute_tool <tool>`` span; ``"enrich"`` writes the
      same attributes and child spans onto the caller's current span instead (for frameworks
      that already emit an ``execute_tool`` span: the MCP SDK, PydanticAI, Google ADK).
    * ``max_block_spans``: child spans per call; the rest are counted in
      ``pathgate.blocks.unreported``.
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        span_mode: SpanMode = "create",
        max_block_spans: int = 32,
    ) -> None:
        if span_mode not in ("create", "enrich"):
            raise ValueError(f"span_mode must be 'create' or 'enrich', not {span_mode!r}")
        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider
        self._enrich = span_mode == "enrich"
        self._max_block_spans = max_block_spans
        self._ready = False

    def _setup(self) -> None:
        """Get the tracer and instruments (first call only; no await, so no race)."""
        from opentelemetry import metrics, trace

        version = _version()
        self._tracer = trace.get_tracer("pathgate", version, tracer_provider=self._tracer_provider)
        meter = metrics.get_meter("pathgate", version, meter_provider=self._meter_provider)
        self._decisions = meter.create_counter(
            DECISIONS_COUNTER, unit="{decision}", description="Path decisions by gate, decision and tool."
        )
        self._duration = meter.create_histogram(
            DURATION_HISTOGRAM, unit="s", description="Duration of a tool call."
        )
        self._quiet = _quiet_check(self._tracer_provider, self._meter_provider)
        self._ready = True

    def is_quiet(self) -> bool:
        """Would a call now record nothing at all (see :func:`_quiet_check`)? Then the
        middleware only resets the index mode and awaits the next link."""
        if not self._ready:
            self._setup()
        return self._quiet()

    async def __call__(self, call: ToolCall, call_next: CallNext) -> Any:
        if self.is_quiet():
            # nothing would record this call: no SDK provider (the global proxies or no-op
            # providers) and no recording span around it; checked per call, so spans and
            # metrics appear from the call after a host installs an SDK
            INDEX_MODE.set(None)
            return await call_next(call)
        return await self._traced(call, call_next)

    async def _traced(self, call: ToolCall, call_next: CallNext) -> Any:
        """The span, its attributes, the child spans and the instruments of one call."""
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind

        start = time.perf_counter()
        if self._enrich:
            span = trace.get_current_span()
            self._set_call_attributes(span, call)
            return await self._run(span, call, call_next, start)
        with self._tracer.start_as_current_span(
            f"{EXECUTE_TOOL} {call.tool}",
            kind=SpanKind.INTERNAL,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            self._set_call_attributes(span, call)
            return await self._run(span, call, call_next, start)

    @staticmethod
    def _set_call_attributes(span: trace.Span, call: ToolCall) -> None:
        attrs: dict[str, str] = {
            GEN_AI_OPERATION_NAME: EXECUTE_TOOL,
            GEN_AI_TOOL_NAME: call.tool,
            GEN_AI_TOOL_TYPE: "function",
        }
        if call.call_id is not None:
            attrs[GEN_AI_TOOL_CALL_ID] = call.call_id
        if call.agent is not None:
            attrs[GEN_AI_AGENT_NAME] = call.agent
        if call.model is not None:
            attrs[GEN_AI_REQUEST_MODEL] = call.model
        span.set_attributes(attrs)

    async def _run(self, span: trace.Span, call: ToolCall, call_next: CallNext, start: float) -> Any:
        error_type: str | None = None
        INDEX_MODE.set(None)
        try:
            result = await call_next(call)
        except BaseException as exc:
            error_type = "cancelled" if _is_cancellation(exc) else classify_error(exc)
            raise
        finally:
            error_type = error_type or call.state.error_type
            self._record(span, call, error_type)
            duration_attrs = {GEN_AI_TOOL_NAME: call.tool, GEN_AI_OPERATION_NAME: EXECUTE_TOOL}
            if error_type is not None:
                duration_attrs[ERROR_TYPE] = error_type
            self._duration.record(time.perf_counter() - start, duration_attrs)
        return result

    def _record(self, span: trace.Span, call: ToolCall, error_type: str | None) -> None:
        state = call.state
        verdicts = state.verdicts
        blocked = [v for v in verdicts if v is not None]
        per_gate = Counter(v.gate.value for v in blocked)
        attrs: dict[str, str | int] = {
            PG_PATHS_REQUESTED: len(verdicts),
            PG_PATHS_BLOCKED: len(blocked),
        }
        if state.renderer is not None:
            attrs[PG_RENDERER] = state.renderer
        index_mode = INDEX_MODE.get()
        if index_mode is not None:
            attrs[PG_INDEX] = index_mode
        for gate, n in per_gate.items():
            attrs[PG_BLOCKED_BY + gate] = n
        for gate_enum, n in state.omitted.items():
            attrs[PG_OMITTED_BY + gate_enum.value] = n
        if error_type is None:
            if blocked and len(blocked) == len(verdicts):
                decision = "deny"
            elif blocked or any(state.omitted.values()):
                decision = "partial"
            else:
                decision = "allow"
            attrs[PG_DECISION] = decision
        span.set_attributes(attrs)
        if error_type is not None:
            from opentelemetry.trace import Status, StatusCode

            span.set_attribute(ERROR_TYPE, error_type)
            span.set_status(Status(StatusCode.ERROR, error_type))

        for i, verdict in enumerate(blocked):
            if i >= self._max_block_spans:
                span.set_attribute(PG_BLOCKS_UNREPORTED, len(blocked) - self._max_block_spans)
                break
            self._block_span(verdict)

        tool = call.tool
        allowed = len(verdicts) - len(blocked)
        if allowed:
            self._decisions.add(allowed, {"gate": "none", "decision": "allow", "tool": tool})
        for gate, n in per_gate.items():
            self._decisions.add(n, {"gate": gate, "decision": "block", "tool": tool})
        for gate_enum, n in state.omitted.items():
            if n:
                self._decisions.add(n, {"gate": gate_enum.value, "decision": "omit", "tool": tool})

    def _block_span(self, verdict: Verdict) -> None:
        attrs: dict[str, str | int | bool] = {
            PG_GATE: verdict.gate.value,
            PG_STATUS: verdict.status.value,
            PG_OPAQUE: verdict.opaque,
        }
        rule = verdict.rule
        if rule is not None:
            attrs[PG_RULE_SOURCE] = rule.source
            attrs[PG_RULE_LINE] = rule.line
            attrs[PG_RULE_PATTERN] = rule.pattern
            attrs[PG_RULE_NEGATED] = rule.negated
        if verdict.ancestor is not None:
            attrs[PG_ANCESTOR] = verdict.ancestor
        if verdict.fail_closed:
            attrs[PG_FAIL_CLOSED] = True
            if verdict.unreadable is not None:
                attrs[PG_UNREADABLE] = verdict.unreadable
        from opentelemetry.trace import SpanKind

        with self._tracer.start_as_current_span(
            block_span_name(verdict.gate.value), kind=SpanKind.INTERNAL, attributes=attrs
        ):
            pass


def _quiet_check(tracer_provider: trace.TracerProvider | None,
                 meter_provider: metrics.MeterProvider | None) -> Callable[[], bool]:
    """A per-call test: would a call record nothing at all? True only when the tracer
    provider is OpenTelemetry's global proxy with no SDK provider set behind it (or an
    explicit ``NoOpTracerProvider``), the meter provider likewise, and the caller's current
    span is not recording. Then the span, its attributes, the child spans and the
    instruments would all be no-ops (a no-op tracer's span is a non-recording span with the
    current span's context, indistinguishable from the current span when that one is not
    recording), so the middleware can skip them. Anything else (an SDK provider, a subclass,
    a provider this cannot recognise) takes the full path."""
    import sys

    from opentelemetry import metrics, trace

    proxy_tp, noop_tp = trace.ProxyTracerProvider, trace.NoOpTracerProvider
    noop_mp = metrics.NoOpMeterProvider
    # the global meter proxy's class is private: under another layout the meter provider
    # is never taken for quiet (the full path runs)
    metrics_mod = sys.modules.get("opentelemetry.metrics._internal")
    proxy_mp: type[object] = getattr(metrics_mod, "_ProxyMeterProvider", noop_mp)
    current = trace.get_current_span
    global_tp = _global_provider(trace, "_TRACER_PROVIDER", "OTEL_PYTHON_TRACER_PROVIDER",
                                 trace.get_tracer_provider)
    global_mp = _global_provider(metrics_mod, "_METER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER",
                                 metrics.get_meter_provider)

    def quiet() -> bool:
        tp = tracer_provider
        if tp is None or type(tp) is proxy_tp:  # a proxy follows the global provider
            tp = global_tp()
        if tp is not None and type(tp) is not proxy_tp and type(tp) is not noop_tp:
            return False
        mp = meter_provider
        if mp is None or type(mp) is proxy_mp:
            mp = global_mp()
        if mp is not None and type(mp) is not proxy_mp and type(mp) is not noop_mp:
            return False
        return not current().is_recording()

    return quiet


def _global_provider(module: object, attr: str, env_var: str, get: Callable[[], Any]
                     ) -> Callable[[], Any]:
    """OpenTelemetry's ``get_tracer_provider``/``get_meter_provider`` without their cost
    while no provider is set (an ``os.environ`` miss raises and catches a ``KeyError`` per
    call): the module's global, read directly; while it is unset and ``env_var`` names no
    provider to load, ``None`` (taken for the proxy). When the module global or the
    environment's byte mapping is not where this expects, the public getter."""
    data = getattr(os.environ, "_data", None)
    key = os.fsencode(env_var)
    if not hasattr(module, attr) or type(data) is not dict:
        return get

    def provider() -> Any:
        p = getattr(module, attr)
        if p is not None or key in data:  # set, or about to be loaded from the environment
            return get()
        return None

    return provider


def _is_cancellation(exc: BaseException) -> bool:
    import anyio

    try:
        return isinstance(exc, anyio.get_cancelled_exc_class())
    except Exception:  # no async library running
        return False
