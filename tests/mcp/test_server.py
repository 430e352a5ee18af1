"""The MCP server, through real clients of the ``mcp`` SDK.

Three ways in: ``pathgate mcp --root DIR`` as a subprocess over stdio, and in memory in both
client modes (``auto``: the modern direct dispatcher; ``legacy``: the initialize handshake
over in-memory streams). The client validates every non-error structured result against
the tool's declared output schema, so each successful call here also checks the schema.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import mcp_types as types
from mcp.client.stdio import StdioServerParameters

import pathgate
from mcp import Client
from pathgate import ConfigError, Runtime
from pathgate.mcp import build_server
from tests.mcp.conftest import make_project

pytestmark = pytest.mark.anyio

SRC = str(Path(pathgate.__file__).resolve().parent.parent)
WAYS = ["stdio", "memory", "memory-legacy"]
TOOLS = {"read_files", "glob", "list_directory", "code_search"}


@asynccontextmanager
async def connect(way: str, root: Path, renderer: str | None = None) -> AsyncIterator[Client]:
    if way == "stdio":
        args = ["-m", "pathgate", "mcp", "--root", str(root)]
        if renderer is not None:
            args += ["--renderer", renderer]
        # The subprocess imports the same pathgate as this test process.
        env = {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
        server: Any = StdioServerParameters(command=sys.executable, args=args, env=env)
        client = Client(server, read_timeout_seconds=60)
    else:
        rt = Runtime(root, span_mode="enrich")
        client = Client(build_server(rt, renderer), mode="legacy" if way == "memory-legacy" else "auto")
    async with client:
        yield client


def text_of(result: types.CallToolResult) -> Any:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


@pytest.fixture(params=WAYS)
def way(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-scoped, so one stdio server can serve the module's read-only tests."""
    return "asyncio"


@pytest.fixture(scope="module")
def shared_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``project`` tree of ``conftest.py``, shared by the tests that only read it."""
    return make_project(tmp_path_factory.mktemp("mcp") / "project")


@pytest.fixture(scope="module")
async def stdio_client(shared_project: Path) -> AsyncIterator[Client]:
    """One ``pathgate mcp`` subprocess for the module's read-only tests (a spawn costs about a
    second: a fresh interpreter importing the SDK); the tests that change the tree or the
    server's options spawn their own."""
    async with connect("stdio", shared_project) as client:
        yield client


@pytest.fixture
async def client(way: str, stdio_client: Client, shared_project: Path) -> AsyncIterator[Client]:
    """A client of the server in ``way``, on the shared read-only project."""
    if way == "stdio":
        yield stdio_client
    else:
        async with connect(way, shared_project) as fresh:
            yield fresh


async def test_list_tools_have_input_and_object_output_schemas(client: Client) -> None:
    listed = await client.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description
        assert tool.input_schema["type"] == "object"
        assert "$ref" not in tool.input_schema
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        assert "$ref" not in tool.output_schema
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert tools["read_files"].input_schema["required"] == ["paths"]
    assert tools["read_files"].output_schema["required"] == ["files"]
    assert "pattern" in tools["glob"].input_schema["properties"]
    assert "regex" in tools["code_search"].input_schema["properties"]
    assert "[BLOCKED]" in (tools["read_files"].description or "")


async def test_read_kept_ignored_and_secret(client: Client) -> None:
    result = await client.call_tool("read_files", {"paths": ["src/app.py", "build/out.js", ".env"]})
    assert result.is_error is False
    text = text_of(result)
    assert list(text) == ["src/app.py", "build/out.js", ".env"]
    assert text["src/app.py"] == "TOKEN = 'from app'\nprint(TOKEN)\n"
    ignored = text["build/out.js"]
    assert ignored.startswith("[BLOCKED]: ")
    assert ".gitignore:1:build/" in ignored
    assert ".pathgateignore" in ignored
    assert text[".env"] == "[BLOCKED]"

    files = result.structured_content["files"]
    assert [f["path"] for f in files] == ["src/app.py", "build/out.js", ".env"]
    assert files[0]["status"] == "ok" and files[0]["content"].startswith("TOKEN =")
    assert files[1]["status"] == "blocked" and files[1]["gate"] == "ignore"
    assert files[1]["rule"] == {"source": ".gitignore", "line": 1, "pattern": "build/"}
    assert files[1]["exists"] is True
    assert files[2] == {"path": ".env", "status": "blocked"}
    assert "hunter2" not in result.model_dump_json()


