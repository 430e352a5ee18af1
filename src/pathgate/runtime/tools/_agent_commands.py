"""The files inside a project that the agent CLIs' protected settings run.

``.claude/settings.json`` may run ``"$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"`` as a hook,
``.mcp.json`` may start ``node tools/server.js``: an agent that rewrites such a script
switches a hook off (pathgate's own, when the script runs ``pathgate hook``) or runs its
code at the next tool call, as if it had written the settings file itself. So these files
are never writable, like the settings that name them (:func:`runs`):

* every file a ``command`` (hooks, status lines, MCP servers), its ``args``, ``env``
  values (also read as paths whatever they look like, and one steering git into the
  project leaves nothing writable: :mod:`._settings_env`) and ``envFile``, or a helper
  command (``apiKeyHelper``, Gemini's ``toolCallCommand`` …) names, in the settings files of :data:`SETTINGS` under the
  root and in the user-level ones (a user's hook may name ``$CLAUDE_PROJECT_DIR/…``): each
  command is split as a shell would (``shlex``), a project-directory variable
  (``$CLAUDE_PROJECT_DIR``, ``${workspaceFolder}`` …) or any leading variable is read as the
  root, ``~`` as the home, a relative path from the root (and from the entry's ``cwd``);
  a word counts when it holds a ``/``, has a script's extension, follows an interpreter
  (``bash x``, ``python3 x``, ``node x``) or names a module (``python3 -m pkg.mod``); a
  directory in a position that runs it (the command word, an interpreter's operand) counts
  with everything below it, the root's entry files instead of the root (``python3 .``,
  ``node .``); a file fed to an interpreter (``sh <x``, ``cat x | sh``, ``awk -f x``) counts
  as its operand; a task runner's manifest counts when the command starts one
  (``npm``/``pnpm``/``yarn``: ``package.json``, ``make``: ``Makefile``, ``uv``/``poetry``:
  ``pyproject.toml``, ``./mvnw``: ``pom.xml`` and its modules' … :mod:`._runners`,
  :mod:`._modules`). What such a runner's
  scripts run in turn (a linter's config, the project's own code) is not followed: a hook
  that runs project code is as safe as that code is unwritable;
* conservatively, everything below ``.claude/hooks/``, ``.cursor/hooks/`` and
  ``.gemini/hooks/``;
* the hook and server files of the plugins of a marketplace kept in a directory of the
  project, which Claude Code runs in place, and what they name (:mod:`._plugins`).

A project's settings file (or manifest) that is a link, is reached through one or has other
hard links is never read, whatever it leads to (:mod:`._guard_read`): it cannot be checked.

A settings file is read as its agent reads it: JSON with comments and trailing commas
(VS Code's and Gemini CLI's files are JSONC). One that still does not parse, or is nested
past Python's parser, is read as every string it holds being a command (over-inclusive: an
agent's own tolerant parser may still run what it holds; a one-word string as an
interpreter's operand); one past the size bound, a command line past the word bound, shell
quoting nested past the depth bound or more named paths than :data:`_MAX_NAMED` leaves
nothing writable (:data:`UNCHECKED`): a repository's file that cannot be checked must not
loosen the guard. The named paths are indexed with the parse (:mod:`._named_index`): a
write looks its target up rather than resolving every named path.

Only writes ask (reads never do); the parsed answer is kept per root while the settings
files and the build files read for them keep their ``stat`` signature. Imports only the standard library and the bounded
reader of :mod:`pathgate.runtime.fs` (``pathgate hook`` loads it on a write).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator, Sequence

from pathgate.runtime.tools._agent_files import COMMAND_KEYS as _COMMAND_KEYS
from pathgate.runtime.tools._agent_files import DEVCONTAINER_DIR as _DEVCONTAINER_DIR
from pathgate.runtime.tools._agent_files import HOOK_DIRS, SETTINGS
from pathgate.runtime.tools._agent_files import MAX_DEVCONTAINERS as _MAX_DEVCONTAINERS
from pathgate.runtime.tools._agent_files import OPTION_VARS as _OPTION_VARS
from pathgate.runtime.tools._agent_files import PROFILES as _PROFILES
from pathgate.runtime.tools._agent_files import USER_SETTINGS as _USER_SETTINGS
from pathgate.runtime.tools._command_words import MAKE_FLAGS, PATH_VARS, VAR, candidates
from pathgate.runtime.tools._guard_read import judge_key, missing_signature, unlinked_signature
from pathgate.runtime.tools._modules import Reads, reads_module_list
from pathgate.runtime.tools._named_index import MAX_LOOSE_COMPONENTS, NamedIndex, fold_path
from pathgate.runtime.tools._named_index import realpath as _realpath
from pathgate.runtime.tools._plugins import FILE_SOURCE, Plugins, marketplaces, plugin_files
from pathgate.runtime.tools._runners import root_entries
from pathgate.runtime.tools._settings_env import env_paths
from pathgate.runtime.tools._settings_load import Strings, Unchecked, load
from pathgate.runtime.tools._shell_words import _split

__all__ = ["HOOK_DIRS", "SETTINGS", "UNCHECKED", "Unchecked", "command_paths", "fold_path", "in_hook_dir", "runs"]

_MAX_SETTINGS = 8 * 1024 * 1024
#: A project's own settings file past this cannot be checked (real ones are kilobytes).
_MAX_PROJECT_SETTINGS = 1024 * 1024



#: Per root: (the settings files' signatures, the candidate paths they name), see :func:`_named`.
_cache: dict[str, tuple[tuple[object, ...], Reads, NamedIndex]] = {}
#: A settings file changed this recently (seconds) is not cached: a rewrite within one
#: timestamp tick could keep its signature (git's "racily clean" index entries).
_RACY = 2.0


def runs(real: str, root: str) -> bool:
    """Is the absolute real path ``real`` (``root`` is a real path) a file an agent CLI's
    settings run, a settings file reached through a link, or below one of
    :data:`HOOK_DIRS`? Blocking.

    An agent CLI may be started in any directory of the project (``cd pkg && claude`` in a
    monorepo): it then loads ``pkg/.claude/settings.json`` and runs ``pkg/.claude/hooks/``,
    with ``$CLAUDE_PROJECT_DIR`` read as ``pkg``. So the settings files of the root and of
    every directory between it and ``real`` are read, each with its own directory as the
    project directory (the user-level ones with each of them too)."""
    rel = os.path.relpath(real, root).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        return False
    folded = "/".join(c.rstrip(" .").casefold() for c in rel.split("/"))
    if in_hook_dir(folded):
        return True
    parts = rel.split("/")[:-1]
    if len(parts) > MAX_DEPTH:  # each level is a base of its own (red team 16 G5)
        return True
    bases = [root]
    for part in parts:  # a directory that does not exist holds no settings (nor below it)
        if not os.path.isdir(os.path.join(bases[-1], part)):
            break
        bases.append(os.path.join(bases[-1], part))
    plain: set[str] = set()  # settings directories seen here to be no link (nor below them)
    for base in bases:
        for d in HOOK_DIRS:
            full = os.path.join(base, d)
            linked = _realpath(full)
            if linked is None or real.startswith(linked.rstrip("/") + "/"):
                return True
            if linked == full:  # `.claude/hooks` resolves to itself: `.claude` is no link
                plain.add(full.rpartition("/")[0])
    loose = 0
    for base in bases:
        index = _named(base, root, plain)
        loose += index.loose  # one bound for every base a write asks (red team 17 H3)
        if loose > MAX_LOOSE_COMPONENTS or index.names(real):
            return True
    return False


#: Directories between the root and a write's target past which it cannot be checked (each
#: is a base an agent CLI may start in, its settings and hook directories resolved).
MAX_DEPTH = 64

#: The name a settings file that cannot be checked is given: every path counts.
UNCHECKED = "\0unchecked"
#: The first word of an ``env`` entry read as paths (``[_ENV, name, value]``): no command
#: word can hold a NUL.
_ENV = "\0env"


def in_hook_dir(normalized: str) -> bool:
    """Is the root-relative path ``normalized`` (components casefolded, NTFS spellings
    cut) below one of :data:`HOOK_DIRS`, in the root or in any directory of the project
    (an agent CLI started in ``pkg/`` runs ``pkg/.claude/hooks/``)?"""
    padded = "/" + normalized.strip("/")
    return any(f"/{d}/" in padded for d in HOOK_DIRS)


def _settings_files(base: str) -> list[str]:
    """The settings files an agent CLI (or editor) started in ``base`` reads, the user's
    own too; :data:`UNCHECKED` among them when ``base`` holds more dev container
    configurations than :data:`_MAX_DEVCONTAINERS`."""
    home = os.path.expanduser("~")
    files = [os.path.join(base, s) for s in SETTINGS]
    try:
        with os.scandir(os.path.join(base, _DEVCONTAINER_DIR)) as it:
            named = sorted(e.name for e in it if e.is_dir())
    except (OSError, ValueError):
        named = []
    if len(named) > _MAX_DEVCONTAINERS:
        files.append(UNCHECKED)
    files += [os.path.join(base, _DEVCONTAINER_DIR, n, "devcontainer.json") for n in named[:_MAX_DEVCONTAINERS]]
    if home and home != "~":
        files += [os.path.join(home, s) for s in _USER_SETTINGS]
    return list(dict.fromkeys(files))


def _signature(path: str) -> tuple[int, int, int, int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # (ValueError: :data:`UNCHECKED`'s NUL)
        return None
    return (st.st_dev, st.st_ino, st.st_size, max(st.st_mtime_ns, st.st_ctime_ns), st.st_mtime_ns)


def _named(base: str, root: str, plain: set[str] | frozenset[str] = frozenset()) -> NamedIndex:
    """The absolute paths (normalised, links not resolved) that the settings files of an
    agent CLI started in ``base`` (a directory of the project ``root``, or the root) name,
    and the settings files themselves, each with whether everything below it counts too,
    indexed for the target's lookup (:class:`._named_index.NamedIndex`); parsed again
    whenever a settings file's ``stat`` signature changes, or one of the build files read
    for it (:class:`._modules.Reads`: module lists, ``package.json``'s ``main``) does (not
    cached while one is racily new)."""
    files = _settings_files(base)
    users = _user_files()
    sigs = _settings_signatures(files, users, base, plain)
    key = (os.path.expanduser("~"), root, judge_key(), *files, *sigs)
    hit = _cache.get(base)
    if hit is not None and hit[0] == key and hit[1].still():
        return hit[2]
    reads = Reads()
    named = _collect(files, sigs, base, root, reads)
    now = time.time()
    if all(s is None or (isinstance(s[3], int) and now - s[3] / 1e9 > _RACY) for s in sigs) \
            and now - reads.newest() > _RACY:
        if len(_cache) > 256:
            _cache.clear()
        _cache[base] = (key, reads, named)
    return named


def _settings_signatures(files: list[str], users: frozenset[str], base: str,
                         plain: set[str] | frozenset[str] = frozenset()) -> list[tuple[object, ...] | None]:
    """The cache signatures of the settings files an agent CLI started in ``base`` reads:
    the user's own as its agent reads them (through links); a project's as the guard reads
    it (:func:`._guard_read.unlinked_signature`), one missing behind a directory link of its
    own path (``.claude`` a link) included — the directories between ``base`` (a real
    directory) and the file asked once each, those of ``plain`` (known to be no link: the
    caller resolved a path below them to itself) not at all."""
    memo: dict[str, os.stat_result | None] = dict.fromkeys(plain)

    def lstat(path: str) -> os.stat_result | None:
        if path not in memo:
            try:
                memo[path] = os.lstat(path)
            except (OSError, ValueError):
                memo[path] = None
        return memo[path]

    out: list[tuple[object, ...] | None] = []
    start = len(base.rstrip("/")) + 1  # where the settings file's own path starts
    for f in files:
        if f in users:
            out.append(_signature(f))
            continue
        sig = unlinked_signature(f, behind=False)
        if sig is None:
            parent = f.rpartition("/")[0]
            # its own directories (`.claude`, `.devcontainer/<name>`): the parent missing
            # and none above it, the common case, asks nothing more
            if len(parent) >= start and (lstat(parent) is not None or "/" in parent[start:]):
                sig = missing_signature(f, f.count("/", start), lstat)
        out.append(sig)
    return out


def _collect(files: list[str], sigs: Sequence[object], base: str, root: str, reads: Reads) -> NamedIndex:
    """What :func:`_named` indexes, read afresh. A project's settings file naming more than
    :data:`_MAX_NAMED` paths, or running a build whose files cannot be checked, cannot be
    checked (every path counts); the user's own ones keep the first of the paths."""
    out: dict[str, bool] = dict.fromkeys((f for f in files if f != UNCHECKED), False)
    unchecked = UNCHECKED in files
    for path, sig in zip(files, sigs, strict=True):
        if sig is None:
            continue
        parsed = _parsed(path, sig, root)
        if parsed is None:
            unchecked = True
            continue
        commands, markets, followed = parsed
        out.update((f, out.get(f, False)) for f in followed)  # what a settings link leads to
        try:
            if not _add(out, ((words, cwd, base) for words, cwd in commands), root, reads):
                unchecked = unchecked or not _is_user_file(path)
            if markets and not _add_plugins(out, markets, base, root, reads):
                unchecked = True
        except Unchecked:  # a build file that cannot be checked (a link, past a bound)
            unchecked = True
    return NamedIndex(out.items(), root, unchecked=unchecked)


