"""The files git's hooks run in turn, never writable by an agent.

``core.hooksPath`` and ``.git/hooks`` are protected as what steers git
(:func:`~._write_rules.steers`), but the hook managers people install keep the commands
elsewhere: husky v9 sets ``core.hooksPath = .husky/_``, whose scripts run
``.husky/<hook>``; the pre-commit framework's ``.git/hooks/pre-commit`` runs the commands of
``.pre-commit-config.yaml``; lefthook reads ``lefthook.yml``. An agent that rewrites one of
them gets its code run at the next ``git commit`` — by the user, or by the agent's host.

So for each hooks directory (``core.hooksPath`` and the repository's ``hooks/``), every
script git would run (a file named as one of git's hooks, :data:`GIT_HOOKS`) is read whole (up to 128 KiB),
as shell or as the code its ``#!`` line names (:mod:`._hook_script`), and what it runs counts
as never writable (matched as written, through symlinks and as globs: :func:`~._git_commands.names`):

* the parent of a hooks directory named ``_`` (husky v9: ``.husky/_`` → ``.husky/``);
* a known manager's configuration when a script names the manager (``husky``,
  ``pre-commit``/``pre_commit``, ``lefthook``, ``overcommit``, ``simple-git-hooks``,
  ``lint-staged``, ``commitlint``), and the file a ``--config`` option names;
* what the script's command lines name, read as the agent settings' commands are
  (:func:`~._agent_commands.command_paths`: scripts, interpreter operands) — but not a
  task runner's manifest: agents edit ``package.json`` all the time, and a hook that runs
  ``npm test`` runs the project's own code anyway.

Parsed again when a hooks directory or one of its scripts changes (``stat`` signatures).
What a manager's configured commands run in turn is not followed. A script past
:data:`_MAX_SCRIPT` or :data:`~._hook_script.MAX_LINES` command lines (counted as written),
one that expands past its reader's bounds, or a command line past the parser's cannot be
checked: nothing in the project is writable then (a repository's file must not loosen the
guard). Blocking; standard library and the bounded reader of :mod:`pathgate.runtime.fs` only.
"""

from __future__ import annotations

import os
import re
import shlex
import stat

from pathgate.runtime.tools._git_commands import into_root
from pathgate.runtime.tools._guard_read import judge_key, refused_directory

__all__ = ["hook_runs"]

#: A manager named in a hook script → the files (root-relative; a trailing ``/``: with
#: everything below) whose commands it runs.
_LEFTHOOK = (*(f"{d}lefthook{x}.{e}" for d in ("", ".", ".config/") for x in ("", "-local")
               for e in ("yml", "yaml", "toml", "json", "jsonc")), ".lefthook/", ".lefthook-local/")
_PRE_COMMIT = (".pre-commit-config.yaml", ".pre-commit-config.yml", ".pre-commit-hooks.yaml")
_MANAGERS: dict[str, tuple[str, ...]] = {
    "husky": (".husky/",),
    "pre-commit": _PRE_COMMIT,
    "pre_commit": _PRE_COMMIT,
    "prek": _PRE_COMMIT,
    "lefthook": _LEFTHOOK,
    "overcommit": (".overcommit.yml",),
    "simple-git-hooks": (".simple-git-hooks.json", ".simple-git-hooks.js", "simple-git-hooks.json",
                         "simple-git-hooks.js", ".simple-git-hooks.cjs", "simple-git-hooks.cjs"),
    "lint-staged": (".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml",
                    *(f"{n}.{e}" for n in (".lintstagedrc", "lint-staged.config")
                      for e in ("js", "mjs", "cjs", "ts", "mts", "cts"))),
    # commitlint's cosmiconfig search places (commitlint.js.org, reference/configuration): the
    # JavaScript/TypeScript ones are code run at the next commit (red team 20 L10)
    "commitlint": (".commitlintrc", *(f"{n}.{e}" for n in (".commitlintrc", "commitlint.config")
                                      for e in ("json", "yaml", "yml", "js", "cjs", "mjs", "ts", "cts", "mts"))),
    "captainhook": ("captainhook.json",),
    "hk": ("hk.pkl", "hk.local.pkl", ".config/hk.pkl"),
    "trunk": (".trunk/",),
    "git-hooks": (".githooks/",),
}
#: A manager's name as a word of a hook script (``hk`` is not inside ``hooks``).
_MANAGER_WORD = re.compile(r"(?<![\w-])(" + "|".join(re.escape(m) for m in _MANAGERS) + r")(?![\w-])")
_CONFIG_OPTION = re.compile(r"--config(?:uration)?(?:=|\s+)['\"]?([^\s'\"]+)")
_MAX_SCRIPT = 128 * 1024
#: Paths the scripts of one hooks directory may name (each is resolved on every write);
#: past it nothing is writable.
_MAX_NAMED = 4096
#: Characters of all the hook scripts of one hooks directory read together, and components
#: of the paths they name together, past which nothing is writable.
_MAX_SCRIPTS = 256 * 1024
_MAX_NAMED_COMPONENTS = 65536
#: The hooks git runs (githooks(5)), by file name in the hooks directory.
GIT_HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
             "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
             "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
             "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
             "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
             "p4-pre-submit", "post-index-change")
