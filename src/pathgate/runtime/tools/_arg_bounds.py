"""Bounds on the size of a tool's path arguments (red team 19 K2).

Each written component of a path is judged on the event loop (is it a secret's name?), so one
path of 1,000,000 components stalled every other agent's calls for 7-9 s. A call's paths may
hold at most :data:`MAX_PATH_COMPONENTS` components and :data:`MAX_PATH_CHARS` characters in
all (~0.3 s at worst; a ``read_files`` batch of 4,096 ordinary paths fits). Standard library
only: the command-line fast paths import it without an event loop.
"""

from __future__ import annotations

from pathgate.errors import ToolArgumentError

__all__ = ["MAX_PATH_CHARS", "MAX_PATH_COMPONENTS", "check_path_size", "check_paths_size"]

MAX_PATH_COMPONENTS = 32 * 1024
MAX_PATH_CHARS = 1024 * 1024


def check_paths_size(tool: str, paths: list[str], field: str = "paths") -> None:
    """Refuse ``paths`` (one call's, together) past :data:`MAX_PATH_COMPONENTS` components or
    :data:`MAX_PATH_CHARS` characters, with a :class:`ToolArgumentError` naming ``field``."""
    chars = sum(map(len, paths))
    # a path has no more components than characters: most calls stop at the first test; the
    # separators of all paths are counted at once (at most ``MAX_PATH_CHARS`` characters joined)
    if chars > MAX_PATH_CHARS or (
            chars > MAX_PATH_COMPONENTS and _separators("".join(paths)) > MAX_PATH_COMPONENTS):
        raise ToolArgumentError(f"{tool}: `{field}` holds more than {MAX_PATH_COMPONENTS:,} path components "
                                f"or {MAX_PATH_CHARS:,} characters in all (split it into several calls)",
                                field=field)


def _separators(joined: str) -> int:
    """``/`` and ``\\`` in ``joined`` (a backslash is seldom there: looked for first, a C scan)."""
    return joined.count("/") + (joined.count("\\") if "\\" in joined else 0)


def check_path_size(tool: str, path: str, field: str = "path") -> None:
    """:func:`check_paths_size` for a discovery tool's one ``path``."""
    check_paths_size(tool, [path], field)
