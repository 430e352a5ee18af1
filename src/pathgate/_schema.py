"""msgspec helpers shared by every layer (model-level: imports nothing of pathgate).

* :func:`inline_schema` — a JSON Schema whose root is the object itself (MCP clients up to
  protocol 2025-11-25 reject a ``$ref`` root); used by tool argument schemas and renderers.
* :func:`validation_key` — split a msgspec validation message into (dotted key, text), so
  config and tool-argument errors name the key.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

__all__ = ["inline_schema", "validation_key"]


def inline_schema(tp: Any) -> dict[str, Any]:
    """A JSON Schema for ``tp`` whose root is the object itself (never a bare ``$ref``):
    MCP clients up to protocol 2025-11-25 reject a ``$ref`` root."""
    (root,), components = msgspec.json.schema_components([tp], ref_template="#/$defs/{name}")
    if "$ref" in root:
        name = root["$ref"].rsplit("/", 1)[-1]
        root = dict(components.pop(name))
    if components:
        root["$defs"] = components
    return dict(root)


_AT = re.compile(r" - at `\$\.?([^`]*)`$")
_UNKNOWN = re.compile(r"(?:unknown|missing required) field `([^`]*)`")


def validation_key(message: str) -> tuple[str | None, str]:
    """Split a msgspec validation message into (dotted key, text)."""
    m = _AT.search(message)
    key = m.group(1) if m else None
    text = _AT.sub("", message)
    named = _UNKNOWN.search(text)
    if named:
        key = f"{key}.{named.group(1)}" if key else named.group(1)
    return key, text
