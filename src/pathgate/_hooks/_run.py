"""``pathgate hook <agent>``: one hook payload on stdin, one answer, fail closed.

Anything that goes wrong in pathgate itself — a payload that is not JSON, a missing field,
a bad ``pathgate.toml``, an internal error — blocks the call in the agent's documented way
(exit 2 with the reason on stderr; Cursor also gets a deny object), so a broken hook never
lets a call through unchecked.

A hook is a fresh process on every tool call, so it decides without an event loop: a bare
:class:`~pathgate.runtime._gating.GateCore` (the runtime's gates, index and renderers,
without its tools, threads or middleware chain) driven by
:func:`~pathgate.runtime._gating.run_now`. Neither asyncio, anyio nor the tools are
imported (``tests/hooks/test_hook_imports.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from pathgate._hooks._agents import AGENTS, Agent, Answer, HookRequest
from pathgate._hooks._core import decide

__all__ = ["run_hook"]

#: Payloads larger than this are refused (a hook payload is a few KiB; Cursor's
#: ``beforeReadFile`` carries the file's content).
MAX_PAYLOAD = 64 * 1024 * 1024


def _pick_root(request: HookRequest, override: str | None) -> str:
    """``--root`` if given; else the candidate root containing the first absolute target."""
    if override:
        return override
    for target in request.targets:
        if os.path.isabs(target.value):
            inside = [r for r in request.roots if _contains(r, target.value)]
            if inside:
                return max(inside, key=len)
    return request.roots[0]


def _contains(root: str, path: str) -> bool:
    try:
        return os.path.commonpath([os.path.normpath(path), os.path.normpath(root)]) == os.path.normpath(root)
    except ValueError:
        return False


async def _answer(agent: Agent, payload: Mapping[str, Any], root: str | None, config: str | None,
                  renderer: str | None) -> Answer:
    request = agent.parse(payload)
    if request is None or not request.targets:
        return agent.allow(payload)
    from pathgate.config import load_config, load_host_config
    from pathgate.runtime._gating import GateCore

    chosen = _pick_root(request, root)
    # the same policy as the CLI and `pathgate mcp`: the host's (--config, else the
    # user-level file), tightened by the project's own
    runtime = GateCore(chosen, policy=load_config(chosen, host=load_host_config(config)))
    if renderer is not None:
        runtime.renderer_for(None, renderer)  # an unknown name fails here, closed
    reason = await decide(runtime, request.targets, cwd=request.cwd, renderer=renderer,
                          model=request.model, root=chosen)
    return agent.allow(payload) if reason is None else agent.deny(payload, reason)


def run_hook(agent_name: str, data: bytes, *, root: str | None = None, config: str | None = None,
             renderer: str | None = None) -> Answer:
    """Decide one hook payload for ``agent_name``; never raises."""
    agent = AGENTS[agent_name]
    try:
        if len(data) > MAX_PAYLOAD:
            raise ValueError(f"payload larger than {MAX_PAYLOAD} bytes")
        payload = json.loads(data)
        if not isinstance(payload, dict):
            raise ValueError("the payload must be a JSON object")
        from pathgate.runtime._gating import run_now
        from pathgate.runtime.ignore._lazy import one_shot

        with one_shot():  # a few paths judged, then the process exits: no whole compile of a huge ignore file
            return run_now(_answer(agent, payload, root, config, renderer))
    except Exception as exc:  # fail closed, whatever broke
        detail = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
        return agent.fail(f"pathgate hook {agent_name}: blocked because the check failed ({detail})")
