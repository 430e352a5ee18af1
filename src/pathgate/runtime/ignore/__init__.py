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
* **A root below the top of its work tree** (an agent started in one package of a
  monorepo): the ``.gitignore`` files from the top down to the root's parent come after the
  root's own lists and before the repository-wide ones, each line translated once into
  root-relative lines; an excluded directory at or above the root excludes everything
  (:mod:`._upper`).
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
  Each line is classified once by :func:`compile_pattern`; literal lines become dictionary
  keys or suffix tests, the rest regexes translated and compiled on first use, up to 64
  per regex in reverse line order (the first alternative that matches is the last line
  that matches); past 64, a list's globs are indexed by the literal prefix or suffix every
  match has, so a path compiles and runs only the rules it could match (``_groups.py``):
  a 50,000-line file costs ~0.5 s, not ~15 s.
* **Bounded time.** Consecutive ``**/`` components collapse in the regex (``**/**/`` is
  ``**/``, by a regular-language identity). A line that still has 3 or more runs of ``*``
  (which a backtracking regex could take O(n^k) on) is matched by :class:`Wildmatch`
  instead: git's ``dowild`` ported with its early aborts, memoized per call (polynomial,
  where git itself is exponential on ``**/**/…``) and free of Python recursion. A
  hypothesis test holds the port and the regexes equal; both are checked against git.

The cache
=========

Like ripgrep's ``ignore`` crate (``dir.rs``), every directory gets an immutable
:class:`DirNode` linked to its parent; adding a child never mutates a parent, so concurrent
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

from pathgate.runtime.ignore._index import DEFAULT_IGNORES, DirNode, IgnoreConfig, IgnoreIndex, SourceInfo
from pathgate.runtime.ignore._rules import NO_MATCH, IgnoreList, Match, Pattern, compile_pattern, parse_lines
from pathgate.runtime.ignore._session import Explanation, IgnoreSession
from pathgate.runtime.ignore._wildmatch import WILD_STAR_RUNS, Wildmatch, star_runs, translate_wildmatch

__all__ = [
    "DEFAULT_IGNORES",
    "NO_MATCH",
    "WILD_STAR_RUNS",
    "DirNode",
    "Explanation",
    "IgnoreConfig",
    "IgnoreIndex",
    "IgnoreList",
    "IgnoreSession",
    "Match",
    "Pattern",
    "SourceInfo",
    "Wildmatch",
    "compile_pattern",
    "parse_lines",
    "star_runs",
    "translate_wildmatch",
]
