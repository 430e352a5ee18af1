"""Which words of one shell command line name a file it runs or loads (for the write guard's
reading of the commands agent settings, git's hooks and git's configuration run).

:func:`candidates` walks a command's words once: the command word, an interpreter's operand
(``bash x``, ``python3 -u x``), a module (``python3 -m pkg.mod``: its files, and the
``pkg.py`` that would shadow it), a path-like word, a ``PYTHONPATH=tools`` directory, what
inline ``-c`` code imports, a task runner's manifests (:mod:`._runners`), a file fed to an
interpreter (``sh <x``, ``cat x | sh``), each also read from the directories a ``cd`` names.
Split out of :mod:`._agent_commands`, which resolves the words against the directories a
command runs in. Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from pathgate.runtime.tools._named_index import GLOB as _GLOB
from pathgate.runtime.tools._runners import fed, is_interpreter, manifests_of, runner
from pathgate.runtime.tools._shell_words import _braces

__all__ = ["MAKE_FLAGS", "PATH_VARS", "VAR", "candidates"]

#: Variables naming directories a command loads code from: every ``:``-separated entry of
#: ``PYTHONPATH=tools`` counts with everything below it.
PATH_VARS = frozenset({"PYTHONPATH", "NODE_PATH", "RUBYLIB", "PERL5LIB", "PERLLIB", "PATH", "CLASSPATH",
                        "GEM_PATH", "LUA_PATH", "DENO_DIR"})
#: An interpreter's short option glued to its value: ``-mtools.guard``, ``-r./pre.js``.
_GLUED = re.compile(r"^-([mrIWXM])([^-].*)$")
#: Options whose value is inline code (``python3 -c "import guard"``, ``node -e …``).
_CODE_OPTIONS = frozenset({"-c", "-e", "--eval", "-p", "--print", "-E"})
#: What inline code loads: Python ``import a.b, c`` / ``from a import``, ``require('x')``,
#: ``require_relative 'x'``, ``import('x')`` / ``import … from 'x'``.
_IMPORTS = re.compile(r"\bfrom\s+([A-Za-z_][\w.]*)\s+import\b|\bimport\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)"
                      r"|\b(?:require|require_relative|import|from)\s*\(?\s*['\"]([^'\"]+)['\"]")
#: Interpreter flags combined with ``-m`` last: ``python3 -um tools.guard``.
_COMBINED = re.compile(r"^-[A-Za-z]*(m)()$")
#: Python's imports by name in inline code: ``__import__('x')``, ``import_module('x')``.
_IMPORT_CALLS = re.compile(r"\b(?:__import__|import_module)\s*\(\s*['\"]([A-Za-z_][\w.]*)['\"]")
#: ``cd`` directories one command is read from (each candidate is tried from each of them).
_MAX_CD = 8
#: Words that run the next one (``env X=1 node x``, ``exec make``, ``timeout 10 npm test``).
_WRAPPERS = frozenset({"env", "exec", "timeout", "nice", "nohup", "command", "sudo", "doas", "xargs", "stdbuf",
                       "time", "setsid", "ionice", "chrt", "taskset", "builtin"})
#: A runner's options naming the directory it runs in (its manifest is read there) …
_DIR_OPTIONS = frozenset({"-C", "--directory", "--prefix", "--cwd", "--dir", "--project", "--working-directory"})
#: … or the manifest itself.
_FILE_OPTIONS = frozenset({"-f", "--file", "--makefile", "--justfile", "--manifest-path", "--taskfile", "--config"})
#: One runner's own options moving the run (red team 20 L9): the directory it runs in
#: (``./gradlew -p sub``, ``task -d ci``: its manifests are read there, as in the directory a
#: runner starts in) …
_RUNNER_DIRS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("gradle", "gradlew", "gradlew.bat"), frozenset({"-p", "--project-dir"})),
    "task": frozenset({"-d"}),
}
#: … a local package it builds and runs (uv's ``--from ./pkg``: its manifests, and its
#: files with everything below it) …
_RUNNER_PACKAGES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("uv", "uvx"), frozenset({"--from", "--with", "--with-editable", "--with-requirements"})),
    # make's include directories (red team 23 N4): an `include x.mk` not found is read there
    **dict.fromkeys(("make", "gmake"), frozenset({"-I", "--include-dir"})),
}
#: uv's options taking requirements: a package name (``--with requests``) or a local path.
_PACKAGE_OPTIONS = frozenset({"--from", "--with", "--with-editable"})


def _local_package(req: str) -> bool:
    """Does the requirement ``req`` name a local directory or file (``.``, ``./pkg``,
    ``../x``, ``/abs``, ``~/x``, ``file:…``, ``sub/pkg``) rather than a package of an index
    or a URL?"""
    req = req.strip()
    return (req in (".", "..") or req.startswith(("./", "../", "/", "~", "file:"))
            or ("/" in req and "://" not in req and "@" not in req))


#: … or one of its build files (``./gradlew -b x.gradle``, ``-c``, ``-I init.gradle``).
_RUNNER_FILES: dict[str, frozenset[str]] = {
    **dict.fromkeys(("gradle", "gradlew", "gradlew.bat"), frozenset({"-b", "--build-file", "-c", "--settings-file",
                                                                     "-I", "--init-script"})),
}
#: Interpreter options that take a value (the script comes after it): ``python3 -W x s.py``.
_VALUE_OPTIONS = frozenset({"-W", "-X", "-r", "--require", "--import", "--loader", "--experimental-loader", "-I",
                            "-M", "-o", "-O", "--rcfile", "--init-file"})
#: Extensions a run-position word without one may be loaded with (``node -r ./pre``).
_RUN_EXTS = (".js", ".cjs", ".mjs", ".ts", ".py", ".sh", ".rb", ".pm", ".pl")
#: A leading ``NAME=value`` word (an environment assignment before the command).
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SCRIPT = re.compile(r"\.(sh|bash|zsh|py|pyw|js|mjs|cjs|ts|mts|cts|rb|pl|php|ps1|bat|cmd|lua|r|jar)$", re.I)
#: A leading variable: ``$NAME``, ``${NAME}``, ``${NAME:-x}``, ``%NAME%``.
VAR = re.compile(r"^(\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%)")


#: A ``PATH`` entry naming the directory the command runs in: empty, ``.``, ``./``, or a
#: project-directory variable (``$CLAUDE_PROJECT_DIR``, ``${PWD}``, ``$(pwd)``).
_HERE_ENTRY = re.compile(r"|\.?/?|(?:\$\{?(?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|CURSOR_PROJECT_DIR|PWD"
                         r"|workspaceFolder|workspaceRoot)\}?|\$\(pwd\))/?")
#: Words after which a new simple command starts.
_STARTS = frozenset({";", "&&", "||", "&", "|", "then", "do", "else", "{", "(", "!", "xargs"})


def _path_here(word: str) -> bool:
    """Does the assignment ``word`` put the directory the command runs in on ``PATH``
    (``PATH=.:$PATH``, ``PATH=$CLAUDE_PROJECT_DIR:$PATH``, an empty entry)?"""
    name, eq, value = word.partition("=")
    return name == "PATH" and bool(eq) and any(_HERE_ENTRY.fullmatch(e) for e in value.split(":"))


def candidates(words: list[str], with_manifests: bool = True) -> Iterator[tuple[str, bool]]:
    """The words of a command that may name a file it runs or reads, each with whether it is
    *run* (the command word, the operand of an interpreter: a directory named there runs
    what is inside it — ``python3 tools`` runs ``tools/__main__.py``, ``node tools/lint`` its
    ``index.js`` — so everything below it counts): a path (a ``/``, a leading ``~`` or
    variable), a script's name, the operand of an interpreter (``bash x``, ``python3 -u x``,
    ``python3 -W ignore x``, ``node -r ./pre.js x``), a module (``python3 -m pkg.mod``: its
    files and the ``pkg.py`` that would shadow it), the value of an ``--opt=value`` word;
    and the manifests a task runner reads its commands from, wherever it appears (``env X=1
    npm run x``, ``sh -c 'make lint'``: ``package.json``, ``Makefile`` …; ``make -C sub``,
    ``npm --prefix sub``, ``make -f build.mk``). A command word after an assignment putting
    the directory the command runs in on ``PATH`` (``PATH=.:$PATH lint``, ``export
    PATH=$CLAUDE_PROJECT_DIR:$PATH; lint``) is the file of that name there. After ``cd dir``
    every candidate is also read from ``dir``."""
    script = False  # the previous word was an interpreter or one of its options
    module = False
    value_of: str | None = None  # the previous word was an option taking a value
    manifests: tuple[tuple[str, bool], ...] = ()  # the last runner's manifests (for -C/--prefix)
    dir_options, file_options = _DIR_OPTIONS, _FILE_OPTIONS  # the last runner's
    project_options: frozenset[str] = frozenset()
    cd_dirs: list[str] = []
    first = True
    looped = False  # inside `for f in <words>;`: each word may be run by the loop's body
    here_on_path = False  # a `PATH=.:$PATH` before: a command word is looked up in the directory
    starts = True  # the word starts a simple command

    def out(value: str, tree: bool) -> Iterator[tuple[str, bool]]:
        if not tree and _GLOB.search(value) and not looped:  # `prettier --write "src/*.ts"`: edited, not run
            return
        values = _braces(value)
        if tree:  # `node -r ./pre` loads pre.js
            values += [v + ext for v in values if not _SCRIPT.search(v) for ext in _RUN_EXTS]
        for v in values:
            yield v, tree
            if not v.startswith(("/", "~", "$", "%")):
                yield from ((d.rstrip("/") + "/" + v, tree) for d in cd_dirs)

    def manifest(value: str, tree: bool) -> Iterator[tuple[str, bool]]:
        """A runner's manifest: a glob (``*.csproj``) kept as one, never expanded."""
        yield value, tree
        if not value.startswith(("/", "~", "$", "%")):
            yield from ((d.rstrip("/") + "/" + value, tree) for d in cd_dirs)

    def option_value(option: str, value: str) -> Iterator[tuple[str, bool]]:
        if option not in _PACKAGE_OPTIONS:
            yield from moved(option, value)
            return
        for part in value.split(","):  # requirements: only the local paths among them (red team 21 M3)
            if _local_package(part):
                yield from moved(option, part.strip())

    def moved(option: str, value: str) -> Iterator[tuple[str, bool]]:
        if option in dir_options or option in file_options:  # a manifest's directory holds the others
            at = value.rstrip("/") if option in dir_options else os.path.dirname(value)
            for m, tree in manifests if with_manifests and at else ():
                yield from manifest(at + "/" + m, tree)
        if option not in project_options:  # not the project's own directory, which is read as the root is
            yield from out(value, True)
        if option == "--config" and "=" in value:  # `cargo --config build.rustc-wrapper="tools/w"` (red team 23 N5)
            yield from out(value.split("=", 1)[1].strip().strip("\"'"), True)

    for i, word in enumerate(words):
        if word == "in" and i >= 2 and words[i - 2] == "for":
            looped = True
        elif looped and (word in ("do", ";") or word.endswith(";")):
            looped = word not in ("do", ";") and word != ""  # the last item, glued to `;`, still counts
        raw, word = word, word.rstrip(";&|")  # `cd tools; bash run`: shlex leaves the separator on
        base = os.path.basename(word)
        if _ASSIGN.match(word):
            here_on_path = here_on_path or _path_here(word)
        elif starts and word not in _WRAPPERS and word != "export" and not word.startswith("-"):
            starts = False
            if here_on_path and word and "/" not in word and word not in _STARTS:
                yield from manifest(word, False)  # `PATH=.:$PATH lint` runs ./lint, found by name
        if word in _STARTS or raw in _STARTS or raw.endswith((";", "&", "|")):
            starts = True
        if value_of is not None:
            yield from option_value(value_of, word)
            value_of = None
            continue
        for v, t in _loaded(word, words[i + 1] if i + 1 < len(words) else None, script):
            yield from out(v, t)
        glued = _GLUED.match(word) if script else None
        if glued is not None:  # `python3 -mtools.guard`, `node -r./pre.js`, `ruby -rtools/lib`
            if glued.group(1) != "m":
                continue
            module = False
            script = False
            continue
        if runner(base):
            manifests = manifests_of(base)
            project_options = _RUNNER_DIRS.get(base, frozenset())
            dir_options = _DIR_OPTIONS | project_options | _RUNNER_PACKAGES.get(base, frozenset())
            file_options = _FILE_OPTIONS | _RUNNER_FILES.get(base, frozenset())
            for m, tree in manifests if with_manifests else ():
                yield from manifest(m, tree)
        opt, eq, val = word.partition("=")
        if manifests:  # `make -Ctools`, `npm --prefix=tools`, `make --file=build.mk`
            if eq and val and (opt in dir_options or opt in file_options):
                yield from option_value(opt, val)
            elif (word[:2] in ("-C", "-f") or (word[:2] == "-I" and "-I" in dir_options)) and len(word) > 2 \
                    and not word.startswith("--"):
                yield from option_value(word[:2], word[2:])
        if eq and val and script and opt in _VALUE_OPTIONS:  # `node --require=./pre x`
            yield from out(val, True)
        if word in ("<", "source", ".") and i + 1 < len(words):  # `bash < run` runs it
            yield from out(words[i + 1].rstrip(";&|"), True)
        if word in ("cd", "pushd") or (base == "env" and i + 1 < len(words) and words[i + 1] in ("-C", "--chdir")):
            target = next((w for w in words[i + 1:i + 4] if not w.startswith("-")), None)
            if target is not None:  # `cd -P tools`, `cd tools;x`
                target = re.split(r"[;&|]", target, maxsplit=1)[0]
                if target not in cd_dirs and len(cd_dirs) < _MAX_CD:
                    cd_dirs.append(target)
        if word.startswith("--chdir=") and word[8:] not in cd_dirs and len(cd_dirs) < _MAX_CD:  # env --chdir=x
            cd_dirs.append(word[len("--chdir="):])
        head = first and not _ASSIGN.match(word) and base not in _WRAPPERS
        if head:
            first = False
        if (manifests and (word in dir_options or word in file_options)) or (script and word in _VALUE_OPTIONS):
            value_of = word
        for value in dict.fromkeys((word, *word.split("=", 1)[1:])):
            if not value:
                continue
            if module:
                for v, tree in _module_files(value):
                    yield from out(v, tree)
            elif "/" in value or "\\" in value or value.startswith(("~", "$", "%")) or _SCRIPT.search(value):
                yield from out(value, head or (script and value == word))
            elif script and not value.startswith("-"):
                yield from out(value, True)
        module = word == "-m" or (script and _COMBINED.match(word) is not None)  # `-m`, `-um`
        script = is_interpreter(base) or (script and (word.startswith("-") or value_of is not None))
    for value in fed(words, _WRAPPERS):  # `sh <hook`, `cat hook | sh`, `awk -f x.awk`
        yield from out(value, True)


