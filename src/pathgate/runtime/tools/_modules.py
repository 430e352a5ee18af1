"""The build files a multi-module build reads besides the manifest it starts from (for the
write guard's reading of the commands agent settings run).

``mvn verify`` in a directory reads its ``pom.xml`` and every module's: a module's
``pom.xml`` configures the plugins that run (``exec-maven-plugin``, ``antrun`` …), so an
agent that rewrites ``core/pom.xml`` gets its commands run by the next hook that starts
Maven, as if it had rewritten the root's. Gradle likewise evaluates the build script of every
project ``settings.gradle`` includes, and the whole of an included build (``includeBuild``,
build logic as ``buildSrc/`` is). :func:`module_manifests` names them:

* ``pom.xml``: each ``<module>`` (Maven 4: ``<subproject>``) — a directory's ``pom.xml``,
  or the file named, whatever its name (both named) — read in turn for its own modules, and each ``<parent>``'s
  ``<relativePath>`` (its parents, not its modules) — without one, Maven's default
  ``../pom.xml`` (inside the project) —; commented-out modules count too; a
  value is read as Maven reads it (trimmed, a backslash as ``/``), and one Maven would first
  interpolate or decode (``${m}``, ``&#115;``, CDATA, a comment inside, a tag with
  attributes) cannot be checked (red team 18 J2);
* ``settings.gradle``/``settings.gradle.kts``: the string literals of each ``include`` and
  ``includeFlat`` statement (``':a:b'`` → ``a/b/build.gradle(.kts)``), the directory a
  ``projectDir`` assignment sets (``file('x')``, ``new File(settingsDir, 'x')``,
  ``settingsDir.resolve("x")``), and each ``includeBuild`` directory with everything below
  it; a script naming ``buildFileName``, setting ``projectDir`` otherwise or building a
  project path from a template (``"$x"``) cannot be checked (red team 18 J3), nor one
  whose ``include`` arguments are anything but plain literals (``'co' + 're'``, an escape,
  a slashy string, ``include it``); each settings script applied with a literal ``apply
  from:`` is named and read the same way (any other ``apply`` but a plugin's cannot be
  checked); statements inside comments are not read, when comments can be told from
  strings (red team 20 L3);
* a JavaScript package manager's configuration (``.npmrc``, ``.yarnrc.yml`` …): the code it
  loads first (:mod:`._package_managers`).

Read bounded and never through a link (:func:`~._guard_read.read_unlinked`) but one to a
file the read gates serve (:func:`~._guard_read.read_guarded`, that file then named too): more than
:data:`MAX_FILES` build files, :data:`MAX_BYTES` read in all, a build file past
:data:`MAX_FILE` or one that is a link cannot be checked (:class:`~._settings_load.Unchecked`:
nothing below is writable). Projects a Gradle build adds in code without a literal
(``file('.').eachDir { include it.name }``) are not followed. Each file read is recorded
with its signature, so the caller's cache notices an edited module list. Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from pathgate.runtime.tools._guard_read import Linked, read_guarded, unlinked_signature
from pathgate.runtime.tools._includes import INCLUDE_NAMES, included_files, plain_dir
from pathgate.runtime.tools._package_managers import CONFIG_NAMES, config_files
from pathgate.runtime.tools._settings_load import Unchecked

__all__ = ["MAX_BYTES", "MAX_FILE", "MAX_FILES", "Reads", "module_manifests", "reads_module_list"]

#: Build files read for one manifest (a reactor of a thousand modules is rare).
MAX_FILES = 2048
#: Bytes read for one manifest in all, and from one build file.
MAX_BYTES = 8 * 1024 * 1024
MAX_FILE = 1024 * 1024
#: Where a module, a subproject or a parent's relative path starts in a ``pom.xml`` (any
#: spelling of the tag: ``<module >``, ``<module a="b">``, ``<relativePath/>``).
_POM_TAG = re.compile(rb"<(module|subproject|relativePath)(?![\w.:-])")
#: The element read literally from that start: ``<tag>text</tag>`` (blanks before each
#: ``>``), or an empty ``<tag/>``. Text holding ``<`` (a comment, CDATA), ``&`` (an entity)
#: or ``${`` (a property Maven interpolates) is not literal (red team 18 J2).
_POM_ELEMENT = re.compile(rb"<(module|subproject|relativePath)\s*(?:/>|>([^<&]*)</\1\s*>)")
#: The statements of a Gradle settings script that add projects or builds, or apply another
#: script (``apply from: 'x.gradle'``, ``apply(from = "x.gradle.kts")``).
_GRADLE_STATEMENT = re.compile(rb"\b(include|includeFlat|includeBuild|projectDir|apply)\b")
#: The arguments of an ``include``/``includeFlat``/``includeBuild`` read literally: only
#: plain string literals, blanks, brackets, commas, a comment, Kotlin's
#: ``listOf(…)``/``arrayOf(…)``/``*``; anything else (``'co' + 're'``, an escape, a slashy
#: string, a variable, a call) cannot be checked (red team 20 L3); after a ``;`` another
#: statement starts (read on its own).
_PLAIN_ARGS = re.compile(rb"""(?:\s|[(),\[\]*]|'[^'\n\\$]*'|"[^"\n\\$]*"|(?:listOf|arrayOf|setOf)\b|//[^\n]*)*"""
                         rb"""(?:;.*)?""", re.S)
