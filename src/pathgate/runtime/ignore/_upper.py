"""The ignore sources above a root that lies *below* the top of its git work tree.

git run anywhere inside a work tree decides from the top down: the ``.gitignore`` of every
directory from the top to the path's directory, ``info/exclude``, ``core.excludesFile``, and
*no path can be re-included below an excluded directory*. A runtime rooted in one package of
a monorepo (``top/pkg/app``) sees paths relative to its root, so what lies above it is
translated once, when the repository-wide sources are loaded (:mod:`._globals`):

* **Where the top is** (:func:`find_top`): git's discovery from the root upwards — a ``.git``
  directory that is a git directory or a ``gitdir:`` file (malformed: ``GitFatal``, the
  runtime fails closed), a bare repository or a git directory on the way (no repository, as
  before), never across a filesystem boundary (``GIT_DISCOVERY_ACROSS_FILESYSTEM`` unset).
  ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_CEILING_DIRECTORIES`` are not read. A root with a
  ``.git`` of its own is a top, exactly as before.
* **The excluded ancestor** (:meth:`UpperReader.read`): each directory from the one below the
  top down to the root itself is tested as a directory against the lists above it (the
  ``.gitignore`` files of the directories above, then ``info/exclude`` and the excludes
  file), as git's ``prep_exclude`` does; the first excluded one excludes everything under the
  root (``Match.ancestor`` is its root-relative spelling: ``.`` for the root, ``..``, ``../..``
  above it). Its ``.gitignore`` and those below it are not read, as in git.
* **The rules that reach below the root** (:func:`derive`): a line of a list above the root
  is rewritten as the line(s) that match a root-relative path exactly when the original
  matches the path from the list's directory. A line without a slash tests the basename:
  unchanged. An anchored line is git's ``match_pathname``: a literal prefix, then
  ``wildmatch``. A literal prefix that spans the root's own path is cut
  (``pkg/app/build/`` → ``/build/``); a wildcard inside it is matched component by component
  (a ``*`` one component, a ``**`` component zero or more), each surviving state giving the
  rest of the line, anchored (``*/app/**/gen`` → ``/**/gen``); escaped slashes and ``**``
  glued to a name are first written as equivalent plain lines. Lines that can match nothing
  under the root are dropped; the rule records (source, line, pattern as written) stay those
  of the original line. A line that could not be translated would fail closed.

Only git's own files are read above the root: the agent ignore files (``.pathgateignore`` …)
and pathgate's built-in defaults apply from the root down, as they always have. Sources
above the root are labelled relative to it (``../.gitignore``, ``../../.git/info/exclude``):
a label, not a path the agent can read or edit. A source that is a secret or a symlink (git
never follows a ``.gitignore``) counts as absent; one that cannot be read fails closed.
"""

from __future__ import annotations

import errno
import os
import stat as _stat
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pathgate.runtime.ignore import _gitconfig
from pathgate.runtime.ignore._rules import IgnoreList, Match, Pattern, decide, parse_lines
from pathgate.runtime.ignore._wildmatch import Wildmatch, _fold, bracket_members

if TYPE_CHECKING:
    from pathgate.runtime.ignore._index import IgnoreIndex, SourceInfo, _Sig

__all__ = ["Upper", "UpperRead", "derive", "find_top", "is_above"]

_SPECIAL = frozenset("*?[\\")


def is_above(ancestor: str) -> bool:
    """Is ``Match.ancestor`` a directory at or above the root (``.``, ``..``, ``../..``)?"""
    return ancestor in (".", "..") or ancestor.startswith("../")


def find_top(root: str, watched: list[str], absent: _gitconfig.Absent = None
             ) -> tuple[str, _gitconfig.GitLayout] | None:
    """The top of the work tree ``root`` (a real path without a ``.git`` of its own) lies in,
    and its layout; ``None`` outside any work tree. Every ``.git`` looked at is added to
    ``watched`` (so a later ``git init`` above the root is noticed). Raises ``GitFatal`` for a
    malformed ``.git`` file on the way, as git does. A ``.git`` (or a layout file) that
    ``absent`` names is read as missing (red team 19 K4: a ``.git`` above the root linked to
    the root's ``.env``)."""
    if _gitconfig.is_git_directory(root):
        return None  # a bare repository or a git directory: no work tree (as before)
    try:
        dev = os.stat(root).st_dev
    except OSError:
        return None
    d = root
    while True:
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up
        try:
            if os.stat(d).st_dev != dev:
                return None  # git stops at a filesystem boundary
        except OSError:
            return None
        dotgit = os.path.join(d, ".git")
        watched.append(dotgit)
        try:
            st = os.stat(dotgit)
        except OSError:
            st = None
        if st is not None and absent is not None and absent(dotgit):
            st = None
        if st is not None and (_stat.S_ISREG(st.st_mode)
                               or (_stat.S_ISDIR(st.st_mode) and _gitconfig.is_git_directory(dotgit, absent))):
            layout = _gitconfig.find_git_layout(d, watched, absent)
            if layout is not None:
                return d, layout
        if _gitconfig.is_git_directory(d):
            return None


