"""Type-checked usage of the documented API (``mypy --strict tests/typing``); not a test module.

If a documented signature changes, this file stops type-checking.
"""

from __future__ import annotations

from typing import Any

import anyio

import pathgate
from pathgate import CallNext, FileResult, Policy, Runtime, Status, ToolCall, Verdict
from pathgate.renderers import RendererSelector, read_files_output_schema, register_renderer
from pathgate.results import GlobResult, ListResult, SearchResult, WriteResult
from pathgate.verdicts import WRITE_STATUSES


async def audit(call: ToolCall, call_next: CallNext) -> Any:
    result = await call_next(call)
    blocked: int = sum(v is not None for v in call.state.verdicts)
    _ = blocked
    return result


async def main() -> None:
    policy: Policy = Policy(size_limit=1024, host_filter=lambda p: not p.startswith("private/"))
    rt = Runtime(".", policy=policy, renderers=[("gpt-4o-mini*", "structured")])
    rt.use(audit)
    rendered: Any = await rt.call("read_files", {"paths": ["a.py"]}, model="gpt-4o", call_id="1", agent="a")
    _ = rendered
    results: list[FileResult] = await rt.read_files(["a.py"], offset=1, limit=10)
    decided: list[Verdict | None] = await rt.check_paths(["a.py", ".env"], purpose="read")
    _ = decided
    for r in results:
        v: Verdict | None = r.verdict
        if v is not None and v.status is Status.BLOCKED and not v.opaque and v.rule is not None:
            print(v.rule.location())
    g: GlobResult = await rt.glob("**/*.py", limit=0)
    ls: ListResult = await rt.list_directory("src")
    s: SearchResult = await rt.code_search("def ", glob="**/*.py", max_results=10, context=1)
    print(g.matches, ls.entries, s.hits)
    schema: dict[str, Any] = read_files_output_schema()
    selector = RendererSelector([("claude-*", "verbose")], default="sentinel")
    print(schema["type"], selector.name_for("claude-3"))
    _ = register_renderer
    cfg: Policy = pathgate.load_config(".")
    print(cfg.size_limit)
    writer = Runtime(".", Policy(allow_writes=True, require_read_before_write=True), allow_writes=True)
    await writer.read_files(["a.py"], agent="agent-1")
    w: WriteResult = await writer.write_file("a.py", "print(1)\n", agent="agent-1", model="gpt-4o")
    e: WriteResult = await writer.edit_file("a.py", "1", "2", replace_all=False, agent="agent-1")
    print(w.ok, w.created, e.replacements, e.verdict is None or e.verdict.status in WRITE_STATUSES)
    async with Runtime(".", Policy(live_index=True), live_index=True) as live:
        lg: GlobResult = await live.glob("**/*.py")
        print(lg.total)
    await live.aclose()


if __name__ == "__main__":
    anyio.run(main)
