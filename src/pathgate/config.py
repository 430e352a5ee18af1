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
    read_budget = 100000                      # characters per read_files / code_search call
    search_seconds = 10.0                     # seconds of searching per code_search call
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

import errno
import os
import stat
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from pathgate._policy import (
    DEFAULT_SECRET_PATTERNS,
    OTHER_AGENT_FILES,
    HostFilter,
    Policy,
    RendererRule,
    SizeRule,
    policy_from_mapping,
)
from pathgate.errors import ConfigError
from pathgate.runtime.ignore import DEFAULT_IGNORES

if TYPE_CHECKING:  # pathlib (with urllib.parse, ipaddress) loads only when a config file exists
    from pathlib import Path

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
    "project_secret_patterns",
    "user_config_path",
]

# --- files: host and project ------------------------------------------------------------

#: The project's own config files, in the order they are looked for (the first found wins).
PROJECT_FILES: tuple[str, ...] = ("pathgate.toml", "pyproject.toml")

_DEFAULT = Policy()

#: Keys a project's own files may set: each can only tighten (see :func:`project_violation`
#: for the values refused, and :func:`merge_project` for how they combine with the host's).
PROJECT_KEYS: tuple[str, ...] = (
    "extra_secret_patterns", "secret_patterns", "enforce_secrets", "allow_outside_root",
    "ignore_mode", "size_limit", "model_size_limits", "size_caps", "read_budget",
    "search_seconds", "agent_files", "other_agent_files", "defaults", "git_sources", "renderers",
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


def user_config_path() -> "Path":
    """The user-level host config: ``$XDG_CONFIG_HOME/pathgate/config.toml``, else
    ``~/.config/pathgate/config.toml`` (a relative ``XDG_CONFIG_HOME`` is ignored, as the XDG
    spec says)."""
    from pathlib import Path

    return Path(_user_config_file())


def _user_config_file() -> str:
    """:func:`user_config_path` as a string (no pathlib: start-up of every command)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    if base and os.path.isabs(base):
        return os.path.join(base, "pathgate", "config.toml")
    home = os.path.expanduser("~")
    if home.startswith("~"):  # as Path.home(): never a relative "~/..." (the cwd may be the project)
        raise RuntimeError("Could not determine home directory.")
    return os.path.join(home, ".config", "pathgate", "config.toml")


def _is_file(path: str) -> bool:
    """``Path(path).is_file()`` without pathlib: ``False`` when nothing is there, and a stat
    error other than "not there" (``EACCES``...) raised, as pathlib does."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            raise
        return False
    except ValueError:
        return False


#: Largest settings file read (a repository is untrusted input: a huge ``pyproject.toml``
#: must not make every start read it whole).
MAX_CONFIG_FILE_BYTES = 4 << 20


def _read_bounded(path: str) -> bytes:
    """The bytes of the host's regular file at ``path`` (a link followed), opened with
    ``O_NONBLOCK`` so a FIFO swapped in after :func:`_is_file` never blocks the start, its
    type checked on the descriptor; ``EFBIG`` past :data:`MAX_CONFIG_FILE_BYTES`
    (:func:`~pathgate.runtime.fs.read_regular`)."""
    from pathgate.runtime.fs import read_regular

    return read_regular(path, MAX_CONFIG_FILE_BYTES, follow=True)


def _read_toml(found: "Path", raw: bytes | None = None) -> tuple[Any, str] | None:
    """The settings table of ``found`` and its key prefix; ``None`` for a ``pyproject.toml``
    without ``[tool.pathgate]``. ``raw``: its bytes, already read (a project's file, by
    :func:`_project_file`); ``None``: read here, a link followed (the host's file)."""
    if raw is None:
        try:
            raw = _read_bounded(str(found))
        except OSError as exc:
            raise ConfigError(f"{found}: cannot read: {exc.strerror or exc}") from None
    if found.name == "pyproject.toml" and b"pathgate" not in raw and b"\\u" not in raw and b"\\U" not in raw:
        return None  # no [tool.pathgate] table, however quoted (escapes aside): nothing to parse
    import tomllib  # loads only when there is a table to read (start-up of `pathgate hook`)

    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ConfigError(f"{found}: invalid TOML: {exc}") from None
    if found.name != "pyproject.toml":
        return doc, ""
    tool = doc.get("tool", {})
    section = tool.get("pathgate") if isinstance(tool, dict) else None
    return None if section is None else (section, "tool.pathgate")


def _load_file(found: "Path", raw: bytes | None = None, *, project: bool = False
               ) -> tuple[Policy, Mapping[str, Any], str] | None:
    """The policy a file sets, its settings table and the table's key prefix (``raw``: as
    :func:`_read_toml`; ``project``: the project's own file, its lists bounded first:
    :func:`_check_project_bounds`)."""
    table = _read_toml(found, raw)
    if table is None:
        return None
    doc, prefix = table
    if project:
        _check_project_bounds(doc, str(found), prefix)
    policy = policy_from_mapping(doc, source=str(found), prefix=prefix)
    _check_policy(policy, str(found), prefix)
    return policy, doc, prefix


def load_host_config(path: str | os.PathLike[str] | None = None, *, user: bool = True) -> Policy:
    """The host's policy: the TOML file at ``path`` (a ``pyproject.toml`` is read at
    ``[tool.pathgate]``), else the user-level file (:func:`user_config_path`) when ``user``
    and it exists, else the default :class:`Policy`. Every key is allowed here."""
    if path is None:
        user_file = _user_config_file() if user else None
        if user_file is None or not _is_file(user_file):
            return Policy()
        path = user_file
    from pathlib import Path

    _HOST_FILES.add(os.path.abspath(os.fspath(path)))
    loaded = _load_file(Path(path))
    return Policy() if loaded is None else loaded[0]


#: Host config files this process loaded (``--config FILE``, the user-level file): never
#: writable by an agent, wherever they are (:func:`_host_config_files`).
_HOST_FILES: set[str] = set()


def _host_config_files() -> tuple[str, ...]:
    """The host's config files an agent may never write: the user-level file (whether it
    exists or not: creating it would configure the host) and every file
    :func:`load_host_config` loaded in this process."""
    try:
        user: tuple[str, ...] = (_user_config_file(),)
    except RuntimeError:
        user = ()
    return (*user, *sorted(_HOST_FILES))


def load_project_config(root: str | os.PathLike[str]) -> tuple[Policy, frozenset[str]] | None:
    """The project's own settings (``<root>/pathgate.toml``, else ``[tool.pathgate]`` of
    ``<root>/pyproject.toml``): the decoded policy and the keys the file set, or ``None``.

    Raises :class:`~pathgate.errors.ConfigError` for a bad value and for any loosening key
    (:func:`project_violation`), naming the key, the file and where the setting belongs."""
    picked = _project_file(os.fspath(root))
    if picked is None:
        return None
    from pathlib import Path

    name, data = picked
    last = _LAST_PROJECT
    if last is not None and last[0] == name and last[1] == data and last[3] == tuple(POLICY_CHECKS):
        return last[2]  # the same bytes at the same place, the same checks: the same answer (asked twice a start)
    found = Path(name)
    loaded = _load_file(found, data, project=True)
    if loaded is None:
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
    globals()["_LAST_PROJECT"] = (name, data, (policy, keys), tuple(POLICY_CHECKS))
    return policy, keys


#: The last project file :func:`load_project_config` accepted: ``(path, bytes, answer, the
#: checks it passed)`` (a policy is immutable; the bytes are read again each time and must be
#: equal).
_LAST_PROJECT: tuple[str, bytes, tuple[Policy, frozenset[str]], tuple[Callable[[Policy, str, str], None], ...]] \
    | None = None


def _project_file(root: str) -> tuple[str, bytes] | None:
    """The project's settings file (the first of :data:`PROJECT_FILES` that is a regular file
    or a link) as ``(its path, its bytes)``, or ``None``.

    A repository is untrusted input, and what a settings error says reaches the model (a
    hook's refusal): the bytes are read only from a regular file with one link, never
    through a symbolic link, checked on the descriptor they are read from (the same inode
    the ``lstat`` saw: a link or another name renamed over it meanwhile is refused). A link,
    or a hard-linked file (it may be a secret's other name: ``.env``, the host's own
    secrets), is a :class:`~pathgate.errors.ConfigError` that names only the file, the same
    whatever it leads to, and nothing of it is read; such a ``pyproject.toml``, a file of
    many tools, counts as absent instead."""
    for n in PROJECT_FILES:
        path = os.path.join(root, n)
        try:
            st = os.lstat(path)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
            continue
        except ValueError:
            continue
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue
        raw = _read_single(path, st) if stat.S_ISREG(st.st_mode) and st.st_nlink == 1 else None
        if raw is not None:
            return path, raw
        if n == "pyproject.toml":
            return None
        raise ConfigError(
            f"{path}: a project's settings are read only from a regular file with no other link; "
            "this one is a link (symbolic or hard) and was not read. Make it a plain file, or give "
            "the settings in a host config (--config).")
    return None


def _read_single(path: str, seen: os.stat_result) -> bytes | None:
    """The bytes of ``path``, opened without following a link and without waiting on a
    FIFO, when the descriptor is still the single-link regular file ``seen`` (an ``lstat``);
    ``None`` when it is not. Raises :class:`~pathgate.errors.ConfigError` when it cannot be
    read or holds more than :data:`MAX_CONFIG_FILE_BYTES`."""
    from pathgate.runtime.fs import read_regular

    try:
        return read_regular(path, MAX_CONFIG_FILE_BYTES, same=seen)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ESTALE, errno.EINVAL, errno.EISDIR):  # swapped since the lstat
            return None
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