def _add(out: dict[str, bool], commands: Iterable[tuple[list[str], str | None, str]], root: str,
         reads: Reads) -> bool:
    """Add to ``out`` what ``(words, cwd, start)`` commands name; ``False`` past
    :data:`_MAX_NAMED` new paths (the rest unread)."""
    count = 0
    budget = [_MAX_ENV_RESOLVED]  # env entries resolved (:func:`._settings_env.env_paths`)
    for words, cwd, start in commands:
        if words[:1] == [_ENV]:  # an `env` entry: its value read as paths
            bases = [start, *(os.path.join(start, c) for c in (_expand(cwd, start) if cwd else ()))]
            found: Iterable[tuple[str, bool]] = env_paths(words[1], words[2], bases, root, _expand, budget)
            if words[1].lower() in _NPM_CONFIG_FILES:  # an `.npmrc` by another name: read as one
                found = _with_npmrc(list(found), bases, root, reads)
            elif words[1] == "YARN_RC_FILENAME":  # Yarn's `.yarnrc.yml` by another name
                found = list(found)
                found += [x for full, _ in list(found) if full.startswith(root.rstrip("/") + "/")
                          for x in reads.expand(full, root, yarnrc=True)]
        else:
            found = _paths(words, cwd, start, root, reads=reads)
        for full, tree in found:
            count += full not in out
            out[full] = out.get(full, False) or tree
        if count > _MAX_NAMED:
            return False
    return True


