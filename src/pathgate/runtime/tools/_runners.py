"""Which words of a settings command run code: interpreters and task runners (for the write
guard's reading of agent settings, :mod:`._agent_commands`).

* An interpreter's operand is a script it runs (``bash x``, ``python3 x``): the names of
  :data:`INTERPRETERS` and their versioned spellings (``python3.12``, ``node22``,
  ``pypy3.10``, ``ruby3.3``, ``php8.2``, ``perl5.36``: :func:`is_interpreter`), and the
  tools that take a program file with ``-f`` (``awk -f x.awk``, ``sed -f``, ``jq -f``:
  :data:`SCRIPT_FILE_OPTIONS`).
* A task runner reads the commands it runs from its manifest (``npm run lint`` runs a
  ``package.json`` script, ``./mvnw verify`` the plugins ``pom.xml`` and ``.mvn/`` configure,
  ``./gradlew check`` the build scripts): :func:`manifests` names them, each with whether
  everything below it counts (a directory of build code: ``buildSrc/``, ``.mvn/``, sbt's
  ``project/``). The manifests in the directory the runner starts in count, and the
  build files of the modules a Maven ``pom.xml`` or a Gradle ``settings.gradle`` lists
  (:mod:`._modules`), and what a ``justfile``, ``Makefile``, ``Taskfile.yml`` or
  ``Cargo.toml`` pulls in (:mod:`._includes`); a CMake subdirectory's or an npm workspace's
  own file is not followed.
  A runner whose manifest has no fixed name (``dotnet``: ``*.csproj``) names a glob of the
  directory's own files: matched per write against the target alone, never expanded.

Standard library only.
"""

from __future__ import annotations

import re

__all__ = ["INTERPRETERS", "SCRIPT_FILE_OPTIONS", "fed", "is_interpreter", "manifests_of", "runner"]

INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python2", "python3", "pypy",
                          "pypy3", "node", "nodejs", "deno", "bun", "tsx", "ts-node", "ruby", "perl", "php",
                          "pwsh", "powershell", "lua", "Rscript", "uv", "run", "exec", "source", ".",
                          "run-parts", "npx", "bunx", "jshell", "groovy", "kotlin", "scala", "elixir",
                          "julia", "guile", "tclsh", "wish", "osascript"})
#: A versioned interpreter: ``python3.12``, ``python3.12t``, ``pypy3.10``, ``node22``,
#: ``ruby3.3``, ``php8.2``, ``perl5.36.0``, ``lua5.4``, ``bash5``, ``pwsh7``; a Windows
#: ``.exe`` too.
_VERSIONED = re.compile(r"^(python|pypy|node|nodejs|ruby|php|perl|lua|luajit|bash|zsh|ksh|pwsh|tclsh|deno|bun)"
                        r"[0-9][0-9.]*[a-z]?$")
#: Tools whose ``-f FILE`` (``--file``, ``--from-file``) is the program they run.
SCRIPT_FILE_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox"), frozenset({"-f", "--file"})),
    **dict.fromkeys(("sed", "gsed"), frozenset({"-f", "--file"})),
    **dict.fromkeys(("jq", "gojq", "yq"), frozenset({"-f", "--from-file"})),
}


def is_interpreter(base: str) -> bool:
    """Does the command word ``base`` (a basename) run its operand as a program?"""
    name = base[:-4] if base.lower().endswith(".exe") else base
    return name in INTERPRETERS or _VERSIONED.match(name) is not None


