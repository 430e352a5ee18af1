"""The ``pathgate`` command line: arguments in, the runtime's answer out; no decision logic here.

``check-ignore``, ``hook``, ``explain``, ``glob`` and ``search`` answer without an event loop
(each imports only what it needs: it is a process per call; ``glob`` and ``search`` run the
tool's own code on a bare ``GateCore``, its blocking steps in this thread:
:mod:`pathgate._cli_inline`); ``read``, ``ls`` and ``mcp`` run a :class:`~pathgate.Runtime`
under ``anyio.run``.

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

#: ``explain`` of at most this many paths reads a huge ignore file line by line for them
#: (:mod:`pathgate.runtime.ignore._lazy`) rather than compiling it whole.
EXPLAIN_LAZY_PATHS = 64

#: Global options: accepted before the command too; defaults applied after parsing.
_GLOBAL_DEFAULTS: dict[str, Any] = {"root": ".", "config": None, "git_only": False, "debug": False}

#: Notes name the model's argument; a person at the CLI has ``--limit``.
_CLI_WORDING = {"raise max_results": "raise --limit (0 = no limit)",
                "raise the limit": "raise --limit (0 = no limit)"}

class CliError(Exception):
    """A user-facing error: printed on stderr without a traceback."""


def _color(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ


def _style(text: str, code: str, stream: TextIO) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if _color(stream) else text


def _note(text: str) -> None:
    print(_style(text, "2", sys.stderr), file=sys.stderr)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command but ``check-ignore`` and ``hook`` (they parse their own);
    ``only``: just that command's subparser (:mod:`pathgate._cli_parser`)."""
    from pathgate._cli_parser import build_parser as build

    return build(only)


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

    A command whose process has no other thread left exits at once with its status once its
    ``atexit`` callbacks have run (the first thing the interpreter's shutdown would do) and its
    output is flushed, instead of tearing the interpreter down module by module and object
    by object (a tenth of a short command's process; ≈ 0.2 s after a big search, whose
    walk leaves ~10⁵ objects). Anything else exits as usual.

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
    """``os._exit(status)`` after the ``atexit`` callbacks (each run once, as the shutdown
    runs them: an error in one is reported and the next one runs) when no other thread is
    left; else return (a flush that fails is left to the usual exit to report)."""
    import atexit
    import threading

    run_callbacks = getattr(atexit, "_run_exitfuncs", None)
    if run_callbacks is None or threading.active_count() != 1:
        return
    run_callbacks()
    if threading.active_count() != 1:  # a callback started one: the usual exit joins it
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
    ``explain``, ``glob`` and ``search`` are read without argparse (:mod:`pathgate._quick_args`),
    the others by argparse (:mod:`pathgate._cli_parser`)."""
    own = _own_parser_command(args_list)
    if own is not None:
        return own
    at = _command_index(args_list)
    from pathgate._quick_args import quick_args

    quick = quick_args(args_list, at, _GLOBAL_DEFAULTS)  # the common spellings, without argparse
    if quick is not None:
        args = cast("argparse.Namespace", quick)  # the same attributes (tests/test_quick_args.py)
    else:
        from pathgate._cli_parser import parse, suggest_command

        word = args_list[at] if at is not None else None
        parser = build_parser(word if word in _COMMANDS else None)  # an unknown word: all, to suggest
        suggest_command(parser, args_list, at)
        args = parse(parser, args_list, _GLOBAL_DEFAULTS)
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
    if lines:  # one write (a print per line is two system calls each with unbuffered output)
        sys.stdout.write("\n".join(map(str, lines)) + "\n")
    for note in result.get("notes", ()):
        _note(_cli_wording(str(note)))
    return status


def _cli_wording(note: str) -> str:
    for model_words, cli_words in _CLI_WORDING.items():
        note = note.replace(model_words, cli_words)
    return note


def _cmd_glob(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"pattern": args.pattern, "path": args.path}
    if args.limit is not None:
        tool_args["limit"] = args.limit
    return _print_discovery(_discovery(args, "glob", tool_args), args, "matches")


def _cmd_search(args: argparse.Namespace) -> int:
    tool_args: dict[str, Any] = {"regex": args.regex, "path": args.path, "context": args.context,
                                 "case_sensitive": not args.ignore_case}
    if args.glob is not None:
        tool_args["glob"] = args.glob
    if args.limit is not None:
        tool_args["max_results"] = args.limit
    return _print_discovery(_discovery(args, "code_search", tool_args), args, "hits")


def _discovery(args: argparse.Namespace, tool: str, tool_args: dict[str, Any]) -> Any:
    """What ``rt.call(tool, tool_args)`` returns: without an event loop when it can (the
    tool's own code on a bare ``GateCore``, every step in this thread:
    :mod:`pathgate._cli_inline`), else the tool on a ``Runtime``."""
    from pathgate.runtime._gating import GateCore, NeedsEventLoop

    try:
        result = _inline(lambda: _runtime(args, core=GateCore), tool, tool_args, args)
    except NeedsEventLoop:  # an error to word, a step that awaits: the tool on a runtime
        result = _run_async(_call, _runtime(args), tool, tool_args, args)
    _fail_on_error(result)
    return result


def _inline(make_core: Callable[[], Any], tool: str, tool_args: dict[str, Any], args: argparse.Namespace) -> Any:
    """:func:`pathgate._cli_inline.run_inline` with the command's model and renderer."""
    from pathgate._cli_inline import run_inline

    return run_inline(make_core, tool, tool_args, model=getattr(args, "model", None),
                      renderer=getattr(args, "renderer", None), last=_freeze_on_start)


def _cmd_ls(args: argparse.Namespace) -> int:
    # the CLI has no result limit (the model's default is 500 entries)
    result = _run_async(_call, _runtime(args), "list_directory", {"path": args.path, "limit": 0}, args)
    _fail_on_error(result)
    return _print_discovery(result, args, "entries")


def _cmd_explain(args: argparse.Namespace) -> int:
    import contextlib

    from pathgate._explain import explain_paths, format_explanation
    from pathgate.runtime._gating import GateCore, NeedsEventLoop, run_now
    from pathgate.runtime.ignore._lazy import one_shot

    paths = list(args.paths)
    # a few paths asked: a huge ignore file read line by line for them, not compiled whole
    with one_shot() if len(paths) <= EXPLAIN_LAZY_PATHS else contextlib.nullcontext():
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
    # a server lives as long as its client: discovery from the live index unless told not to
    rt = _runtime(args, span_mode="enrich", allow_writes=args.allow_writes or None,
                  live_index=not args.no_live_index)
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

