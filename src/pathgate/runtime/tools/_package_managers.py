"""The code a JavaScript package manager's own configuration makes it load (for the write
guard's reading of the commands agent settings run).

A hook that starts ``yarn``, ``npm``, ``pnpm`` or ``bun`` runs more than the project's
scripts: before any script, the package manager loads what its configuration names —
Yarn's ``yarnPath`` (the global ``yarn`` re-executes itself with that file) and its
``plugins``, Yarn 1's ``yarn-path``, npm's ``node-options`` (``--require ./pre.js`` in every
script's ``node``), ``script-shell`` and ``onload-script``, pnpm's ``pnpmfile``, bun's
``preload``. These files are part of the runner, as ``.mvn/`` is Maven's: an agent that
rewrites one gets its code run at the next hook (red team 18 J11). :func:`config_files`
names them for each configuration file :data:`CONFIG_NAMES` holds:

* ``.npmrc`` (ini, npm/pnpm/yarn 1): the values of :data:`_NPMRC_FILES`, the operands of
  ``node-options`` as ``node`` reads them, and the ``globalconfig``/``userconfig`` files
  named, read in turn (as is a file an agent settings' ``NPM_CONFIG_USERCONFIG`` or
  ``NPM_CONFIG_GLOBALCONFIG`` names: ``name``), a relative value from the directory npm
  runs in and from the file's own;
* ``.yarnrc`` (Yarn 1): ``yarn-path``;
* ``.yarnrc.yml`` (Yarn 2+) and ``pnpm-workspace.yaml`` (pnpm 10 reads settings there):
  ``yarnPath``, each ``plugins`` entry (``- path: x`` or ``- x``), ``pnpmfile``,
  ``globalPnpmfile``, ``scriptShell``, ``nodeOptions``, and each ``injectEnvironmentFiles``
  entry (block or flow list, an optional entry's ``?`` cut): the file, and what its
  variables name when the read gates serve it (:func:`_env_file`);
* ``bunfig.toml``: every ``preload`` and ``plugins`` (top level, ``[test]``, ``[serve.static]``).

Read bounded and never through a link by the caller's reader (:class:`~._modules.Reads`),
each file up to :data:`_MAX_CONFIG` bytes (a ``bunfig.toml`` :data:`_MAX_TOML`) and
:data:`_MAX_VALUES` values: past it, it cannot be checked.
A value the reader cannot take literally — an environment variable (``${X}``), a YAML flow
or block value, a key spelled otherwise on a line that names it, a YAML key with an escape,
an anchor, alias or tag, a merge key (:func:`unread_key`), a TOML file that does not parse —
cannot be checked (:class:`~._settings_load.Unchecked`: nothing below is writable).
Standard library only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator

from pathgate.runtime.tools._command_words import candidates
from pathgate.runtime.tools._named_index import realpath
from pathgate.runtime.tools._settings_load import Unchecked
from pathgate.runtime.tools._shell_words import _split

__all__ = ["CONFIG_NAMES", "config_files", "unread_key"]

#: The package managers' configuration files read for what they load.
CONFIG_NAMES = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", "pnpm-workspace.yaml"})
#: ``.npmrc`` keys (normalised: lower case, ``_`` as ``-``) whose value is a program or a
#: file npm, pnpm or yarn 1 runs or loads.
_NPMRC_FILES = frozenset({"script-shell", "shell", "onload-script", "pnpmfile", "global-pnpmfile", "init-module",
                          "node-gyp", "git", "editor", "browser", "globalconfig", "userconfig"})
#: ``.npmrc`` keys naming another ``.npmrc`` (read in turn when inside the project).
_NPMRC_CONFIGS = frozenset({"globalconfig", "userconfig"})
#: ``.npmrc`` keys whose value is a line of ``node`` options.
_NODE_OPTIONS = frozenset({"node-options"})
#: YAML keys whose value names a file (``.yarnrc.yml``, ``pnpm-workspace.yaml``).
_YAML_FILES = ("yarnPath", "path", "pnpmfile", "globalPnpmfile", "scriptShell")
_YAML_OPTIONS = ("nodeOptions",)
_YAML_KEY = re.compile(r"^(\s*)(?:-\s+)?([\"']?)(" + "|".join(_YAML_FILES + _YAML_OPTIONS) + r")\2\s*:(?:\s+(.*)|$)")
#: Words of a YAML line that make it one :data:`_YAML_KEY` must read.
_YAML_NAMES = re.compile(r"yarnPath|pnpmfile|Pnpmfile|scriptShell|nodeOptions|injectEnvironmentFiles")
#: A plain or quoted YAML scalar (no escapes, no flow or block value, no anchor or tag),
#: with an optional comment after it.
_YAML_SCALAR = re.compile(r"""^(?:'([^'\\]*)'|"([^"\\]*)"|([^\s'"\[\]{}|>&*!%@`#,][^#]*?))\s*(?:#.*)?$""")
#: The top-level lists of ``.yarnrc.yml`` read: ``plugins``, ``injectEnvironmentFiles``.
_YAML_LISTS = re.compile(r"^([\"']?)(plugins|injectEnvironmentFiles)\1\s*:\s*(.*)$")
#: Kinds of value: a file loaded, a line of node options, an environment file.
_FILE, _OPTIONS, _ENV_FILE = "file", "options", "env"
#: A ``.yarnrc`` (Yarn 1) ``yarn-path`` line: ``yarn-path "./x.js"``, ``"yarn-path" x``.
_YARNRC_PATH = re.compile(r"""^\s*"?yarn-path"?\s*:?\s+(?:"([^"\\$]*)"|([^\s"'$#]+))\s*$""")
#: Nesting read in ``bunfig.toml``.
_MAX_DEPTH = 16
#: Bytes of one configuration file (real ones are a few hundred), and of a ``bunfig.toml``
#: (parsed as TOML, the slowest reader): past it, it cannot be checked.
_MAX_CONFIG = 256 * 1024
_MAX_TOML = 64 * 1024
#: Values one configuration file (with the ``.npmrc`` files it names) may set.
_MAX_VALUES = 1024


