"""The MCP server: pathgate's four file tools over the Model Context Protocol (``mcp`` 2.x).

Built on the SDK's low-level :class:`mcp.server.Server` (constructor-registered
``tools/list`` and ``tools/call`` handlers) rather than ``MCPServer``: ``MCPServer`` derives
a tool's schemas from a Python signature through pydantic, while pathgate's schemas are
generated from its own msgspec types (the argument structs and the structured renderer's
output types) and must stay the single source.

One ``tools/call`` runs the tool once, through the runtime's chain (error boundary, tracing,
host middlewares, rendering, gates), and answers with

* ``structured_content``: the ``structured`` renderer's output, matching the tool's
  ``outputSchema`` (object root);
* one text content: what the chosen renderer gives the model (``Runtime.call``'s result),
  as JSON — the same bytes ``pathgate read --json`` prints.

Blocked paths are data, not errors: a call whose every path is blocked is a normal result.
A bad argument or an unknown tool is an ``isError`` result naming the problem.

Both renders come from one run (:func:`pathgate.adapters._common.call_tool_twice_rendered`:
a host middleware, installed once per runtime and inert outside such calls, keeps the raw
result for the structured render and hands the chosen renderer's output up the chain).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
import msgspec
from mcp.server import Server
from mcp.server.stdio import stdio_server

from pathgate.adapters._common import (
    BUILTIN_TOOLS,
    WRITE_TOOLS,
    call_tool_twice_rendered,
    default_tools,
    install_capture,
    to_text,
)
from pathgate.errors import ConfigError, ToolArgumentError
from pathgate.renderers._discovery import discovery_output_schema
from pathgate.renderers._writes import write_output_schema
from pathgate.renderers.structured import read_files_output_schema
from pathgate.results import GlobResult, ListResult, SearchResult

if TYPE_CHECKING:
    from mcp.server import ServerRequestContext

    from pathgate.runtime._runtime import Runtime

__all__ = ["SERVER_NAME", "build_server", "serve_stdio"]

#: The name the server announces in the MCP handshake.
SERVER_NAME = "pathgate"

#: The tools served by default, in listing order; ``write_file`` and ``edit_file`` follow
#: only when the runtime has writes enabled (``Runtime(allow_writes=True)``,
#: ``pathgate mcp --allow-writes``).
TOOL_NAMES = BUILTIN_TOOLS

_OUTPUT_SCHEMAS: dict[str, Any] = {
    "read_files": read_files_output_schema,
    "glob": lambda: discovery_output_schema(GlobResult),
    "list_directory": lambda: discovery_output_schema(ListResult),
    "code_search": lambda: discovery_output_schema(SearchResult),
    "write_file": write_output_schema,
    "edit_file": write_output_schema,
}

_TITLES = {
    "read_files": "Read project files",
    "glob": "Find project files by glob",
    "list_directory": "List a project directory",
    "code_search": "Search project file contents",
    "write_file": "Write a project file",
    "edit_file": "Edit a project file",
}

_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                   idempotent_hint=True, open_world_hint=False)
_WRITES = types.ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                idempotent_hint=False, open_world_hint=False)


def _json(data: Any) -> str:
    return msgspec.json.encode(data).decode()


# -- the server ----------------------------------------------------------------------------


class _PathgateTools:
    """The two handlers: ``tools/list`` (built once) and ``tools/call``."""

    def __init__(self, runtime: Runtime, renderer: str | None) -> None:
        self.runtime = runtime
        self.renderer = renderer
        text_renderer = runtime.renderer_for(name=renderer)
        specs = runtime.tools
        self.names = default_tools(runtime)
        self.tools = [
            types.Tool(
                name=name,
                title=_TITLES[name],
                description=(text_renderer.read_files_description if name == "read_files"
                             else specs[name].description),
                input_schema=specs[name].schema(),
                output_schema=_OUTPUT_SCHEMAS[name](),
                annotations=_WRITES if name in WRITE_TOOLS else _READ_ONLY,
            )
            for name in self.names
        ]
        self.listing = types.ListToolsResult(tools=self.tools)
        self.input_schemas = {t.name: t.input_schema for t in self.tools}

    async def list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return self.listing

    def input_schema(self, name: str) -> dict[str, Any] | None:
        return self.input_schemas.get(name)

    async def call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name not in self.input_schemas:
            known = ", ".join(self.names)
            return _error_result(f"no tool named {params.name!r}; known tools: {known}")
        call_id = None if ctx.request_id is None else str(ctx.request_id)
        result, structured = await call_tool_twice_rendered(
            self.runtime, params.name, params.arguments, call_id=call_id, renderer=self.renderer)
        if structured is None:
            return _error_result(to_text(result))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=_json(result))],
            structured_content=structured,
        )


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


def build_server(runtime: Runtime, renderer: str | None = None) -> Server[Any]:
    """An MCP server (``mcp.server.Server``) serving ``runtime``'s file tools.

    ``renderer`` names the renderer of the text content (default: the runtime's choice for
    an unknown model, ``verbose`` unless configured); the structured content always comes
    from the ``structured`` renderer. Serve it over any MCP transport, or connect to it in
    process with ``mcp.Client(server)``. Give the runtime ``span_mode="enrich"`` so the
    SDK's own ``tools/call`` span carries pathgate's attributes (``pathgate mcp`` does).

    The runtime gets one host middleware (once per runtime, inert outside MCP calls) that
    lets a call be rendered twice from a single run; middlewares added to the runtime after
    this call see raw results during MCP calls.
    """
    try:
        handlers = _PathgateTools(runtime, renderer)
    except ToolArgumentError as exc:
        raise ConfigError(str(exc), key="renderer") from None
    install_capture(runtime)
    from pathgate import __version__

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="pathgate",
        instructions=(
            "File tools for one project. Paths are relative to the project root. Blocked paths "
            "come back as status texts starting with a bracketed sentinel such as [BLOCKED]; "
            "an explanation, when present, says why and how to unblock."
        ),
        get_tool_input_schema=handlers.input_schema,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
    )
    return server


def serve_stdio(runtime: Runtime, renderer: str | None = None) -> None:
    """Serve ``runtime``'s file tools over stdio until the client closes stdin (blocking),
    then close the runtime (``aclose()``: a live index's watcher stops).

    A line the SDK cannot validate (not JSON, a lone-surrogate escape, ``params`` that is
    not an object) is answered with a JSON-RPC error on the request's id (``-32700`` parse
    error, ``-32600`` invalid request), so the client's call ends instead of waiting for
    ever; the SDK alone drops it."""
    server = build_server(runtime, renderer)

    async def main() -> None:
        from mcp.shared._context_streams import create_context_streams
        from mcp.shared.message import SessionMessage

        async with stdio_server() as (read_stream, write_stream):
            valid_writer, valid_reader = create_context_streams[SessionMessage | Exception](0)

            async def pump() -> None:
                async with valid_writer, read_stream:
                    async for item in read_stream:
                        if isinstance(item, Exception):
                            try:
                                answer = _invalid_line_answer(item)
                            except Exception:  # never the server's end (red team 16 G9)
                                answer = _parse_error(None)
                            if answer is not None:
                                await write_stream.send(SessionMessage(answer))
                                continue
                        await valid_writer.send(item)

            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(pump)
                    await server.run(valid_reader, write_stream, server.create_initialization_options())
                    tg.cancel_scope.cancel()
            finally:
                with anyio.CancelScope(shield=True):
                    await runtime.aclose()  # a live index's watcher stops with the server

    anyio.run(main)


_ID = re.compile(r'"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")')


def _invalid_line_answer(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error for a line the SDK could not validate, on the request's id when
    it can be read (``None`` when the line has no id: a notification gets no answer)."""
    errors = getattr(exc, "errors", None)
    details = errors() if callable(errors) else []
    raw: Any = details[0].get("input") if details else None
    parsed: Any = None
    if details and details[0].get("type") == "json_invalid" and isinstance(raw, str):
        try:
            parsed = json.loads(raw)  # Python's JSON reads lone surrogates that pydantic refuses
        except (ValueError, RecursionError):  # (nested past the interpreter's recursion limit)
            parsed = None
    else:
        parsed = next((d.get("input") for d in details if isinstance(d.get("input"), dict)), None)
    if isinstance(parsed, dict):
        rid = parsed.get("id")
        if "method" in parsed and "id" not in parsed:
            return None  # a notification: never answered
        code, message = -32600, "Invalid request: the message does not match the JSON-RPC/MCP schema"
    else:
        match = _ID.search(raw) if isinstance(raw, str) else None
        rid = json.loads(match.group(1)) if match else None
        code, message = -32700, "Parse error: the line is not valid JSON"
    if isinstance(rid, bool) or not isinstance(rid, (int, str)):
        rid = None
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(code=code, message=message))


def _parse_error(rid: int | str | None) -> types.JSONRPCError:
    """The answer to a line that could not be read at all."""
    return types.JSONRPCError(jsonrpc="2.0", id=rid, error=types.ErrorData(
        code=-32700, message="Parse error: the line is not valid JSON"))
