"""``pathgate demo``: build the demo project, show every gate under every renderer, clean up."""

from __future__ import annotations

import shutil
import tempfile
import textwrap
from pathlib import Path
from typing import Any, TextIO

import anyio
import msgspec

from pathgate._demo import DEMO_PATHS, DEMO_SIZE_LIMIT, DemoFS, build_demo

__all__ = ["run_demo"]

RENDERERS = ("sentinel", "verbose", "structured")
DISCOVERY_CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("glob", {"pattern": "**/*.js"}),
    ("list_directory", {"path": "."}),
    ("code_search", {"regex": "API_KEY"}),
)


def _tracer_provider() -> Any:
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError:
        from pathgate.cli import CliError

        raise CliError("--trace console needs the OpenTelemetry SDK: pip install 'pathgate[otel]'") from None
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    return provider


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


async def _run(root: Path, out: TextIO, tracer_provider: Any) -> None:
    from pathgate import Policy, Runtime

    policy = Policy(size_limit=DEMO_SIZE_LIMIT)
    rt = Runtime(root, policy=policy, fs=DemoFS(root), tracer_provider=tracer_provider)
    w = out.write
    w("pathgate demo: a sample project in a temporary directory\n")
    w(f"  (size limit {DEMO_SIZE_LIMIT} bytes; vendor/.gitignore made unreadable through the fs seam)\n\n")
    w("== read_files, per path and renderer ==\n")
    for path, what in DEMO_PATHS:
        w(f"\n{path}  -- {what}\n")
        for name in RENDERERS:
            result = await rt.call("read_files", {"paths": [path]}, renderer=name, call_id=f"demo-{name}")
            value = result["files"][0] if name == "structured" else result[path]
            text = _show(value)
            if name != "structured" and len(text) > 300 and "\n" not in text[:300] and not text.startswith("["):
                text = text[:300] + "…"
            body = textwrap.indent(text.rstrip("\n"), " " * 14).lstrip()
            w(f"  {name + ':':<11} {body}\n")
    w("\n== discovery tools (verbose) ==\n")
    for tool, args in DISCOVERY_CALLS:
        result = await rt.call(tool, args, renderer="verbose")
        w(f"\n{tool} {_show(args)}\n")
        key = next(k for k in ("matches", "entries", "hits") if k in result)
        for line in result[key]:
            w(f"  {line}\n")
        for note in result["notes"]:
            w(f"  note: {note}\n")


def run_demo(*, trace: str = "none", out: TextIO) -> int:
    """Build the demo project in a temporary directory, show it, and remove it."""
    tracer_provider = _tracer_provider() if trace == "console" else None
    tmp = Path(tempfile.mkdtemp(prefix="pathgate-demo-"))
    try:
        root = build_demo(tmp / "project")
        anyio.run(_run, root, out, tracer_provider)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if tracer_provider is not None:
            tracer_provider.shutdown()
    return 0
