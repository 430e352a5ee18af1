"""The ``structured`` renderer: JSON-ready objects with a published JSON Schema.

One object per requested path, in request order, tagged by ``status`` (the status's
lower-case code: ``"ok"``, ``"blocked"``, ``"file_too_large"``, ...). A non-opaque block
carries the facts a renderer may show: the gate, the deciding rule, the excluded ancestor,
whether the file exists, whether the decision was fail-closed (and the unreadable file),
size and limit, and the verified remedy lines. An opaque block is only
``{"path": ..., "status": "blocked"}``.

:func:`read_files_output_schema` is the JSON Schema of the whole result
(``{"files": [...]}``), with an object root so MCP clients accept it as a tool's
``outputSchema``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from pathgate.renderers._base import STATUS_MEANINGS, is_opaque
from pathgate.verdicts import GIT_INTERNALS, FileResult, Gate, Status, Verdict

__all__ = [
    "STRUCTURED_READ_FILES_DESCRIPTION",
    "BinaryFile",
    "Blocked",
    "FileContent",
    "FileDoesNotExist",
    "FileEntry",
    "FileOutsideProject",
    "FileReadError",
    "FileTooLarge",
    "NotAFile",
    "ReadFilesOutput",
    "RemedyInfo",
    "RuleInfo",
    "StructuredRenderer",
    "read_files_output_schema",
]


class RuleInfo(msgspec.Struct, frozen=True, kw_only=True):
    """The ignore rule that decided, as ``git check-ignore -v`` names it. ``source`` is the
    ignore file (project-relative) or ``"<built-in>"`` for pathgate's default list."""

    source: str
    line: int
    pattern: str


class RemedyInfo(msgspec.Struct, frozen=True, kw_only=True):
    """Verified lines to append to ``file`` (an agent ignore file, project-relative) that would
    re-include exactly this path; ``ancestor`` names the excluded directory they work around."""

    file: str
    lines: list[str]
    ancestor: str | None = None


class _Entry(msgspec.Struct, frozen=True, kw_only=True, tag_field="status"):
    path: str


class FileContent(_Entry, frozen=True, kw_only=True, tag="ok"):
    """A readable file. ``truncated``: the content was cut to fit the call's output budget
    (``limit`` characters); ``total_lines`` is the file's line count, when known.
    ``same_as``: the file was already given under that earlier path of this call (read and
    charged once); ``content`` is then empty."""

    content: str
    truncated: bool = False
    total_lines: int | None = None
    limit: int | None = None
    same_as: str | UnsetType = UNSET


class Blocked(_Entry, frozen=True, kw_only=True, tag="blocked"):
    """A withheld path. When only ``path`` and ``status`` are present the block is final and
    no reason can be given. Otherwise it is an ignore block: ``rule`` decided (for
    ``ancestor``, the excluded directory's rule); ``exists`` is ``true`` only when a stat
    confirmed the file (``null``: unknown); ``fail_closed`` means an ignore file
    (``unreadable``) could not be read and no rule matched; ``remedy`` holds verified lines
    to append to ``remedy.file`` that would re-include exactly this path. ``gate = "path"``
    with ``detail = "git_internals"``: the path is inside git's internal directory, which is
    never served; nothing unblocks it."""

    gate: Gate | UnsetType = UNSET
    detail: str | UnsetType = UNSET
    rule: RuleInfo | UnsetType | None = UNSET
    ancestor: str | UnsetType | None = UNSET
    exists: bool | UnsetType | None = UNSET
    fail_closed: bool | UnsetType = UNSET
    unreadable: str | UnsetType | None = UNSET
    remedy: RemedyInfo | UnsetType | None = UNSET


class FileDoesNotExist(_Entry, frozen=True, kw_only=True, tag="file_does_not_exist"):
    """No file exists at the path."""

    gate: Gate


class NotAFile(_Entry, frozen=True, kw_only=True, tag="not_a_file"):
    """A directory or a special file."""

    gate: Gate


class FileOutsideProject(_Entry, frozen=True, kw_only=True, tag="file_outside_project"):
    """The path resolves outside the project root."""

    gate: Gate


class FileTooLarge(_Entry, frozen=True, kw_only=True, tag="file_too_large"):
    """Over the size limit (bytes); read a line window or use code_search."""

    gate: Gate
    size: int | None = None
    limit: int | None = None


class FileReadError(_Entry, frozen=True, kw_only=True, tag="file_read_error"):
    """The file could not be read; ``detail`` is a short fact such as an errno name."""

    gate: Gate
    detail: str | None = None


class BinaryFile(_Entry, frozen=True, kw_only=True, tag="binary_file"):
    """Binary content that cannot be shown as text."""

    gate: Gate


FileEntry = (FileContent | Blocked | FileDoesNotExist | NotAFile | FileOutsideProject
             | FileTooLarge | FileReadError | BinaryFile)


class ReadFilesOutput(msgspec.Struct, frozen=True, kw_only=True):
    """The ``read_files`` result: one entry per requested path, in request order."""

    files: list[FileEntry]


_SIMPLE: dict[Status, type[FileDoesNotExist | NotAFile | FileOutsideProject | BinaryFile]] = {
    Status.FILE_DOES_NOT_EXIST: FileDoesNotExist,
    Status.NOT_A_FILE: NotAFile,
    Status.FILE_OUTSIDE_PROJECT: FileOutsideProject,
    Status.BINARY_FILE: BinaryFile,
}


