"""A git hook script read as the command lines it runs, in linear time and bounded space.

:mod:`._git_hooks` hands each hook script's text here and reads the lines it gets back as
shell command lines (:func:`~._agent_commands.command_paths`). A script is read

* by its language: a ``#!`` line naming Python, Node (``node``, ``deno``, ``bun``, ``tsx`` …),
  Ruby, Perl, PHP or Lua makes it code, read as code only; anything else is read as shell
  (and as code as well);
* as shell: continued lines joined, ``$(git rev-parse --show-toplevel)`` read as the root
  and ``$(dirname "$0")`` as the script's directory, each literal variable (``D=scripts`` …
  ``"$D/check.sh"``) expanded with *every* value the script assigns it (``D=lib`` then
  ``D=scripts``: both);
* as code: each statement's string literals in order (``subprocess.run(["python3",
  "tools/check.py"])`` reads as ``python3 tools/check.py``; joined with ``/`` as well, for
  ``os.path.join("tools", "check.py")``), and each line that imports (``import tools.check``,
  ``from tools import check``, ``require('./x')``) as ``-c`` code. A shell script's lines
  are read so too, so an interpreter's here-document (``python3 - <<'EOF'``) counts — its
  imports and literals — whatever its delimiter and however it ends: no here-document is
  parsed, so none can hide a line.

Every step is linear in the text: no expression can backtrack across it (string literals are
scanned by hand, each failed literal skipping its line), and what the script expands to is
bounded (:data:`MAX_EXPANDED` characters and :data:`MAX_EMITTED` lines in all,
:data:`_MAX_VARIANTS` spellings of one line, :data:`_MAX_VALUES` values of one variable):
past a bound the script cannot be checked (:class:`~._settings_load.Unchecked`), and its
caller leaves nothing writable. The caller bounds the text itself (:data:`MAX_LINES` command
lines, counted on the raw text before anything here runs). Standard library only.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator

from pathgate.runtime.tools._settings_load import Unchecked

__all__ = ["MAX_EMITTED", "MAX_EXPANDED", "MAX_LINES", "command_count", "language", "script_lines"]

#: Command lines (not blank, not comments) one hook script may hold before it cannot be
#: checked (real hooks hold tens), counted on the raw text.
MAX_LINES = 2000
#: Characters the lines read from one script may add up to (variables expanded, literals
#: gathered): four times what a 2,000-line script of 30-character lines holds.
MAX_EXPANDED = 256 * 1024
#: Lines read from one script in all (each costs a parse by its caller).
MAX_EMITTED = 4 * MAX_LINES
#: Values one variable may be assigned, and spellings one line may take once its variables
#: are expanded with each of them.
_MAX_VALUES = 16
_MAX_VARIANTS = 64
#: String literals read as one command (a statement's, or consecutive lines' while a bracket
#: stays open).
_MAX_GROUP = 64

#: A line continued on the next (``\`` before the line break).
_CONTINUED = re.compile(r"\\\r?\n")
#: ``NAME=value`` on its own line (``export``/``readonly``/``local`` too): a literal value.
_ASSIGN = re.compile(r"""[ \t]*(?:export[ \t]+|readonly[ \t]+|local[ \t]+)?([A-Za-z_]\w*)="""
                     r"""(?:"([^"$`\\]*)"|'([^']*)'|([^\s;&|$`"'\\]*))[ \t]*;?[ \t]*$""")
#: A variable's use: ``$NAME``, ``${NAME}``.
_REF = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
#: The work tree's top as a hook spells it (git runs hooks at the top of the work tree), and
#: the script's own directory (``$(dirname "$0")``, ``$(dirname -- "$0")``, ``${0%/*}``);
#: each match is bounded (no scan to the end of a long line per attempt).
_TOPLEVEL = re.compile(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\b[^)\n]{0,256}\)"
                       r"|`\s*git\s+rev-parse\s+--show-toplevel\b[^`\n]{0,256}`")
