"""Command lines split into words as a shell splits them (for the write guard's reading of
the commands agent settings and git hooks run). Standard library only.
"""

from __future__ import annotations

import re
import shlex

from pathgate.runtime.tools._settings_load import Unchecked

__all__ = ["_braces", "_split"]

#: Words one command line may hold before what it runs cannot be told (:class:`Unchecked`).
_MAX_WORDS = 4096
#: Levels of shell quoting a command is split through (``bash -c "sh -c '…'"``).
_MAX_DEPTH = 8
#: Blanks and shell operators inside a word (``bash -c "a && b"``: split again).
_OPERATORS = re.compile(r"[;&|()<>`\s]+")
#: A brace alternative (``{lint,types}``).
_BRACE = re.compile(r"\{([^{}]*,[^{}]*)\}")


def _split(command: str, depth: int = 0) -> list[str]:
    """The words of a command line as a shell splits it (unbalanced quotes: at blanks);
    a word holding blanks or shell operators (``bash -c "a && b"``) split again."""
    try:
        words = shlex.split(command, comments=False, posix=True)
    except ValueError:
        words = command.split()
    if len(words) > _MAX_WORDS:
        raise Unchecked
    out: list[str] = []
    for w in words:
        out.append(w)
        parts = [p for p in _OPERATORS.split(w) if p]
        if parts and parts != [w]:  # (a word of operators alone, `|`, splits no further)
            if depth >= _MAX_DEPTH:
                raise Unchecked
            out.extend(_split(_OPERATORS.sub(_kept, w).strip(), depth + 1))
    if len(out) > 8 * _MAX_WORDS:
        raise Unchecked
    return out


def _kept(run: re.Match[str]) -> str:
    """A run of blanks and operators inside a word, split again: a pipe kept as its own word
    (``bash -c "cat hook | sh"`` feeds ``hook`` to ``sh``), anything else a blank."""
    text = run.group(0)
    return " | " if "|" in text and "||" not in text else " "


def _braces(word: str, limit: int = 64) -> list[str]:
    """``word`` with its shell brace alternatives expanded (``check-{lint,types}.sh``: two
    words), at most ``limit`` of them; past that, the text before the first brace (a
    directory with everything below it counts then)."""
    out = [word]
    for _ in range(8):
        nxt: list[str] = []
        changed = False
        for w in out:
            m = _BRACE.search(w)
            if m is None:
                nxt.append(w)
                continue
            changed = True
            nxt += [w[:m.start()] + alt + w[m.end():] for alt in m.group(1).split(",")]
        out = nxt
        if not changed:
            break
        if len(out) > limit:
            return [word[:word.index("{")]]
    return out
