"""The argparse side of the ``pathgate`` command line (:mod:`pathgate.cli`): each command's
options, help and epilogue, and the parsing of every command line that
:mod:`pathgate._quick_args` does not read (help, errors and their suggestions, ``--opt=value``,
abbreviations...). argparse loads only here, and only for those command lines.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["build_parser", "parse", "suggest_command"]

EXIT_ERROR = 2  # pathgate.cli.EXIT_ERROR

_EXIT_STATUS = ("exit status: 0 if {found}, 1 if {nothing}, 2 on error")
_EXIT_FOR = {
    "read": _EXIT_STATUS.format(found="every path was served", nothing="any was not (blocked, missing, ...)"),
    "glob": _EXIT_STATUS.format(found="anything matched", nothing="nothing did (or the path is blocked)"),
    "search": _EXIT_STATUS.format(found="any line matched", nothing="none did (or the path is blocked)"),
    "ls": _EXIT_STATUS.format(found="any entry is listed", nothing="none is (or the path is blocked)"),
}

_EPILOGS = {
    "demo": "example:\n  pathgate demo\n  pathgate demo --trace console",
    "explain": "example:\n  pathgate explain build/out.js .env\n\nexit status: 0 if every path is "
    "readable, 1 if any is blocked, 2 on error",
    "read": "example:\n  pathgate read src/app.py build/out.js --model gpt-4o-mini\n"
    "  pathgate read .env --renderer structured --json",
    "glob": "example:\n  pathgate glob '**/*.py'\n  pathgate glob '*.md' --path docs --limit 10",
    "search": "example:\n  pathgate search 'def main' --glob '**/*.py'",
    "ls": "example:\n  pathgate ls src\n  pathgate --root ~/project ls",
    "mcp": "example:\n  pathgate mcp --root /path/to/project --renderer verbose",
    "check-ignore": "example:\n  pathgate check-ignore -v build/out.js",
}


def _common(p: argparse.ArgumentParser, *, decides: bool = True) -> None:
    """The global options; ``SUPPRESS`` defaults so a value given before the command is not
    overwritten by the subcommand's default (see ``pathgate.cli._GLOBAL_DEFAULTS``)."""
    sup = argparse.SUPPRESS
    p.add_argument("--root", default=sup, metavar="DIR", help="project root (default: .)")
    p.add_argument("--config", default=sup, metavar="FILE",
                   help="the host's config file (may loosen; default: the user-level file "
                        "~/.config/pathgate/config.toml if present); the project's own "
                        "pathgate.toml can only tighten it")
    if decides:
        p.add_argument("--git-only", action="store_true", default=sup,
                       help="git's own ignore sources only (no built-in defaults, no agent files)")
    p.add_argument("--debug", action="store_true", default=sup, help="show tracebacks on errors")


def _renderer_opts(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--model", metavar="M", help="render for this model id (per the renderer rules)")
    g.add_argument("--renderer", metavar="R", help="use this renderer (sentinel, verbose, structured, ...)")
    p.add_argument("--json", action="store_true", help="print exactly what the model would receive, as JSON")


def _args_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trace", choices=["none", "console"], default="none",
                   help="print the OpenTelemetry spans of the demo's calls (needs pathgate[otel])")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="show tracebacks on errors")


