"""The live index's relpath arithmetic and its tests of whether a directory's ignore node
still decides as the one its records were decided by (:mod:`._index`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.ignore import DirNode

__all__ = ["ancestors", "depth", "parent", "same_root"]


def parent(rel: str) -> str:
    return rel.rpartition("/")[0]


def depth(rel: str) -> int:
    return rel.count("/") + 1 if rel else 0


def same_root(node: DirNode, old: DirNode | None) -> bool:
    """Does the root decide as it did? Same global sources (the globals node is replaced
    only when they change), same own ignore files by stat signature, same fail-closed
    state; the node object itself may be rebuilt after an LRU eviction."""
    return old is not None and (node is old or (
        node.parent is old.parent and node.sigs == old.sigs and node.stop == old.stop))


def ancestors(rel: str) -> list[str]:
    out = [""] if rel else []
    parts = rel.split("/")
    for i in range(1, len(parts)):
        out.append("/".join(parts[:i]))
    return out