def config_files(path: str, read: Callable[[str], bytes | None], root: str, *,
                 name: str | None = None, cwd: str | None = None) -> Iterator[tuple[str, bool]]:
    """The files (absolute) the package-manager configuration file ``path`` makes its
    package manager load, each with whether everything below it counts; ``read`` is the
    caller's bounded, unlinked reader (``None``: missing). :class:`Unchecked` for a value
    that cannot be read literally. A path outside ``root`` counts only when a link leads it
    inside (resolved here, once: the caller keeps what is yielded for every write).
    Blocking."""
    inside = root.rstrip("/") + "/"
    for target, tree in _config_files(path, read, root, name or os.path.basename(path), cwd):
        if target.startswith(inside):
            yield target, tree
        else:
            real = realpath(target)
            if real is None or (real + "/").startswith(inside):
                yield target, tree


def _config_files(path: str, read: Callable[[str], bytes | None], root: str, name: str,
                  cwd: str | None) -> Iterator[tuple[str, bool]]:
    """:func:`config_files` (``name``: the kind of file ``path`` is read as; ``cwd``: the
    directory the package manager runs in, when not the file's), outside paths and all."""
    def bounded(at: str) -> bytes | None:
        raw = read(at)
        if raw is not None and len(raw) > (_MAX_TOML if name == "bunfig.toml" else _MAX_CONFIG):
            raise Unchecked
        return raw

    if name == ".npmrc":
        yield from _npmrc(path, bounded, root, cwd or os.path.dirname(path))
        return
    raw = bounded(path)
    if raw is None:
        return
    text = raw.decode("utf-8", "replace")
    if name != ".yarnrc" and name != "bunfig.toml":
        _unfolded(text)
    here = os.path.dirname(path)
    if name == ".yarnrc":
        values = _yarnrc(text)
    elif name == "bunfig.toml":
        values = _bunfig(text)
    else:
        values = _yaml(text)
    if len(values) > _MAX_VALUES:
        raise Unchecked
    for value, kind in values:
        if kind == _OPTIONS:
            yield from _node_options(value, here)
        elif kind == _ENV_FILE:
            yield from _env_file(value, here, bounded, root)
        else:
            yield from _file(value, here)


