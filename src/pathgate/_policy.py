"""The :class:`Policy` struct and its TOML form (decoding, validation): the data half of
:mod:`pathgate.config`, which adds where a policy comes from (host and project files) and the
trust model that merges them. Import these names from :mod:`pathgate.config` (or ``pathgate``).
"""

# No ``from __future__ import annotations`` here: ``pathgate.Policy.__module__`` is
# ``"pathgate"``, and ``help()``/``inspect.signature`` must not have to resolve string
# annotations such as ``HostFilter`` in that namespace (issue 16).

import fnmatch
from collections.abc import Awaitable, Callable
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
    "policy_from_mapping",
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

#: ``.env`` variants that are templates, not secrets (after normalisation).
ENV_TEMPLATES = frozenset(f".env{sep}{kind}" for sep in ".-_" for kind in ("example", "sample", "template"))
#: How a ``.env`` variant's name starts (``.env.local``, ``.env-production``, ``.env_dev``).
ENV_PREFIXES = (".env.", ".env-", ".env_")


def is_env_name(norm: str) -> bool:
    """Is the normalised basename ``norm`` a ``.env`` file (``.env``, ``.env.*``, ``.env-*``,
    ``.env_*``) other than a template? The one spelling of the rule (the secrets gate's,
    explain's, the config check's)."""
    return norm == ".env" or (norm.startswith(ENV_PREFIXES) and norm not in ENV_TEMPLATES)


def _names_a_secret(name: str, patterns: tuple[str, ...]) -> bool:
    """Is the plain file name ``name`` a secret by the secrets gate's name rules (``.env``
    and ``.env.*`` but the templates, the basename ``patterns``; any case, trailing dots
    and spaces, judged whole and cut at a ``:``)?"""
    spellings = {name.rstrip(" .").casefold(), name.split(":", 1)[0].rstrip(" .").casefold()}
    for norm in spellings:
        if is_env_name(norm):
            return True
        if any(fnmatch.fnmatchcase(norm, p.casefold()) for p in patterns if "/" not in p.strip("/")):
            return True
    return False


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

#: Agent ignore files pathgate knows (never refused as secret names: a project's own
#: ``extra_secret_patterns = [".*"]`` must not make the default agent file an error).
_KNOWN_AGENT_FILES = frozenset({".pathgateignore", *OTHER_AGENT_FILES})

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


#: The policy's sequence fields: given as lists in code, kept as tuples.
_SEQUENCE_FIELDS = ("secret_patterns", "extra_secret_patterns", "model_size_limits", "size_caps",
                    "agent_files", "defaults", "renderers")


