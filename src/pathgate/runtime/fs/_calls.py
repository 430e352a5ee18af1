"""The current tool call, as context variables (no event-loop import: the secret-inode
registry asks them in every front end, ``pathgate hook`` and the CLI included).

:data:`CALL`: the call's scheduler :class:`~pathgate.runtime.fs._sched.Ticket`, set by the
outermost call scope (:mod:`._sched`; a call made inside another's scope is part of it for
the scheduler). :data:`VIEW`: a fresh token for *every* call scope, nested ones included —
what the secret-inode registry validates once for (a host tool that makes calls of its own
gets a fresh view in each: red team 23 N1). Worker threads started with
``anyio.to_thread.run_sync`` inherit both. ``None``: outside any tool call.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.fs._sched import Ticket

__all__ = ["CALL", "VIEW", "View", "enter_view"]

CALL: ContextVar[Ticket | None] = ContextVar("pathgate_call", default=None)


class View:
    """One tool call's view of the project's hard links (an identity, weakly referenced by
    the registry)."""

    __slots__ = ("__weakref__",)


VIEW: ContextVar[View | None] = ContextVar("pathgate_view", default=None)


def enter_view() -> Token[View | None]:
    """Start a fresh view (reset the returned token when the call ends)."""
    return VIEW.set(View())