def _file(value: str, here: str) -> Iterator[tuple[str, bool]]:
    """The file ``value`` names, read from ``here``: a variable cannot be checked; a path
    in the home (``~``) is not the project's."""
    value = value.strip()
    if not value:
        return
    if "$" in value or value.startswith("%"):
        raise Unchecked
    if value.startswith("~"):
        return
    yield os.path.normpath(os.path.join(here, value.replace("\\", "/"))), True


#: Variables one environment file may set.
_MAX_ENV_LINES = 1024
#: A line of an environment file: ``KEY=value`` (``export`` before it allowed).
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$")


def _env_file(value: str, here: str, read: Callable[[str], bytes | None], root: str) -> Iterator[tuple[str, bool]]:
    """An environment file Yarn injects into every script it runs (``injectEnvironmentFiles``,
    read from ``here``): the file itself, and — when the read gates would serve it (a
    secret such as Yarn's default ``.env.yarn`` is never read: what is writable would tell
    what it holds) — what its values name, each read as an agent settings' ``env`` value
    is (:func:`._settings_env.env_paths`: ``NODE_OPTIONS=--require ./x`` loads ``x.js``,
    ``PATH=bin`` …). A value the reader cannot take literally (``${X}``, a multi-line
    quote) or past :data:`_MAX_ENV_LINES` variables cannot be checked."""
    from pathgate.runtime.tools._guard_read import served
    from pathgate.runtime.tools._settings_env import env_paths

    yield from _file(value, here)
    path = os.path.normpath(os.path.join(here, value.strip()))
    inside = root.rstrip("/") + "/"
    if not path.startswith(inside) or not served(path[len(inside):]):
        return
    raw = read(path)
    if raw is None:
        return
    lines = [ln for ln in raw.decode("utf-8", "replace").splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) > _MAX_ENV_LINES:
        raise Unchecked
    budget = [_MAX_VALUES]
    for line in lines:
        m = _ENV_LINE.match(line)
        if m is None or "$" in line or "\\" in line:
            raise Unchecked
        name, text = m.group(1), m.group(2)
        if text[:1] in ("'", '"', "`"):
            if len(text) < 2 or text[-1] != text[0]:
                raise Unchecked  # a quote going on to other lines
            text = text[1:-1]
        else:
            text = text.split(" #", 1)[0].strip()
        yield from env_paths(name, text, [here], root, lambda word, _base: [word], budget)
        if name.upper() in ("NODE_OPTIONS", "NPM_CONFIG_NODE_OPTIONS"):
            yield from _node_options(text, here)


def _node_options(value: str, here: str) -> Iterator[tuple[str, bool]]:
    """The files a line of ``node`` options loads (``--require ./pre.js``, ``-r pre``,
    ``--import=./x.mjs``), as the command ``node <options>`` is read."""
    if "$" in value:
        raise Unchecked
    for cand, tree in candidates(["node", *_split(value)], False):
        if cand != "node" and not cand.startswith(("~", "%")):
            yield os.path.normpath(os.path.join(here, cand)), tree


