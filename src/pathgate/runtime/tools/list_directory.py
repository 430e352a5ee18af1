"""``list_directory(path, limit=500)``: the entries of one directory with their type.

Entries hidden by non-opaque gates (ignore rules, a symlink leading out of the project) are
summarised with a count and names; secrets and host-filtered entries are never listed nor
counted. Directory entries are listed by name; the walk does not enter them. The visible
entries are sorted by name and cut at ``limit`` (default :data:`DEFAULT_LIST_LIMIT`, ``0``:
no limit), like glob's matches; ``total`` counts them all (secrets and host-filtered
entries are neither listed nor counted, so the cut never depends on one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from pathgate.errors import ToolArgumentError
from pathgate.results import DirEntry, EntryKind, ListResult
from pathgate.runtime.tools._arg_bounds import check_path_size
from pathgate.runtime.tools._discover import Discovery

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["DEFAULT_LIST_LIMIT", "list_directory"]

#: Entries returned when the caller gives no limit (``limit=0``: no limit).
DEFAULT_LIST_LIMIT = 500

#: Names of hidden entries given per gate (the count is always exact).
MAX_HIDDEN_NAMES = 20


async def list_directory(runtime: Runtime, path: str = ".", *, limit: int | None = None,
                         model: str | None = None) -> ListResult:
    """See :meth:`pathgate.Runtime.list_directory`."""
    if not isinstance(path, str):
        raise ToolArgumentError("list_directory: `path` must be a string", field="path")
    check_path_size("list_directory", path)  # (red team 19 K2)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ToolArgumentError("list_directory: `limit` must be an integer >= 0", field="limit")
    cap = DEFAULT_LIST_LIMIT if limit is None else (limit or None)
    d = Discovery(runtime, model=model)
    d.omissions.max_examples = MAX_HIDDEN_NAMES
    start, verdict = await d.start_dir(path)
    if verdict is not None:
        return ListResult(path=path, entries=(), verdict=verdict, limit=cap)
    chunks = await d.walk(start, lambda _rel: False)
    if d.start_error is not None:
        return ListResult(path=path, entries=(), verdict=d.start_error, limit=cap)
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
    truncated = cap is not None and len(visible) > cap
    return ListResult(path=path, entries=tuple(visible[:cap] if truncated else visible), omitted=omitted,
                      total=len(visible), truncated=truncated, limit=cap)
