"""PydanticAI: pathgate's tools as a toolset, and a wrapper toolset that gates other tools' paths.

``pip install 'pathgate[pydantic-ai]'``::

    from pydantic_ai import Agent
    from pathgate import Runtime
    from pathgate.adapters.pydantic_ai import PathgateToolset, PathgateWrapperToolset

    rt = Runtime("/path/to/project")
    agent = Agent("openai:gpt-4o-mini", toolsets=[
        PathgateToolset(rt),                        # read_files, glob, list_directory, code_search
        PathgateWrapperToolset(my_toolset, runtime=rt),  # its path arguments gated first
    ])

Every call goes through the runtime's chain and is rendered for the run's model
(``ctx.model.model_name``, else the toolset's ``model``; ``renderer=`` forces a renderer). A tool
returns a :class:`pydantic_ai.messages.ToolReturn`: ``return_value`` is what the model
reads (blocked paths included, as status texts or structured entries); ``metadata`` is for
the host only — ``{"pathgate": <the structured renderer's data for the same run>}``. A bad
argument asks the model to retry (:class:`~pydantic_ai.ModelRetry` with pathgate's message
naming the field).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pathgate.adapters._common import missing_extra

try:
    from pydantic_ai import ModelRetry, RunContext
    from pydantic_ai.messages import ToolReturn
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
    from pydantic_core import PydanticSerializationError, SchemaValidator, core_schema, to_jsonable_python
except ModuleNotFoundError as _exc:  # the framework is an optional extra
    raise missing_extra("pydantic_ai", "pydantic-ai", _exc) from None

from pathgate.adapters._common import (
    DEFAULT_PATH_KEYS,
    Guarded,
    call_tool_twice_rendered,
    guard_arguments,
    is_error,
    tool_infos,
)
from pathgate.runtime._runtime import Runtime

__all__ = ["PathgateToolset", "PathgateWrapperToolset"]

#: Arguments pass through as a mapping: pathgate validates them (and names a bad field).
_ARGS_VALIDATOR = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))


def _model_id(ctx: RunContext[Any], fallback: str | None) -> str | None:
    name = getattr(ctx.model, "model_name", None)
    return name if isinstance(name, str) and name else fallback


class PathgateToolset(AbstractToolset[Any]):
    """The runtime's tools (default: the four file tools) as a PydanticAI toolset.

    * ``model``: the model id to render for when the run's model has no name.
    * ``renderer``: force a renderer by name.
    * ``max_retries``: how often the model may retry a call with bad arguments.
    * ``id``: the toolset id (needed for durable execution, e.g. Temporal).
    * ``agent``: the agent these tools serve (the reader and writer of the no-lost-update
      check; ``write_file`` / ``edit_file`` are listed when the runtime has writes enabled).
    """

    def __init__(self, runtime: Runtime, names: Iterable[str] | None = None, *, model: str | None = None,
                 renderer: str | None = None, max_retries: int = 2, id: str | None = None,
                 agent: str | None = None) -> None:
        self.runtime = runtime
        self.agent = agent
        self.model = model
        self.renderer = renderer
        self.max_retries = max_retries
        self._id = id
        self._names = None if names is None else list(names)
        tool_infos(runtime, self._names)  # fail early on an unknown name

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        model = _model_id(ctx, self.model)
        return {
            info.name: ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(name=info.name, description=info.description,
                                        parameters_json_schema=info.schema),
                max_retries=self.max_retries,
                args_validator=_ARGS_VALIDATOR,
            )
            for info in tool_infos(self.runtime, self._names, model=model, renderer=self.renderer)
        }

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> ToolReturn:
        result, structured = await call_tool_twice_rendered(
            self.runtime, name, tool_args, model=_model_id(ctx, self.model), call_id=ctx.tool_call_id,
            renderer=self.renderer, agent=self.agent,
        )
        if is_error(result):
            raise ModelRetry(str(result["error"]))
        return ToolReturn(return_value=result, metadata={"pathgate": structured})


@dataclass
class PathgateWrapperToolset(WrapperToolset[Any]):
    """Wraps any toolset: before one of its tools runs, its path arguments (``path_keys``,
    default :data:`~pathgate.adapters._common.DEFAULT_PATH_KEYS`) pass pathgate's path-only
    gates — escapes, secrets, the host filter, ignore rules. A refused call is not run: the
    model reads why (rendered for its model; a secret stays a bare ``[BLOCKED]``), and
    ``metadata["pathgate_blocked"]`` lists the refused paths for the host. The tools named
    in ``write_tools`` write to their paths: those pass the write gates instead (never what
    an agent may not write: pathgate's and the agent CLIs' own files, what steers git …)."""

    runtime: Runtime = field(kw_only=True)
    path_keys: frozenset[str] = field(default=DEFAULT_PATH_KEYS, kw_only=True)
    write_tools: frozenset[str] = field(default=frozenset(), kw_only=True)
    model: str | None = field(default=None, kw_only=True)
    renderer: str | None = field(default=None, kw_only=True)

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> Any:
        try:  # validated arguments hold models and dataclasses: look at them as JSON data
            data = to_jsonable_python(tool_args)
        except PydanticSerializationError:  # a value pathgate cannot look into: refuse the call
            guarded = Guarded([], {"arguments": "[BLOCKED]: arguments pathgate cannot check"})
        else:
            guarded = await guard_arguments(self.runtime, data, self.path_keys, model=_model_id(ctx, self.model),
                                            call_id=ctx.tool_call_id, renderer=self.renderer,
                                            writes=name in self.write_tools)
        if not guarded.allowed:
            return ToolReturn(return_value=guarded.message(name),
                              metadata={"pathgate_blocked": sorted(guarded.blocked)})
        return await super().call_tool(name, tool_args, ctx, tool)
