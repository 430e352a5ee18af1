"""Each agent CLI's documented pre-tool hook: its input on stdin, its answer on stdout.

Sources (read when this was written; each tool documents its hooks there):

* Claude Code — https://code.claude.com/docs/en/hooks (``PreToolUse``). Input: ``tool_name``,
  ``tool_input`` (file paths absolute), ``cwd``, ``hook_event_name``; the project directory is
  also in ``$CLAUDE_PROJECT_DIR``. Deny: exit 0 with ``{"hookSpecificOutput": {"hookEventName":
  "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": ...}}`` — the reason
  is shown to Claude. Allow: exit 0 and no output (``"allow"`` would skip the user's own
  permission prompts, which is not pathgate's call). Exit 2 blocks with stderr as the reason:
  pathgate's fail-closed answer.
* Cursor — https://cursor.com/docs/agent/hooks (``beforeReadFile``: ``file_path``,
  ``content``, ``workspace_roots``; ``beforeTabFileRead``; ``preToolUse``: ``tool_name``,
  ``tool_input``). Answer: ``{"permission": "allow" | "deny", "user_message", "agent_message"}``
  (a permission hook must print it, also to allow); exit 2 blocks — the fail-closed answer,
  with the deny JSON on stdout as well.
* Gemini CLI — https://geminicli.com/docs/hooks/reference (``BeforeTool``: ``tool_name``,
  ``tool_input``, ``cwd``; tool parameters:
  https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/file-system.md). Deny:
  exit 0 with ``{"decision": "deny", "reason": ...}`` — the reason is sent to the agent as
  the tool's error; allow: ``{}``. Exit 2 blocks with stderr as the reason (fail closed).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from pathgate._hooks._core import Target

__all__ = ["AGENTS", "Agent", "Answer", "HookRequest"]

# keys naming the file a tool reads or writes, the directory it walks, its glob filter
_FILE_KEYS = ("file_path", "notebook_path", "absolute_path", "target_file")
_DIR_KEYS = ("path", "dir_path", "directory", "relative_workspace_path")
_FILTER_KEYS = ("glob", "include", "include_pattern")


class Answer(NamedTuple):
    """What the hook process prints and exits with."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


class HookRequest(NamedTuple):
    """A parsed hook payload: the targets to decide, where relative paths start, the
    candidate project roots (first is the default), and the model when the tool says."""

    targets: tuple[Target, ...]
    cwd: str
    roots: tuple[str, ...]
    model: str | None = None


def _all(args: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    """Every non-empty string among ``keys``, each judged (a tool might act on any of
    them); a key holding anything but a string (or null) fails closed: the agent's tool
    might still read what it names."""
    out: list[str] = []
    for key in keys:
        value = args.get(key)
        if isinstance(value, str):
            if value and value not in out:
                out.append(value)
        elif value is not None:
            raise ValueError(f"tool_input.{key}: expected a string, got {type(value).__name__}")
    return out


def _strings(args: Mapping[str, Any], key: str) -> list[str]:
    """A list-of-strings field (absent or null: empty); any other shape fails closed."""
    value = args.get(key)
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"tool_input.{key}: expected a list of strings")
    return [v for v in value if v]


def _edit(e: Mapping[str, Any]) -> tuple[str, str, bool] | None:
    new = e.get("new_string")
    if not isinstance(new, str):
        return None
    old = e.get("old_string")
    return (old if isinstance(old, str) else "", new, e.get("replace_all") is True)


def _write(args: Mapping[str, Any]) -> list[Target]:
    """A tool that writes (or deletes) the file it names: judged by the write gates too,
    with the text it would write (``content``) or the edits it would make."""
    content = next((v for k in ("content", "new_source") if isinstance(v := args.get(k), str)), None)
    edits = [e for e in (_edit(args),) if e is not None]
    if isinstance(args.get("code_edit"), str):  # Cursor: a snippet, not an exact replacement
        edits.append(("", args["code_edit"], False))
    many = args.get("edits")
    if isinstance(many, Sequence) and not isinstance(many, str):
        edits.extend(e for e in (_edit(x) for x in many if isinstance(x, Mapping)) if e is not None)
    return [Target("write", path, content=content, edits=tuple(edits))
            for path in _all(args, (*_FILE_KEYS, "path"))]