class Policy(msgspec.Struct, frozen=True, kw_only=True):
    """What a runtime allows. Every field has a safe default. A ``Policy`` built in code is
    the host's: it may loosen (see the module docstring for what a project may set).

    Gates:

    * ``allow_outside_root``: let the path gate pass paths whose real target is outside the
      project root (default off: ``[FILE_OUTSIDE_PROJECT]``). ``.git`` internals are never
      served, whatever this says.
    * ``enforce_secrets``: run the secrets gate. Off is for an internal edit path only: a
      secret caught by any later gate still comes out as an opaque bare ``[BLOCKED]``.
    * ``secret_patterns``: credential names besides ``.env*`` (see
      :data:`DEFAULT_SECRET_PATTERNS`); replacing the tuple replaces the list.
      ``extra_secret_patterns`` are appended to it (the field keeps what was given;
      ``secret_patterns`` reads as the union).
    * ``host_filter``: the host's callable, ``(relpath) -> bool | Awaitable[bool]``; ``False``
      or an exception blocks opaquely. Both it and the ignore rules apply.
    * ``ignore_mode``: ``"block"`` explicit reads of ignored files are blocked and
      explained; ``"discovery"`` they are only hidden from glob/list/search.
    * ``size_limit`` (bytes, default 10 MiB) and ``model_size_limits``, ordered
      :class:`SizeRule` globs on the model id (first match wins over ``size_limit``);
      ``size_caps``: :class:`SizeRule` upper bounds applied after those (every matching cap
      lowers the limit; a project's size settings land here).
    * ``read_budget``: characters of content one ``read_files`` call may return, and of hit
      text one ``code_search`` call may return (whatever its ``max_results``).
    * ``search_seconds``: seconds of searching one ``code_search`` call may spend (default 10;
      the scan's own work, not time spent waiting for a turn behind other calls; ``inf``: no
      limit). Past it the search stops and says how many files it did not search (RE2 is
      linear, but on text shaped for it a pattern can run at a megabyte a second).

    Ignore sources (see :meth:`ignore_config`): ``agent_files`` (per-directory agent ignore
    files, default ``.pathgateignore``), ``other_agent_files`` (also read
    :data:`OTHER_AGENT_FILES`), ``defaults`` (the built-in list), ``git_sources``
    (``.git/info/exclude`` and ``core.excludesFile``), ``excludes_file`` (explicit
    ``core.excludesFile``), ``ignore_case`` (``None``: the repository's ``core.ignoreCase``).

    I/O: ``max_concurrency`` bounds the worker-thread hops one runtime runs at once for walks,
    searches and matching (default 1; ``read_files``' reads have a pool of ``max(2, n // 4)``
    of their own). Hops are granted by a scheduler, not first come first served: reads first,
    then short calls taking turns hop by hop, calls past 0.25 s of work after shorter ones
    (``runtime/fs/_sched.py``). With a warm page cache the hops are bound by the interpreter
    lock: two at once finish no sooner than one after the other, and on a machine with a free
    second CPU each costs about twice the CPU (lock hand-offs), so one main hop at a time gave
    the best throughput on 1 and 2 cores (benchmarks/RESULTS.md, issue 19, helper cc19);
    raise it for slow, cold or remote filesystems, where hops wait on I/O;
    ``fs_backend`` picks the ``read_files`` backend (``"auto"`` is the measured faster one,
    the batched-thread backend; ``"aiofiles"`` falls back to threads under trio).

    Rendering (selection lives in ``pathgate.renderers``): ``renderers`` is an ordered tuple
    of :class:`RendererRule` on the model id; ``default_renderer`` applies when none matches.

    Writes (``write_file`` / ``edit_file``, off by default):

    * ``allow_writes``: register the write tools (host-only; ``Runtime(allow_writes=True)``
      does the same).
    * ``allow_ignored_writes``: let writes into ignored paths pass (host-only; default: they
      are blocked and explained like reads, in both ignore modes).
    * ``require_read_before_write``: refuse an overwrite or edit by an agent that has not read
      the file's current version (default on; off is host-only, for hosts that manage
      versions themselves).
    * ``write_size_limit``: bytes one write may produce (default: the model's read size
      limit, so what is written can be read back).
    """

    allow_outside_root: bool = False
    enforce_secrets: bool = True
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    extra_secret_patterns: tuple[str, ...] = ()
    host_filter: HostFilter | None = None
    ignore_mode: IgnoreMode = "block"
    size_limit: int = 10 * _MIB
    model_size_limits: tuple[SizeRule, ...] = ()
    size_caps: tuple[SizeRule, ...] = ()
    read_budget: int = 100_000
    search_seconds: float = 10.0
    agent_files: tuple[str, ...] = (".pathgateignore",)
    other_agent_files: bool = False
    defaults: tuple[str, ...] = DEFAULT_IGNORES
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    max_concurrency: int = 1
    fs_backend: FsBackend = "auto"
    renderers: tuple[RendererRule, ...] = ()
    default_renderer: str = "verbose"
    # -- hard links (issue 12 item 5; a tightening key: the host or the project may set it) --
    #: Refuse every regular file with more than one link (opaque ``[BLOCKED]``), instead of
    #: only those sharing their inode with a secret-named file of the project.
    strict_hard_links: bool = False

    # --- writes (write_file / edit_file; issue 18) ------------------------------------------
    # Loosening, host-only (never read from the project's own files): allow_writes,
    # allow_ignored_writes, require_read_before_write=False. Tightening: write_size_limit.
    allow_writes: bool = False
    allow_ignored_writes: bool = False
    require_read_before_write: bool = True
    write_size_limit: int | None = None

    # --- live index (issue 15; host-only: not a loosening, but memory and inotify watches
    # are the host's to spend) ------------------------------------------------------------
    #: Answer glob, list_directory and code_search's file set from an in-memory index kept
    #: current by inotify (README: Live index). ``Runtime(live_index=True)`` does the same.
    live_index: bool = False

    def __post_init__(self) -> None:
        for key in _SEQUENCE_FIELDS:  # a list is what people write; a bare string is a mistake
            value = getattr(self, key)
            if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
                raise ConfigError(f"{key}: expected a list, got {type(value).__name__} {value!r}",
                                  key=key)
            if isinstance(value, list):
                msgspec.structs.force_setattr(self, key, tuple(value))
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
        secs = self.search_seconds
        if isinstance(secs, bool) or not isinstance(secs, (int, float)) or not secs > 0:  # NaN fails too
            raise ConfigError(f"search_seconds: expected a positive number of seconds, got {secs!r}",
                              key="search_seconds")
        if isinstance(secs, int):
            msgspec.structs.force_setattr(self, "search_seconds", float(secs))
        wl = self.write_size_limit
        if wl is not None and (isinstance(wl, bool) or not isinstance(wl, int) or wl <= 0):
            raise ConfigError(f"write_size_limit: expected a positive integer, got {wl!r}",
                              key="write_size_limit")
        if self.host_filter is not None and not callable(self.host_filter):
            raise ConfigError("host_filter: expected a callable (relpath) -> bool", key="host_filter")
        for i, name in enumerate(self.agent_files):
            if not name or "/" in name or name in (".", ".."):
                raise ConfigError(
                    f"agent_files[{i}]: expected a plain file name, got {name!r}",
                    key=f"agent_files[{i}]",
                )
        for key in ("secret_patterns", "extra_secret_patterns"):
            for i, pattern in enumerate(getattr(self, key)):
                if not isinstance(pattern, str) or not pattern.strip("/"):
                    raise ConfigError(f"{key}[{i}]: expected a file name pattern, got {pattern!r}",
                                      key=f"{key}[{i}]")
        if self.extra_secret_patterns:
            union = tuple(dict.fromkeys(self.secret_patterns + self.extra_secret_patterns))
            msgspec.structs.force_setattr(self, "secret_patterns", union)
        for i, name in enumerate(self.agent_files):
            if name not in _KNOWN_AGENT_FILES and _names_a_secret(name, self.secret_patterns):
                raise ConfigError(
                    f"agent_files[{i}]: {name!r} is a secret's name; pathgate never reads a secret "
                    "(its lines would be quoted to the model as ignore rules)",
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

    def git_only(self) -> "Policy":
        """This policy with git's own ignore sources only (no built-in defaults, no agent
        ignore files): what ``git check-ignore`` would decide."""
        return msgspec.structs.replace(
            self, defaults=(), agent_files=(), other_agent_files=False, git_sources=True
        )

    def size_limit_for(self, model: str | None) -> int:
        """The size limit in bytes for ``model``: the first matching ``model_size_limits``
        rule, else ``size_limit``; then lowered by every matching ``size_caps`` rule."""
        limit = self.size_limit
        if model is not None:
            for rule in self.model_size_limits:
                if fnmatch.fnmatchcase(model, rule.model):
                    limit = rule.limit
                    break
        for cap in self.size_caps:
            if fnmatch.fnmatchcase(model or "", cap.model) or cap.model == "*":
                limit = min(limit, cap.limit)
        return limit

    def write_limit_for(self, model: str | None) -> int:
        """Bytes one write may produce for ``model``: ``write_size_limit`` when set, capped
        by the model's read size limit (what is written can always be read back)."""
        limit = self.size_limit_for(model)
        return limit if self.write_size_limit is None else min(limit, self.write_size_limit)


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
    size_caps: tuple[SizeRule, ...] = ()
    read_budget: _Positive = 100_000
    search_seconds: Annotated[float, msgspec.Meta(gt=0)] = 10.0  # tightening: a project may lower it
    agent_files: tuple[str, ...] = (".pathgateignore",)
    other_agent_files: bool = False
    defaults: tuple[str, ...] = DEFAULT_IGNORES
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    max_concurrency: _Positive = 1
    fs_backend: FsBackend = "auto"
    renderers: _RenderersSection = _RenderersSection()
    strict_hard_links: bool = False  # tightening: a project may set it
    write_size_limit: _Positive | None = None  # writes: tightening only (issue 18)
    live_index: bool = False  # host only (issue 15)

    def to_policy(self) -> Policy:
        fields = {f: getattr(self, f) for f in self.__struct_fields__ if f != "renderers"}
        return Policy(**fields, renderers=self.renderers.rules, default_renderer=self.renderers.default)


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