def _add_plugins(out: dict[str, bool], markets: list[str], base: str, root: str, reads: Reads) -> bool:
    """Add to ``out`` what the plugins of the directory marketplaces ``markets`` (as a
    settings file in ``base`` names them) run in place (:func:`._plugins.plugin_files`):
    their hook, plugin and server files, read as settings files with
    ``${CLAUDE_PLUGIN_ROOT}`` as the plugin's directory (and from ``base``, where Claude
    Code runs); ``False`` when one cannot be checked."""
    inside = root.rstrip("/") + "/"
    for market in markets:
        file_source = market.startswith(FILE_SOURCE)
        market = market.removeprefix(FILE_SOURCE)
        for mdir in dict.fromkeys(os.path.normpath(os.path.join(base, m)) for m in _expand(market, base)):
            if not (mdir + "/").startswith(inside):
                continue  # the user's own, outside the project
            for market_dir, manifest in _readings(mdir, file_source):
                if not _add_market(out, plugin_files(market_dir, root, reads, manifest), base, root, reads):
                    return False
    return True


def _readings(path: str, file_source: bool) -> list[tuple[str, str | None]]:
    """``(marketplace directory, its marketplace.json or None for the usual place)`` for a
    directory source, or for a ``file`` source at ``path`` (red team 20 L12: it may sit
    anywhere): the file's directory and, when that is ``.claude-plugin``, its parent — both
    readings of where its relative plugin sources start."""
    if not file_source:
        return [(path, None)]
    parent = os.path.dirname(path)
    dirs = [parent, os.path.dirname(parent)] if os.path.basename(parent) == ".claude-plugin" else [parent]
    return [(d, path) for d in dirs]


