"""The tracing middleware's quiet path: with no SDK behind OpenTelemetry's global providers
and no recording span around the call, the middleware does no span or metric work; spans
and metrics appear from the next call once a host installs an SDK (globally or explicitly),
and a recording span around the call still gets its attributes (``enrich``)."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider
from opentelemetry.util._once import Once

from pathgate._types import ToolCall
from pathgate.runtime._chain import ErrorBoundaryMiddleware, build_chain
from pathgate.runtime._live import INDEX_MODE, set_index_mode
from pathgate.runtime._tracing import TracingMiddleware
from pathgate.verdicts import Gate, Status, Verdict

pytestmark = pytest.mark.anyio

IGNORED = Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, exists=True)


def _chain(mw: TracingMiddleware, seen: list[str | None] | None = None) -> Any:
    async def endpoint(call: ToolCall) -> Any:
        if seen is not None:
            seen.append(INDEX_MODE.get())
        set_index_mode("live")
        call.state.verdicts = [None, IGNORED]
        call.state.renderer = "verbose"
        return "ok"

    return build_chain(endpoint, [ErrorBoundaryMiddleware(), mw])


@pytest.fixture
def fresh_globals(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenTelemetry's global providers unset for the test (and restored after it)."""
    import opentelemetry.metrics._internal as metrics_internal

    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER_SET_ONCE", Once())
    monkeypatch.setattr(metrics_internal, "_METER_PROVIDER", None)
    monkeypatch.setattr(metrics_internal, "_METER_PROVIDER_SET_ONCE", Once())
    # the proxy keeps the first real provider it was given: a fresh one per test
    monkeypatch.setattr(metrics_internal, "_PROXY_METER_PROVIDER",
                        metrics_internal._ProxyMeterProvider())
    monkeypatch.setattr(trace, "_PROXY_TRACER_PROVIDER", trace.ProxyTracerProvider())
    monkeypatch.delenv("OTEL_PYTHON_TRACER_PROVIDER", raising=False)
    monkeypatch.delenv("OTEL_PYTHON_METER_PROVIDER", raising=False)


def _no_traced(mw: TracingMiddleware, monkeypatch: pytest.MonkeyPatch) -> None:
    async def boom(*_a: object) -> Any:
        raise AssertionError("the full tracing path ran")

    monkeypatch.setattr(mw, "_traced", boom)


async def test_no_sdk_takes_the_quiet_path(anyio_backend: str, fresh_globals: None,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for mw in (TracingMiddleware(), TracingMiddleware(span_mode="enrich"),
               TracingMiddleware(tracer_provider=NoOpTracerProvider(),
                                 meter_provider=NoOpMeterProvider())):
        chain = _chain(mw)
        assert await chain(ToolCall("read_files", {})) == "ok"  # sets up the instruments
        _no_traced(mw, monkeypatch)
        assert await chain(ToolCall("read_files", {})) == "ok"


async def test_quiet_path_still_resets_the_index_mode(anyio_backend: str, fresh_globals: None) -> None:
    seen: list[str | None] = []
    chain = _chain(TracingMiddleware(), seen)
    await chain(ToolCall("read_files", {}))
    await chain(ToolCall("read_files", {}))  # same context: the last call's "live" is gone
    assert seen == [None, None]


async def test_spans_and_metrics_appear_once_a_global_sdk_is_installed(
        anyio_backend: str, fresh_globals: None) -> None:
    from opentelemetry import metrics

    mw = TracingMiddleware()
    chain = _chain(mw)
    await chain(ToolCall("read_files", {}))
    exporter = InMemorySpanExporter()
    tp = TracerProvider()
    tp.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(tp)
    await chain(ToolCall("read_files", {}))
    names = [s.name for s in exporter.get_finished_spans()]
    assert names.count("execute_tool read_files") == 1 and "pathgate.block ignore" in names

    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    await chain(ToolCall("read_files", {}))
    data = reader.get_metrics_data()
    assert data is not None
    got = {m.name: m for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert sum(p.value for p in got["pathgate.gate.decisions"].data.data_points) == 2
    assert sum(p.count for p in got["gen_ai.execute_tool.duration"].data.data_points) == 1
    assert [s.name for s in exporter.get_finished_spans()].count("execute_tool read_files") == 2


async def test_metrics_alone_record_without_a_tracer_sdk(anyio_backend: str, fresh_globals: None) -> None:
    reader = InMemoryMetricReader()
    chain = _chain(TracingMiddleware(meter_provider=MeterProvider(metric_readers=[reader])))
    await chain(ToolCall("read_files", {}))
    data = reader.get_metrics_data()
    assert data is not None
    names = {m.name for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert {"pathgate.gate.decisions", "gen_ai.execute_tool.duration"} <= names


@pytest.mark.parametrize("mode", ["create", "enrich"])
async def test_a_recording_host_span_is_never_skipped(anyio_backend: str, fresh_globals: None,
                                                      mode: str) -> None:
    """The host traces with its own (non-global) SDK provider: around the call its span is
    recording, so the middleware runs in full (enrich writes the attributes on it; create
    makes its no-op span current inside the call, as without the quiet path)."""
    exporter = InMemorySpanExporter()
    host = TracerProvider()
    host.add_span_processor(SimpleSpanProcessor(exporter))
    inside: list[bool] = []

    async def endpoint(call: ToolCall) -> Any:
        inside.append(trace.get_current_span().is_recording())
        call.state.verdicts = [IGNORED]
        return "ok"

    chain = build_chain(endpoint, [ErrorBoundaryMiddleware(),
                                   TracingMiddleware(span_mode=mode)])  # type: ignore[arg-type]
    with host.get_tracer("framework").start_as_current_span("outer"):
        await chain(ToolCall("read_files", {}, call_id="x"))
    outer = next(s for s in exporter.get_finished_spans() if s.name == "outer")
    attrs = dict(outer.attributes or {})
    if mode == "enrich":
        assert attrs["pathgate.paths.blocked"] == 1 and attrs["gen_ai.tool.call.id"] == "x"
        assert inside == [True]
    else:
        assert "pathgate.paths.blocked" not in attrs
        assert inside == [False]  # the no-op tracer's span, current inside the call
