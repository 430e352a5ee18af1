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

__all__ = ["Strings", "Unchecked", "load", "parse"]


class Unchecked(Exception):
    """A command (or a settings file) past a bound: what it runs cannot be told."""


class Strings(list[str]):
    """Every string of a settings file that would not parse, each read as a command."""


#: One pass over a JSONC text: a string (to its closing quote, or to the end when it has
#: none), a ``//`` comment, a ``/* */`` comment (to the end when unclosed), a run of
#: anything else. Every alternative ends at once or at the end of the text, with possessive
#: repeats: linear, whatever the text (no rescans from each unclosed quote or ``/*``).
_TOKEN = re.compile(rb'"(?:[^"\\]|\\[\s\S])*+(?:"|\\?\Z)|//[^\n]*|/\*(?:[^*]|\*(?!/))*+(?:\*/|\Z)|[^"/]+|/')
#: Strings a settings file that does not parse may hold (each read as a command).
MAX_STRINGS = 4096
#: A comma before a closing bracket (outside strings, once comments are gone).
_TRAILING_COMMA = re.compile(rb",(\s*[}\]])")


def _strip(raw: bytes) -> tuple[bytes, list[bytes]]:
    """``raw`` without comments and trailing commas, and its string literals."""
    out: list[bytes] = []
    strings: list[bytes] = []
    for m in _TOKEN.finditer(raw):
        tok = m.group(0)
        if tok[:1] == b'"':
            strings.append(tok)
            out.append(tok)
        elif tok[:2] in (b"//", b"/*"):
            out.append(b" ")
        else:
            out.append(tok)
    parts: list[bytes] = []
    for m in _TOKEN.finditer(b"".join(out)):
        tok = m.group(0)
        parts.append(tok if tok[:1] == b'"' else _TRAILING_COMMA.sub(rb"\1", tok))
    return b"".join(parts), strings


def load(path: str, cap: int, *, user: bool = False, root: str | None = None,
         followed: list[str] | None = None) -> object:
    """The settings file at ``path`` as its agent reads it: JSON, else JSONC, else
    :class:`Strings`; ``None`` when missing or not a regular file. Past ``cap`` bytes:
    :class:`Unchecked`, or ``None`` for a ``user``-level file (``~/.claude.json`` grows with
    Claude Code's history; it is not the repository's). A ``user``-level file is read through
    links, as the agent CLI reads it; a project's (``root``: the project's real root) never
    is, but as :func:`~._guard_read.read_guarded` follows one to a file the read gates serve
    (its real path appended to ``followed``): any other link, or a file reached through one,
    is :class:`Unchecked` whatever it leads to (it may be a secret's other name)."""
    from pathgate.runtime.fs import read_regular
    from pathgate.runtime.tools._guard_read import Linked, read_guarded

    try:  # O_NONBLOCK, type checked: a FIFO planted as a settings file must not hang every write
        if root is None:
            raw = read_regular(path, cap, follow=True)
        else:
            raw, real = read_guarded(path, root, cap)
            if real is not None and followed is not None:
                followed.append(real)
    except Linked:
        raise Unchecked from None
    except OSError as e:
        if e.errno == errno.EFBIG and not user:
            raise Unchecked from None
        return None
    return parse(raw, user=user)


def parse(raw: bytes, *, user: bool = False) -> object:
    """A settings file's bytes as its agent reads them (see :func:`load`)."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        pass
    text, literals = _strip(raw)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    if len(literals) > MAX_STRINGS and not user:
        raise Unchecked
    strings = Strings()
    for lit in literals[:MAX_STRINGS]:  # as a tolerant parser keeps them: raw tabs, unknown escapes
        try:
            value = json.loads(lit, strict=False)
        except ValueError:
            value = lit.strip(b'"').decode("utf-8", "replace")
        if isinstance(value, str) and value:
            strings.append(value)
    return strings
