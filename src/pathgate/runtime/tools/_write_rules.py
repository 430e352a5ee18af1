"""What an agent may never write, decided without the write pipeline's machinery.

Shared by the runtime's write gates (``_write_gates.py``) and ``pathgate hook`` (which
judges the write tools of other agent CLIs without an event loop, so this module imports
nothing heavy):

* git directories not named ``.git`` (:func:`in_linked_gitdir`);
* pathgate's own policy files: ``pathgate.toml``, the agent ignore files, and the root
  ``pyproject.toml`` while it declares pathgate settings (:func:`declares_pathgate`);
* the agent CLIs' hook settings and MCP server lists (:data:`AGENT_SETTINGS`), the host's
  config files, and whatever steers git (its config files and ``[include]`` targets, the
  excludes file, ``core.hooksPath``, ``core.attributesFile``: :func:`steers`) — writing any
  of them could switch the guard off or make git run the agent's commands;
* a ``.gitignore`` gaining a negation line (:func:`added_negations`): a deeper
  ``.gitignore`` is read after the agent ignore files above it, so its ``!`` lines could
  re-include what they hide; an agent may not add one (a person may).
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.ignore import IgnoreIndex

__all__ = ["AGENT_SETTINGS", "CONFIG_FILE", "added_negations", "declares_pathgate", "in_linked_gitdir",
           "is_agent_settings", "mentions_pathgate", "negations", "read_small", "steers", "steers_guard"]

#: The agent CLIs' own settings and MCP server lists (project-relative, normalised): writing
#: them could switch a hook off (``pathgate hook install``), grant the agent permissions or
#: add a server, so no agent may write them.
AGENT_SETTINGS = frozenset({".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json",
                            ".cursor/mcp.json", ".gemini/settings.json", ".mcp.json", ".vscode/mcp.json"})


def is_agent_settings(normalized: str) -> bool:
    """Is the project-relative path ``normalized`` (each component through
    :func:`~pathgate.runtime.gates.secrets.normalize_name`) one of :data:`AGENT_SETTINGS`?"""
    return normalized.strip("/") in AGENT_SETTINGS


def steers_guard(real: str, index: IgnoreIndex) -> bool:
    """Is the absolute real path ``real`` one of the host's config files or something that
    steers git for ``index``'s root (:func:`steers`)? Blocking."""
    from pathgate.config import _host_config_files

    return steers(real, (*_host_config_files(), *index.git_steering()))


def steers(real: str, guarded: tuple[str, ...]) -> bool:
    """Is the absolute real path ``real`` one of ``guarded`` (files that configure git or the
    host: :meth:`IgnoreIndex.git_steering`, the host's config files), or below one of them
    (``core.hooksPath`` is a directory), compared as written and through symlinks? Blocking
    (``realpath``)."""
    for path in guarded:
        for spelling in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            if real == spelling or real.startswith(spelling.rstrip("/") + "/"):
                return True
    return False

#: pathgate's own configuration file, never writable by an agent (with the agent ignore files).
CONFIG_FILE = "pathgate.toml"
#: The project file that may hold pathgate settings (``[tool.pathgate]``).
PYPROJECT = "pyproject.toml"
_GIT = ".git"
_GITFILE_MAX = 4096
_PYPROJECT_MAX = 4 * 1024 * 1024


def read_small(path: str, limit: int = _PYPROJECT_MAX) -> bytes | None:
    """Up to ``limit`` bytes of the regular file at ``path``, not following a final
    symlink; ``None`` when it is missing, not a regular file or unreadable. Blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            chunk = os.read(fd, limit - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def mentions_pathgate(text: str | bytes) -> bool:
    """Could this ``pyproject.toml`` text hold pathgate settings? The configuration
    loader's own quick test (``config.py``): a table spelled with escapes counts too."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return b"pathgate" in raw or b"\\u" in raw or b"\\U" in raw


def declares_pathgate(root: str) -> bool:
    """Does ``<root>/pyproject.toml`` mention pathgate (so it may hold ``[tool.pathgate]``,
    which the configuration loader reads)? Read without following a symlink; a file that
    exists but cannot be read counts as declaring (fail closed). Blocking."""
    path = os.path.join(root, PYPROJECT)
    raw = read_small(path)
    if raw is None:
        return os.path.lexists(path) and not os.path.islink(path) and not os.path.isdir(path)
    return mentions_pathgate(raw)


def _lines(text: str) -> list[str]:
    # git drops a leading byte-order mark; splitting at every line break over-counts line
    # starts (never misses one git sees)
    return text.removeprefix("\ufeff").splitlines()


def negations(text: str) -> frozenset[str]:
    """The negation lines (``!pattern``) of ignore-file text, trailing whitespace dropped."""
    return frozenset(line.rstrip() for line in _lines(text) if line.startswith("!"))


def added_negations(old: str | None, new: str) -> list[str]:
    """Negation lines ``new`` has that ``old`` had not, in ``new``'s order."""
    before = negations(old or "")
    seen: set[str] = set()
    out: list[str] = []
    for line in _lines(new):
        line = line.rstrip()
        if line.startswith("!") and line not in before and line not in seen:
            seen.add(line)
            out.append(line)
    return out


def _gitdir_of(dirpath: str) -> str | None:
    """The real git directory a ``.git`` file in ``dirpath`` names, if there is one."""
    try:
        fd = os.open(os.path.join(dirpath, _GIT), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, _GITFILE_MAX).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    first = head.splitlines()[0] if head else ""
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    if not target:
        return None
    return os.path.realpath(os.path.join(dirpath, target))


def _within(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def _looks_like_gitdir(dirpath: str) -> bool:
    """git's own test (``is_git_directory``), without following links: ``HEAD`` plus either
    ``objects/`` and ``refs/`` (a repository, bare or not) or ``commondir`` (a worktree's)."""

    def kind(name: str) -> int:
        try:
            return stat.S_IFMT(os.lstat(os.path.join(dirpath, name)).st_mode)
        except OSError:
            return 0

    if kind("HEAD") not in (stat.S_IFREG, stat.S_IFLNK):
        return False
    if kind("commondir") == stat.S_IFREG:
        return True
    return kind("objects") == stat.S_IFDIR and kind("refs") == stat.S_IFDIR


def in_linked_gitdir(root: str, relpath: str) -> bool:
    """Is ``relpath`` inside a git directory not named ``.git``: one that a ``.git`` file of
    an ancestor directory names, or an ancestor that is a git directory itself (a bare
    repository, a worktree's or submodule's git directory)? Blocking; worker thread."""
    parts = relpath.split("/")[:-1] if relpath else []
    target = os.path.join(root, relpath)
    cur = root
    for i in range(len(parts) + 1):
        if i:
            cur = os.path.join(cur, parts[i - 1])
            if _looks_like_gitdir(cur):
                return True
        gitdir = _gitdir_of(cur)
        if gitdir is not None and _within(gitdir, root) and _within(target, gitdir):
            return True
    return False
