"""Tracing and metrics, checked with the SDK's in-memory exporter and reader (never globals)."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from pathgate._types import ToolCall
from pathgate.errors import ToolArgumentError
from pathgate.runtime._chain import ErrorBoundaryMiddleware, build_chain
from pathgate.runtime._tracing import TracingMiddleware
from pathgate.verdicts import Gate, Rule, Status, Verdict

pytestmark = pytest.mark.anyio

IGNORED = Verdict(
    status=Status.BLOCKED, gate=Gate.IGNORE, rule=Rule("build/.gitignore", 3, "*.js"), exists=True
)
SECRET = Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True)
MISSING = Verdict(status=Status.FILE_DOES_NOT_EXIST, gate=Gate.EXISTENCE)
SECRET_TEXT = "API_KEY=hunter2"


class Otel:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def metric_points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        points: list[Any] = []
        assert data is not None
        for rm in data.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    if metric.name == name:
                        points.extend(metric.data.data_points)
        return points


@pytest.fixture
def otel() -> Otel:
    return Otel()


def make_chain(
    otel: Otel,
    verdicts: list[Verdict | None],
    *,
    mode: str = "create",
    raise_: Exception | None = None,
    max_block_spans: int = 32,
) -> Any:
    async def endpoint(call: ToolCall) -> Any:
        if raise_ is not None:
            raise raise_
        call.state.verdicts = list(verdicts)
        call.state.renderer = "verbose"
        return {"a.txt": SECRET_TEXT}

    tracing = TracingMiddleware(tracer_provider=otel.tracer_provider, meter_provider=otel.meter_provider,
                                span_mode=mode, max_block_spans=max_block_spans)  # type: ignore[arg-type]
    return build_chain(endpoint, [ErrorBoundaryMiddleware(), tracing])


async def test_one_span_per_call_with_genai_and_pathgate_attributes(anyio_backend: str, otel: Otel) -> None:
    chain = make_chain(otel, [None, IGNORED, SECRET, MISSING])
    await chain(ToolCall("read_files", {"paths": ["a.txt"]}, model="gpt-4o", call_id="c1", agent="planner"))
    spans = otel.spans()
    top = [s for s in spans if s.name == "execute_tool read_files"]
    assert len(top) == 1
    span = top[0]
    assert span.kind == SpanKind.INTERNAL
    a = dict(span.attributes or {})
    assert a["gen_ai.operation.name"] == "execute_tool"
    assert a["gen_ai.tool.name"] == "read_files"
    assert a["gen_ai.tool.call.id"] == "c1"
    assert a["gen_ai.tool.type"] == "function"
    assert a["gen_ai.agent.name"] == "planner"
    assert a["gen_ai.request.model"] == "gpt-4o"
    assert a["pathgate.renderer"] == "verbose"
    assert a["pathgate.paths.requested"] == 4
    assert a["pathgate.paths.blocked"] == 3
    assert a["pathgate.blocked.ignore"] == 1
    assert a["pathgate.blocked.secrets"] == 1
    assert a["pathgate.blocked.existence"] == 1
    assert a["pathgate.decision"] == "partial"
    assert span.status.status_code != StatusCode.ERROR


async def test_child_span_per_blocked_path_names_gate_and_rule(anyio_backend: str, otel: Otel) -> None:
    await make_chain(otel, [IGNORED, SECRET])(ToolCall("read_files", {}))
    spans = otel.spans()
    parent = next(s for s in spans if s.name == "execute_tool read_files")
    children = [s for s in spans if s.name.startswith("pathgate.block ")]
    assert sorted(s.name for s in children) == ["pathgate.block ignore", "pathgate.block secrets"]
    for child in children:
        assert child.parent is not None and child.parent.span_id == parent.context.span_id
    by_gate = {dict(c.attributes or {})["pathgate.gate"]: dict(c.attributes or {}) for c in children}
    ign = by_gate["ignore"]
    assert (ign["pathgate.rule.source"], ign["pathgate.rule.line"], ign["pathgate.rule.pattern"]) == (
        "build/.gitignore", 3, "*.js")
    assert ign["pathgate.status"] == "[BLOCKED]"
    sec = by_gate["secrets"]
    assert sec["pathgate.opaque"] is True
    assert "pathgate.rule.source" not in sec
    assert dict(parent.attributes or {})["pathgate.decision"] == "deny"


async def test_child_spans_are_capped_and_overflow_counted(anyio_backend: str, otel: Otel) -> None:
    await make_chain(otel, [MISSING] * 10, max_block_spans=4)(ToolCall("read_files", {}))
    spans = otel.spans()
    assert [s.name for s in spans if s.name.startswith("pathgate.block")] == ["pathgate.block existence"] * 4
    parent = next(s for s in spans if s.name.startswith("execute_tool"))
    assert dict(parent.attributes or {})["pathgate.blocks.unreported"] == 6


async def test_no_content_arguments_or_results_on_spans(anyio_backend: str, otel: Otel) -> None:
    await make_chain(otel, [None, SECRET])(ToolCall("read_files", {"paths": ["a.txt", ".env"]}))
    for span in otel.spans():
        text = repr(dict(span.attributes or {})) + span.name
        assert SECRET_TEXT not in text
        assert ".env" not in text and "a.txt" not in text
        assert not any(k.startswith("gen_ai.tool.call.arguments") or k.startswith("gen_ai.tool.call.result")
                       for k in (span.attributes or {}))


async def test_failed_call_sets_error_status_and_type(anyio_backend: str, otel: Otel) -> None:
    chain = make_chain(otel, [], raise_=ToolArgumentError("paths: required", field="paths"))
    result = await chain(ToolCall("read_files", {}))
    assert result["error_type"] == "invalid_arguments"
    span = next(s for s in otel.spans() if s.name == "execute_tool read_files")
    assert span.status.status_code == StatusCode.ERROR
    assert dict(span.attributes or {})["error.type"] == "invalid_arguments"
    points = otel.metric_points("gen_ai.execute_tool.duration")
    assert [dict(p.attributes)["error.type"] for p in points] == ["invalid_arguments"]


async def test_internal_error_type(anyio_backend: str, otel: Otel) -> None:
    await make_chain(otel, [], raise_=RuntimeError("boom"))(ToolCall("glob", {}))
    span = next(s for s in otel.spans() if s.name == "execute_tool glob")
    assert dict(span.attributes or {})["error.type"] == "internal"


async def test_metrics_count_decisions_per_gate_and_duration(anyio_backend: str, otel: Otel) -> None:
    chain = make_chain(otel, [None, None, IGNORED, SECRET])
    await chain(ToolCall("read_files", {}))
    await chain(ToolCall("read_files", {}))
    points = otel.metric_points("pathgate.gate.decisions")
    got = {(p.attributes["gate"], p.attributes["decision"], p.attributes["tool"]): p.value for p in points}
    assert got == {
        ("none", "allow", "read_files"): 4,
        ("ignore", "block", "read_files"): 2,
        ("secrets", "block", "read_files"): 2,
    }
    for p in points:
        assert set(p.attributes) == {"gate", "decision", "tool"}
    hist = otel.metric_points("gen_ai.execute_tool.duration")
    assert sum(p.count for p in hist) == 2
    assert all(dict(p.attributes)["gen_ai.tool.name"] == "read_files" for p in hist)


async def test_enrich_mode_writes_on_the_surrounding_span(anyio_backend: str, otel: Otel) -> None:
    chain = make_chain(otel, [IGNORED], mode="enrich")
    tracer = otel.tracer_provider.get_tracer("framework")
    with tracer.start_as_current_span("execute_tool read_files (framework)"):
        await chain(ToolCall("read_files", {}, call_id="x"))
    spans = otel.spans()
    assert not [s for s in spans if s.name == "execute_tool read_files"]
    outer = next(s for s in spans if s.name == "execute_tool read_files (framework)")
    a = dict(outer.attributes or {})
    assert a["pathgate.paths.blocked"] == 1 and a["gen_ai.tool.call.id"] == "x"
    child = next(s for s in spans if s.name.startswith("pathgate.block "))
    assert child.parent is not None and child.parent.span_id == outer.context.span_id


def test_bad_span_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="span_mode"):
        TracingMiddleware(span_mode="sometimes")  # type: ignore[arg-type]


async def test_instrumentation_scope_is_pathgate_with_version(anyio_backend: str, otel: Otel) -> None:
    import pathgate

    await make_chain(otel, [])(ToolCall("glob", {}))
    span = otel.spans()[0]
    assert span.instrumentation_scope is not None
    assert span.instrumentation_scope.name == "pathgate"
    assert span.instrumentation_scope.version == pathgate.__version__
    _ = trace  # the global provider is never touched by these tests
