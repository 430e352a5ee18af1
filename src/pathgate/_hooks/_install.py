"""``pathgate hook install <agent>``: merge pathgate's hook into the agent's settings file.

Settings files and their hook schema (same sources as :mod:`pathgate._hooks._agents`):

* Claude Code: ``.claude/settings.json`` (project) or ``~/.claude/settings.json`` (user):
  ``{"hooks": {"PreToolUse": [{"matcher": "<tool regex>", "hooks": [{"type": "command",
  "command": ..., "onFailure": "block"}]}]}}``.
* Cursor: ``.cursor/hooks.json`` or ``~/.cursor/hooks.json``: ``{"version": 1, "hooks":
  {"<event>": [{"command": ..., "failClosed": true}]}}``.
* Gemini CLI: ``.gemini/settings.json`` or ``~/.gemini/settings.json``: ``{"hooks":
  {"BeforeTool": [{"matcher": "<tool regex>", "hooks": [{"type": "command", "command":
  ...}]}]}}``.

The merge is idempotent: an entry whose command runs ``pathgate hook <agent>`` is updated in
place, anything else (the user's other hooks and settings) is kept as it was.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from typing import Any

__all__ = ["INSTALLERS", "install", "load_settings", "merged_settings", "other_settings", "settings_path",
           "switched_off"]

CLAUDE_MATCHER = "Read|Write|Edit|MultiEdit|NotebookEdit|Glob|Grep|LS"
GEMINI_MATCHER = (
    "read_file|read_many_files|write_file|replace|glob|search_file_content|grep_search|list_directory"
)
CURSOR_EVENTS = ("beforeReadFile", "beforeTabFileRead", "preToolUse")

#: Largest settings file install reads (agent settings are a few kilobytes).
_MAX_SETTINGS_BYTES = 8 << 20

_DIRS = {"claude-code": ".claude", "cursor": ".cursor", "gemini": ".gemini"}
_FILES = {"claude-code": "settings.json", "cursor": "hooks.json", "gemini": "settings.json"}


class InstallError(Exception):
    """The settings file cannot be merged (not JSON, wrong shape)."""


def settings_path(agent: str, *, user: bool, project: str = ".") -> str:
    """The settings file ``install`` writes for ``agent``."""
    base = os.path.expanduser("~") if user else project
    return os.path.join(base, _DIRS[agent], _FILES[agent])


def _is_ours(command: Any, agent: str) -> bool:
    if not isinstance(command, str):
        return False
    words = command.split()
    return "pathgate" in " ".join(words) and any(
        words[i] == "hook" and words[i + 1] == agent for i in range(len(words) - 1)
    )


def _list(container: dict[str, Any], key: str, where: str) -> list[Any]:
    value = container.setdefault(key, [])
    if not isinstance(value, list):
        raise InstallError(f"{where}.{key} is not a list")
    return value


def _hooks(settings: dict[str, Any], where: str) -> dict[str, Any]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{where}: `hooks` is not an object")
    return hooks


def _merge_matcher_groups(settings: dict[str, Any], event: str, matcher: str, command: str,
                          agent: str, where: str, **extra: Any) -> None:
    """Claude Code and Gemini CLI: ``hooks.<event>`` is a list of matcher groups."""
    groups = _list(_hooks(settings, where), event, f"{where}: hooks")
    entry = {"type": "command", "command": command, **extra}
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list) and any(isinstance(h, dict) and _is_ours(h.get("command"), agent)
                                           for h in inner):
            group["matcher"] = matcher
            group["hooks"] = [entry if isinstance(h, dict) and _is_ours(h.get("command"), agent) else h
                              for h in inner]
            return
    groups.append({"matcher": matcher, "hooks": [entry]})


def _merge_claude(settings: dict[str, Any], command: str, where: str) -> None:
    # fail closed: a hook that cannot start, times out or exits unexpectedly blocks the call
    # (Claude Code 2.1.295+; without it a timed-out hook lets the call through)
    _merge_matcher_groups(settings, "PreToolUse", CLAUDE_MATCHER, command, "claude-code", where,
                          onFailure="block")


def _merge_gemini(settings: dict[str, Any], command: str, where: str) -> None:
    _merge_matcher_groups(settings, "BeforeTool", GEMINI_MATCHER, command, "gemini", where)


def _merge_cursor(settings: dict[str, Any], command: str, where: str) -> None:
    settings.setdefault("version", 1)
    hooks = _hooks(settings, where)
    for event in CURSOR_EVENTS:
        entries = _list(hooks, event, f"{where}: hooks")
        entry = {"command": command, "failClosed": True}
        for i, existing in enumerate(entries):
            if isinstance(existing, dict) and _is_ours(existing.get("command"), "cursor"):
                entries[i] = {**existing, **entry}
                break
        else:
            entries.append(entry)


INSTALLERS: dict[str, Callable[[dict[str, Any], str, str], None]] = {
    "claude-code": _merge_claude,
    "cursor": _merge_cursor,
    "gemini": _merge_gemini,
}


def merged_settings(agent: str, path: str, command: str) -> tuple[dict[str, Any], bool]:
    """The settings of ``path`` with pathgate's hook merged, and whether anything changed."""
    before = load_settings(path)
    after = json.loads(json.dumps(before))
    INSTALLERS[agent](after, command, path)
    return after, after != before


