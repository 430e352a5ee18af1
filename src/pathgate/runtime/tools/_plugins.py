"""Claude Code plugins from a local marketplace, whose hooks run in place (for the write guard).

A settings file may register a marketplace kept in a directory (``"extraKnownMarketplaces":
{"team": {"source": {"source": "directory", "path": "./plugins"}}}`` in
``.claude/settings.json``; ``claude plugin marketplace add ./plugins`` records the same in
``~/.claude/plugins/known_marketplaces.json``). Its ``.claude-plugin/marketplace.json`` lists
plugins by directory, and for such a marketplace Claude Code runs a plugin's hooks from that
directory, not from its install cache (``${CLAUDE_PLUGIN_ROOT}`` is the plugin's source
directory: anthropics/claude-code issues 38699, 86809, 93057). So an agent that rewrites
``plugins/fmt/hooks/hooks.json`` or the script it names gets its commands run, as if it had
written the settings file.

:func:`marketplaces` finds the directory marketplaces a settings document registers;
:func:`plugin_files` names, for each plugin its ``marketplace.json`` lists by a relative
source, the files whose commands Claude Code runs (``hooks/hooks.json``,
``.claude-plugin/plugin.json``, ``.mcp.json``, ``.lsp.json`` — read by the caller as
settings files, ``${CLAUDE_PLUGIN_ROOT}`` as the plugin's directory) and the directories
never writable as a whole (``.claude-plugin/``, ``hooks/``, and ``agents/``, ``skills/``,
``commands/``, whose files carry hooks and tool grants as ``.claude/``'s do; ``bin/``, whose
programs are on the Bash tool's ``PATH``). A plugin's manifest (``plugin.json``) and its
marketplace entry may move its components (red team 18 J4: ``"hooks": "./config/hooks.json"``):
each path a component field (:data:`_COMPONENT_FIELDS`) names is never writable with
everything below it, one whose file holds commands (``hooks``, ``mcpServers``, ``lspServers``,
``monitors``) is read as a settings file too, an inline object in a marketplace entry is read
as settings; any other ``./`` path either holds counts too. A component value not understood
(not a string, a list of them or an object; a variable other than ``${CLAUDE_PLUGIN_ROOT}``;
a path leaving the plugin's directory) cannot be checked. Read bounded and never through a
link (:func:`~._guard_read.read_unlinked`): a ``marketplace.json`` or ``plugin.json`` past
:data:`_MAX_FILE` or not JSON, more than :data:`_MAX_PLUGINS` plugins or
:data:`_MAX_MARKETPLACES` marketplaces, or a link cannot be checked
(:class:`~._settings_load.Unchecked`). Standard library only.
"""

from __future__ import annotations

import json
import os

from pathgate.runtime.tools._guard_read import Linked, read_guarded
from pathgate.runtime.tools._modules import Reads
from pathgate.runtime.tools._settings_load import Strings, Unchecked, parse

__all__ = ["FILE_SOURCE", "Plugins", "marketplaces", "plugin_files"]

_MAX_MARKETPLACES = 64
_MAX_PLUGINS = 256
_MAX_FILE = 1024 * 1024
#: Bytes of the plugins' manifests read for one marketplace in all, and the paths its
#: plugins may name (each component path counts; the default ones of 256 plugins are 3,584).
_MAX_BYTES = 8 * 1024 * 1024
_MAX_PATHS = 8192
#: A plugin's files whose commands Claude Code runs (hooks, MCP and LSP servers, its default
#: settings).
_COMMAND_FILES = ("hooks/hooks.json", ".claude-plugin/plugin.json", ".mcp.json", ".lsp.json", "settings.json")
#: A plugin's other files never writable: a root ``SKILL.md`` is a skill (``!`cmd``` lines,
#: tool grants).
_OTHER_FILES = ("SKILL.md",)
#: A plugin's directories never writable as a whole.
_TREES = (".claude-plugin", "hooks", "agents", "skills", "commands", "bin", "monitors", "output-styles")
#: Manifest (and marketplace entry) fields naming a plugin's components: a path, a list of
#: them, or (the ones with commands) an inline object.
_COMPONENT_FIELDS = frozenset({"commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles",
                               "monitors", "themes"})
#: Component fields whose files hold commands (read as settings files).
_COMMAND_FIELDS = frozenset({"hooks", "mcpServers", "lspServers", "monitors"})
#: How ``${CLAUDE_PLUGIN_ROOT}`` may be spelled at the start of a component path.
_PLUGIN_ROOT = ("${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT")


#: Marks a ``file`` marketplace source in :func:`marketplaces`' answer (no path holds a NUL).
FILE_SOURCE = "\0file:"


def marketplaces(data: object) -> list[str]:
    """The paths of the directory marketplaces a settings document registers (under
    ``extraKnownMarketplaces``, or at its top level as ``known_marketplaces.json`` lists
    them), as written — a ``file`` source's JSON path after :data:`FILE_SOURCE`;
    :class:`Unchecked` past :data:`_MAX_MARKETPLACES`."""
    if not isinstance(data, dict):
        return []
    found: list[str] = []
    extra = data.get("extraKnownMarketplaces")
    for container in (data, extra if isinstance(extra, dict) else {}):
        for entry in container.values():
            source = entry.get("source") if isinstance(entry, dict) else None
            if isinstance(source, dict) and source.get("source") in ("directory", "file"):
                path = source.get("path")
                if isinstance(path, str) and path:
                    # a `file` source names the marketplace's JSON itself, wherever it is
                    found.append(path if source["source"] == "directory" else FILE_SOURCE + path)
    if len(found) > _MAX_MARKETPLACES:
        raise Unchecked
    return list(dict.fromkeys(found))


