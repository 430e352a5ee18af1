"""The ``pathgate`` command line: arguments in, the runtime's answer out; no decision logic here.

``check-ignore``, ``hook``, ``explain`` and ``glob`` answer without an event loop (each
imports only what it needs: it is a process per call; ``glob`` runs the glob tool's own code
on a bare ``GateCore``, its blocking steps in this thread); ``read``, ``search``, ``ls`` and
``mcp`` run a :class:`~pathgate.Runtime` under ``anyio.run``.

Every command takes ``--root DIR`` (default: the current directory) and ``--config FILE``;
those that decide or walk take ``--git-only``. Plain output lists one path (or hit) a line on
stdout and puts notes on stderr; ``--json`` prints exactly what the model would receive.
Errors go to stderr with a non-zero exit and no traceback (``--debug`` shows it).

Exit status, as grep and ripgrep: ``0`` something was found or served (``read``: every
path; ``glob``/``search``/``ls``: at least one match, hit or entry), ``1`` nothing was (a
path not served, no match, a blocked or missing start directory), ``2`` an error. Global
options (``--root``, ``--config``, ``--git-only``, ``--debug``) go before or after the command.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, cast

if TYPE_CHECKING:
    import argparse  # loaded by the parser builders: `hook` and `check-ignore` parse their own

EXIT_OK = 0
EXIT_BLOCKED = 1  # nothing found / not served
EXIT_ERROR = 2

_EXIT_STATUS = ("exit status: 0 if {found}, 1 if {nothing}, 2 on error")
_EXIT_FOR = {
    "read": _EXIT_STATUS.format(found="every path was served", nothing="any was not (blocked, missing, ...)"),
    "glob": _EXIT_STATUS.format(found="anything matched", nothing="nothing did (or the path is blocked)"),
    "search": _EXIT_STATUS.format(found="any line matched", nothing="none did (or the path is blocked)"),
    "ls": _EXIT_STATUS.format(found="any entry is listed", nothing="none is (or the path is blocked)"),
}

#: Global options: accepted before the command too; defaults applied after parsing.
_GLOBAL_DEFAULTS: dict[str, Any] = {"root": ".", "config": None, "git_only": False, "debug": False}

#: Notes name the model's argument; a person at the CLI has ``--limit``.
_CLI_WORDING = {"raise max_results": "raise --limit (0 = no limit)",
                "raise the limit": "raise --limit (0 = no limit)"}

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


class CliError(Exception):
    """A user-facing error: printed on stderr without a traceback."""


def _color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


def _style(text: str, code: str, stream: TextIO) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if _color(stream) else text


def _note(text: str) -> None:
    print(_style(text, "2", sys.stderr), file=sys.stderr)


def _common(p: argparse.ArgumentParser, *, decides: bool = True) -> None:
    """The global options; ``SUPPRESS`` defaults so a value given before the command is not
    overwritten by the subcommand's default (see ``_GLOBAL_DEFAULTS``)."""
    import argparse

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
    import argparse

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
    import argparse

    class Formatter(argparse.RawDescriptionHelpFormatter):
        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position,
                             _terminal_columns() - 2 if width is None else width)

    return Formatter


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command but ``check-ignore`` and ``hook`` (they parse their own);
    ``only``: just that command's subparser (start-up: a command builds only its own)."""
    import argparse

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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pathgate`` console script and ``python -m pathgate``.

    The cyclic garbage collector is paused while the command starts (imports and the
    runtime allocate many long-lived objects that a collection would only walk over: ~10 %
    of a hook's process) and resumed once it has (:func:`_started`) or on return."""
    global _gc_paused
    _gc_paused = gc.isenabled()
    gc.disable()
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        _started()


def console() -> NoReturn:
    """The ``pathgate`` console script and ``python -m pathgate``: :func:`main`, then exit.

    A command that leaves nothing behind for the interpreter's shutdown (no ``atexit``
    callback, no other thread; its output flushed) exits at once with its status instead of
    tearing the interpreter down module by module (about a tenth of a short command's
    process). Anything else exits as usual.

    Here (a process of its own, not a caller's :func:`main`), the objects start-up made are
    also frozen when the collector resumes (:func:`_started`)."""
    global _freeze_on_start
    _freeze_on_start = True
    try:
        status = main()
    finally:
        _freeze_on_start = False
    _exit_now(status)
    raise SystemExit(status)


def _exit_now(status: int) -> None:
    """``os._exit(status)`` when the interpreter's shutdown has nothing left to do for this
    process; else return (a flush that fails is left to the usual exit to report)."""
    import atexit
    import threading

    pending = getattr(atexit, "_ncallbacks", None)
    if pending is None or pending() or threading.active_count() != 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(status)


#: Did :func:`main` pause the collector (it was running)? Process state, like ``sys.argv``.
_gc_paused = False
#: Freeze start-up's objects when the collector resumes (set by :func:`console` only).
_freeze_on_start = False


def _started() -> None:
    """Start-up is over: resume the collector if :func:`main` paused it (a long command,
    such as ``mcp`` or a big ``glob``, collects as usual from here on).

    In the console script, start-up's objects (modules, classes, the runtime: they live as
    long as the process) are moved out of the collector's sight first (``gc.freeze``): the
    first collection would otherwise walk all of them (≈ 20,000 objects, 4–7 ms of a
    100 ms command) to find nothing; later collections see only what the command makes."""
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        if _freeze_on_start:
            gc.freeze()
        gc.enable()


def _main(args_list: list[str]) -> int:
    """Dispatch: ``check-ignore`` and ``hook`` parse their own; the plain command lines of
    ``explain`` and ``glob`` are read without argparse (:mod:`pathgate._quick_args`)."""
    own = _own_parser_command(args_list)
    if own is not None:
        return own
    at = _command_index(args_list)
    from pathgate._quick_args import quick_args

    quick = quick_args(args_list, at, _GLOBAL_DEFAULTS)  # the common spellings, without argparse
    if quick is not None:
        args = cast("argparse.Namespace", quick)  # the same attributes (tests/test_quick_args.py)
    else:
        word = args_list[at] if at is not None else None
        parser = build_parser(word if word in _COMMANDS else None)  # an unknown word: all, to suggest
        _suggest_command(parser, args_list)
        args = _parse(parser, args_list)
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


def _command_index(args_list: Sequence[str]) -> int | None:
    """Where the command word is: the first word that is not a global option or its value."""
    i = 0
    while i < len(args_list):
        word = args_list[i]
        if word in ("--root", "--config"):
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            return i
    return None


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _suggest_command(parser: argparse.ArgumentParser, args_list: Sequence[str]) -> None:
    """An unknown command word: say which one was meant (argparse's own suggestions are
    Python 3.14+), exit 2."""
    at = _command_index(args_list)
    if at is None:
        return
    word, known = args_list[at], list(_subparsers(parser))
    if word in known:
        return
    import difflib

    close = difflib.get_close_matches(word, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (commands: {', '.join(known)})"
    parser.exit(EXIT_ERROR, f"pathgate: error: unknown command {word!r}{hint}\n")


def _parse(parser: argparse.ArgumentParser, args_list: list[str]) -> argparse.Namespace:
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
    for key, value in _GLOBAL_DEFAULTS.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return args


def _own_parser_command(args_list: list[str]) -> int | None:
    """Commands with their own parser (``check-ignore``, ``hook``), run before argparse and
    before anything else is imported: a hook runs on every tool call of an agent. Global
    options given before the command are passed after it."""
    at = _command_index(args_list)
    if at is None or args_list[at] not in ("check-ignore", "hook"):
        return None
    rest = [*args_list[at + 1:], *args_list[:at]]
    if args_list[at] == "check-ignore":
        _started()  # check-ignore --stdin may run long: its own start-up choices
        from pathgate._check_ignore import main as check_ignore_main

        return int(check_ignore_main(rest))
    from pathgate._hooks._cli import main as hook_main

    return hook_main(rest)


# -- helpers -------------------------------------------------------------------------------

def _runtime(args: argparse.Namespace, *, core: Any = None, **kw: Any) -> Any:
    """The command's :class:`~pathgate.Runtime` (``core``: another class built the same way,
    e.g. the event-loop-free ``GateCore`` of ``explain``)."""
    from pathgate.config import load_config, load_host_config

    if core is None:
        from pathgate import Runtime as core

    root = args.root
    if not os.path.isdir(root):
        raise CliError(f"--root {root!r} is not a directory")
    host = load_host_config(getattr(args, "config", None))  # --config, else the user-level file
    policy = load_config(root, host=host)  # the project's files only tighten it
    if getattr(args, "git_only", False):
        policy = policy.git_only()
    if getattr(args, "command", None) == "search":
        # a person at a terminal: every hit (the output budget guards a model's context); the
        # budget bounds only read_files and code_search, and search runs no read_files
        import msgspec

        policy = msgspec.structs.replace(policy, read_budget=1 << 62)
    built = core(root, policy=policy, **kw)
    _started()  # the imports and the runtime are built: collect as usual from here
    return built


def _run_async(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a command's coroutine on an event loop (anyio and asyncio load here, not at
    import: ``check-ignore`` and ``hook`` never need them)."""
    import anyio

    return anyio.run(fn, *args)


def _print_json(data: Any, *, pretty: bool = False) -> None:
    """``--json``: one line, exactly what the model receives; ``pretty``: indented, for a
    person reading structured output without ``--json``."""
    import msgspec

    encoded = msgspec.json.encode(data)
    if pretty:
        encoded = msgspec.json.format(encoded, indent=2)
    sys.stdout.write(encoded.decode() + "\n")


async def _call(rt: Any, tool: str, tool_args: dict[str, Any], args: argparse.Namespace) -> Any:
    return await rt.call(tool, tool_args, model=getattr(args, "model", None),
                         renderer=getattr(args, "renderer", None))


def _is_error(result: Any) -> bool:
    return isinstance(result, dict) and "error" in result and "error_type" in result


def _fail_on_error(result: Any) -> None:
    if _is_error(result):
        raise CliError(str(result["error"]))


def _capture_raw(rt: Any) -> list[Any]:
    """A host middleware keeping each call's raw results (verdicts), for the exit status."""
    seen: list[Any] = []

    async def keep_raw(call: Any, call_next: Any) -> Any:
        result = await call_next(call)
        seen.append(call.state.raw)
        return result

    rt.use(keep_raw)
    return seen


def _cmd_read(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"paths": list(args.paths)}
    if args.offset is not None:
        tool_args["offset"] = args.offset
    if args.limit is not None:
        tool_args["limit"] = args.limit
    rt = _runtime(args)
    raw = _capture_raw(rt)
    result = _run_async(_call, rt, "read_files", tool_args, args)
    _fail_on_error(result)
    status = EXIT_OK if raw and _all_served(raw[0]) else EXIT_BLOCKED
    if args.json or not _is_text(result):
        _print_json(result, pretty=not args.json)
        return status
    many = len(result) > 1
    for path, text in result.items():
        if many:
            print(_style(f"==> {path} <==", "1", sys.stdout))
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return status


def _all_served(raw: Any) -> bool:
    """Did every path of a ``read_files`` call come back with content?"""
    return isinstance(raw, list) and all(r.verdict is None or r.truncated for r in raw)


def _is_text(result: Any) -> bool:
    """A text renderer's read result: ``{path: text}``."""
    return isinstance(result, dict) and "files" not in result and all(
        isinstance(v, str) for v in result.values())


def _print_discovery(result: Any, args: argparse.Namespace, lines_key: str) -> int:
    """Lines on stdout, notes on stderr (structured output: JSON); exit 0 when anything was
    found, 1 when nothing was (including a blocked or missing start directory)."""
    is_text = isinstance(result, dict) and set(result) <= {lines_key, "notes"}
    lines = result.get(lines_key) if isinstance(result, dict) else None
    status = EXIT_OK if lines else EXIT_BLOCKED
    if args.json or not is_text or not isinstance(lines, list):
        _print_json(result, pretty=not args.json)
        return status
    for line in lines:
        print(line)
    for note in result.get("notes", ()):
        _note(_cli_wording(str(note)))
    return status


def _cli_wording(note: str) -> str:
    for model_words, cli_words in _CLI_WORDING.items():
        note = note.replace(model_words, cli_words)
    return note


def _cmd_glob(args: argparse.Namespace) -> int:
    from pathgate.runtime._gating import GateCore, NeedsEventLoop

    try:  # without an event loop: the glob tool's own code, every step in this thread
        result = _glob_inline(lambda: _runtime(args, core=GateCore), args)
    except NeedsEventLoop:  # an error to word, a step that awaits: the tool on a runtime
        tool_args: dict[str, Any] = {"pattern": args.pattern, "path": args.path}
        if args.limit is not None:
            tool_args["limit"] = args.limit
        result = _run_async(_call, _runtime(args), "glob", tool_args, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "matches")


def _glob_inline(make_core: Callable[[], Any], args: argparse.Namespace) -> Any:
    """What ``rt.call("glob", ...)`` returns (model spellings in, the renderer's output out)
    on a bare ``GateCore`` (built by ``make_core`` once the code is loaded): the glob tool
    (``runtime/tools/glob.py``, the same ``Discovery``) with its blocking steps run in this
    thread by :func:`run_now`. Anything only the tool
    chain answers raises :class:`NeedsEventLoop`: an argument it rejects, an error it words
    (argument errors name the field, others are generic), a step that must await."""
    from pathgate._names import spell_names, unspell_path
    from pathgate.renderers._discovery import render_discovery
    from pathgate.runtime._gating import NeedsEventLoop, run_now
    from pathgate.runtime.tools.glob import glob

    limit, model = args.limit, getattr(args, "model", None)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise NeedsEventLoop("an argument the tool chain rejects")
    core = make_core()
    try:
        renderer = core.renderer_for(model, getattr(args, "renderer", None))
        result = run_now(glob(core, unspell_path(args.pattern), unspell_path(args.path), limit=limit, model=model))
        return render_discovery(renderer, spell_names(result))
    except NeedsEventLoop:
        raise
    except Exception as exc:  # glob only reads: the same call on a runtime words it exactly
        raise NeedsEventLoop(f"an error the tool chain reports: {type(exc).__name__}") from exc


def _cmd_search(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"regex": args.regex, "path": args.path, "context": args.context,
                                 "case_sensitive": not args.ignore_case}
    if args.glob is not None:
        tool_args["glob"] = args.glob
    if args.limit is not None:
        tool_args["max_results"] = args.limit
    result = _run_async(_call, _runtime(args), "code_search", tool_args, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "hits")


def _cmd_ls(args: argparse.Namespace) -> int:
    # the CLI has no result limit (the model's default is 500 entries)
    result = _run_async(_call, _runtime(args), "list_directory", {"path": args.path, "limit": 0}, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "entries")


def _cmd_explain(args: argparse.Namespace) -> int:
    from pathgate._explain import explain_paths, format_explanation
    from pathgate.runtime._gating import GateCore, NeedsEventLoop, run_now

    paths = list(args.paths)
    try:  # without an event loop: the runtime's gates, decided in this thread
        explanations = run_now(explain_paths(_runtime(args, core=GateCore), paths))
    except NeedsEventLoop:  # e.g. a hard-linked file: the same check, on a runtime
        explanations = _run_async(explain_paths, _runtime(args), paths)
    if args.json:
        _print_json(explanations)
    else:
        for i, exp in enumerate(explanations):
            if i:
                print()
            print(format_explanation(exp, color=_color(sys.stdout)))
    return EXIT_BLOCKED if any(not e.allowed for e in explanations) else EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    _started()
    from pathgate._demo_cli import run_demo

    return run_demo(trace=args.trace, out=sys.stdout)


def _cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from pathgate.mcp import serve_stdio
    except ImportError as exc:
        raise CliError(f"the MCP server needs the 'mcp' extra: pip install 'pathgate[mcp]' ({exc})") from None
    rt = _runtime(args, span_mode="enrich", allow_writes=args.allow_writes or None)
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

