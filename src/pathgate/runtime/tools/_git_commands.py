"""The scripts git's own configuration runs, never writable by an agent.

git runs commands its configuration names: ``core.fsmonitor`` on every ``git status``, a
filter's ``clean``/``smudge``/``process`` on checkout and add, a ``textconv`` or an external
diff on ``git diff``, ``core.pager`` and ``pager.<cmd>`` on paged output, a ``!``-alias when
the user types it, ``core.sshCommand`` on fetch, ``gpg.program`` when it signs, a credential
helper, an editor … Git's config files themselves are never writable
(:meth:`~pathgate.runtime.ignore.IgnoreIndex.git_steering`); the point here is the scripts
they name: an agent that rewrites ``tools/fsmon.sh`` gets its code run at the user's next
``git status``, as if it had written the configuration.

So every value of a command-valued key (:func:`is_command_key`), in every config file git
reads for the repository (:meth:`~pathgate.runtime.ignore.IgnoreIndex.git_config`: the
system and global files, the repository's ``config`` and ``config.worktree``, their
includes and ``git -c`` values from the environment), is read as a shell command line as the
agent settings' commands are (:func:`~._agent_commands.command_paths`: scripts, interpreter
operands, imports; not a task runner's manifest, as for git's hooks) run from the top of
the work tree (git runs them there; a root below the top reads them from both, and keeps what
can name a file inside the root: :func:`into_root`); a leading ``!`` (an alias's, a submodule update's) is
the shell's, and so is what follows a remote URL's ``ext::``. Every alias counts
(``alias.x = -c core.pager=tools/p.sh log`` sets a command too). Past :data:`_MAX_COMMANDS`
values, or a value past the parser's bounds, nothing is writable
(:class:`~._settings_load.Unchecked`).

:func:`names` matches a write's real path against such named paths — as written, through
symlinks (``scripts`` a link to ``lib``: ``lib/x.sh`` is ``scripts/x.sh``), and as shell
globs (``for f in scripts/*.sh``) — shared with :mod:`._git_hooks`. Blocking; standard library
only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pathgate.runtime.tools._named_index import NamedIndex, realpath

__all__ = ["config_runs", "into_root", "is_command_key", "names"]

#: ``section.variable`` keys whose value git runs as a command (or a program's path).
_KEYS = frozenset({
    "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.gitproxy",
    "core.alternaterefscommand", "sequence.editor", "diff.external", "diff.tool", "merge.tool",
    "credential.helper", "gpg.program", "interactive.difffilter", "imap.tunnel", "web.browser",
    "uploadpack.packobjectshook", "sendemail.sendmailcmd", "sendemail.smtpserver", "sendemail.tocmd",
    "sendemail.cccmd", "sendemail.headercmd"})
#: ``(section, variable)`` of ``section.<name>.variable`` keys whose value git runs.
_SUBKEYS = frozenset({
    ("diff", "textconv"), ("diff", "command"), ("filter", "clean"), ("filter", "smudge"), ("filter", "process"),
    ("merge", "driver"), ("credential", "helper"), ("gpg", "program"), ("gpg", "defaultkeycommand"),
    ("difftool", "cmd"), ("difftool", "path"), ("mergetool", "cmd"), ("mergetool", "path"), ("man", "cmd"),
    ("man", "path"), ("browser", "cmd"), ("browser", "path"), ("trailer", "command"), ("trailer", "cmd"),
    ("remote", "receivepack"), ("remote", "uploadpack"), ("submodule", "update"), ("guitool", "cmd"),
    ("sendemail", "sendmailcmd"), ("sendemail", "smtpserver"), ("sendemail", "tocmd"), ("sendemail", "cccmd"),
    ("sendemail", "headercmd"),
    # git-lfs: a custom transfer agent's program, an extension's filters
    ("lfs", "path"), ("lfs", "clean"), ("lfs", "smudge")})
#: Sections every key of which git may run (``alias.x = !sh x.sh``, ``pager.log = tools/p.sh``).
_SECTIONS = frozenset({"alias", "pager"})
#: Command values (and paths they name) one repository's configuration may hold before
#: nothing is writable (each path is resolved on every write).
_MAX_COMMANDS = 4096
#: Glob characters: a word holding one names every file it matches.
_GLOB = re.compile(r"[*?\[]")

#: Per root: (the configuration the paths were read from, the paths it names).
_cache: dict[str, tuple[object, str, tuple[tuple[str, bool], ...]]] = {}


def is_command_key(key: str) -> bool:
    """Does git run the value of the configuration key ``key`` (``section.key`` lower-cased,
    a subsection between as written) as a command, or a program's path?"""
    section, _, rest = key.partition(".")
    if section in _SECTIONS:
        return True
    if "." not in rest:
        return key in _KEYS
    return (section, rest.rsplit(".", 1)[1]) in _SUBKEYS


