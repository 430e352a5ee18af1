"""The policy: every setting a :class:`~pathgate.Runtime` decides with, and its TOML form.

A :class:`Policy` is a frozen ``msgspec.Struct``. Code and TOML use the same keys (the TOML
``[renderers]`` table spells ``renderers``/``default_renderer`` as ``rules``/``default``)::

    # a host config file (--config FILE, ~/.config/pathgate/config.toml) or pathgate.toml
    allow_outside_root = false                # host only
    enforce_secrets = true                    # host only to switch off
    extra_secret_patterns = ["*.tfstate"]     # appended to secret_patterns
    ignore_mode = "block"                     # "discovery" is host only
    size_limit = 10485760                     # bytes; a project may only lower it
    model_size_limits = [{ model = "gpt-4o-mini*", limit = 1048576 }]
    read_budget = 100000                      # characters per read_files call
    agent_files = [".pathgateignore"]
    other_agent_files = false                 # also .aiignore, .cursorignore, ...
    git_sources = true
    fs_backend = "auto"                       # "thread" | "aiofiles"
    live_index = false                        # host only: discovery from memory (inotify)

    [renderers]
    default = "verbose"
    rules = [{ model = "gpt-4o-mini*", renderer = "structured" }]

**Trust model.** A repository is untrusted input: its own files (``pathgate.toml``,
``[tool.pathgate]`` in ``pyproject.toml``) may only *tighten* the host's policy. A
loosening key there (see :data:`HOST_ONLY_KEYS` and :func:`project_violation`) raises
:class:`~pathgate.errors.ConfigError` naming the key, the file and where it belongs; it is
never applied. Host settings come from code (``Policy(...)``), from a file the host names
(:func:`load_host_config` / ``--config``) or from the user-level file
(:func:`user_config_path`). :func:`merge_project` merges a project's settings into the host's:
limits are the minimum, lists are unions, ``block`` beats ``discovery``.

Unknown keys and bad values raise :class:`~pathgate.errors.ConfigError`; its ``key`` is the
dotted path of the offending key (``size_limit``, ``renderers.rules[1].model``), and the
message names it too. ``host_filter`` is code, so it exists only on the struct.
"""

# No ``from __future__ import annotations`` here: ``pathgate.Policy.__module__`` is
# ``"pathgate"``, and ``help()``/``inspect.signature`` must not have to resolve string
# annotations such as ``HostFilter`` in that namespace (issue 16).

import fnmatch
import os
import tomllib
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from pathgate._schema import validation_key as _key_of
from pathgate.errors import ConfigError
from pathgate.runtime.ignore import DEFAULT_IGNORES, IgnoreConfig

