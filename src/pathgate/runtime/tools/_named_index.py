"""The paths agent settings name, indexed for one write's question (for the write guard).

A settings file may name tens of thousands of paths (red team 14 F7: a 0.94 MB
``.claude/settings.json`` naming ~88,000 made every write resolve and casefold each of
them, 4–7 s a write). :class:`NamedIndex` is built once with the parse and answers
:meth:`NamedIndex.names` without looping over every named path:

* the named paths as written (casefolded, :func:`fold_path`) in one dictionary: the target
  and each of its ancestors are looked up (an ancestor counts when everything below it was
  named);
* what they name through links: the named paths inside the root form a tree of
  components, walked from the root with one ``lstat`` per entry that exists (a missing
  directory ends its branch: nothing below it can be a link); only a named path at or
  below a symbolic link is resolved, as ``os.path.realpath`` resolves it, then compared as
  before. So the answer is the one resolving every named path would give, on the
  filesystem as it is at the write (nothing about links is cached);
* named paths outside the root as written (inside through a link when the settings were
  read) and shell globs are few: each is resolved or matched as before (a glob's literal
  prefix once a question); past :data:`MAX_LOOSE_COMPONENTS` components of them in all, the
  settings cannot be checked (nothing writable).

Standard library only.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import unicodedata
from collections.abc import Iterable

__all__ = ["GLOB", "MAX_GLOB_BRACKETS", "MAX_LOOSE_COMPONENTS", "NamedIndex", "fold_path", "realpath"]

#: Glob characters: a word holding one names every file it matches.
GLOB = re.compile(r"[*?\[]")


def realpath(path: str) -> str | None:
    """``os.path.realpath``, or ``None`` when it fails: a link swapped for a directory
    between its ``lstat`` and its ``readlink`` raises ``EINVAL`` there (the callers then
    refuse the write)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def fold_path(path: str) -> str:
    """``path`` with every component casefolded (NTFS's dotless ``ı`` as ``i``), an NTFS
    ``:stream`` and trailing spaces and dots cut: the spellings a case-insensitive
    filesystem opens as the same file compare equal (more, on POSIX: harmless here)."""
    return "/".join(c.split(":", 1)[0].rstrip(" .").casefold().replace("ı", "i") if c not in (".", "..") else c
                    for c in path.split("/"))


def _hits(spelling: str, real_f: str, tree: bool) -> bool:
    sp = fold_path(spelling)
    return sp == real_f or (tree and real_f.startswith(sp + "/"))


class _Node:
    """One component of the named paths inside the root: its children, and whether (and
    with everything below it) a named path ends here."""

    __slots__ = ("children", "end", "keys", "tree")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.end = False
        self.tree = False
        self.keys: dict[str, list[str]] | None = None  # the children by :func:`_name_key`, made once


class NamedIndex:
    """The named paths of one directory's settings (``(absolute path, everything below it
    counts)``, links not resolved), indexed for :meth:`names`. ``unchecked``: a settings
    file could not be checked, so every path counts."""

    __slots__ = ("globs", "inside", "lexical", "loose", "outside", "top", "unchecked")

    def __init__(self, named: Iterable[tuple[str, bool]], root: str, *, unchecked: bool = False) -> None:
        self.unchecked = unchecked
        self.inside = root.rstrip("/") + "/"
        self.lexical: dict[str, bool] = {}  # folded spelling -> everything below it counts
        self.globs: list[tuple[str, bool]] = []
        self.outside: list[tuple[str, bool]] = []
        self.top = _Node()
        for path, tree in named:
            if GLOB.search(path):
                self.globs.append((path, tree))
                continue
            if tree and path.rstrip("/") + "/" == self.inside:  # the root with all below it
                self.unchecked = True
                continue
            if not path.startswith(self.inside):
                self.outside.append((path, tree))
                continue
            key = fold_path(path)
            self.lexical[key] = self.lexical.get(key, False) or tree
            node = self.top
            for part in path[len(self.inside):].split("/"):
                child = node.children.get(part)
                if child is None:
                    child = node.children[part] = _Node()
                node = child
            node.end = True
            node.tree = node.tree or tree
        # globs and paths outside the root are resolved on every write, each an ``lstat``
        # per component: past the bound nothing is writable (red team 16 G8)
        #: components of the globs and outside paths (resolved on every write)
        self.loose = sum(p.count("/") for p, _ in self.globs) + sum(p.count("/") for p, _ in self.outside)
        # a glob's components are matched by the standard library, quadratic in unclosed
        # brackets (red team 17 H10)
        if self.loose > MAX_LOOSE_COMPONENTS or any(p.count("[") > MAX_GLOB_BRACKETS for p, _ in self.globs):
            self.unchecked = True

    def names(self, real: str) -> bool:
        """Is the absolute real path ``real`` one of the named paths, or below one that
        counts with everything below it — as written or through links, compared as a
        case-insensitive filesystem would open them? Blocking (``lstat``, ``realpath``)."""
        if self.unchecked:
            return True
        real_f = fold_path(real)
        if real_f in self.lexical:
            return True
        parts = real_f.split("/")
        for k in range(len(parts) - 1, 0, -1):
            if self.lexical.get("/".join(parts[:k])):
                return True
        prefixes: dict[str, str | None] = {}  # each literal prefix resolved once a write
        for path, tree in self.globs:
            if glob_names(path, real, tree, prefixes):
                return True
        for path, tree in self.outside:
            resolved = realpath(path)
            if resolved is None:  # a link swapped while it was read: refuse rather than guess
                return True
            if resolved.startswith(self.inside) and _hits(resolved, real_f, tree):
                return True
        return self._through_links(self.top, self.inside.rstrip("/"), real_f)

    def _through_links(self, node: _Node, at: str, real_f: str) -> bool:
        """Walk the named components below ``node`` (the directory ``at``, no link on the
        way): each named path at or below a symbolic link is resolved and compared."""
        for name, child in _present(node, at):
            path = at + "/" + name
            try:
                mode = os.lstat(path).st_mode
            except (OSError, ValueError):
                continue  # missing (or unreachable): realpath keeps it and what is below as written
            if stat.S_ISLNK(mode):
                for full, tree in _below(child, path):
                    resolved = realpath(full)
                    if resolved is None:
                        return True
                    if resolved.startswith(self.inside) and _hits(resolved, real_f, tree):
                        return True
            elif stat.S_ISDIR(mode) and child.children and self._through_links(child, path, real_f):
                return True
        return False