async def test_every_path_blocked_is_still_a_normal_result(client: Client) -> None:
    result = await client.call_tool("read_files", {"paths": [".env", "build/out.js", "../x"]})
    assert result.is_error is False
    text = text_of(result)
    assert text[".env"] == "[BLOCKED]"
    assert text["../x"].startswith("[FILE_OUTSIDE_PROJECT]")
    assert [f["status"] for f in result.structured_content["files"]] == [
        "blocked", "blocked", "file_outside_project"]


async def test_glob_says_what_it_omitted(client: Client) -> None:
    result = await client.call_tool("glob", {"pattern": "**/*"})
    assert result.is_error is False
    text = text_of(result)
    assert text["matches"] == [".gitignore", "src/app.py"]
    assert "1 match omitted by ignore rules, e.g. build/out.js" in text["notes"]
    assert not any(".env" in note for note in text["notes"])
    data = result.structured_content
    assert data["matches"] == [".gitignore", "src/app.py"]
    assert data["omitted"] == [{"gate": "ignore", "count": 1, "examples": ["build/out.js"],
                                "lower_bound": False, "fail_closed": False, "unit": "matches"}]
    assert ".env" not in result.model_dump_json()


async def test_list_directory_and_code_search(client: Client) -> None:
    listing = await client.call_tool("list_directory", {"path": "."})
    search = await client.call_tool("code_search", {"regex": "TOKEN"})
    entries = text_of(listing)["entries"]
    assert "src/" in entries and ".gitignore" in entries
    assert ".env" not in entries and "build/" not in entries
    assert listing.structured_content["path"] == "."
    hits = text_of(search)["hits"]
    assert hits == ["src/app.py:1:TOKEN = 'from app'", "src/app.py:2:print(TOKEN)"]
    assert "hunter2" not in search.model_dump_json()
    assert [h["path"] for h in search.structured_content["hits"]] == ["src/app.py", "src/app.py"]


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("read_files", {"paths": "src/app.py"}, "paths"),
        ("read_files", {}, "paths"),
        ("glob", {"pattern": "*", "limit": -1}, "limit"),
        ("code_search", {"regex": "x", "surprise": 1}, "surprise"),
    ],
)
async def test_bad_argument_is_an_error_result(client: Client, tool: str, args: dict[str, Any], field: str) -> None:
    result = await client.call_tool(tool, args)
    assert result.is_error is True
    assert result.structured_content is None
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert f"`{field}`" in block.text


async def test_unknown_tool_is_an_error_result(project: Path) -> None:
    async with connect("memory", project) as client:
        result = await client.call_tool("write_file", {"path": "x"})
    assert result.is_error is True
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert "write_file" in block.text and "read_files" in block.text


@pytest.mark.parametrize("way", ["stdio", "memory"])
async def test_renderer_option_sets_the_text_but_not_the_structured_content(way: str, project: Path) -> None:
    async with connect(way, project, renderer="sentinel") as client:
        result = await client.call_tool("read_files", {"paths": ["build/out.js"]})
    assert text_of(result) == {"build/out.js": "[BLOCKED]"}
    assert result.structured_content["files"][0]["rule"]["pattern"] == "build/"


async def test_structured_renderer_text_equals_structured_content(project: Path) -> None:
    async with connect("memory", project, renderer="structured") as client:
        result = await client.call_tool("read_files", {"paths": ["src/app.py", ".env"]})
    assert text_of(result) == result.structured_content


def test_unknown_renderer_is_a_config_error(project: Path) -> None:
    with pytest.raises(ConfigError, match="nope"):
        build_server(Runtime(project), renderer="nope")