# ---------------------------------------------------------------------------------------
# lines
# ---------------------------------------------------------------------------------------


def _simple_length(s: str) -> int:
    for i, c in enumerate(s):
        if c in _SPECIAL:
            return i
    return len(s)


def _components(body: str) -> list[str] | None:
    """``body`` cut at its slashes (a ``/`` inside a bracket is part of it); ``None`` for a
    line that is not split this way (an escaped slash ``\\/``), ``[]`` for a line that can
    match nothing (a malformed bracket)."""
    comps: list[str] = []
    start = i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            if i + 1 < n and body[i + 1] == "/":
                return None
            i += 2
            continue
        if c == "[":
            res = bracket_members(body, i, True, False)
            if res is None:
                return []
            i = res[1]
            continue
        if c == "/":
            comps.append(body[start:i])
            start = i + 1
        i += 1
    comps.append(body[start:])
    return comps


def _plain_slashes(body: str) -> str:
    """``body`` with every escaped slash ``\\/`` written plainly (``**\\/`` as ``*/**/``) and
    every run of ``*`` that is not a whole component written as one ``*``: the same line to
    git, provided no ``**`` glued to the literal start begins the wildmatch part (the caller
    checks :func:`_boundary_run`). An escaped slash matches the slash a plain one matches,
    and one after a ``**`` component is a component boundary without the "zero directories"
    shortcut (one or more: ``*/**``); a glued run is a plain ``*`` wherever the literal start
    ends, so the longer literal start of the plain line changes nothing."""
    out: list[str] = []
    comp: list[str] = []
    i = 0
    n = len(body)

    def close() -> None:
        text = "".join(comp)
        out.append(text if _is_starstar(text) else _collapse(text))
        comp.clear()

    while i < n:
        c = body[i]
        if c == "\\" and body.startswith("\\/", i):
            if _is_starstar("".join(comp)):
                comp.clear()
                out.append("*/**")
            else:
                close()
            out.append("/")
            i += 2
        elif c == "\\":
            comp.append(body[i:i + 2])
            i += 2
        elif c == "[":
            res = bracket_members(body, i, True, False)
            end = n if res is None else res[1]
            comp.append(body[i:end])
            i = end
        elif c == "/":
            close()
            out.append("/")
            i += 1
        else:
            comp.append(c)
            i += 1
    close()
    return "".join(out)


def _boundary_run(body: str, i: int) -> bool:
    """Is there a run of two or more ``*`` at ``body[i]`` that ends the line or a component
    (at a wildmatch start, such a run is a ``**`` that crosses slashes)?"""
    j = i
    while j < len(body) and body[j] == "*":
        j += 1
    return j - i >= 2 and (j == len(body) or body.startswith(("/", "\\/"), j))


def _unglue(body: str, i: int) -> list[str]:
    """``body`` whose wildmatch part starts at ``i`` with a ``**`` run glued to its literal
    start ``L`` (:func:`_boundary_run`), as lines without it: that ``**`` matches any text,
    slashes included, so ``L**`` is ``L*`` or ``L*/**``, and ``L**/R`` is ``L*/**/R`` or
    (its "no directory" shortcut, which also eats the slash) ``LR``, whose ``R`` has its
    glued runs written as one ``*`` (``R`` is matched from a new start in git, not after
    ``L``'s literal)."""
    lit = body[:i]
    j = i
    while j < len(body) and body[j] == "*":
        j += 1
    rest = body[j:]
    if not rest:
        return [lit + "*", lit + "*/**"]
    if rest.startswith("\\/"):
        return [lit + "*/**/" + rest[2:]]  # no shortcut after an escaped slash
    tail = rest[1:]
    # (a tail that starts with a run is glued again: the caller's recursion takes it)
    return [lit + "*/**/" + tail, lit + (tail if tail.startswith("*") else _plain_slashes(tail))]


def _is_starstar(comp: str) -> bool:
    return len(comp) >= 2 and not comp.strip("*")


