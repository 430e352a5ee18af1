"""The current tool call, as a context variable (no event-loop import: the secret-inode
registry asks it in every front end, ``pathgate hook`` and the CLI included).

Set by the hop scheduler's call scope (:mod:`._sched`); worker threads started with
``anyio.to_thread.run_sync`` inherit it. ``None``: outside any tool call.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.fs._sched import Ticket

__all__ = ["CALL"]

CALL: ContextVar[Ticket | None] = ContextVar("pathgate_call", default=None)
