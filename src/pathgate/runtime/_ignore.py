"""THE ignore engine (API skeleton: the implementation lands with issue 2).

Contract used by the gates, the walker, the renderers' remedy verification and the CLI.
Paths are project-relative POSIX ``str`` (surrogate-escaped on undecodable bytes), without
a leading ``./`` or a trailing ``/``; ``""`` is the project root.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import msgspec

from pathgate.runtime._fs import OsFS, SyncFS
from pathgate.verdicts import Rule

# The documented built-in default ignore list (lowest precedence; "<built-in>" source).
DEFAULT_IGNORES: tuple[str, ...] = ()


class IgnoreConfig(msgspec.Struct, frozen=True, kw_only=True):
    """Which ignore sources apply.

    * ``defaults``: built-in patterns (lowest precedence).
    * ``agent_files``: per-directory agent ignore file names, read right after ``.gitignore``
      in the same directory (so they win over it), in this order.
    * ``git_sources``: read ``.git/info/exclude`` and ``core.excludesFile``.
    * ``excludes_file``: explicit ``core.excludesFile`` (``None``: found as git finds it).
    * ``ignore_case``: ASCII case folding (``None``: the repository's ``core.ignoreCase``).
    * ``cache_dirs``: LRU bound on cached directories.
    """

    defaults: tuple[str, ...] = DEFAULT_IGNORES
    agent_files: tuple[str, ...] = (".pathgateignore",)
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    cache_dirs: int = 16384

    @classmethod
    def git_only(cls, **overrides: object) -> IgnoreConfig:
        """git's own sources only: no built-in defaults, no agent ignore files."""
        raise NotImplementedError


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


class IgnoreIndex:
    """Per-root cache of compiled per-directory matchers, shared by all callers."""

    def __init__(self, root: str | os.PathLike[str], config: IgnoreConfig | None = None,
                 *, fs: SyncFS | None = None) -> None:
        self.root = os.path.realpath(root)
        self.config = config or IgnoreConfig()
        self.fs: SyncFS = fs or OsFS()

    def session(self) -> IgnoreSession:
        """A per-call view: each ignore file's stat signature is checked at most once."""
        raise NotImplementedError

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """One decision in a fresh session."""
        return self.session().match(relpath, is_dir)


class IgnoreSession:
    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """Decide one path. ``is_dir=None``: lstat it (a symlink is not a directory)."""
        raise NotImplementedError

    def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                         is_dir: bool | None = None) -> Match:
        """Decide as if ``extra[d]`` lines were appended to directory ``d``'s last agent
        ignore file (in memory; nothing written). Used to verify remedies."""
        raise NotImplementedError

    def sources(self, relpath: str) -> list[str]:
        """The ignore sources consulted for ``relpath``, lowest precedence first."""
        raise NotImplementedError
