"""The files a task runner's manifest pulls in besides itself: ``just``'s and GNU make's
(for the write guard's reading of the commands agent settings run; red team 20 L11).

A hook that starts ``just lint`` runs what the ``justfile`` says, and the ``justfile`` may
take its recipes from other files or run every recipe through a program of the project: an
agent that rewrites such a file gets its commands run by the next hook, as if it had
rewritten the ``justfile`` (Maven modules and Gradle includes are :mod:`._modules`'). So
:func:`included_files` names, for a manifest of :data:`INCLUDE_NAMES`:

* ``justfile`` (any capitalization, ``.justfile`` too, in the directory): each ``import``
  / ``import?`` file, each module of a ``mod`` / ``mod?`` statement (``mod ci``:
  ``ci.just``, ``ci/mod.just``, ``ci/justfile``, ``ci/.justfile``; ``mod ci 'path'``: the
  file, or a directory's module files), each read in turn; the programs ``set shell``,
  ``set windows-shell``, ``set script-interpreter`` and a recipe's ``[script(…)]`` name
  (read as a command line is, :func:`._command_words.candidates`: ``./tools/sh``,
  ``python3 tools/run.py``), from the justfile's directory, a literal ``set
  working-directory`` and a recipe's ``[working-directory(…)]`` (a ``[no-cd]`` recipe's
  relative program cannot be checked); the files ``set dotenv-path`` / ``dotenv-filename`` name. A value
  not written as a plain string (an escape, a triple-quoted or shell-expanded ``x'…'``
  string, an expression) cannot be checked;
* ``Makefile`` (``GNUmakefile``, ``makefile``): every operand of ``include``,
  ``-include``, ``sinclude`` (read in turn) and ``load``/``-load``, from the directory make
  runs in, and the program a ``SHELL`` assignment names; an operand holding a variable
  (``$(DEPS)``) or a glob, an ``$(eval …)``, cannot be checked (make would read files no
  name here tells; ``make -I dir``'s directories: :mod:`._command_words`);
* ``Taskfile.yml`` and ``Cargo.toml``: :mod:`._taskfile`, :mod:`._cargo`.

Lines are read as the runner reads them where it matters (a make line continued by ``\\``,
a ``#`` comment; a just statement starts a line, recipe bodies are indented); what cannot be
read with certainty raises :class:`~._settings_load.Unchecked` (nothing writable), as do
the caller's bounds (:class:`Source`). A directory is listed (a justfile's spellings, a
glob of Cargo members) only when reached without a link the guard would not follow, each
entry screened by name first (:func:`~._guard_read.screened`: a secret or host-filtered
entry is skipped, the answer it gives when absent), at most :data:`MAX_LISTED` entries in
all. Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Protocol

from pathgate.runtime.tools._settings_load import Unchecked

__all__ = ["INCLUDE_NAMES", "MAX_INCLUDED", "MAX_LISTED", "Source", "included_files", "listing"]

#: The manifest names expanded (one a runner: the others of its directory are read with it).
INCLUDE_NAMES = frozenset({"justfile", "Makefile", "Taskfile.yml", "Cargo.toml"})
#: Directory entries listed for one manifest in all (past it: :class:`Unchecked`).
MAX_LISTED = 16384
#: Statements (includes, modules, settings) read from one manifest's files in all, and the
#: files a justfile's or makefile's includes read (real ones: a few dozen; past them, the
#: manifest cannot be checked rather than read to the caller's file bound).
_MAX_STATEMENTS = 4096
MAX_INCLUDED = 256


class Source(Protocol):
    """The caller's bounded reader (:class:`._modules._Reader`): ``read`` a file inside
    ``root`` (``None``: missing; :class:`Unchecked` past a bound or for a link), ``note`` a
    directory listed (its signature kept for the caller's cache)."""

    root: str
    listed: int

    def read(self, path: str) -> bytes | None: ...

    def note(self, path: str) -> None: ...


def included_files(manifest: str, src: Source) -> Iterator[tuple[str, bool]]:
    """The files (absolute, inside the root) the runner started on ``manifest`` reads or runs
    besides it, each with whether everything below it counts. Blocking."""
    name = os.path.basename(manifest)
    here = os.path.dirname(manifest)
    if name == "justfile":
        yield from _just(here, src)
    elif name == "Makefile":
        yield from _make(here, src)
    elif name == "Taskfile.yml":
        from pathgate.runtime.tools._taskfile import taskfiles

        yield from taskfiles(here, src)
    elif name == "Cargo.toml":
        from pathgate.runtime.tools._cargo import cargo_files

        yield from cargo_files(manifest, src)


def inside(path: str, root: str) -> bool:
    """Is ``path`` (normalised) below ``root``?"""
    return path.startswith(root.rstrip("/") + "/")


def listing(directory: str, src: Source) -> list[str]:
    """The entries of the directory ``directory`` (inside the root) as the guard may see
    them: none when it is missing or not a directory; :class:`Unchecked` when it is reached
    through a link the guard would not follow or past :data:`MAX_LISTED`; an entry the read
    gates would not serve skipped (:func:`~._guard_read.screened`). The directory itself and
    each directory on its way are judged first, as a read of them would be (red team 23 N6):
    a secret one is absent (no entries), a host-filtered one cannot be checked — whether it
    exists or not, and whatever it holds; only the entries kept count."""
    from pathgate.runtime.tools._guard_read import refused_directory, screened

    root = src.root.rstrip("/")
    if directory != root and not inside(directory, root):
        return []
    rel = directory[len(root) + 1:]
    parts = rel.split("/") if rel else []
    for k in range(1, len(parts) + 1):
        head = "/".join(parts[:k])
        if screened(head):
            src.read(f"{root}/{head}")  # the read gates' answer by its name alone: absent, or Unchecked
            return []
    if refused_directory(directory, root):
        raise Unchecked
    src.note(directory)
    try:
        with os.scandir(directory) as it:
            names = [e.name for e in it]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError:
        raise Unchecked from None
    kept = [n for n in names if not screened(f"{rel}/{n}" if rel else n)]
    src.listed += len(kept)
    if src.listed > MAX_LISTED:
        raise Unchecked
    return kept


def _screened(path: str, root: str) -> bool:
    from pathgate.runtime.tools._guard_read import screened

    return screened(path[len(root.rstrip("/")) + 1:])


def plain_dir(path: str, src: Source, *, links: bool = False) -> bool:
    """Is ``path`` a directory (``links``: or a link to one)? A name the read gates would
    not serve is never looked at: the reader answers for it by its name alone (a secret:
    ``False``, as if absent; host-filtered: :class:`~._guard_read.Linked`, nothing
    writable), the same whether it exists or not."""
    if inside(path, src.root) and _screened(path, src.root):
        src.read(path)
        return False
    return os.path.isdir(path) and (links or not os.path.islink(path))


# --- just ---------------------------------------------------------------------------------

#: A plain just string: single-quoted (no escapes in just), or double-quoted without a
#: backslash (an escape is not read).
_STRING = r"""'[^'\n]*'|"[^"\\\n]*\""""
_COMMENT = r"[ \t]*+(?:#[^\n]*)?"
_JUST_IMPORT = re.compile(rf"import\??[ \t]+({_STRING}){_COMMENT}")
_JUST_MOD = re.compile(rf"(?:\[[^\]\n]*\][ \t]*)*mod\??[ \t]+([A-Za-z_][A-Za-z0-9_-]*)(?:[ \t]+({_STRING}))?{_COMMENT}")
#: What starts a just statement the reader must read (a recipe ``mod arg:`` or an assignment
#: ``import := …`` holds a ``:`` and is not one).
_JUST_STARTS = re.compile(r"(?:\[[^\]\n]*\][ \t]*)*(import|mod)(?:\?|[ \t])")
#: ``set NAME := value`` of the settings that name a program or a file.
_JUST_SET = re.compile(r"set[ \t]+(shell|windows-shell|script-interpreter|dotenv-path|dotenv-filename"
                       r"|working-directory)\b[ \t]*(.*)")
_JUST_LIST = re.compile(rf"\[[ \t]*+((?:{_STRING})(?:[ \t]*+,[ \t]*+(?:{_STRING}))*+)[ \t]*+,?[ \t]*+\]{_COMMENT}")
_JUST_SCALAR = re.compile(rf"({_STRING}){_COMMENT}")
_JUST_WORD = re.compile(_STRING)
#: A recipe attribute naming its interpreter: ``[script('python3')]``, ``[private, script("./x")]``.
_JUST_SCRIPT = re.compile(r"\bscript[ \t]*\(([^)\n]*)\)")
_JUST_SCRIPT_ARGS = re.compile(rf"[ \t]*+(?:{_STRING})(?:[ \t]*+,[ \t]*+(?:{_STRING}))*+[ \t]*+")
#: A recipe attribute moving where its interpreter is started (red team 23 N7):
#: ``[working-directory('ci')]`` / ``[working-directory: 'ci']``, and ``[no-cd]`` (the
#: directory just was invoked in).
_JUST_WORKDIR = re.compile(rf"\bworking-directory\b(?:[ \t]*\([ \t]*({_STRING})[ \t]*\)|[ \t]*:[ \t]*({_STRING}))?")
_JUST_NO_CD = re.compile(r"\bno-cd\b")
#: The lines of a justfile that may be a statement read here.
_JUST_LINE = re.compile(r"^(?:import|mod|set|\[)[^\n]*", re.M)
#: The names a justfile may have in a directory (compared case-folded) and a module's.
_JUSTFILES = ("justfile", ".justfile")


def _unquote(text: str) -> str:
    return text[1:-1]


def _justfiles(directory: str, src: Source) -> list[str]:
    """The justfiles of ``directory`` in any capitalization (``Justfile``, ``.JUSTFILE``)."""
    return [os.path.join(directory, n) for n in sorted(listing(directory, src)) if n.casefold() in _JUSTFILES]


def _just(here: str, src: Source) -> Iterator[tuple[str, bool]]:
    """A justfile's imports and modules (read in turn, breadth first) and the programs and
    files its settings name."""
    queue = _justfiles(here, src)
    yield from ((p, False) for p in queue)
    seen = set(queue)
    count = [0]
    while queue:
        path = queue.pop(0)
        if len(seen) > MAX_INCLUDED:
            raise Unchecked
        raw = src.read(path)
        if raw is None:
            continue
        found: list[tuple[str, bool]] = []
        for target, tree, read_it in _just_file(path, raw.decode("utf-8", "replace"), src, count):
            if not inside(target, src.root):
                continue
            found.append((target, tree))
            if read_it and target not in seen:
                seen.add(target)
                queue.append(target)
        yield from found


def _just_file(path: str, text: str, src: Source, count: list[int]) -> Iterator[tuple[str, bool, bool]]:
    """What one justfile names: ``(path, everything below it counts, read it in turn)``."""
    here = os.path.dirname(path)
    programs: list[list[str]] = []
    workdirs = [here]
    recipe_dirs: list[str] = []  # `[working-directory('ci')]`, relative to the default ones
    no_cd = False
    for m in _JUST_LINE.finditer(text):  # (a recipe's body is indented: not a statement)
        line = m.group(0).removesuffix("\r")
        count[0] += 1
        if count[0] > _MAX_STATEMENTS:
            raise Unchecked
        if line.startswith("["):
            for wm in _JUST_WORKDIR.finditer(line):
                quoted = wm.group(1) or wm.group(2)
                if quoted is None:
                    raise Unchecked  # a working directory not written as a plain string
                recipe_dirs.append(_unquote(quoted))
            no_cd = no_cd or _JUST_NO_CD.search(line) is not None
            for sm in _JUST_SCRIPT.finditer(line):
                if not _JUST_SCRIPT_ARGS.fullmatch(sm.group(1)):
                    raise Unchecked
                programs.append([_unquote(w) for w in _JUST_WORD.findall(sm.group(1))])
        if line.startswith("set"):
            yield from _just_set(line, here, programs, workdirs)
            continue
        if _JUST_STARTS.match(line) is None:
            continue
        imp = _JUST_IMPORT.fullmatch(line)
        if imp is not None:
            value = _unquote(imp.group(1))
            if value.startswith("~"):
                continue
            yield os.path.normpath(os.path.join(here, value)), False, True
            continue
        mod = _JUST_MOD.fullmatch(line)
        if mod is not None:
            yield from _just_module(here, mod.group(1), mod.group(2), src)
        elif ":" not in line:
            raise Unchecked  # an import or module not written plainly
    workdirs += [os.path.normpath(os.path.join(w, d)) for w in list(workdirs) for d in recipe_dirs
                 if d and not d.startswith("~")]
    for words in programs:
        yield from _programs(words, workdirs, no_cd)


def _just_set(line: str, here: str, programs: list[list[str]],
              workdirs: list[str]) -> Iterator[tuple[str, bool, bool]]:
    """One ``set`` line: a shell or interpreter (kept in ``programs``), a working directory
    (added to ``workdirs``), or an environment file named."""
    m = _JUST_SET.fullmatch(line)
    if m is None:
        return  # a setting naming nothing (`set dotenv-load`, `set positional-arguments`)
    key, value = m.group(1), m.group(2)
    if not value.startswith(":="):
        if value.strip() and not value.lstrip().startswith("#"):
            raise Unchecked
        return  # a boolean setting spelled without a value
    value = value[2:].strip()
    if key in ("shell", "windows-shell", "script-interpreter"):
        lst = _JUST_LIST.fullmatch(value)
        if lst is None:
            raise Unchecked
        programs.append([_unquote(w) for w in _JUST_WORD.findall(lst.group(1))])
        return
    scalar = _JUST_SCALAR.fullmatch(value)
    if scalar is None:
        raise Unchecked
    text = _unquote(scalar.group(1))
    if not text or text.startswith("~"):
        return
    if key == "working-directory":
        workdirs.append(os.path.normpath(os.path.join(here, text)))
    else:
        yield os.path.normpath(os.path.join(here, text)), False, False


def _programs(words: list[str], workdirs: list[str], no_cd: bool = False) -> Iterator[tuple[str, bool, bool]]:
    """The project files a shell or interpreter setting runs, read as a command line; with
    ``no_cd`` (a ``[no-cd]`` recipe: started wherever just was invoked) a relative one
    cannot be checked."""
    from pathgate.runtime.tools._command_words import candidates

    for cand, tree in candidates(words, False):
        if "$" in cand:
            raise Unchecked  # a name with a `$` is not read
        if cand.startswith(("~", "%")):
            continue
        if no_cd and not cand.startswith("/"):
            raise Unchecked
        for wd in workdirs:
            yield os.path.normpath(os.path.join(wd, cand)), tree, False


def _just_module(here: str, name: str, quoted: str | None,
                 src: Source) -> Iterator[tuple[str, bool, bool]]:
    """The files ``mod name`` (or ``mod name 'path'``) may load, each read in turn."""
    if quoted is not None:
        value = _unquote(quoted)
        if value.startswith("~"):
            return
        target = os.path.normpath(os.path.join(here, value))
        if inside(target, src.root) and _screened(target, src.root):
            src.read(target)  # judged by its name alone, file or directory (secret: absent)
            return
        # the module's file itself, or a directory holding it (its names named either way:
        # a missing one could be made a directory)
        yield target, False, not os.path.isdir(target)
        dirs = [target]
    else:
        yield os.path.join(here, name + ".just"), False, True
        dirs = [os.path.join(here, name)]
    for d in dirs:
        for n in ("mod.just", *_JUSTFILES):
            yield os.path.join(d, n), False, n == "mod.just"
        for found in _justfiles(d, src) if inside(d, src.root) else ():
            yield found, False, True


# --- GNU make -----------------------------------------------------------------------------

#: The makefiles GNU make reads in a directory (the first it finds).
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
#: A directive reading or loading files: ``include``, ``-include``, ``sinclude``, ``load``,
#: ``-load`` (any blanks before it, a tab too: over-inclusive), on a logical line.
_MAKE_DIRECTIVE = re.compile(r"^[ \t]*+(-?include|sinclude|-?load)(?:[ \t]+([^\n]*))?$", re.M)
#: Files one makefile may name past which it cannot be checked.
_MAX_MAKE_WORDS = 4096
#: An ``eval`` call (red team 23 N4): the text it makes is read as makefile lines (an
#: ``include`` in it too), which no line here tells.
_MAKE_EVAL = re.compile(r"\$[({][ \t]*eval\b")
#: An assignment of ``SHELL`` (``SHELL := ./tools/sh``, ``override SHELL = …``, a target's
#: ``lint: SHELL = …``): every recipe line runs through that program (red team 23 N4); a
#: ``define SHELL`` block cannot be read.
_MAKE_SHELL = re.compile(r"^(?!\t)(?:[^\n#=]*:[ \t]*)?(?:(?:override|export|private)[ \t]+)*SHELL[ \t]*"
                         r"(:::=|::=|:=|\?=|\+=|!=|=)([^\n]*)", re.M)
_MAKE_DEFINE_SHELL = re.compile(r"^[ \t]*(?:override[ \t]+|export[ \t]+)*define[ \t]+SHELL\b", re.M)


def _make_directives(text: str) -> Iterator[tuple[str, str]]:
    """The include and load directives of a makefile: ``(directive, operands)`` of each
    logical line (a line ending with ``\\`` goes on), a ``#`` not escaped starting a
    comment."""
    joined = re.sub(r"\\\r?\n", " ", text)
    for m in _MAKE_DIRECTIVE.finditer(joined):
        operands = (m.group(2) or "").removesuffix("\r")
        comment = re.search(r"(?<!\\)#", operands)
        yield m.group(1), operands[:comment.start()] if comment is not None else operands


def _make(here: str, src: Source) -> Iterator[tuple[str, bool]]:
    """What the makefiles of ``here`` include (read in turn, from ``here``, where make runs)
    and load."""
    queue = [os.path.join(here, n) for n in _MAKEFILES]
    yield from ((p, False) for p in queue)
    seen = set(queue)
    words = 0
    while queue:
        path = queue.pop(0)
        if len(seen) > MAX_INCLUDED:
            raise Unchecked
        raw = src.read(path)
        if raw is None:
            continue
        text = raw.decode("utf-8", "replace")
        yield from _make_shell(text, here, src.root)
        for directive, operands in _make_directives(text):
            for word in operands.split():
                words += 1
                if words > _MAX_MAKE_WORDS or "$" in word or any(c in word for c in "*?["):
                    raise Unchecked
                if directive.endswith("load"):
                    word = word.split("(", 1)[0]  # `load ext.so(init_sym)`
                if not word or word.startswith("~"):
                    continue
                target = os.path.normpath(os.path.join(here, word))
                if not inside(target, src.root):
                    continue
                yield target, False
                if not directive.endswith("load") and target not in seen:
                    seen.add(target)
                    queue.append(target)


def _make_shell(text: str, here: str, root: str) -> Iterator[tuple[str, bool]]:
    """The programs a makefile's ``SHELL`` assignments name (read as a command line, from
    ``here``); an ``eval`` call, a ``define SHELL`` or a value holding a variable or made by
    a command (``!=``) cannot be checked (red team 23 N4)."""
    if _MAKE_EVAL.search(text) or _MAKE_DEFINE_SHELL.search(text):
        raise Unchecked
    joined = re.sub(r"\\\r?\n", " ", text)
    for m in _MAKE_SHELL.finditer(joined):
        value = m.group(2).removesuffix("\r")
        comment = re.search(r"(?<!\\)#", value)
        value = value[:comment.start()] if comment is not None else value
        if m.group(1) == "!=" or "$" in value:
            raise Unchecked
        for target, tree, _ in _programs(value.split(), [here]):
            if inside(target, root):
                yield target, tree
