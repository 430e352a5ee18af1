"""The renderer-name check of loaded configs, registered with :mod:`pathgate.config`.

``config`` sits below the renderers in the layers, so it cannot ask the registry itself;
importing the renderers package (``import pathgate`` does) registers this check in
:data:`pathgate.config.POLICY_CHECKS`.
"""

from __future__ import annotations

from pathgate.config import POLICY_CHECKS, Policy
from pathgate.errors import ConfigError
from pathgate.renderers._base import default_registry

__all__ = ["check_renderer_names"]


def check_renderer_names(policy: Policy, source: str, prefix: str) -> None:
    """An unknown renderer name fails at load, naming the key (hosts register their own
    renderers with ``pathgate.renderers.register_renderer`` before loading)."""
    registry = default_registry()
    named = [("renderers.default", policy.default_renderer)]
    named += [(f"renderers.rules[{i}].renderer", r.renderer) for i, r in enumerate(policy.renderers)]
    for key, name in named:
        if name not in registry:
            shown = f"{prefix}.{key}" if prefix else key
            known = ", ".join(registry.names())
            raise ConfigError(f"{source}: `{shown}`: unknown renderer {name!r}; known renderers: {known}", key=key)


if check_renderer_names not in POLICY_CHECKS:
    POLICY_CHECKS.append(check_renderer_names)
