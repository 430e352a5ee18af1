"""The hook's judgement of a write through another agent CLI's tool (``Write``, ``Edit``,
Gemini's ``replace``...): the write gates' rules without the write pipeline, plus the
``.gitignore`` edit check on the text the edit would leave. Split out of :mod:`._core`,
whose :func:`~._core.decide` calls :func:`write_denial` in a worker thread."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from pathgate._hooks._core import Target, _text

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore

__all__ = ["write_denial"]


def _new_text(target: Target, old: str | None) -> str | None:
    """The file's text after the write (``None``: nothing is written, a delete)."""
    if target.content is not None:
        return target.content
    if not target.edits:
        return None
    text = old or ""
    for old_string, new_string, replace_all in target.edits:
        if old_string and old_string in text:
            text = text.replace(old_string, new_string) if replace_all else text.replace(old_string, new_string, 1)
        else:  # not applicable as given (an edit snippet): judge its lines as added
            text = f"{text}\n{new_string}"
    return text


def _current_text(path: str) -> str | None:
    """The text of the file at ``path`` now, bounded, not following a final symlink
    (``None``: missing or unreadable)."""
    from pathgate.runtime.tools._write_rules import read_small

    raw = read_small(path)
    return None if raw is None else raw.decode("utf-8", "replace")


def _gitignore_loosens(target: Target, real: str) -> str | None:
    """Why the write ``target`` to the ``.gitignore`` at ``real`` could un-ignore a path
    (:func:`~pathgate.runtime.tools._write_rules.loosening_change`), or ``None``. A file
    that exists but cannot be read whole as UTF-8 cannot be compared: refused (fail closed);
    a delete loses every rule."""
    from pathgate.runtime.tools._write_rules import MAX_READ, loosening_change, read_small

    raw = read_small(real, MAX_READ + 1)
    old: str | None = None
    if raw is None:
        if os.path.lexists(real):
            return "cannot be checked (the file cannot be read)"
    else:
        try:
            old = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "cannot be checked (the file is not UTF-8 text)"
        if len(raw) > MAX_READ:
            return "cannot be checked (the file is too large)"
    readings = _edit_readings(target, old)
    if isinstance(readings, str):
        return readings
    for new in readings:
        why = loosening_change(old, new)
        if why is not None:
            return why
    return None


#: The most readings of a ``.gitignore`` edit judged before it is refused as unclear.
_MAX_READINGS = 8


_OVER_ESCAPED = re.compile(r"\\+(n|t|r|'|\"|`|\\|\n)")
_UNESCAPE = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "`": "`", "\\": "\\", "\n": "\n"}


def _unescaped(text: str) -> str:
    """``text`` as Gemini CLI's edit corrector may write it when it looks over-escaped
    (``unescapeStringForGeminiBug``: any run of backslashes before ``n``, ``t``, ``r``, a
    quote, a backtick, a backslash or a newline becomes that character): a ``.gitignore``
    sent as ``*.tmp\\n!secret.txt`` may be written with a negation line."""
    return _OVER_ESCAPED.sub(lambda m: _UNESCAPE[m.group(1)], text)


def _edit_readings(target: Target, old: str | None) -> list[str] | str:
    """Every text a write to a ``.gitignore`` could leave, or why it cannot be judged. Each
    edit must name the exact text it replaces, present in the file (a snippet such as
    Cursor's ``code_edit`` or a text not found could be applied loosely); one naming text
    found more than once is judged both as the first replacement and as all of them
    (Gemini's ``expected_replacements`` replaces them all). A delete leaves nothing."""
    if target.content is not None:
        return list(dict.fromkeys((target.content, _unescaped(target.content))))
    if not target.edits:
        return [""]
    texts = [old or ""]
    for old_string, new_string, replace_all in target.edits:
        if not old_string:
            return "cannot be checked (an edit that does not name the exact text it replaces)"
        if any(p in new_string for p in ("$`", "$'", "$&", "$$")):
            # an editor passing the text to JavaScript's String.replace expands these
            return "cannot be checked (the new text holds `$` patterns some editors expand)"
        nxt: list[str] = []
        for text in texts:
            count = text.count(old_string)
            if count == 0:
                return "cannot be checked (the text to replace is not in the file)"
            for new in dict.fromkeys((new_string, _unescaped(new_string))):
                nxt.append(text.replace(old_string, new))
                if count > 1 and not replace_all:
                    nxt.append(text.replace(old_string, new, 1))
        texts = list(dict.fromkeys(nxt))
        if len(texts) > _MAX_READINGS:
            return "cannot be checked (too many ways to read the edits)"
    return texts