#: ``apply from: 'x'`` / ``apply(from = "x")`` with a literal script; ``apply plugin:`` /
#: ``apply(plugin = …)`` (a plugin, not a script) is not read.
_APPLY_FROM = re.compile(rb"""\s*\(?\s*from\s*[:=]\s*(?:'([^'\n\\$]*)'|"([^"\n\\$]*)")\s*\)?\s*;?\s*(?://[^\n]*)?""")
_APPLY_PLUGIN = re.compile(rb"\s*\(?\s*plugin\s*[:=]")
#: Where a comment may start in a settings script (:func:`_comments`), what may stand before
#: it on its line (no ``/`` but in one-line string literals), and the starts tried a line.
_COMMENT_OPEN = re.compile(rb"//|/\*")
_COMMENT_PREFIX = re.compile(rb"(?:[^/'\"\n]|'[^'\n]*'|\"[^\"\n]*\")*")
_TRIES_A_LINE = 8
#: Comments told in one settings script; past it, its text is all read as code.
_MAX_COMMENTS = 4096
_ONE_LINE_STRING = re.compile(rb"'[^'\n]*'|\"[^\"\n]*\"")
#: A string literal (Groovy and Kotlin: single or double quotes; no escapes in project paths).
_LITERAL = re.compile(rb"""'([^'\n\\]*)'|"([^"\n\\$]*)\"""")
#: What a ``projectDir`` assignment may set, read literally: ``file('x')``, ``File("x")``,
#: ``new File(settingsDir, 'x')`` (``rootDir`` is the settings directory too),
#: ``settingsDir.resolve("x")``; any other right-hand side cannot be checked (red team 18 J3).
_PROJECT_DIR = re.compile(rb"""\s*=\s*(?:(?:new\s+)?(?:file|File)\s*\(\s*(?:(?:settingsDir|rootDir)\s*,\s*)?"""
                          rb"""|(?:settingsDir|rootDir)\s*\.\s*resolve\s*\(\s*)"""
                          rb"""(?:'([^'\n\\$]*)'|"([^"\n\\$]*)")\s*\)""")
