"""pathgate: an async middleware between AI agents and a project's files.

The public names are loaded on first use (PEP 562 ``__getattr__``): ``import pathgate`` costs
almost nothing, so a command or a hook that needs only part of the package (``pathgate hook``
runs on every tool call of an agent) does not pay for the whole runtime. Type checkers see the
names through the ``TYPE_CHECKING`` imports below; each export presents itself as
``pathgate.X`` once loaded.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgate._types import CallNext as CallNext
    from pathgate._types import CallState as CallState
    from pathgate._types import Middleware as Middleware
    from pathgate._types import ToolCall as ToolCall
    from pathgate.config import Policy as Policy
    from pathgate.config import load_config as load_config
    from pathgate.errors import ConfigError as ConfigError
    from pathgate.errors import PathgateError as PathgateError
    from pathgate.errors import ToolArgumentError as ToolArgumentError
    from pathgate.errors import UnknownToolError as UnknownToolError
    from pathgate.runtime._runtime import Runtime as Runtime
    from pathgate.verdicts import FileResult as FileResult
    from pathgate.verdicts import Gate as Gate
    from pathgate.verdicts import Remedy as Remedy
    from pathgate.verdicts import Rule as Rule
    from pathgate.verdicts import Status as Status
    from pathgate.verdicts import Verdict as Verdict

__version__ = "0.1.0"

__all__ = [
    "CallNext",
    "CallState",
    "ConfigError",
    "FileResult",
    "Gate",
    "Middleware",
    "PathgateError",
    "Policy",
    "Remedy",
    "Rule",
    "Runtime",
    "Status",
    "ToolArgumentError",
    "ToolCall",
    "UnknownToolError",
    "Verdict",
    "load_config",
]

#: Where each public name lives; loaded (with its module's other exports) on first access.
_WHERE: dict[str, str] = {
    "CallNext": "pathgate._types",
    "CallState": "pathgate._types",
    "Middleware": "pathgate._types",
    "ToolCall": "pathgate._types",
    "Policy": "pathgate.config",
    "load_config": "pathgate.config",
    "ConfigError": "pathgate.errors",
    "PathgateError": "pathgate.errors",
    "ToolArgumentError": "pathgate.errors",
    "UnknownToolError": "pathgate.errors",
    "Runtime": "pathgate.runtime._runtime",
    "FileResult": "pathgate.verdicts",
    "Gate": "pathgate.verdicts",
    "Remedy": "pathgate.verdicts",
    "Rule": "pathgate.verdicts",
    "Status": "pathgate.verdicts",
    "Verdict": "pathgate.verdicts",
}


def __getattr__(name: str) -> Any:
    """Load a public name on first access (and its module's other public names with it)."""
    module_name = _WHERE.get(name)
    if module_name is None:
        raise AttributeError(f"module 'pathgate' has no attribute {name!r}")
    module = importlib.import_module(module_name)
    for other, where in _WHERE.items():
        if where == module_name:
            obj = getattr(module, other)
            try:
                obj.__module__ = "pathgate"
            except (AttributeError, TypeError):  # pragma: no cover - aliases, builtins
                pass
            globals()[other] = obj
    return globals()[name]


def __dir__() -> list[str]:
    """The module's names, the lazily loaded public ones included."""
    return sorted({*globals(), *__all__})
