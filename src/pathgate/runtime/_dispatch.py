"""Tool registry and the innermost link of the chain: argument validation, then the tool.

Every tool, built-in or registered by a host, is a :class:`ToolSpec`: an async function taking
the validated argument struct and the call, and a msgspec argument type that doubles as the
tool's JSON input schema. Arguments are validated with ``msgspec.convert``; a bad argument
becomes :class:`~pathgate.errors.ToolArgumentError` naming the field (the error boundary turns
it into an error result).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from pathgate._schema import inline_schema
from pathgate._schema import validation_key as _key_of
from pathgate._types import ToolCall
from pathgate.errors import ToolArgumentError, UnknownToolError
from pathgate.runtime.tools.code_search import DEFAULT_MAX_RESULTS
from pathgate.runtime.tools.glob import DEFAULT_GLOB_LIMIT
from pathgate.runtime.tools.list_directory import DEFAULT_LIST_LIMIT

__all__ = [
    "CodeSearchArgs",
    "EditFileArgs",
    "GlobArgs",
    "ListDirectoryArgs",
    "ReadFilesArgs",
    "ToolSpec",
    "WriteFileArgs",
    "inline_schema",
    "validate_args",
]


class ReadFilesArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``read_files``: project-relative paths; an optional line window
    (``offset`` = first line, 1-based; ``limit`` = number of lines) applied to each file."""

    paths: list[str]
    offset: Annotated[int, msgspec.Meta(ge=1)] | None = None
    limit: Annotated[int, msgspec.Meta(ge=0)] | None = None


class GlobArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``glob``: a pattern relative to ``path`` (``**`` for any depth)."""

    pattern: str
    path: str = "."
    limit: Annotated[Annotated[int, msgspec.Meta(ge=0)] | None, msgspec.Meta(
        description=f"at most this many matches (default {DEFAULT_GLOB_LIMIT}; 0: no limit; "
                    "null: the default)")] = DEFAULT_GLOB_LIMIT


class ListDirectoryArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``list_directory``."""

    path: str = "."
    limit: Annotated[Annotated[int, msgspec.Meta(ge=0)] | None, msgspec.Meta(
        description=f"at most this many entries, by name (default {DEFAULT_LIST_LIMIT}; 0: no limit; "
                    "null: the default)")] = DEFAULT_LIST_LIMIT


class CodeSearchArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``code_search``: a regular expression (RE2/ripgrep dialect) searched line by line in the
    files below ``path`` (optionally only those matching ``glob``)."""

    regex: str
    path: str = "."
    glob: str | None = None
    max_results: Annotated[Annotated[int, msgspec.Meta(ge=0)] | None, msgspec.Meta(
        description=f"at most this many hits (default {DEFAULT_MAX_RESULTS}; 0: no count limit; "
                    "null: the default); the call's output budget holds either way")] = DEFAULT_MAX_RESULTS
    context: Annotated[int, msgspec.Meta(ge=0, le=50)] = 0
    case_sensitive: bool = True


class WriteFileArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``write_file``: a project-relative path and the file's whole new text."""

    path: str
    content: str


class EditFileArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Arguments of ``edit_file``: replace the exact text ``old_string`` (unique unless
    ``replace_all``) with ``new_string`` in the file at ``path``."""

    path: str
    old_string: str
    new_string: str
    replace_all: bool = False


ToolImpl = Callable[[Any, ToolCall], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One registered tool: its implementation, argument type, description and schema."""

    name: str
    fn: ToolImpl
    args_type: type[Any] | None
    description: str = ""
    input_schema: Mapping[str, Any] | None = None
    builtin: bool = False

    def schema(self) -> dict[str, Any]:
        if self.input_schema is not None:
            return dict(self.input_schema)
        if self.args_type is None:
            return {"type": "object"}
        return inline_schema(self.args_type)




def validate_args(spec: ToolSpec, args: Any) -> Any:
    """Convert raw arguments to the tool's argument struct, or raise ToolArgumentError."""
    if spec.args_type is None:
        return args
    if type(args) is not dict:  # a plain dict (the common case) skips the ABC check and copy
        if not isinstance(args, Mapping):
            raise ToolArgumentError(
                f"{spec.name}: arguments must be an object, not {type(args).__name__}", field=None
            )
        args = dict(args)
    try:
        return msgspec.convert(args, spec.args_type, strict=True)
    except UnicodeEncodeError:  # msgspec could not word its error: a lone surrogate ("\\ud800")
        pass
    except msgspec.ValidationError as exc:
        raise _argument_error(spec, exc) from None
    try:  # the same check with lone surrogates escaped, for msgspec's own words
        msgspec.convert(_escaped(args), spec.args_type, strict=True)
    except msgspec.ValidationError as exc:
        raise _argument_error(spec, exc) from None
    field = _surrogate_field(args, "")
    raise ToolArgumentError(f"{spec.name}: argument `{field}`: must be valid Unicode "
                            "(it holds a lone surrogate)", field=field)


def _argument_error(spec: ToolSpec, exc: msgspec.ValidationError) -> ToolArgumentError:
    field, text = _key_of(str(exc))
    if field:
        return ToolArgumentError(f"{spec.name}: argument `{field}`: {text}", field=field)
    return ToolArgumentError(f"{spec.name}: {text}")


def _escaped(node: Any) -> Any:
    """``node`` (JSON-like) with lone surrogates in its strings and keys escaped."""
    if isinstance(node, str):
        return _shown(node)
    if isinstance(node, Mapping):
        return {_escaped(k): _escaped(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_escaped(v) for v in node]
    return node


def _shown(text: str) -> str:
    """``text`` with lone surrogates escaped (``\\ud800``), so an error message stays encodable."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _surrogate_field(node: Any, where: str) -> str:
    """Where the first string holding a lone surrogate sits in ``node`` (a key is named by
    itself, escaped); ``where`` itself when none is found below it."""
    items = node.items() if isinstance(node, Mapping) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        here = f"{where}[{key}]" if isinstance(key, int) else f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and _shown(key) != key:
            return _shown(here)
        if isinstance(value, str) and _shown(value) != value:
            return _shown(here)
        if isinstance(value, (Mapping, list)):
            found = _surrogate_field(value, here)
            if found != here:
                return found
    return _shown(where) or "arguments"


def unknown_tool(name: str, known: list[str]) -> UnknownToolError:
    return UnknownToolError(f"no tool named {name!r}; known tools: {', '.join(sorted(known))}")