def _args_explain(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    _common(p)
    p.add_argument("--json", action="store_true", help="machine-readable explanation")


def _args_read(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--offset", type=int, help="first line to read (1-based)")
    p.add_argument("--limit", type=int, help="number of lines to read")
    _common(p)
    _renderer_opts(p)


def _args_glob(p: argparse.ArgumentParser) -> None:
    p.add_argument("pattern", metavar="PATTERN")
    p.add_argument("--path", default=".", help="directory to match under (default: .)")
    p.add_argument("--limit", type=int, default=0,
                   help="maximum matches (default 0 = no limit; the model's default is 500)")
    _common(p)
    _renderer_opts(p)


def _args_search(p: argparse.ArgumentParser) -> None:
    p.add_argument("regex", metavar="REGEX")
    p.add_argument("--glob", metavar="G", help="only files matching this glob")
    p.add_argument("--path", default=".", help="directory to search (default: .)")
    p.add_argument("--limit", type=int, default=0,
                   help="maximum hits (default 0 = no limit; the model's default is 200)")
    p.add_argument("--context", type=int, default=0, help="lines of context around each hit")
    p.add_argument("-i", "--ignore-case", action="store_true", help="case-insensitive search")
    _common(p)
    _renderer_opts(p)


def _args_ls(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", metavar="PATH")
    _common(p)
    _renderer_opts(p)


def _args_mcp(p: argparse.ArgumentParser) -> None:
    p.add_argument("--renderer", metavar="R", help="renderer for the text content (default: per config)")
    p.add_argument("--allow-writes", action="store_true",
                   help="also serve write_file and edit_file (default: read-only)")
    p.add_argument("--no-live-index", action="store_true",
                   help="walk the tree on every discovery call (default: a live index kept current by "
                        "inotify, falling back to walking where there is none)")
    _common(p)


#: The commands in help order: (name, help, adds its arguments); check-ignore and hook parse
#: their own (``_own_parser_command``).
_SUBCOMMANDS: tuple[tuple[str, str, Callable[[argparse.ArgumentParser], None] | None], ...] = (
    ("demo", "build a sample project and show every gate under every renderer", _args_demo),
    ("explain", "say why an agent can or cannot read each path (for people)", _args_explain),
    ("read", "print what read_files gives the model for each path", _args_read),
    ("glob", "list the files matching a glob pattern, as the model would", _args_glob),
    ("search", "search file contents with a regular expression, as the model would", _args_search),
    ("ls", "list a directory, as the model would", _args_ls),
    ("mcp", "serve the file tools over MCP (stdio); needs pathgate[mcp]", _args_mcp),
    ("check-ignore", "like git check-ignore --no-index (run 'pathgate check-ignore -h')", None),
    ("hook", "answer Claude Code / Cursor / Gemini CLI pre-tool hooks, or install them "
     "(run 'pathgate hook -h')", None),
)


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` without importing ``shutil`` (with ``bz2``,
    ``lzma``, ``fnmatch``: a few ms of every command, for argparse's help width)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _formatter() -> type[argparse.HelpFormatter]:
    """argparse's ``RawDescriptionHelpFormatter``, its width found without ``shutil``."""
    class Formatter(argparse.RawDescriptionHelpFormatter):
        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position,
                             _terminal_columns() - 2 if width is None else width)

    return Formatter


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command but ``check-ignore`` and ``hook`` (they parse their own);
    ``only``: just that command's subparser (start-up: a command builds only its own)."""
    parser = argparse.ArgumentParser(
        prog="pathgate",
        description="Gate an AI agent's file tools: see what your agent sees, and why.",
        formatter_class=_formatter(),
        epilog="start with:  pathgate demo",
    )
    from pathgate import __version__

    parser.add_argument("--version", action="version", version=f"pathgate {__version__}")
    _common(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_, fill in _SUBCOMMANDS:
        if only is not None and name != only:
            continue
        epilog = "\n\n".join(e for e in (_EPILOGS.get(name), _EXIT_FOR.get(name)) if e) or None
        p = sub.add_parser(name, help=help_, description=help_, epilog=epilog,
                           formatter_class=parser.formatter_class)
        if fill is not None:
            fill(p)
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def suggest_command(parser: argparse.ArgumentParser, args_list: Sequence[str], at: int | None) -> None:
    """An unknown command word (at index ``at`` of ``args_list``): say which one was meant
    (argparse's own suggestions are Python 3.14+), exit 2."""
    if at is None:
        return
    word, known = args_list[at], list(_subparsers(parser))
    if word in known:
        return
    import difflib

    close = difflib.get_close_matches(word, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (commands: {', '.join(known)})"
    parser.exit(EXIT_ERROR, f"pathgate: error: unknown command {word!r}{hint}\n")


def parse(parser: argparse.ArgumentParser, args_list: list[str],
          global_defaults: dict[str, Any]) -> argparse.Namespace:
    """Parse, suggesting the closest option for a mistyped one, then apply the global
    options' defaults."""
    args, extras = parser.parse_known_args(args_list)
    if extras:
        sub = _subparsers(parser).get(getattr(args, "command", None) or "", parser)
        options = [o for a in sub._actions for o in a.option_strings]
        bad = extras[0]
        import difflib

        close = difflib.get_close_matches(bad.split("=", 1)[0], options, n=1) if bad.startswith("-") else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        sub.exit(EXIT_ERROR, f"{sub.prog}: error: unrecognized argument {bad!r}{hint}\n")
    for key, value in global_defaults.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return args
