"""The agent-independent half of ``pathgate hook``: what a file tool call touches, and the
deny text (or ``None``) pathgate's gates give it.

A tool call is reduced to :class:`Target` values — a path the tool reads or writes, a
directory it walks, or a glob pattern it matches — and each is decided with the runtime's
path-only gates (:meth:`pathgate.Runtime.check_paths`: ``path``, ``secrets``,
``host_filter``, ``ignore``; no file is opened, so a missing file or a directory passes and
the tool reports it itself). :func:`decide` takes a :class:`~pathgate.Runtime` or, as
``pathgate hook`` does, a bare ``GateCore``, whose check runs in the calling thread without
an event loop (:mod:`pathgate.runtime._gating`): the same gates either way.

Three checks are the hook's own, because the agent's tools walk and match without pathgate:

* ``.git/`` internals are never read nor written through a hook (SPEC §2), whatever the
  ignore rules say;
* a glob aimed at secrets (``**/.env*``, ``id_rsa``, ``**/{.env,x}``, ``?env``,
  ``**/.aws/*``) is denied with a bare ``[BLOCKED]``: every brace alternative and every
  segment is judged, a wildcard segment being aimed when it matches a secret name but no
  ordinary one (``*``, ``*.py`` and ``*.json`` pass);
* a target sharing its inode with a secret (a hard link) is a bare ``[BLOCKED]``: the hook
  ``stat``s each path target and asks the secret-inode registry (the agent's own tool opens
  the file, so there is no descriptor to check).

The text is the renderer's (default ``verbose``): a bare ``[BLOCKED]`` for secrets and
host-filtered paths, the explanation with verified unblock lines for ignore blocks.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import os
import posixpath
import re
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.verdicts import Verdict

__all__ = ["GIT_DIR_TEXT", "Target", "decide", "split_glob"]

#: What the model is told when a call touches ``.git/`` (not opaque: git's own files).
GIT_DIR_TEXT = (
    "[BLOCKED]: `.git/` holds git's internal files; pathgate never lets an agent read or write "
    "them. Use git commands to inspect the repository instead."
)

_GLOB_CHARS = frozenset("*?[{")
#: Glob syntax some agents' tools understand (node-glob/minimatch, bash, GNU grep) that the
#: hook cannot judge: POSIX classes, extglobs, ``{a..z}`` ranges. A glob using one fails closed.
_UNJUDGED = re.compile(r"\[\[:|[@+!*?]\(|\{[^{},]*\.\.[^{},]*\}")
# Names a glob aimed at hidden files would reach: `.env*`, `.e*`, `.*` all match one.
_SECRET_PROBES = (".env", ".env.local", ".env.production")
# Ordinary names: a wildcard segment matching one of them is not aimed at secrets (`*`, `*.py`).
_BENIGN = ("x", "src", "makefile", "readme.md", "package.json", "tsconfig.json", "config.py", "service.py",
           "client.py", "keys.py", ".github", ".gitignore", ".prettierrc", ".dockerignore", ".husky",
           ".pre-commit-config.yaml", *(f"a.{ext}" for ext in (
    "py", "c", "h", "ts", "js", "json", "md", "txt", "yaml", "yml", "toml", "html", "css", "go", "rs", "java",
    "sh", "lock", "cfg", "ini", "xml", "csv")))
_BENIGN_PATHS = (*_BENIGN, *(f"src/{b}" for b in _BENIGN), "x/y/z.txt")
#: Names next to ``.git`` a glob may well be after (``**/.git*`` finds ``.gitignore``).
_GIT_BENIGN = (*_BENIGN, ".gitignore", ".github", ".gitattributes", ".gitmodules", ".gitkeep")
#: Brace alternatives a hook expands when judging a glob.
_MAX_ALTERNATIVES = 256

TargetKind = Literal["file", "write", "dir", "glob"]


class Target(NamedTuple):
    """One thing a tool call touches: a ``file`` it reads, a file it writes (``write``, with
    its new ``content`` or ``edits``), a ``dir`` it walks, or a ``glob`` pattern matched
    below ``base`` (a directory, ``""`` for the root)."""

    kind: TargetKind
    value: str
    base: str = ""
    #: a write's new text: the whole content (``Write``), or ``None``
    content: str | None = None
    #: a write's edits, applied in order: ``(old_string, new_string, replace_all)``
    edits: tuple[tuple[str, str, bool], ...] = ()


def has_glob(text: str) -> bool:
    """Does ``text`` contain glob syntax (an extglob such as ``@(a|b)`` included)?"""
    return any(c in _GLOB_CHARS for c in text) or ("(" in text and _UNJUDGED.search(text) is not None)


def split_glob(pattern: str) -> tuple[str, str]:
    """``(literal directory prefix, last segment)`` of a glob: ``src/**/*.py`` gives
    ``("src", "*.py")``; the prefix is what the glob walks for sure. An absolute pattern
    keeps an absolute prefix (``/etc/*`` gives ``("/etc", "*")``), so it is judged where it
    points, not below the root."""
    text = pattern.replace("\\", "/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    prefix: list[str] = []
    for part in parts[:-1]:
        if has_glob(part):
            break
        prefix.append(part)
    lead = "/" if text.startswith("/") else ""
    return lead + "/".join(prefix), (parts[-1] if parts else "")


def expand_braces(pattern: str, limit: int = _MAX_ALTERNATIVES) -> list[str] | None:
    """``pattern`` with its ``{a,b}`` alternatives expanded (nested too); ``None`` past
    ``limit`` spellings. An unbalanced brace is literal: ``src/{a,b}.py`` gives ``src/a.py``,
    ``src/b.py``."""
    out: list[str] = []
    todo = [pattern]
    while todo:
        cur = todo.pop()
        span = _first_group(cur)
        if span is None:
            out.append(cur)
        else:
            start, end, alts = span
            todo.extend(cur[:start] + alt + cur[end + 1:] for alt in reversed(alts))
        if len(out) + len(todo) > limit:
            return None
    return out


def _first_group(text: str) -> tuple[int, int, list[str]] | None:
    """``(open, close, alternatives)`` of the first ``{...}`` group to close (one linear
    scan; expansion order does not matter). A group without a comma is one alternative, as
    in ripgrep's globs (``{.env}`` is ``.env``)."""
    stack: list[tuple[int, list[int]]] = []
    for i, c in enumerate(text):
        if c == "{":
            stack.append((i, []))
        elif c == "," and stack:
            stack[-1][1].append(i)
        elif c == "}" and stack:
            start, commas = stack.pop()
            bounds = [start, *commas, i]
            return start, i, [text[x + 1:y] for x, y in itertools.pairwise(bounds)]
    return None


def _probes(runtime: GateCore) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Concrete secret names (basenames) and secret paths a glob could be aimed at: the
    ``.env`` probes plus one spelling of each secret pattern (``*`` read as ``x``)."""
    names: list[str] = list(_SECRET_PROBES)
    paths: list[str] = []
    for pattern in runtime.policy.secret_patterns:
        for fill in ("", "x"):
            probe = pattern.casefold().strip("/").replace("*", fill).replace("?", "x")
            if probe and not has_glob(probe):
                (paths if "/" in probe else names).append(probe)
    return tuple(names), tuple(paths)


def _generic(segment: str, benign: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(b, segment) for b in benign)


def _path_match(pattern: str, path: str) -> bool:
    """Does the glob ``pattern`` match ``path`` segment by segment (``*`` never crosses a
    ``/``; ``**`` is any number of segments), as ripgrep's and git's globs do?"""
    pats = [p for p in pattern.split("/") if p not in ("", ".")]
    parts = [p for p in path.split("/") if p]
    memo: dict[tuple[int, int], bool] = {}

    def match(i: int, j: int) -> bool:
        key = (i, j)
        if key not in memo:
            if i == len(pats):
                memo[key] = j == len(parts)
            elif pats[i] == "**":
                memo[key] = match(i + 1, j) or (j < len(parts) and match(i, j + 1))
            else:
                memo[key] = j < len(parts) and fnmatch.fnmatchcase(parts[j], pats[i]) and match(i + 1, j + 1)
        return memo[key]

    return match(0, 0)



_ESCAPABLE_AS_CLASS = frozenset("*?[]{}!")


def _unescape(pattern: str) -> str:
    """``pattern`` with ripgrep's ``\\c`` escapes read as the literal ``c`` (a one-character
    class where ``c`` is glob syntax) and ``[^...]`` read as fnmatch's ``[!...]``."""
    out: list[str] = []
    chars = iter(pattern)
    for c in chars:
        if c == "\\":
            nxt = next(chars, "")
            out.append(f"[{nxt}]" if nxt in _ESCAPABLE_AS_CLASS and nxt else nxt)
        else:
            out.append(c)
    return "".join(out).replace("[^", "[!")


def _readings(pattern: str) -> list[str] | None:
    """Every spelling a glob could mean to the agent's tool, brace alternatives expanded:
    ``\\`` as a Windows separator and as ripgrep's escape; ``None`` when there are too
    many to judge (the caller fails closed)."""
    out: dict[str, None] = {}
    for reading in dict.fromkeys((pattern.replace("\\", "/").replace("[^", "[!"), _unescape(pattern))):
        alternatives = expand_braces(reading)
        if alternatives is None:
            return None
        out.update(dict.fromkeys(alternatives))
        if len(out) > _MAX_ALTERNATIVES:
            return None
    return list(out)


def _aims_at_git(pattern: str) -> bool:
    """Is a glob aimed at ``.git`` internals? Any segment of any reading that names
    ``.git`` (any spelling git's gate knows) or is a wildcard matching ``.git`` but no
    ordinary name (``.gi?``, ``{.git,x}``; not ``*``). An exclusion (``!...``) is not."""
    if pattern.startswith("!"):
        return False
    if _UNJUDGED.search(pattern):
        return True
    alternatives = _readings(pattern)
    if alternatives is None:
        return True
    for alt in alternatives:
        for seg in (s for s in alt.casefold().split("/") if s not in ("", ".", "**")):
            if not has_glob(seg):
                if _in_git_dir(seg):
                    return True
            elif fnmatch.fnmatchcase(".git", seg) and not _generic(seg, _GIT_BENIGN):
                return True
    return False


def _aims_at_secret(runtime: GateCore, pattern: str) -> bool:
    """Is a glob aimed at secret names? Every brace alternative and every segment is
    judged: a literal secret name, or a wildcard segment that matches a secret name but no
    ordinary one (``?env``, ``[.]env``, ``id_rs?``, ``*.pem``; not ``*`` or ``*.py``); a
    whole pattern aimed at a secret path (``**/.aws/credentials``) likewise."""
    if _UNJUDGED.search(pattern):
        return True
    secrets = runtime.pipeline.secrets
    names, paths = _probes(runtime)
    alternatives = _readings(pattern)
    if alternatives is None:
        return True  # too many to judge: fail closed
    for alt in alternatives:
        folded = alt.casefold()
        for seg in (s for s in folded.split("/") if s not in ("", ".", "**")):
            if not has_glob(seg):
                if secrets.is_secret_name(seg):
                    return True
            elif not _generic(seg, _BENIGN) and any(fnmatch.fnmatchcase(n, seg) for n in names):
                return True
        if paths and has_glob(folded) and not any(_path_match(folded, b) for b in _BENIGN_PATHS):
            if any(_path_match(folded, p) or _path_match(folded, "x/" + p) for p in paths):
                return True
        elif paths and not has_glob(folded) and secrets.is_secret(folded.strip("/")):
            return True
    return False


def _in_git_dir(relpath: str) -> bool:
    from pathgate.runtime.gates.path import is_git_internal  # loaded with the runtime already

    return is_git_internal(relpath.replace("\\", "/"))


def _components(path: str) -> list[str]:
    """``/``-separated components with empty and ``.`` ones dropped; ``..`` kept."""
    return [c for c in path.replace(os.sep, "/").split("/") if c not in ("", ".")]


def _under(comps: list[str], root: str) -> str | None:
    """``comps`` relative to ``root`` when they start with the root's components, else
    ``None``."""
    for base in dict.fromkeys((os.path.abspath(root), os.path.realpath(root))):
        head = _components(base)
        if comps[:len(head)] == head:
            return "/".join(comps[len(head):]) or "."
    return None


def _spellings(path: str, root: str, cwd: str) -> tuple[str, ...]:
    """``path`` as the runtime should judge it: relative to the root when it is inside it,
    else absolute. Two spellings when they differ: the one **as written** (``..`` kept, so
    the runtime resolves it on the disk as the operating system will: ``link/../x`` is
    ``x`` next to the link's *target*), and the one with ``..`` collapsed as text (what a
    tool that normalises paths before opening them reads). A path starting with ``~`` is
    judged as written and as a shell or the agent's tool expands it (``~/.ssh`` is the
    home's). A call is allowed only when every spelling is."""
    out = _spellings_of(path, root, cwd)
    if path.startswith("~"):
        expanded = os.path.expanduser(path)
        if expanded != path:
            out = tuple(dict.fromkeys((*out, *_spellings_of(expanded, root, cwd))))
    return out


