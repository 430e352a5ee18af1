"""Raw results of the discovery tools (``glob``, ``list_directory``, ``code_search``) and of
the write tools (``write_file``, ``edit_file``).

Like verdicts, these are data: renderers turn them into what a model reads. Each result says
what it left out and why (``omitted``, ``unsearched``), counting only non-opaque gates: a
secret or a host-filtered path is never listed, never counted and never given as an example.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from pathgate.verdicts import Gate, Rule, Verdict

__all__ = [
    "DirEntry",
    "GlobResult",
    "ListResult",
    "Omission",
    "OmissionUnit",
    "SearchHit",
    "SearchResult",
    "Unsearched",
    "WriteResult",
]

EntryKind = Literal["file", "dir", "symlink", "other"]


#: What an :class:`Omission` counts: ``"matches"`` (glob: paths that match the pattern),
#: ``"entries"`` (list_directory: names in the directory), ``"files"`` (code_search: files
#: that were not searched, whether or not they hold a hit).
OmissionUnit = Literal["matches", "entries", "files"]


class Omission(msgspec.Struct, frozen=True, kw_only=True):
    """``count`` items left out by ``gate`` (never an opaque gate), with up to 3 examples.

    ``unit`` says what was counted: glob counts ``matches`` (paths that match the pattern),
    list_directory ``entries``, code_search ``files`` not searched (nothing is claimed about
    their content: they are not "matches"). ``lower_bound`` is true when counting stopped at
    the work budget (the real number is at least ``count``). ``fail_closed``: these were
    withheld because an ignore file that governs them could not be read (no rule is claimed
    to match them).
    """

    gate: Gate
    count: int
    examples: tuple[str, ...] = ()
    lower_bound: bool = False
    fail_closed: bool = False
    unit: Annotated[OmissionUnit, msgspec.Meta(
        description="what count counts: matches (glob), entries (list_directory), "
                    "files not searched (code_search)")] = "matches"


class Unsearched(msgspec.Struct, frozen=True, kw_only=True):
    """A directory the walk did not enter although it could hold matches: excluded by
    ignore rules (``rule``, ``fail_closed``), or not enterable (``error``: the errno name,
    e.g. ``EACCES``, ``ENAMETOOLONG``)."""

    path: str
    rule: Rule | None = None
    fail_closed: bool = False
    error: str | None = None


class DirEntry(msgspec.Struct, frozen=True):
    name: str
    kind: EntryKind


class GlobResult(msgspec.Struct, frozen=True, kw_only=True):
    """``matches`` are project-relative (ready for ``read_files``), sorted, and matched
    against ``pattern`` relative to ``path``; ``total`` counts them before ``limit``
    cut them (``truncated``). ``verdict`` is set when ``path`` itself was blocked."""

    pattern: str
    path: str
    matches: tuple[str, ...]
    total: int = 0
    truncated: bool = False
    limit: int | None = None
    omitted: tuple[Omission, ...] = ()
    unsearched: tuple[Unsearched, ...] = ()
    walk_stopped_early: bool = False
    verdict: Verdict | None = None


class ListResult(msgspec.Struct, frozen=True, kw_only=True):
    """The visible entries of ``path``, sorted by name, up to ``limit``; ``total`` counts
    them before ``limit`` cut them (``truncated``). Entries hidden by non-opaque gates are
    summarised in ``omitted`` (count and names). ``verdict``: ``path`` was blocked."""

    path: str
    entries: tuple[DirEntry, ...]
    omitted: tuple[Omission, ...] = ()
    verdict: Verdict | None = None
    total: int = 0
    truncated: bool = False
    limit: int | None = None


class SearchHit(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    line: int
    text: str
    context_before: tuple[str, ...] = ()
    context_after: tuple[str, ...] = ()


class SearchResult(msgspec.Struct, frozen=True, kw_only=True):
    """Hits in path order, then line order (paths relative to the project root).
    ``truncated``: more hits exist; ``output_budget`` is set (characters) when the call's
    output budget cut them, else ``limit`` (``max_results``) did. ``time_limit`` is set
    (seconds, ``Policy.search_seconds``) when the search stopped at its time limit:
    ``files_not_searched`` files were then not searched, or not to their end (not counted in
    ``files_searched``; nothing is claimed about what they hold). ``verdict``: the search
    directory itself was blocked."""

    regex: str
    path: str
    hits: tuple[SearchHit, ...]
    files_searched: int = 0
    truncated: bool = False
    limit: int | None = None
    skipped_binary: int = 0
    skipped_too_large: int = 0
    skipped_unreadable: int = 0
    omitted: tuple[Omission, ...] = ()
    unsearched: tuple[Unsearched, ...] = ()
    walk_stopped_early: bool = False
    verdict: Verdict | None = None
    output_budget: Annotated[int | None, msgspec.Meta(
        description="set (characters) when the call's output budget cut the hits")] = None
    time_limit: Annotated[float | None, msgspec.Meta(
        description="set (seconds of searching) when the call's time limit stopped the search")] = None
    files_not_searched: Annotated[int, msgspec.Meta(
        description="files the time limit left unsearched (or not searched to their end)")] = 0


WriteTool = Literal["write_file", "edit_file"]


class WriteResult(msgspec.Struct, frozen=True, kw_only=True):
    """The raw result of ``write_file`` / ``edit_file`` for one path.

    ``path`` is the spelling the caller used; ``relpath`` the real project-relative path
    written (``None`` when blocked opaquely or outside). Exactly one outcome: ``verdict`` is
    ``None`` and the file now holds the new content (``created``: it did not exist before;
    ``size``: bytes written; ``replacements``: occurrences ``edit_file`` replaced), or
    ``verdict`` says why nothing was written (the file is untouched).
    """

    tool: WriteTool
    path: str
    relpath: str | None = None
    verdict: Verdict | None = None
    created: bool = False
    size: int = 0
    replacements: int = 0

    @property
    def ok(self) -> bool:
        return self.verdict is None