def _npmrc(first: str, read: Callable[[str], bytes | None], root: str, cwd: str) -> Iterator[tuple[str, bool]]:
    """What an ``.npmrc`` (and each ``globalconfig``/``userconfig`` inside the project it
    names, in turn) makes npm, running in ``cwd``, load."""
    queue = [first]
    seen = {first}
    inside = root.rstrip("/") + "/"
    values = 0
    while queue:
        path = queue.pop(0)
        raw = read(path)
        if raw is None:
            continue
        # a relative value is read from the directory npm runs in (the first file's), and
        # from the file's own
        bases = dict.fromkeys((cwd, os.path.dirname(path)))
        for line in re.split(r"[\r\n]+", raw.decode("utf-8", "replace")):  # as npm's ini splits
            key, eq, value = line.partition("=")
            if not eq or _js_trim(key).startswith((";", "#")):
                continue
            key = _ini_unsafe(key).lower().replace("_", "-").removesuffix("[]")
            if key not in _NODE_OPTIONS and key not in _NPMRC_FILES:
                continue
            values += 1
            if values > _MAX_VALUES:
                raise Unchecked
            value = _ini_unsafe(value)
            for here in bases:
                if key in _NODE_OPTIONS:
                    yield from _node_options(value, here)
                elif key in _NPMRC_FILES:
                    for target, tree in _file(value, here):
                        yield target, tree
                        if key in _NPMRC_CONFIGS and target.startswith(inside) and target not in seen:
                            seen.add(target)
                            queue.append(target)


def _yarnrc(text: str) -> list[tuple[str, str]]:
    """Yarn 1's ``yarn-path``; a line naming it otherwise cannot be checked."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if "yarn-path" not in line or line.lstrip().startswith("#"):
            continue
        m = _YARNRC_PATH.match(line)
        if m is None:
            raise Unchecked
        out.append((m.group(1) or m.group(2) or "", _FILE))
    return out


def _yaml(text: str) -> list[tuple[str, str]]:
    """The file-valued settings of a ``.yarnrc.yml`` or ``pnpm-workspace.yaml`` (see the
    module): ``(value, kind)``, a kind of :data:`_FILE`, :data:`_OPTIONS` (a line of node
    options) or :data:`_ENV_FILE` (an ``injectEnvironmentFiles`` entry, its ``?`` cut)."""
    out: list[tuple[str, str]] = []
    in_list: str | None = None  # the top-level list being read: plugins, environment files
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if unread_key(line):
            raise Unchecked
        if not line[0].isspace() and not line.startswith("-"):
            top = _YAML_LISTS.match(line)
            in_list = top.group(2) if top is not None else None
            rest = top.group(3).split("#", 1)[0].strip() if top is not None else ""
            if rest and (in_list == "plugins" or not (rest.startswith("[") and rest.endswith("]"))):
                raise Unchecked  # a flow list of plugins, or a value not read (`plugins: [x]`)
            if rest:  # `injectEnvironmentFiles: [.env.yarn?, x]` (no nesting, no commas in names)
                inner = rest[1:-1]
                if any(c in inner for c in "[]{}"):
                    raise Unchecked
                out += [(_scalar(v).removesuffix("?"), _ENV_FILE) for v in inner.split(",") if v.strip()]
            if in_list is not None:
                continue
        m = _YAML_KEY.match(line)
        if m is not None:
            out.append((_scalar(m.group(4) or ""), _OPTIONS if m.group(3) in _YAML_OPTIONS else _FILE))
            continue
        if _YAML_NAMES.search(line):
            raise Unchecked  # a spelling not read (`{yarnPath: x}`, `? yarnPath`)
        item = line.lstrip()
        if in_list is not None and item.startswith("-"):
            value = item[1:].strip()
            if in_list != "plugins":
                out.append((_scalar(value).removesuffix("?"), _ENV_FILE))
            elif value and not re.match(r"[\w\"'-]+\s*:", value):  # `- x` (not `- spec: …`)
                out.append((_scalar(value), _FILE))
    return out


#: A YAML key the line readers cannot take as written (red team 23 N8, N10): a double-quoted
#: one holding an escape (``"\x79arnPath"`` is ``yarnPath`` to every parser), a merge key
#: (``<<: *base`` brings another mapping's keys in), an explicit key (``? k``), or one with
#: an anchor, alias or tag (``&a yarnPath:``, ``!!str includes:``, ``*k :``).
_YAML_UNREAD_KEY = re.compile(r"""^[ \t]*+(?:-[ \t]++)*+"""
                              r"""(?:"[^"\n]*\\|<<[ \t]*:|\?(?:[ \t]|$)|[&!*][^\n]*:(?:[ \t]|$))""")


def unread_key(line: str) -> bool:
    """Does the YAML ``line`` start with a key a line reader cannot take as written (see
    :data:`_YAML_UNREAD_KEY`)? Its reader then cannot check the file."""
    return _YAML_UNREAD_KEY.match(line) is not None


def _scalar(value: str) -> str:
    """A YAML value read literally (see :data:`_YAML_SCALAR`); :class:`Unchecked` else."""
    m = _YAML_SCALAR.match(value.strip())
    if m is None or "${" in value:
        raise Unchecked
    return (m.group(1) or m.group(2) or m.group(3) or "").strip()


def _bunfig(text: str) -> list[tuple[str, str]]:
    """Every ``preload`` and ``plugins`` of a ``bunfig.toml``, at any level."""
    import tomllib

    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError):
        raise Unchecked from None
    out: list[tuple[str, str]] = []
    stack: list[tuple[object, int]] = [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        if depth > _MAX_DEPTH:
            raise Unchecked
        for key, value in node.items():
            if key in ("preload", "plugins"):
                items = [value] if isinstance(value, str) else value
                if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                    raise Unchecked
                out += [(v, _FILE) for v in items]
            else:
                stack.append((value, depth + 1))
    return out


#: What JavaScript's ``trim()`` takes off (its white space and line terminators).
_JS_BLANKS = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
             "\u2028\u2029\u202f\u205f\u3000\ufeff"


def _js_trim(text: str) -> str:
    """``text`` as JavaScript's ``trim()`` leaves it (a byte-order mark is a blank there)."""
    return text.strip(_JS_BLANKS)


