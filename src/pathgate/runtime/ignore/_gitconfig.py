"""A minimal git config reader: just what the ignore engine needs.

git finds ``core.excludesFile`` and ``core.ignoreCase`` in its config files, read in this
order (a later value wins):

1. the system file ``$GIT_CONFIG_SYSTEM`` or ``/etc/gitconfig`` (skipped when
   ``GIT_CONFIG_NOSYSTEM`` is true);
2. the global files: ``$GIT_CONFIG_GLOBAL`` alone when it is set, otherwise
   ``$XDG_CONFIG_HOME/git/config`` (or ``~/.config/git/config``) then ``~/.gitconfig``;
3. the repository's ``config`` in its (common) git directory.

When ``core.excludesFile`` is not set anywhere, git uses ``$XDG_CONFIG_HOME/git/ignore``
or ``~/.config/git/ignore``. Path values get ``~`` expansion like ``git_config_pathname``.

``.git`` may be a directory or a file (``gitdir: <path>``, used by worktrees and
submodules); a worktree's git directory may name its common directory in ``commondir``.

Not supported (documented gaps): ``[include]``/``[includeIf]``, ``GIT_CONFIG_PARAMETERS``
(``git -c``), ``GIT_DIR``/``GIT_WORK_TREE``.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Mapping

from pathgate.runtime.fs import MAX_CONFIG_BYTES, read_regular

__all__ = ["GitLayout", "config_files", "find_git_layout", "parse_bool", "read_config"]


class GitLayout:
    """Where a work tree's git directory lives.

    ``git_dir`` is the directory holding ``HEAD`` (``<root>/.git`` or the target of a
    ``.git`` file); ``common_dir`` holds ``config`` and ``info/exclude``.
    ``info_exclude_display`` is how git prints ``info/exclude`` in ``check-ignore -v``.
    """

    __slots__ = ("common_dir", "git_dir", "info_exclude", "info_exclude_display")

    def __init__(self, git_dir: str, common_dir: str, info_exclude_display: str) -> None:
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.info_exclude = os.path.join(common_dir, "info", "exclude")
        self.info_exclude_display = info_exclude_display


def find_git_layout(root: str) -> GitLayout | None:
    """The git directory of the work tree at ``root``, or ``None`` when there is none."""
    dotgit = os.path.join(root, ".git")
    try:
        st = os.lstat(dotgit)
    except OSError:
        return None
    import stat as _stat

    if _stat.S_ISDIR(st.st_mode):
        return GitLayout(dotgit, dotgit, ".git/info/exclude")
    if not _stat.S_ISREG(st.st_mode):
        return None
    try:
        text = read_regular(dotgit, MAX_CONFIG_BYTES).decode("utf-8", "surrogateescape")
    except OSError:
        return None
    first = text.splitlines()[0] if text else ""
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    git_dir = target if os.path.isabs(target) else os.path.normpath(os.path.join(root, target))
    common = git_dir
    try:
        c = read_regular(os.path.join(git_dir, "commondir"), MAX_CONFIG_BYTES,
                         follow=True).decode("utf-8", "surrogateescape").strip()
        if c:
            common = c if os.path.isabs(c) else os.path.normpath(os.path.join(git_dir, c))
    except OSError:
        pass
    exclude = os.path.join(common, "info", "exclude")
    return GitLayout(git_dir, common, exclude)


def parse_bool(value: str | None) -> bool | None:
    """git's boolean: a key without ``=`` is true; ``yes/on/true/1`` and ``no/off/false/0``."""
    if value is None:
        return True
    v = value.strip().lower()
    if v in ("true", "yes", "on", "1"):
        return True
    if v in ("false", "no", "off", "0", ""):
        return False
    try:
        return int(v, 0) != 0
    except ValueError:
        return None


def expand_path(value: str) -> str:
    """``git_config_pathname``: expand a leading ``~`` or ``~user``."""
    if value.startswith("~"):
        return os.path.expanduser(value)
    return value


def config_files(layout: GitLayout | None, env: Mapping[str, str] | None = None) -> list[str]:
    """The config files git reads, lowest precedence first (existing or not)."""
    env = os.environ if env is None else env
    files: list[str] = []
    if parse_bool(env.get("GIT_CONFIG_NOSYSTEM", "false")) is not True:
        files.append(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")
    if "GIT_CONFIG_GLOBAL" in env:
        if env["GIT_CONFIG_GLOBAL"]:
            files.append(env["GIT_CONFIG_GLOBAL"])
    else:
        home = env.get("HOME", "")
        xdg = env.get("XDG_CONFIG_HOME")
        if xdg:
            files.append(os.path.join(xdg, "git", "config"))
        elif home:
            files.append(os.path.join(home, ".config", "git", "config"))
        if home:
            files.append(os.path.join(home, ".gitconfig"))
    if layout is not None:
        files.append(os.path.join(layout.common_dir, "config"))
    return files


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


def _parse_value(raw: str) -> str:
    out: list[str] = []
    quoted = False
    i = 0
    n = len(raw)
    pending_space = ""
    while i < n:
        c = raw[i]
        if c == '"':
            quoted = not quoted
            out.append(pending_space)
            pending_space = ""
        elif c == "\\" and i + 1 < n:
            i += 1
            e = raw[i]
            out.append(pending_space)
            pending_space = ""
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(e, e))
        elif not quoted and c in "#;":
            break
        elif not quoted and c in " \t":
            if out or pending_space:
                pending_space += c
        else:
            out.append(pending_space)
            pending_space = ""
            out.append(c)
        i += 1
    return "".join(out)


def read_config(paths: Iterable[str], errors: list[tuple[str, int]] | None = None
                ) -> dict[str, str | None]:
    """Merge ``section.key`` (lower-cased; subsections kept as ``section.sub.key``) from
    the files, later files winning. Missing files are skipped; each file is read as a
    bounded regular file (symlinks followed, like git; at most
    :data:`~pathgate.runtime.fs.MAX_CONFIG_BYTES`); a special file (``/dev/null``, a FIFO,
    ``/dev/zero``) is never read and counts as empty. A file that exists but cannot be read
    (too large: ``EFBIG``; ``EACCES`` …) is skipped and appended to ``errors`` as
    ``(path, errno)``: its settings are unknown (callers fail closed)."""
    values: dict[str, str | None] = {}
    for path in paths:
        try:
            text = read_regular(os.path.expanduser(path), MAX_CONFIG_BYTES, follow=True
                                ).decode("utf-8", "surrogateescape")
        except OSError as exc:
            # missing, a directory, or a special file (``/dev/null``; a FIFO is never
            # opened for blocking reads): no settings, like an empty file
            if errors is not None and exc.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EISDIR,
                                                        errno.EINVAL):
                errors.append((path, exc.errno or errno.EIO))
            continue
        section = ""
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1] + lines[i]
            i += 1
            s = line.strip()
            if not s or s[0] in "#;":
                continue
            if s.startswith("["):
                end = s.find("]")
                if end < 0:
                    continue
                head = s[1:end].strip()
                if '"' in head:
                    name, _, sub = head.partition('"')
                    section = name.strip().lower() + "." + sub.rstrip('"')
                else:
                    section = head.lower()
                s = s[end + 1:].strip()
                if not s:
                    continue
            key, eq, rest = s.partition("=")
            key = key.strip().lower()
            values[f"{section}.{key}"] = _parse_value(rest) if eq else None
    return values
