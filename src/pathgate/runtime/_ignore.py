"""THE ignore engine: git's exclude semantics, per-directory matchers, a shared cache.

How a decision is made
======================

git decides whether a path is ignored with ``dir.c``'s ``last_matching_pattern``. We do
the same, step by step:

* **Sources.** Every directory may hold ignore files: ``.gitignore`` first, then the agent
  ignore files of :attr:`IgnoreConfig.agent_files` in order. Below all of them come the
  repository-wide lists: ``.git/info/exclude``, then ``core.excludesFile``, then pathgate's
  built-in defaults. Each file is one *list*; a path is tested against the lists of its
  directory chain from the **deepest** directory up to the root, then the repository-wide
  lists. Inside one list the **last** matching line wins; the first list with a match
  decides. So an agent file beats ``.gitignore`` in the same directory, a deeper file beats
  a shallower one, and every per-directory file beats ``info/exclude``.
* **The excluded-parent rule.** Before a directory's own ignore files are read, the
  directory itself is tested (as a directory) against its parent's chain. If a positive
  rule matches, the directory is *excluded*: everything below it is excluded by that rule
  (``Match.ancestor``), nothing below it can be re-included, and no ignore file inside it is
  ever read. A negated rule that matches the directory just lets it through.
* **Line parsing** follows ``add_patterns_from_buffer``: a UTF-8 BOM is skipped, only a
  ``\\r`` right before ``\\n`` is dropped, ``#`` starts a comment only in column 1, unescaped
  trailing spaces are trimmed (a trailing tab stays), a leading ``!`` negates, a trailing
  ``/`` means "directories only" (decided by ``lstat``: a symlink is not a directory).
  A pattern without a slash (other than a trailing one) matches the basename at any depth;
  otherwise it is anchored to the directory of its file.
* **Wildcards** are git's ``wildmatch`` (not fnmatch, not pathspec's translation): ``*``
  and ``?`` never match ``/``; ``**`` is special only as a whole path component; brackets
  take ``!``/``^`` negation, ranges, escapes and the 12 POSIX classes; a lone trailing
  backslash or a malformed bracket makes the line match nothing, while the rest of the file
  still applies. Matching is done on bytes (a ``?`` is one byte), exactly like git, by
  running the regexes over a latin-1 view of the path's bytes. ``core.ignoreCase`` folds
  ASCII only, with git's quirks (an escaped upper-case letter then matches nothing).
  Each line is compiled once by :func:`compile_pattern`; literal lines become dictionary
  keys or suffix tests, the rest regexes, and each list also gets one combined regex that
  answers "does anything match?" before the rules are scanned from the last line back.
* **Bounded time.** Consecutive ``**/`` components collapse in the regex (``**/**/`` is
  ``**/``, by a regular-language identity). A line that still has 3 or more runs of ``*``
  (which a backtracking regex could take O(n^k) on) is matched by :class:`Wildmatch`
  instead: git's ``dowild`` ported with its early aborts, memoized per call (polynomial,
  where git itself is exponential on ``**/**/…``) and free of Python recursion. A
  hypothesis test holds the port and the regexes equal; both are checked against git.

The cache
=========

Like ripgrep's ``ignore`` crate (``dir.rs``), every directory gets an immutable
:class:`_Dir` linked to its parent; adding a child never mutates a parent, so concurrent
sessions share them. A directory is either *excluded* (it carries its deciding
:class:`Match`), *fail-closed* (an ignore file governing it could not be read), or
*allowed* (it carries the chain of compiled lists that apply below it). The
:class:`IgnoreIndex` holds them in an LRU (``IgnoreConfig.cache_dirs``) behind a lock.

A :class:`IgnoreSession` is one call's view: the first time it needs a directory it checks
the stat signature of that directory's candidate ignore files (and, once, those of the
repository-wide sources and git config), rebuilding what changed; after that the directory
costs one dictionary lookup. So an edited, added or deleted ignore file takes effect on the
next session, without re-reading unchanged files.

Paths are project-relative POSIX ``str`` (surrogate-escaped on undecodable bytes), without
a leading ``./`` or a trailing ``/``; ``""`` is the project root.
"""

from __future__ import annotations

import errno
import os
import re
import stat as _stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence

import msgspec

from pathgate.runtime import _gitconfig
from pathgate.runtime._fs import OsFS, SyncFS
from pathgate.verdicts import BUILTIN_SOURCE, Rule

__all__ = [
    "DEFAULT_IGNORES",
    "IgnoreConfig",
    "IgnoreIndex",
    "IgnoreSession",
    "Match",
    "SourceInfo",
    "compile_pattern",
]

# The documented built-in default ignore list (lowest precedence; "<built-in>" source).
# Each entry is a gitignore line; ``Rule.line`` is its 1-based position here.
DEFAULT_IGNORES: tuple[str, ...] = (
    # version control metadata
    ".git",
    ".hg/",
    ".svn/",
    # dependency trees and virtual environments
    "node_modules/",
    "bower_components/",
    ".venv/",
    "venv/",
    ".pnpm-store/",
    # Python byte code and tool caches
    "__pycache__/",
    "*.pyc",
    "*.pyo",
    ".mypy_cache/",
    ".pytest_cache/",
    ".ruff_cache/",
    ".hypothesis/",
    ".tox/",
    ".nox/",
    ".cache/",
    # OS litter
    ".DS_Store",
    "Thumbs.db",
    # minified bundles
    "*.min.*",
    # lockfiles (large, generated, rarely useful to read)
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "Cargo.lock",
    "composer.lock",
    "Gemfile.lock",
    "go.sum",
)


class IgnoreConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Which ignore sources apply.

    * ``defaults``: built-in patterns (lowest precedence).
    * ``agent_files``: per-directory agent ignore file names, read right after ``.gitignore``
      in the same directory (so they win over it), in this order.
    * ``git_sources``: read ``.git/info/exclude`` and ``core.excludesFile``.
    * ``excludes_file``: explicit ``core.excludesFile`` (``None``: found as git finds it).
    * ``ignore_case``: ASCII case folding (``None``: the repository's ``core.ignoreCase``).
    * ``cache_dirs``: LRU bound on cached directories.
    * ``fail_closed``: an ignore file that exists but cannot be read (``EACCES``, ``EIO``)
      blocks every path it governs (``Match.fail_closed``). ``False`` behaves like git:
      the file counts as empty (``check-ignore`` uses this to mirror git).
    """

    defaults: tuple[str, ...] = DEFAULT_IGNORES
    agent_files: tuple[str, ...] = (".pathgateignore",)
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    cache_dirs: int = 65536
    fail_closed: bool = True

    @classmethod
    def git_only(cls, **overrides: object) -> IgnoreConfig:
        """git's own sources only: no built-in defaults, no agent ignore files."""
        base = cls(defaults=(), agent_files=(), git_sources=True)
        return msgspec.structs.replace(base, **overrides) if overrides else base


class Match(msgspec.Struct, frozen=True, kw_only=True):
    """A decision and its provenance.

    * ``ignored``: excluded by ignore rules (or fail-closed).
    * ``rule``: the rule that decided — possibly a negated rule, with ``ignored=False``;
      ``None`` when no rule matched (or fail-closed).
    * ``ancestor``: when an excluded ancestor directory decided, its relpath; ``rule`` is that
      directory's rule.
    * ``fail_closed`` / ``unreadable``: an ignore file governing the path could not be read;
      ``ignored`` is ``True`` and ``rule`` is ``None``; ``unreadable`` is that file's relpath.
    """

    ignored: bool
    rule: Rule | None = None
    ancestor: str | None = None
    fail_closed: bool = False
    unreadable: str | None = None


class SourceInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One ignore source consulted for a path (see :meth:`IgnoreSession.explain`).

    ``state``: ``"read"`` (``rules`` lines compiled), ``"unreadable"`` (``error`` names the
    errno), ``"symlink"`` (a symlinked per-directory file: not followed, like git),
    ``"builtin"``.
    """

    source: str
    state: str
    rules: int = 0
    error: str | None = None


class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the CLI's ``explain`` shows for one path.

    ``match`` is the decision; ``sources`` every ignore source consulted, lowest precedence
    first; ``matching`` every rule of those sources that matches the path itself, in
    precedence order (the first one decided unless an ancestor did); ``ancestors`` the
    decision made for each ancestor directory, top down, until one was excluded.
    """

    relpath: str
    match: Match
    sources: tuple[SourceInfo, ...]
    matching: tuple[Rule, ...]
    ancestors: tuple[tuple[str, Match], ...]


NO_MATCH = Match(ignored=False)

# ---------------------------------------------------------------------------------------
# wildmatch → regex
# ---------------------------------------------------------------------------------------

_GLOB_SPECIAL = frozenset("*?[\\")


def _cls(test: Callable[[int], bool]) -> frozenset[int]:
    return frozenset(c for c in range(128) if test(c))


def _isalpha(c: int) -> bool:
    return 65 <= c <= 90 or 97 <= c <= 122


def _isdigit(c: int) -> bool:
    return 48 <= c <= 57


def _islower(c: int) -> bool:
    return 97 <= c <= 122


def _isupper(c: int) -> bool:
    return 65 <= c <= 90


# git's sane_ctype (ASCII only; isspace is \t \n \r and space, not \v \f).
_CLASSES: dict[str, frozenset[int]] = {
    "alnum": _cls(lambda c: _isalpha(c) or _isdigit(c)),
    "alpha": _cls(_isalpha),
    "blank": frozenset((9, 32)),
    "cntrl": _cls(lambda c: c < 32 or c == 127),
    "digit": _cls(_isdigit),
    "graph": _cls(lambda c: 33 <= c <= 126),
    "lower": _cls(_islower),
    "print": _cls(lambda c: 32 <= c <= 126),
    "punct": _cls(lambda c: 33 <= c <= 126 and not _isalpha(c) and not _isdigit(c)),
    "space": frozenset((9, 10, 13, 32)),
    "upper": _cls(_isupper),
    "xdigit": _cls(lambda c: _isdigit(c) or 65 <= c <= 70 or 97 <= c <= 102),
}

_NEVER = "(?!)"
_ANY_DIRS = "(?:.*/)?"  # a ``**/`` component: zero or more whole directories


def _esc(ch: str) -> str:
    return f"\\x{ord(ch):02x}"


def _charset(codes: Sequence[int]) -> str:
    if not codes:
        return _NEVER
    parts: list[str] = []
    codes = sorted(codes)
    start = prev = codes[0]
    for c in [*codes[1:], -2]:
        if c == prev + 1:
            prev = c
            continue
        parts.append(_esc(chr(start)) if start == prev else f"{_esc(chr(start))}-{_esc(chr(prev))}")
        start = prev = c
    return "[" + "".join(parts) + "]"


def _bracket(p: str, i: int, pathname: bool, fold: bool) -> tuple[str, int] | None:
    """Translate the bracket expression starting at ``p[i] == '['``; ``None`` if malformed."""
    res = _bracket_members(p, i, pathname, fold)
    if res is None:
        return None
    members, end = res
    return _charset(members), end


def _bracket_members(p: str, i: int, pathname: bool, fold: bool
                     ) -> tuple[list[int], int] | None:
    """The byte values (of a folded text when ``fold``) that the bracket expression starting
    at ``p[i] == '['`` matches, and the index after its ``]``; ``None`` if malformed."""
    n = len(p)
    i += 1
    ch = p[i] if i < n else ""
    if ch == "^":
        ch = "!"
    negated = ch == "!"
    if negated:
        i += 1
        ch = p[i] if i < n else ""
    prev = ""
    singles: set[int] = set()
    ranges: list[tuple[int, int]] = []
    classes: list[str] = []
    while True:
        if not ch:
            return None
        if ch == "\\":
            i += 1
            if i >= n:
                return None
            ch = p[i]
            singles.add(ord(ch))
        elif ch == "-" and prev and i + 1 < n and p[i + 1] != "]":
            i += 1
            ch = p[i]
            if ch == "\\":
                i += 1
                if i >= n:
                    return None
                ch = p[i]
            ranges.append((ord(prev), ord(ch)))
            ch = ""
        elif ch == "[" and i + 1 < n and p[i + 1] == ":":
            s = i + 2
            j = s
            while j < n and p[j] != "]":
                j += 1
            if j >= n:
                return None
            length = j - s - 1
            if length < 0 or p[j - 1] != ":":
                i = s - 2
                ch = "["
                singles.add(ord("["))
            else:
                name = p[s:s + length]
                if name not in _CLASSES:
                    return None
                classes.append(name)
                i = j
                ch = ""
        else:
            singles.add(ord(ch))
        prev = ch
        i += 1
        ch = p[i] if i < n else ""
        if ch == "]":
            break
    members: list[int] = []
    for t in range(256):
        if fold and _isupper(t):
            continue  # the text was folded: never an upper-case letter
        hit = t in singles
        if not hit:
            for lo, hi in ranges:
                if lo <= t <= hi or (fold and _islower(t) and lo <= t - 32 <= hi):
                    hit = True
                    break
        if not hit:
            for name in classes:
                if t in _CLASSES[name] or (fold and name == "upper" and _islower(t)):
                    hit = True
                    break
        if hit != negated and not (pathname and t == 47):
            members.append(t)
    return members, i + 1


def translate_wildmatch(p: str, pathname: bool, fold: bool = False) -> str | None:
    """git's ``wildmatch(p, text, WM_PATHNAME if pathname)`` as a regex over the latin-1
    view of ``text`` (to be used with ``fullmatch`` and ``re.DOTALL``).

    ``None`` when the pattern can match nothing at all (lone trailing backslash, malformed
    bracket). With ``fold`` the text must have been ASCII-lower-cased first.
    The start of ``p`` counts as a component boundary for ``**`` (git calls wildmatch on
    what follows the literal prefix, which makes ``foo**/bar`` match ``foox/y/bar``).
    """
    out: list[str] = []
    i = 0
    n = len(p)
    while i < n:
        c = p[i]
        if c == "\\":
            i += 1
            if i >= n:
                return None
            ch = p[i]
            if fold and "A" <= ch <= "Z":
                out.append(_NEVER)
            else:
                out.append(_esc(ch))
            i += 1
        elif c == "?":
            out.append("[^/]" if pathname else ".")
            i += 1
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            if not pathname:
                out.append(".*")
                i = j
                continue
            if (j - i >= 2 and (i == 0 or p[i - 1] == "/")
                    and (j == n or p[j] == "/" or (p[j] == "\\" and j + 1 < n and p[j + 1] == "/"))):
                # Consecutive components collapse, by regular-language identities (checked
                # against git): ``**/**/`` is ``**/`` and a trailing ``**/**`` is ``**``.
                # Otherwise the nested groups backtrack O(depth^k) on deep paths.
                if j == n:
                    if out and out[-1] == _ANY_DIRS:
                        out.pop()
                    out.append(".*")
                    i = j
                elif p[j] == "/":
                    if not (out and out[-1] == _ANY_DIRS):
                        out.append(_ANY_DIRS)
                    i = j + 1
                else:
                    out.append(".*")
                    i = j
            else:
                out.append("[^/]*")
                i = j
        elif c == "[":
            res = _bracket(p, i, pathname, fold)
            if res is None:
                return None
            piece, i = res
            out.append(piece)
        else:
            if fold and "A" <= c <= "Z":
                c = c.lower()
            out.append(_esc(c))
            i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------
# wildmatch, ported: for lines whose regex could backtrack
# ---------------------------------------------------------------------------------------

# git's wildmatch.h return codes
WM_MATCH = 0
WM_NOMATCH = 1
WM_ABORT_ALL = -1
WM_ABORT_TO_STARSTAR = -2

# A line whose wildmatch part has this many runs of ``*`` is matched by :class:`Wildmatch`,
# not by a regex: with k unbounded ``.*``/``[^/]*`` pieces a backtracking regex costs up to
# O(n^k) on an n-byte name or path (k = 3 already takes seconds on a 1,000-byte path);
# with at most 2 it stays O(n^2).
WILD_STAR_RUNS = 3

_Frame = Generator[tuple[int, int], int, int]


def star_runs(p: str) -> int:
    """How many runs of ``*`` the wildmatch pattern ``p`` holds, outside escapes and
    brackets (after ``**/`` components were collapsed, as the regex translation does)."""
    runs = 0
    i = 0
    n = len(p)
    prev_any_dirs = False
    while i < n:
        c = p[i]
        if c == "\\":
            i += 2
            prev_any_dirs = False
        elif c == "[":
            res = _bracket_members(p, i, True, False)
            if res is None:
                return runs
            i = res[1]
            prev_any_dirs = False
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            boundary = j - i >= 2 and (i == 0 or p[i - 1] == "/")
            if boundary and j < n and p[j] == "/":
                if not prev_any_dirs:
                    runs += 1
                prev_any_dirs = True
                i = j + 1
                continue
            if not (boundary and j == n and prev_any_dirs):
                runs += 1
            prev_any_dirs = False
            i = j
        else:
            prev_any_dirs = False
            i += 1
    return runs


class Wildmatch:
    """git 2.39's ``wildmatch(p, text, flags)`` (``wildmatch.c``: ``dowild``), ported.

    The control flow, including the early aborts ``WM_ABORT_ALL`` ("nothing later can
    match, stop every ``*``") and ``WM_ABORT_TO_STARSTAR`` ("only a ``**`` may try
    further"), is git's, statement by statement. Two changes keep it bounded on any input
    without changing a single result: each ``dowild(p, text)`` call is a pure function of
    its two offsets, so results are memoized per call (polynomial, where git itself is
    exponential on ``**/**/…/q``); and recursion is driven by an explicit stack, so no
    pattern is too long. Brackets are decided by the translator's parser
    (:func:`_bracket_members`), which follows git's, on a set precomputed per bracket.

    ``p`` and the text are latin-1 views of bytes; ``pathname`` is ``WM_PATHNAME``,
    ``fold`` is ``WM_CASEFOLD`` (ASCII only). ``lit`` is a literal prefix the text must
    start with (already folded), tested before ``p`` runs on the rest, like
    ``match_pathname``. A malformed pattern (``valid`` false) matches nothing.
    """

    __slots__ = ("brackets", "fold", "lit", "p", "pathname", "valid")

    def __init__(self, p: str, pathname: bool, fold: bool = False, lit: str = "") -> None:
        self.p = p
        self.pathname = pathname
        self.fold = fold
        self.lit = lit
        self.brackets: dict[int, tuple[frozenset[int], int]] = {}
        self.valid = translate_wildmatch(p, pathname, fold) is not None
        i = 0
        n = len(p)
        while self.valid and i < n:
            c = p[i]
            if c == "\\":
                i += 2
            elif c == "[":
                res = _bracket_members(p, i, pathname, fold)
                if res is None:  # pragma: no cover - translate_wildmatch said valid
                    self.valid = False
                    break
                members, end = res
                self.brackets[i] = (frozenset(members), end)
                i = end
            else:
                i += 1

    def __call__(self, text: str) -> bool:
        """Does the pattern match ``text`` (the whole of it)?"""
        if not self.valid:
            return False
        lit = self.lit
        if lit:
            if not text.startswith(lit):
                return False
            text = text[len(lit):]
        return self.dowild(text) == WM_MATCH

    def dowild(self, text: str) -> int:
        """git's ``dowild(p, text, flags)`` return code."""
        if self.fold:
            # git folds each text character where it compares it; folding all of them up
            # front is the same (every test of ``t_ch`` goes through the fold)
            text = _fold(text)
        memo: dict[tuple[int, int], int] = {}
        stack: list[tuple[tuple[int, int], _Frame]] = [((0, 0), self._frame(0, 0, text))]
        sent: int | None = None
        while True:
            key, frame = stack[-1]
            try:
                call = frame.send(sent)  # type: ignore[arg-type]  # None starts a frame
            except StopIteration as done:
                result: int = done.value
                memo[key] = result
                stack.pop()
                if not stack:
                    return result
                sent = result
                continue
            known = memo.get(call)
            if known is not None:
                sent = known
            else:
                stack.append((call, self._frame(call[0], call[1], text)))
                sent = None

    def _frame(self, pi: int, ti: int, t: str) -> _Frame:
        """One ``dowild(p + pi, text + ti)`` call; ``yield (pi, ti)`` is a nested call."""
        p = self.p
        np_ = len(p)
        nt = len(t)
        fold = self.fold
        pathname = self.pathname
        start = pi  # dowild's ``pattern``: where this call's pattern begins
        while pi < np_:
            p_ch = p[pi]
            t_ch = t[ti] if ti < nt else ""
            if not t_ch and p_ch != "*":
                return WM_ABORT_ALL
            if fold and "A" <= p_ch <= "Z":  # (the text is folded already)
                p_ch = p_ch.lower()
            if p_ch == "\\":
                # literal match with the following character (never folded)
                pi += 1
                p_ch = p[pi] if pi < np_ else ""
                if t_ch != p_ch:
                    return WM_NOMATCH
            elif p_ch == "?":
                if pathname and t_ch == "/":
                    return WM_NOMATCH
            elif p_ch == "[":
                members, end = self.brackets[pi]
                if ord(t_ch) not in members:  # '/' is never a member with WM_PATHNAME
                    return WM_NOMATCH
                pi = end - 1  # at the ']'
            elif p_ch == "*":
                pi += 1
                if pi < np_ and p[pi] == "*":
                    prev = pi - 2
                    pi += 1
                    while pi < np_ and p[pi] == "*":
                        pi += 1
                    if not pathname:
                        match_slash = True  # without WM_PATHNAME, '*' == '**'
                    elif ((prev < start or p[prev] == "/")
                          and (pi == np_ or p[pi] == "/"
                               or (p[pi] == "\\" and pi + 1 < np_ and p[pi + 1] == "/"))):
                        # at <star star slash>, first assume it matches nothing
                        if pi < np_ and p[pi] == "/" and (yield (pi + 1, ti)) == WM_MATCH:
                            return WM_MATCH
                        match_slash = True
                    else:
                        match_slash = False
                else:
                    match_slash = not pathname
                if pi == np_:
                    # trailing "**" matches everything, trailing "*" no more slashes
                    if not match_slash and t.find("/", ti) >= 0:
                        return WM_NOMATCH
                    return WM_MATCH
                if not match_slash and p[pi] == "/":
                    # one asterisk then a slash, with WM_PATHNAME: the next directory
                    slash = t.find("/", ti)
                    if slash < 0:
                        return WM_NOMATCH
                    ti = slash
                    pi += 1  # the slash is consumed by the loop's increment
                    ti += 1
                    continue
                while True:
                    if not t_ch:
                        break
                    c = p[pi]
                    if c not in _GLOB_SPECIAL:
                        # advance faster to the literal that follows the asterisk
                        # (not past a slash unless match_slash: it cannot belong to '*')
                        if fold and "A" <= c <= "Z":
                            c = c.lower()
                        found = t.find(c, ti)
                        if found < 0 or (not match_slash and 0 <= t.find("/", ti, found)):
                            return WM_NOMATCH
                        ti = found
                        t_ch = c
                    matched = yield (pi, ti)
                    if matched != WM_NOMATCH:
                        if not match_slash or matched != WM_ABORT_TO_STARSTAR:
                            return matched
                    elif not match_slash and t_ch == "/":
                        return WM_ABORT_TO_STARSTAR
                    ti += 1
                    t_ch = t[ti] if ti < nt else ""
                return WM_ABORT_ALL
            elif t_ch != p_ch:
                return WM_NOMATCH
            pi += 1
            ti += 1
        return WM_NOMATCH if ti < nt else WM_MATCH


# ---------------------------------------------------------------------------------------
# patterns and lists
# ---------------------------------------------------------------------------------------

_LIT, _SUFFIX, _BGLOB, _PLIT, _PGLOB, _NOTHING, _WILD = range(7)


class Pattern:
    """One compiled ignore line. ``text`` is the matching view (latin-1 of the bytes)."""

    __slots__ = ("dir_only", "kind", "match", "negated", "regex", "rule", "text", "wild")

    def __init__(self, rule: Rule, kind: int, text: str, regex: re.Pattern[str] | None,
                 negated: bool, dir_only: bool, wild: Wildmatch | None = None) -> None:
        self.rule = rule
        self.kind = kind
        self.text = text
        self.regex = regex
        self.negated = negated
        self.dir_only = dir_only
        self.wild = wild  # _WILD: git's wildmatch, on the basename or the path
        self.match = Match(ignored=not negated, rule=rule)

    def matches(self, name: str, rel: str) -> bool:
        """Test one (already folded, latin-1 view) basename / base-relative path."""
        k = self.kind
        if k == _LIT:
            return name == self.text
        if k == _SUFFIX:
            return name.endswith(self.text)
        if k == _BGLOB:
            assert self.regex is not None
            return self.regex.fullmatch(name) is not None
        if k == _PLIT:
            return rel == self.text
        if k == _PGLOB:
            assert self.regex is not None
            return self.regex.fullmatch(rel) is not None
        if k == _WILD:
            assert self.wild is not None
            return self.wild(rel if self.wild.pathname else name)
        return False


def _simple_length(s: str) -> int:
    for i, c in enumerate(s):
        if c in _GLOB_SPECIAL:
            return i
    return len(s)


def _fold(s: str) -> str:
    return s.encode("latin-1").lower().decode("latin-1")


def compile_pattern(line: str, rule: Rule, fold: bool = False) -> Pattern:
    """Compile one trimmed ignore line (latin-1 view of its bytes), as ``add_pattern``."""
    p = line
    negated = p.startswith("!")
    if negated:
        p = p[1:]
    length = len(p)
    dir_only = False
    if length and p[-1] == "/":
        length -= 1
        dir_only = True
    nodir = "/" not in p[:length]
    nowild = min(_simple_length(p), length)
    endswith = p.startswith("*") and _simple_length(p[1:]) == len(p) - 1
    pat = p[:length]
    if nodir:
        if nowild == length:
            kind, text, rx = _LIT, (_fold(pat) if fold else pat), None
        elif endswith:
            kind, text, rx = _SUFFIX, (_fold(pat[1:]) if fold else pat[1:]), None
        else:
            body = translate_wildmatch(pat, False, fold)
            if body is None:
                kind, text, rx = _NOTHING, pat, None
            elif star_runs(pat) >= WILD_STAR_RUNS:
                wild = Wildmatch(pat, False, fold)
                return Pattern(rule, _WILD, pat, None, negated, dir_only, wild)
            else:
                kind, text, rx = _BGLOB, pat, re.compile(body, re.DOTALL)
    else:
        prefix = nowild
        if pat.startswith("/"):
            pat = pat[1:]
            prefix -= 1
        lit = _fold(pat[:prefix]) if fold else pat[:prefix]
        if prefix == len(pat):
            kind, text, rx = _PLIT, lit, None
        else:
            body = translate_wildmatch(pat[prefix:], True, fold)
            if body is None:
                kind, text, rx = _NOTHING, pat, None
            elif star_runs(pat[prefix:]) >= WILD_STAR_RUNS:
                wild = Wildmatch(pat[prefix:], True, fold, lit)
                return Pattern(rule, _WILD, pat, None, negated, dir_only, wild)
            else:
                kind, text, rx = _PGLOB, pat, re.compile(
                    "".join(_esc(c) for c in lit) + body, re.DOTALL)
    return Pattern(rule, kind, text, rx, negated, dir_only)


def _trim_trailing_spaces(s: bytes) -> bytes:
    if not s.endswith(b" "):
        return s
    last_space = -1
    i = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == 0x20:
            if last_space < 0:
                last_space = i
        elif c == 0x5C:
            i += 1
            if i >= n:
                return s
            last_space = -1
        else:
            last_space = -1
        i += 1
    return s[:last_space] if last_space >= 0 else s


def parse_lines(data: bytes) -> list[tuple[int, bytes]]:
    """``add_patterns_from_buffer``: (1-based line number, trimmed pattern bytes)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    out: list[tuple[int, bytes]] = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if not raw or raw[0] == 0x23:  # empty or '#'
            continue
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        nul = raw.find(b"\0")
        if nul >= 0:
            raw = raw[:nul]
        out.append((lineno, _trim_trailing_spaces(raw)))
    return out


class _Table:
    """The rules of one list usable for one kind of path (files: no dir-only rules)."""

    __slots__ = ("bre", "brules", "lit", "plit", "pre", "prules", "sfx", "sfx_rules", "wild")

    def __init__(self, pats: Sequence[tuple[int, Pattern]]) -> None:
        self.lit: dict[str, int] = {}
        self.plit: dict[str, int] = {}
        sfx: list[tuple[int, str]] = []
        bglob: list[tuple[int, Pattern]] = []
        pglob: list[tuple[int, Pattern]] = []
        wild: list[tuple[int, Pattern]] = []
        for idx, pt in pats:
            if pt.kind == _LIT:
                self.lit[pt.text] = idx
            elif pt.kind == _PLIT:
                self.plit[pt.text] = idx
            elif pt.kind == _SUFFIX:
                sfx.append((idx, pt.text))
            elif pt.kind == _BGLOB:
                bglob.append((idx, pt))
            elif pt.kind == _PGLOB:
                pglob.append((idx, pt))
            elif pt.kind == _WILD:
                wild.append((idx, pt))
        sfx.reverse()
        wild.reverse()
        self.wild = wild
        bglob.reverse()
        pglob.reverse()
        self.sfx = tuple(s for _, s in sfx) or None
        self.sfx_rules = sfx
        self.brules = [(i, pt.regex) for i, pt in bglob if pt.regex is not None]
        self.prules = [(i, pt.regex) for i, pt in pglob if pt.regex is not None]
        self.bre = _combine(pt for _, pt in bglob)
        self.pre = _combine(pt for _, pt in pglob)

    def best(self, name: str, rel: str) -> int:
        """Index of the last matching rule, or -1."""
        best = self.lit.get(name, -1)
        if self.sfx is not None and name.endswith(self.sfx):
            for idx, s in self.sfx_rules:
                if idx <= best:
                    break
                if name.endswith(s):
                    best = idx
                    break
        if self.bre is not None and self.bre.fullmatch(name) is not None:
            for idx, rx in self.brules:
                if idx <= best:
                    break
                if rx.fullmatch(name) is not None:
                    best = idx
                    break
        if self.plit:
            v = self.plit.get(rel, -1)
            if v > best:
                best = v
        if self.pre is not None and self.pre.fullmatch(rel) is not None:
            for idx, rx in self.prules:
                if idx <= best:
                    break
                if rx.fullmatch(rel) is not None:
                    best = idx
                    break
        for idx, pt in self.wild:  # no combined pre-test: each runs git's wildmatch
            if idx <= best:
                break
            if pt.matches(name, rel):
                best = idx
                break
        return best


def _combine(pats: Iterable[Pattern]) -> re.Pattern[str] | None:
    parts = [pt.regex.pattern for pt in pats if pt.regex is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return re.compile(parts[0], re.DOTALL)
    return re.compile("|".join(f"(?:{x})" for x in parts), re.DOTALL)


class IgnoreList:
    """The compiled lines of one source (an ignore file, or the built-in list).

    ``base`` is the directory it applies to, as a latin-1 view ending in ``/`` (``""`` for
    the root and the repository-wide lists).
    """

    __slots__ = ("base", "dtab", "fold", "ftab", "has_dir_rules", "nlines", "patterns", "sig",
                 "source")

    def __init__(self, source: str, base: str, lines: Sequence[tuple[int, str, str]],
                 fold: bool, sig: object = None, nlines: int = 0) -> None:
        self.source = source
        self.nlines = nlines
        self.base = base
        self.fold = fold
        self.sig = sig
        self.patterns = [
            compile_pattern(view, Rule(source, lineno, shown, shown.startswith("!")), fold)
            for lineno, view, shown in lines
        ]
        self.has_dir_rules = any(p.dir_only for p in self.patterns)
        self.ftab = _Table([(i, p) for i, p in enumerate(self.patterns) if not p.dir_only])
        self.dtab = _Table(list(enumerate(self.patterns))) if self.has_dir_rules else self.ftab

    @classmethod
    def from_bytes(cls, source: str, base: str, data: bytes, fold: bool,
                   sig: object = None) -> IgnoreList:
        lines = [(n, b.decode("latin-1"), b.decode("utf-8", "surrogateescape"))
                 for n, b in parse_lines(data)]
        nlines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        return cls(source, base, lines, fold, sig, nlines)

    @classmethod
    def from_strings(cls, source: str, base: str, lines: Sequence[str], fold: bool,
                     first_line: int = 1) -> IgnoreList:
        data = "\n".join(lines).encode("utf-8", "surrogateescape")
        parsed = [(n + first_line - 1, b.decode("latin-1"), b.decode("utf-8", "surrogateescape"))
                  for n, b in parse_lines(data)]
        return cls(source, base, parsed, fold, None, len(lines))

    def __len__(self) -> int:
        return len(self.patterns)


# ---------------------------------------------------------------------------------------
# directories
# ---------------------------------------------------------------------------------------

_Sig = tuple[int, int, int, int, int] | str | None


def _sig_of(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class _Dir:
    """An immutable per-directory node.

    ``stop`` is set when nothing below needs evaluating: the directory is excluded
    (``stop.ancestor`` names it) or fail-closed. ``chain`` lists the non-empty lists that
    apply to entries of this directory, deepest (highest precedence) first.
    """

    __slots__ = ("chain", "lists", "parent", "rel", "sigs", "sources", "stop", "view")

    def __init__(self, rel: str, parent: _Dir | None, stop: Match | None,
                 lists: tuple[IgnoreList, ...], sigs: tuple[_Sig, ...],
                 sources: tuple[SourceInfo, ...]) -> None:
        self.rel = rel
        self.parent = parent
        self.stop = stop
        self.lists = lists
        self.sigs = sigs
        self.sources = sources
        self.view = _view(rel)
        own = tuple(lst for lst in reversed(lists) if len(lst))
        parent_chain = parent.chain if parent is not None else ()
        self.chain: tuple[IgnoreList, ...] = own + parent_chain if own else parent_chain


def _view(path: str) -> str:
    """The latin-1 view of a path's bytes (identity for ASCII)."""
    if path.isascii():
        return path
    return os.fsencode(path).decode("latin-1")


def _err_name(code: int | None) -> str:
    return errno.errorcode.get(code or 0, str(code))


def _stale(code: int | None) -> str:
    """A signature no stat ever produces: the source failed to read after its ``lstat``
    (maybe transiently), so a node cached under it is rebuilt by the next session."""
    return f"stale:{_err_name(code)}"


class _Globals:
    """Repository-wide state resolved once per change: git layout, config, global lists."""

    __slots__ = ("fold", "key", "node", "paths", "warnings")

    def __init__(self, key: object, fold: bool, node: _Dir, warnings: tuple[str, ...],
                 paths: tuple[str, ...]) -> None:
        self.key = key
        self.paths = paths
        self.fold = fold
        self.node = node
        self.warnings = warnings


class IgnoreIndex:
    """Per-root cache of compiled per-directory matchers, shared by all callers.

    Thread-safe: the LRU is mutated under a lock; the nodes themselves are immutable.
    """

    def __init__(self, root: str | os.PathLike[str], config: IgnoreConfig | None = None,
                 *, fs: SyncFS | None = None) -> None:
        self.root = os.path.realpath(root)
        self.config = config or IgnoreConfig()
        self.fs: SyncFS = fs or OsFS()
        self._lock = threading.Lock()
        self._nodes: OrderedDict[str, _Dir] = OrderedDict()
        self._globals: _Globals | None = None
        self._builtin = (IgnoreList.from_strings(BUILTIN_SOURCE, "", self.config.defaults, False)
                         if self.config.defaults else None)
        self._builtin_folded: IgnoreList | None = None
        self._warned: set[str] = set()
        self._ignore_names = (".gitignore", *self.config.agent_files)
        self.on_warning: Callable[[str], None] | None = None
        self._git_watch: tuple[str, ...] = ()  # i17: files the git config resolution read
        self.git_layout: _gitconfig.GitLayout | None = None  # i17: GIT_DIR (check-ignore)

    # -- public ------------------------------------------------------------------------

    def session(self) -> IgnoreSession:
        """A per-call view: each ignore file's stat signature is checked at most once."""
        return IgnoreSession(self)

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """One decision in a fresh session."""
        return self.session().match(relpath, is_dir)

    def cached_dirs(self) -> int:
        """How many directories the LRU holds now."""
        return len(self._nodes)

    def clear(self) -> None:
        """Drop every cached directory (the next session re-reads everything)."""
        with self._lock:
            self._nodes.clear()
            self._globals = None

    # -- internals -----------------------------------------------------------------------

    def _abs(self, rel: str) -> str:
        return os.path.join(self.root, rel) if rel else self.root

    def _warn(self, message: str) -> None:
        if message in self._warned:
            return
        self._warned.add(message)
        if self.on_warning is not None:
            self.on_warning(message)

    def _stat_sig(self, path: str, follow: bool = False) -> _Sig:
        try:
            st = self.fs.stat(path) if follow else self.fs.lstat(path)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                return None
            return f"error:{_err_name(e.errno)}"
        return _sig_of(st)

    def _config_key(self) -> tuple[object, ...]:
        cfg = self.config
        if not cfg.git_sources and cfg.ignore_case is not None:
            return ()
        # i17: the files git's layout/config resolution looked at, and the environment
        return (_gitconfig.env_key(),
                *((p, self._stat_sig(p, follow=True)) for p in self._git_watch))

    def _load_globals(self, key: tuple[object, ...]) -> _Globals:
        """Resolve the git layout and config, then read ``core.excludesFile`` and
        ``info/exclude`` (both followed through symlinks, like git)."""
        cfg = self.config
        # i17 begin: layout + configuration resolved by _gitconfig; where git would exit 128
        # (GitFatal) the runtime fails closed: every path is blocked, the reason warned.
        settings: _gitconfig.GitSettings | None = None
        fatal: _gitconfig.GitFatal | None = None
        watched: list[str] = []
        if cfg.git_sources or cfg.ignore_case is None:
            try:
                settings = _gitconfig.resolve(self.root, excludes_file=cfg.excludes_file,
                                              ignore_case=cfg.ignore_case, watched=watched,
                                              layout=self.git_layout)
            except _gitconfig.GitFatal as e:
                fatal = e
                _gitconfig.LOG.warning("%s: every path is blocked (fail closed): %s", self.root,
                                       str(e).replace("\n", " / "))
        self._git_watch = tuple(dict.fromkeys(watched))
        key = self._config_key()
        fold = cfg.ignore_case if cfg.ignore_case is not None else \
            bool(settings is not None and settings.ignore_case)
        # i17 end
        lists: list[IgnoreList] = []
        sources: list[SourceInfo] = []
        sigs: list[_Sig] = []
        stop: Match | None = None
        warnings: list[str] = []
        paths: list[str] = []
        if self._builtin is not None:
            builtin = self._builtin
            if fold:
                if self._builtin_folded is None:
                    self._builtin_folded = IgnoreList.from_strings(
                        BUILTIN_SOURCE, "", cfg.defaults, True)
                builtin = self._builtin_folded
            lists.append(builtin)
            sources.append(SourceInfo(source=BUILTIN_SOURCE, state="builtin", rules=len(builtin)))
        if cfg.git_sources:
            # i17 begin: the excludes file and info/exclude as _gitconfig resolved them
            cands: list[tuple[str, str]] = []
            if settings is not None and settings.excludes_file:
                cands.append((settings.excludes_display, settings.excludes_file))
            if settings is not None and settings.info_exclude:
                cands.append((settings.info_exclude_display, settings.info_exclude))
            if fatal is not None:
                warnings.append(str(fatal).splitlines()[-1])
                stop = Match(ignored=True, fail_closed=True,
                             unreadable=fatal.source or "<git config>")
            # i17 end
            for shown, path in cands:
                sig = self._stat_sig(path, follow=True)
                sigs.append(sig)
                paths.append(path)
                if sig is None:
                    continue
                try:
                    data = self.fs.read_bytes(os.path.realpath(path))
                except OSError as e:
                    if e.errno == errno.EISDIR:
                        continue
                    sigs[-1] = _stale(e.errno)  # read again by the next session
                    if e.errno in (errno.ENOENT, errno.ENOTDIR):
                        continue
                    warnings.append(f"unable to access '{shown}': {os.strerror(e.errno or 0)}")
                    sources.append(SourceInfo(source=shown, state="unreadable",
                                              error=_err_name(e.errno)))
                    if cfg.fail_closed and stop is None:
                        stop = Match(ignored=True, fail_closed=True, unreadable=shown)
                    continue
                lst = IgnoreList.from_bytes(shown, "", data, fold, sig)
                lists.append(lst)
                sources.append(SourceInfo(source=shown, state="read", rules=len(lst)))
        node = _Dir("\0globals", None, stop, tuple(lists), tuple(sigs), tuple(sources))
        for w in warnings:
            self._warn(w)
        return _Globals(key, fold, node, tuple(warnings), tuple(paths))

    def _current_globals(self) -> _Globals:
        key = self._config_key()
        g = self._globals
        if (g is not None and g.key == key
                and all(self._stat_sig(p, follow=True) == s
                        for p, s in zip(g.paths, g.node.sigs, strict=True))):
            return g
        g = self._load_globals(key)
        with self._lock:
            self._globals = g
        return g

    def _lookup(self, rel: str) -> _Dir | None:
        with self._lock:
            node = self._nodes.get(rel)
            if node is not None:
                self._nodes.move_to_end(rel)
            return node

    def _store(self, node: _Dir) -> None:
        with self._lock:
            self._nodes[node.rel] = node
            self._nodes.move_to_end(node.rel)
            cap = max(1, self.config.cache_dirs)
            while len(self._nodes) > cap:
                self._nodes.popitem(last=False)

    def _names(self) -> tuple[str, ...]:
        return self._ignore_names

    def _own_sigs(self, rel: str, present: frozenset[str] | None) -> tuple[_Sig, ...]:
        """The stat signature of each candidate ignore file of directory ``rel``."""
        base = self.root + "/" + rel + "/" if rel else self.root + "/"
        lstat = self.fs.lstat
        out: list[_Sig] = []
        for name in self._names():
            if present is not None and name not in present:
                out.append(None)
                continue
            try:
                st = lstat(base + name)
            except OSError as e:
                out.append(None if e.errno in (errno.ENOENT, errno.ENOTDIR)
                           else f"error:{_err_name(e.errno)}")
                continue
            out.append((st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
        return tuple(out)

    def _read_own(self, rel: str, parent: _Dir, sigs: tuple[_Sig, ...], fold: bool,
                  old: _Dir | None, extra: Sequence[str] | None = None) -> _Dir:
        """Build an allowed directory node by reading its ignore files."""
        base_view = (_view(rel) + "/") if rel else ""
        lists: list[IgnoreList] = []
        sources: list[SourceInfo] = []
        stop: Match | None = None
        reuse: dict[str, IgnoreList] = {}
        if old is not None and extra is None:
            reuse = {lst.source: lst for lst in old.lists}
        names = self._names()
        last_agent_idx = len(names) - 1
        kept = list(sigs)  # the signatures the node is cached under
        for k, (name, sig) in enumerate(zip(names, sigs, strict=True)):
            source = f"{rel}/{name}" if rel else name
            lst: IgnoreList | None = None
            if isinstance(sig, tuple):
                mode = sig[0]
                if _stat.S_ISLNK(mode):
                    # git opens per-directory files with O_NOFOLLOW: not followed, warned.
                    self._warn(f"unable to access '{source}': {os.strerror(errno.ELOOP)}")
                    sources.append(SourceInfo(source=source, state="symlink",
                                              error=_err_name(errno.ELOOP)))
                elif _stat.S_ISREG(mode):
                    prev = reuse.get(source)
                    if prev is not None and prev.sig == sig and prev.fold == fold:
                        lst = prev
                    else:
                        try:
                            data = self.fs.read_bytes(os.path.join(self._abs(rel), name))
                        except OSError as e:
                            # A failed read may be transient (EMFILE, EIO, a race): never
                            # cache its outcome as valid, so the next session reads again.
                            kept[k] = _stale(e.errno)
                            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                                data = None
                            elif e.errno == errno.ELOOP:
                                self._warn(f"unable to access '{source}': {os.strerror(e.errno)}")
                                data = None
                            else:
                                self._warn(f"unable to access '{source}': {os.strerror(e.errno or 0)}")
                                sources.append(SourceInfo(source=source, state="unreadable",
                                                          error=_err_name(e.errno)))
                                if self.config.fail_closed and stop is None:
                                    stop = Match(ignored=True, fail_closed=True, unreadable=source)
                                data = None
                        if data is not None:
                            lst = IgnoreList.from_bytes(source, base_view, data, fold, sig)
            elif isinstance(sig, str):
                # lstat failed with something other than ENOENT: cannot tell; fail closed.
                self._warn(f"unable to access '{source}': "  # i17: strerror, as git
                           f"{os.strerror(getattr(errno, sig[6:], 0))}")
                sources.append(SourceInfo(source=source, state="unreadable", error=sig[6:]))
                if self.config.fail_closed and stop is None:
                    stop = Match(ignored=True, fail_closed=True, unreadable=source)
            if lst is not None:
                lists.append(lst)
                sources.append(SourceInfo(source=source, state="read", rules=len(lst)))
            if extra is not None and k == last_agent_idx:
                # appended lines: a list right after the file, numbered after its last line
                first = (lst.nlines + 1) if lst is not None else 1
                lists.append(IgnoreList.from_strings(source, base_view, list(extra), fold, first))
        return _Dir(rel, parent, stop, tuple(lists), tuple(kept), tuple(sources))


def _decide(chain: tuple[IgnoreList, ...], path: str, name: str, is_dir: bool | None,
            lstat_isdir: Callable[[], bool]) -> Pattern | None:
    """``last_matching_pattern_from_lists`` over a chain (views already folded)."""
    for lst in chain:
        base = lst.base
        rel = path[len(base):] if base else path
        if is_dir is False:
            r = lst.ftab.best(name, rel)
        else:
            # the dir table is a superset: its best rule decides unless it is dir-only
            r = lst.dtab.best(name, rel)
            if r >= 0 and is_dir is None and lst.patterns[r].dir_only:
                is_dir = lstat_isdir()
                if not is_dir:
                    r = lst.ftab.best(name, rel)
        if r >= 0:
            return lst.patterns[r]
    return None


class IgnoreSession:
    """One call's view of an :class:`IgnoreIndex` (not shared between threads)."""

    def __init__(self, index: IgnoreIndex, *, extra: Mapping[str, Sequence[str]] | None = None
                 ) -> None:
        self._index = index
        self._extra = extra
        g = index._current_globals()
        self._globals = g
        self._fold = g.fold
        self._dirs: dict[str, _Dir] = {}
        self._fs = index.fs
        self._root = index.root
        self._root_node = self._make_root()

    # -- public ------------------------------------------------------------------------

    @property
    def index(self) -> IgnoreIndex:
        return self._index

    @property
    def ignore_case(self) -> bool:
        return self._fold

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """Decide one path. ``is_dir=None``: lstat it (a symlink is not a directory)."""
        if not relpath:
            return NO_MATCH
        parent_rel, _, name = relpath.rpartition("/")
        node = self._dirs.get(parent_rel)
        if node is None:
            node = self._dir(parent_rel)
        if node.stop is not None:
            return node.stop
        return self._match_in(node, relpath, name, is_dir)

    def match_pathspec(self, path: str) -> Match:
        """``git check-ignore``'s decision for a normalized path that may be ``""`` or end
        with ``/`` (then every component is tested as a directory and the final test runs
        with an empty basename, exactly as git's ``last_matching_pattern``)."""
        if not path.endswith("/"):
            return self.match(path)
        dirpart = path[:-1]
        node = self._dir(dirpart)
        if node.stop is not None:
            return node.stop
        if not node.chain:
            return NO_MATCH
        path_v, _ = self._views(path, "")
        pt = _decide(node.chain, path_v, "", None, lambda: self._lstat_isdir(path))
        return NO_MATCH if pt is None else pt.match

    def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                         is_dir: bool | None = None) -> Match:
        """Decide as if ``extra[d]`` lines were appended to directory ``d``'s last agent
        ignore file (in memory; nothing written). Used to verify remedies."""
        return IgnoreSession(self._index, extra=dict(extra)).match(relpath, is_dir)

    def sources(self, relpath: str) -> list[str]:
        """The ignore sources consulted for ``relpath``, lowest precedence first."""
        return [s.source for s in self.source_infos(relpath)]

    def source_infos(self, relpath: str) -> list[SourceInfo]:
        """Like :meth:`sources`, with each source's state (read, unreadable, symlink)."""
        parent_rel = relpath.rpartition("/")[0] if relpath else ""
        nodes: list[_Dir] = []
        node: _Dir | None = self._dir(parent_rel)
        if node is not None and node.stop is not None and node.stop.ancestor is not None:
            node = self._dir(node.stop.ancestor).parent
        while node is not None:
            nodes.append(node)
            node = node.parent
        out: list[SourceInfo] = []
        for n in reversed(nodes):
            out.extend(n.sources)
        return out

    def is_dir_excluded(self, reldir: str) -> Match | None:
        """The excluded-directory match covering ``reldir`` (itself or an ancestor), or
        ``None`` when walking into it is allowed."""
        node = self._dir(reldir)
        if node.stop is not None:
            return node.stop
        return None

    def explain(self, relpath: str, is_dir: bool | None = None) -> Explanation:
        """The decision plus every source consulted and every rule that matches."""
        m = self.match(relpath, is_dir)
        ancestors: list[tuple[str, Match]] = []
        parts = relpath.split("/")[:-1] if relpath else []
        cur = ""
        for part in parts:
            cur = f"{cur}/{part}" if cur else part
            am = self._dir(cur).stop
            if am is not None and am.ancestor == cur:
                ancestors.append((cur, am))
                break
            if am is not None:
                break
            parent_rel = cur.rpartition("/")[0]
            pm = self._match_in(self._dir(parent_rel), cur, part, True)
            ancestors.append((cur, pm))
        matching: list[Rule] = []
        parent_rel, _, name = relpath.rpartition("/")
        node = self._dir(parent_rel)
        if node.stop is None:
            path_v, name_v = self._views(relpath, name)
            isd = is_dir
            if isd is None:
                isd = self._lstat_isdir(relpath)
            for lst in node.chain:
                rel = path_v[len(lst.base):] if lst.base else path_v
                for pt in reversed(lst.patterns):
                    if pt.dir_only and not isd:
                        continue
                    if pt.matches(name_v, rel):
                        matching.append(pt.rule)
        return Explanation(relpath=relpath, match=m,
                           sources=tuple(self.source_infos(relpath)),
                           matching=tuple(matching), ancestors=tuple(ancestors))

    # -- internals (also used by the walker) --------------------------------------------

    def _views(self, path: str, name: str) -> tuple[str, str]:
        if path.isascii():
            if self._fold:
                return path.lower(), name.lower()
            return path, name
        pv = os.fsencode(path)
        nv = os.fsencode(name)
        if self._fold:
            pv = pv.lower()
            nv = nv.lower()
        return pv.decode("latin-1"), nv.decode("latin-1")

    def _lstat_isdir(self, relpath: str) -> bool:
        try:
            st = self._fs.lstat(os.path.join(self._root, relpath))
        except OSError:
            return False
        return _stat.S_ISDIR(st.st_mode)

    def _match_in(self, node: _Dir, relpath: str, name: str, is_dir: bool | None) -> Match:
        """Decide an entry of allowed directory ``node``."""
        chain = node.chain
        if not chain:
            return NO_MATCH
        if relpath.isascii() and not self._fold:
            path_v, name_v = relpath, name
        else:
            path_v, name_v = self._views(relpath, name)
        pt = _decide(chain, path_v, name_v, is_dir, lambda: self._lstat_isdir(relpath))
        return NO_MATCH if pt is None else pt.match

    def _make_root(self) -> _Dir:
        g = self._globals.node
        if g.stop is not None:
            node = _Dir("", g, g.stop, (), (), ())
            self._dirs[""] = node
            return node
        return self._dir("")

    def _dir(self, rel: str, present: frozenset[str] | None = None) -> _Dir:
        """The validated node of directory ``rel`` (or the node that stops above it).

        Iterative, so any depth works: find the deepest ancestor this session already
        validated, then validate or build the missing directories top down. ``present``
        (which ignore files exist) describes ``rel`` itself only.
        """
        dirs = self._dirs
        node = dirs.get(rel)
        if node is not None:
            return node
        missing = [rel]
        cur = rel
        parent: _Dir | None = None
        while cur:
            cur = cur.rpartition("/")[0]
            parent = dirs.get(cur)
            if parent is not None:
                break
            missing.append(cur)
        if parent is None:  # not even the root yet (only while the session starts)
            parent = self._globals.node
        for r in reversed(missing):
            if r and parent.stop is not None:
                dirs[r] = parent  # excluded or fail-closed above: it decides everything below
                continue
            parent = self._child(parent, r, r.rpartition("/")[2], None,
                                 present if r == rel else None)
            dirs[r] = parent
        return parent

    def _child(self, parent: _Dir, rel: str, name: str, decided: Match | None,
               present: frozenset[str] | None) -> _Dir:
        """Validate or build the node of ``rel`` (an entry of allowed ``parent``)."""
        index = self._index
        extra = self._extra
        cached = index._lookup(rel) if extra is None else None
        if cached is not None and cached.parent is parent:
            if cached.stop is not None and cached.stop.ancestor == rel:
                return cached
            if cached.stop is None or cached.stop.fail_closed:
                sigs = index._own_sigs(rel, present)
                if sigs == cached.sigs:
                    return cached
        # decide the directory itself against its parent's chain
        if rel:
            m = decided if decided is not None else self._match_in(parent, rel, name, True)
            if m.ignored:
                node = _Dir(rel, parent, Match(ignored=True, rule=m.rule, ancestor=rel), (), (), ())
                if extra is None:
                    index._store(node)
                return node
        sigs = index._own_sigs(rel, present)
        node = index._read_own(rel, parent, sigs, self._fold, cached,
                               extra.get(rel) if extra is not None else None)
        if extra is None:
            index._store(node)
        return node

    def _enter(self, rel: str, parent: _Dir, name: str, decided: Match,
               present: frozenset[str] | None) -> _Dir:
        """Walker hook: the node of an allowed child directory whose decision is known."""
        node = self._dirs.get(rel)
        if node is None:
            node = self._child(parent, rel, name, decided, present)
            self._dirs[rel] = node
        return node
