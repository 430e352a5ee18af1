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

A source the *host filter* hides is different: its content is policy, not a secret, and a
filter may only ever hide more, so it is read as rules like any other (reading it as absent
would un-hide what it excludes). What must not reach the model is its name and lines: the
ignore gate answers a verdict such a source decides as the host filter's own opaque
``[BLOCKED]`` (:meth:`~pathgate.runtime.gates.ignore.IgnoreGate.check`). The names the filter
is asked about for a source are :func:`source_names` -- the same spellings as above, taken
when the repository-wide sources are loaded (:func:`spellings`), so asking does no I/O.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.ignore._index import IgnoreIndex

__all__ = ["is_secret_source", "source_names", "spellings"]


def _below(path: str, root: str) -> str:
    """``path`` relative to ``root`` when inside it (``""`` for the root), else as given."""
    if path == root:
        return ""
    if root == "/" or path.startswith(root + "/"):
        return path[len(root.rstrip("/")) + 1:]
    return path


def spellings(path: str) -> tuple[str, ...]:
    """The absolute spellings of a repository-wide source at ``path`` (absolute, as
    configured) a judge asks about: every component as written (``..`` dropped), its lexical
    normalisation and its real target, distinct (the real target costs a ``realpath``)."""
    return _spellings(path, os.path.realpath(path))


def _spellings(path: str, real: str) -> tuple[str, ...]:
    written = "/".join(c for c in path.split("/") if c not in ("", ".", ".."))
    return tuple(dict.fromkeys(("/" + written, os.path.normpath(path), real)))


def source_names(ix: IgnoreIndex, label: str, outside: bool = False) -> tuple[str, ...]:
    """The names the host filter is asked about for the ignore source labelled ``label`` (a
    ``Rule.source`` or ``Match.unreadable``): project-relative for spellings inside the root,
    absolute for the others only when ``outside`` (``allow_outside_root``: the filter sees
    outside paths then; otherwise it is never asked about them). A repository-wide source is
    asked by the spellings taken when it was loaded (:func:`spellings`: as written,
    normalised, real target); a per-directory file by its label (a real directory's file,
    never followed). No I/O."""
    root = ix.root
    g = ix._globals
    known = None if g is None else g.names.get(label)
    if known is None:
        path = os.path.expanduser(label) if label.startswith("~") else label
        path = os.path.normpath(path if path.startswith("/") else os.path.join(root, path))
        known = (path,)
    out: list[str] = []
    for spelling in known:
        rel = _below(spelling, root)
        if rel == spelling:  # outside the root
            if outside:
                out.append(spelling)
        elif rel:
            out.append(rel)
    return tuple(dict.fromkeys(out))


def is_secret_source(ix: IgnoreIndex, path: str) -> bool:
    """Is the repository-wide ignore source at ``path`` (absolute, as configured) a secret
    by the index's secret tests? ``False`` when the index has none (``check-ignore``)."""
    judge = ix.secret_source
    if judge is None:
        return False
    root = ix.root
    real = os.path.realpath(path)
    for spelling in _spellings(path, real):
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
