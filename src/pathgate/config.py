"""The policy: every setting a :class:`~pathgate.Runtime` decides with, and its TOML form.

A :class:`Policy` is a frozen ``msgspec.Struct``; build one in code or load it with
:func:`load_config` from ``pathgate.toml`` (or ``[tool.pathgate]`` in ``pyproject.toml``) at
the project root. The TOML form mirrors the struct, with two sections::

    # pathgate.toml  (or [tool.pathgate] / [tool.pathgate.renderers] in pyproject.toml)
    allow_outside_root = false
    enforce_secrets = true
    extra_secret_patterns = ["*.tfstate"]     # appended to secret_patterns
    ignore_mode = "block"                     # or "discovery"
    size_limit = 10485760                     # bytes
    model_size_limits = [{ model = "gpt-4o-mini*", limit = 1048576 }]
    read_budget = 100000                      # characters per read_files call
    agent_files = [".pathgateignore"]
    other_agent_files = false                 # also .aiignore, .cursorignore, ...
    git_sources = true
    fs_backend = "auto"                       # "thread" | "aiofiles"

    [renderers]
    default = "verbose"
    rules = [{ model = "gpt-4o-mini*", renderer = "structured" }]

Unknown keys and bad values raise :class:`~pathgate.errors.ConfigError`; its ``key`` is the
dotted path of the offending key (``size_limit``, ``renderers.rules[1].model``), and the
message names it too. ``host_filter`` is code, so it exists only on the struct.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from pathgate._schema import validation_key as _key_of
from pathgate.errors import ConfigError
from pathgate.runtime.ignore import DEFAULT_IGNORES, IgnoreConfig

__all__ = [
    "DEFAULT_SECRET_PATTERNS",
    "OTHER_AGENT_FILES",
    "HostFilter",
    "Policy",
    "RendererRule",
    "SizeRule",
    "load_config",
]

#: A host's own filter: ``(relpath) -> bool`` (sync or async); ``False`` blocks, opaquely.
#: An exception inside it blocks too (fail closed).
HostFilter = Callable[[str], bool | Awaitable[bool]]

#: Credential file names that are secret (opaque) besides ``.env`` / ``.env.*``.
#: Matched case-insensitively with :mod:`fnmatch` against the basename (after cutting an NTFS
#: ``:stream`` and trailing spaces/dots); a pattern containing ``/`` is matched against the
#: project-relative path and each of its trailing parts (``.aws/credentials`` matches
#: ``home/.aws/credentials``).
DEFAULT_SECRET_PATTERNS: tuple[str, ...] = (
    # private keys and certificates with keys
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    # credential stores of common tools
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
    ".htpasswd",
    ".aws/credentials",
    ".docker/config.json",
    ".kube/config",
    # service-account / OAuth client files
    "credentials.json",
    "client_secret*.json",
    "service-account*.json",
)

#: Other agents' ignore files, read when ``other_agent_files`` is true (after ``agent_files``).
OTHER_AGENT_FILES: tuple[str, ...] = (
    ".aiignore",
    ".codebuffignore",
    ".cursorignore",
    ".geminiignore",
    ".clineignore",
    ".rooignore",
    ".aiderignore",
)

IgnoreMode = Literal["block", "discovery"]
FsBackend = Literal["auto", "thread", "aiofiles"]

_MIB = 1024 * 1024


class RendererRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Use renderer ``renderer`` for model ids matching the glob ``model`` (first match wins)."""

    model: str
    renderer: str


class SizeRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Files larger than ``limit`` bytes are blocked for model ids matching the glob ``model``."""

    model: str
    limit: Annotated[int, msgspec.Meta(gt=0)]


class Policy(msgspec.Struct, frozen=True, kw_only=True):
    """What a runtime allows. Every field has a safe default.

    Gates:

    * ``allow_outside_root``: let the path gate pass paths whose real target is outside the
      project root (default off: ``[FILE_OUTSIDE_PROJECT]``).
    * ``enforce_secrets``: run the secrets gate. Off is for an internal edit path only: a
      secret caught by any later gate still comes out as an opaque bare ``[BLOCKED]``.
    * ``secret_patterns``: credential names besides ``.env*`` (see
      :data:`DEFAULT_SECRET_PATTERNS`); replacing the tuple replaces the list.
    * ``host_filter``: the host's callable, ``(relpath) -> bool | Awaitable[bool]``; ``False``
      or an exception blocks opaquely. Both it and the ignore rules apply.
    * ``ignore_mode``: ``"block"`` explicit reads of ignored files are blocked and
      explained; ``"discovery"`` they are only hidden from glob/list/search.
    * ``size_limit`` (bytes, default 10 MiB) and ``model_size_limits``, ordered
      :class:`SizeRule` globs on the model id (first match wins over ``size_limit``).
    * ``read_budget``: characters of content one ``read_files`` call may return.

    Ignore sources (see :meth:`ignore_config`): ``agent_files`` (per-directory agent ignore
    files, default ``.pathgateignore``), ``other_agent_files`` (also read
    :data:`OTHER_AGENT_FILES`), ``defaults`` (the built-in list), ``git_sources``
    (``.git/info/exclude`` and ``core.excludesFile``), ``excludes_file`` (explicit
    ``core.excludesFile``), ``ignore_case`` (``None``: the repository's ``core.ignoreCase``).

    I/O: ``max_concurrency`` bounds the worker threads one runtime uses for file I/O
    (default 8: with a warm page cache the work is GIL-bound and more threads only contend;
    raise it for slow or remote filesystems);
    ``fs_backend`` picks the ``read_files`` backend (``"auto"`` is the measured faster one,
    the batched-thread backend; ``"aiofiles"`` falls back to threads under trio).

    Rendering (selection lives in ``pathgate.renderers``): ``renderers`` is an ordered tuple
    of :class:`RendererRule` on the model id; ``default_renderer`` applies when none matches.
    """

    allow_outside_root: bool = False
    enforce_secrets: bool = True
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    host_filter: HostFilter | None = None
    ignore_mode: IgnoreMode = "block"
    size_limit: int = 10 * _MIB
    model_size_limits: tuple[SizeRule, ...] = ()
    read_budget: int = 100_000
    agent_files: tuple[str, ...] = (".pathgateignore",)
    other_agent_files: bool = False
    defaults: tuple[str, ...] = DEFAULT_IGNORES
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    max_concurrency: int = 8
    fs_backend: FsBackend = "auto"
    renderers: tuple[RendererRule, ...] = ()
    default_renderer: str = "verbose"

    def __post_init__(self) -> None:
        if self.ignore_mode not in ("block", "discovery"):
            raise ConfigError(
                f"ignore_mode: expected 'block' or 'discovery', got {self.ignore_mode!r}",
                key="ignore_mode",
            )
        if self.fs_backend not in ("auto", "thread", "aiofiles"):
            raise ConfigError(
                f"fs_backend: expected 'auto', 'thread' or 'aiofiles', got {self.fs_backend!r}",
                key="fs_backend",
            )
        for key in ("size_limit", "read_budget", "max_concurrency"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ConfigError(f"{key}: expected a positive integer, got {value!r}", key=key)
        if self.host_filter is not None and not callable(self.host_filter):
            raise ConfigError("host_filter: expected a callable (relpath) -> bool", key="host_filter")
        for i, name in enumerate(self.agent_files):
            if not name or "/" in name or name in (".", ".."):
                raise ConfigError(
                    f"agent_files[{i}]: expected a plain file name, got {name!r}",
                    key=f"agent_files[{i}]",
                )

    @property
    def all_agent_files(self) -> tuple[str, ...]:
        """The agent ignore file names read in each directory, in precedence order."""
        names = self.agent_files + (OTHER_AGENT_FILES if self.other_agent_files else ())
        return tuple(dict.fromkeys(names))

    def ignore_config(self) -> IgnoreConfig:
        """The ignore engine's configuration for this policy."""
        return IgnoreConfig(
            defaults=self.defaults,
            agent_files=self.all_agent_files,
            git_sources=self.git_sources,
            excludes_file=self.excludes_file,
            ignore_case=self.ignore_case,
        )

    def git_only(self) -> Policy:
        """This policy with git's own ignore sources only (no built-in defaults, no agent
        ignore files): what ``git check-ignore`` would decide."""
        return msgspec.structs.replace(
            self, defaults=(), agent_files=(), other_agent_files=False, git_sources=True
        )

    def size_limit_for(self, model: str | None) -> int:
        """The size limit in bytes for ``model`` (first matching rule, else ``size_limit``)."""
        if model is not None:
            for rule in self.model_size_limits:
                if fnmatch.fnmatchcase(model, rule.model):
                    return rule.limit
        return self.size_limit


# --- TOML -------------------------------------------------------------------------------


class _RenderersSection(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    default: str = "verbose"
    rules: tuple[RendererRule, ...] = ()


_Positive = Annotated[int, msgspec.Meta(gt=0)]


class _PolicyFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The TOML shape of :class:`Policy` (see the module docstring)."""

    allow_outside_root: bool = False
    enforce_secrets: bool = True
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    extra_secret_patterns: tuple[str, ...] = ()
    ignore_mode: IgnoreMode = "block"
    size_limit: _Positive = 10 * _MIB
    model_size_limits: tuple[SizeRule, ...] = ()
    read_budget: _Positive = 100_000
    agent_files: tuple[str, ...] = (".pathgateignore",)
    other_agent_files: bool = False
    defaults: tuple[str, ...] = DEFAULT_IGNORES
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    max_concurrency: _Positive = 8
    fs_backend: FsBackend = "auto"
    renderers: _RenderersSection = _RenderersSection()

    def to_policy(self) -> Policy:
        return Policy(
            allow_outside_root=self.allow_outside_root,
            enforce_secrets=self.enforce_secrets,
            secret_patterns=tuple(dict.fromkeys(self.secret_patterns + self.extra_secret_patterns)),
            ignore_mode=self.ignore_mode,
            size_limit=self.size_limit,
            model_size_limits=self.model_size_limits,
            read_budget=self.read_budget,
            agent_files=self.agent_files,
            other_agent_files=self.other_agent_files,
            defaults=self.defaults,
            git_sources=self.git_sources,
            excludes_file=self.excludes_file,
            ignore_case=self.ignore_case,
            max_concurrency=self.max_concurrency,
            fs_backend=self.fs_backend,
            renderers=self.renderers.rules,
            default_renderer=self.renderers.default,
        )


def policy_from_mapping(data: Any, *, source: str = "<config>", prefix: str = "") -> Policy:
    """Decode a TOML-shaped mapping into a :class:`Policy` (strict types, no unknown keys).

    The error's ``key`` is relative to the settings table (``renderers.rules[1].model``);
    the message spells it with ``prefix`` (``tool.pathgate.renderers.rules[1].model``)."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: `{prefix or 'settings'}`: expected a table", key=None)
    try:
        return msgspec.convert(data, _PolicyFile, strict=True).to_policy()
    except msgspec.ValidationError as exc:
        key, text = _key_of(str(exc))
    except ConfigError as exc:
        key, text = exc.key, str(exc).removeprefix(f"{exc.key}: ")
    shown = f"{prefix}.{key}" if prefix and key else key or prefix or "settings"
    raise ConfigError(f"{source}: `{shown}`: {text}", key=key)


def load_config(root: str | os.PathLike[str], path: str | os.PathLike[str] | None = None) -> Policy:
    """Load the policy of the project at ``root``.

    With ``path``, read that TOML file (a ``pyproject.toml`` is read at ``[tool.pathgate]``,
    any other file at its top level). Without it, read ``<root>/pathgate.toml`` if present,
    else ``[tool.pathgate]`` of ``<root>/pyproject.toml`` if present, else return the default
    :class:`Policy`. Raises :class:`~pathgate.errors.ConfigError` naming the bad key.
    """
    if path is None:
        candidates = [Path(root) / "pathgate.toml", Path(root) / "pyproject.toml"]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            return Policy()
    else:
        found = Path(path)
    try:
        raw = found.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{found}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{found}: invalid TOML: {exc}") from None
    prefix = ""
    if found.name == "pyproject.toml":
        tool = doc.get("tool", {})
        section = tool.get("pathgate") if isinstance(tool, dict) else None
        if section is None:
            return Policy()
        doc, prefix = section, "tool.pathgate"
    policy = policy_from_mapping(doc, source=str(found), prefix=prefix)
    _check_policy(policy, str(found), prefix)
    return policy


#: Checks run on every policy :func:`load_config` loads, as ``check(policy, source,
#: prefix)``. The renderers package registers the renderer-name check here when it is
#: imported (``import pathgate`` does), so this module needs no import of a higher layer.
POLICY_CHECKS: list[Callable[[Policy, str, str], None]] = []


def _check_policy(policy: Policy, source: str, prefix: str) -> None:
    for check in POLICY_CHECKS:
        check(policy, source, prefix)
