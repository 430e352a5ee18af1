"""The ``pathgate`` command line: argparse in, ``anyio.run`` out; no decision logic here.

Every command takes ``--root DIR`` (default: the current directory) and ``--config FILE``;
those that decide or walk take ``--git-only``. Plain output lists one path (or hit) a line on
stdout and puts notes on stderr; ``--json`` prints exactly what the model would receive.
Errors go to stderr with a non-zero exit and no traceback (``--debug`` shows it).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import anyio

EXIT_OK = 0
EXIT_BLOCKED = 1
EXIT_ERROR = 2

_EPILOGS = {
    "demo": "example:\n  pathgate demo\n  pathgate demo --trace console",
    "explain": "example:\n  pathgate explain build/out.js .env\n\nexit status: 0 if every path is "
    "readable, 1 if any is blocked, 2 on error",
    "read": "example:\n  pathgate read src/app.py build/out.js --model gpt-4o-mini\n"
    "  pathgate read .env --renderer structured --json",
    "glob": "example:\n  pathgate glob '**/*.py'\n  pathgate glob '*.md' --path docs --limit 0",
    "search": "example:\n  pathgate search 'def main' --glob '**/*.py'",
    "ls": "example:\n  pathgate ls src",
    "mcp": "example:\n  pathgate mcp --root /path/to/project --renderer verbose",
    "check-ignore": "example:\n  pathgate check-ignore -v build/out.js",
}


class CliError(Exception):
    """A user-facing error: printed on stderr without a traceback."""


def _color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


def _style(text: str, code: str, stream: TextIO) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if _color(stream) else text


def _note(text: str) -> None:
    print(_style(text, "2", sys.stderr), file=sys.stderr)


def _common(p: argparse.ArgumentParser, *, decides: bool = True) -> None:
    p.add_argument("--root", default=".", metavar="DIR", help="project root (default: .)")
    p.add_argument("--config", metavar="FILE",
                   help="the host's config file (may loosen; default: the user-level file "
                        "~/.config/pathgate/config.toml if present); the project's own "
                        "pathgate.toml can only tighten it")
    if decides:
        p.add_argument("--git-only", action="store_true",
                       help="git's own ignore sources only (no built-in defaults, no agent files)")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")


def _renderer_opts(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--model", metavar="M", help="render for this model id (per the renderer rules)")
    g.add_argument("--renderer", metavar="R", help="use this renderer (sentinel, verbose, structured, ...)")
    p.add_argument("--json", action="store_true", help="print exactly what the model would receive, as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pathgate",
        description="Gate an AI agent's file tools: see what your agent sees, and why.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="start with:  pathgate demo",
    )
    from pathgate import __version__

    parser.add_argument("--version", action="version", version=f"pathgate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_, description=help_, epilog=_EPILOGS.get(name),
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    p = add("demo", "build a sample project and show every gate under every renderer")
    p.add_argument("--trace", choices=["none", "console"], default="none",
                   help="print the OpenTelemetry spans of the demo's calls (needs pathgate[otel])")
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")

    p = add("explain", "say why an agent can or cannot read each path (for people)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    _common(p)
    p.add_argument("--json", action="store_true", help="machine-readable explanation")

    p = add("read", "print what read_files gives the model for each path")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--offset", type=int, help="first line to read (1-based)")
    p.add_argument("--limit", type=int, help="number of lines to read")
    _common(p)
    _renderer_opts(p)

    p = add("glob", "list the files matching a glob pattern, as the model would")
    p.add_argument("pattern", metavar="PATTERN")
    p.add_argument("--path", default=".", help="directory to match under (default: .)")
    p.add_argument("--limit", type=int, help="maximum matches (0 = no limit)")
    _common(p)
    _renderer_opts(p)

    p = add("search", "search file contents with a regular expression, as the model would")
    p.add_argument("regex", metavar="REGEX")
    p.add_argument("--glob", metavar="G", help="only files matching this glob")
    p.add_argument("--path", default=".", help="directory to search (default: .)")
    p.add_argument("--limit", type=int, help="maximum hits (0 = no limit)")
    p.add_argument("--context", type=int, default=0, help="lines of context around each hit")
    p.add_argument("-i", "--ignore-case", action="store_true", help="case-insensitive search")
    _common(p)
    _renderer_opts(p)

    p = add("ls", "list a directory, as the model would")
    p.add_argument("path", nargs="?", default=".", metavar="PATH")
    _common(p)
    _renderer_opts(p)

    p = add("mcp", "serve the file tools over MCP (stdio); needs pathgate[mcp]")
    p.add_argument("--renderer", metavar="R", help="renderer for the text content (default: per config)")
    _common(p)

    add("check-ignore", "like git check-ignore --no-index (run 'pathgate check-ignore -h')")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pathgate`` console script and ``python -m pathgate``."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] == "check-ignore":
        from pathgate._check_ignore import main as check_ignore_main

        return int(check_ignore_main(args_list[1:]))
    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    handler = _COMMANDS[args.command]
    try:
        return handler(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        from pathgate.errors import PathgateError

        if isinstance(exc, (CliError, PathgateError, OSError)):
            print(f"pathgate {args.command}: error: {exc}", file=sys.stderr)
        else:
            print(f"pathgate {args.command}: error: {type(exc).__name__}: {exc} "
                  "(run with --debug for the traceback)", file=sys.stderr)
        return EXIT_ERROR


# -- helpers -------------------------------------------------------------------------------

def _runtime(args: argparse.Namespace, **kw: Any) -> Any:
    from pathgate import Runtime
    from pathgate.config import load_config, load_host_config

    root = args.root
    if not os.path.isdir(root):
        raise CliError(f"--root {root!r} is not a directory")
    host = load_host_config(getattr(args, "config", None))  # --config, else the user-level file
    policy = load_config(root, host=host)  # the project's files only tighten it
    if getattr(args, "git_only", False):
        policy = policy.git_only()
    return Runtime(root, policy=policy, **kw)


def _print_json(data: Any) -> None:
    import msgspec

    sys.stdout.write(msgspec.json.encode(data).decode() + "\n")


async def _call(rt: Any, tool: str, tool_args: dict[str, Any], args: argparse.Namespace) -> Any:
    return await rt.call(tool, tool_args, model=getattr(args, "model", None),
                         renderer=getattr(args, "renderer", None))


def _is_error(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result and "error_type" in result


def _fail_on_error(result: Any) -> None:
    if _is_error(result):
        raise CliError(str(result["error"]))


def _cmd_read(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"paths": list(args.paths)}
    if args.offset is not None:
        tool_args["offset"] = args.offset
    if args.limit is not None:
        tool_args["limit"] = args.limit
    rt = _runtime(args)
    result = anyio.run(_call, rt, "read_files", tool_args, args)
    _fail_on_error(result)
    if args.json:
        _print_json(result)
    elif isinstance(result, dict) and "files" not in result:
        many = len(result) > 1
        for path, text in result.items():
            if many:
                print(_style(f"==> {path} <==", "1", sys.stdout))
            sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    else:
        _print_json(result)
    return EXIT_OK


def _start_blocked(result: Any, lines_key: str) -> bool:
    """Was the tool's start directory itself blocked (or missing)?"""
    if not isinstance(result, dict):
        return False
    if "blocked" in result:
        return True
    notes = result.get("notes") or []
    return not result.get(lines_key) and len(notes) == 1 and str(notes[0]).startswith("[")


