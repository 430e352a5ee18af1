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
``commands/``, whose files carry hooks and tool grants as ``.claude/``'s do). Read bounded and
never through a link (:func:`~._guard_read.read_unlinked`): a ``marketplace.json`` past
:data:`_MAX_FILE`, more than :data:`_MAX_PLUGINS` plugins or :data:`_MAX_MARKETPLACES`
marketplaces, or a link cannot be checked (:class:`~._settings_load.Unchecked`). Standard
library only.
"""

from __future__ import annotations

import json
import os

from pathgate.runtime.tools._guard_read import Linked, read_unlinked
from pathgate.runtime.tools._modules import Reads
from pathgate.runtime.tools._settings_load import Unchecked

__all__ = ["marketplaces", "plugin_files"]

_MAX_MARKETPLACES = 64
_MAX_PLUGINS = 256
_MAX_FILE = 1024 * 1024
#: A plugin's files whose commands Claude Code runs (hooks, MCP and LSP servers).
_COMMAND_FILES = ("hooks/hooks.json", ".claude-plugin/plugin.json", ".mcp.json", ".lsp.json")
#: A plugin's directories never writable as a whole.
_TREES = (".claude-plugin", "hooks", "agents", "skills", "commands")


def marketplaces(data: object) -> list[str]:
    """The paths of the directory marketplaces a settings document registers (under
    ``extraKnownMarketplaces``, or at its top level as ``known_marketplaces.json`` lists
    them), as written; :class:`Unchecked` past :data:`_MAX_MARKETPLACES`."""
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
                    # a `file` source names the marketplace.json itself
                    found.append(path if source["source"] == "directory" else os.path.dirname(
                        os.path.dirname(path.rstrip("/"))) or ".")
    if len(found) > _MAX_MARKETPLACES:
        raise Unchecked
    return list(dict.fromkeys(found))


def plugin_files(market: str, root: str, reads: Reads) -> tuple[list[tuple[str, bool]], list[tuple[str, str]]]:
    """For the marketplace directory ``market`` (absolute, inside ``root``): the paths never
    writable (each with whether everything below it counts), and ``(plugin directory, file)``
    for each file whose commands the caller reads. :class:`Unchecked` when the marketplace
    cannot be checked. Blocking."""
    manifest = os.path.join(market, ".claude-plugin", "marketplace.json")
    protected: list[tuple[str, bool]] = [(os.path.join(market, ".claude-plugin"), True)]
    reads.record(manifest)
    try:
        doc = json.loads(read_unlinked(manifest, root, _MAX_FILE))
    except FileNotFoundError:
        return protected, []
    except (Linked, OSError, ValueError, RecursionError):
        if os.path.lexists(manifest):
            raise Unchecked from None
        return protected, []
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    if not isinstance(plugins, list):
        return protected, []
    if len(plugins) > _MAX_PLUGINS:
        raise Unchecked
    meta = doc.get("metadata")
    prefix = meta.get("pluginRoot") if isinstance(meta, dict) else None
    files: list[tuple[str, str]] = []
    inside = root.rstrip("/") + "/"
    for plugin in plugins:
        source = plugin.get("source") if isinstance(plugin, dict) else None
        if not isinstance(source, str):
            continue  # a git, GitHub or npm source: installed into the cache, not run from here
        bases = [market, *([os.path.join(market, prefix)] if isinstance(prefix, str) and prefix else [])]
        for pdir in dict.fromkeys(os.path.normpath(os.path.join(b, source)) for b in bases):
            if not (pdir + "/").startswith(inside):
                continue
            protected += [(os.path.join(pdir, t), True) for t in _TREES]
            for name in _COMMAND_FILES:
                path = os.path.join(pdir, name)
                protected.append((path, False))
                files.append((pdir, path))
    return protected, files