#: Per hooks directory: (its scripts' signatures, the paths they make unwritable).
_cache: dict[tuple[str, str, str], tuple[object, tuple[tuple[str, bool], ...]]] = {}


def hook_runs(real: str, root: str, hooks_dirs: tuple[str, ...], top: str | None = None) -> bool:
    """Is the absolute real path ``real`` (inside the real ``root``) something the hook
    scripts in ``hooks_dirs`` (absolute directories) run in turn? Their command lines are
    read from the top of the work tree ``top`` (git runs hooks there; ``None``: the root),
    and what they name is kept where it can name a file inside the root
    (:func:`~._git_commands.into_root`). Blocking."""
    from pathgate.runtime.tools._git_commands import names

    return any(names(real, _named(hooks, root, top or root), root) for hooks in hooks_dirs)


def _scripts(hooks: str) -> list[tuple[str, tuple[object, ...]]]:
    """The hook scripts git would run from ``hooks`` (files named as git's hooks: regular
    files, and links, which git follows), each with a signature of it and of what it leads
    to (a re-pointed link, or an edited target, is a new one)."""
    out: list[tuple[str, tuple[object, ...]]] = []
    for name in GIT_HOOKS:
        path = os.path.join(hooks, name)
        try:
            lst = os.lstat(path)
        except (OSError, ValueError):
            continue
        real: tuple[str, ...] = ()
        if stat.S_ISLNK(lst.st_mode):
            try:
                st: os.stat_result | None = os.stat(path)
                real = (os.path.realpath(path),)  # the file read (:func:`._guard_read.read_guarded`)
            except (OSError, ValueError):
                st = None
        elif stat.S_ISREG(lst.st_mode):
            st = lst
        else:
            continue
        out.append((name, (*_sig(lst), *(_sig(st) if st is not None else ()), *real)))
    return out


def _sig(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink)


def _named(hooks: str, root: str, top: str) -> tuple[tuple[str, bool], ...]:
    if refused_directory(hooks, root):  # (whatever it holds: its scripts' names are not asked)
        return ((root, True),)
    scripts = [(os.path.join(hooks, n), st) for n, st in _scripts(hooks)]
    husky = os.path.dirname(hooks.rstrip("/")) if os.path.basename(hooks.rstrip("/")) == "_" else None
    if scripts and husky is not None:  # husky v9: .husky/_/<hook> runs .husky/<hook>
        scripts += [(os.path.join(husky, n), st) for n, st in _scripts(husky)]
    key = (judge_key(), *((n, sig) for n, sig in scripts))
    hit = _cache.get((hooks, root, top))
    if hit is not None and hit[0] == key:
        return hit[1]
    out: dict[str, bool] = {}
    if husky is not None and scripts:
        out[husky] = True
    left = _MAX_SCRIPTS
    for path, _ in scripts:
        text, real = _read(path, root)
        if real is not None:
            out[real] = out.get(real, False)  # what a linked hook runs: the file it leads to
        left -= len(text or "")
        if left < 0:  # (red team 16 G3: 28 scripts of 120 KiB each, 17 s to read)
            out[root] = True
            break
        found = [(root, True)] if text is None else _from_script(text, top, os.path.dirname(path))
        if top != root:
            found = into_root(found, root)
        for name, tree in found:
            out[name] = out.get(name, False) or tree
    if len(out) > _MAX_NAMED or sum(name.count("/") for name in out) > _MAX_NAMED_COMPONENTS:
        out = {root: True}
    named = tuple(out.items())
    if len(_cache) > 64:
        _cache.clear()
    _cache[(hooks, root, top)] = (key, named)
    return named


