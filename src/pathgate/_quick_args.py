"""The plain command lines of ``pathgate explain``, ``glob`` and ``search``, parsed without argparse.

argparse costs a few milliseconds of a command that takes a hundred: its import, a parser
built per run, and a ``gettext`` catalogue lookup (with ``stat`` calls per language) for
every message it registers. :func:`quick_args` reads the common spellings only — each option
spelled in full with its value as the next word, the positional arguments in one run — into
the namespace argparse would give; anything else (``-h``, ``--limit=5``, an abbreviation, a
value starting with ``-``, ``--``, an unknown or repeated positional, both ``--model`` and
``--renderer``, a ``--limit`` or ``--context`` that is not an integer) gives ``None``, and the command line
goes to argparse, which alone words help and errors. ``tests/test_quick_args.py`` checks
that both give the same namespace on every command line this module accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

__all__ = ["quick_args"]

#: Options accepted before and after the command: option -> (destination, takes a value).
_GLOBAL: dict[str, tuple[str, bool]] = {
    "--root": ("root", True), "--config": ("config", True),
    "--git-only": ("git_only", False), "--debug": ("debug", False),
}
#: The commands read here: (their own options, the positional's destination, several?).
_COMMANDS: dict[str, tuple[dict[str, tuple[str, bool]], str, bool]] = {
    "explain": ({"--json": ("json", False)}, "paths", True),
    "glob": ({"--path": ("path", True), "--limit": ("limit", True), "--model": ("model", True),
              "--renderer": ("renderer", True), "--json": ("json", False)}, "pattern", False),
    "search": ({"--glob": ("glob", True), "--path": ("path", True), "--limit": ("limit", True),
                "--context": ("context", True), "-i": ("ignore_case", False), "--ignore-case": ("ignore_case", False),
                "--model": ("model", True), "--renderer": ("renderer", True), "--json": ("json", False)},
               "regex", False),
}
#: Options whose value argparse converts with ``type=int``.
_INTS = frozenset({"limit", "context"})
#: argparse's defaults for them (``pathgate._cli_parser._args_explain``, ``_args_glob``, ``_args_search``;
#: the global options' defaults are ``pathgate.cli._GLOBAL_DEFAULTS``).
_DEFAULTS: dict[str, dict[str, Any]] = {
    "explain": {"json": False},
    "glob": {"path": ".", "limit": 0, "model": None, "renderer": None, "json": False},
    "search": {"glob": None, "path": ".", "limit": 0, "context": 0, "ignore_case": False, "model": None,
               "renderer": None, "json": False},
}


def quick_args(argv: Sequence[str], at: int | None, global_defaults: dict[str, Any]) -> SimpleNamespace | None:
    """The namespace of ``argv`` (command word at index ``at``), or ``None``: argparse's."""
    if at is None or argv[at] not in _COMMANDS:
        return None
    command = argv[at]
    own, positional, several = _COMMANDS[command]
    values: dict[str, Any] = {**global_defaults, **_DEFAULTS[command], "command": command}
    words: list[str] = []
    run_over = False  # the positional run ended (an option came after it)
    i = 0
    while i < len(argv):
        word = argv[i]
        if i == at:
            i += 1
            continue
        if not word.startswith("-"):
            if i < at or run_over:
                return None
            words.append(word)
            i += 1
            continue
        known = _GLOBAL.get(word) if i < at else own.get(word) or _GLOBAL.get(word)
        if known is None:
            return None
        dest, takes_value = known
        if takes_value:
            if i + 1 >= len(argv) or i + 1 == at or argv[i + 1].startswith("-"):
                return None
            value: Any = argv[i + 1]
            if dest in _INTS:  # argparse's type=int, on every occurrence
                try:
                    value = int(value)
                except ValueError:
                    return None
            values[dest] = value
            i += 2
        else:
            values[dest] = True
            i += 1
        run_over = bool(words)
    if not words or (len(words) > 1 and not several):
        return None
    values[positional] = words if several else words[0]
    return _typed(values)


def _typed(values: dict[str, Any]) -> SimpleNamespace | None:
    """argparse's exclusion: ``--model`` or ``--renderer``, not both."""
    if values.get("model") is not None and values.get("renderer") is not None:
        return None
    return SimpleNamespace(**values)