def _add_market(out: dict[str, bool], found: Plugins, base: str, root: str, reads: Reads) -> bool:
    """Add what one marketplace's plugins run (:func:`_add_plugins`)."""
    for path, tree in found.protected:
        out[path] = out.get(path, False) or tree
    for pdir, entry in found.inline:  # a marketplace entry's inline hooks and servers
        if not _add(out, ((w, c, s) for w, c in _commands(entry) for s in (pdir, base)), root, reads):
            return False
    for pdir, path in found.files:
        sig = unlinked_signature(path)
        reads.sigs[path] = sig
        parsed = None if sig is None else _parsed(path, sig, root)
        if sig is not None and parsed is None:
            return False
        commands = parsed[0] if parsed is not None else []
        for target in parsed[2] if parsed is not None else ():
            out[target] = out.get(target, False)
        if not _add(out, ((w, c, s) for w, c in commands for s in (pdir, base)), root, reads):
            return False
    return True


#: ``env`` variables naming a file npm reads as its user or global ``.npmrc`` (npm takes any
#: ``npm_config_*`` variable whatever its case).
_NPM_CONFIG_FILES = frozenset({"npm_config_userconfig", "npm_config_globalconfig"})


def _with_npmrc(found: list[tuple[str, bool]], bases: list[str], root: str,
                reads: Reads) -> list[tuple[str, bool]]:
    """``found`` (the paths an ``NPM_CONFIG_USERCONFIG`` value names) with what each of
    them inside ``root`` makes npm load, read as an ``.npmrc`` (:mod:`._package_managers`:
    ``node-options``, ``script-shell``, ``onload-script`` …; a relative value from each of
    ``bases``, where npm may run)."""
    inside = root.rstrip("/") + "/"
    out = list(found)
    for full, _tree in found:
        if full.startswith(inside):
            for base in bases:
                out += reads.expand(full, root, npmrc=base)
    return out