#: What follows ``projectDir`` when it is set (an assignment, a call), not read.
_SETS = re.compile(rb"\s*(?:=(?!=)|\()")
#: A settings script naming a build file other than ``build.gradle`` (``buildFileName``), or
#: setting a directory by a setter: cannot be checked.
_UNREAD = re.compile(rb"[bB]uildFileName|setProjectDir")
#: A double-quoted string with a template (``"$name"``): a project path made in code.
_TEMPLATE = re.compile(rb'"[^"\n]*\$')
_GRADLE_SETTINGS = ("settings.gradle", "settings.gradle.kts")
_GRADLE_BUILD = ("build.gradle", "build.gradle.kts")
#: Characters a statement is read over (its arguments over several lines), and statements
#: read from one settings script (past it, it cannot be checked).
_STATEMENT_SPAN = 4096
_MAX_STATEMENTS = 4096
#: Characters the statements of one settings script may span in all (each scanned for literals).
_MAX_SCANNED = 1024 * 1024


def reads_module_list(path: str) -> bool:
    """Does a build start from the manifest ``path`` and read other build files it lists
    (``pom.xml``, ``settings.gradle``, a ``justfile``'s imports, a ``Makefile``'s includes,
    a ``Taskfile.yml``'s, a ``Cargo.toml``'s members: :mod:`._includes`), or load code its
    configuration names (a package manager's ``.npmrc``, ``.yarnrc.yml`` …:
    :mod:`._package_managers`)?"""
    name = os.path.basename(path)
    return name == "pom.xml" or name in _GRADLE_SETTINGS or name in CONFIG_NAMES or name in INCLUDE_NAMES


class Reads:
    """What one parse read of the project's build files: each file with the signature it
    had (:func:`~._guard_read.unlinked_signature`; a cache of the parse holds while they
    hold: :meth:`still`), and the manifests already expanded (each once)."""

    __slots__ = ("expanded", "sigs")

    def __init__(self) -> None:
        self.sigs: dict[str, object] = {}
        self.expanded: set[str] = set()

    def expand(self, manifest: str, root: str, *, npmrc: str | None = None,
               yarnrc: bool = False) -> list[tuple[str, bool]]:
        """:func:`module_manifests` of ``manifest`` (with ``npmrc``: read as an ``.npmrc``
        whatever its name, npm running in that directory; with ``yarnrc``: as a
        ``.yarnrc.yml``, as ``YARN_RC_FILENAME`` names one), the first time it is asked for."""
        key = f"{manifest}\0{npmrc}\0{yarnrc}" if npmrc or yarnrc else manifest
        if key in self.expanded:
            return []
        self.expanded.add(key)
        return list(module_manifests(manifest, root, self.sigs, npmrc=npmrc, yarnrc=yarnrc))

    def record(self, path: str) -> None:
        """Note a file read for the parse (``package.json`` for its ``main``)."""
        self.sigs[path] = unlinked_signature(path)

    def still(self) -> bool:
        """Does every file read still have the signature it had?"""
        return all(unlinked_signature(p) == s for p, s in self.sigs.items())

    def newest(self) -> float:
        """The newest change time (seconds) among the files read (0: none)."""
        times = [s[3] / 1e9 for s in self.sigs.values() if isinstance(s, tuple)]
        return max(times, default=0.0)


class _Reader:
    """The build files read for one manifest, bounded, each recorded with its signature."""

    __slots__ = ("bytes", "followed", "listed", "reads", "root")

    def __init__(self, root: str, reads: dict[str, object]) -> None:
        self.root = root
        self.reads = reads
        self.bytes = 0
        #: Directory entries listed (:func:`._includes.listing`).
        self.listed = 0
        #: The real paths of the files links led to (:func:`~._guard_read.read_guarded`).
        self.followed: list[str] = []

    def note(self, path: str) -> None:
        """Record a directory listed for the parse (its signature changes with its entries)."""
        self.reads[path] = unlinked_signature(path)
        if len(self.reads) > MAX_FILES:
            raise Unchecked

    def read(self, path: str) -> bytes | None:
        """The file's bytes; ``None`` when missing; :class:`Unchecked` past a bound or for a
        link the guard does not follow."""
        self.reads[path] = unlinked_signature(path)
        if len(self.reads) > MAX_FILES:
            raise Unchecked
        try:
            raw, real = read_guarded(path, self.root, MAX_FILE)
        except FileNotFoundError:
            return None
        except Linked:
            raise Unchecked from None
        except OSError:
            if os.path.lexists(path):
                raise Unchecked from None  # there, but cannot be read (too large, a FIFO …)
            return None
        self.bytes += len(raw)
        if self.bytes > MAX_BYTES:
            raise Unchecked
        if real is not None:
            self.followed.append(real)
        return raw