def _collapse(comp: str) -> str:
    """A component's runs of ``*`` as one ``*`` (outside brackets and escapes): a run that is
    not a whole component is a plain ``*`` wherever it stands, and so stays when the rest
    of the line is matched from a new start."""
    if "**" not in comp or _is_starstar(comp):
        return comp
    out: list[str] = []
    i = 0
    n = len(comp)
    while i < n:
        c = comp[i]
        if c == "\\":
            out.append(comp[i:i + 2])
            i += 2
        elif c == "[":
            res = bracket_members(comp, i, True, False)
            end = n if res is None else res[1]
            out.append(comp[i:end])
            i = end
        elif c == "*":
            j = i
            while j < n and comp[j] == "*":
                j += 1
            out.append("*")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def derive(view: str, prefix: Sequence[str], fold: bool) -> list[str] | None:
    """The lines that match a path ``x`` below the root exactly when ``view`` (one trimmed
    line of a list, latin-1 view) matches ``prefix/x`` from its list's directory
    (``prefix``: the components from that directory down to the root, latin-1 views). ``[]``:
    the line matches nothing below the root. ``None``: a line this does not translate (an
    escaped slash, or a ``**`` glued to a literal start, ``pkg**/x``, whose wildcard part
    begins inside the root's path): the caller fails closed."""
    neg = view.startswith("!")
    p = view[1:] if neg else view
    dir_only = p.endswith("/")
    body = p[:-1] if dir_only else p
    if "/" not in body:
        return [view]  # a basename rule: the same wherever its list is
    if body.startswith("/"):
        body = body[1:]
    head = "!" if neg else ""
    tail = "/" if dir_only else ""
    q = "/".join(prefix) + "/"
    lit_len = _simple_length(body)
    glued = bool(lit_len) and body[lit_len - 1] != "/" and _boundary_run(body, lit_len)
    if "\\/" in body and not glued:
        # escaped slashes written plainly: the same line (:func:`_plain_slashes`)
        body = _plain_slashes(body)
        lit_len = _simple_length(body)
    cmp: Callable[[str], str] = _fold if fold else str
    if lit_len >= len(q):
        # the literal start covers the root's path: cut it (the literal/wildcard split of the
        # rest is the same, so git's match_pathname runs the same wildmatch)
        if cmp(body[:len(q)]) != cmp(q):
            return []
        rest = body[len(q):]
        return [f"{head}/{rest}{tail}"] if rest else []
    if not cmp(q).startswith(cmp(body[:lit_len])):
        return []
    if glued:
        # match_pathname starts wildmatch mid-component, on a ``**`` that crosses slashes
        out: list[str] = []
        for alt in _unglue(body, lit_len):
            got = derive(f"{head}/{alt}{tail}", prefix, fold)
            if got is None:
                return None
            out += got
        return list(dict.fromkeys(out))
    comps = _components(body)
    if comps is None:
        return None
    if not comps:
        return []
    comps = [_collapse(c) for c in comps]
    states = _consume(comps, prefix, fold)
    lines = [f"{head}/{'/'.join(comps[i:])}{tail}" for i in sorted(states) if i < len(comps)]
    return list(dict.fromkeys(lines))


def _consume(comps: list[str], prefix: Sequence[str], fold: bool) -> set[int]:
    """The component positions of ``comps`` reached after matching every component of
    ``prefix`` (a ``**`` component absorbs zero or more)."""
    m = len(comps)
    star = [_is_starstar(c) for c in comps]
    tests: list[Wildmatch | None] = [None if s else Wildmatch(c, True, fold) for c, s in zip(comps, star, strict=True)]
    states = {0}
    for q in prefix:
        nxt: set[int] = set()
        for i in states:
            while i < m:
                if star[i]:
                    nxt.add(i)  # absorbs q; or matches nothing and the next component takes q
                    i += 1
                    continue
                test = tests[i]
                if test is not None and test(q):
                    nxt.add(i + 1)
                break
        states = nxt
        if not states:
            break
    return states


# ---------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------


class Upper:
    """A root below the top of its work tree: the top, and the root's path from it."""

    __slots__ = ("parts", "top", "views")

    def __init__(self, top: str, root: str) -> None:
        self.top = top
        self.parts: tuple[str, ...] = tuple(os.path.relpath(root, top).split("/"))
        self.views = tuple(os.fsencode(c).decode("latin-1") for c in self.parts)

    def up(self, k: int) -> str:
        """``../`` repeated from the root up to the directory ``k`` levels below the top."""
        return "../" * (len(self.parts) - k)

    def dir_label(self, k: int) -> str:
        """How the directory ``k`` levels below the top is named from the root."""
        n = len(self.parts) - k
        return "." if n == 0 else "/".join([".."] * n)

    def label(self, shown: str) -> str:
        """A repository-wide source's label: ``.git/info/exclude`` or a relative excludes file
        (relative to the top) from the root; absolute and ``~`` ones as configured."""
        if shown.startswith(("/", "~")):
            return shown
        return self.up(0) + shown


