"""The data every gate returns and every renderer reads.

Gates never format text: a block is a frozen :class:`Verdict` pointing at immutable
:class:`Rule` records. Only renderers (``pathgate.renderers``) turn verdicts into what a
model reads.

Statuses keep the legacy sentinel contract: every status text starts with its bracketed
sentinel, so hosts that match with ``startswith`` keep working.
"""

from __future__ import annotations

import enum

import msgspec

__all__ = [
    "WRITE_STATUSES",
    "FileResult",
    "Gate",
    "Remedy",
    "Rule",
    "Status",
    "Verdict",
]


class Status(enum.Enum):
    """The outcome of one path. The value is the legacy sentinel string."""

    OK = "[OK]"
    BLOCKED = "[BLOCKED]"
    FILE_DOES_NOT_EXIST = "[FILE_DOES_NOT_EXIST]"
    NOT_A_FILE = "[NOT_A_FILE]"
    FILE_OUTSIDE_PROJECT = "[FILE_OUTSIDE_PROJECT]"
    FILE_TOO_LARGE = "[FILE_TOO_LARGE]"
    FILE_READ_ERROR = "[FILE_READ_ERROR]"
    BINARY_FILE = "[BINARY_FILE]"
    # write_file / edit_file only (see WRITE_STATUSES)
    FILE_CHANGED_SINCE_READ = "[FILE_CHANGED_SINCE_READ]"
    FILE_NOT_READ = "[FILE_NOT_READ]"
    FILE_WRITE_ERROR = "[FILE_WRITE_ERROR]"

    @property
    def sentinel(self) -> str:
        """The bracketed sentinel, e.g. ``"[BLOCKED]"``."""
        return self.value

    @property
    def code(self) -> str:
        """A lower-case identifier for structured output, e.g. ``"blocked"``."""
        return self.name.lower()


class Gate(enum.Enum):
    """The gates of SPEC §2, in the order they run. The value is the gate's name
    (its module name, span attribute value and config key). ``WRITE`` decides only for
    ``write_file`` / ``edit_file``: never-writable targets (``.git`` internals, opaque), the
    no-lost-update check and the write itself."""

    PATH = "path"
    SECRETS = "secrets"
    HOST_FILTER = "host_filter"
    IGNORE = "ignore"
    EXISTENCE = "existence"
    SIZE = "size"
    READ = "read"
    WRITE = "write"


#: Statuses only ``write_file`` / ``edit_file`` give (never a read or a discovery tool):
#: the agent's last read of the file is older than the file (``FILE_CHANGED_SINCE_READ``),
#: it never read it (``FILE_NOT_READ``), or the write itself failed (``FILE_WRITE_ERROR``).
WRITE_STATUSES: frozenset[Status] = frozenset(
    {Status.FILE_CHANGED_SINCE_READ, Status.FILE_NOT_READ, Status.FILE_WRITE_ERROR}
)


class Rule(msgspec.Struct, frozen=True):
    """One ignore rule, with its provenance (like ``git check-ignore -v``).

    ``source`` is the ignore file as git prints it (relative to the project root, e.g.
    ``.gitignore``, ``pkg/.gitignore``, ``.git/info/exclude``; the excludes file as given),
    or ``"<built-in>"`` for pathgate's default list. ``line`` is 1-based (the position in the
    built-in list for defaults). ``pattern`` is the line as git prints it, with a leading
    ``!`` when ``negated``.
    """

    source: str
    line: int
    pattern: str
    negated: bool = False

    @property
    def is_builtin(self) -> bool:
        return self.source == BUILTIN_SOURCE

    def location(self) -> str:
        """``source:line:pattern``, as ``git check-ignore -v`` prints it."""
        return f"{self.source}:{self.line}:{self.pattern}"


BUILTIN_SOURCE = "<built-in>"

#: ``Verdict.detail`` of the path gate's block on git internals (``.git/``: never served).
GIT_INTERNALS = "git_internals"
#: ``Verdict.detail`` of the write gate's block on pathgate's own policy files.
POLICY_FILE = "policy file"
#: ``Verdict.detail`` of the write gate's block on a write that would make a directory a git
#: directory (git would then read the configuration an agent wrote).
MAKES_GIT_DIR = "makes git directory"


class Remedy(msgspec.Struct, frozen=True):
    """Verified lines that would unblock an ignore block.

    ``file`` is the agent ignore file to append to (project-relative, e.g. ``.pathgateignore``
    or ``pkg/.pathgateignore``); ``lines`` were checked against the real rule chain (appended
    in memory) and make exactly the blocked path readable. ``ancestor`` is set when an
    excluded ancestor directory made a file-level negation useless.
    """

    file: str
    lines: tuple[str, ...]
    ancestor: str | None = None


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """Why one path was not returned as content.

    * ``status`` and ``gate``: what happened and which gate decided.
    * ``opaque``: a secret or host-filter decision. Renderers show only the bare
      ``[BLOCKED]`` sentinel for opaque verdicts, never a reason, gate or existence.
    * ``rule``: the ignore rule that decided (``None`` for fail-closed or non-ignore blocks).
    * ``ancestor``: when an excluded ancestor directory decided, its project-relative path
      (without trailing slash); ``rule`` is then that directory's rule.
    * ``exists``: ``True`` only when a stat confirmed the file exists; ``None`` = no claim.
    * ``fail_closed`` / ``unreadable``: an ignore file could not be read, so the path was
      blocked without any rule matching; ``unreadable`` names that file.
    * ``size`` / ``limit``: for size blocks (bytes).
    * ``remedy``: verified lines that would unblock an ignore block (never for opaque ones).
    * ``detail``: a short non-secret fact for operators (e.g. an errno name).
    """

    status: Status
    gate: Gate
    opaque: bool = False
    rule: Rule | None = None
    ancestor: str | None = None
    exists: bool | None = None
    fail_closed: bool = False
    unreadable: str | None = None
    size: int | None = None
    limit: int | None = None
    remedy: Remedy | None = None
    detail: str | None = None


class FileResult(msgspec.Struct, frozen=True, kw_only=True):
    """The raw result for one requested path of ``read_files``.

    ``path`` is the spelling the caller used. Exactly one of ``content`` and ``verdict``
    is set, except when a budget truncated the content: then ``content`` holds the part
    that fit and ``verdict`` is a ``FILE_TOO_LARGE`` notice with ``truncated=True``.

    ``same_as``: this path names a file an earlier path of the same call already returned
    (``a`` twice, ``./a`` after ``a``); it carries no content (read and charged once) and
    refers to that earlier path.
    """

    path: str
    content: str | None = None
    verdict: Verdict | None = None
    relpath: str | None = None
    truncated: bool = False
    total_lines: int | None = None
    same_as: str | None = None

    @property
    def ok(self) -> bool:
        return self.verdict is None
