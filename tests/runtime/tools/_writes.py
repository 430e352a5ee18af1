"""Helpers shared by the write-tool tests."""

from __future__ import annotations

import os
from pathlib import Path

from pathgate import Policy, Runtime
from pathgate.runtime.tools._write_io import TEMP_PREFIX
from tests.runtime.gates._tree import write_tree

__all__ = ["make_rt", "snapshot", "temp_files", "write_tree"]


def make_rt(root: Path, **policy: object) -> Runtime:
    """A runtime with writes enabled (and ``policy`` overrides)."""
    return Runtime(root, Policy(allow_writes=True, **policy))  # type: ignore[arg-type]


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry below ``root``: file bytes, ``-> target`` for links, ``/`` for directories."""
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                out[rel] = "-> " + os.readlink(full)
            elif os.path.isdir(full):
                out[rel] = "/"
            else:
                out[rel] = Path(full).read_bytes()
    return out


def temp_files(root: Path) -> list[str]:
    """pathgate's temporary files left anywhere below ``root`` (must always be none)."""
    return [os.path.join(d, n) for d, _, files in os.walk(root) for n in files if n.startswith(TEMP_PREFIX)]