def module_manifests(manifest: str, root: str, reads: dict[str, object], *,
                     npmrc: str | None = None, yarnrc: bool = False) -> Iterator[tuple[str, bool]]:
    """The build files (absolute, inside ``root``) a build started from ``manifest`` reads
    besides it, each with whether everything below it counts (``npmrc``: ``manifest`` is an
    ``.npmrc`` whatever its name, as ``NPM_CONFIG_USERCONFIG`` names one, npm running in
    the directory ``npmrc``); every file read
    is added to ``reads`` (path → :func:`~._guard_read.unlinked_signature`).
    :class:`Unchecked` past a bound (see the module). Blocking."""
    reader = _Reader(root, reads)
    if yarnrc:  # a `.yarnrc.yml` whatever its name (`YARN_RC_FILENAME`)
        yield from config_files(manifest, reader.read, root, name=".yarnrc.yml")
    elif npmrc:
        yield from config_files(manifest, reader.read, root, name=".npmrc", cwd=npmrc)
    elif os.path.basename(manifest) == "pom.xml":
        yield from _maven(manifest, reader)
    elif os.path.basename(manifest) in CONFIG_NAMES:
        yield from config_files(manifest, reader.read, root)
    elif os.path.basename(manifest) in INCLUDE_NAMES:
        yield from included_files(manifest, reader)
    else:
        yield from _gradle(manifest, reader)
    yield from ((real, False) for real in reader.followed)  # what a build file's link leads to


def _inside(path: str, root: str) -> bool:
    return path.startswith(root.rstrip("/") + "/")


def _maven(pom: str, reader: _Reader) -> Iterator[tuple[str, bool]]:
    """Each module's ``pom.xml`` and each parent's, read in turn (breadth first, each once)."""
    queue = [(pom, True)]
    seen = {pom}
    while queue:
        path, modules = queue.pop(0)
        raw = reader.read(path)
        if raw is None:
            continue
        here = os.path.dirname(path)
        for kind, ref in _pom_refs(raw):
            module = kind != b"relativePath"
            if not ref or (module and not modules):
                continue
            named = os.path.normpath(os.path.join(here, ref))
            if not _inside(named, reader.root):
                continue
            # Maven reads a directory's pom.xml, else the file named whatever its name (red
            # team 20 L2: ``core/build.pom``): not a directory, both are named, that file read
            inner = os.path.join(named, "pom.xml")
            target = inner if plain_dir(named, reader, links=True) else named
            for path in (inner,) if target == inner else (named, inner):
                if path not in seen:
                    seen.add(path)
                    yield path, False
                    if path == target:
                        queue.append((target, module and modules))


#: A ``<parent>`` element's start, an empty ``<parent/>``, and its end.
_POM_PARENT = re.compile(rb"<parent(?![\w.:-])(\s*/>)?")
_POM_PARENT_END = re.compile(rb"</parent\s*>")