#: Entries a project's own file may give in one list (``extra_secret_patterns``,
#: ``secret_patterns``, ``agent_files``, ``defaults``, ``renderers.rules``,
#: ``model_size_limits``, ``size_caps``), built-in entries restated included, and characters
#: in one entry (a pattern, a file name, a rule's ``model`` or ``renderer``). Each list costs
#: every runtime start and hook call (the secret patterns are compiled, every name is judged
#: against them): 20,000 patterns made each hook call take 14-22 s (red team 22 H2). The
#: built-in lists hold a few dozen entries of at most 25 characters, and a project's real
#: additions are a handful, so 1,024 entries of 256 characters is far above any real use and
#: keeps a start within a few milliseconds of the default. Past either, the project's file is
#: refused (:class:`~pathgate.errors.ConfigError` naming the key and the file, as a loosening
#: key is): never applied in part. The host may set longer lists (code, ``--config``).
MAX_PROJECT_ENTRIES = 1024
MAX_PROJECT_ENTRY_CHARS = 256
#: ``agent_files`` is bounded lower: each name is looked up in every directory a path
#: passes through (the built-in and the known ones of other agents are 8 names).
MAX_PROJECT_AGENT_FILES = 64

#: The lists :data:`MAX_PROJECT_ENTRIES` bounds, as ``(key, the field of each entry that is
#: text, or None: the entry is the text)``.
_BOUNDED_LISTS: tuple[tuple[str, str | None], ...] = (
    ("extra_secret_patterns", None), ("secret_patterns", None), ("agent_files", None),
    ("defaults", None), ("model_size_limits", "model"), ("size_caps", "model"),
)