def write_denial(runtime: GateCore, target: Target, rel: str, renderer: str | None,
                  model: str | None) -> str | None:
    """What the write gates add for a write through another agent's tool: never outside
    the root (whatever ``allow_outside_root`` says), secrets (always, opaque), git
    directories not named ``.git`` (opaque), pathgate's policy files, the agents' own
    hook settings and what they run (a plain block; a root ``pyproject.toml`` that holds or
    would hold pathgate settings too), a write that would make a git directory, a
    ``.gitignore`` edit that could un-ignore a path."""
    from pathgate.runtime.gates.secrets import normalize_name
    from pathgate.runtime.tools._agent_commands import in_hook_dir
    from pathgate.runtime.tools._write_rules import (
        CONFIG_FILE,
        GITIGNORE_RULE,
        PYPROJECT,
        declares_pathgate,
        in_linked_gitdir,
        is_agent_settings,
        makes_gitdir,
        mentions_pathgate,
        steers_guard,
    )
    from pathgate.verdicts import MAKES_GIT_DIR, POLICY_FILE, Gate, Status, Verdict

    real = os.path.realpath(rel if os.path.isabs(rel) else os.path.join(runtime.root, rel))
    real_rel = os.path.relpath(real, runtime.root).replace(os.sep, "/")
    if os.path.isabs(rel) or real_rel == ".." or real_rel.startswith("../"):
        return _text(runtime, renderer, model, Verdict(status=Status.FILE_OUTSIDE_PROJECT, gate=Gate.PATH))
    spellings = (rel, real_rel)
    if any(runtime.pipeline.secrets.is_secret(s) for s in spellings if not s.startswith("..")):
        return "[BLOCKED]"
    if in_linked_gitdir(runtime.root, real_rel):
        return "[BLOCKED]"
    normalized = ["/".join(normalize_name(c) for c in s.split("/")) for s in spellings]
    names = {normalize_name(n) for n in (CONFIG_FILE, *runtime.policy.all_agent_files)}
    policy = any(n.rsplit("/", 1)[-1] in names or is_agent_settings(n) or in_hook_dir(n) for n in normalized)
    if not policy:
        from pathgate.runtime.tools._guard_read import guard_judge

        policy = steers_guard(real, runtime.index, guard_judge(runtime))
    if not policy and PYPROJECT in normalized:
        new = _new_text(target, _current_text(real))
        policy = declares_pathgate(runtime.root) or (new is not None and mentions_pathgate(new))
    if policy:
        verdict = Verdict(status=Status.BLOCKED, gate=Gate.WRITE, detail=POLICY_FILE)
        return _text(runtime, renderer, model, verdict)
    if makes_gitdir(runtime.root, real_rel):
        return _text(runtime, renderer, model, Verdict(status=Status.BLOCKED, gate=Gate.WRITE, detail=MAKES_GIT_DIR))
    if any(n.rsplit("/", 1)[-1] == ".gitignore" for n in normalized):
        why = _gitignore_loosens(target, real)
        if why is not None:
            return f"[BLOCKED]: This .gitignore edit {why}; {GITIGNORE_RULE}. Ask the user to make this change."
    return None
