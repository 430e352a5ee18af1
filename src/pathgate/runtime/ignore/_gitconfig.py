"""git's repository layout and configuration, as far as the ignore engine needs them.

Layout (``setup.c``): ``<root>/.git`` is a git directory (a symlink to one is followed) or
a *gitfile* ``gitdir: <path>`` — read as strictly as git: exactly ``gitdir: `` then the
path, trailing CR/LF stripped, the target must be a git directory (``objects/``, ``refs/``
and a valid ``HEAD``). A worktree's git directory names its common directory in
``commondir``. Through a gitfile, git shows the real (symlink-free) path of the git
directory in ``check-ignore -v`` labels; for a ``.git`` directory, ``.git/info/exclude``.

Configuration (``config.c``), lowest precedence first: the system file
(``$GIT_CONFIG_SYSTEM`` or ``/etc/gitconfig``, skipped when ``GIT_CONFIG_NOSYSTEM``), the
global files (``$GIT_CONFIG_GLOBAL`` alone, else ``$XDG_CONFIG_HOME/git/config`` or
``~/.config/git/config``, then ``~/.gitconfig``), the repository's ``config``, its
``config.worktree`` when ``extensions.worktreeConfig`` is on, then ``git -c`` values from
the environment (``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_COUNT``/``_KEY_n``/``_VALUE_n``).
``[include] path`` and ``[includeIf "gitdir:…"]`` / ``"gitdir/i:…"`` / ``"onbranch:…"``
are followed, and ``"hasconfig:remote.*.url:…"`` (:mod:`._gitconfig_load`).

Errors git dies on raise :class:`GitFatal` with git's message: a malformed gitfile, a bad
config line, a bare ``core.excludesFile``, a non-boolean ``core.ignoreCase`` or
``core.quotePath``, a config file that exists but cannot be read, and an exclude file
(``core.excludesFile``, ``info/exclude``) that is a directory. ``core.excludesFile =``
(empty) means no excludes file, as in git.
"""

from __future__ import annotations

import errno
import os
import re
import stat as _stat
from collections.abc import Callable, Mapping

from pathgate.runtime.fs import MAX_CONFIG_BYTES, read_regular
from pathgate.runtime.ignore._gitconfig_parse import (
    ConfigEntry,
    GitFatal,
)

__all__ = ["ConfigEntry", "GitFatal", "GitLayout", "GitSettings", "discover", "find_git_layout",
           "parse_bool", "read_gitfile", "resolve"]

_MAX_INCLUDE_DEPTH = 10


def warn(message: str, *args: object) -> None:
    """Log on ``pathgate.git`` (a configuration the runtime fails closed on); ``logging``
    loads here, not at import (a hook's start-up)."""
    import logging

    logging.getLogger("pathgate.git").warning(message, *args)


_access = os.access  # a seam: as root, access() grants everything
_BOOL_KEYS = frozenset({"core.ignorecase", "core.quotepath", "core.filemode", "core.trustctime",
                        "core.symlinks"})
_PATH_KEYS = frozenset({"core.excludesfile", "core.attributesfile", "core.hookspath"})
_ENV_KEYS = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
             "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
#: The variables :func:`env_key` always reads (``GIT_CONFIG_KEY_n``/``_VALUE_n`` as well when
#: ``GIT_CONFIG_COUNT`` is set).
ENV_KEYS = _ENV_KEYS


class GitLayout:
    """Where a work tree's git directory lives.

    ``git_dir`` holds ``HEAD``; ``common_dir`` holds ``config`` and ``info/exclude``;
    ``display`` is how git names ``git_dir``/``common_dir`` in messages and labels
    (``.git`` for a ``.git`` directory, the real path through a gitfile).
    """

    __slots__ = ("common_dir", "common_display", "git_dir", "git_display", "info_exclude",
                 "info_exclude_display")

    def __init__(self, git_dir: str, common_dir: str, git_display: str,
                 common_display: str) -> None:
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.git_display = git_display
        self.common_display = common_display
        self.info_exclude = os.path.join(common_dir, "info", "exclude")
        self.info_exclude_display = common_display + "/info/exclude"


