"""Repository-wide ignore sources that are secrets: never read, as if absent.

``core.excludesFile`` and ``.git/info/exclude`` are files git reads as rules, and a rule's
line is quoted to the model (the verbose renderer names ``source:line:pattern``). When one
of them is a secret (``git config core.excludesFile .env``, or ``.git/info/exclude``
symlinked or hard-linked to ``.env``), reading it would quote the secret's lines and make the
output differ from the same tree without the secret. So, where the index is told what a
secret is (:attr:`~._index.IgnoreIndex.secret_source`: the runtime and the hook routes;
``pathgate check-ignore`` does not set it and keeps matching git byte for byte), such a file
is treated exactly as an absent one: no rules, no warning, no fail-closed, not even git's
"cannot use it as an exclude file" for a secret directory.

A source is a secret when any of these is: its path as configured (every component as
written, ``..`` not resolved), its lexical normalisation, its real (symlink-resolved)
target, or — for a regular file with more than one link — its inode, shared with a
secret-named file of the project (the secret-inode registry, :attr:`~._index.IgnoreIndex.
linked_secret`). Paths inside the project are judged relative to its root, others whole.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.ignore._index import IgnoreIndex

__all__ = ["is_secret_source"]


def _below(path: str, root: str) -> str:
    """``path`` relative to ``root`` when inside it (``""`` for the root), else as given."""
    if path == root:
        return ""
    if root == "/" or path.startswith(root + "/"):
        return path[len(root.rstrip("/")) + 1:]
    return path


def is_secret_source(ix: IgnoreIndex, path: str) -> bool:
    """Is the repository-wide ignore source at ``path`` (absolute, as configured) a secret
    by the index's secret tests? ``False`` when the index has none (``check-ignore``)."""
    judge = ix.secret_source
    if judge is None:
        return False
    root = ix.root
    written = "/".join(c for c in path.split("/") if c not in ("", ".", ".."))
    real = os.path.realpath(path)
    for spelling in dict.fromkeys(("/" + written, os.path.normpath(path), real)):
        rel = _below(spelling, root)
        if rel and judge(rel):
            return True
    linked = ix.linked_secret
    if linked is None:
        return False
    try:
        st = ix.fs.stat(real)
    except OSError:
        return False  # nothing there to read
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and linked(st)