_SELF_DIR = re.compile(r"""\$\(\s*dirname\s+(?:--\s+)?["']?\$0["']?\s*\)|\$\{0%/\*\}""")
#: A ``#!`` line: the interpreter and, after ``env`` (and its options), the program.
_SHEBANG = re.compile(r"#![ \t]*(\S+)((?:[ \t]+\S+){0,4})")
#: A program name → the interpreter its code is read as (its imports as ``<it> -c``).
_LANGUAGES = ((re.compile(r"(?:python|pypy)[\d.]*(?:\.exe)?"), "python3"),
              (re.compile(r"(?:node|nodejs|deno|bun|tsx|ts-node)(?:\.exe)?"), "node"),
              (re.compile(r"ruby[\d.]*|perl[\d.]*|php[\d.]*|lua[\d.]*|Rscript"), None))
#: A line that may load code: what :func:`~._agent_commands.command_paths` reads in ``-c`` code.
_IMPORT_HINT = re.compile(r"\b(?:import|from|require|require_relative|__import__|import_module)\b")
#: A directory code changes to before it runs a relative script: ``os.chdir("tools")``,
#: ``process.chdir('tools')``, ``Dir.chdir("tools")``, a ``cwd="tools"``/``{cwd: 'tools'}``
#: argument (bounded: no scan to the end of a long line per attempt).
_CHDIR = re.compile(r"""\b(?:chdir\s*\(|cwd\s*[=:])\s*(?:"([^"\n]{1,256})"|'([^'\n]{1,256})')""")
#: What a code scan stops at outside a literal: quotes, brackets, line breaks.
_SPECIAL = re.compile(r"[\"'`()\[\]{}\n]")
#: What ends a literal opened by each quote (a backslash escapes the next character; a line
#: break ends it unclosed — a template literal over several lines is read as code, so one
#: stray quote never hides the lines after it).
_LITERAL_END = {q: re.compile(rf"[{q}\\\n]") for q in "\"'`"}


class _Budget:
    """What the lines read from one script may add up to: :class:`Unchecked` past it."""

    __slots__ = ("chars", "lines")

    def __init__(self) -> None:
        self.chars = MAX_EXPANDED
        self.lines = MAX_EMITTED

    def charge(self, chars: int) -> None:
        self.chars -= chars
        if self.chars < 0:
            raise Unchecked

    def take(self, line: str) -> str:
        self.charge(len(line))
        self.lines -= 1
        if self.lines < 0:
            raise Unchecked
        return line


def command_count(text: str) -> int:
    """The command lines of a script as written (neither blank nor a comment)."""
    n = 0
    for raw in text.splitlines():
        s = raw.strip()
        if s and not s.startswith("#"):
            n += 1
    return n


def language(text: str) -> str | None:
    """The interpreter a script's ``#!`` line names, as its code is read (``python3``,
    ``node``, ``ruby`` …); ``None`` for a shell script (or an unknown program: read as
    shell)."""
    m = _SHEBANG.match(text, 0, min(len(text), 512))
    if m is None:
        return None
    words = [os.path.basename(m.group(1)), *m.group(2).split()]
    if words[0] == "env":  # `#!/usr/bin/env -S python3 -u`
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w][:1]
    for word in words[:1]:
        for pattern, interp in _LANGUAGES:
            if pattern.fullmatch(word):
                return interp or re.sub(r"[\d.]+$", "", word)
    return None


def script_lines(text: str, root: str, here: str) -> list[str]:
    """The command lines a hook script's text (in the directory ``here`` of the project
    ``root``) is read as, each once; :class:`Unchecked` past a bound."""
    budget = _Budget()
    interp = language(text)
    if interp is not None:
        lines = text.splitlines()
        found = list(_code_lines(lines, interp, budget))
    else:
        lines = _shell_lines(text, root, here, budget)
        found = [*lines, *_code_lines(lines, "python3", budget)]
    return list(dict.fromkeys(found))


def _shell_lines(text: str, root: str, here: str, budget: _Budget) -> list[str]:
    """The command lines of a shell script: continued lines joined, the top and the
    script's directory spelled out, literal variables expanded with every value."""
    raw = _CONTINUED.sub(" ", text).splitlines()
    values: dict[str, list[str]] = {}
    for line in raw:
        m = _ASSIGN.match(line)
        if m is None:
            continue
        seen = values.setdefault(m.group(1), [])
        value = next(g for g in m.groups()[1:] if g is not None)
        if value not in seen:
            seen.append(value)
            if len(seen) > _MAX_VALUES:
                raise Unchecked
    out: list[str] = []
    for line in raw:
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if "$" in s or "`" in s:  # each replacement charged as it is made
            s = _TOPLEVEL.sub(lambda _m: _spent(budget, root), s)
            s = _SELF_DIR.sub(lambda _m: _spent(budget, here), s)
        for variant in _variants(s, values, budget):
            out.append(budget.take(variant))
    return out