def _module_files(value: str) -> Iterator[tuple[str, bool]]:
    """The files ``python3 -m value`` (or ``import value``) may run: the module, the package
    and its ``__main__.py``, every ``__init__.py`` on the way and the ``pkg.py`` that would
    shadow a package."""
    dotted = value.replace(".", "/")
    parts = dotted.split("/")
    yield from ((dotted + ".py", False), (dotted + "/__main__.py", False), (dotted, True))
    for k in range(1, len(parts) + 1):
        yield "/".join(parts[:k]) + "/__init__.py", False
        yield "/".join(parts[:k]) + ".py", False


#: Variables GNU make reads its options from (``MAKEFLAGS=-Imk``: ``mk/`` searched for
#: included makefiles).
MAKE_FLAGS = frozenset({"MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS"})


def _loaded(word: str, following: str | None, script: bool) -> Iterator[tuple[str, bool]]:
    """What ``word`` makes a command load besides its operands: every directory of a
    ``PYTHONPATH=tools``-like assignment (with everything below it), the value of a glued
    interpreter option (``-mtools.guard``: a module; ``-r./pre.js``: a file), and what the
    inline code after ``-c``/``-e`` imports or requires."""
    if _ASSIGN.match(word):
        name, _, value = word.partition("=")
        if name in MAKE_FLAGS:  # `MAKEFLAGS=-Imk make`: an include directory (red team 23 N4)
            flags = value.split()
            for k, flag in enumerate(flags):
                if flag in ("-I", "--include-dir") and k + 1 < len(flags):
                    yield flags[k + 1], True
                elif flag.startswith("--include-dir="):
                    yield flag[len("--include-dir="):], True
                elif flag.startswith("-I") and len(flag) > 2:
                    yield flag[2:], True
        if name in PATH_VARS:
            for entry in value.split(os.pathsep if os.pathsep != ";" else ":"):
                if entry and os.path.normpath(entry) != "." and not VAR.fullmatch(entry.rstrip("/")):
                    # the root on a path (`PYTHONPATH=.`) loads the project's own code: not followed
                    yield entry.rstrip("/") or "/", True
        return
    if not script:
        return
    glued = _GLUED.match(word)
    if glued is not None:
        if glued.group(1) == "m":
            yield from _module_files(glued.group(2))
        else:
            yield glued.group(2), True
    elif word in _CODE_OPTIONS and following is not None:
        for call in _IMPORT_CALLS.finditer(following[:65536]):
            yield from _module_files(call.group(1))
        for m in _IMPORTS.finditer(following[:65536]):
            if m.group(1):
                yield from _module_files(m.group(1))
            elif m.group(2):
                for name in m.group(2).split(","):
                    yield from _module_files(name.strip())
            else:
                yield m.group(3), True