def _read(path: str, root: str) -> tuple[str | None, str | None]:
    """The script's text (``None`` when it cannot be checked: past :data:`_MAX_SCRIPT`, not
    a regular file, or reached through a link the guard does not follow) and the real path
    of the file a link led to. A symbolic link inside the project is followed only to a file
    the read gates serve (:func:`~._guard_read.read_guarded`); any other link, or a
    hard-linked file, is never read, whatever it leads to — it could be a secret's other
    name."""
    from pathgate.runtime.tools._guard_read import Linked, read_guarded

    try:
        raw, real = read_guarded(path, root, _MAX_SCRIPT)
    except FileNotFoundError:
        return "", None
    except (OSError, Linked):
        return None, None
    return raw.decode("utf-8", "replace"), real


def _from_script(text: str, root: str, here: str) -> list[tuple[str, bool]]:
    """What one hook script (in the directory ``here``, run by git from ``root``: the top
    of the work tree) makes unwritable (absolute paths, each with whether everything below
    it counts); everything (``root``) when the script is past a bound of its reader
    (:mod:`._hook_script`) or a command line past the parser's."""
    from pathgate.runtime.tools._agent_commands import Unchecked, command_paths
    from pathgate.runtime.tools._hook_script import MAX_LINES, command_count, script_lines

    out: dict[str, bool] = {}
    for manager in dict.fromkeys(m.group(1) for m in _MANAGER_WORD.finditer(text.lower())):
        out.update((os.path.join(root, f.rstrip("/")), f.endswith("/")) for f in _MANAGERS[manager])
    for m in _CONFIG_OPTION.finditer(text):
        value = m.group(1)
        out.setdefault(value if value.startswith("/") else os.path.join(root, value), False)
    if command_count(text) > MAX_LINES:  # counted on the text as written, before anything expands
        return [(root, True)]
    try:
        lines = script_lines(text, root, here)
        # a line is read from the root and from every directory a line cd-es into (the
        # shell stays there; read from each whether the cd comes before or after it)
        cds = list(dict.fromkeys(m.group(1) for m in map(_CD.match, lines) if m is not None))[:_MAX_CD]
        prefix = "".join(f"cd {shlex.quote(d)} && " for d in cds)
        plain = all(_PLAIN_DIR.fullmatch(d) for d in cds)
        for line in lines:
            found = command_paths(line, root, manifests=False)
            if prefix and (".." in line or not plain):
                found += command_paths(prefix + line, root, manifests=False)
            elif prefix:  # what `cd <d> && <line>` reads, without parsing the line again
                found += [(os.path.join(root, d, os.path.relpath(p, root)), t) for p, t in found for d in cds]
            for path, tree in found:
                out[path] = out.get(path, False) or tree
            if len(out) > _MAX_NAMED:  # each is resolved on every write: stop reading here
                raise Unchecked
    except Unchecked:
        return [(root, True)]
    return list(out.items())


#: Directories a script cd-es into that its lines are read from.
_MAX_CD = 8
#: A directory a line cd-es into that is a plain path below the root (no ``..``, variable,
#: glob or brace): a line that names ``x`` from the root names ``<d>/x`` from it, and
#: nothing else (without ``..`` a line names nothing inside the root from it that it does
#: not name from the root).
_PLAIN_DIR = re.compile(r"(?!.*\.\.)[\w@+,.-][\w@+,./-]*")
#: A line that changes the shell's directory for the lines after it.
_CD = re.compile(r"""^(?:cd|pushd)[ \t]+(?:-[LP][ \t]+)?["']?([^\s"';&|]+)["']?""")