def _check_project_bounds(doc: Any, source: str, prefix: str) -> None:
    """Refuse a project's settings table whose lists are longer than
    :data:`MAX_PROJECT_ENTRIES` or hold an entry longer than :data:`MAX_PROJECT_ENTRY_CHARS`
    characters (before anything is decoded or compiled); values of the wrong type are left
    to the decoding, which refuses them."""
    if not isinstance(doc, dict):
        return
    lists: list[tuple[str, Any, tuple[str, ...]]] = [(k, doc.get(k), (f,) if f else ()) for k, f in _BOUNDED_LISTS]
    section = doc.get("renderers")
    if isinstance(section, dict):
        lists.append(("renderers.rules", section.get("rules"), ("model", "renderer")))
    for key, value, fields in lists:
        if not isinstance(value, list):
            continue
        shown = f"{prefix}.{key}" if prefix else key
        most = MAX_PROJECT_AGENT_FILES if key == "agent_files" else MAX_PROJECT_ENTRIES
        if len(value) > most:
            raise ConfigError(
                f"{source}: `{shown}`: {len(value):,} entries; a project's own config may give at most "
                f"{most:,} (each costs every start and hook call). The file is not "
                "applied. If you, the host, need more, put them in a host config instead: a file "
                "passed with --config, the user-level file, or Policy(...) in code (see README: "
                "Trust model).", key=key)
        for i, item in enumerate(value):
            texts = [item] if not fields else [item.get(f) for f in fields] if isinstance(item, dict) else []
            for text in texts:
                if isinstance(text, str) and len(text) > MAX_PROJECT_ENTRY_CHARS:
                    raise ConfigError(
                        f"{source}: `{shown}[{i}]`: {len(text):,} characters; a project's own config "
                        f"may give at most {MAX_PROJECT_ENTRY_CHARS} per entry. The file is not applied "
                        "(a host config may: --config, the user-level file, Policy(...) in code).",
                        key=f"{key}[{i}]")