def _implicit_parents(raw: bytes) -> Iterator[tuple[bytes, str]]:
    """A ``<parent>`` without a ``<relativePath>`` inside it is looked up at ``../pom.xml``
    (Maven's default; an empty ``<relativePath/>`` turns the lookup off and is read by
    :func:`_pom_refs`): one ``relativePath`` of ``..`` for each, over-inclusive (a ``<parent>``
    in a comment, one not closed). Linear: the ends and relative paths are found once, each
    parent's matched by bisection."""
    import bisect

    ends = [m.start() for m in _POM_PARENT_END.finditer(raw)]
    relatives = [m.start() for m in _POM_TAG.finditer(raw) if m.group(1) == b"relativePath"]
    for m in _POM_PARENT.finditer(raw):
        if m.group(1) is None:
            i = bisect.bisect_left(ends, m.end())
            end = ends[i] if i < len(ends) else len(raw)
            j = bisect.bisect_left(relatives, m.end())
            if j < len(relatives) and relatives[j] < end:
                continue  # its own relativePath, read as written
        yield b"relativePath", ".."


def _pom_refs(raw: bytes) -> Iterator[tuple[bytes, str]]:
    """``(tag, value)`` of each module, subproject and parent's relative path of a
    ``pom.xml``, as Maven reads the value: trimmed, ``\\`` read as ``/``. A value that is
    not literal text (:data:`_POM_ELEMENT`: a property, an entity, CDATA, a comment inside, a
    tag with attributes, an unclosed tag) cannot be checked: :class:`Unchecked`, never
    skipped (Maven interpolates and decodes it, then reads that module). Linear: each
    element is matched once from its start."""
    for m in _POM_TAG.finditer(raw):
        el = _POM_ELEMENT.match(raw, m.start())
        if el is None:
            raise Unchecked
        text = el.group(2) or b""
        if b"${" in text:
            raise Unchecked
        yield el.group(1), text.decode("utf-8", "replace").strip().replace("\\", "/")
    yield from _implicit_parents(raw)


def _gradle(settings: str, reader: _Reader) -> Iterator[tuple[str, bool]]:
    """The build scripts of the projects a Gradle settings script (and each script it
    applies, read in turn) includes, and the included builds' directories."""
    queue, seen = [settings], {settings}
    scanned = [0]
    while queue:
        applied: list[str] = []
        yield from _gradle_script(queue.pop(0), os.path.dirname(settings), reader, scanned, applied)
        queue += [a for a in applied if a not in seen]
        seen.update(applied)


def _comments(raw: bytes) -> list[tuple[int, int]]:
    """The spans of a settings script's comments, sorted: a ``//`` to the end of its line
    or a ``/*`` to the next ``*/``, each after a line's start or a blank with nothing but
    one-line string literals and no ``/`` before it on its line (:data:`_COMMENT_PREFIX`;
    else it may be inside a string: at most :data:`_TRIES_A_LINE` tries a line, then the
    line's rest is code). None past :data:`_MAX_COMMENTS`, when a string could run on past a line (a triple-quoted or
    slashy string: a ``/`` left in the code once the comments and the one-line string
    literals are taken out) or a block comment is not closed, so that the script's text is
    read as code. Linear."""
    if b"//" not in raw and b"/*" not in raw:
        return []
    if b"\'\'\'" in raw or b'"""' in raw:
        return []
    spans: list[tuple[int, int]] = []
    pos, line, tries = 0, -1, 0
    while (m := _COMMENT_OPEN.search(raw, pos)) is not None:
        at = m.start()
        start = raw.rfind(b"\n", 0, at) + 1
        tries = tries + 1 if start == line else 1
        line = start
        if (at > start and not raw[at - 1:at].isspace()) or _COMMENT_PREFIX.fullmatch(raw, start, at) is None:
            if tries < _TRIES_A_LINE:
                pos = at + 1
                continue
            nl = raw.find(b"\n", at)
            pos = len(raw) if nl < 0 else nl + 1  # the rest of the line is code
            continue
        if m.group(0) == b"//":
            nl = raw.find(b"\n", at)
            end = len(raw) if nl < 0 else nl
        else:
            close = raw.find(b"*/", at + 2)
            if close < 0:
                return []
            end = close + 2
        spans.append((at, end))
        if len(spans) > _MAX_COMMENTS:
            return []
        pos = end
    code, at = [], 0
    for a, b in spans:
        code.append(raw[at:a])
        at = b
    code.append(raw[at:])
    if b"/" in _ONE_LINE_STRING.sub(b"", b"\n".join(code)):
        return []
    return spans