class Plugins:
    """What :func:`plugin_files` found for one marketplace: the paths never writable (each
    with whether everything below it counts), ``(plugin directory, file)`` for each file whose
    commands the caller reads as a settings file, and ``(plugin directory, object)`` for each
    marketplace entry whose inline components the caller reads as settings."""

    __slots__ = ("bytes", "files", "inline", "protected")

    def __init__(self, market: str) -> None:
        self.bytes = 0  # of the plugins' manifests read (past :data:`_MAX_BYTES`: unchecked)
        self.protected: list[tuple[str, bool]] = [(os.path.join(market, ".claude-plugin"), True)]
        self.files: list[tuple[str, str]] = []
        self.inline: list[tuple[str, object]] = []


def plugin_files(market: str, root: str, reads: Reads, manifest: str | None = None) -> Plugins:
    """For the marketplace directory ``market`` (absolute, inside ``root``): what its
    plugins run (:class:`Plugins`), read from ``manifest`` (a ``file`` source's JSON, itself
    protected) or ``market/.claude-plugin/marketplace.json``. :class:`Unchecked` when the
    marketplace cannot be checked. Blocking."""
    found = Plugins(market)
    if manifest is None:
        manifest = os.path.join(market, ".claude-plugin", "marketplace.json")
    else:
        found.protected.append((manifest, False))
    reads.record(manifest)
    try:
        raw, real = read_guarded(manifest, root, _MAX_FILE)
        if real is not None:
            found.protected.append((real, False))  # what the link leads to
        doc = json.loads(raw)
    except FileNotFoundError:
        return found
    except Linked:  # a link not followed, or a file the host filter hides: whether it exists or not
        raise Unchecked from None
    except (OSError, ValueError, RecursionError):
        if os.path.lexists(manifest):
            raise Unchecked from None
        return found
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    if not isinstance(plugins, list):
        return found
    if len(plugins) > _MAX_PLUGINS:
        raise Unchecked
    meta = doc.get("metadata")
    prefix = meta.get("pluginRoot") if isinstance(meta, dict) else None
    inside = root.rstrip("/") + "/"
    for plugin in plugins:
        source = plugin.get("source") if isinstance(plugin, dict) else None
        if not isinstance(source, str):
            continue  # a git, GitHub or npm source: installed into the cache, not run from here
        bases = [market, *([os.path.join(market, prefix)] if isinstance(prefix, str) and prefix else [])]
        for pdir in dict.fromkeys(os.path.normpath(os.path.join(b, source)) for b in bases):
            if not (pdir + "/").startswith(inside):
                continue
            found.protected += [(os.path.join(pdir, t), True) for t in _TREES]
            found.protected += [(os.path.join(pdir, name), False) for name in _OTHER_FILES]
            for name in _COMMAND_FILES:
                path = os.path.join(pdir, name)
                found.protected.append((path, False))
                found.files.append((pdir, path))
            entry = {k: v for k, v in plugin.items() if k != "source"}
            found.inline.append((pdir, entry))
            for fields in (_plugin_json(pdir, root, reads, found), entry):
                _components(fields, pdir, found)
            if len(found.protected) > _MAX_PATHS:
                raise Unchecked
    return found


def _plugin_json(pdir: str, root: str, reads: Reads, found: Plugins) -> dict[str, object]:
    """The plugin's ``.claude-plugin/plugin.json`` (JSON or JSONC; none when missing);
    :class:`Unchecked` when it cannot be read, does not parse or the manifests read for
    ``found`` pass :data:`_MAX_BYTES`."""
    path = os.path.join(pdir, ".claude-plugin", "plugin.json")
    reads.record(path)
    try:
        raw, real = read_guarded(path, root, _MAX_FILE)
        if real is not None:
            found.protected.append((real, False))  # what the link leads to
        found.bytes += len(raw)
        if found.bytes > _MAX_BYTES:
            raise Unchecked
        data = parse(raw)
    except FileNotFoundError:
        return {}
    except Linked:  # a link not followed, or a file the host filter hides: whether it exists or not
        raise Unchecked from None
    except OSError:
        if os.path.lexists(path):
            raise Unchecked from None
        return {}
    if isinstance(data, Strings) or not isinstance(data, dict):
        raise Unchecked
    return data


def _components(fields: dict[str, object], pdir: str, found: Plugins) -> None:
    """Add to ``found`` the components a manifest or marketplace entry ``fields`` names (see
    the module)."""
    for key, value in fields.items():
        if key not in _COMPONENT_FIELDS:
            for text in _strings(value):  # another field's `./x`: counted, never followed
                if text.startswith(("./", *_PLUGIN_ROOT)):
                    try:
                        found.protected.append((_component(text, pdir), True))
                    except Unchecked:
                        continue  # not a path Claude Code reads: nothing to protect
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict):
                continue  # inline: plugin.json is read as settings, an entry by the caller
            if not isinstance(item, str):
                raise Unchecked
            path = _component(item, pdir)
            found.protected.append((path, True))
            if key in _COMMAND_FIELDS:
                found.files.append((pdir, path))


def _component(text: str, pdir: str) -> str:
    """The absolute path a component value names, from the plugin directory ``pdir``;
    :class:`Unchecked` for one not understood or leaving ``pdir``."""
    for var in _PLUGIN_ROOT:
        if text.startswith(var):
            text = "./" + text[len(var):].lstrip("/")
            break
    if not text or "$" in text or text.startswith(("~", "/", "%")) or "\\" in text:
        raise Unchecked
    path = os.path.normpath(os.path.join(pdir, text))
    if not (path + "/").startswith(pdir.rstrip("/") + "/"):
        raise Unchecked
    return path


def _strings(value: object) -> list[str]:
    """The strings a JSON value holds, at any depth."""
    out: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out