def load_settings(path: str) -> dict[str, Any]:
    """The JSON object of the settings file at ``path`` (``{}`` when there is none), read
    bounded and never waited on; :class:`InstallError` when it cannot be read or parsed."""
    before: dict[str, Any] = {}
    if os.path.exists(path):
        try:
            # O_NONBLOCK and a type check: a FIFO in a cloned repository must not hang install
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise InstallError(f"{path} is not a regular file; remove it or use --print")
                raw = f.read(_MAX_SETTINGS_BYTES + 1)
            if len(raw) > _MAX_SETTINGS_BYTES:
                raise InstallError(f"{path} is larger than {_MAX_SETTINGS_BYTES} bytes; fix it or use --print")
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InstallError(f"{path}: cannot read it ({exc}); fix it or use --print") from None
        try:
            loaded = json.loads(text) if text.strip() else {}
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InstallError(f"{path} is not valid JSON ({exc}); fix it or use --print") from None
        if not isinstance(loaded, dict):
            raise InstallError(f"{path}: expected a JSON object at the top level")
        before = loaded
    return before


#: Settings keys that switch every hook of an agent CLI off, as ``(key path, the value that
#: does)``: Claude Code's ``disableAllHooks``; Gemini CLI's ``hooksConfig.enabled`` (and the
#: older ``hooks.enabled`` and ``tools.enableHooks``).
_OFF_SWITCHES: dict[str, tuple[tuple[tuple[str, ...], bool], ...]] = {
    "claude-code": ((("disableAllHooks",), True),),
    "gemini": ((("hooksConfig", "enabled"), False), (("hooks", "enabled"), False), (("tools", "enableHooks"), False)),
}


#: Lists of hook names or commands an agent CLI skips (Gemini CLI's ``hooksConfig.disabled``).
_SKIP_LISTS: dict[str, tuple[tuple[str, ...], ...]] = {
    "gemini": (("hooksConfig", "disabled"), ("hooks", "disabled")),
}


def _at(settings: dict[str, Any], keys: tuple[str, ...]) -> Any:
    node: Any = settings
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def switched_off(agent: str, settings: dict[str, Any], command: str = "") -> str | None:
    """The dotted key of ``settings`` that switches ``agent``'s hooks off (pathgate's with
    the rest), or that lists pathgate's hook (its ``command``, or any entry naming
    pathgate) among those to skip; ``None`` when there is none. A repository can ship such
    a key in its settings: installing into them must not report an active guard."""
    for keys, off in _OFF_SWITCHES.get(agent, ()):
        if _at(settings, keys) is off:
            return ".".join(keys)
    for keys in _SKIP_LISTS.get(agent, ()):
        skipped = _at(settings, keys)
        if isinstance(skipped, list) and any(
                isinstance(x, str) and (x == command or "pathgate" in x.casefold()) for x in skipped):
            return ".".join(keys)
    return None


def other_settings(agent: str, *, user: bool, project: str = ".") -> list[str]:
    """Settings files besides the one ``install`` writes whose keys also decide whether
    ``agent`` runs a project's hooks: Claude Code's ``.claude/settings.local.json`` and the
    user's file, Gemini CLI's user file (for a project install; a user install cannot know
    the projects)."""
    if user:
        return []
    home = os.path.expanduser("~")
    local = [os.path.join(project, ".claude", "settings.local.json")] if agent == "claude-code" else []
    user_file = [settings_path(agent, user=True)] if home != "~" and agent in _OFF_SWITCHES else []
    return local + user_file


def install(agent: str, path: str, command: str, *, write: bool = True) -> tuple[str, bool]:
    """Merge pathgate's hook for ``agent`` into ``path``; return the resulting JSON text and
    whether the file changed. ``write=False`` only computes it (``--print``)."""
    settings, changed = merged_settings(agent, path, command)
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    if write and changed:
        directory = os.path.dirname(path) or "."
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".pathgate-", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o644
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    return text, changed