#: Task runners and the manifests (root-relative; a trailing ``/``: everything below it
#: counts) they take their commands from.
_RUNNERS: dict[str, tuple[str, ...]] = {
    # with the code the package manager itself loads first (red team 18 J11): Yarn's release
    # and plugins, Plug'n'Play's loaders, pnpm's hook file and workspace list (what their
    # configuration files name besides: :mod:`._package_managers`)
    **dict.fromkeys(("npm", "pnpm", "yarn", "npx", "bun", "bunx", "corepack"),
                    ("package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".yarn/releases/",
                     ".yarn/plugins/", ".pnp.cjs", ".pnp.loader.mjs", ".pnpmfile.cjs", ".pnpmfile.mjs",
                     "pnpm-workspace.yaml")),
    **dict.fromkeys(("make", "gmake"), ("Makefile", "makefile", "GNUmakefile")),
    "just": ("justfile", ".justfile", "Justfile"),
    # the Python runners build the project (setuptools runs ``setup.py``, reads ``setup.cfg``)
    # and read their own files: ``hatch.toml`` (scripts), tox's ``[tox:tox]`` in ``setup.cfg``
    # and ``tox.toml``, ``pdm.toml``, ``uv.toml`` (red team 20 L7)
    **dict.fromkeys(("uv", "uvx", "poetry", "hatch", "pdm", "rye", "tox", "nox"),
                    ("pyproject.toml", "tox.ini", "tox.toml", "noxfile.py", "hatch.toml", "setup.cfg", "setup.py",
                     "pdm.toml", "uv.toml")),
    "pipenv": ("Pipfile",),
    "cargo": ("Cargo.toml", ".cargo/", "build.rs"),
    # names compare case-folded (``taskfile.yml`` is ``Taskfile.yml``); rake loads every
    # ``rakelib/*.rake`` before a task (red team 20 L7)
    "task": ("Taskfile.yml", "Taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"),
    "rake": ("Rakefile", "Rakefile.rb", "rakelib/"),
    "deno": ("deno.json", "deno.jsonc"),
    # red team 14 F3
    **dict.fromkeys(("mvn", "mvnw", "mvnw.cmd", "mvnd"), ("pom.xml", ".mvn/")),
    **dict.fromkeys(("gradle", "gradlew", "gradlew.bat"),
                    ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
                     "gradle.properties", "init.gradle", "init.gradle.kts", "buildSrc/", "gradle/")),
    **dict.fromkeys(("pre-commit", "prek"), (".pre-commit-config.yaml", ".pre-commit-config.yml")),
    "bundle": ("Gemfile", "gems.rb", ".bundle/"),
    "composer": ("composer.json",),
    "dotnet": ("*.csproj", "*.fsproj", "*.vbproj", "*.sln", "*.slnx", "*.proj", "Directory.Build.props",
               "Directory.Build.targets", "Directory.Build.rsp", "Directory.Packages.props", "global.json",
               "NuGet.config", ".config/dotnet-tools.json"),
    "sbt": ("*.sbt", "project/", ".sbtopts", ".jvmopts"),  # every root ``*.sbt`` is the build
    "mix": ("mix.exs", ".formatter.exs", "config/"),
    "cmake": ("CMakeLists.txt", "CMakePresets.json", "CMakeUserPresets.json", "cmake/"),
    # runners seen as MCP server or hook commands (red team 20 L7): Compose merges the
    # override file into the services it runs; mise, devbox and nix run their files' tasks
    **dict.fromkeys(("docker", "docker-compose", "podman", "podman-compose"),
                    ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml",
                     "compose.override.yaml", "compose.override.yml", "docker-compose.override.yaml",
                     "docker-compose.override.yml", "Dockerfile", "Containerfile")),
    "mise": ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".tool-versions", "mise/", ".mise/",
             ".config/mise.toml", ".config/mise/", "mise-tasks/", ".mise-tasks/"),
    "devbox": ("devbox.json",),
    **dict.fromkeys(("nix", "nix-shell", "nix-build"), ("flake.nix", "flake.lock", "default.nix", "shell.nix")),
}


def runner(base: str) -> bool:
    """Is the command word ``base`` (a basename) a task runner with manifests?"""
    return base in _RUNNERS


def manifests_of(base: str) -> tuple[tuple[str, bool], ...]:
    """The manifests of the runner ``base``: ``(root-relative path, everything below it
    counts)``; none when ``base`` is not a runner."""
    return tuple((m.rstrip("/"), m.endswith("/")) for m in _RUNNERS.get(base, ()))


