"""Reading an agent CLI's settings file as its agent reads it (for the write guard).

JSON first; else JSONC (``//`` and ``/* */`` comments, trailing commas: VS Code's and
Gemini CLI's files allow them); else every string the file holds, each to be read as a
command (:class:`Strings`: over-inclusive, as an agent's own tolerant parser may still run
what such a file holds). A repository's file past the size bound cannot be checked
(:class:`Unchecked`). Standard library and the bounded reader of :mod:`pathgate.runtime.fs`.
"""

from __future__ import annotations

import errno
import json
import re

__all__ = ["Strings", "Unchecked", "load"]


class Unchecked(Exception):
    """A command (or a settings file) past a bound: what it runs cannot be told."""


class Strings(list[str]):
    """Every string of a settings file that would not parse, each read as a command."""


#: A JSON string literal, and what JSONC adds: ``//`` and ``/* */`` comments, a comma
#: before a closing bracket.
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_JSONC = re.compile(rb'("(?:[^"\\]|\\.)*")|//[^\n]*|/\*.*?\*/|,(\s*[}\]])', re.S)


def load(path: str, cap: int, *, user: bool = False) -> object:
    """The settings file at ``path`` (a link followed, as the agent CLI does): JSON, else
    JSONC, else :class:`Strings`; ``None`` when missing or not a regular file. Past ``cap``
    bytes: :class:`Unchecked`, or ``None`` for a ``user``-level file (``~/.claude.json``
    grows with Claude Code's history; it is not the repository's)."""
    from pathgate.runtime.fs import read_regular

    try:  # O_NONBLOCK, type checked: a FIFO planted as a settings file must not hang every write
        raw = read_regular(path, cap, follow=True)
    except OSError as e:
        if e.errno == errno.EFBIG and not user:
            raise Unchecked from None
        return None
    for text in (raw, _JSONC.sub(lambda m: m.group(1) or m.group(2) or b"", raw)):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            continue
    strings = Strings()
    for m in _JSON_STRING.finditer(raw):
        try:
            value = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(value, str) and value:
            strings.append(value)
    return strings
