"""The ``sentinel`` renderer: the bare legacy status for every block.

For hosts that compare status strings exactly: a block renders as its sentinel alone
(``[BLOCKED]``, ``[FILE_DOES_NOT_EXIST]``, ...), byte-identical to the legacy strings; a
readable file renders as its content, unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from pathgate.renderers._base import STATUS_MEANINGS, is_opaque, render_text_read
from pathgate.verdicts import FileResult, Status, Verdict

__all__ = ["SENTINEL_READ_FILES_DESCRIPTION", "SentinelRenderer"]

_MEANINGS = {**STATUS_MEANINGS, Status.BLOCKED: "the path is withheld by the project's policy"}

#: The ``read_files`` description to declare with this renderer.
SENTINEL_READ_FILES_DESCRIPTION = (
    "Read files of the project. For each requested path, in request order, returns the "
    "file's content or one of these status strings:\n"
    + "\n".join(f"{status.sentinel}: {text}." for status, text in _MEANINGS.items())
)


class SentinelRenderer:
    """Bare statuses; no options."""

    name = "sentinel"
    read_files_description = SENTINEL_READ_FILES_DESCRIPTION

    def render_read(self, results: Sequence[FileResult], /) -> dict[str, str]:
        return render_text_read(results, self._text, self._notice)

    def render_verdict(self, path: str, verdict: Verdict, /) -> str:
        return self._text(verdict)

    def output_schema(self) -> None:
        return None

    @staticmethod
    def _text(verdict: Verdict) -> str:
        return Status.BLOCKED.sentinel if is_opaque(verdict) else verdict.status.sentinel

    @staticmethod
    def _notice(result: FileResult, verdict: Verdict) -> str:
        return verdict.status.sentinel