def _spellings_of(path: str, root: str, cwd: str) -> tuple[str, ...]:
    """:func:`_spellings` without ``~`` expansion."""
    full = path if os.path.isabs(path) else os.path.join(cwd, path)
    comps = _components(full)
    written = _under(comps, root)
    if written is None:
        written = "/" + "/".join(comps)
    lexical = os.path.abspath(full)
    lexical_rel = _under(_components(lexical), root)
    return tuple(dict.fromkeys((written, lexical if lexical_rel is None else lexical_rel)))


def _relative(path: str, root: str, cwd: str) -> str:
    """``path`` relative to the root as written (see :func:`_spellings`)."""
    return _spellings(path, root, cwd)[0]


def _text(runtime: GateCore, renderer: str | None, model: str | None, verdict: Verdict) -> str:
    out: Any = runtime.renderer_for(model, renderer).render_verdict("", verdict)
    if isinstance(out, str):
        return out
    import json

    return json.dumps(out, ensure_ascii=False)


async def _secret_alias(runtime: GateCore, rel: str) -> bool:
    """Is the file ``rel`` names a hard link sharing its inode with a secret (or, with
    ``strict_hard_links``, any multi-linked file)? The agent's own tool opens the file, so
    the hook checks the file that is there now: one ``stat``, run where the runtime runs
    blocking calls (a bare ``GateCore``: inline)."""
    linked = runtime._linked_secret()
    if linked is None:
        return False
    path = rel if os.path.isabs(rel) else os.path.join(runtime.root, rel)

    def probe() -> bool:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return False
        return stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and linked(st)

    return await runtime.run_blocking(probe)


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


