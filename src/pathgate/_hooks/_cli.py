"""The ``pathgate hook`` command line (kept apart from ``pathgate.cli`` so a hook run imports
only what it needs: it runs before every tool call of the agent).

::

    pathgate hook <claude-code|cursor|gemini> [--root DIR] [--config FILE] [--renderer R]
    pathgate hook install <claude-code|cursor|gemini> [--project | --user] [--print]
                                                      [--command CMD]
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import argparse

__all__ = ["main"]

AGENT_NAMES = ("claude-code", "cursor", "gemini")

_EPILOG = """\
examples:
  pathgate hook install claude-code          # merge into .claude/settings.json
  pathgate hook install cursor --user --print
  echo '{"tool_name": "Read", "tool_input": {"file_path": ".env"}}' | pathgate hook claude-code

exit status (the agent's convention): 0 = answered (allow or deny in JSON);
2 = blocked because the check itself failed (reason on stderr)."""


class HookArgs(NamedTuple):
    """The options of one hook run."""

    agent: str
    root: str | None = None
    config: str | None = None
    renderer: str | None = None


_OPTIONS = ("--root", "--config", "--renderer")


def _plain_args(argv: Sequence[str]) -> HookArgs | None:
    """``AGENT [--root DIR] [--config FILE] [--renderer R]`` (``--opt=value`` too), read
    without argparse (a hook starts on every tool call); ``None`` for anything else (help,
    a typo, a missing value): argparse then answers."""
    if not argv or argv[0] not in AGENT_NAMES:
        return None
    values: dict[str, str] = {}
    rest = list(argv[1:])
    while rest:
        word = rest.pop(0)
        name, eq, value = word.partition("=")
        if name not in _OPTIONS or name in values:
            return None
        if not eq:
            if not rest or rest[0].startswith("-"):
                return None
            value = rest.pop(0)
        values[name] = value
    return HookArgs(argv[0], values.get("--root"), values.get("--config"), values.get("--renderer"))


def _parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="pathgate hook",
        description="Answer an agent CLI's pre-tool hook with pathgate's gates, or install it.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_EPILOG,
    )
    p.add_argument("agent", choices=AGENT_NAMES, metavar="AGENT",
                   help="claude-code, cursor or gemini (or: install AGENT)")
    p.add_argument("--root", metavar="DIR",
                   help="project root (default: the one the agent names in its payload)")
    p.add_argument("--config", metavar="FILE",
                   help="the host's config file (may loosen; default: the user-level file "
                        "~/.config/pathgate/config.toml if present); the project's own "
                        "pathgate.toml can only tighten it")
    p.add_argument("--renderer", metavar="R", help="renderer of the deny text (default: per config)")
    return p


def _install_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="pathgate hook install",
        description="Merge pathgate's hook into an agent CLI's settings file (idempotent).",
    )
    p.add_argument("agent", choices=AGENT_NAMES, metavar="AGENT", help="claude-code, cursor or gemini")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--project", action="store_true",
                       help="the project's settings file (default), below --root")
    where.add_argument("--user", action="store_true", help="the user's settings file (~)")
    p.add_argument("--root", default=".", metavar="DIR", help="project directory (default: .)")
    p.add_argument("--print", action="store_true", dest="print_only",
                   help="print the resulting JSON, write nothing")
    p.add_argument("--command", metavar="CMD",
                   help="the command the agent runs (default: 'pathgate hook AGENT')")
    return p


def _install(argv: Sequence[str]) -> int:
    import json

    from pathgate._hooks._install import (
        InstallError,
        install,
        load_settings,
        other_settings,
        settings_path,
        switched_off,
    )

    args = _install_parser().parse_args(argv)
    path = settings_path(args.agent, user=args.user, project=args.root)
    command = args.command or f"pathgate hook {args.agent}"
    try:
        text, changed = install(args.agent, path, command, write=not args.print_only)
    except (InstallError, OSError) as exc:
        print(f"pathgate hook install: error: {exc}", file=sys.stderr)
        return 2
    if args.print_only:
        sys.stdout.write(text)
    elif changed:
        print(f"pathgate hook install: wrote {path}", file=sys.stderr)
    else:
        print(f"pathgate hook install: {path} already has pathgate's hook; nothing changed",
              file=sys.stderr)
    found = [(path, switched_off(args.agent, json.loads(text), command))]
    for other in other_settings(args.agent, user=args.user, project=args.root):
        try:
            found.append((other, switched_off(args.agent, load_settings(other), command)))
        except InstallError as exc:
            print(f"pathgate hook install: warning: {exc}", file=sys.stderr)
    off = [(where, key) for where, key in found if key is not None]
    for where, key in off:
        print(f"pathgate hook install: error: {where} sets `{key}`, which switches off pathgate's hook "
              f"for {args.agent}: the hook is in {path} but will not run. Remove that key (a repository "
              "may ship it to switch its guard off).", file=sys.stderr)
    return 1 if off else 0


def main(argv: Sequence[str]) -> int:
    """Entry point of ``pathgate hook ...`` (called by :func:`pathgate.cli.main`)."""
    if argv and argv[0] == "install":
        return _install(argv[1:])
    args = _plain_args(argv) or _parser().parse_args(argv)
    from pathgate._hooks._run import run_hook

    answer = run_hook(args.agent, sys.stdin.buffer.read(), root=args.root, config=args.config,
                      renderer=args.renderer)
    if answer.stdout:
        sys.stdout.write(answer.stdout)
        sys.stdout.flush()
    if answer.stderr:
        sys.stderr.write(answer.stderr)
    return answer.exit_code
