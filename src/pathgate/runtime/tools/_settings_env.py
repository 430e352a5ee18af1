"""The files an agent settings file's ``env`` makes programs read as configuration or code
(for the write guard's reading of agent settings, :mod:`._agent_commands`).

Claude Code applies a settings file's ``env`` to every process of the session (its Bash tool,
hooks, the ``git`` it runs itself); an MCP server's ``env`` to that server. Many variables
make a program read a file a bare word names, from the directory it runs in (red team 18 J9):
``GIT_CONFIG_GLOBAL=gitcfg`` (git's configuration: ``core.fsmonitor``, aliases … run
commands), ``HOME=.`` (``./.gitconfig``, every tool's dot-files), ``BASH_ENV=bashenv``
(sourced by every non-interactive bash), ``LD_PRELOAD=lib.so``, ``NPM_CONFIG_USERCONFIG=npmrc``.
So :func:`env_paths` reads every ``env`` value as paths, whatever they look like:

* a variable that steers git (:data:`GIT_STEERING`: its configuration files and
  directories, ``HOME``, ``XDG_CONFIG_HOME``) naming anything inside the project — as
  written or through a link — cannot be checked (:class:`~._settings_load.Unchecked`:
  nothing is writable): pathgate reads git's configuration with the host's environment,
  never with the settings' one, so neither the files it would read there nor the commands
  they run could be told; ``GIT_CONFIG_PARAMETERS``/``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_<n>``
  (configuration given in the environment) likewise, wherever they point;
* a variable naming a directory programs load code or configuration from
  (:data:`DIRECTORIES`: ``XDG_DATA_HOME``, ``ZDOTDIR``, ``LD_LIBRARY_PATH``,
  ``PYTHONUSERBASE``, ``CLAUDE_CONFIG_DIR`` …): each entry with everything below it;
* ``PATH`` (and the library search lists ``LD_LIBRARY_PATH``, ``DYLD_LIBRARY_PATH``): each
  entry inside the project with everything below it — a hook's command word is looked up
  there, so any file in that directory named like a command (or any name at all) may be
  run — and an empty entry (``PATH=/usr/bin:``, ``a::b``) as the directory the program
  runs in, as the shell and the loader read it: the project's root (``PATH=.``,
  ``$CLAUDE_PROJECT_DIR``, an empty entry) so leaves nothing writable. The variable's own
  inherited value (``$PATH`` in ``PATH=./bin:$PATH``) names nothing of the project but a
  directory literally so named;
* a JVM option variable (:data:`JVM_OPTIONS`): the entries of its class and module paths
  (``-cp lib``) with everything below them, besides its words as files;
* any other variable: each word of its value, each ``:``-separated entry and each
  ``--opt=value``/``-javaagent:x`` part, as a file (``BASH_ENV``, ``LD_PRELOAD``,
  ``PYTHONSTARTUP``, ``NPM_CONFIG_USERCONFIG``, ``EDITOR`` …; over-inclusive: ``NODE_ENV=
  production`` names ``./production``, which costs nothing).

Each value is also read as a command line by the caller, an interpreter's option variable as
that interpreter's options (``NODE_OPTIONS="--require ./x"``, ``RUBYOPT=-r./x``, ``PERL5OPT=-Ilib``).
Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from pathgate.runtime.tools._named_index import realpath
from pathgate.runtime.tools._settings_load import Unchecked
from pathgate.runtime.tools._shell_words import _split

__all__ = ["DIRECTORIES", "GIT_STEERING", "JVM_OPTIONS", "env_paths"]

#: Variables whose value is a file or directory git reads its configuration (or commands,
#: templates, hooks) from.
GIT_STEERING = frozenset({"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "GIT_DIR", "GIT_WORK_TREE",
                          "GIT_COMMON_DIR", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_INDEX_FILE",
                          "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_ATTR_SOURCE", "HOME",
                          "XDG_CONFIG_HOME", "USERPROFILE"})
#: Variables that give git configuration themselves.
_GIT_CONFIG = re.compile(r"^GIT_CONFIG_(?:PARAMETERS|COUNT|KEY_\d+)$")
#: Variables naming directories programs load code or configuration from (each entry of a
#: ``:`` list counts with everything below it).
DIRECTORIES = frozenset({"XDG_DATA_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "ZDOTDIR", "LD_LIBRARY_PATH",
                         "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "PYTHONUSERBASE", "PYTHONHOME",
                         "GRADLE_USER_HOME", "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "GOROOT", "GEM_HOME",
                         "JAVA_HOME", "MAVEN_HOME", "M2_HOME", "NVM_DIR", "VOLTA_HOME", "PNPM_HOME", "COREPACK_HOME",
                         "DOTNET_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "RBENV_ROOT", "ASDF_DATA_DIR",
                         "NPM_CONFIG_PREFIX", "npm_config_prefix", "BUN_INSTALL", "DENO_INSTALL_ROOT",
                         "IPYTHONDIR", "JUPYTER_CONFIG_DIR", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
                         "CODEX_HOME", "CURSOR_CONFIG_DIR", "PATH",
                         "DYLD_FALLBACK_LIBRARY_PATH"})
#: ``:`` lists searched in order where an empty entry is the current directory (the shell's
#: command lookup, the dynamic loader's).
_SEARCH_LISTS = frozenset({"PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH"})
#: Entries read from one value; past it the settings file cannot be checked.
_MAX_ENTRIES = 1024
#: Variables a JVM (or a JVM build tool's launcher) reads as its options: their class and
#: module paths count with everything below them (red team 20 L5).
JVM_OPTIONS = frozenset({"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS", "MAVEN_OPTS",
                         "GRADLE_OPTS", "SBT_OPTS", "JAVA_OPTIONS"})
_CLASS_PATH_OPTIONS = frozenset({"-cp", "-classpath", "--class-path", "-p", "--module-path",
                                 "--upgrade-module-path"})
_BOOT_CLASS_PATH = re.compile(r"^-Xbootclasspath(?:/[ap])?:(.+)$")
#: A short option glued to its value (``-r./pre.js``, ``-I.``).
_GLUED = re.compile(r"^-[A-Za-z]([^-=].*)$")


def env_paths(name: str, value: str, bases: list[str], root: str, expand: Callable[[str, str], list[str]],
              budget: list[int]) -> Iterator[tuple[str, bool]]:
    """The absolute paths the ``env`` entry ``name=value`` makes programs read inside
    ``root`` (as written, or through a link when read), each with whether everything below it
    counts, read from each of ``bases`` (the directory the agent CLI starts in first;
    ``expand``: a leading variable or ``~`` read as the caller reads them); :class:`Unchecked`
    as the module says, or once the paths outside the root resolved for one settings file
    (``budget[0]``, spent here) run out. Blocking (``realpath``)."""
    if _GIT_CONFIG.match(name):
        raise Unchecked
    directory = name in DIRECTORIES or name in GIT_STEERING
    entries = [(e, directory) for e in _entries(value, directory, name in _SEARCH_LISTS)]
    if name.upper() in JVM_OPTIONS:
        entries += [(e, True) for e in _class_paths(value)]
    if len(entries) > _MAX_ENTRIES:
        raise Unchecked
    inside = root.rstrip("/") + "/"
    own = (f"${name}", f"${{{name}}}")
    for entry, directory in entries:
        # the variable's own inherited value (`$PATH`): the host's, not the project's (a
        # directory literally so named, when the agent CLI does not expand it)
        for text in [entry] if entry in own else expand(entry, bases[0]):
            for base in bases:
                full = os.path.normpath(os.path.join(base, text))
                if (full + "/").startswith(inside):
                    if name in GIT_STEERING:
                        raise Unchecked
                    yield full, directory
                    continue
                budget[0] -= 1
                if budget[0] < 0:
                    raise Unchecked
                real = realpath(full)  # outside as written: inside through a link?
                if real is None or (real + "/").startswith(inside):
                    if name in GIT_STEERING:
                        raise Unchecked
                    yield full, directory


def _class_paths(value: str) -> list[str]:
    """The entries of the class and module paths a JVM option variable sets (``-cp lib``,
    ``--class-path=a:b``, ``-Xbootclasspath/a:lib``), each a directory the JVM loads classes
    from (or a jar)."""
    out: list[str] = []
    words = _split(value) if len(value) < 1 << 16 else value.split()
    for i, word in enumerate(words):
        if word in _CLASS_PATH_OPTIONS and i + 1 < len(words):
            listed = words[i + 1]
        else:
            opt, eq, listed = word.partition("=")
            if not (eq and opt in _CLASS_PATH_OPTIONS):
                glued = _BOOT_CLASS_PATH.match(word)
                if glued is None:
                    continue
                listed = glued.group(1)
        out += [e for e in re.split(r"[:;]", listed) if e]
        if len(out) > _MAX_ENTRIES:
            break
    return out


def _entries(value: str, directory: bool, search: bool = False) -> list[str]:
    """The entries of a value: ``:``-separated paths for a directory variable (for a
    ``search`` list, an empty entry as ``.``: the directory the program runs in); else each
    word (split as a shell would), its ``=``/``:``-separated parts and a glued short
    option's value."""
    if search:
        return list(dict.fromkeys(e or "." for e in value.split(":")))
    if directory:
        return [e for e in re.split(r"[:\s]+", value) if e]
    out: list[str] = []
    for word in _split(value) if len(value) < 1 << 16 else value.split():
        glued = _GLUED.match(word)
        # every `=`/`:`/`,` part (``a.dll:b.dll``), a JVM ``@argfile``
        parts = [word, *re.split(r"[=:,]", word), *([glued.group(1)] if glued else []),
                 *([word[1:]] if word.startswith("@") else [])]
        out += [p for p in dict.fromkeys(parts) if p and not p.startswith("-")]
        if len(out) > _MAX_ENTRIES:
            break
    return out