def _dropped(given: Any, required: tuple[str, ...]) -> list[str]:
    have = set(given) if isinstance(given, (list, tuple)) else set()
    return [x for x in required if x not in have]


def project_violation(key: str, p: Policy, raw: Mapping[str, Any]) -> tuple[str, str] | None:
    """Why a project may not set ``key`` as its file does: ``(dotted key, reason)``, or
    ``None`` when the value only tightens (or restates the default).

    Loosening: ``allow_outside_root = true``; ``enforce_secrets = false``; a
    ``secret_patterns``, ``defaults`` or ``agent_files`` list that drops a built-in entry;
    ``ignore_mode = "discovery"`` (explicit reads of ignored files would succeed);
    ``size_limit``, ``read_budget``, ``search_seconds`` or a ``model_size_limits`` limit
    above the built-in default; ``git_sources = false``; any non-default value of :data:`HOST_ONLY_KEYS`.
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
    if key == "git_sources" and not p.git_sources:
        return key, "git_sources = false drops .git/info/exclude and core.excludesFile"
    for name, default in (("secret_patterns", DEFAULT_SECRET_PATTERNS), ("defaults", DEFAULT_IGNORES),
                          ("agent_files", d.agent_files)):
        gone = _dropped(raw.get(name), default) if key == name else []
        if gone:
            shown = ", ".join(gone[:3]) + (", ..." if len(gone) > 3 else "")
            hint = "; add names with extra_secret_patterns" if name == "secret_patterns" else ""
            return key, f"it drops built-in entries ({shown}); a project may only add to {name}{hint}"
    if key in ("size_limit", "read_budget", "search_seconds") and getattr(p, key) > getattr(d, key):
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
    lowers the limit); ``read_budget`` and ``search_seconds`` are the minimum; ``ignore_mode = "block"``,
    ``other_agent_files = true``, ``git_sources = true`` and ``strict_hard_links = true``
    win; ``write_size_limit`` is the minimum; renderer rules come after the
    host's, and the project's default renderer applies unless the host chose one."""
    def union(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(a + b))

    caps = host.size_caps + project.size_caps
    if "size_limit" in keys:
        caps += (SizeRule(model="*", limit=project.size_limit),)
    caps += project.model_size_limits
    merged = msgspec.structs.replace(
        host,
        secret_patterns=union(host.secret_patterns, project.secret_patterns),
        enforce_secrets=host.enforce_secrets or "enforce_secrets" in keys,
        allow_outside_root=host.allow_outside_root and "allow_outside_root" not in keys,
        ignore_mode="block" if "ignore_mode" in keys else host.ignore_mode,
        size_caps=tuple(dict.fromkeys(caps)),
        read_budget=min(host.read_budget, project.read_budget),
        search_seconds=min(host.search_seconds, project.search_seconds),
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
    return merged


def project_secret_patterns(root: str | os.PathLike[str]) -> tuple[str, ...]:
    """The secret patterns the project's own file at ``root`` declares beyond the built-in
    list (``()``: none, no file, or a file :func:`load_project_config` refuses). They tighten
    what the agent may read and nothing else: an ignore source they name is still read as
    rules — a repository naming the user's ``.git/info/exclude`` or ``core.excludesFile`` a
    "secret" would otherwise switch it off (ignore sources that are secrets count as
    absent). Read from the file itself, so it holds however the policy was copied."""
    try:
        got = load_project_config(root)
    except ConfigError:
        return ()
    if got is None:
        return ()
    return tuple(p for p in got[0].secret_patterns if p not in DEFAULT_SECRET_PATTERNS)


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