def _write_denial(runtime: GateCore, target: Target, rel: str, renderer: str | None,
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
        policy = steers_guard(real, runtime.index)
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


def _holds_secret_path(runtime: GateCore, rels: Sequence[str]) -> bool:
    """Is a directory the agent's tool would walk one that a secret *path* pattern names
    as a parent (``.aws`` for ``.aws/credentials``), by any spelling or its real path? Its
    walk would read the secret, which the hook cannot see."""
    _names, paths = _probes(runtime)
    parents = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    if not parents:
        return False
    for rel in rels:
        full = rel if os.path.isabs(rel) else os.path.join(runtime.root, rel)
        real = os.path.relpath(os.path.realpath(full), runtime.root).replace(os.sep, "/")
        for spelling in (rel, real):
            folded = "/" + spelling.casefold().strip("/")
            if any(folded.endswith("/" + parent) for parent in parents):
                return True
    return False


def _glob_denial(runtime: GateCore, t: Target, root: str, cwd: str) -> str | None:
    """The hook's own judgement of a glob: aimed at secrets (also joined to its base
    directory: ``credentials`` below ``.aws``), or at ``.git``."""
    aimed = [t.value]
    if t.base and not t.value.startswith(("/", "!")):
        base = _relative(t.base, root, cwd)
        if base != "." and not os.path.isabs(base):
            aimed.append(posixpath.join(base, t.value))
    if any(_aims_at_secret(runtime, a) for a in aimed):
        return "[BLOCKED]"
    if _aims_at_git(t.value):
        return GIT_DIR_TEXT
    return None


async def decide(
    runtime: GateCore,
    targets: Sequence[Target],
    *,
    cwd: str,
    renderer: str | None = None,
    model: str | None = None,
    root: str | None = None,
) -> str | None:
    """The deny text for a tool call touching ``targets``, or ``None`` to allow it.

    Relative paths are taken from ``cwd``; ``root`` is the root as the agent spells it
    (default: the runtime's real root). Each path is judged as written (``..`` resolved on
    the disk, as the operating system does) and with ``..`` collapsed as text, and must pass
    both. With several blocked targets, each line names the path the agent gave."""
    root = root or runtime.root
    texts: list[tuple[str, str | None]] = []  # (shown spelling, deny text), request order
    pending: list[tuple[int, str, Target]] = []  # (slot, runtime spelling, target)
    for t in targets:
        shown = t.value
        if t.kind == "glob":
            denial = _glob_denial(runtime, t, root, cwd)
            if denial is not None:
                texts.append((shown, denial))
                continue
            prefix, _last = split_glob(t.value)
            base = t.base or "."
            shown = posixpath.join(base, prefix) if prefix else base
        rels = _spellings(shown, root, cwd)
        if any(not os.path.isabs(rel) and _in_git_dir(rel) for rel in rels):
            texts.append((t.value, GIT_DIR_TEXT))
            continue
        if t.kind in ("dir", "glob", "file") and _holds_secret_path(runtime, rels):
            texts.append((t.value, "[BLOCKED]"))
            continue
        texts.append((t.value, None))
        pending.extend((len(texts) - 1, rel, t) for rel in rels if rel != ".")
    if pending:
        verdicts = await runtime.check_paths([rel for _, rel, _ in pending], model=model)
        for (slot, rel, t), verdict in zip(pending, verdicts, strict=True):
            if texts[slot][1] is not None:
                continue  # the first denial of a target is the one shown
            text: str | None = None
            if verdict is not None:
                text = _text(runtime, renderer, model, verdict)
            elif await _secret_alias(runtime, rel):  # a file to read, or a "directory" to search
                text = "[BLOCKED]"
            elif t.kind == "write":
                text = await runtime.run_blocking(functools.partial(_write_denial, runtime, t, rel, renderer, model))
            if text is not None:
                texts[slot] = (texts[slot][0], text)
    denials = [(shown, text) for shown, text in texts if text is not None]
    if not denials:
        return None
    if len(denials) == 1:
        return denials[0][1]
    return "\n".join(f"`{shown}`: {text}" for shown, text in denials)
