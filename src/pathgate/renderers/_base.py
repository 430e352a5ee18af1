"""Renderers: the last step, where verdicts and contents become what a model reads.

Gates return data (:class:`~pathgate.Verdict`); a renderer is the only place that makes text.
Three are built in, each in its own module:

* ``sentinel`` — the bare status for every block (byte-identical legacy strings);
* ``verbose`` — the sentinel, then ``": "`` and a short explanation for non-opaque blocks;
* ``structured`` — JSON-ready objects with a published JSON Schema.

A renderer takes every option in ``__init__`` and picks its templates there, so the hot call
has no option branches. It looks at nothing but the results it is given. Opaque verdicts
(secrets, host filter) render as the bare ``[BLOCKED]`` in every renderer — no reason, gate,
rule, existence or remedy.

Which renderer a model gets is decided by a :class:`RendererSelector`, built once from
ordered glob rules on the model id (``fnmatch.fnmatchcase``; first match wins; a default when
none matches or the model is unknown). Renderers are created through a
:class:`RendererRegistry`; hosts add their own with :func:`register_renderer`.
"""

from __future__ import annotations

import fnmatch
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pathgate.errors import ConfigError
from pathgate.verdicts import FileResult, Gate, Status, Verdict

__all__ = [
    "DEFAULT_RENDERER",
    "OPAQUE_GATES",
    "READ_FILES_DESCRIPTION",
    "STATUS_MEANINGS",
    "Renderer",
    "RendererFactory",
    "RendererRegistry",
    "RendererRuleLike",
    "RendererSelector",
    "default_registry",
    "format_size",
    "is_opaque",
    "omission_note",
    "register_renderer",
    "render_text_read",
]

#: The renderer a model gets when no rule matches (or the model id is unknown).
DEFAULT_RENDERER = "verbose"

#: Gates whose decisions are opaque: never explained, never counted in omissions.
OPAQUE_GATES: frozenset[Gate] = frozenset({Gate.SECRETS, Gate.HOST_FILTER})

#: What each status means, said once (for tool descriptions, not per call).
STATUS_MEANINGS: Mapping[Status, str] = {
    Status.BLOCKED: (
        "the path is withheld. When an explanation follows, it is excluded by ignore rules "
        "(.gitignore, agent ignore files such as .pathgateignore, or built-in defaults); the "
        "explanation names the rule and, when possible, the lines that would re-include it. "
        "A bare [BLOCKED] is final: no reason can be given, so do not try to work around it"
    ),
    Status.FILE_DOES_NOT_EXIST: "no file exists at that path",
    Status.NOT_A_FILE: "the path is a directory or a special file",
    Status.FILE_OUTSIDE_PROJECT: "the path resolves outside the project root",
    Status.FILE_TOO_LARGE: (
        "the file is over the size limit, or its content was cut to fit this call's output "
        "budget; read a line window or use code_search"
    ),
    Status.FILE_READ_ERROR: "the file could not be read (for example, permission denied)",
    Status.BINARY_FILE: "the file holds binary content that cannot be shown as text",
}


def _describe_statuses() -> str:
    lines = [f"{status.sentinel}: {text}." for status, text in STATUS_MEANINGS.items()]
    return "\n".join(lines)


#: The ``read_files`` tool description: what never changes is said here, once, so the
#: per-call messages stay short.
READ_FILES_DESCRIPTION = (
    "Read files of the project. For each requested path, in request order, returns the "
    "file's content or a status text that starts with a bracketed sentinel:\n"
    + _describe_statuses()
    + "\nIgnored files are also left out of glob, list_directory and code_search results."
)


def is_opaque(verdict: Verdict) -> bool:
    """Whether a verdict must render as the bare ``[BLOCKED]``.

    True for verdicts marked opaque and, defensively, for any verdict of an opaque gate.
    """
    return verdict.opaque or verdict.gate in OPAQUE_GATES


def format_size(n: int) -> str:
    """A byte count for people and models: ``"512 bytes"``, ``"1.5 KiB"``, ``"10 MiB"``."""
    if n < 1024:
        return f"{n} byte" if n == 1 else f"{n} bytes"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            text = f"{value:.1f}".removesuffix(".0")
            return f"{text} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


#: How each non-opaque gate is named in an omission note.
_OMISSION_REASONS: Mapping[Gate, str] = {
    Gate.PATH: "the path check",
    Gate.IGNORE: "ignore rules",
    Gate.EXISTENCE: "the file-type check",
    Gate.SIZE: "the size limit",
    Gate.READ: "read errors",
}