#: ``env`` entries outside the root one settings file may name (each resolved once, at the
#: parse); past it the file cannot be checked.
_MAX_ENV_RESOLVED = 1024
#: Distinct paths (spellings, with each ``cd`` and ``cwd`` reading) one project settings
#: file may name; past it the file cannot be checked (red team 14 F7: ~88,000 named paths made every
#: write cost seconds). Real files name a few dozen.
_MAX_NAMED = 8192


#: A settings file's commands (``(words, cwd)``), the directory marketplaces it registers and
#: the real path of the file a link of it led to (:func:`._guard_read.read_guarded`).
_Parsed = tuple[list[tuple[list[str], str | None]], list[str], list[str]]
#: Per settings file: (its ``stat`` signature and the judge's key, its commands); the user-level files are the
#: same for every directory :func:`runs` reads settings for, so each is parsed once.
_parsed_cache: dict[str, tuple[object, _Parsed | None]] = {}
#: Commands one settings file may hold; past it the file cannot be checked (every write is
#: refused), so a crafted file can neither stall every write nor hide a command at its end.
_MAX_COMMANDS = 4096


def _parsed(path: str, sig: object, root: str) -> _Parsed | None:
    """The commands of the settings file at ``path`` (:func:`_commands`) and the directory
    marketplaces it registers (:func:`._plugins.marketplaces`), kept while its signature
    holds; ``None`` when they cannot be told (a bound passed). The user's own files (a heavy
    user's ``~/.claude.json`` lists every project's MCP servers) are not the repository's:
    past a bound, what was read so far counts, as past their size bound."""
    key = (sig, judge_key())
    hit = _parsed_cache.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    found: list[tuple[list[str], str | None]] = []
    markets: list[str] = []
    followed: list[str] = []
    parsed: _Parsed | None = (found, markets, followed)
    try:
        data = _load(path, root, followed)
        items = _commands(data) if not isinstance(data, Strings) else (_string_command(t) for t in data)
        for item in items:
            found.append(item)
            if len(found) > _MAX_COMMANDS:
                raise Unchecked
        markets += marketplaces(data)
    except Unchecked:
        parsed = (found, markets, followed) if _is_user_file(path) else None
    if len(_parsed_cache) > 256:
        _parsed_cache.clear()
    _parsed_cache[path] = (key, parsed)
    return parsed


