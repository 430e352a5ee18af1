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

from pathgate._hooks._many import may_vary

if TYPE_CHECKING:
    from pathgate.runtime._gating import GateCore
    from pathgate.verdicts import Verdict

__all__ = ["GIT_DIR_TEXT", "MANY_TEXT", "Target", "decide", "split_glob"]

#: The deny text of a content tool (Gemini CLI's ``read_many_files``) given a glob, a
#: directory, or a name with a cased letter (the tool globs names case-insensitively, so it
#: could read a case variant: :mod:`._many`): it returns the contents of every file that
#: matches, and a hook can only allow or deny the whole call, so it is denied whatever the
#: matches are (a denial that depended on whether a secret matched, or whether a variant
#: exists, would tell the model the secret exists).
MANY_TEXT = (
    "[BLOCKED]: this tool returns the contents of every file a glob, directory or name matches "
    "(names case-insensitively), which pathgate cannot check one by one here. Find the "
    "files with the glob tool, then read them one at a time with the file-reading tool."
)
#: What the model is told when a call touches ``.git/`` (not opaque: git's own files).
GIT_DIR_TEXT = (
    "[BLOCKED]: `.git/` holds git's internal files; pathgate never lets an agent read or write "
    "them. Use git commands to inspect the repository instead."
)

_GLOB_CHARS = frozenset("*?[{")
#: Glob syntax some agents' tools understand (node-glob/minimatch, bash, GNU grep) that the
#: hook cannot judge: POSIX classes, extglobs, ``{a..z}`` ranges. A glob using one fails closed.
_UNJUDGED_SYNTAX = re.compile(r"\[\[:|[@+!*?]\(")
#: A brace group without a comma (possessive: linear in the pattern's length, where a
#: ``\{[^{},]*\.\.[^{},]*\}`` search was quadratic: ``{`` and 40,000 dots took 12 s).
_BRACE_GROUP = re.compile(r"\{([^{},]*+)\}")


def _unjudged(pattern: str) -> bool:
    """Does ``pattern`` use glob syntax the hook cannot judge (a POSIX class, an extglob, a
    ``{a..z}`` range), or more brackets or braces than :data:`_MAX_BRACKETS` (the standard
    library's glob translation is quadratic in brackets: red team 16 G10, 17 s for 20,000;
    each brace group is a scan and a copy of the pattern)?"""
    if pattern.count("[") > _MAX_BRACKETS or pattern.count("{") > _MAX_BRACKETS:
        return True  # (each brace group is one more scan and copy of the pattern: red team 17 H2)
    if _UNJUDGED_SYNTAX.search(pattern) is not None:
        return True
    return "{" in pattern and ".." in pattern and any(".." in g for g in _BRACE_GROUP.findall(pattern))
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
#: Brackets (or braces) in a glob past which the hook does not judge it (denied as aimed at
#: secrets).
_MAX_BRACKETS = 64

TargetKind = Literal["file", "write", "dir", "glob", "many"]


class Target(NamedTuple):
    """One thing a tool call touches: a ``file`` it reads, a file it writes (``write``, with
    its new ``content`` or ``edits``), a ``dir`` it walks, a ``glob`` pattern matched
    below ``base`` (a directory, ``""`` for the root), or ``many``: a file whose contents the
    tool returns, or a directory or glob whose every file's contents it returns
    (:data:`MANY_TEXT`)."""

    kind: TargetKind
    value: str
    base: str = ""
    #: a write's new text: the whole content (``Write``), or ``None``
    content: str | None = None
    #: a write's edits, applied in order: ``(old_string, new_string, replace_all)``
    edits: tuple[tuple[str, str, bool], ...] = ()


def has_glob(text: str) -> bool:
    """Does ``text`` contain glob syntax (an extglob such as ``@(a|b)`` included)?"""
    return any(c in _GLOB_CHARS for c in text) or ("(" in text and _unjudged(text))


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
            if len(out) + len(todo) + len(alts) > limit:  # before building them (red team 17 H6)
                return None
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
    if _unjudged(pattern):
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
    if _unjudged(pattern):
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


def _not_one_file(rel: str, root: str) -> bool:
    """Would a content tool read more than the one file the spelling ``rel``
    (:func:`_spellings`) names? A directory (links followed, as the tool opens it) is read
    whole, and a name that is not there exactly as written is globbed (Gemini CLI's
    ``read_many_files`` matches it case-insensitively: ``APP.CFG`` reads ``app.cfg``; a name
    that is there is globbed too, see :mod:`._many`); anything that cannot be told counts
    too (fail closed)."""
    full = rel if os.path.isabs(rel) else os.path.join(root, rel)
    try:
        return stat.S_ISDIR(os.stat(full).st_mode)
    except (OSError, ValueError):
        return True


def _reads_more(entry: str, root: str, cwd: str) -> bool:
    """Could a content tool given ``entry`` read more than the one file it names: a glob, a
    name that could have case variants (:mod:`._many`: Gemini CLI globs every entry
    case-insensitively; judged from the entry alone, never from the tree), a directory or a
    name not there exactly (:func:`_not_one_file`)?"""
    if has_glob(entry) or may_vary(entry, (cwd, root)):
        return True
    return any(_not_one_file(rel, root) for rel in _spellings(entry, root, cwd))


async def _deny_many(runtime: GateCore, texts: list[tuple[str, str | None]], many: Sequence[int],
                     root: str, cwd: str) -> None:
    """Deny (:data:`MANY_TEXT`) each content-tool entry the gates allowed that would read
    more than one file. What a secret's name or the gates decide comes first, and the text
    is the same whatever the extra files are or lead to. One blocking step for all."""
    open_slots = [slot for slot in many if texts[slot][1] is None]
    if not open_slots:
        return

    def judge() -> list[int]:
        return [slot for slot in open_slots if _reads_more(texts[slot][0], root, cwd)]

    for slot in await runtime.run_blocking(judge):
        texts[slot] = (texts[slot][0], MANY_TEXT)


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
    many: list[int] = []  # slots of content-tool entries: denied at the end if a glob or directory
    for t in targets:
        shown = t.value
        if t.kind == "many":
            many.append(len(texts))
            t = t._replace(kind="glob" if has_glob(t.value) else "file")
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
                from pathgate._hooks._write_judge import write_denial

                text = await runtime.run_blocking(functools.partial(write_denial, runtime, t, rel, renderer, model))
            if text is not None:
                texts[slot] = (texts[slot][0], text)
    await _deny_many(runtime, texts, many, root, cwd)
    denials = [(shown, text) for shown, text in texts if text is not None]
    if not denials:
        return None
    if len(denials) == 1:
        return denials[0][1]
    return "\n".join(f"`{shown}`: {text}" for shown, text in denials)
