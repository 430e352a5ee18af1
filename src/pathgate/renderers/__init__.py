"""Renderers: turn raw results (contents and verdicts) into what a model receives.

``sentinel``, ``verbose`` and ``structured`` are built in; hosts add their own with
:func:`register_renderer`. A :class:`RendererSelector` picks one per model id.
"""

from __future__ import annotations

from pathgate.renderers import _config_check  # noqa: F401  (registers the renderer-name check)
from pathgate.renderers._base import DEFAULT_RENDERER as DEFAULT_RENDERER
from pathgate.renderers._base import READ_FILES_DESCRIPTION as READ_FILES_DESCRIPTION
from pathgate.renderers._base import Renderer as Renderer
from pathgate.renderers._base import RendererFactory as RendererFactory
from pathgate.renderers._base import RendererRegistry as RendererRegistry
from pathgate.renderers._base import RendererSelector as RendererSelector
from pathgate.renderers._base import default_registry as default_registry
from pathgate.renderers._base import omission_note as omission_note
from pathgate.renderers._base import register_renderer as register_renderer
from pathgate.renderers.sentinel import SentinelRenderer as SentinelRenderer
from pathgate.renderers.structured import ReadFilesOutput as ReadFilesOutput
from pathgate.renderers.structured import StructuredRenderer as StructuredRenderer
from pathgate.renderers.structured import read_files_output_schema as read_files_output_schema
from pathgate.renderers.verbose import VerboseRenderer as VerboseRenderer

__all__ = [
    "DEFAULT_RENDERER",
    "READ_FILES_DESCRIPTION",
    "ReadFilesOutput",
    "Renderer",
    "RendererFactory",
    "RendererRegistry",
    "RendererSelector",
    "SentinelRenderer",
    "StructuredRenderer",
    "VerboseRenderer",
    "default_registry",
    "omission_note",
    "read_files_output_schema",
    "register_renderer",
]