#: Components of the named shell globs and paths outside the root together (each resolved
#: on every write) past which a settings file cannot be checked: nothing is writable.
MAX_LOOSE_COMPONENTS = 16384
#: Brackets in one named shell glob past which the settings cannot be checked.
MAX_GLOB_BRACKETS = 64
#: Named children of one directory past which it is listed once rather than each ``lstat``-ed.
_LIST_PAST = 16


def _name_key(name: str) -> str:
    """A directory entry's name as any filesystem could match it (case, NTFS spellings,
    Unicode normalisation folded): coarser than every filesystem's own equality."""
    return unicodedata.normalize("NFC", fold_path(unicodedata.normalize("NFC", name)))


def _present(node: _Node, at: str) -> Iterable[tuple[str, _Node]]:
    """The named children of ``node`` (the directory ``at``) that may exist: all of them
    when few; else those whose name matches an entry of the directory's listing by
    :func:`_name_key` (each is still ``lstat``-ed by the caller: the listing only skips the
    names nothing in the directory could be opened as)."""
    if len(node.children) <= _LIST_PAST:
        return node.children.items()
    try:
        with os.scandir(at) as it:
            listed = {_name_key(e.name) for e in it}
    except (OSError, ValueError):
        return node.children.items()
    if node.keys is None:
        keys: dict[str, list[str]] = {}
        for n in node.children:
            keys.setdefault(_name_key(n), []).append(n)
        node.keys = keys
    return [(n, node.children[n]) for k in listed for n in node.keys.get(k, ())]


def _below(node: _Node, path: str) -> Iterable[tuple[str, bool]]:
    """The named paths at and below ``node`` (the path ``path``)."""
    stack = [(node, path)]
    while stack:
        n, p = stack.pop()
        if n.end:
            yield p, n.tree
        stack.extend((c, p + "/" + name) for name, c in n.children.items())


def glob_names(pattern: str, real: str, tree: bool, prefixes: dict[str, str | None] | None = None) -> bool:
    """Does the shell glob ``pattern`` (an absolute path) name the real path ``real`` — or,
    with ``tree``, one of its ancestors? Matched as the shell expands it, component by
    component (``*`` never crosses ``/``; ``**`` is ``*``), case-folded as a case-insensitive
    filesystem would open the names, from the pattern as written and with its literal
    directory prefix resolved (``tools/check-*.sh`` with ``tools`` a link to ``scripts``;
    ``prefixes``: the prefixes resolved so far in this question, shared)."""
    parts = pattern.split("/")
    first = next((i for i, p in enumerate(parts) if GLOB.search(p)), len(parts))
    prefix = "/".join(parts[:first]) or "/"
    spellings = [pattern]
    if prefixes is None:
        resolved = realpath(prefix)
    elif prefix in prefixes:
        resolved = prefixes[prefix]
    else:
        resolved = prefixes[prefix] = realpath(prefix)
    if resolved is None:
        return True
    if resolved != prefix:
        spellings.append("/".join([resolved.rstrip("/"), *parts[first:]]))
    target = fold_path(real).split("/")
    for spelling in spellings:
        want = fold_path(spelling).split("/")
        if len(target) < len(want) or (len(target) > len(want) and not tree):
            continue
        if all(fnmatch.fnmatchcase(t, w) for t, w in zip(target, want, strict=False)):
            return True
    return False