class UpperRead:
    """What :meth:`Upper.read` found: the translated lists (shallowest first), the sources,
    the ``lstat`` signature of each ignore file looked at, and the decision that stops
    everything under the root (an excluded ancestor, an unreadable file), if any."""

    __slots__ = ("lists", "sigs", "sources", "stop")

    def __init__(self) -> None:
        self.lists: list[IgnoreList] = []
        self.sources: list[SourceInfo] = []
        self.sigs: list[tuple[str, _Sig]] = []
        self.stop: Match | None = None


def translated(label: str, data: bytes, prefix: Sequence[str], fold: bool,
               sig: object) -> IgnoreList | None:
    """The list ``data`` read in a directory ``prefix`` above the root, as lines that match
    root-relative paths; ``None`` when a line cannot be translated (:func:`derive`)."""
    lines: list[tuple[int, str, str]] = []
    for lineno, raw in parse_lines(data):
        view = raw.decode("latin-1")
        got = derive(view, prefix, fold)
        if got is None:
            return None
        shown = raw.decode("utf-8", "surrogateescape")
        lines.extend((lineno, v, shown) for v in got)
    nlines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    return IgnoreList(label, "", lines, fold, sig, nlines)


def _path_views(path: str, fold: bool) -> tuple[str, str]:
    raw = os.fsencode(path)
    if fold:
        raw = raw.lower()
    pv = raw.decode("latin-1")
    return pv, pv.rpartition("/")[2]


def read_upper(ix: IgnoreIndex, up: Upper, fold: bool,
               repo_wide: Sequence[tuple[str, bytes, object]]) -> UpperRead:
    """Read the ``.gitignore`` files from the top down to the root's parent, testing each
    directory on the way as git does. ``repo_wide``: ``info/exclude`` and the excludes file
    as ``(label, bytes, signature)``, lowest precedence first."""
    from pathgate.runtime.ignore._index import SourceInfo, _err_name

    out = UpperRead()
    original: list[IgnoreList] = [IgnoreList.compiled(label, "", data, fold, sig)
                                  for label, data, sig in repo_wide]
    original.reverse()  # highest precedence first (info/exclude before the excludes file)
    n = len(up.parts)
    for k in range(n + 1):
        if k:
            rel = "/".join(up.parts[:k])
            path_v, name_v = _path_views(rel, fold)
            pt: Pattern | None = decide(tuple(original), path_v, name_v, True, lambda _: True, rel)
            if pt is not None and not pt.negated:
                out.stop = Match(ignored=True, rule=pt.rule, ancestor=up.dir_label(k))
                return out
        if k == n:
            return out
        label = up.up(k) + ".gitignore"
        path = os.path.join(up.top, *up.parts[:k], ".gitignore")
        sig = ix._stat_sig(path)
        out.sigs.append((path, sig))
        if sig is None:
            continue
        if isinstance(sig, str):
            ix._warn(f"unable to access '{label}': {os.strerror(getattr(errno, sig[6:], 0))}")
            out.sources.append(SourceInfo(source=label, state="unreadable", error=sig[6:]))
            if ix.config.fail_closed:
                out.stop = Match(ignored=True, fail_closed=True, unreadable=label)
                return out
            continue
        mode = sig[0]
        if _stat.S_ISLNK(mode):
            ix._warn(f"unable to access '{label}': {os.strerror(errno.ELOOP)}")
            out.sources.append(SourceInfo(source=label, state="symlink", error=_err_name(errno.ELOOP)))
            continue
        if not _stat.S_ISREG(mode) or _is_secret(ix, path):
            continue  # a directory, a FIFO: no rules; a secret: as if absent
        try:
            data = ix._read_source(path)
        except OSError as e:
            out.sigs[-1] = (path, f"stale:{_err_name(e.errno)}")
            if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                continue
            ix._warn(f"unable to access '{label}': {os.strerror(e.errno or 0)}")
            out.sources.append(SourceInfo(source=label, state="unreadable", error=_err_name(e.errno)))
            if ix.config.fail_closed:
                out.stop = Match(ignored=True, fail_closed=True, unreadable=label)
                return out
            continue
        base = "".join(v + "/" for v in up.views[:k])
        own = IgnoreList.compiled(label, base, data, fold, sig)
        lst = translated(label, data, up.views[k:], fold, sig)
        if lst is None:
            out.sources.append(SourceInfo(source=label, state="unreadable", error="untranslatable"))
            out.stop = Match(ignored=True, fail_closed=True, unreadable=label)
            return out
        original.insert(0, own)
        out.lists.append(lst)
        out.sources.append(SourceInfo(source=label, state="read", rules=len(own)))
    return out


def _is_secret(ix: IgnoreIndex, path: str) -> bool:
    from pathgate.runtime.ignore._secret_sources import is_secret_source

    return is_secret_source(ix, path)