def _file(args: Mapping[str, Any]) -> list[Target]:
    return [Target("file", path) for path in _all(args, (*_FILE_KEYS, "path"))]


def _dir(args: Mapping[str, Any]) -> list[Target]:
    return [Target("dir", path) for path in _all(args, _DIR_KEYS)]


def _search(args: Mapping[str, Any]) -> list[Target]:
    """Grep-like: file or directory paths, and optional glob filters below each."""
    paths = _all(args, (*_DIR_KEYS, *_FILE_KEYS))
    out = [Target("dir", path) for path in paths]
    for pattern in _all(args, _FILTER_KEYS):
        out.extend(Target("glob", pattern, path) for path in (paths or [""]))
    return out


def _glob(args: Mapping[str, Any]) -> list[Target]:
    bases = _all(args, _DIR_KEYS)
    out = [Target("dir", base) for base in bases]
    for pattern in _all(args, ("pattern", "glob_pattern", "query")):
        out.extend(Target("glob", pattern, base) for base in (bases or [""]))
    return out


def _many(args: Mapping[str, Any]) -> list[Target]:
    """Gemini's ``read_many_files``: ``paths`` (files, directories or globs), ``include``;
    it returns contents, so a directory or glob is denied (:data:`~._core.MANY_TEXT`). Each
    entry is judged as the tool reads it: every ``\\`` turned into ``/`` first."""
    entries = [*_strings(args, "paths"), *_strings(args, "include")]
    return [Target("many", entry.replace("\\", "/")) for entry in entries]


def _dirs(args: Mapping[str, Any]) -> list[Target]:
    """Cursor's ``codebase_search``: the directories it searches (``target_directories``)."""
    return [Target("dir", d) for d in _strings(args, "target_directories")]


#: Argument names (compared lower-case, ``_`` and ``-`` dropped) that say a tool changes the
#: file it names: an unmapped tool holding one is judged as a write (Cursor's
#: ``StrReplace``/``TabWrite``, an MCP server's ``write_file``/``edit_file``).
_WRITE_KEYS = frozenset({"content", "contents", "data", "newstring", "oldstring", "newstr", "oldstr", "codeedit",
                         "edits", "newsource", "filetext", "text", "patch", "diff", "replacement", "body"})
#: Words in an unmapped tool's name that say it changes files (``move_file``, ``create_directory``).
_WRITE_NAMES = ("write", "edit", "move", "rename", "create", "delete", "remove", "replace", "patch", "save",
                "copy", "mkdir", "append", "insert", "upload", "apply", "put", "update", "unlink", "touch")
#: Argument names (compared as :data:`_WRITE_KEYS`) that may hold a path, at any depth.
_PATH_KEYS = frozenset({"filepath", "notebookpath", "absolutepath", "targetfile", "path", "paths", "file", "files",
                        "filename", "filenames", "target", "source", "destination", "dest", "dir", "dirpath",
                        "directory", "relativeworkspacepath", "uri", "from", "to", "oldpath", "newpath"})


#: Parts of an argument name that say it holds a path (MCP servers name them freely:
#: Serena's ``relative_path``, JetBrains' ``pathInProject``, ``file_paths``, ``source_path``).
_PATH_HINTS = ("path", "file", "dir", "folder", "uri", "url", "source", "dest", "target", "location", "cwd",
               "root")
#: Names that hold a path only when they are the whole name.
_PATH_EXACT = frozenset({"src", "dst", "from", "to", "in", "out", "input", "output"})
#: A patch's file headers (``apply_patch``'s ``*** Update File: x``, unified ``--- a/x``,
#: ``+++ b/x``, ``diff --git a/x b/y``, ``rename to x``, ``Index: x``): each names a file the
#: tool writes; git C-quotes a name with odd characters (``--- "a/x\\ty"``).
_PATCH_HEADER = re.compile(
    r"^(?:\*\*\* (?:Update|Add|Delete) File: (.+)|\*\*\* Move to: (.+)"
    r"|(?:---|\+\+\+) (\"(?:[^\"\\\\]|\\\\.)*\"|[^\t\n]+)"
    r"|diff --git (.+)|(?:rename|copy) (?:from|to) (.+)|Index: (.+))$", re.M)
