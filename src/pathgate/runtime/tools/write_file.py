"""``write_file`` and ``edit_file``: writes through the same gates as reads.

One call:

1. validates its arguments (:class:`~pathgate.ToolArgumentError` names the field);
2. runs the write pipeline (:mod:`pathgate.runtime.tools._write_gates`) on the path with
   ``purpose="write"``: a blocked path is a verdict and the file is untouched;
3. in one worker thread, under the file's lock (:class:`~._versions.FileLocks`), checks the
   target on directory descriptors, compares its version with the agent's last read
   (``require_read_before_write``), applies the edit and publishes the new content
   atomically (:func:`~._write_io.commit`); records the new version as the writer's.

Edit errors (``old_string`` empty, not found, found several times without
``replace_all``, ``new_string`` equal to it) are :class:`~pathgate.ToolArgumentError`\\ s
naming the argument and saying what to do; they are raised after the gates and the version
check, so they never speak about a file the agent may not see.
"""

from __future__ import annotations

import dataclasses
import errno
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio.from_thread
import anyio.to_thread

from pathgate.errors import ConfigError, ToolArgumentError
from pathgate.results import WriteResult, WriteTool
from pathgate.runtime.gates import GateContext, lexical_name
from pathgate.runtime.gates.secrets import normalize_name
from pathgate.runtime.tools._write_gates import WriteFacts, WritePathFacts
from pathgate.runtime.tools._write_io import Outcome, Transform, WritePlan, commit
from pathgate.runtime.tools._write_rules import GITIGNORE_RULE, is_root_pyproject, loosening_change, mentions_pathgate
from pathgate.verdicts import POLICY_FILE, Gate, Status, Verdict

if TYPE_CHECKING:
    from pathgate.runtime._runtime import Runtime

__all__ = ["EDIT_FILE_DESCRIPTION", "WRITE_FILE_DESCRIPTION", "WRITE_TOOLS", "edit_file", "judge_writes", "write_file"]

#: The write tools, in listing order (registered only when the host enables writes).
WRITE_TOOLS = ("write_file", "edit_file")

_STATUSES = (
    "[FILE_NOT_READ]: you have not read this file; read it with read_files, then retry. "
    "[FILE_CHANGED_SINCE_READ]: it changed since you last read it; read it again and redo the "
    "change on the current content. [BLOCKED], [FILE_OUTSIDE_PROJECT], [FILE_TOO_LARGE], "
    "[NOT_A_FILE], [FILE_WRITE_ERROR]: nothing was written. A bare [BLOCKED] is final."
)
WRITE_FILE_DESCRIPTION = (
    "Create or overwrite a text file of the project with `content` (missing parent directories "
    "are created). To overwrite an existing file you must have read its current version with "
    "read_files. Returns [OK] or a status: " + _STATUSES
)
EDIT_FILE_DESCRIPTION = (
    "Replace the exact text `old_string` with `new_string` in an existing file. `old_string` "
    "must occur exactly once unless `replace_all` is true. You must have read the file's "
    "current version with read_files first. Returns [OK] or a status: " + _STATUSES
)

#: Which gate reports each status a commit can end with.
_GATE_OF = {
    Status.FILE_DOES_NOT_EXIST: Gate.EXISTENCE,
    Status.NOT_A_FILE: Gate.EXISTENCE,
    Status.FILE_TOO_LARGE: Gate.SIZE,
    Status.BINARY_FILE: Gate.READ,
}


