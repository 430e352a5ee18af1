"""The files git's hooks run in turn, never writable by an agent.

``core.hooksPath`` and ``.git/hooks`` are protected as what steers git
(:func:`~._write_rules.steers`), but the hook managers people install keep the commands
elsewhere: husky v9 sets ``core.hooksPath = .husky/_``, whose scripts run
``.husky/<hook>``; the pre-commit framework's ``.git/hooks/pre-commit`` runs the commands of
``.pre-commit-config.yaml``; lefthook reads ``lefthook.yml``. An agent that rewrites one of
them gets its code run at the next ``git commit`` — by the user, or by the agent's host.

So for each hooks directory (``core.hooksPath`` and the repository's ``hooks/``), every
script git would run (a file named as one of git's hooks, :data:`GIT_HOOKS`) is read whole (up to 128 KiB)
and what it runs counts as never writable (``$(git rev-parse --show-toplevel)`` read as the
root, ``$(dirname "$0")`` as the script's directory):

* the parent of a hooks directory named ``_`` (husky v9: ``.husky/_`` → ``.husky/``);
* a known manager's configuration when a script names the manager (``husky``,
  ``pre-commit``/``pre_commit``, ``lefthook``, ``overcommit``, ``simple-git-hooks``,
  ``lint-staged``), and the file a ``--config`` option names;
* what the script's command lines name, read as the agent settings' commands are
  (:func:`~._agent_commands.command_paths`: scripts, interpreter operands) — but not a
  task runner's manifest: agents edit ``package.json`` all the time, and a hook that runs
  ``npm test`` runs the project's own code anyway.

Parsed again when a hooks directory or one of its scripts changes (``stat`` signatures).
What a manager's configured commands run in turn is not followed. A script past
:data:`_MAX_SCRIPT` or a command line past the parser's bounds cannot be checked: nothing
in the project is writable then (a repository's file must not loosen the guard). Blocking; standard
library and the bounded reader of :mod:`pathgate.runtime.fs` only.
"""

from __future__ import annotations

import os
import re
import shlex
import stat

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
                    ".lintstagedrc.js", ".lintstagedrc.mjs", ".lintstagedrc.cjs", "lint-staged.config.js",
                    "lint-staged.config.mjs", "lint-staged.config.cjs"),
    "captainhook": ("captainhook.json",),
    "hk": ("hk.pkl", "hk.local.pkl", ".config/hk.pkl"),
    "trunk": (".trunk/",),
    "git-hooks": (".githooks/",),
}
#: A manager's name as a word of a hook script (``hk`` is not inside ``hooks``).
_MANAGER_WORD = re.compile(r"(?<![\w-])(" + "|".join(re.escape(m) for m in _MANAGERS) + r")(?![\w-])")
_CONFIG_OPTION = re.compile(r"--config(?:uration)?(?:=|\s+)['\"]?([^\s'\"]+)")
_MAX_SCRIPT = 128 * 1024
#: Command lines (not comments) one hook script may hold before it cannot be checked (real
#: hooks hold tens; each line is read from every directory an earlier line cd-ed into).
_MAX_LINES = 2000
#: The hooks git runs (githooks(5)), by file name in the hooks directory.
GIT_HOOKS = ("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
             "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
             "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
             "reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
             "fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
             "p4-pre-submit", "post-index-change")
#: The work tree's top as a hook spells it (git runs hooks at the top of the work tree), and
#: the script's own directory (``$(dirname "$0")``, ``$(dirname -- "$0")``, ``${0%/*}``).
_TOPLEVEL = re.compile(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\b[^)]*\)"
                       r"|`\s*git\s+rev-parse\s+--show-toplevel\b[^`]*`")
_SELF_DIR = re.compile(r"""\$\(\s*dirname\s+(?:--\s+)?["']?\$0["']?\s*\)|\$\{0%/\*\}""")

#: Per hooks directory: (its scripts' signatures, the paths they make unwritable).
_cache: dict[tuple[str, str], tuple[object, tuple[tuple[str, bool], ...]]] = {}


def hook_runs(real: str, root: str, hooks_dirs: tuple[str, ...]) -> bool:
    """Is the absolute real path ``real`` (inside the real ``root``) something the hook
    scripts in ``hooks_dirs`` (absolute directories) run in turn? Blocking."""
    from pathgate.runtime.tools._agent_commands import fold_path

    real_f = fold_path(real)
    for hooks in hooks_dirs:
        for path, tree in _named(hooks, root):
            p = fold_path(path)
            if real_f == p or (tree and real_f.startswith(p.rstrip("/") + "/")):
                return True
    return False


