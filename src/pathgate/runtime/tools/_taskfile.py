"""The Taskfiles go-task reads besides the one it starts from (for the write guard's reading
of the commands agent settings run; red team 20 L11, through :mod:`._includes`).

``task lint`` reads the directory's Taskfile (``Taskfile.yml``, ``taskfile.yml``,
``Taskfile.yaml`` … ``taskfile.dist.yaml``) and every Taskfile its top-level ``includes:``
names, recursively: an included Taskfile's tasks run as the root's do. :func:`taskfiles`
names them, each read in turn:

* ``includes:`` entries in block form: ``ci: ./ci/Tasks.yml`` (a file) or ``docs: ./docs``
  (a directory: its Taskfile names), or a mapping with ``taskfile: …`` (``dir``, ``vars``,
  ``optional`` … not read); a path is read from the including file's directory, a remote
  one (``https://…``) is not the project's;
* both the file and a directory's Taskfile names are named (a missing path could be made
  either).

Anything else cannot be checked (:class:`~._settings_load.Unchecked`): a flow mapping
(``includes: {ci: ./ci}``), a template (``{{.DIR}}``), an anchor or alias, a value going on
past its line, a key spelled otherwise, a document written in flow style, a top-level (or
include) key with an escape, anchor, alias or tag, or a merge key (``<<: *base``: yaml.v3
applies it; red team 23 N8, N10). Standard library
only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pathgate.runtime.tools._package_managers import unread_key
from pathgate.runtime.tools._settings_load import Unchecked

if TYPE_CHECKING:
    from pathgate.runtime.tools._includes import Source

__all__ = ["TASKFILES", "taskfiles"]

#: The names go-task looks for in a directory, in its order.
TASKFILES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml",
             "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml")
_TOP = re.compile(r"""(["']?)includes\1[ \t]*:[ \t]*(?:#.*)?""")
#: A block mapping's ``key: value`` line (the key plain or quoted, the value optional).
#: (Possessive: a long line without a ``:`` is read in linear time; a plain key's trailing
#: blanks are cut by the reader.)
_KEY = re.compile(r"""(?:"([^"\\]*)"[ \t]*+|'([^']*)'[ \t]*+|([^\s"'#:{}\[\],&*!|>?%@`-][^:#]*+)):(?:[ \t]+(.*))?""")
#: Includes one Taskfile may list past which it cannot be checked (each may read nine
#: names), and Taskfiles read in all.
_MAX_INCLUDES = 128
_MAX_TASKFILES = 1024


def taskfiles(here: str, src: Source) -> Iterator[tuple[str, bool]]:
    """The Taskfiles of ``here`` and every Taskfile they include, in turn. Blocking."""
    from pathgate.runtime.tools._includes import inside, plain_dir

    queue = [os.path.join(here, n) for n in TASKFILES]
    yield from ((p, False) for p in queue)
    seen = set(queue)
    while queue:
        path = queue.pop(0)
        if len(seen) > _MAX_TASKFILES:
            raise Unchecked
        raw = src.read(path)
        if raw is None:
            continue
        base = os.path.dirname(path)
        for value in _includes(raw.decode("utf-8", "replace")):
            if "://" in value or value.startswith(("git@", "~")):
                continue  # a remote Taskfile, one in the home
            target = os.path.normpath(os.path.join(base, value))
            if not inside(target, src.root):
                continue
            names = [target, *(os.path.join(target, n) for n in TASKFILES)]
            yield from ((n, False) for n in names)
            read = names[1:] if plain_dir(target, src) else names[:1]
            for n in read:
                if n not in seen:
                    seen.add(n)
                    queue.append(n)


def _value(text: str) -> str:
    """A scalar value read literally (no template)."""
    from pathgate.runtime.tools._package_managers import _scalar

    value = _scalar(text)
    if "{{" in value:
        raise Unchecked
    return value


def _includes(text: str) -> list[str]:
    """The paths a Taskfile's top-level ``includes:`` names (see the module)."""
    if "includes" not in text and "\\" not in text and "<<" not in text:
        return []
    lines = text.splitlines()
    if any(ln[:1] in ("{", "[", "?") for ln in lines):
        raise Unchecked  # a document (or a key) in flow style
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line or line[0] in " \t#":
            continue
        if unread_key(line):
            raise Unchecked  # a top-level `<<: *base`, `"\x69ncludes":` (red team 23 N8, N10)
        if _TOP.fullmatch(line) is None:
            if "includes" in line:
                raise Unchecked  # `includes: {…}`, `includes: &x`, `"includes" :` …
            continue
        i = _block(lines, i, out)
        if len(out) > _MAX_INCLUDES:
            raise Unchecked
    return out


def _block(lines: list[str], i: int, out: list[str]) -> int:
    """Read the ``includes:`` block starting at line ``i`` into ``out``; the line after it."""
    entry: int | None = None  # the entries' indentation
    nested: int | None = None  # an entry's mapping's indentation
    mode = ""  # "scalar": an entry with a value; "map": one with a mapping; key: its last nested key
    key = ""
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        if line[0] == "\t" or "\t" in line[:len(line) - len(line.lstrip())] or unread_key(line):
            raise Unchecked
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            return i
        if entry is None:
            entry = indent
        if indent < entry:
            raise Unchecked
        kv = _KEY.fullmatch(stripped)
        if indent == entry:
            if kv is None:
                raise Unchecked
            rest = (kv.group(4) or "").strip()
            if rest and not rest.startswith("#"):
                out.append(_value(rest))
                mode = "scalar"
            else:
                mode, nested = "map", None
        elif mode == "scalar":
            raise Unchecked  # a value going on past its line, or a mapping under one
        else:
            if nested is None:
                nested = indent
            if indent < nested:
                raise Unchecked
            if indent == nested:
                if kv is None:
                    raise Unchecked
                key = (kv.group(1) or kv.group(2) or kv.group(3) or "").strip()
                rest = (kv.group(4) or "").strip()
                if key == "taskfile":
                    if not rest or rest.startswith("#"):
                        raise Unchecked
                    out.append(_value(rest))
            elif key == "taskfile":
                raise Unchecked  # the taskfile value going on
        i += 1
    return i