def _check_str(tool: str, value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise ToolArgumentError(f"{tool}: `{field}` must be a string", field=field)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolArgumentError(f"{tool}: `{field}` is not valid Unicode text (lone surrogate)",
                                field=field) from None
    return value


def _check_path(tool: str, path: Any) -> str:
    checked = _check_str(tool, path, "path")
    if checked.endswith("/"):
        raise ToolArgumentError(f"{tool}: `path` must name a file, not a directory (it ends with /)",
                                field="path")
    return checked


def _replace_transform(path: str, old_string: str, new_string: str, replace_all: bool) -> Transform:
    def transform(old: str | None) -> tuple[str, int]:
        assert old is not None  # edit_file only runs on an existing file
        count = old.count(old_string)
        if count == 0:
            raise ToolArgumentError(
                f"edit_file: `old_string` was not found in {path}. Read the file again and copy "
                "the exact text to replace, whitespace and indentation included.",
                field="old_string")
        if count > 1 and not replace_all:
            raise ToolArgumentError(
                f"edit_file: `old_string` was found {count} times in {path}. Include more of the "
                "surrounding lines to make it unique, or pass `replace_all: true` to replace "
                "every occurrence.", field="old_string")
        if replace_all:
            return old.replace(old_string, new_string), count
        return old.replace(old_string, new_string, 1), 1

    return transform


def _is_gitignore(relpath: str) -> bool:
    """Is ``relpath``'s name ``.gitignore`` as a case-insensitive (or NTFS) filesystem
    would open it (``.GitIgnore``, ``.gitignore.``)? Judged so everywhere: on a case-sensitive
    one such a file is not git's, and guarding it costs nothing."""
    return normalize_name(relpath.rpartition("/")[2]) == ".gitignore"


def _loosens(relpath: str, old: str | None, new: str) -> str | None:
    """Why writing ``new`` over ``old`` at ``relpath`` would loosen the rules the agent runs
    under, or ``None``. A ``.gitignore`` edit other than adding exclusions or removing
    negations (:func:`loosening_change`): a deeper ``.gitignore`` is read after the agent
    ignore files above it, so its ``!`` lines could re-include what they hide, and a removed
    rule re-includes what it excluded. The root ``pyproject.toml`` gaining pathgate settings
    (one that holds them already is a policy file, refused by the write gate): a new
    ``[tool.pathgate]`` table could name agent files the agent wrote itself."""
    if _is_gitignore(relpath):
        why = loosening_change(old, new)
        if why is not None:
            return f"{why}; {GITIGNORE_RULE}"
    elif is_root_pyproject(relpath) and mentions_pathgate(new):
        return "would hold pathgate settings; an agent may not write pathgate's configuration"
    return None


def _guarded(tool: WriteTool, path: str, relpath: str, transform: Transform) -> Transform:
    """``transform``, refusing a result that :func:`_loosens` the agent's rules (SPEC: an
    agent cannot loosen the rules it runs under)."""
    field = "content" if tool == "write_file" else "new_string"

    def guarded(old: str | None) -> tuple[str, int]:
        text, count = transform(old)
        why = _loosens(relpath, old, text)
        if why is not None:
            raise ToolArgumentError(f"{tool}: {path} {why}. Ask the user to make this change.", field=field)
        return text, count

    return guarded


def _require_writes(runtime: Runtime, tool: str) -> None:
    if not runtime.allow_writes:
        raise ConfigError(f"{tool}: writes are not enabled on this runtime; pass "
                          "Runtime(..., allow_writes=True) or Policy(allow_writes=True)",
                          key="allow_writes")


async def write_file(runtime: Runtime, path: str, content: str, *, agent: str | None = None,
                     model: str | None = None) -> WriteResult:
    """Create or overwrite ``path`` with ``content``; see :meth:`pathgate.Runtime.write_file`."""
    _require_writes(runtime, "write_file")
    path = _check_path("write_file", path)
    content = _check_str("write_file", content, "content")
    return await _run(runtime, "write_file", path, lambda old: (content, 0), agent, model)


async def edit_file(runtime: Runtime, path: str, old_string: str, new_string: str, *,
                    replace_all: bool = False, agent: str | None = None,
                    model: str | None = None) -> WriteResult:
    """Replace ``old_string`` in ``path``; see :meth:`pathgate.Runtime.edit_file`."""
    _require_writes(runtime, "edit_file")
    path = _check_path("edit_file", path)
    old_string = _check_str("edit_file", old_string, "old_string")
    new_string = _check_str("edit_file", new_string, "new_string")
    if not isinstance(replace_all, bool):
        raise ToolArgumentError("edit_file: `replace_all` must be true or false", field="replace_all")
    if not old_string:
        raise ToolArgumentError(
            "edit_file: `old_string` is empty. Give the exact text to replace; to create a file "
            "or replace all of its content, use write_file.", field="old_string")
    if old_string == new_string:
        raise ToolArgumentError(
            "edit_file: `new_string` is the same as `old_string`, so there is nothing to change. "
            "Give the replacement text in `new_string`.", field="new_string")
    transform = _replace_transform(path, old_string, new_string, replace_all)
    return await _run(runtime, "edit_file", path, transform, agent, model, must_exist=True)


async def judge_writes(runtime: Runtime, paths: Sequence[str], *, model: str | None = None) -> list[Verdict | None]:
    """The write gates' verdict on each of ``paths`` as a write target (``None``: a write
    there would pass them), without writing: outside the root, what is never writable,
    secrets, the host filter (``purpose="write"``), ignore rules. For guarding a host's own
    write tool (the adapters' ``writes`` mode). What the path alone cannot settle is refused
    too: a ``.gitignore`` or the root ``pyproject.toml`` (whether the new text loosens the
    rules depends on it: a plain write-gate block, "ask the user"), and a directory or the
    root (a tool writing *into* it could write anything below: ``[NOT_A_FILE]``). Does not
    need ``allow_writes``."""
    policy = runtime.policy
    ctx = GateContext(policy=policy, purpose="write", model=model, size_limit=policy.write_limit_for(model),
                      root=runtime.root)
    facts = [WritePathFacts(request=p, name=lexical_name(p, runtime.root)) for p in paths]
    verdicts = await runtime.write_pipeline.run(facts, ctx, WriteFacts(runtime, ctx))
    for i, (f, verdict) in enumerate(zip(facts, verdicts, strict=True)):
        r = f.resolved
        if verdict is not None or r is None or r.relpath is None:
            continue
        spelled = f.request.replace("\\", "/")
        if not r.relpath or r.is_dir or spelled.endswith("/") or ".." in spelled.split("/"):
            # a tool normalising the spelling as text (`x/missing/..`, `.claude/`) could act
            # on a directory: what that would write cannot be settled from the path
            verdicts[i] = Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True, detail="directory")
        elif _is_gitignore(r.relpath) or is_root_pyproject(r.relpath):
            verdicts[i] = Verdict(status=Status.BLOCKED, gate=Gate.WRITE, detail=POLICY_FILE)
    return verdicts


