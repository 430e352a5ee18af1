"""LangChain 1.x: an agent middleware and the pathgate tools as LangChain tools.

``pip install 'pathgate[langchain]'``::

    from langchain.agents import create_agent
    from pathgate import Runtime
    from pathgate.adapters.langchain import PathgateMiddleware

    rt = Runtime("/path/to/project")
    agent = create_agent("openai:gpt-4o-mini", middleware=[PathgateMiddleware(rt)])

:class:`PathgateMiddleware` registers pathgate's file tools with the agent and answers every
call to a tool of the runtime (``read_files``, ``glob``, ``list_directory``,
``code_search``, and tools a host registered with ``Runtime.register_tool``) itself,
through the runtime's chain, rendered for the model that made the call — read from the
calling ``AIMessage``'s ``response_metadata`` (``model_name``/``model``), else the
middleware's ``model``. Other tools pass through untouched.

Blocked paths are normal content (the model reads ``[BLOCKED]`` and any explanation); a
``ToolMessage`` has ``status="error"`` only when the whole call failed (a bad argument, an
unknown tool). The message's ``artifact`` (for the host, not the model) holds the
``structured`` renderer's data for the same run: statuses, gates, rules, remedies.

:func:`pathgate_tools` gives the same tools as ``StructuredTool`` objects for agents built
without the middleware (rendered per their ``model``/``renderer`` arguments).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pathgate.adapters._common import missing_extra

try:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
except ModuleNotFoundError as _exc:  # the framework is an optional extra
    raise missing_extra("langchain", "langchain", _exc) from None

from pathgate.adapters._common import (
    call_tool,
    call_tool_twice_rendered,
    is_error,
    run_sync,
    to_text,
    tool_infos,
)

if TYPE_CHECKING:
    from langchain.agents.middleware import ToolCallRequest
    from langgraph.types import Command

    from pathgate.runtime._runtime import Runtime

__all__ = ["PathgateMiddleware", "pathgate_tools"]


def pathgate_tools(runtime: Runtime, names: Iterable[str] | None = None, *, model: str | None = None,
                   renderer: str | None = None, agent: str | None = None) -> list[BaseTool]:
    """The runtime's tools (default: the four file tools) as LangChain ``StructuredTool``\\ s.

    Each validates its arguments in pathgate (a bad one is an error text, not an exception),
    runs through the runtime's chain and returns the text the model reads: JSON for
    ``read_files`` (``{path: content or status}``) and the discovery tools. ``model`` picks
    the renderer (or ``renderer`` names one). ``agent`` names the agent these tools serve
    (the reader and writer of the no-lost-update check of ``write_file`` / ``edit_file``,
    listed when the runtime has writes enabled).
    """
    tools: list[BaseTool] = []
    for info in tool_infos(runtime, names, model=model, renderer=renderer):
        name = info.name

        async def arun(_name: str = name, **kwargs: Any) -> str:
            return to_text(await call_tool(runtime, _name, kwargs, model=model, renderer=renderer,
                                           agent=agent))

        def run(_name: str = name, **kwargs: Any) -> str:
            result = run_sync(call_tool, runtime, _name, kwargs, model=model, renderer=renderer, agent=agent)
            return to_text(result)

        tools.append(StructuredTool.from_function(
            func=run, coroutine=arun, name=name, description=info.description,
            args_schema=info.schema, infer_schema=False,
        ))
    return tools


def _calling_message(request: ToolCallRequest) -> AIMessage | None:
    """The ``AIMessage`` that made this tool call (found in the agent state's messages)."""
    state = request.state
    messages = state.get("messages", ()) if isinstance(state, dict) else getattr(state, "messages", ())
    call_id = request.tool_call.get("id")
    for message in reversed(list(messages)):
        if isinstance(message, AIMessage) and any(c.get("id") == call_id for c in message.tool_calls):
            return message
    return None


class PathgateMiddleware(AgentMiddleware):
    """Routes the agent's file-tool calls through pathgate, rendered per the agent's model.

    * ``runtime``: the :class:`pathgate.Runtime` (one per project, shared by agents).
    * ``model``: the model id to render for when the calling message does not name one.
    * ``renderer``: force a renderer by name instead of choosing by model.
    * ``register_tools``: add pathgate's tools to the agent (default) — turn off when the
      agent already has tools of those names (they are answered by pathgate all the same).
    * ``tool_names``: which runtime tools to register (default: the four file tools).
    """

    def __init__(self, runtime: Runtime, *, model: str | None = None, renderer: str | None = None,
                 register_tools: bool = True, tool_names: Iterable[str] | None = None) -> None:
        super().__init__()
        self.runtime = runtime
        self.model = model
        self.renderer = renderer
        self.tools: Sequence[BaseTool] = (
            pathgate_tools(runtime, tool_names, model=model, renderer=renderer) if register_tools else []
        )

    @property
    def name(self) -> str:
        return "PathgateMiddleware"

    def _handles(self, request: ToolCallRequest) -> bool:
        return request.tool_call.get("name") in self.runtime.tools

    def _call_args(self, request: ToolCallRequest) -> tuple[str, dict[str, Any], dict[str, Any]]:
        call = request.tool_call
        message = _calling_message(request)
        model = self.model
        agent = None
        if message is not None:
            meta = message.response_metadata or {}
            model = meta.get("model_name") or meta.get("model") or model
            agent = message.name
        kwargs = {"model": model, "call_id": call.get("id"), "agent": agent, "renderer": self.renderer}
        return call["name"], dict(call.get("args") or {}), kwargs

    def _message(self, request: ToolCallRequest, answer: tuple[Any, Any]) -> ToolMessage:
        result, structured = answer
        call = request.tool_call
        return ToolMessage(
            content=to_text(result),
            tool_call_id=call.get("id") or "",
            name=call["name"],
            status="error" if is_error(result) else "success",
            artifact=result if structured is None else structured,
        )

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        if not self._handles(request):
            return await handler(request)
        name, args, kwargs = self._call_args(request)
        return self._message(request, await call_tool_twice_rendered(self.runtime, name, args, **kwargs))

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        if not self._handles(request):
            return handler(request)
        name, args, kwargs = self._call_args(request)
        return self._message(request, run_sync(call_tool_twice_rendered, self.runtime, name, args, **kwargs))
