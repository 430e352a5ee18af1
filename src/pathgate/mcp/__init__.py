"""pathgate as an MCP server (the ``pathgate[mcp]`` extra, ``mcp>=2.3,<3``).

``pathgate mcp --root DIR [--renderer R]`` serves ``read_files``, ``glob``,
``list_directory`` and ``code_search`` over stdio. In code::

    from pathgate import Runtime
    from pathgate.mcp import build_server, serve_stdio

    rt = Runtime("/path/to/project", span_mode="enrich")
    serve_stdio(rt)                      # blocking, over stdin/stdout
    server = build_server(rt)            # or: any transport, or mcp.Client(server) in tests

``import pathgate`` never imports this package; importing it needs the ``mcp`` package and
raises :class:`ImportError` without it.
"""

from __future__ import annotations

from pathgate.mcp._server import SERVER_NAME as SERVER_NAME
from pathgate.mcp._server import build_server as build_server
from pathgate.mcp._server import serve_stdio as serve_stdio

__all__ = ["SERVER_NAME", "build_server", "serve_stdio"]
