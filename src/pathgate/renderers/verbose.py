"""The ``verbose`` renderer: the sentinel, then ``": "`` and a short explanation.

Written for models (SPEC §3): a few short sentences, one idea each, nothing the tool
description already says. An ignore block names the rule that decided (like
``git check-ignore -v``), says it is not an operating-system permission problem, claims the
file exists only when a stat confirmed it, hedges when an ignore file could not be read, and
gives the verified lines that would re-include the path. Opaque verdicts stay the bare
``[BLOCKED]``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pathgate.renderers._base import (
    READ_FILES_DESCRIPTION,
    format_size,
    is_opaque,
    render_text_read,
)
from pathgate.verdicts import GIT_INTERNALS, MAKES_GIT_DIR, POLICY_FILE, FileResult, Gate, Rule, Status, Verdict

__all__ = ["VerboseRenderer"]

_DISCOVERY = "The glob, list_directory and code_search tools leave it out too."
_NOT_PERMISSION = "This is not an operating-system permission problem."
_EXISTS = "It exists on disk."
_ANCESTOR_CAVEAT = "A file-level negation cannot re-include a file below an excluded directory."
# The excluded directory is the project root or above it (``.``, ``..``): no line the agent
# can write re-includes it, and the rule's file is outside what it may edit.
_ABOVE_ROOT = "That directory is the project root or above it: ask the user to change that rule."
# Only routes that succeed on a file over the limit: read_files streams a line window of it.
# (code_search is not suggested: whether it searches oversize files, and up to what size,
# is its own cap.)
_WINDOW_HINT = "Read a line window of it with read_files offset and limit."
_DEEP_WINDOW = "A line window of it must start within the first {scan}."
_REST_HINT = "Read the rest with read_files offset and limit."
_POLICY_FILE = ("It is one of the files that decide what agents may do (pathgate's settings, an agent "
                "ignore file, an agent's hook or MCP settings, git's configuration or hooks): agents cannot "
                "change them. Ask the user to edit it.")
_MAKES_GIT_DIR = ("Writing it would make a directory a git repository (a `HEAD` file with `objects/` and "
                  "`refs/`, or `commondir`), whose configuration git would then obey: agents cannot create "
                  "one. Ask the user to make this change.")
_CHANGED = ("The file changed since you last read it, so nothing was written. Read it again with "
            "read_files and redo the change on its current content.")
_NOT_READ = ("You have not read this file, so nothing was written: overwriting it could lose changes "
             "you have not seen. Read it with read_files first, then retry.")


#: ``Verdict.detail`` of a discovery tool's ``[NOT_A_FILE]`` when its ``path`` is a file.
NOT_A_DIRECTORY = "not a directory"
_GIT_TEXT = ("It is inside git's internal directory (`.git`), which is never served, whatever the "
             "ignore rules say. Nothing unblocks it.")


def _rule_text(rule: Rule) -> str:
    if rule.is_builtin:
        return f"the built-in default `{rule.pattern}`"
    return f"`{rule.location()}`"


class VerboseRenderer:
    """Sentinel plus explanation.

    Options: ``discovery_note`` (the sentence saying discovery tools omit ignored paths) and
    ``window_hint`` (the next step for a file over the size limit), for hosts whose tools
    have other names.
    """

    name = "verbose"
    read_files_description = READ_FILES_DESCRIPTION

    def __init__(self, *, discovery_note: str = _DISCOVERY, window_hint: str = _WINDOW_HINT,
                 rest_hint: str = _REST_HINT) -> None:
        self._discovery = discovery_note
        self._window_hint = window_hint
        self._rest_hint = rest_hint
        self._explain: Mapping[Status, Callable[[Verdict], str]] = {
            Status.BLOCKED: self._blocked,
            Status.FILE_DOES_NOT_EXIST: lambda v: "No file exists at this path.",
            Status.NOT_A_FILE: lambda v: (
                "It is a file, not a directory." if v.detail == NOT_A_DIRECTORY
                else "It is a directory or a special file, not a regular file."
            ),
            Status.FILE_OUTSIDE_PROJECT: lambda v: "It resolves outside the project root.",
            Status.FILE_TOO_LARGE: self._too_large,
            Status.FILE_READ_ERROR: self._read_error,
            Status.BINARY_FILE: lambda v: "It holds binary content that cannot be shown as text.",
            # write_file / edit_file only
            Status.FILE_CHANGED_SINCE_READ: lambda v: _CHANGED,
            Status.FILE_NOT_READ: lambda v: _NOT_READ,
            Status.FILE_WRITE_ERROR: lambda v: (
                f"The file could not be written ({v.detail}); nothing was changed." if v.detail
                else "The file could not be written; nothing was changed."),
        }

    def render_read(self, results: Sequence[FileResult], /) -> dict[str, str]:
        return render_text_read(results, self._text, self._truncated)

    def render_verdict(self, path: str, verdict: Verdict, /) -> str:
        return self._text(verdict)

    def output_schema(self) -> None:
        return None

    def _text(self, verdict: Verdict) -> str:
        if is_opaque(verdict):
            return Status.BLOCKED.sentinel
        explain = self._explain.get(verdict.status)
        if explain is None:
            return verdict.status.sentinel
        return f"{verdict.status.sentinel}: {explain(verdict)}"

    def _blocked(self, v: Verdict) -> str:
        if v.gate is Gate.WRITE and v.detail == POLICY_FILE:
            return _POLICY_FILE
        if v.gate is Gate.WRITE and v.detail == MAKES_GIT_DIR:
            return _MAKES_GIT_DIR
        if v.gate is Gate.PATH and v.detail == GIT_INTERNALS:
            return _GIT_TEXT
        if v.gate is not Gate.IGNORE:
            return f"Blocked by the {v.gate.value} check."
        if v.fail_closed:
            return self._fail_closed(v)
        if v.rule is None:
            reason = "Excluded by ignore rules."
        elif v.ancestor is not None:
            reason = f"Excluded by ignore rules: its directory `{v.ancestor}/` matches {_rule_text(v.rule)}."
        else:
            reason = f"Excluded by ignore rules: {_rule_text(v.rule)} matches it."
        parts = [reason, _NOT_PERMISSION]
        if v.exists is True:
            parts.append(_EXISTS)
        parts.append(self._discovery)
        if v.ancestor is not None:
            parts.append(_ANCESTOR_CAVEAT)
            if v.ancestor in (".", "..") or v.ancestor.startswith("../"):
                parts.append(_ABOVE_ROOT)
        text = " ".join(parts)
        if v.remedy is not None and v.remedy.lines:
            text += f" To unblock it, add these lines to `{v.remedy.file}`:\n" + "\n".join(v.remedy.lines)
        return text

    def _fail_closed(self, v: Verdict) -> str:
        if v.unreadable is not None:
            parts = [f"Blocked by ignore-rule checking: the ignore file `{v.unreadable}` could not be read.",
                     "The paths it governs stay withheld until it can be read."]
        else:
            parts = ["Blocked by ignore-rule checking: an ignore file could not be read.",
                     "The paths it governs stay withheld until it can be read."]
        if v.exists is True:
            parts.append(_EXISTS)
        parts.append(self._discovery)
        return " ".join(parts)

    def _too_large(self, v: Verdict) -> str:
        if v.detail == "window" and v.limit is not None:
            return f"{_DEEP_WINDOW.format(scan=format_size(v.limit))} The file is larger than that."
        if v.detail == "content" and v.size is not None and v.limit is not None:
            return (f"The new content is {format_size(v.size)}; the limit is {format_size(v.limit)}. "
                    "Nothing was written; write a smaller file.")
        if v.size is not None and v.limit is not None:
            facts = f"The file is {format_size(v.size)}; the limit is {format_size(v.limit)}."
        elif v.limit is not None:
            facts = f"The file is over the {format_size(v.limit)} limit."
        else:
            facts = "The file is over the size limit."
        return f"{facts} {self._window_hint}"

    @staticmethod
    def _read_error(v: Verdict) -> str:
        return f"The file could not be read ({v.detail})." if v.detail else "The file could not be read."

    def _truncated(self, result: FileResult, verdict: Verdict) -> str:
        parts = ["Cut here to fit this call's output budget."]
        if result.total_lines is not None:
            parts.append(f"The file has {result.total_lines} lines.")
        parts.append(self._rest_hint)
        return f"{verdict.status.sentinel}: " + " ".join(parts)