def _spent(budget: _Budget, text: str) -> str:
    budget.charge(len(text))
    return text


def _variants(line: str, values: dict[str, list[str]], budget: _Budget) -> list[str]:
    """``line`` with each use of an assigned variable replaced by each of its values (every
    combination; their total length is charged before it is built)."""
    if "$" not in line or not values:
        return [line]
    variants = [""]
    pos = 0
    for m in _REF.finditer(line):
        name = m.group(1) or m.group(2)
        choices = values.get(name)
        if choices is None:
            continue
        text = line[pos:m.start()]
        if len(variants) * len(choices) > _MAX_VARIANTS:
            raise Unchecked
        # charged before it is built: what the next spellings add up to
        budget.charge(len(choices) * (sum(len(v) for v in variants) + len(variants) * len(text))
                      + len(variants) * sum(len(c) for c in choices))
        variants = [v + text + c for v in variants for c in choices]
        pos = m.end()
    if pos == 0:
        return [line]
    return [v + line[pos:] for v in variants]


def _code_lines(lines: list[str], interp: str, budget: _Budget) -> Iterator[str]:
    """What code loads and runs, as command lines: each line that imports, as ``<interp> -c
    <line>``; each directory it changes to (``os.chdir("tools")``, ``cwd="tools"``) as ``cd
    <dir>`` (the caller reads every line from there too); each statement's string literals
    as one command (a leading ``{name}`` of an f-string read as a variable: the root), and
    joined with ``/`` (``os.path.join("tools", "check.py")``). Comment lines (``#``, ``//``) name nothing."""
    code = [ln for ln in lines if not ln.lstrip().startswith(("#", "//"))]
    for line in code:
        if _IMPORT_HINT.search(line):
            yield budget.take(f"{interp} -c {shlex.quote(line.strip())}")
        if "chdir" in line or "cwd" in line:  # the script's later lines run from there too
            for m in _CHDIR.finditer(line):
                yield budget.take("cd " + shlex.quote(m.group(1) or m.group(2)))
    for group in _literal_groups("\n".join(code)):
        words = ["$" + w if w.startswith("{") else w for w in group if w]
        if not words:
            continue
        yield budget.take(": " + " ".join(shlex.quote(w) for w in words))
        if 1 < len(words) <= 8 and not any(c.isspace() for w in words for c in w):
            yield budget.take(": " + shlex.quote("/".join(w.strip("/") for w in words)))


def _literal_groups(code: str) -> Iterator[list[str]]:
    """The string literals of ``code`` in order, grouped by statement: a line break ends a
    group unless a bracket is open (a call's arguments over several lines), and a group ends
    at :data:`_MAX_GROUP` literals. Scanned once, left to right: a quote that does not close
    on its line (an apostrophe in a comment) opens nothing, the scan going on after the line."""
    group: list[str] = []
    depth = 0
    i = 0
    while True:
        m = _SPECIAL.search(code, i)
        if m is None:
            break
        c = m.group()
        i = m.end()
        if c in "\"'`":
            text, i = _literal(code, i, c)
            if text is not None:
                group.append(text)
                if len(group) >= _MAX_GROUP:
                    yield group
                    group = []
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and group:  # a line break ends a statement
            yield group
            group = []
    if group:
        yield group


def _literal(code: str, start: int, quote: str) -> tuple[str | None, int]:
    """The literal opened by ``quote`` just before ``start`` (escapes kept as the escaped
    character) and where the scan goes on; ``None`` when it does not close (the scan then
    goes on at the line break, or the end)."""
    ends = _LITERAL_END[quote]
    parts: list[str] = []
    j = start
    while True:
        e = ends.search(code, j)
        if e is None:
            return None, len(code)
        ch = e.group()
        parts.append(code[j:e.start()])
        if ch == "\\":
            parts.append(code[e.end():e.end() + 1])
            j = e.end() + 1
            continue
        if ch == "\n":
            return None, e.start()
        return "".join(parts), e.end()