class GitSettings:
    """What the ignore engine takes from git: the excludes file (``None``: none) and how
    git labels it, ``info/exclude`` (``None`` outside a repository), case folding and
    ``core.quotePath``. ``watched`` lists every file whose change can change these."""

    __slots__ = (
        "config",
        "errors",
        "excludes_display",
        "excludes_file",
        "hooks",
        "ignore_case",
        "info_exclude",
        "info_exclude_display",
        "layout",
        "quote_path",
        "steering",
        "top",
        "watched",
    )

    def __init__(self) -> None:
        self.layout: GitLayout | None = None
        self.excludes_file: str | None = None
        self.excludes_display = ""
        self.info_exclude: str | None = None
        self.info_exclude_display = ""
        self.ignore_case = False
        self.quote_path = True
        self.watched: list[str] = []
        #: what else the configuration points git at that runs or steers it: ``core.hooksPath``
        #: (a directory of scripts git runs) and ``core.attributesFile`` (absolute paths)
        self.steering: list[str] = []
        #: the directory git runs hooks from: ``core.hooksPath`` (absolute), else the
        #: repository's ``hooks/``; ``None`` without a repository
        self.hooks: str | None = None
        self.errors: list[str] = []  # git's non-fatal ``error:`` lines
        #: every ``(key, value)`` git reads, in order: what the configuration runs
        #: (:mod:`pathgate.runtime.tools._git_commands`) is never writable
        self.config: tuple[tuple[str, str | None], ...] = ()
        #: the top of the work tree when the root lies below it (:mod:`._upper`), else ``None``
        self.top: str | None = None


# ---------------------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------------------

_HEX40 = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?\n?\Z")


def _read_small(path: str) -> bytes:
    """A bounded read (:func:`~pathgate.runtime.fs.read_regular`, symlinks followed like
    git, at most :data:`~pathgate.runtime.fs.MAX_CONFIG_BYTES`: ``EFBIG`` beyond) of a
    regular file. A character device such as ``/dev/null`` is never read and counts as
    empty; a FIFO or a socket raises ``EINVAL`` (git would block on a FIFO: pathgate
    refuses it, so the runtime never hangs); a directory raises ``EISDIR``."""
    try:
        return read_regular(path, MAX_CONFIG_BYTES, follow=True)
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
        try:
            is_device = _stat.S_ISCHR(os.stat(path).st_mode)
        except OSError:
            is_device = False
        if is_device:
            return b""
        raise


#: ``absent(path)`` true: the file at ``path`` is read as missing (a secret, or a link to one:
#: :mod:`._secret_sources`); ``None``: every file is read as git reads it.
Absent = Callable[[str], bool] | None


def _gone(path: str, absent: Absent) -> bool:
    return absent is not None and absent(path)


def is_git_directory(path: str, absent: Absent = None) -> bool:
    """git's ``is_git_directory``: a valid ``HEAD``, and ``objects/`` and ``refs/`` in the
    common directory (a worktree's git directory keeps them there). A ``HEAD`` or
    ``commondir`` that ``absent`` names is read as missing."""
    head = os.path.join(path, "HEAD")
    if _gone(head, absent) or not _valid_head(head):
        return False
    try:
        common = _common_dir(path, absent)
    except GitFatal:
        return False
    return (os.access(os.path.join(common, "objects"), os.X_OK)
            and os.access(os.path.join(common, "refs"), os.X_OK))


def _valid_head(head: str) -> bool:
    """git's ``validate_headref``."""
    try:
        if os.path.islink(head):
            return os.readlink(head).startswith("refs/")
        data = _read_small(head).decode("utf-8", "surrogateescape")
    except OSError:
        return False
    if data.startswith("ref:"):
        return data[4:].lstrip(" \t").startswith("refs/")
    return bool(_HEX40.match(data))


def read_gitfile(path: str, watched: list[str] | None = None, absent: Absent = None) -> str:
    """The real path of the git directory a gitfile names; :class:`GitFatal` like git.
    ``watched`` collects the target and its ``HEAD``/``commondir`` (so repairing the target
    is noticed even while it is not a git directory); the target's files ``absent`` names
    are read as missing."""
    try:
        data = _read_small(path).decode("utf-8", "surrogateescape")
    except OSError:
        raise GitFatal(f"fatal: error opening '{path}'", path) from None
    if not data.startswith("gitdir: "):
        raise GitFatal(f"fatal: invalid gitfile format: {path}", path)
    target = data[8:].rstrip("\r\n")
    if not target:
        raise GitFatal(f"fatal: no path in gitfile: {path}", path)
    if not target.startswith("/"):
        target = os.path.dirname(path) + "/" + target
    if watched is not None:
        watched += [target, os.path.join(target, "HEAD"), os.path.join(target, "commondir")]
    if not is_git_directory(target, absent):
        raise GitFatal(f"fatal: not a git repository: {target}", path)
    return os.path.realpath(target)


def _common_dir(git_dir: str, absent: Absent = None) -> str:
    path = os.path.join(git_dir, "commondir")
    if _gone(path, absent):  # (red team 18 J1: a commondir linked to .env decided the layout)
        return git_dir
    try:
        data = _read_small(path).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return git_dir
    except OSError:
        raise GitFatal(f"fatal: failed to read {path}", path) from None
    data = data.rstrip("\r\n")
    if not data:
        return git_dir
    return os.path.realpath(data if data.startswith("/") else git_dir + "/" + data)