def verdict_entry(path: str, verdict: Verdict) -> FileEntry:
    """The structured entry for one blocked path (opaque → ``path`` and ``status`` only)."""
    if is_opaque(verdict):
        return Blocked(path=path)
    status = verdict.status
    if status is Status.BLOCKED and verdict.gate is Gate.PATH and verdict.detail == GIT_INTERNALS:
        return Blocked(path=path, gate=verdict.gate, detail=GIT_INTERNALS)
    if status is Status.BLOCKED:
        rule, remedy = verdict.rule, verdict.remedy
        if verdict.fail_closed:
            remedy = None  # nothing to re-include: no rule matched
        return Blocked(
            path=path,
            gate=verdict.gate,
            rule=None if rule is None else RuleInfo(source=rule.source, line=rule.line,
                                                    pattern=rule.pattern),
            ancestor=verdict.ancestor,
            exists=verdict.exists,
            fail_closed=verdict.fail_closed,
            unreadable=verdict.unreadable,
            remedy=None if remedy is None else RemedyInfo(file=remedy.file, lines=list(remedy.lines),
                                                          ancestor=remedy.ancestor),
        )
    if status is Status.FILE_TOO_LARGE:
        return FileTooLarge(path=path, gate=verdict.gate, size=verdict.size, limit=verdict.limit)
    if status is Status.FILE_READ_ERROR:
        return FileReadError(path=path, gate=verdict.gate, detail=verdict.detail)
    simple = _SIMPLE.get(status)
    if simple is not None:
        return simple(path=path, gate=verdict.gate)
    # A verdict with status OK is a contract breach; withhold rather than guess.
    return Blocked(path=path)


def result_entry(result: FileResult) -> FileEntry:
    """The structured entry for one ``read_files`` result."""
    verdict = result.verdict
    if verdict is None and result.same_as is not None:
        return FileContent(path=result.path, content="", same_as=result.same_as)
    if verdict is None:
        return FileContent(path=result.path, content=result.content or "",
                           total_lines=result.total_lines)
    if result.truncated and result.content is not None and not is_opaque(verdict):
        return FileContent(path=result.path, content=result.content, truncated=True,
                           total_lines=result.total_lines, limit=verdict.limit)
    return verdict_entry(result.path, verdict)


def _strip_keywords(node: Any) -> Any:
    """Drop ``discriminator`` (an OpenAPI keyword): strict-mode Ajv, which MCP clients use to
    validate structured output, rejects unknown keywords. Each branch's ``status`` enum
    already tells the branches apart."""
    if isinstance(node, dict):
        return {k: _strip_keywords(v) for k, v in node.items() if k != "discriminator"}
    if isinstance(node, list):
        return [_strip_keywords(v) for v in node]
    return node


@functools.cache
def _schema_bytes() -> bytes:
    (root_ref,), components = msgspec.json.schema_components(
        (ReadFilesOutput,), ref_template="#/$defs/{name}")
    name = root_ref["$ref"].rsplit("/", 1)[-1]
    root: dict[str, Any] = dict(components.pop(name))
    if components:
        root["$defs"] = components
    root = _strip_keywords(root)
    if root.get("type") != "object":  # pragma: no cover - guarded by tests
        raise AssertionError("read_files output schema root must be an object")
    return msgspec.json.encode(root)


def read_files_output_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`ReadFilesOutput`, with an object root (``"type": "object"``,
    components under ``$defs``) — never a bare ``$ref``, which MCP clients reject."""
    schema: dict[str, Any] = msgspec.json.decode(_schema_bytes())  # a fresh copy per caller
    return schema


_MEANINGS = {
    **STATUS_MEANINGS,
    Status.BLOCKED: (
        "the path is withheld. With only path and status, the block is final and no reason "
        "can be given; otherwise it is excluded by ignore rules and the object names the rule "
        "and, when possible, the remedy lines that would re-include it"
    ),
}

#: The ``read_files`` description to declare with this renderer.
STRUCTURED_READ_FILES_DESCRIPTION = (
    "Read files of the project. Returns {\"files\": [...]}: one object per requested path, in "
    "request order, with a \"status\": \"ok\" with the content, or one of:\n"
    + "\n".join(f"{status.code}: {text}." for status, text in _MEANINGS.items())
    + "\nIgnored files are also left out of glob, list_directory and code_search results."
)


class StructuredRenderer:
    """JSON-ready objects; no options."""

    name = "structured"
    read_files_description = STRUCTURED_READ_FILES_DESCRIPTION

    def build_read(self, results: Sequence[FileResult], /) -> ReadFilesOutput:
        """The typed result (a :class:`ReadFilesOutput`)."""
        return ReadFilesOutput(files=[result_entry(r) for r in results])

    def render_read(self, results: Sequence[FileResult], /) -> dict[str, Any]:
        """The JSON-ready result (``{"files": [...]}``), valid against the schema."""
        out: dict[str, Any] = msgspec.to_builtins(self.build_read(results))
        return out

    def render_verdict(self, path: str, verdict: Verdict, /) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.to_builtins(verdict_entry(path, verdict))
        return out

    def output_schema(self) -> dict[str, Any]:
        return read_files_output_schema()