def omission_note(gate: Gate, count: int, example: str | None = None) -> str | None:
    """The note a discovery tool (glob, list, search) adds for matches one gate omitted.

    ``"3 matches omitted by ignore rules, e.g. build/out.js"``. Opaque gates are never
    counted nor named: for them (and for ``count <= 0``) this returns ``None``.
    """
    if gate in OPAQUE_GATES or count <= 0:
        return None
    noun = "match" if count == 1 else "matches"
    note = f"{count} {noun} omitted by {_OMISSION_REASONS.get(gate, gate.value)}"
    if example is not None:
        note += f", e.g. {example}"
    return note


@runtime_checkable
class Renderer(Protocol):
    """Turns raw tool results into what the model receives.

    * ``name``: the registry name (``"sentinel"``, ``"verbose"``, ``"structured"``, ...).
    * ``read_files_description``: the tool description to declare with this renderer.
    * ``render_read(results)``: the ``read_files`` result, JSON-ready. Text renderers return
      ``dict[str, str]`` (path → content or status text, in request order); the structured
      renderer returns ``{"files": [...]}``.
    * ``render_verdict(path, verdict)``: one blocked path, JSON-ready (a status text for text
      renderers, an object for structured); discovery tools reuse it.
    * ``output_schema()``: the JSON Schema (root ``type: object``) of ``render_read``'s result,
      or ``None`` for text renderers.
    """

    name: str
    read_files_description: str

    def render_read(self, results: Sequence[FileResult], /) -> Mapping[str, Any]: ...

    def render_verdict(self, path: str, verdict: Verdict, /) -> Any: ...

    def output_schema(self) -> dict[str, Any] | None: ...


RendererFactory = Callable[..., Renderer]
"""Builds a renderer from keyword options (a class taking options in ``__init__`` is one)."""


class RendererRegistry:
    """Renderer factories by name. Thread-safe; lookups are a dict read."""

    def __init__(self, factories: Mapping[str, RendererFactory] | None = None) -> None:
        self._lock = threading.Lock()
        self._factories: dict[str, RendererFactory] = {}
        for name, factory in (factories or {}).items():
            self.register(name, factory)

    @classmethod
    def with_builtins(cls) -> RendererRegistry:
        """A registry holding ``sentinel``, ``verbose`` and ``structured``."""
        from pathgate.renderers.sentinel import SentinelRenderer
        from pathgate.renderers.structured import StructuredRenderer
        from pathgate.renderers.verbose import VerboseRenderer

        return cls({"sentinel": SentinelRenderer, "structured": StructuredRenderer,
                    "verbose": VerboseRenderer})

    def register(self, name: str, factory: RendererFactory, *, replace: bool = False) -> None:
        """Add ``factory`` under ``name``. Re-using a name raises unless ``replace``."""
        if not isinstance(name, str) or not name or name != name.strip():
            raise ConfigError(f"renderer name must be a non-empty string without surrounding "
                              f"spaces, got {name!r}", key="renderers")
        if not callable(factory):
            raise ConfigError(f"renderer factory for {name!r} is not callable", key="renderers")
        with self._lock:
            if name in self._factories and not replace:
                raise ConfigError(f"renderer {name!r} is already registered "
                                  "(pass replace=True to override it)", key="renderers")
            self._factories = {**self._factories, name: factory}

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._factories))

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def create(self, name: str, /, *, key: str | None = None, **options: Any) -> Renderer:
        """Build the renderer ``name``. An unknown name raises :class:`ConfigError` naming it
        (and the config ``key`` it came from, when given)."""
        factory = self._factories.get(name)
        if factory is None:
            known = ", ".join(self.names()) or "none"
            where = f" (at {key})" if key else ""
            raise ConfigError(f"unknown renderer {name!r}{where}; known renderers: {known}",
                              key=key)
        try:
            return factory(**options)
        except TypeError as exc:
            raise ConfigError(f"bad options for renderer {name!r}: {exc}", key=key) from exc


_default_registry: RendererRegistry | None = None
_default_lock = threading.Lock()


def default_registry() -> RendererRegistry:
    """The process-wide registry (built-ins plus whatever hosts registered)."""
    global _default_registry
    if _default_registry is None:
        with _default_lock:
            if _default_registry is None:
                _default_registry = RendererRegistry.with_builtins()
    return _default_registry


