"""pathgate: an async middleware between AI agents and a project's files."""

from __future__ import annotations

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

for _name in __all__:
    _obj = globals()[_name]
    try:
        _obj.__module__ = "pathgate"
    except (AttributeError, TypeError):  # pragma: no cover - builtins
        pass
del _name, _obj
