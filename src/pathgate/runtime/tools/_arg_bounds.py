"""Bounds on the size of a tool's path arguments (red team 19 K2).

Each written component of a path is judged on the event loop (is it a secret's name?), so one
path of 1,000,000 components stalled every other agent's calls for 7-9 s. A call's paths may
hold at most :data:`MAX_PATH_COMPONENTS` components and :data:`MAX_PATH_CHARS` characters in
all (~0.3 s at worst; a ``read_files`` batch of 4,096 ordinary paths fits). Standard library
only: the command-line fast paths import it without an event loop.
"""

from __future__ import annotations

from pathgate.errors import ToolArgumentError

__all__ = ["MAX_PATH_CHARS", "MAX_PATH_COMPONENTS", "check_path_size"]

MAX_PATH_COMPONENTS = 32 * 1024
MAX_PATH_CHARS = 1024 * 1024


def check_path_size(tool: str, path: str, field: str = "path") -> None:
    """Refuse a discovery tool's ``path`` past the bounds a read's paths have together."""
    if len(path) > 4096 and (len(path) > MAX_PATH_CHARS
                             or path.count("/") + path.count("\\") > MAX_PATH_COMPONENTS):
        raise ToolArgumentError(f"{tool}: `{field}` holds more than {MAX_PATH_COMPONENTS:,} components "
                                f"or {MAX_PATH_CHARS:,} characters", field=field)
