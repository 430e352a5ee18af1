"""Compiled search and glob patterns, kept by their source so a repeated pattern costs no hop.

A model repeats its patterns (the same ``**/*.java``, the same search across modules): each
compile is pure CPU, bounded but not free for a long pattern, so it never runs on the event
loop: :func:`compiled` looks the pattern up on the loop (a dictionary lookup; the key's hash
is the string's own, computed once) and compiles a miss in a worker-thread hop. The compiled
objects are immutable (:class:`~pathgate.runtime.tools._regex.Regex`,
:class:`~pathgate.runtime.tools._pattern.GlobPattern`), so calls share them. A pattern that
fails to compile is not kept (its error is raised again, the same). At most :data:`KEPT`
patterns of at most :data:`MAX_KEY_CHARS` characters (plain strings) are kept, the most
recently used.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

__all__ = ["KEPT", "KEPT_SEARCHES", "MAX_KEY_CHARS", "compiled"]

#: How many compiled patterns are kept (the most recently used).
KEPT = 64
#: How many search patterns are kept: each holds RE2's lazy automaton, which grows with the
#: text searched up to the pattern's memory budget (8 MiB; red team 17 H1: 64 kept thrashing
#: patterns held +133 MB).
KEPT_SEARCHES = 4
#: A pattern (all its strings together) longer than this is compiled each time, never kept.
MAX_KEY_CHARS = 4096

T = TypeVar("T")

_KEPT: dict[tuple[Any, ...], Any] = {}
_LOCK = threading.Lock()  # runtimes on event loops of several threads share the table


def _keepable(key: tuple[object, ...]) -> bool:
    """Plain strings, booleans and ``None`` only (a subclass may hash or compare as it
    likes), at most :data:`MAX_KEY_CHARS` characters in all."""
    if not all(k is None or type(k) is str or type(k) is bool for k in key):
        return False
    return sum(len(k) for k in key if type(k) is str) <= MAX_KEY_CHARS


async def compiled(run: Callable[[Callable[[], T]], Awaitable[T]], build: Callable[..., T],
                   *key: Any, keep: int = KEPT) -> T:
    """``build(*key)``, kept by ``(build, *key)``: a hit costs no hop, a miss is compiled by
    ``run`` (the runtime's worker-thread hop). At most ``keep`` of one ``build``'s values are
    kept (a search pattern holds its regex engine's lazy state, up to its memory budget: keep
    few of those)."""
    if not _keepable(key):
        return await run(partial(build, *key))
    whole = (build, *key)
    with _LOCK:
        hit = _KEPT.pop(whole, None)
        if hit is not None:
            _KEPT[whole] = hit  # the most recently used last
            return hit  # type: ignore[no-any-return]
    value = await run(partial(build, *key))
    if value is not None:
        with _LOCK:
            _KEPT[whole] = value
            mine = [k for k in _KEPT if k[0] is build]
            for k in mine[: max(0, len(mine) - keep)]:  # the least recently used first
                del _KEPT[k]
            while len(_KEPT) > KEPT:
                del _KEPT[next(iter(_KEPT))]
    return value