def _scripts(hooks: str) -> list[tuple[str, os.stat_result]]:
    """The hook scripts git would run from ``hooks`` (regular files named as git's hooks,
    links followed as git follows them), with their ``stat``."""
    out: list[tuple[str, os.stat_result]] = []
    for name in GIT_HOOKS:
        try:
            st = os.stat(os.path.join(hooks, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out.append((name, st))
    return out


def _named(hooks: str, root: str) -> tuple[tuple[str, bool], ...]:
    scripts = [(os.path.join(hooks, n), st) for n, st in _scripts(hooks)]
    husky = os.path.dirname(hooks.rstrip("/")) if os.path.basename(hooks.rstrip("/")) == "_" else None
    if scripts and husky is not None:  # husky v9: .husky/_/<hook> runs .husky/<hook>
        scripts += [(os.path.join(husky, n), st) for n, st in _scripts(husky)]
    key = tuple((n, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) for n, st in scripts)
    hit = _cache.get((hooks, root))
    if hit is not None and hit[0] == key:
        return hit[1]
    out: dict[str, bool] = {}
    if husky is not None and scripts:
        out[husky] = True
    for path, _st in scripts:
        text = _read(path)
        found = [(root, True)] if text is None else _from_script(text, root, os.path.dirname(path))
        for name, tree in found:
            out[name] = out.get(name, False) or tree
    named = tuple(out.items())
    if len(_cache) > 64:
        _cache.clear()
    _cache[(hooks, root)] = (key, named)
    return named


def _read(path: str) -> str | None:
    """The script's text; ``None`` when it cannot be checked (past :data:`_MAX_SCRIPT`, or
    replaced by something else than a regular file since its ``stat``)."""
    from pathgate.runtime.fs import read_regular

    try:
        return read_regular(path, _MAX_SCRIPT, follow=True).decode("utf-8", "replace")
    except FileNotFoundError:
        return ""
    except OSError:
        return None


def _from_script(text: str, root: str, here: str) -> list[tuple[str, bool]]:
    """What one hook script (in the directory ``here``) makes unwritable (absolute paths,
    each with whether everything below it counts); everything (``root``) when a command
    line is past the parser's bounds."""
    from pathgate.runtime.tools._agent_commands import Unchecked, command_paths

    out: list[tuple[str, bool]] = []
    for manager in dict.fromkeys(m.group(1) for m in _MANAGER_WORD.finditer(text.lower())):
        out += [(os.path.join(root, f.rstrip("/")), f.endswith("/")) for f in _MANAGERS[manager]]
    for m in _CONFIG_OPTION.finditer(text):
        value = m.group(1)
        out.append((value if value.startswith("/") else os.path.join(root, value), False))
    text = _unfold(_SELF_DIR.sub(lambda _m: here, _TOPLEVEL.sub(lambda _m: root, text)))
    cds: list[str] = []  # directories an earlier line cd-ed into (the shell stays there)
    lines = [s for s in (raw.strip() for raw in text.splitlines()) if s and not s.startswith("#")]
    if len(lines) > _MAX_LINES:
        return [(root, True)]
    for line in lines:
        try:
            for prefix in ("", *(f"cd {shlex.quote(d)} && " for d in cds)):
                out += command_paths(prefix + line, root, manifests=False)
        except Unchecked:
            return [(root, True)]
        cd = _CD.match(line)
        if cd is not None and len(cds) < 8 and cd.group(1) not in cds:
            cds.append(cd.group(1))
    return out


#: A line continued on the next (``\`` before the line break).
_CONTINUED = re.compile(r"\\\r?\n")
#: ``NAME=value`` on its own line (``export``/``readonly``/``local`` too): a literal value.
_ASSIGN = re.compile(r"""^[ \t]*(?:export[ \t]+|readonly[ \t]+|local[ \t]+)?([A-Za-z_]\w*)="""
                     r"""(?:"([^"$`\\]*)"|'([^']*)'|([^\s;&|$`"'\\]*))[ \t]*;?[ \t]*$""", re.M)
#: An interpreter fed a here-document: ``python3 - <<'EOF'`` … ``EOF``.
_HEREDOC = re.compile(r"""^([^\n]*?\b(?:python[\d.]*|node|ruby|perl|php|deno|bun)\b[^\n<]*)<<-?[ \t]*"""
                      r"""(['"]?)(\w+)\2[^\n]*\n(.*?)^[ \t]*\3[ \t]*$""", re.M | re.S)
#: A line that changes the shell's directory for the lines after it.
_CD = re.compile(r"""^(?:cd|pushd)[ \t]+(?:-[LP][ \t]+)?["']?([^\s"';&|]+)["']?""")


def _unfold(text: str) -> str:
    """The script as its lines are run: continued lines joined, literal variables
    (``D=scripts`` … ``"$D/check.sh"``) expanded, an interpreter's here-document given as
    its ``-c`` code on one line (its imports then count)."""
    text = _CONTINUED.sub(" ", text)
    values: dict[str, str] = {}
    for m in _ASSIGN.finditer(text):
        values.setdefault(m.group(1), next(g for g in m.groups()[1:] if g is not None))
    if values:
        names = "|".join(re.escape(n) for n in sorted(values, key=len, reverse=True))
        text = re.sub(r"\$\{(" + names + r")\}|\$(" + names + r")\b",
                      lambda m: values[m.group(1) or m.group(2)], text)
    return _HEREDOC.sub(lambda m: f"{m.group(1)} -c {shlex.quote('; '.join(m.group(4).splitlines()))}", text)

