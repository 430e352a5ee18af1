"""Reading a file the write guard decides from, never through a link (for the write guard).

The guard reads the files that decide what agents or git run — an agent CLI's settings, a
git hook script, a runner's manifest — and makes what they name unwritable. Read through a
link to a secret (``.claude/settings.json`` → ``.env``, a hook hard-linked to a key file) or
to a host-filtered file, whether a path is writable would tell the agent something of the
secret's content (a one-bit oracle per write). So, as for the project's ``pathgate.toml``
(:func:`pathgate.config._project_file`), such a file is read only when it is a regular file
with one link, reached without a symbolic link inside the project:

* a path inside the root is opened component by component from the root, none of them
  followed (``O_NOFOLLOW``), and read from the descriptor only when it is still the
  single-link regular file its ``lstat`` saw (:func:`~pathgate.runtime.fs.read_regular`
  with ``same``);
* a path outside the root (a worktree's common ``hooks/``, a ``core.hooksPath`` in the
  home) is followed as git follows it, unless its real path lies inside the root or the
  file has other links.

Anything else raises :class:`Linked`, whatever the link leads to (a secret, a plain file,
nothing): the caller gives the answer it gives for a file it cannot check, the same in
every case, so no answer depends on what a link leads to. Standard library and the bounded
reader of :mod:`pathgate.runtime.fs` only.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["Linked", "read_unlinked", "unlinked_signature"]


class Linked(Exception):
    """The file is a symbolic link, is reached through one inside the project, or shares its
    inode with another name: it is not read."""


#: ``errno`` values of an open or read that met a link (``ELOOP``: a symbolic link under
#: ``O_NOFOLLOW``; ``ESTALE``: not the single-link file the ``lstat`` saw).
_LINK_ERRORS = (errno.ELOOP, errno.ESTALE, errno.EMLINK)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _inside(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` when it lies below it as written, else ``None``."""
    inside = root.rstrip("/") + "/"
    if not path.startswith(inside):
        return None
    rel = os.path.normpath(path[len(inside):])
    return None if rel in (".", "") or rel == ".." or rel.startswith("../") else rel


def read_unlinked(path: str, root: str, cap: int) -> bytes:
    """The bytes of the file at the absolute ``path`` (``root``: the project's real root),
    read without going through a link (see the module). Raises :class:`Linked`,
    ``FileNotFoundError`` when nothing is there (no link on the way), or ``OSError`` as
    :func:`~pathgate.runtime.fs.read_regular` (``EFBIG`` past ``cap``, ``EINVAL`` for a FIFO
    …). Blocking."""
    from pathgate.runtime.fs import read_regular

    rel = _inside(path, root)
    if rel is None:
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            raise Linked from None
        if real == root.rstrip("/") or _inside(real, root) is not None:
            raise Linked  # outside as written, inside through a link
        st = _lstat(real)
        try:
            return read_regular(real, cap, same=st)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise Linked from None
            raise
    parts = rel.split("/")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            nxt = _open_dir(fd, part)
            os.close(fd)
            fd = nxt
        st = _lstat(parts[-1], fd)
        try:
            return read_regular(parts[-1], cap, dir_fd=fd, same=st)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise Linked from None
            raise
    finally:
        os.close(fd)


def _open_dir(fd: int, name: str) -> int:
    """The directory ``name`` below ``fd``, not followed: a symbolic link is :class:`Linked`,
    a missing one (or a file) ``FileNotFoundError``."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Linked from None
        if exc.errno == errno.ENOTDIR:
            try:
                is_link = stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
            except OSError:
                is_link = False
            if is_link:  # (O_DIRECTORY may answer ENOTDIR for a link to a file)
                raise Linked from None
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name) from None
        raise


def _lstat(name: str, fd: int | None = None) -> os.stat_result:
    """The ``lstat`` of ``name`` (below ``fd``): :class:`Linked` for a symbolic link or a
    regular file with other links."""
    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink > 1):
        raise Linked
    return st


def unlinked_signature(path: str) -> tuple[int, int, int, int, int, int] | None:
    """A cache signature of ``path`` for a reader that never follows a final link: its
    ``lstat`` (a link swapped in or re-pointed is a new signature) with its link count;
    ``None`` when missing. Blocking."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_size, max(st.st_mtime_ns, st.st_ctime_ns), st.st_mtime_ns, st.st_nlink)