def find_git_layout(root: str, watched: list[str] | None = None,
                    absent: Absent = None) -> GitLayout | None:
    """The git directory of the work tree at ``root`` (``None``: there is none).
    ``.git`` may be a directory, a symlink to one, or a gitfile (malformed: GitFatal);
    ``watched`` collects a gitfile's target (:func:`read_gitfile`). A ``.git`` (or its
    ``commondir``, a gitfile's target's ``HEAD``) that ``absent`` names is read as missing:
    ``.git -> .env`` was read as a gitfile, so every answer failed closed while the secret
    existed and none did without it (red team 18 J1)."""
    dotgit = os.path.join(root, ".git")
    try:
        st = os.stat(dotgit)
    except OSError:
        return None
    if _gone(dotgit, absent):
        return None
    if _stat.S_ISDIR(st.st_mode):
        common = _common_dir(dotgit, absent)
        return GitLayout(dotgit, common, ".git", ".git" if common == dotgit else common)
    if not _stat.S_ISREG(st.st_mode):
        return None
    git_dir = read_gitfile(dotgit, watched, absent)
    common = _common_dir(git_dir, absent)
    return GitLayout(git_dir, common, git_dir, common)


def discover(cwd: str, env: Mapping[str, str] | None = None) -> tuple[str, GitLayout]:
    """git's repository discovery from ``cwd`` (``GIT_DIR``/``GIT_WORK_TREE`` honoured):
    ``(top of the work tree, layout)``; :class:`GitFatal` outside any repository."""
    env = os.environ if env is None else env
    gd = env.get("GIT_DIR")
    if gd:
        full = gd if gd.startswith("/") else os.path.join(cwd, gd)
        if not is_git_directory(full):
            if os.path.isfile(full):
                full = read_gitfile(full)
            else:
                raise GitFatal(f"fatal: not a git repository: '{gd}'")
        wt = env.get("GIT_WORK_TREE")
        top = os.path.realpath(os.path.join(cwd, wt)) if wt else cwd
        common = _common_dir(full)
        shown = os.path.realpath(full)
        return top, GitLayout(full, common, shown, shown if common == full else common)
    d = cwd
    while True:
        dotgit = os.path.join(d, ".git")
        if os.path.isdir(dotgit) and is_git_directory(dotgit):
            break
        if os.path.isfile(dotgit):
            read_gitfile(dotgit)
            break
        if is_git_directory(d):  # a bare repository, or inside a git directory
            raise GitFatal("fatal: this operation must be run in a work tree")
        up = os.path.dirname(d)
        if up == d:
            raise GitFatal("fatal: not a git repository (or any of the parent directories): "
                           ".git")
        d = up
    layout = find_git_layout(d)
    assert layout is not None
    return d, layout


# ---------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------


def parse_bool(value: str | None) -> bool | None:
    """git's ``git_parse_maybe_bool``: a bare key is true, ``""`` false, ``true/yes/on``,
    ``false/no/off`` (any case), or an integer (C syntax, ``k``/``m``/``g`` units);
    ``None`` when it is none of these."""
    if value is None:
        return True
    v = value.lower()
    if v in ("true", "yes", "on"):
        return True
    if v in ("false", "no", "off", ""):
        return False
    m = re.fullmatch(r"[ \t\n\r\f\v]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgG]?)",
                     value)
    if m is None:
        return None
    digits = m.group(2)
    if digits[:2] in ("0x", "0X"):
        return int(digits, 16) != 0
    return int(digits, 8 if digits.startswith("0") else 10) != 0


def expand_path(value: str) -> str:
    """``git_config_pathname``: expand a leading ``~`` or ``~user``."""
    if value.startswith("~"):
        return os.path.expanduser(value)
    return value


def default_excludes_file(env: Mapping[str, str] | None = None) -> str | None:
    """git's default ``core.excludesFile``: ``$XDG_CONFIG_HOME/git/ignore`` or
    ``~/.config/git/ignore``."""
    env = os.environ if env is None else env
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", "ignore")
    home = env.get("HOME")
    if home:
        return os.path.join(home, ".config", "git", "ignore")
    return None


def config_files(layout: GitLayout | None, env: Mapping[str, str] | None = None
                 ) -> list[tuple[str, str, bool]]:
    """The config files git reads before the repository's worktree config, lowest
    precedence first: ``(path, how git names it, whether EACCES is fatal)``."""
    env = os.environ if env is None else env
    files: list[tuple[str, str, bool]] = []
    if parse_bool(env.get("GIT_CONFIG_NOSYSTEM", "false")) is not True:
        p = env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"
        files.append((p, p, True))
    if "GIT_CONFIG_GLOBAL" in env:
        if env["GIT_CONFIG_GLOBAL"]:
            files.append((env["GIT_CONFIG_GLOBAL"], env["GIT_CONFIG_GLOBAL"], False))
    else:
        home = env.get("HOME", "")
        xdg = env.get("XDG_CONFIG_HOME")
        if xdg:
            p = os.path.join(xdg, "git", "config")
            files.append((p, p, False))
        elif home:
            p = os.path.join(home, ".config", "git", "config")
            files.append((p, p, False))
        if home:
            p = os.path.join(home, ".gitconfig")
            files.append((p, p, False))
    if layout is not None:
        files.append((os.path.join(layout.common_dir, "config"),
                      layout.common_display + "/config", True))
    return files