async def _run(runtime: Runtime, tool: WriteTool, path: str, transform: Transform,
               agent: str | None, model: str | None, *, must_exist: bool = False) -> WriteResult:
    if model is not None and not isinstance(model, str):
        raise ToolArgumentError(f"{tool}: `model` must be a string", field="model")
    policy = runtime.policy
    ctx = GateContext(policy=policy, purpose="write", model=model, size_limit=policy.write_limit_for(model),
                      root=runtime.root)
    facts = WritePathFacts(request=path, name=lexical_name(path, runtime.root))
    (verdict,) = await runtime.write_pipeline.run([facts], ctx, WriteFacts(runtime, ctx))
    resolved = facts.resolved
    if verdict is None and (resolved is None or resolved.relpath is None):
        code = errno.errorcode.get(resolved.error or 0, "EINVAL") if resolved else "EINVAL"
        verdict = Verdict(status=Status.FILE_WRITE_ERROR, gate=Gate.WRITE, detail=code)
    if verdict is not None:
        shown = None if verdict.opaque else facts.relpath
        return WriteResult(tool=tool, path=path, relpath=shown, verdict=verdict)
    assert resolved is not None and resolved.relpath is not None
    relpath = resolved.relpath
    if not relpath or resolved.is_dir:
        detail = "directory"
        verdict = Verdict(status=Status.NOT_A_FILE, gate=Gate.EXISTENCE, exists=True, detail=detail)
        return WriteResult(tool=tool, path=path, relpath=relpath or ".", verdict=verdict)
    # a .gitignore (and a pyproject.toml) is judged on its old and new text
    guard = _is_gitignore(relpath) or is_root_pyproject(relpath)
    if guard:
        transform = _guarded(tool, path, relpath, transform)
    plan = WritePlan(
        root=runtime.root,
        relpath=relpath,
        identity=resolved.identity,
        read_limit=policy.size_limit_for(model),
        write_limit=ctx.size_limit,
        check_version=policy.require_read_before_write,
        expected=None,
        must_exist=must_exist,
        linked_secret=runtime._linked_secret(),
        want_old=guard,
    )
    outcome = await anyio.to_thread.run_sync(
        _locked_commit, runtime, plan, transform, agent, limiter=runtime.limiter.get())
    return _result(tool, path, relpath, outcome)


def _locked_commit(runtime: Runtime, plan: WritePlan, transform: Transform, agent: str | None) -> Outcome:
    """The compare-and-replace, atomic within the runtime (worker thread)."""
    cancelled = anyio.from_thread.check_cancelled
    with runtime.file_locks.hold(plan.relpath, cancelled):
        if plan.check_version:
            expected = runtime.versions.get(agent, plan.relpath)
            plan = dataclasses.replace(plan, expected=expected)
        outcome = commit(plan, transform, cancelled)
        if outcome.version is not None:
            runtime.versions.record(agent, plan.relpath, outcome.version)
    return outcome


def _result(tool: WriteTool, path: str, relpath: str, outcome: Outcome) -> WriteResult:
    status = outcome.status
    if status is None:
        return WriteResult(tool=tool, path=path, relpath=relpath, created=outcome.created,
                           size=outcome.size, replacements=outcome.replacements)
    if outcome.opaque:
        return WriteResult(tool=tool, path=path, verdict=Verdict(status=Status.BLOCKED, gate=Gate.WRITE,
                                                                 opaque=True, detail=outcome.detail))
    exists = None if status is Status.FILE_DOES_NOT_EXIST else True
    if status in (Status.FILE_WRITE_ERROR, Status.FILE_NOT_READ):
        exists = None
    size = outcome.size if status is Status.FILE_TOO_LARGE else None
    verdict = Verdict(status=status, gate=_GATE_OF.get(status, Gate.WRITE), exists=exists,
                      size=size, limit=outcome.limit, detail=outcome.detail)
    return WriteResult(tool=tool, path=path, relpath=relpath, verdict=verdict)
