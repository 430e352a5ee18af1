"""Write results under every renderer, the structured schema, and the spans of writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from pathgate import Policy, Runtime
from pathgate.renderers._writes import WriteOutput, render_write, write_output_schema
from pathgate.results import WriteResult
from pathgate.verdicts import WRITE_STATUSES, Gate, Rule, Status, Verdict
from tests.runtime.gates._tree import write_tree

pytestmark = pytest.mark.anyio

RENDERERS = ["sentinel", "verbose", "structured"]
SECRET = "hunter2"


def _result(verdict: Verdict | None = None, **kw: Any) -> WriteResult:
    return WriteResult(tool=kw.pop("tool", "write_file"), path="a.txt", relpath="a.txt", verdict=verdict, **kw)


CASES: dict[str, Verdict] = {
    "changed": Verdict(status=Status.FILE_CHANGED_SINCE_READ, gate=Gate.WRITE, exists=True),
    "not_read": Verdict(status=Status.FILE_NOT_READ, gate=Gate.WRITE),
    "write_error": Verdict(status=Status.FILE_WRITE_ERROR, gate=Gate.WRITE, detail="ENOSPC"),
    "git": Verdict(status=Status.BLOCKED, gate=Gate.WRITE, opaque=True, detail="git internals"),
    "secret": Verdict(status=Status.BLOCKED, gate=Gate.SECRETS, opaque=True),
    "ignored": Verdict(status=Status.BLOCKED, gate=Gate.IGNORE, rule=Rule(".gitignore", 1, "*.log")),
    "too_large": Verdict(status=Status.FILE_TOO_LARGE, gate=Gate.SIZE, size=20, limit=10, detail="content"),
    "outside": Verdict(status=Status.FILE_OUTSIDE_PROJECT, gate=Gate.PATH),
}


def _rt(tmp_path: Path) -> Runtime:
    return Runtime(write_tree(tmp_path / "p", {"a.txt": "x"}), Policy(allow_writes=True))


@pytest.mark.parametrize("name", RENDERERS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_status_under_every_renderer(tmp_path: Path, name: str, case: str) -> None:
    renderer = _rt(tmp_path).renderer_for(name=name)
    verdict = CASES[case]
    out = render_write(renderer, _result(verdict))
    text = msgspec.json.encode(out).decode()
    if name == "structured":
        entry = out["files"][0]
        msgspec.convert(out, WriteOutput)  # valid against the published types
        assert entry["status"] == verdict.status.code and entry["path"] == "a.txt"
        if verdict.opaque:
            assert entry == {"path": "a.txt", "status": "blocked"}
    else:
        value = out["a.txt"]
        assert value.startswith(verdict.status.sentinel)
        if name == "sentinel" or verdict.opaque:
            assert value == verdict.status.sentinel
        else:
            assert value.startswith(verdict.status.sentinel + ": ")
    if verdict.opaque:
        assert "git" not in text and "secrets" not in text and "write" not in text


def test_verbose_texts_say_what_to_do(tmp_path: Path) -> None:
    r = _rt(tmp_path).renderer_for(name="verbose")
    assert "Read it again with read_files" in r.render_verdict("a", CASES["changed"])
    assert "Read it with read_files first" in r.render_verdict("a", CASES["not_read"])
    assert "(ENOSPC)" in r.render_verdict("a", CASES["write_error"])
    assert "The new content is 20 bytes; the limit is 10 bytes" in r.render_verdict("a", CASES["too_large"])


@pytest.mark.parametrize("name", RENDERERS)
def test_success_under_every_renderer(tmp_path: Path, name: str) -> None:
    renderer = _rt(tmp_path).renderer_for(name=name)
    created = render_write(renderer, _result(created=True, size=12))
    edited = render_write(renderer, _result(tool="edit_file", size=5, replacements=2))
    if name == "sentinel":
        assert created == edited == {"a.txt": "[OK]"}
    elif name == "verbose":
        assert created == {"a.txt": "[OK]: Created a.txt (12 bytes)."}
        assert edited == {"a.txt": "[OK]: Replaced 2 occurrences in a.txt (5 bytes written)."}
    else:
        assert created == {"files": [{"status": "ok", "path": "a.txt", "created": True, "size": 12,
                                      "replacements": 0}]}


def test_schema_is_an_object_root_listing_every_write_status() -> None:
    schema = write_output_schema()
    assert schema["type"] == "object" and "$ref" not in schema and schema["required"] == ["files"]
    assert '"discriminator"' not in msgspec.json.encode(schema).decode()
    tags = {d["properties"]["status"]["enum"][0] for d in schema["$defs"].values()
            if "status" in d.get("properties", {})}
    assert {s.code for s in WRITE_STATUSES} | {"ok", "blocked"} <= tags


async def test_span_names_the_tool_and_the_blocking_gate(anyio_backend: str, tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    root = write_tree(tmp_path / "p", {".env": f"K={SECRET}\n", "a.txt": "x"})
    rt = Runtime(root, Policy(allow_writes=True), tracer_provider=provider)
    await rt.call("write_file", {"path": ".git/hooks/pre-commit", "content": SECRET}, agent="A")
    await rt.call("edit_file", {"path": "a.txt", "old_string": "x", "new_string": SECRET}, agent="A")
    await rt.call("write_file", {"path": "b.txt", "content": SECRET}, agent="A")
    spans = list(exporter.get_finished_spans())
    tools = [s for s in spans if s.name.startswith("execute_tool")]
    assert [s.name for s in tools] == ["execute_tool write_file", "execute_tool edit_file",
                                       "execute_tool write_file"]
    blocks = [s for s in spans if s.name.startswith("pathgate.block")]
    assert [s.name for s in blocks] == ["pathgate.block path", "pathgate.block write"]
    assert [(b.attributes or {}).get("pathgate.gate") for b in blocks] == ["path", "write"]
    assert [(b.attributes or {}).get("pathgate.status") for b in blocks] == ["[BLOCKED]", "[FILE_NOT_READ]"]
    assert (tools[0].attributes or {}).get("pathgate.decision") == "deny"
    assert (tools[2].attributes or {}).get("pathgate.decision") == "allow"
    assert (tools[0].attributes or {}).get("gen_ai.agent.name") == "A"
    for s in spans:
        assert SECRET not in str(dict(s.attributes or {}))
