"""``list_directory(path)``: the entries of one directory with their type.

Entries hidden by non-opaque gates (ignore rules, a symlink leading out of the project) are
summarised with a count and names; secrets and host-filtered entries are never listed nor
counted. Directory entries are listed by name; the walk does not enter them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from pathgate.errors import ToolArgumentError
from pathgate.results import DirEntry, EntryKind, ListResult
from pathgate.runtime.tools._discover import Discovery

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["list_directory"]

#: Names of hidden entries given per gate (the count is always exact).
MAX_HIDDEN_NAMES = 20


async def list_directory(runtime: Runtime, path: str = ".", *, model: str | None = None) -> ListResult:
    """See :meth:`pathgate.Runtime.list_directory`."""
    if not isinstance(path, str):
        raise ToolArgumentError("list_directory: `path` must be a string", field="path")
    d = Discovery(runtime, model=model)
    d.omissions.max_examples = MAX_HIDDEN_NAMES
    start, verdict = await d.start_dir(path)
    if verdict is not None:
        return ListResult(path=path, entries=(), verdict=verdict)
    chunks = await d.walk(start, lambda _rel: False)
    if d.start_error is not None:
        return ListResult(path=path, entries=(), verdict=d.start_error)
    entries = [e for chunk in chunks for e in chunk]
    cut = len(start) + 1 if start else 0
    if len(entries) == 1 and entries[0].relpath == start and entries[0].match is not None:
        # ignore_mode="discovery" lets an explicit path through, but the directory itself is
        # excluded: its entries are hidden like any ignored entry (name the directory).
        cut = 0
    visible: list[DirEntry] = []
    for e, v in zip(entries, await d.judge(entries), strict=True):
        if v is None:
            kind: EntryKind = e.kind  # type: ignore[assignment]
            visible.append(DirEntry(e.relpath[cut:], kind))
        else:
            d.omissions.add(v, e.relpath[cut:] + ("/" if e.kind == "dir" else ""))
    visible.sort(key=lambda de: de.name)
    omitted = tuple(msgspec.structs.replace(om, unit="entries") for om in d.omissions.freeze())
    return ListResult(path=path, entries=tuple(visible), omitted=omitted)