__all__ = [
    "DEFAULT_SECRET_PATTERNS",
    "HOST_ONLY_KEYS",
    "OTHER_AGENT_FILES",
    "PROJECT_KEYS",
    "HostFilter",
    "Policy",
    "RendererRule",
    "SizeRule",
    "load_config",
    "load_host_config",
    "load_project_config",
    "merge_project",
    "user_config_path",
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

#: ``.env`` variants that are templates, not secrets (kept in step with the secrets gate).
_ENV_TEMPLATES = frozenset({".env.example", ".env.sample", ".env.template"})

def _names_a_secret(name: str, patterns: tuple[str, ...]) -> bool:
    """Is the plain file name ``name`` a secret by the secrets gate's name rules (``.env``
    and ``.env.*`` but the templates, the basename ``patterns``; any case, trailing dots
    and spaces, judged whole and cut at a ``:``)?"""
    spellings = {name.rstrip(" .").casefold(), name.split(":", 1)[0].rstrip(" .").casefold()}
    for norm in spellings:
        if norm == ".env" or (norm.startswith(".env.") and norm not in _ENV_TEMPLATES):
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
    agent_files: tuple[str, ...] = (".pathgateignore",)
    other_agent_files: bool = False
    defaults: tuple[str, ...] = DEFAULT_IGNORES
    git_sources: bool = True
    excludes_file: str | None = None
    ignore_case: bool | None = None
    max_concurrency: _Positive = 8
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


# --- files: host and project ------------------------------------------------------------

#: The project's own config files, in the order they are looked for (the first found wins).
PROJECT_FILES: tuple[str, ...] = ("pathgate.toml", "pyproject.toml")

_DEFAULT = Policy()

#: Keys a project's own files may set: each can only tighten (see :func:`project_violation`
#: for the values refused, and :func:`merge_project` for how they combine with the host's).
PROJECT_KEYS: tuple[str, ...] = (
    "extra_secret_patterns", "secret_patterns", "enforce_secrets", "allow_outside_root",
    "ignore_mode", "size_limit", "model_size_limits", "size_caps", "read_budget",
    "agent_files", "other_agent_files", "defaults", "git_sources", "renderers",
    "strict_hard_links", "write_size_limit",
)

#: Keys only the host may set (to any value other than the default), with why.
HOST_ONLY_KEYS: Mapping[str, str] = {
    "excludes_file": "it makes pathgate read a file outside the project as ignore rules",
    "ignore_case": "it changes how every ignore rule matches",
    "max_concurrency": "it sizes the host's worker threads",
    "fs_backend": "it picks the host's I/O backend",
    "live_index": "it spends the host's memory and inotify watches",
}


def user_config_path() -> Path:
    """The user-level host config: ``$XDG_CONFIG_HOME/pathgate/config.toml``, else
    ``~/.config/pathgate/config.toml`` (a relative ``XDG_CONFIG_HOME`` is ignored, as the XDG
    spec says)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    home = Path(base) if base and os.path.isabs(base) else Path.home() / ".config"
    return home / "pathgate" / "config.toml"


def _read_toml(found: Path) -> tuple[Any, str] | None:
    """The settings table of ``found`` and its key prefix; ``None`` for a ``pyproject.toml``
    without ``[tool.pathgate]``."""
    try:
        raw = found.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{found}: cannot read: {exc.strerror or exc}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{found}: invalid TOML: {exc}") from None
    if found.name != "pyproject.toml":
        return doc, ""
    tool = doc.get("tool", {})
    section = tool.get("pathgate") if isinstance(tool, dict) else None
    return None if section is None else (section, "tool.pathgate")


def _load_file(found: Path) -> tuple[Policy, Mapping[str, Any], str] | None:
    """The policy a file sets, its settings table and the table's key prefix."""
    table = _read_toml(found)
    if table is None:
        return None
    doc, prefix = table
    policy = policy_from_mapping(doc, source=str(found), prefix=prefix)
    _check_policy(policy, str(found), prefix)
    return policy, doc, prefix


def load_host_config(path: str | os.PathLike[str] | None = None, *, user: bool = True) -> Policy:
    """The host's policy: the TOML file at ``path`` (a ``pyproject.toml`` is read at
    ``[tool.pathgate]``), else the user-level file (:func:`user_config_path`) when ``user``
    and it exists, else the default :class:`Policy`. Every key is allowed here."""
    if path is None:
        found = user_config_path() if user else None
        if found is None or not found.is_file():
            return Policy()
    else:
        found = Path(path)
    loaded = _load_file(found)
    return Policy() if loaded is None else loaded[0]


def load_project_config(root: str | os.PathLike[str]) -> tuple[Policy, frozenset[str]] | None:
    """The project's own settings (``<root>/pathgate.toml``, else ``[tool.pathgate]`` of
    ``<root>/pyproject.toml``): the decoded policy and the keys the file set, or ``None``.

    Raises :class:`~pathgate.errors.ConfigError` for a bad value and for any loosening key
    (:func:`project_violation`), naming the key, the file and where the setting belongs."""
    found = next((Path(root) / n for n in PROJECT_FILES if (Path(root) / n).is_file()), None)
    loaded = None if found is None else _load_file(found)
    if found is None or loaded is None:
        return None
    policy, raw, prefix = loaded
    keys = frozenset(raw)
    for key in sorted(keys):
        problem = project_violation(key, policy, raw)
        if problem is not None:
            at, reason = problem
            shown = f"{prefix}.{at}" if prefix else at
            raise ConfigError(
                f"{found}: `{shown}`: a project's own config may only tighten pathgate's guard, "
                f"and this setting loosens it: {reason}. It is not applied. A repository is "
                "untrusted input; if you, the host, want this setting, put it in a host config "
                f"instead: a file passed with --config, the user-level file {user_config_path()}, "
                "or Policy(...) in code (see README: Trust model).",
                key=at,
            )
    return policy, keys


def _dropped(given: Any, required: tuple[str, ...]) -> list[str]:
    have = set(given) if isinstance(given, (list, tuple)) else set()
    return [x for x in required if x not in have]


def project_violation(key: str, p: Policy, raw: Mapping[str, Any]) -> tuple[str, str] | None:
    """Why a project may not set ``key`` as its file does: ``(dotted key, reason)``, or
    ``None`` when the value only tightens (or restates the default).

    Loosening: ``allow_outside_root = true``; ``enforce_secrets = false``; a
    ``secret_patterns``, ``defaults`` or ``agent_files`` list that drops a built-in entry;
    ``ignore_mode = "discovery"`` (explicit reads of ignored files would succeed);
    ``size_limit``, ``read_budget`` or a ``model_size_limits`` limit above the built-in
    default; ``git_sources = false``; any non-default value of :data:`HOST_ONLY_KEYS`.
    """
    d = _DEFAULT
    if key in HOST_ONLY_KEYS:
        return None if getattr(p, key) == getattr(d, key) else (key, HOST_ONLY_KEYS[key])
    if key == "allow_outside_root" and p.allow_outside_root:
        return key, "allow_outside_root = true lets the agent read files outside the project"
    if key == "enforce_secrets" and not p.enforce_secrets:
        return key, "enforce_secrets = false switches the secrets gate off"
    if key == "ignore_mode" and p.ignore_mode == "discovery":
        return key, 'ignore_mode = "discovery" serves ignored files to explicit reads'
    if key == "strict_hard_links" and not p.strict_hard_links:
        return None  # restating the default
    if key == "git_sources" and not p.git_sources:
        return key, "git_sources = false drops .git/info/exclude and core.excludesFile"
    for name, default in (("secret_patterns", DEFAULT_SECRET_PATTERNS), ("defaults", DEFAULT_IGNORES),
                          ("agent_files", d.agent_files)):
        gone = _dropped(raw.get(name), default) if key == name else []
        if gone:
            shown = ", ".join(gone[:3]) + (", ..." if len(gone) > 3 else "")
            hint = "; add names with extra_secret_patterns" if name == "secret_patterns" else ""
            return key, f"it drops built-in entries ({shown}); a project may only add to {name}{hint}"
    if key in ("size_limit", "read_budget") and getattr(p, key) > getattr(d, key):
        return key, f"{key} = {getattr(p, key)} is above the default {getattr(d, key)}; a project may only lower it"
    if key == "model_size_limits":
        for i, rule in enumerate(p.model_size_limits):
            if rule.limit > d.size_limit:
                return (f"{key}[{i}].limit",
                        f"limit = {rule.limit} is above the default size limit {d.size_limit}")
    return None


def _min_limit(a: int | None, b: int | None) -> int | None:
    """The tighter of two optional limits (``None``: no limit of its own)."""
    if a is None or b is None:
        return a if b is None else b
    return min(a, b)


def merge_project(host: Policy, project: Policy, keys: frozenset[str] = frozenset(PROJECT_KEYS)) -> Policy:
    """``host`` tightened by the ``keys`` a project set (already checked by
    :func:`load_project_config`): secret patterns, ignore defaults and agent files are
    unions; ``size_limit`` and ``model_size_limits`` become ``size_caps`` (every matching cap
    lowers the limit); ``read_budget`` is the minimum; ``ignore_mode = "block"``,
    ``other_agent_files = true``, ``git_sources = true`` and ``strict_hard_links = true``
    win; ``write_size_limit`` is the minimum; renderer rules come after the
    host's, and the project's default renderer applies unless the host chose one."""
    def union(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(a + b))

    caps = host.size_caps + project.size_caps
    if "size_limit" in keys:
        caps += (SizeRule(model="*", limit=project.size_limit),)
    caps += project.model_size_limits
    return msgspec.structs.replace(
        host,
        secret_patterns=union(host.secret_patterns, project.secret_patterns),
        enforce_secrets=host.enforce_secrets or "enforce_secrets" in keys,
        allow_outside_root=host.allow_outside_root and "allow_outside_root" not in keys,
        ignore_mode="block" if "ignore_mode" in keys else host.ignore_mode,
        size_caps=tuple(dict.fromkeys(caps)),
        read_budget=min(host.read_budget, project.read_budget),
        agent_files=union(host.agent_files, project.agent_files),
        other_agent_files=host.other_agent_files or project.other_agent_files,
        defaults=union(host.defaults, project.defaults),
        git_sources=host.git_sources or "git_sources" in keys,
        renderers=host.renderers + project.renderers,
        strict_hard_links=host.strict_hard_links or project.strict_hard_links,
        write_size_limit=_min_limit(host.write_size_limit, project.write_size_limit),
        default_renderer=(host.default_renderer if host.default_renderer != _DEFAULT.default_renderer
                          else project.default_renderer),
    )


def load_config(
    root: str | os.PathLike[str],
    path: str | os.PathLike[str] | None = None,
    *,
    host: Policy | None = None,
) -> Policy:
    """The policy for the project at ``root``: the host's policy tightened by the project's.

    The host's policy is ``host`` if given, else the TOML file at ``path`` (the host names
    it; every key allowed), else the default :class:`Policy` (this function never reads the
    user-level file: the CLI and ``pathgate mcp`` do, via :func:`load_host_config`). Then
    the project's own ``pathgate.toml`` / ``[tool.pathgate]`` is merged in, tightening only
    (:func:`merge_project`); a loosening key there raises
    :class:`~pathgate.errors.ConfigError` naming it (:func:`load_project_config`).
    """
    base = host if host is not None else load_host_config(path, user=False)
    project = load_project_config(root)
    return base if project is None else merge_project(base, *project)


#: Checks run on every policy :func:`load_config` loads, as ``check(policy, source,
#: prefix)``. The renderers package registers the renderer-name check here when it is
#: imported (``import pathgate`` does), so this module needs no import of a higher layer.
POLICY_CHECKS: list[Callable[[Policy, str, str], None]] = []


def _check_policy(policy: Policy, source: str, prefix: str) -> None:
    for check in POLICY_CHECKS:
        check(policy, source, prefix)
