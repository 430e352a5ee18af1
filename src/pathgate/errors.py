"""pathgate's exceptions.

A bad *path* is never an exception: it is a :class:`~pathgate.Verdict`. Exceptions are for
bad configuration and bad tool arguments::

    PathgateError
    ├── ConfigError(PathgateError, ValueError)       bad pathgate.toml / Policy value; names the key
    ├── ToolArgumentError(PathgateError, ValueError) bad tool argument; names the field
    └── UnknownToolError(PathgateError, LookupError) no such tool registered
"""

from __future__ import annotations

__all__ = ["ConfigError", "PathgateError", "ToolArgumentError", "UnknownToolError"]


class PathgateError(Exception):
    """Root of every exception pathgate raises on purpose."""


class ConfigError(PathgateError, ValueError):
    """A configuration key or value is invalid. ``key`` names it (dotted), when known."""

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class ToolArgumentError(PathgateError, ValueError):
    """A tool was called with a bad argument. ``field`` names it, when known."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class UnknownToolError(PathgateError, LookupError):
    """A tool name that no one registered."""