def register_renderer(name: str, factory: RendererFactory, *, replace: bool = False) -> None:
    """Register a host renderer in the process-wide registry, e.g.
    ``register_renderer("xml", XmlRenderer)``; then ``[renderers] default = "xml"`` works."""
    default_registry().register(name, factory, replace=replace)


class RendererRuleLike(Protocol):
    """One selection rule: a glob on the model id and a renderer name
    (``pathgate.config.RendererRule`` is one; so is any object with these attributes)."""

    @property
    def model(self) -> str: ...

    @property
    def renderer(self) -> str: ...


class RendererSelector:
    """Picks the renderer for a model id; built once, then read-only.

    ``rules`` are tried in order with :func:`fnmatch.fnmatchcase` on the model id; the first
    match wins. ``model=None`` (unknown) and no match give ``default``. Every renderer named
    is built once at construction, so an unknown name fails here (:class:`ConfigError`
    naming it), not on the first call.
    """

    def __init__(
        self,
        rules: Iterable[RendererRuleLike | tuple[str, str]] = (),
        default: str = DEFAULT_RENDERER,
        *,
        registry: RendererRegistry | None = None,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        registry = registry if registry is not None else default_registry()
        options = options or {}
        for name in options:
            if name not in registry:
                registry.create(name, key=f"renderers.options.{name}")  # raises, naming it
        built: dict[str, Renderer] = {}

        def build(name: str, key: str) -> Renderer:
            if name not in built:
                built[name] = registry.create(name, key=key, **dict(options.get(name, {})))
            return built[name]

        self._rules: tuple[tuple[str, Renderer], ...] = tuple(
            self._rule(rule, i, build) for i, rule in enumerate(rules)
        )
        self.default: Renderer = build(default, "renderers.default")
        self._renderers = built

    @staticmethod
    def _rule(rule: RendererRuleLike | tuple[str, str], i: int,
              build: Callable[[str, str], Renderer]) -> tuple[str, Renderer]:
        if isinstance(rule, tuple):
            model, name = rule
        else:
            model, name = rule.model, rule.renderer
        if not isinstance(model, str) or not model:
            raise ConfigError(f"renderer rule {i}: model pattern must be a non-empty string",
                              key=f"renderers.rules[{i}].model")
        return model, build(name, f"renderers.rules[{i}].renderer")

    @property
    def rules(self) -> tuple[tuple[str, str], ...]:
        """``(model glob, renderer name)`` in the order they are tried."""
        return tuple((pattern, r.name) for pattern, r in self._rules)

    @property
    def renderers(self) -> Mapping[str, Renderer]:
        """Every renderer this selector built, by name."""
        return dict(self._renderers)

    def select(self, model: str | None) -> Renderer:
        """The renderer for ``model`` (first matching rule, else the default)."""
        if model is not None:
            for pattern, renderer in self._rules:
                if fnmatch.fnmatchcase(model, pattern):
                    return renderer
        return self.default

    def name_for(self, model: str | None) -> str:
        return self.select(model).name


def _append_notice(content: str, notice: str) -> str:
    if not content or content.endswith("\n"):
        return content + notice
    return f"{content}\n{notice}"


def same_file_text(first: str) -> str:
    """The text for a spelling of a file this result already gives under ``first``."""
    return f"{Status.OK.sentinel}: The same file as `{first}`; its content is given there once."


def render_text_read(
    results: Sequence[FileResult],
    verdict_text: Callable[[Verdict], str],
    truncation_notice: Callable[[FileResult, Verdict], str],
) -> dict[str, str]:
    """The text renderers' shared loop: path → content or status text, in request order.

    Opaque verdicts give the bare ``[BLOCKED]`` (and drop any content); a truncated result
    gives its content followed by ``truncation_notice`` on a line of its own. A path repeated
    in the request keeps its first entry; another spelling of a file already given refers
    to it (:func:`same_file_text`).
    """
    out: dict[str, str] = {}
    for result in results:
        verdict = result.verdict
        if result.same_as is not None and verdict is None:
            if result.path not in out:
                out[result.path] = same_file_text(result.same_as)
        elif verdict is None:
            out[result.path] = result.content if result.content is not None else ""
        elif is_opaque(verdict):
            out[result.path] = Status.BLOCKED.sentinel
        elif result.truncated and result.content is not None:
            out[result.path] = _append_notice(result.content, truncation_notice(result, verdict))
        else:
            out[result.path] = verdict_text(verdict)
    return out