def _print_discovery(result: Any, args: argparse.Namespace, lines_key: str) -> int:
    """Lines on stdout, notes on stderr; exit 1 when the start directory was blocked."""
    status = EXIT_BLOCKED if _start_blocked(result, lines_key) else EXIT_OK
    if args.json or not isinstance(result, dict) or lines_key not in result:
        _print_json(result)
        return status
    for line in result[lines_key]:
        print(line)
    for note in result.get("notes", ()):
        _note(note)
    return status


def _cmd_glob(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"pattern": args.pattern, "path": args.path}
    if args.limit is not None:
        tool_args["limit"] = args.limit
    result = anyio.run(_call, _runtime(args), "glob", tool_args, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "matches")


def _cmd_search(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"regex": args.regex, "path": args.path, "context": args.context,
                                 "case_sensitive": not args.ignore_case}
    if args.glob is not None:
        tool_args["glob"] = args.glob
    if args.limit is not None:
        tool_args["max_results"] = args.limit
    result = anyio.run(_call, _runtime(args), "code_search", tool_args, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "hits")


def _cmd_ls(args: argparse.Namespace) -> int:
    result = anyio.run(_call, _runtime(args), "list_directory", {"path": args.path}, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "entries")


def _cmd_explain(args: argparse.Namespace) -> int:
    from pathgate._explain import explain_paths, format_explanation

    rt = _runtime(args)
    explanations = anyio.run(explain_paths, rt, list(args.paths))
    if args.json:
        _print_json(explanations)
    else:
        for i, exp in enumerate(explanations):
            if i:
                print()
            print(format_explanation(exp, color=_color(sys.stdout)))
    return EXIT_BLOCKED if any(not e.allowed for e in explanations) else EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    from pathgate._demo_cli import run_demo

    return run_demo(trace=args.trace, out=sys.stdout)


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from pathgate.mcp import serve_stdio
    except ImportError as exc:
        raise CliError(f"the MCP server needs the 'mcp' extra: pip install 'pathgate[mcp]' ({exc})") from None
    rt = _runtime(args, span_mode="enrich")
    serve_stdio(rt, renderer=args.renderer)
    return EXIT_OK


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "demo": _cmd_demo,
    "explain": _cmd_explain,
    "read": _cmd_read,
    "glob": _cmd_glob,
    "search": _cmd_search,
    "ls": _cmd_ls,
    "mcp": _cmd_mcp,
}