def _string_command(text: str) -> tuple[list[str], str | None]:
    """A string of a settings file that does not parse, read as a command: a one-word string
    as an interpreter's operand too (``"args": ["tools"]`` may follow a ``"python3"`` the
    broken document no longer ties to it)."""
    words = _split(text)
    return (["sh", *words] if len(words) == 1 else words), None


def _is_user_file(path: str) -> bool:
    return path in _user_files()


#: ``(home, the user-level settings files there)``, made again when the home changes.
_user_cache: tuple[str, frozenset[str]] = ("", frozenset())


def _user_files() -> frozenset[str]:
    """The user-level settings files (:data:`_USER_SETTINGS` in the home; none without one)."""
    global _user_cache
    home = os.path.expanduser("~")
    if _user_cache[0] != home:
        _user_cache = (home, frozenset() if home == "~" else frozenset(os.path.join(home, s) for s in _USER_SETTINGS))
    return _user_cache[1]


def _load(path: str, root: str, followed: list[str]) -> object:
    """The settings file at ``path`` as its agent reads it (:func:`._settings_load.load`; the
    user's own files past the size bound left unread, and read through links; a project's
    read through a link only to a file the read gates serve, whose real path goes to
    ``followed``; else :class:`Unchecked`)."""
    if _is_user_file(path):
        return load(path, _MAX_SETTINGS, user=True)
    return load(path, _MAX_PROJECT_SETTINGS, root=root, followed=followed)


def _commands(node: object, depth: int = 0, inherited: str | None = None
              ) -> Iterator[tuple[list[str], str | None]]:
    """``(words, cwd)`` of every command in a settings document: a string under a command
    key, split as a shell would; an ``args`` list of strings, one word each; the ``cwd``
    (or VS Code's ``options.cwd``) of the object or of an enclosing one."""
    if depth > 64:
        return
    if isinstance(node, dict):
        options = node.get("options")
        cwd = next((c for c in (node.get("cwd"), options.get("cwd") if isinstance(options, dict) else None)
                    if isinstance(c, str)), inherited)
        for key, value in node.items():
            if key in _COMMAND_KEYS and isinstance(value, (str, list)):
                yield from _command_values(value, cwd)
            elif key == "env" and isinstance(value, dict):  # NODE_OPTIONS="--require ./x.js"
                for name, text in value.items():
                    if isinstance(text, str):
                        yield [_ENV, str(name), text], cwd  # as paths (:mod:`._settings_env`)
                        yield _split(text), cwd
                        program = _OPTION_VARS.get(str(name).upper())
                        if program is not None:  # `--require ./pre` loads pre.js, `-Ilib` a tree
                            yield [program, *_split(text)], cwd
                        if name in PATH_VARS or name in MAKE_FLAGS:  # {"PYTHONPATH": "tools"},
                            yield [f"{name}={text}"], cwd  # {"MAKEFLAGS": "-Imk"}: as the assignment
            elif isinstance(key, str) and key.startswith(_PROFILES) and isinstance(value, dict):  # VS Code
                for profile in ([value] if key.startswith(_PROFILES[0]) else list(value.values())):
                    if isinstance(profile, dict):
                        for w in _as_list(profile.get("path")):  # a path, or paths tried in turn
                            yield [w, *_as_list(profile.get("args"))], cwd
            elif key == "envFile" and isinstance(value, str):
                yield [value if "/" in value or value.startswith(("$", "~", "%")) else "./" + value], cwd
            elif key == "args" and isinstance(value, list):
                words = []
                for w in value:
                    if isinstance(w, str):  # `["-c", "cd tools; ./run"]`: the shell splits it again
                        words.append(w)
                        if re.search(r"[;&|()<>`\s]", w):
                            words.extend(_split(w, 1))
                command = node.get("command")
                head = _split(command) if isinstance(command, str) else []
                yield [*head, *words], cwd
            else:
                if key in _COMMAND_KEYS:  # a dev container's object of named commands
                    yield from _command_values(value, cwd)
                yield from _commands(value, depth + 1, cwd)
    elif isinstance(node, list):
        for item in node:
            yield from _commands(item, depth + 1, inherited)


def _as_list(value: object) -> list[str]:
    """A string as a one-word list, a list's strings, else nothing."""
    if isinstance(value, str):
        return [value]
    return [w for w in value if isinstance(w, str)] if isinstance(value, list) else []