def _in_comment(spans: list[tuple[int, int]], at: int) -> bool:
    import bisect

    i = bisect.bisect_right(spans, (at, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def _gradle_script(settings: str, here: str, reader: _Reader, scanned: list[int],
                   applied: list[str]) -> Iterator[tuple[str, bool]]:
    """What one settings script names (:func:`_gradle`; ``here``: the settings directory,
    which an applied script's paths are read from too); the scripts it applies (named
    too) go to ``applied``."""
    raw = reader.read(settings)
    if raw is None:
        return
    if _UNREAD.search(raw):
        raise Unchecked
    comments = _comments(raw)
    for n, m in enumerate(_GRADLE_STATEMENT.finditer(raw)):
        kind = m.group(1)
        span = _statement(raw, m.end())
        scanned[0] += len(span)
        if n >= _MAX_STATEMENTS or scanned[0] > _MAX_SCANNED:
            raise Unchecked
        if _in_comment(comments, m.start()):
            continue  # ``/* … which projects to include in your build */``
        if span.lstrip(b" \t")[:1] == b":" and kind != b"apply":
            continue  # a named argument (``fileTree(include: '*.gradle')``), not a statement
        if kind == b"apply":
            lit = _APPLY_FROM.match(span)
            if lit is not None:
                value = (lit.group(1) or lit.group(2) or b"").decode("utf-8", "replace")
                target = os.path.normpath(os.path.join(here, value))
                if _inside(target, reader.root):
                    applied.append(target)
                    yield target, False
            elif _APPLY_PLUGIN.match(span) is None:
                raise Unchecked
            continue
        if kind == b"projectDir":
            if not _SETS.match(span):
                continue  # read, not set (``"${rootProject.projectDir}/x"``)
            literal = _PROJECT_DIR.match(span)
            if literal is None:
                raise Unchecked
            dirs = [(literal.group(1) or literal.group(2) or b"").decode("utf-8", "replace")]
        else:
            if _TEMPLATE.search(span) or _PLAIN_ARGS.fullmatch(span) is None:
                raise Unchecked
            dirs = [(a or b).decode("utf-8", "replace") for a, b in _LITERAL.findall(span)]
        for value in dirs:
            if not value:
                continue
            if kind == b"includeBuild":
                target = os.path.normpath(os.path.join(here, value))
                if _inside(target, reader.root):
                    yield target, True
                continue
            if kind in (b"include", b"includeFlat"):
                rel = value.strip(":").replace(":", "/")
                base = os.path.join(here, "..") if kind == b"includeFlat" else here
            else:
                rel, base = value, here
            target = os.path.normpath(os.path.join(base, rel))
            if _inside(target, reader.root):
                yield from ((os.path.join(target, b), False) for b in _GRADLE_BUILD)


def _statement(raw: bytes, start: int) -> bytes:
    """The arguments of the statement whose keyword ends at ``start``: up to the bracket
    that closes an opening one, else to the end of the line (a line ending with a comma
    goes on), within :data:`_STATEMENT_SPAN` characters."""
    text = raw[start:start + _STATEMENT_SPAN]
    stripped = text.lstrip(b" \t")
    if stripped[:1] == b"(":
        depth = 0
        for i, c in enumerate(stripped):
            if c == 0x28:
                depth += 1
            elif c == 0x29:
                depth -= 1
                if depth == 0:
                    return stripped[:i + 1]
        return stripped
    end = 0
    while True:
        nl = text.find(b"\n", end)
        if nl < 0:
            return text
        if not text[:nl].rstrip().endswith(b","):
            return text[:nl]
        end = nl + 1