def _ini_unsafe(text: str) -> str:
    """A key or value of an ``.npmrc`` line as npm's ``ini`` decodes it (``unsafe()``,
    red team 20 L4): trimmed; a quoted one JSON-decoded (``"node\\u002doptions"`` is
    ``node-options``; single quotes taken off first, the text kept when it does not parse);
    else cut at the first ``;`` or ``#`` not escaped by ``\\`` (``\\;``, ``\\#``, ``\\\\``
    decoded, any other ``\\`` kept). A quoted text decoding to other than a string cannot be
    checked."""
    import json

    text = _js_trim(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1] if text[0] == "'" else text
        try:
            decoded = json.loads(inner)
        except (ValueError, RecursionError):
            return inner
        if not isinstance(decoded, str):
            if text[0] == "'":
                return inner  # npm's value is then a number or a list: no path read
            raise Unchecked
        return decoded
    out: list[str] = []
    escaped = False
    for c in text:
        if escaped:
            out.append(c if c in "\\;#" else "\\" + c)
            escaped = False
        elif c in ";#":
            break
        elif c == "\\":
            escaped = True
        else:
            out.append(c)
    if escaped:
        out.append("\\")
    return _js_trim("".join(out))


def _unfolded(text: str) -> None:
    """A YAML configuration's values named by :data:`_YAML_KEY` must be on their line: a
    line indented past the key's column after it continues the value (js-yaml folds
    ``yarnPath: x`` + ``  y.cjs`` into ``x y.cjs``, red team 20 L4) or is it (``yarnPath:``
    + ``  y.cjs``), so it cannot be checked (:class:`Unchecked`)."""
    column = -1  # the key column of the last line holding a value, while the next may continue it
    for line in text.splitlines():
        body = line.lstrip(" ")
        if not body.strip() or body.startswith("#"):
            continue
        indent = len(line) - len(body)
        if column >= 0 and (indent > column or body[:1] == "\t"):
            raise Unchecked
        m = _YAML_KEY.match(line)
        column = m.start(3) if m is not None else -1  # (an empty value's is on the next line)