#: A redirection of standard input glued to its file: ``<hook``, ``0<hook`` (not ``<<``).
_STDIN = re.compile(r"^[0-9]*<(?![<&(])(.+)$")
#: Words that end one simple command (a pipe's reading starts again after them).
_ENDS = frozenset({";", "&&", "||", "&", "then", "do", "else", "{", "(", "!"})


def fed(words: list[str], wrappers: frozenset[str]) -> list[str]:
    """The words of a command line naming a file a program reads as its code without being
    its operand: the file of a glued input redirection (``sh <hook``, ``bash 0<hook``), a
    program file option (``awk -f x.awk``, ``sed -fx.sed``, ``jq --from-file=x``), and every
    operand of a command whose output is piped into an interpreter (``cat hook | sh``,
    ``cat a b | env python3 -``): ``wrappers`` are words that run the next one."""
    found: list[str] = []
    segment: list[str] = []
    prog: frozenset[str] = frozenset()
    for i, raw in enumerate(words):
        m = _STDIN.match(raw)
        if m is not None:
            found.append(m.group(1).rstrip(";&|"))
        word = raw.rstrip(";&")
        base = word.rsplit("/", 1)[-1]
        if base in SCRIPT_FILE_OPTIONS:
            prog = SCRIPT_FILE_OPTIONS[base]
        elif prog:
            opt, eq, val = word.partition("=")
            if word in prog and i + 1 < len(words):
                found.append(words[i + 1].rstrip(";&|"))
            elif eq and opt in prog and val:
                found.append(val)
            elif word[:2] == "-f" and len(word) > 2 and not word.startswith("--"):
                found.append(word[2:])
        if word == "|" or ("|" in word and "||" not in word):
            left, _, right = word.partition("|")
            if left:
                segment.append(left)
            after = [right] if right else []
            after += [w for w in words[i + 1:i + 6]]
            head = next((w for w in after if w not in wrappers and not ("=" in w and not w.startswith("-"))), "")
            if is_interpreter(head.rsplit("/", 1)[-1]):
                found += [w for w in segment[1:] if w and not w.startswith("-")]
            segment = [right] if right else []
            continue
        if word in _ENDS or raw.endswith((";", "&")):
            segment = []
            prog = frozenset()
            continue
        segment.append(word)
    return found


#: What a program started on the project root itself runs (``python3 .``: ``__main__.py``;
#: ``node .``: ``package.json``'s ``main``, else ``index.js``; ``go run .``: the root's Go
#: files; ``deno run .``…): named instead of the root (everything below it would leave
#: nothing writable).
ROOT_ENTRIES = ("__main__.py", "package.json", "index.js", "index.cjs", "index.mjs", "index.ts", "index.json",
                "index.node", "main.go", "*.go", "go.mod", "main.ts", "mod.ts", "deno.json", "deno.jsonc")


def root_entries(root: str) -> list[str]:
    """:data:`ROOT_ENTRIES` of ``root`` (absolute), with the file ``package.json``'s ``main``
    names (read as node reads it, bounded; a manifest that cannot be read names nothing
    more), each with whether everything below it counts. A ``package.json`` that is a link
    (or reached through one) is read only to a file the read gates serve, that file named
    too (:func:`~._guard_read.read_guarded`); any other link is never read, whatever it
    leads to: its ``main`` could be anything, so everything below the root counts. Blocking."""
    import json
    import os

    from pathgate.runtime.tools._guard_read import Linked, read_guarded
    from pathgate.runtime.tools._settings_load import Unchecked

    out = [os.path.join(root, e) for e in ROOT_ENTRIES]
    try:
        raw, real = read_guarded(os.path.join(root, "package.json"), root, 1 << 20)
        if real is not None:
            out.append(real)  # what the link leads to
        main = json.loads(raw).get("main")
    except Linked:
        raise Unchecked from None
    except (OSError, ValueError, AttributeError, RecursionError):
        return out
    if isinstance(main, str) and main.strip():
        full = os.path.normpath(os.path.join(root, main))
        out += [full, *(full + ext for ext in (".js", ".cjs", ".mjs", ".json", ".node", "/index.js"))]
    return out
