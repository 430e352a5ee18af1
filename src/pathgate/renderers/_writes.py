"""Rendering the write tools' results (``write_file``, ``edit_file``).

Text renderers give ``{path: status text}``, like ``read_files``: ``[OK]`` (the sentinel
renderer) or ``[OK]: Created src/a.py (120 bytes).`` (verbose), or the renderer's own text
for the verdict — so opaque blocks stay the bare ``[BLOCKED]`` and ignore blocks are
explained with their verified unblock lines, exactly as for a read. The structured renderer
gives ``{"files": [entry]}`` with a published schema (:func:`write_output_schema`): the
read entries for the statuses reads share, plus ``ok`` (what was written) and the three
write-only statuses.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from pathgate.renderers._base import Renderer, format_size, is_opaque
from pathgate.renderers.sentinel import SentinelRenderer
from pathgate.renderers.structured import (
    BinaryFile,
    Blocked,
    FileDoesNotExist,
    FileOutsideProject,
    FileTooLarge,
    NotAFile,
    _Entry,
    _strip_keywords,
    verdict_entry,
)
from pathgate.results import WriteResult
from pathgate.verdicts import Gate, Status, Verdict

__all__ = [
    "FileChangedSinceRead",
    "FileNotRead",
    "FileWriteError",
    "WriteEntry",
    "WriteOutput",
    "Written",
    "render_write",
    "write_entry",
    "write_output_schema",
]


class Written(_Entry, frozen=True, kw_only=True, tag="ok"):
    """The file now holds the new content: ``created`` (it did not exist), ``size`` (bytes
    written), ``replacements`` (occurrences ``edit_file`` replaced; 0 for ``write_file``)."""

    created: bool
    size: int
    replacements: int = 0


class FileChangedSinceRead(_Entry, frozen=True, kw_only=True, tag="file_changed_since_read"):
    """Nothing written: the file changed since this agent last read it; read it again."""

    gate: Gate


class FileNotRead(_Entry, frozen=True, kw_only=True, tag="file_not_read"):
    """Nothing written: this agent has not read the file; read it first."""

    gate: Gate


class FileWriteError(_Entry, frozen=True, kw_only=True, tag="file_write_error"):
    """Nothing written: the write failed; ``detail`` is a short fact such as an errno name."""

    gate: Gate
    detail: str | None = None


WriteEntry = (Written | Blocked | FileDoesNotExist | NotAFile | FileOutsideProject | FileTooLarge
              | BinaryFile | FileChangedSinceRead | FileNotRead | FileWriteError)


class WriteOutput(msgspec.Struct, frozen=True, kw_only=True):
    """The ``write_file`` / ``edit_file`` result: one entry, for the requested path."""

    files: list[WriteEntry]


def _verdict_write_entry(path: str, verdict: Verdict) -> WriteEntry:
    if is_opaque(verdict):
        return Blocked(path=path)
    status = verdict.status
    if status is Status.FILE_CHANGED_SINCE_READ:
        return FileChangedSinceRead(path=path, gate=verdict.gate)
    if status is Status.FILE_NOT_READ:
        return FileNotRead(path=path, gate=verdict.gate)
    if status is Status.FILE_WRITE_ERROR:
        return FileWriteError(path=path, gate=verdict.gate, detail=verdict.detail)
    entry = verdict_entry(path, verdict)
    return entry if isinstance(entry, WriteEntry) else Blocked(path=path)


def write_entry(result: WriteResult) -> WriteEntry:
    """The structured entry for one write result."""
    if result.verdict is None:
        return Written(path=result.path, created=result.created, size=result.size,
                       replacements=result.replacements)
    return _verdict_write_entry(result.path, result.verdict)


def _ok_text(result: WriteResult) -> str:
    where = result.relpath or result.path
    size = format_size(result.size)
    if result.tool == "edit_file":
        n = result.replacements
        return f"[OK]: Replaced {n} occurrence{'' if n == 1 else 's'} in {where} ({size} written)."
    if result.created:
        return f"[OK]: Created {where} ({size})."
    return f"[OK]: Wrote {where} ({size})."


def render_text_write(renderer: Renderer, result: WriteResult) -> dict[str, str]:
    """The text renderers' write output: ``{path: status text}``."""
    if result.verdict is not None:
        return {result.path: renderer.render_verdict(result.path, result.verdict)}
    bare = isinstance(renderer, SentinelRenderer)
    return {result.path: Status.OK.sentinel if bare else _ok_text(result)}


def render_write(renderer: Renderer, result: WriteResult) -> Any:
    """Render a write result with ``renderer``: its own ``render_write`` when it has one
    (host renderers may), else the structured or the text form."""
    own = getattr(renderer, "render_write", None)
    if own is not None:
        return own(result)
    if renderer.output_schema() is not None:
        return msgspec.to_builtins(WriteOutput(files=[write_entry(result)]))
    return render_text_write(renderer, result)


@functools.cache
def _schema_bytes() -> bytes:
    (root_ref,), components = msgspec.json.schema_components((WriteOutput,), ref_template="#/$defs/{name}")
    name = root_ref["$ref"].rsplit("/", 1)[-1]
    root: dict[str, Any] = dict(components.pop(name))
    if components:
        root["$defs"] = components
    return msgspec.json.encode(_strip_keywords(root))


def write_output_schema() -> dict[str, Any]:
    """The JSON Schema (object root) of the structured write result."""
    schema: dict[str, Any] = msgspec.json.decode(_schema_bytes())
    return schema
