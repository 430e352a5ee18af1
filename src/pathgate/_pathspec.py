"""The path arguments of ``pathgate check-ignore``, taken as git's ``parse_pathspec`` takes
them (``pathspec.c``, ``path.c``, ``setup.c``).

* Magic: ``:/path`` and ``:(top)path`` are relative to the top of the work tree, a bare
  ``:path`` to the current directory; every other magic (``icase``, ``glob``,
  ``literal``, ``exclude``/``!``/``^``, ``attr``) and the ``GIT_*_PATHSPECS`` variables make
  ``check-ignore`` exit 128 "pathspec magic not supported by this command", as in git.
* A relative path is joined to the current directory's prefix and normalised
  (``normalize_path_copy_len``): a ``..`` climbing above the top is "outside repository"
  even if it comes back in (``../../r/a``). An absolute path is inside when it starts with
  the top or when one of its leading parts resolves (``realpath``) to it — a symlink to the
  top works.
* A leading directory that is a symlink ("beyond a symbolic link", also for ``l/``) is
  fatal. The leading-directory ``lstat`` results are cached for the run, per directory
  prefix (git caches the last directory it checked).
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Mapping

__all__ = ["PathspecError", "Resolver", "normalize_path"]

_MAGIC_CHARS = frozenset("!\"#%&',-/:;<=>@_`~")
_NAMES = ("top", "literal", "glob", "icase", "exclude", "attr")
_MNEMONIC = {"top": "/", "exclude": "!"}
_TOP, _LITERAL, _GLOB, _ICASE, _EXCLUDE, _ATTR = (1 << i for i in range(6))


_S_IFMT = 0o170000


class PathspecError(Exception):
    """git dies (exit 128) with this message."""


def normalize_path(path: str) -> str | None:
    """git's ``normalize_path_copy_len``: collapse ``//``, drop ``.``, apply ``..``;
    ``None`` when a ``..`` climbs above the start. A trailing ``/`` is kept."""
    if "//" not in path:
        if "/." not in path and not path.startswith("."):
            return path  # no empty, "." or ".." component: nothing to do (the common case)
        framed = f"/{path}/"
        if "/./" not in framed and "/../" not in framed:
            return path  # dot files only (".gitignore", "a/.mvn/b")
    out: list[str] = []
    i, n = 0, len(path)
    if path.startswith("/"):
        out.append("/")
        while i < n and path[i] == "/":
            i += 1
    floor = len(out)
    while i < n:
        j = path.find("/", i)
        comp = path[i:] if j < 0 else path[i:j]
        if comp == "." or comp == "..":
            i = n if j < 0 else j + 1
            while i < n and path[i] == "/":
                i += 1
            if comp == "..":
                if len(out) <= floor:
                    return None
                out.pop()
            continue
        if j < 0:
            out.append(comp)
            break
        out.append(comp + "/")
        i = j + 1
        while i < n and path[i] == "/":
            i += 1
    return "".join(out)


def _unsupported(elt: str, magic: int) -> PathspecError:
    parts = []
    for k, name in enumerate(_NAMES):
        if magic & (1 << k):
            m = _MNEMONIC.get(name)
            parts.append(f"'{name}' (mnemonic: '{m}')" if m else f"'{name}'")
    return PathspecError(f"fatal: {elt}: pathspec magic not supported by this command: "
                         + ", ".join(parts))


def _long_magic(elem: str) -> tuple[int, str]:
    magic = 0
    pos = 2
    while pos < len(elem) and elem[pos] != ")":
        end = pos
        while end < len(elem) and elem[end] not in ",)":
            end += 1
        word = elem[pos:end]
        if word.startswith("attr:"):
            magic |= _ATTR
        elif word.startswith("prefix:"):
            pass
        elif word in _NAMES:
            magic |= 1 << _NAMES.index(word)
        elif word:
            raise PathspecError(f"fatal: Invalid pathspec magic '{word}' in '{elem}'")
        pos = end + 1 if end < len(elem) and elem[end] == "," else end
    if pos >= len(elem):
        raise PathspecError(f"fatal: Missing ')' at the end of pathspec magic in '{elem}'")
    return magic, elem[pos + 1:]


def _short_magic(elem: str) -> tuple[int, str]:
    magic = 0
    pos = 1
    while pos < len(elem) and elem[pos] != ":":
        ch = elem[pos]
        if ch == "^" or ch == "!":
            magic |= _EXCLUDE
        elif ch == "/":
            magic |= _TOP
        elif ch in _MAGIC_CHARS:
            raise PathspecError(f"fatal: Unimplemented pathspec magic '{ch}' in '{elem}'")
        else:
            break
        pos += 1
    if pos < len(elem) and elem[pos] == ":":
        pos += 1
    return magic, elem[pos:]


def _env_bool(env: Mapping[str, str], name: str) -> bool:
    v = env.get(name, "").strip().lower()
    return v not in ("", "0", "false", "no", "off")


class Resolver:
    """Turns ``check-ignore`` arguments into work-tree-relative paths like git.

    ``top`` is the real path of the work tree, ``prefix`` the current directory relative
    to it (``""`` or ``"dir/"``; ``None`` when the current directory is outside it:
    relative paths are then taken from ``cwd``).
    """

    def __init__(self, top: str, cwd: str, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.top = top
        self.cwd = cwd
        rel = os.path.relpath(cwd, top) if cwd.startswith(top) else None
        if rel is not None and rel.startswith(".."):
            rel = None
        self.prefix = None if rel is None else ("" if rel == "." else rel + "/")
        self.literal = _env_bool(env, "GIT_LITERAL_PATHSPECS")
        self.glob = _env_bool(env, "GIT_GLOB_PATHSPECS")
        self.noglob = _env_bool(env, "GIT_NOGLOB_PATHSPECS")
        self.icase = _env_bool(env, "GIT_ICASE_PATHSPECS")
        # directory prefix -> 0: a directory all the way; 1: a symlink at or above it;
        # 2: something else (missing, not a directory) at or above it
        self._states: dict[str, int] = {}
        # the last leading directory checked and its state (a sorted list repeats it)
        self._last_lead = ""
        self._last_state = 0
        # the global magic of a path without magic of its own (None: not computed yet;
        # computing it may raise, as git dies, so it is computed on first use)
        self._plain_magic: int | None = None

    def _global_magic(self, element: int) -> int:
        g = 0
        if self.literal:
            g |= _LITERAL
        if self.glob and not element & _LITERAL:
            g |= _GLOB
        if self.glob and self.noglob:
            raise PathspecError("fatal: global 'glob' and 'noglob' pathspec settings are "
                                "incompatible")
        if self.icase:
            g |= _ICASE
        if g & _LITERAL and g & ~_LITERAL:
            raise PathspecError("fatal: global 'literal' pathspec setting is incompatible "
                                "with all other global pathspec settings")
        if self.noglob and not element & _GLOB:
            g |= _LITERAL
        return g

    def resolve(self, elt: str) -> str:
        """The path to match for ``elt`` (trailing ``/`` kept); :class:`PathspecError`
        with git's message where git dies."""
        prefix = self.prefix
        if prefix is not None and self._plain_magic == 0 and not elt.startswith((":", "/")):
            # the common case: no magic, a relative path below the current directory
            match = prefix + elt if prefix else elt
            if "/." in match or "//" in match or match.startswith("."):
                norm = normalize_path(match)
                if norm is None:
                    raise PathspecError(f"fatal: {elt}: '{elt}' is outside repository at "
                                        f"'{self.top}'")
                match = norm
            end = match.rfind("/")
            if end > 0 and self._symlink_leading(match, end):
                raise PathspecError(f"fatal: pathspec '{elt}' is beyond a symbolic link")
            return match
        return self._resolve_magic(elt)

    def _resolve_magic(self, elt: str) -> str:
        """:meth:`resolve` of any path: magic, absolute paths, global magic."""
        magic, rest = 0, elt
        if elt.startswith(":") and not self.literal:
            magic, rest = _long_magic(elt) if elt.startswith(":(") else _short_magic(elt)
        g = self._global_magic(magic)
        if magic == 0:
            self._plain_magic = g
        magic |= g
        if magic & _LITERAL and magic & _GLOB:
            raise PathspecError(f"fatal: {elt}: 'literal' and 'glob' are incompatible")
        if magic & _TOP:
            match = rest
        else:
            found = self._prefix_path(rest)
            if found is None:
                raise PathspecError(f"fatal: {elt}: '{rest}' is outside repository at "
                                    f"'{self.top}'")
            match = found
        if magic & ~_TOP:
            raise _unsupported(elt, magic & ~_TOP)
        end = match.rfind("/")
        if end > 0 and self._symlink_leading(match, end):
            raise PathspecError(f"fatal: pathspec '{elt}' is beyond a symbolic link")
        return match

    def _prefix_path(self, path: str) -> str | None:
        if path.startswith("/"):
            norm = normalize_path(path)
            return None if norm is None else self._inside(norm)
        if self.prefix is None:
            norm = normalize_path(self.cwd.rstrip("/") + "/" + path)
            return None if norm is None else self._inside(norm)
        return normalize_path(self.prefix + path)

    def _inside(self, path: str) -> str | None:
        """``abspath_part_inside_repo``."""
        top = self.top
        off = 1
        if path.startswith(top):
            rest = path[len(top):]
            if rest.startswith("/"):
                return rest[1:]
            if top.endswith("/") or rest == "":
                return rest
            off = len(top)
        i = off
        while i < len(path):
            if path[i] == "/" and os.path.realpath(path[:i]) == top:
                return path[i + 1:]
            i += 1
        if os.path.realpath(path) == top:
            return ""
        return None

    def _symlink_leading(self, match: str, end: int = -1) -> bool:
        """git's ``has_symlink_leading_path``: is a leading directory a symlink? An
        ``lstat`` error or a non-directory ends the check (git's answer: no).

        Cached for the run per directory prefix (git keeps only the last directory): the
        state of a prefix is its first non-directory component's kind, so each directory
        is ``lstat``-ed once and a hit costs one dictionary lookup."""
        if end < 0:
            end = match.rfind("/")
            if end <= 0:
                return False
        lead = match[:end]  # end: the last "/" (> 0)
        if lead == self._last_lead:
            return self._last_state == 1
        state = self._states.get(lead)
        if state is None:
            state = self._fill(lead)
        self._last_lead = lead
        self._last_state = state
        return state == 1

    def _fill(self, lead: str) -> int:
        """Compute and cache the states of ``lead`` and its uncached ancestors
        (iteratively: any depth)."""
        states = self._states
        missing = [lead]
        cut = lead.rfind("/")
        state = 0
        while cut > 0:
            parent = lead[:cut]
            known = states.get(parent)
            if known is not None:
                state = known
                break
            missing.append(parent)
            cut = lead.rfind("/", 0, cut)
        if state != 0:  # a symlink or a non-directory above: it decides every prefix below
            for prefix in missing:
                states[prefix] = state
            return state
        top = self.top + "/"
        lstat = os.lstat
        for prefix in reversed(missing):
            if state == 0:
                try:
                    fmt = lstat(top + prefix).st_mode & _S_IFMT
                except OSError:
                    fmt = 0
                state = 0 if fmt == _stat.S_IFDIR else 1 if fmt == _stat.S_IFLNK else 2
            states[prefix] = state
        return state