def _runs_value(key: str, value: str) -> bool:
    """Does git run ``value`` of ``key``: a command-valued key, or a remote URL of git's
    ``ext::`` transport (``ext::sh tools/x.sh``: a command, when ``protocol.ext.allow`` lets
    it run)?"""
    if is_command_key(key):
        return True
    return key.startswith(("remote.", "url.")) and value.lstrip().startswith("ext::")


def _command(key: str, value: str) -> str:
    """The shell command line ``value`` of ``key`` runs: without the shell's leading ``!``
    or the transport's ``ext::``."""
    value = value.strip()
    if value.startswith("ext::"):
        return value[len("ext::"):]
    return value.removeprefix("!")


def config_runs(real: str, root: str, config: tuple[tuple[str, str | None], ...], top: str | None = None) -> bool:
    """Is the absolute real path ``real`` (inside the real ``root``) a script a
    command-valued key of ``config`` (every ``(key, value)`` git reads, in order) runs? Its
    command lines are read from the top of the work tree ``top`` (git runs aliases, filters
    and hooks there; ``None``: the root) and, below it, from the root too (where a command
    started there runs a pager or an editor). Blocking."""
    top = top or root
    hit = _cache.get(root)
    if hit is not None and hit[0] is config and hit[1] == top:
        named = hit[2]
    else:
        named = _named(root, config, top)
        if len(_cache) > 64:
            _cache.clear()
        _cache[root] = (config, top, named)
    return names(real, named, root)


def _named(root: str, config: tuple[tuple[str, str | None], ...], top: str) -> tuple[tuple[str, bool], ...]:
    from pathgate.runtime.tools._agent_commands import Unchecked, command_paths

    values = list(dict.fromkeys(_command(k, v) for k, v in config if v and _runs_value(k, v)))
    if len(values) > _MAX_COMMANDS:
        return ((root, True),)
    out: dict[str, bool] = {}
    try:
        for value in values:
            found = command_paths(value, top, manifests=False)
            if top != root:
                found = [*into_root(found, root), *command_paths(value, root, manifests=False)]
            for path, tree in found:
                out[path] = out.get(path, False) or tree
    except Unchecked:
        return ((root, True),)
    return tuple(out.items()) if len(out) <= _MAX_COMMANDS else ((root, True),)


def into_root(found: Iterable[tuple[str, bool]], root: str) -> list[tuple[str, bool]]:
    """The paths of ``found`` (read from the top of the work tree, above ``root``) that can
    name a file inside ``root``: the ones below it as written or through a link, a shell
    glob, and a directory above it whose everything counts (then: the whole root)."""
    inside = root.rstrip("/") + "/"
    out: list[tuple[str, bool]] = []
    for path, tree in found:
        if path.startswith(inside) or _GLOB.search(path):
            out.append((path, tree))
            continue
        resolved = realpath(path)
        if resolved is None or resolved == root or resolved.startswith(inside):
            out.append((path, tree))
        elif tree and (inside.startswith(path.rstrip("/") + "/") or inside.startswith(resolved.rstrip("/") + "/")):
            out.append((root, True))
    return out


#: The index of each tuple of named paths (by identity, the tuple held with it): built
#: once with the parse, asked on every write.
_indexes: dict[int, tuple[tuple[tuple[str, bool], ...], str, NamedIndex]] = {}


def names(real: str, named: tuple[tuple[str, bool], ...], root: str) -> bool:
    """Does one of ``named`` (absolute paths, each with whether everything below it counts)
    name the absolute real path ``real`` (inside the real ``root``): as written or resolved
    through symlinks, compared as a case-insensitive filesystem would open them, a shell glob
    matched component by component? A path that cannot be resolved (a link swapped mid-way)
    names it. Answered by a :class:`~._named_index.NamedIndex` of ``named`` made once (red
    team 16 G3: resolving each of 4,000 deep named paths on every write took 10-15 s).
    Blocking (``lstat``, ``realpath``)."""
    hit = _indexes.get(id(named))
    if hit is None or hit[0] is not named or hit[1] != root:
        if len(_indexes) > 64:
            _indexes.clear()
        hit = _indexes[id(named)] = (named, root, NamedIndex(named, root))
    return hit[2].names(real)
