"""What drained inotify events ask of the live index (issue 15)."""

from __future__ import annotations

from pathgate.runtime._live._inotify import (
    IN_ATTRIB,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_IGNORED,
    IN_ISDIR,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_Q_OVERFLOW,
    Event,
)
from pathgate.runtime._live._nodes import parent

__all__ = ["plan_events"]

_CHILD_DIR = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB


def plan_events(events: list[Event], wds: dict[int, str], names: frozenset[str],
                unwatched: set[str]) -> tuple[set[str], set[str], set[str]] | None:
    """What the events ask for: directories to re-list, subtrees to re-walk, and
    subdirectories to enter afresh; ``None`` on overflow. ``wds``: the watched
    directories by watch descriptor; ``names``: the ignore files' names; ``unwatched``:
    the kept directories no watch covers (re-entered from their parents every query)."""
    deep: set[str] = set()
    force = set(unwatched)
    shallow = {parent(r) for r in force if r} | ({""} if "" in force else set())
    for ev in events:
        if ev.mask & IN_Q_OVERFLOW:
            return None
        rel = wds.get(ev.wd)
        if rel is None:
            continue
        if ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) or not ev.name:
            if ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED):
                if not rel:
                    return None  # the root itself went away or moved
                shallow.add(parent(rel))
                force.add(rel)
            continue
        crel = f"{rel}/{ev.name}" if rel else ev.name
        if ev.name in names:
            deep.add(rel)
        elif ev.mask & IN_ISDIR and ev.mask & _CHILD_DIR:
            force.add(crel)
            shallow.add(rel)
        elif ev.mask & (_CHILD_DIR & ~IN_ATTRIB):
            shallow.add(rel)
    return shallow, deep, force
