"""OpenAI Agents SDK: pathgate's tools as ``FunctionTool``\\ s, and a tool input guardrail.

``pip install 'pathgate[openai-agents]'``::

    from agents import Agent, function_tool
    from pathgate import Runtime
    from pathgate.adapters.openai_agents import path_guardrail, pathgate_tools

    rt = Runtime("/path/to/project")
    guard = path_guardrail(rt)

    @function_tool(tool_input_guardrails=[guard])
    def open_file(path: str) -> str: ...

    agent = Agent(name="coder", model="gpt-4o-mini", tools=[*pathgate_tools(rt), open_file])

Each pathgate tool runs through the runtime's chain, rendered for the agent's model (its
``model`` when it is a name, else the adapter's ``model``; ``renderer=`` forces one), and
returns the text the model reads: JSON (``{path: content or status}`` for ``read_files``);
a bad argument returns pathgate's message naming the field.

:func:`path_guardrail` checks another tool's path arguments with pathgate's path-only gates
(escapes, secrets, the host filter, ignore rules) before it runs; a refused call is not run
and the model reads why (``reject_content``; a secret stays a bare ``[BLOCKED]``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pathgate.adapters._common import missing_extra

try:
    from agents import FunctionTool, ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolInputGuardrailData
    from agents.tool_context import ToolContext
except ModuleNotFoundError as _exc:  # the framework is an optional extra
    raise missing_extra("openai_agents", "openai-agents", _exc) from None

from pathgate.adapters._common import (
    DEFAULT_PATH_KEYS,
    call_tool,
    guard_arguments,
    to_text,
    tool_infos,
)
from pathgate.runtime._runtime import Runtime

__all__ = ["path_guardrail", "pathgate_tools"]


def _model_id(agent: Any, fallback: str | None) -> str | None:
    """The agent's model as a name: ``Agent.model`` when it is a string or a model object
    carrying one (``.model``), else ``fallback``."""
    model = getattr(agent, "model", None)
    if isinstance(model, str) and model:
        return model
    name = getattr(model, "model", None)
    return name if isinstance(name, str) and name else fallback


def _parse(arguments: str) -> Any:
    try:
        return json.loads(arguments or "{}")
    except json.JSONDecodeError as exc:
        return exc


def pathgate_tools(runtime: Runtime, names: Iterable[str] | None = None, *, model: str | None = None,
                   renderer: str | None = None) -> list[FunctionTool]:
    """The runtime's tools (default: the four file tools) as Agents SDK ``FunctionTool``\\ s
    (non-strict schemas: pathgate's arguments have optional fields; pathgate validates)."""
    tools: list[FunctionTool] = []
    for info in tool_infos(runtime, names, model=model, renderer=renderer):

        async def invoke(ctx: ToolContext[Any], arguments: str, _name: str = info.name) -> str:
            args = _parse(arguments)
            if isinstance(args, Exception):
                return f"{_name}: the arguments are not valid JSON ({args})"
            result = await call_tool(runtime, _name, args, model=_model_id(ctx.agent, model),
                                     call_id=ctx.tool_call_id, agent=getattr(ctx.agent, "name", None),
                                     renderer=renderer)
            return to_text(result)

        tools.append(FunctionTool(name=info.name, description=info.description,
                                  params_json_schema=info.schema, on_invoke_tool=invoke,
                                  strict_json_schema=False))
    return tools


def path_guardrail(runtime: Runtime, *, path_keys: Iterable[str] = DEFAULT_PATH_KEYS,
                   model: str | None = None, renderer: str | None = None,
                   name: str = "pathgate", writes: bool = False) -> ToolInputGuardrail[Any]:
    """A tool input guardrail that refuses a call when pathgate blocks one of its path
    arguments (``path_keys``, looked up in nested objects too). ``output_info`` lists the
    refused paths for the host. ``writes=True`` for a tool that writes to its paths: they
    pass the write gates instead (never what an agent may not write)."""
    keys = frozenset(path_keys)

    async def check(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        args = _parse(ctx.tool_arguments)
        if isinstance(args, Exception):
            return ToolGuardrailFunctionOutput.allow()  # the tool reports its own bad JSON
        guarded = await guard_arguments(runtime, args, keys, model=_model_id(data.agent, model),
                                        call_id=ctx.tool_call_id, agent=data.agent.name, renderer=renderer,
                                        writes=writes)
        if not guarded.paths and guarded.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info={"paths": []})
        if guarded.allowed:
            return ToolGuardrailFunctionOutput.allow(output_info={"paths": guarded.paths})
        return ToolGuardrailFunctionOutput.reject_content(
            guarded.message(ctx.tool_name),
            output_info={"paths": guarded.paths, "blocked": sorted(guarded.blocked)},
        )

    return ToolInputGuardrail(guardrail_function=check, name=name)
