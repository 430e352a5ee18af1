"""Adapters for agent frameworks; each is an optional extra and imports its framework itself.

* :mod:`pathgate.adapters.langchain` (``pathgate[langchain]``): ``PathgateMiddleware`` for
  LangChain 1.x agents and ``pathgate_tools``.
* :mod:`pathgate.adapters.pydantic_ai` (``pathgate[pydantic-ai]``): ``PathgateToolset`` and
  ``PathgateWrapperToolset``.
* :mod:`pathgate.adapters.openai_agents` (``pathgate[openai-agents]``): ``pathgate_tools``
  (``FunctionTool``\\ s) and ``path_guardrail`` (a tool input guardrail).

This package imports no framework: import the submodule you need.
"""

from __future__ import annotations

__all__: list[str] = []