def test_cli_reports_an_unknown_renderer(project: Path) -> None:
    import subprocess

    env = {**os.environ, "PYTHONPATH": SRC}
    proc = subprocess.run(
        [sys.executable, "-m", "pathgate", "mcp", "--root", str(project), "--renderer", "nope"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60, env=env,
    )
    assert proc.returncode != 0
    assert "nope" in proc.stderr


async def test_building_twice_on_one_runtime_renders_once(project: Path) -> None:
    rt = Runtime(project)
    build_server(rt)
    server = build_server(rt, "sentinel")
    async with Client(server) as client:
        result = await client.call_tool("read_files", {"paths": ["src/app.py", ".env"]})
    assert text_of(result) == {"src/app.py": "TOKEN = 'from app'\nprint(TOKEN)\n", ".env": "[BLOCKED]"}
    # Outside an MCP call the runtime renders as before.
    assert await rt.call("read_files", {"paths": [".env"]}) == {".env": "[BLOCKED]"}


async def test_enrich_mode_writes_pathgate_attributes_on_the_sdks_span(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp.shared import _otel
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # The SDK's module tracer follows the global provider; point it at ours for this test.
    monkeypatch.setattr(_otel, "_tracer", provider.get_tracer("mcp-python-sdk"))
    rt = Runtime(project, span_mode="enrich", tracer_provider=provider)
    async with Client(build_server(rt)) as client:
        await client.call_tool("read_files", {"paths": ["src/app.py", "build/out.js", ".env"]})
    spans = {s.name: s for s in exporter.get_finished_spans()}
    call = spans["tools/call read_files"]
    attrs = dict(call.attributes or {})
    assert attrs["gen_ai.tool.name"] == "read_files"
    assert attrs["pathgate.paths.requested"] == 3
    assert attrs["pathgate.paths.blocked"] == 2
    assert attrs["pathgate.blocked.ignore"] == 1
    assert attrs["pathgate.blocked.secrets"] == 1
    assert attrs["pathgate.renderer"] == "verbose"
    assert not any(s.name.startswith("execute_tool") for s in exporter.get_finished_spans())
    blocks = [s for s in exporter.get_finished_spans() if s.name.startswith("pathgate.block ")]
    assert {(s.attributes or {}).get("pathgate.gate") for s in blocks} == {"ignore", "secrets"}
    assert {s.name for s in blocks} == {"pathgate.block ignore", "pathgate.block secrets"}
    assert all(s.parent is not None and s.parent.span_id == call.context.span_id for s in blocks)


@pytest.mark.parametrize("flags", [[], ["--no-live-index"]])
async def test_the_stdio_server_sees_changes_with_and_without_its_live_index(project: Path,
                                                                             flags: list[str]) -> None:
    """``pathgate mcp`` answers discovery from a live index by default (a server lives as long
    as its client); a file created, an ignore rule added and a secret created between calls
    are in the next answer exactly as a walk gives it, and ``--no-live-index`` walks."""
    env = {"PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    server: Any = StdioServerParameters(command=sys.executable,
                                        args=["-m", "pathgate", "mcp", "--root", str(project), *flags], env=env)
    async with Client(server, read_timeout_seconds=60) as client:
        first = text_of(await client.call_tool("glob", {"pattern": "**/*"}))
        assert first["matches"] == [".gitignore", "src/app.py"]
        (project / "src" / "new.py").write_text("x = 1\n")
        (project / "src" / "gen.log").write_text("log\n")
        (project / ".env.local").write_text("TOKEN=2\n")
        with open(project / ".gitignore", "a") as f:
            f.write("*.log\n")
        second = text_of(await client.call_tool("glob", {"pattern": "**/*"}))
    async with Client(build_server(Runtime(project, span_mode="enrich")), mode="auto") as walked:
        fresh = text_of(await walked.call_tool("glob", {"pattern": "**/*"}))
    assert second == fresh
    assert second["matches"] == [".gitignore", "src/app.py", "src/new.py"]
    assert ".env" not in json.dumps(second)