def _command_values(value: object, cwd: str | None) -> Iterator[tuple[list[str], str | None]]:
    """The commands a command key's value holds: a string split as a shell would, an array
    of strings one word each (a word holding blanks or operators split again), an object's
    values each so."""
    if isinstance(value, str):
        yield _split(value), cwd
    elif isinstance(value, list):
        words: list[str] = []
        for w in value:
            if isinstance(w, str):
                words.append(w)
                if re.search(r"[;&|()<>`\s]", w):
                    words.extend(_split(w, 1))
        yield words, cwd
    elif isinstance(value, dict):
        for item in value.values():
            if isinstance(item, (str, list)):
                yield from _command_values(item, cwd)


def command_paths(line: str, root: str, *, manifests: bool = True) -> list[tuple[str, bool]]:
    """The absolute paths inside ``root`` that the shell command ``line`` (run in ``root``)
    may run or load, each with whether everything below it counts, read as a settings
    command is; without ``manifests``, no task runner's manifest (``package.json`` …)."""
    return list(_paths(_split(line), None, root, root, with_manifests=manifests))


def _expand(word: str, root: str) -> list[str]:
    """``word`` with a leading variable read as the root (``$HOME`` also as the home) and
    ``~`` as the home."""
    home = os.path.expanduser("~")
    m = VAR.match(word)
    if m:
        rest = word[m.end():]
        out = [root + rest]
        if re.search(r"HOME|USERPROFILE", m.group(1)):
            out.append(home + rest)
        words = out
    elif word == "~" or word.startswith("~/"):
        words = [home + word[1:]]
    else:
        words = [word]
    return [w.replace("\\", "/") for w in words]


#: A word that names the directory a command runs in: ``.``, or a variable holding the
#: project's directory (an unknown variable, ``"$@"`` or ``"${ARGS[@]}"`` in a hook script,
#: names nothing: read as the root, it would make ``package.json`` unwritable).
_ROOT_WORD = re.compile(r"\.?/?|\.(?:/\.)*/?|(?:\$\{?(?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|CURSOR_PROJECT_DIR|PWD"
                        r"|workspaceFolder|workspaceRoot)\}?|\$\(pwd\))(?:/\.?)?")


def _names_root(word: str) -> bool:
    """Does ``word`` name the directory the command runs in (:data:`_ROOT_WORD`)?"""
    return _ROOT_WORD.fullmatch(word) is not None


def _paths(words: list[str], cwd: str | None, start: str, root: str, *, with_manifests: bool = True,
           reads: Reads | None = None) -> Iterator[tuple[str, bool]]:
    """The real paths inside ``root`` (not the root itself) that ``words`` may name, read
    from ``start`` (the directory the agent CLI runs in: a project-directory variable reads
    as it) and from ``cwd``, each with whether everything below it counts too; with
    ``reads``, the build files a named ``pom.xml`` or ``settings.gradle`` lists too
    (:func:`._modules.module_manifests`), each file read recorded there."""
    bases = [start, *(os.path.join(start, c) for c in (_expand(cwd, start) if cwd else ()))]
    inside = root.rstrip("/") + "/"
    for cand, tree in candidates(words, with_manifests):
        for text in _expand(cand, start):
            for base in bases:
                joined = os.path.join(base, text)
                full = os.path.normpath(joined)
                if ".." in joined.split("/"):  # the shell resolves a link before its ``..``
                    physical = _realpath(joined)  # (red team 17 H11: ``lnk/../x.sh``)
                    if physical is not None and physical != full and physical.startswith(inside):
                        yield physical, tree
                if full.startswith(inside):
                    yield full, tree
                    if reads is not None and with_manifests and reads_module_list(full):
                        yield from reads.expand(full, root)
                    continue
                resolved = _realpath(full)  # outside as written: inside through a link?
                if resolved is None or resolved.startswith(inside):
                    yield full, tree
                elif tree and resolved == root.rstrip("/") and _names_root(cand):  # `python3 .`, `node .`
                    if reads is not None:
                        reads.record(os.path.join(root, "package.json"))
                    yield from ((e, False) for e in root_entries(root))
