"""Two-tree oracle helpers: the same calls on a tree with secrets and on the same tree with
the secrets removed must render byte-identically under every renderer, apart from the
secrets' own bare ``[BLOCKED]`` when a call names them."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pathgate import Policy, Runtime

RENDERERS = ("sentinel", "verbose", "structured")

#: A tree spec: relpath -> text, ("symlink", target) or ("hardlink", relpath of the first link).
Spec = Mapping[str, "str | tuple[str, str]"]

Call = tuple[str, dict[str, Any]]


def build(root: Path, spec: Spec) -> None:
    """Write ``spec`` below ``root`` (hard links after the files they link to)."""
    root.mkdir(parents=True, exist_ok=True)
    later: list[tuple[str, str]] = []
    for rel, value in spec.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, str):
            path.write_text(value)
        elif value[0] == "symlink":
            os.symlink(value[1], path)
        else:
            later.append((rel, value[1]))
    for rel, first in later:
        os.link(root / first, root / rel)


def _blocked(renderer: str, path: str) -> Any:
    return {"path": path, "status": "blocked"} if renderer == "structured" else "[BLOCKED]"


def _substitute(out: Any, renderer: str, asked: set[str]) -> Any:
    """``read_files`` output with every secret-asked path replaced by its bare block."""
    if renderer == "structured" and isinstance(out, dict) and "files" in out:
        files = [_blocked(renderer, f["path"]) if f.get("path") in asked else f for f in out["files"]]
        return {**out, "files": files}
    if isinstance(out, dict):
        return {k: (_blocked(renderer, k) if k in asked else v) for k, v in out.items()}
    return out


async def render_all(root: Path, calls: Sequence[Call], policy: Policy, asked: set[str] | None = None
                     ) -> list[str]:
    """Every call under every renderer, as canonical JSON (``asked``: substitute those
    read_files paths by their bare block)."""
    rt = Runtime(root, policy)
    outs: list[str] = []
    for renderer in RENDERERS:
        for tool, args in calls:
            out = await rt.call(tool, args, renderer=renderer)
            if asked is not None and tool == "read_files":
                out = _substitute(out, renderer, asked)
            outs.append(json.dumps(out, sort_keys=True, default=str))
    return outs