def _validate(e: ConfigEntry) -> None:
    if e.key in _PATH_KEYS and e.value is None:
        where = (f"fatal: bad config variable '{e.key}' in file '{e.origin}' at line {e.line}"
                 if e.origin is not None else
                 f"fatal: unable to parse '{e.key}' from command-line config")
        raise GitFatal(f"error: missing value for '{e.key}'\n{where}", e.origin)
    if e.key in _BOOL_KEYS and parse_bool(e.value) is None:
        raise GitFatal(f"fatal: bad boolean config value '{e.value}' for '{e.key}'", e.origin)


def _exclude_file_check(path: str, shown: str) -> None:
    """git dies on an exclude file it may open but not read (a directory)."""
    if os.path.isdir(path):
        raise GitFatal(f"fatal: cannot use {shown} as an exclude file", shown)


def resolve(root: str, *, excludes_file: str | None = None, ignore_case: bool | None = None,
            env: Mapping[str, str] | None = None, layout: GitLayout | None = None,
            watched: list[str] | None = None, absent: Callable[[str], bool] | None = None) -> GitSettings:
    """Resolve the layout (unless given) and the configuration of the work tree at
    ``root``; ``excludes_file``/``ignore_case`` override the configuration (which is
    still validated, as git does). Raises :class:`GitFatal` where git exits 128.
    ``watched`` (filled even when it raises) collects the files looked at. ``absent(path)``
    true: the file at ``path`` is taken as absent (not set, not checked, but watched), as the
    runtime takes a secret (:mod:`._secret_sources`): an exclude file, a config file or
    include target, the ``.git`` and the layout's ``HEAD``/``commondir``."""
    env = os.environ if env is None else env
    s = GitSettings()
    if watched is not None:
        s.watched = watched
    s.watched.append(os.path.join(root, ".git"))
    if layout is None:
        layout = find_git_layout(root, s.watched, absent)
    s.layout = layout
    if layout is not None:
        s.watched += [layout.git_dir, os.path.join(layout.git_dir, "commondir")]
    from pathgate.runtime.ignore._gitconfig_load import load_config

    entries, s.errors = load_config(layout, env, s.watched, absent)
    s.config = tuple((e.key, e.value) for e in entries)
    last: dict[str, str | None] = {}
    for e in entries:
        _validate(e)
        last[e.key] = e.value
    s.ignore_case = bool(parse_bool(last.get("core.ignorecase", "false"))) \
        if ignore_case is None else ignore_case
    s.quote_path = bool(parse_bool(last.get("core.quotepath", "true")))
    if excludes_file is not None:
        excl: str | None = expand_path(excludes_file)
    elif "core.excludesfile" in last:
        excl = expand_path(last["core.excludesfile"] or "")
    else:
        excl = default_excludes_file(env)
    if excl:
        path = excl if excl.startswith("/") else os.path.join(root, excl)
        if absent is not None and absent(path):
            s.watched.append(path)
        else:
            s.excludes_display = excl
            s.excludes_file = path
            s.watched.append(path)  # (a directory there is fatal: fixing it must be noticed)
            _exclude_file_check(s.excludes_file, excl)
    for key in ("core.hookspath", "core.attributesfile"):
        value = expand_path(last.get(key) or "")
        if value:
            s.steering.append(value if value.startswith("/") else os.path.join(root, value))
            if key == "core.hookspath":
                s.hooks = s.steering[-1]
    if s.hooks is None and layout is not None:
        s.hooks = os.path.join(layout.common_dir, "hooks")
    if layout is not None:
        if absent is not None and absent(layout.info_exclude):
            s.watched.append(layout.info_exclude)
        else:
            s.info_exclude = layout.info_exclude
            s.info_exclude_display = layout.info_exclude_display
            s.watched.append(layout.info_exclude)
            _exclude_file_check(layout.info_exclude, layout.info_exclude_display)
    return s


def env_key(env: Mapping[str, str] | None = None) -> tuple[str | None, ...]:
    """The environment variables the configuration depends on (a cache key part)."""
    env = os.environ if env is None else env
    count = env.get("GIT_CONFIG_COUNT") or ""
    extra = [k for k in env if k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))] \
        if count else []
    return tuple(env.get(k) for k in (*_ENV_KEYS, *sorted(extra)))