_QUOTED = re.compile(r'"(?:[^"\\\\]|\\\\.)*"|\S+')
_C_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(name: str) -> str:
    """A patch header's name: git's C-quoting undone (``"a/\\303\\251"`` → ``a/é``)."""
    name = name.strip()
    if len(name) < 2 or not (name.startswith('"') and name.endswith('"')):
        return name
    body, out, i = name[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and i + 3 < len(body) + 0 and all(x in "01234567" for x in body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            out += _C_ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape")
            i += 2
            continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _header_names(m: re.Match[str]) -> list[str]:
    """The file names one patch header gives: each as written and without git's ``a/``/``b/``
    prefix (a patch applied with ``-p0`` or ``-p1``)."""
    text = next(g for g in m.groups() if g)
    if m.group(4):  # diff --git A B: two names, each maybe quoted
        names = [_unquote(t) for t in _QUOTED.findall(text)[:2]]
    elif m.group(3):
        names = [_unquote(text.split("\t", 1)[0] if not text.startswith('"') else text)]
    else:
        names = [_unquote(text)]
    out: list[str] = []
    for n in names:
        if n and n != "/dev/null":
            out.append(n)
            if n[:2] in ("a/", "b/", "i/", "w/", "c/", "o/") and len(n) > 2:  # diff.mnemonicPrefix too
                out.append(n[2:])
    return out


def _key(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


def _path_key(name: str) -> bool:
    k = _key(name)
    return k in _PATH_KEYS or k in _PATH_EXACT or (k not in _WRITE_KEYS and any(h in k for h in _PATH_HINTS))


#: A URL scheme (two characters at least: ``C:\\x`` is a Windows path, not a URL).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


def _as_path(value: str) -> str | None:
    """The path a value names: a ``file:`` URL (any case, ``file:/x``, ``file:///x``,
    ``file://host/x``; percent-decoded) as its path; a URL of another scheme (``https:``,
    ``git:``) names no local file (``None``); anything else as it is."""
    m = _SCHEME.match(value)
    if m is None:
        return value
    if m.group(1).lower() != "file":
        return None
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit("file:" + value[m.end():]).path) or None


def _path_values(node: Any, depth: int = 0) -> list[str]:
    """Every string an unmapped tool's arguments hold under a path-like key, at any depth
    (``{"files": [{"path": ...}]}``, ``{"file": {"path": ...}}``, ``relative_path``,
    ``pathInProject``, ``src``/``dst``; a ``file://`` URL as its path)."""
    out: list[str] = []
    if depth > 6:
        return out
    if isinstance(node, Mapping):
        for k, v in node.items():
            if isinstance(k, str) and _path_key(k):
                if isinstance(v, str):
                    out.append(v)
                elif isinstance(v, Sequence) and not isinstance(v, str):
                    out.extend(x for x in v if isinstance(x, str))
            if isinstance(v, (Mapping, list, tuple)):
                out.extend(_path_values(v, depth + 1))
    elif isinstance(node, (list, tuple)):
        for item in node:
            out.extend(_path_values(item, depth + 1))
    paths = (_as_path(p) for p in out if p and "\n" not in p)
    return list(dict.fromkeys(p for p in paths if p))


def _patched(node: Any, depth: int = 0) -> list[str]:
    """The files a patch anywhere in the arguments names (its headers)."""
    out: list[str] = []
    if depth > 6:
        return out
    if isinstance(node, str):
        if "\n" in node or node.startswith(("***", "---", "+++", "diff ")):
            for m in _PATCH_HEADER.finditer(node[:1 << 20]):
                out += _header_names(m)
    elif isinstance(node, Mapping):
        for v in node.values():
            out.extend(_patched(v, depth + 1))
    elif isinstance(node, (list, tuple)):
        for item in node:
            out.extend(_patched(item, depth + 1))
    return out


def _has_write_key(node: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if isinstance(node, Mapping):
        return any((isinstance(k, str) and _key(k) in _WRITE_KEYS) or _has_write_key(v, depth + 1)
                   for k, v in node.items())
    if isinstance(node, (list, tuple)):
        return any(_has_write_key(x, depth + 1) for x in node)
    return False


def _generic(args: Mapping[str, Any], name: str = "") -> list[Target]:
    """An unmapped tool: every path its arguments name (any path-like key, any depth) —
    as a write when its name says it changes files (``move_file``) or its arguments carry
    text to write or an edit; otherwise as a file read (a directory to walk when the path
    names one). A write whose text the hook cannot see is judged as one that could leave
    anything (a ``.gitignore`` then cannot be checked)."""
    paths = _path_values(args)
    patched = _patched(args)
    if patched or any(w in name.lower() for w in _WRITE_NAMES) or _has_write_key(args):
        found = _write(args)
        known = {t.value: t for t in found}
        return [known.get(p, Target("write", p)) for p in dict.fromkeys([*known, *paths, *patched])]
    return [Target("file", p) for p in paths]


#: pathgate's own MCP tools, judged by their schema (the server's name is whatever the
#: settings that register it say: a repository's ``.mcp.json`` can call any server
#: "pathgate").
PATHGATE_TOOLS: dict[str, Callable[[Mapping[str, Any]], list[Target]]] = {}


Extract = Callable[[Mapping[str, Any]], list[Target]]

CLAUDE_TOOLS: dict[str, Extract] = {
    "Read": _file, "Write": _write, "Edit": _write, "MultiEdit": _write,
    "NotebookRead": _file, "NotebookEdit": _write,
    "Glob": _glob, "Grep": _search, "LS": _dir,
}
GEMINI_TOOLS: dict[str, Extract] = {
    "read_file": _file, "write_file": _write, "replace": _write, "edit": _write,
    "read_many_files": _many, "glob": _glob, "search_file_content": _search,
    "grep_search": _search, "list_directory": _dir,
}
def _pg_read(args: Mapping[str, Any]) -> list[Target]:
    return [Target("file", p) for p in _strings(args, "paths")]


def _pg_search(args: Mapping[str, Any]) -> list[Target]:
    bases = _all(args, ("path",))
    out = [Target("dir", b) for b in bases] or [Target("dir", ".")]
    out += [Target("glob", g, b) for g in _all(args, ("glob",)) for b in (bases or [""])]
    return out


PATHGATE_TOOLS.update({
    "read_files": _pg_read, "list_directory": _dir, "glob": _glob, "code_search": _pg_search,
    "write_file": _write, "edit_file": _write,
})

CURSOR_TOOLS: dict[str, Extract] = {
    **CLAUDE_TOOLS, "Delete": _write, "read_file": _file, "edit_file": _write, "StrReplace": _write,
    "TabWrite": _write,
    "list_dir": _dir, "grep_search": _search, "file_search": _glob, "delete_file": _write,
    "codebase_search": _dirs,
}


def _targets(tools: Mapping[str, Extract], name: Any, args: Any) -> tuple[Target, ...]:
    if isinstance(args, str):  # some hosts send tool_input as a JSON string
        args = json.loads(args)
    if not isinstance(name, str) or not isinstance(args, Mapping):
        raise ValueError("the payload needs `tool_name` (a string) and `tool_input` (an object)")
    for prefix in ("mcp__pathgate__", "mcp_pathgate_", "MCP:pathgate:"):
        if name.startswith(prefix):  # judged too: any server may be registered as "pathgate"
            own = PATHGATE_TOOLS.get(name[len(prefix):])
            return tuple(own(args) if own is not None else _generic(args, name))
    extract = tools.get(name)
    return tuple(extract(args) if extract is not None else _generic(args, name))


class Agent(NamedTuple):
    """One agent CLI's hook protocol."""

    name: str
    parse: Callable[[Mapping[str, Any]], HookRequest | None]
    allow: Callable[[Mapping[str, Any]], Answer]
    deny: Callable[[Mapping[str, Any], str], Answer]
    fail: Callable[[str], Answer]
    events: tuple[str, ...] = ()


def _cwd(payload: Mapping[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


# -- Claude Code -----------------------------------------------------------------------------

def _claude_parse(payload: Mapping[str, Any]) -> HookRequest | None:
    if payload.get("hook_event_name", "PreToolUse") != "PreToolUse":
        return None
    targets = _targets(CLAUDE_TOOLS, payload.get("tool_name"), payload.get("tool_input"))
    cwd = _cwd(payload)
    project = os.environ.get("CLAUDE_PROJECT_DIR") or cwd
    return HookRequest(targets, cwd, (project,))


def _claude_deny(payload: Mapping[str, Any], reason: str) -> Answer:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                  "permissionDecisionReason": reason}}
    return Answer(stdout=json.dumps(out, ensure_ascii=False) + "\n")


# -- Cursor ----------------------------------------------------------------------------------

_CURSOR_PERMISSION_EVENTS = ("beforeReadFile", "beforeTabFileRead", "preToolUse")


def _cursor_parse(payload: Mapping[str, Any]) -> HookRequest | None:
    event = payload.get("hook_event_name")
    roots = tuple(r for r in payload.get("workspace_roots") or () if isinstance(r, str) and r)
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    base = cwd or (roots[0] if roots else os.getcwd())
    model = payload.get("model") if isinstance(payload.get("model"), str) else None
    if event in ("beforeReadFile", "beforeTabFileRead"):
        path = payload.get("file_path")
        if not isinstance(path, str) or not path:
            raise ValueError(f"{event}: the payload has no `file_path`")
        return HookRequest((Target("file", path),), base, roots or (base,), model)
    if event == "preToolUse":
        targets = _targets(CURSOR_TOOLS, payload.get("tool_name"), payload.get("tool_input"))
        return HookRequest(targets, base, roots or (base,), model)
    return None


def _cursor_allow(payload: Mapping[str, Any]) -> Answer:
    if payload.get("hook_event_name") in _CURSOR_PERMISSION_EVENTS:
        return Answer(stdout='{"permission": "allow"}\n')
    return Answer(stdout="{}\n")


def _cursor_json(reason: str) -> str:
    out = {"permission": "deny", "user_message": reason, "agent_message": reason}
    return json.dumps(out, ensure_ascii=False) + "\n"


def _cursor_deny(payload: Mapping[str, Any], reason: str) -> Answer:
    return Answer(stdout=_cursor_json(reason))


# -- Gemini CLI ------------------------------------------------------------------------------

def _gemini_parse(payload: Mapping[str, Any]) -> HookRequest | None:
    if payload.get("hook_event_name", "BeforeTool") != "BeforeTool":
        return None
    targets = _targets(GEMINI_TOOLS, payload.get("tool_name"), payload.get("tool_input"))
    cwd = _cwd(payload)
    project = os.environ.get("GEMINI_PROJECT_DIR") or cwd
    return HookRequest(targets, cwd, (project,))


def _gemini_deny(payload: Mapping[str, Any], reason: str) -> Answer:
    return Answer(stdout=json.dumps({"decision": "deny", "reason": reason}, ensure_ascii=False) + "\n")


def _fail_exit2(reason: str) -> Answer:
    return Answer(stderr=reason + "\n", exit_code=2)


def _cursor_fail(reason: str) -> Answer:
    return Answer(stdout=_cursor_json(reason), stderr=reason + "\n", exit_code=2)


AGENTS: dict[str, Agent] = {
    "claude-code": Agent("claude-code", _claude_parse, lambda p: Answer(), _claude_deny, _fail_exit2,
                         ("PreToolUse",)),
    "cursor": Agent("cursor", _cursor_parse, _cursor_allow, _cursor_deny, _cursor_fail,
                    _CURSOR_PERMISSION_EVENTS),
    "gemini": Agent("gemini", _gemini_parse, lambda p: Answer(stdout="{}\n"), _gemini_deny,
                    _fail_exit2, ("BeforeTool",)),
}
