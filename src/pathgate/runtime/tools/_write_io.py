"""Write I/O on directory descriptors: the blocking half of ``write_file`` / ``edit_file``.

Everything here runs in one worker thread per write, after the gates approved the path.
The path is never used as a string against the filesystem:

1. :class:`ParentDir` opens the parent chain from the root one component at a time with
   ``openat(..., O_DIRECTORY | O_NOFOLLOW)``, creating a missing directory with
   ``mkdirat`` (``os.mkdir(name, dir_fd=...)``) and opening what it created the same way. A
   directory swapped for a symlink fails (``ELOOP``/``ENOTDIR``) instead of being followed.
2. :func:`commit` looks at the target on that descriptor (``lstat`` without following, then
   ``open(O_NOFOLLOW)`` + ``fstat``): it must be the file the gates approved (same
   ``st_dev``/``st_ino``), a regular file, within the size limit, and — when the caller gives
   an expected :class:`Version` — exactly the version the agent last read.
3. The new content goes to a temporary file in the same directory, created with
   ``O_CREAT | O_EXCL | O_NOFOLLOW`` and the old file's mode; written, ``fsync``\\ ed, then
   renamed over the target (``os.replace`` with ``src_dir_fd``/``dst_dir_fd``). A new file
   is published with ``renameat2(RENAME_NOREPLACE)`` (``link`` + ``unlink`` where that call
   is missing), which fails if the name appeared meanwhile: ``O_CREAT | O_EXCL`` semantics
   for the final name.

Any exception or cancellation before the rename (the commit point) removes the temporary
file and the directories this call created: the old content stays, nothing is left behind.
Cancellation is polled with the ``cancelled`` callback (``anyio.from_thread.check_cancelled``)
before the temporary file is created and just before the commit.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat as stat_mod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pathgate.runtime.fs import links_moved, seen_links
from pathgate.verdicts import Status

__all__ = [
    "DIR_FLAGS",
    "TEMP_PREFIX",
    "Outcome",
    "ParentDir",
    "Transform",
    "Version",
    "WritePlan",
    "commit",
    "digest",
]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
#: Temporary files are ``.pathgate-<hex>.tmp`` in the target's directory (short: any name fits).
TEMP_PREFIX = ".pathgate-"
_NO_LINK = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK})

#: ``(existing text or None for a new file) -> (new text, replacements)``; may raise
#: :class:`~pathgate.ToolArgumentError` (an edit that cannot apply).
Transform = Callable[[str | None], tuple[str, int]]


def digest(data: bytes) -> bytes:
    """The content hash of a version (BLAKE2b, 16 bytes)."""
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass(frozen=True, slots=True)
class Version:
    """One version of one file, as an agent saw it: identity, mtime, size and content hash."""

    dev: int
    ino: int
    mtime_ns: int
    size: int
    hash: bytes

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> Version:
        return cls(st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, digest(data))


@dataclass(frozen=True, slots=True)
class WritePlan:
    """What one write may do (decided by the gates and the policy, before any I/O).

    * ``root`` / ``relpath``: the real project root and the approved real relative path.
    * ``identity``: ``(st_dev, st_ino)`` resolution approved; ``None``: it did not exist.
    * ``read_limit``: the largest existing file that may be read (the model's size limit);
      ``write_limit``: the largest content that may be written (bytes).
    * ``check_version``: refuse unless the existing file is ``expected`` (``None``: never read).
    * ``must_exist``: ``edit_file`` (no file → ``FILE_DOES_NOT_EXIST``).
    * ``want_old``: the transform sees the existing text for ``write_file`` too (the
      ``.gitignore`` guard compares old and new rules); an existing file that is not text
      is then refused as binary (it cannot be compared).
    * ``linked_secret``: is this regular file (its ``fstat``) a secret's inode? (the
      secret-inode registry; ``None``: no registry). A secret alias is an opaque block for
      ``write_file`` too, as it is for reads.
    """

    root: str
    relpath: str
    identity: tuple[int, int] | None
    read_limit: int
    write_limit: int
    check_version: bool
    expected: Version | None
    must_exist: bool
    linked_secret: Callable[[os.stat_result], bool] | None = None
    #: hand the existing text to the transform for ``write_file`` too (binary: refused)
    want_old: bool = False


@dataclass(frozen=True, slots=True)
class Outcome:
    """What :func:`commit` did: ``status`` ``None`` = written (``version`` is the new one)."""

    status: Status | None = None
    detail: str | None = None
    opaque: bool = False
    created: bool = False
    size: int = 0
    limit: int | None = None
    replacements: int = 0
    version: Version | None = None


def _noop() -> None:
    return None


#: Directories one write may create (each created directory's parent descriptor is held
#: until the write ends, for :meth:`ParentDir.rollback`): a deeper new path is refused
#: (``EMLINK``), so one call cannot take the descriptors every other call needs.
MAX_NEW_DIRS = 32


class ParentDir:
    """The target's parent directory as a descriptor, opened from the root without following
    any symlink; missing directories are created (and removed again by :meth:`rollback`).
    Descriptors held: the parent's, and those of the directories this write created in (at
    most :data:`MAX_NEW_DIRS`); each other ancestor's is closed once its child is open."""

    def __init__(self, root: str, reldir: str, *, create: bool) -> None:
        self.created: list[tuple[int, str]] = []  # (parent fd, name), outermost first
        self._fds: list[int] = []
        self.fd = -1
        self.missing = False
        fd = os.open(root, DIR_FLAGS)
        self._fds.append(fd)
        try:
            for name in reldir.split("/") if reldir else []:
                made = len(self.created)
                fd = self._step(fd, name, create)
                if fd < 0:
                    self.missing = True
                    return
                if len(self.created) == made:  # nothing created in it: not needed any more
                    os.close(self._fds.pop())
                self._fds.append(fd)
        except BaseException:
            self.rollback()
            self.close()
            raise
        self.fd = fd

    def _step(self, fd: int, name: str, create: bool) -> int:
        try:
            return os.open(name, DIR_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                return -1
        if len(self.created) >= MAX_NEW_DIRS:
            raise OSError(errno.EMLINK, f"more than {MAX_NEW_DIRS} new directories in one write")
        try:
            os.mkdir(name, 0o777, dir_fd=fd)
            self.created.append((fd, name))
        except FileExistsError:
            pass
        return os.open(name, DIR_FLAGS, dir_fd=fd)

    def rollback(self) -> None:
        """Remove the directories this call created (innermost first; only if empty)."""
        for fd, name in reversed(self.created):
            try:
                os.rmdir(name, dir_fd=fd)
            except OSError:
                break
        self.created.clear()

    def close(self) -> None:
        fds, self._fds = self._fds, []
        for fd in reversed(fds):
            os.close(fd)


def _read_existing(pfd: int, name: str, plan: WritePlan) -> Outcome | tuple[os.stat_result, bytes]:
    """Open the existing target on ``pfd`` and read it, or say why it cannot be replaced."""
    fd = os.open(name, _READ_FLAGS, dir_fd=pfd)
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            return Outcome(Status.NOT_A_FILE, "not a regular file")
        # the links the inode had while it was opened (an alias renamed away since shows one)
        st = seen_links(st, name, pfd)
        if (plan.identity is not None and (st.st_dev, st.st_ino) != plan.identity) or not st.st_nlink:
            return Outcome(Status.FILE_CHANGED_SINCE_READ, "replaced after the check")
        if (st.st_nlink > 1 and plan.must_exist) or (plan.linked_secret is not None and (
                plan.linked_secret(st) or links_moved(st, os.fstat(fd)))):
            # another name shares this inode (it may be a secret): its content is never
            # read into a new file; replacing a non-secret one (write_file) leaves the other
            # name intact, a secret alias is never writable
            return Outcome(Status.BLOCKED, "hard link", opaque=True)
        if st.st_size > plan.read_limit:
            return Outcome(Status.FILE_TOO_LARGE, size=st.st_size, limit=plan.read_limit)
        chunks: list[bytes] = []
        remaining = plan.read_limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > plan.read_limit:
            return Outcome(Status.FILE_TOO_LARGE, size=len(data), limit=plan.read_limit)
        return st, data
    finally:
        os.close(fd)


def _check_version(plan: WritePlan, current: Version) -> Outcome | None:
    if not plan.check_version:
        return None
    if plan.expected is None:
        return Outcome(Status.FILE_NOT_READ)
    if plan.expected != current:
        return Outcome(Status.FILE_CHANGED_SINCE_READ)
    return None


def _decode(data: bytes) -> str | None:
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _write_temp(pfd: int, data: bytes, mode: int | None) -> tuple[str, os.stat_result]:
    """Create, fill, fsync and close a temporary file in ``pfd``; return its name and stat."""
    tmp = f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, _TEMP_FLAGS, 0o600 if mode is not None else 0o666, dir_fd=pfd)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        st = os.fstat(fd)
    except BaseException:
        os.close(fd)
        _unlink(pfd, tmp)
        raise
    os.close(fd)
    return tmp, st


def _unlink(pfd: int, name: str) -> bool:
    try:
        os.unlink(name, dir_fd=pfd)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


_RENAME_NOREPLACE = 1
_renameat2: Any = None


def _load_renameat2() -> Any:
    """libc's ``renameat2`` (Linux, glibc >= 2.28), or ``False`` when there is none."""
    global _renameat2
    if _renameat2 is None:
        try:
            import ctypes  # loaded on first use: ~5 ms of every process's start-up otherwise
            import ctypes.util

            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            fn.restype = ctypes.c_int
            _renameat2 = fn
        except (OSError, AttributeError):
            _renameat2 = False
    return _renameat2


def _rename_noreplace(pfd: int, tmp: str, name: str) -> bool | None:
    """``renameat2(RENAME_NOREPLACE)``: ``True`` renamed, ``False`` the name exists, ``None``
    not supported here (no such call, or the filesystem refuses the flag)."""
    fn = _load_renameat2()
    if not fn:
        return None
    if fn(pfd, os.fsencode(tmp), pfd, os.fsencode(name), _RENAME_NOREPLACE) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err == errno.EEXIST:
        return False
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return None
    raise OSError(err, os.strerror(err), name)


def _publish_new(pfd: int, tmp: str, name: str, replace_ok: bool) -> bool:
    """Give the temporary file its final name without replacing anything (``renameat2`` with
    ``RENAME_NOREPLACE``, else ``link`` + ``unlink``); ``False`` when the name appeared
    meanwhile (and ``replace_ok`` is off)."""
    if replace_ok:
        os.replace(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
        return True
    done = _rename_noreplace(pfd, tmp, name)
    if done is not None:
        return done
    try:
        os.link(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in _NO_LINK:
            raise
        # A filesystem without hard links: the final name is checked, then replaced.
        if _lstat(pfd, name) is not None:
            return False
        os.replace(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
        return True
    if not _unlink(pfd, tmp):
        _unlink(pfd, tmp)  # once more: the temporary name is only a second link to the new file
    return True


def _lstat(pfd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=pfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, a.st_mtime_ns, a.st_size) == (b.st_dev, b.st_ino, b.st_mtime_ns, b.st_size)


def _secret_on_the_way(plan: WritePlan, reldir: str) -> bool:
    """Is a directory component of the target a regular file that is a secret's hard link?
    (``notes.txt/x`` with ``notes.txt`` linked to ``.env``: "not a directory" would tell the
    model what is there, where the same tree without the secret writes the file.)"""
    if plan.linked_secret is None:
        return False
    parts = reldir.split("/")
    for k in range(1, len(parts) + 1):
        try:
            st = os.lstat(os.path.join(plan.root, *parts[:k]))
        except OSError:
            return False
        if stat_mod.S_ISREG(st.st_mode):
            return plan.linked_secret(st)
    return False


def commit(plan: WritePlan, transform: Transform, cancelled: Callable[[], None] = _noop) -> Outcome:
    """Check, write and atomically publish one file (see the module docstring).

    Never raises ``OSError``: an I/O failure is ``FILE_WRITE_ERROR`` with the errno name.
    ``ToolArgumentError`` from ``transform`` and cancellation propagate, after cleanup."""
    reldir, _, name = plan.relpath.rpartition("/")
    try:
        parent = ParentDir(plan.root, reldir, create=not plan.must_exist)
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and _secret_on_the_way(plan, reldir):
            return Outcome(Status.BLOCKED, "hard link", opaque=True)
        return Outcome(Status.FILE_WRITE_ERROR, errno.errorcode.get(exc.errno or 0, "EIO"))
    if parent.missing:
        parent.close()
        return Outcome(Status.FILE_DOES_NOT_EXIST, "ENOENT")
    done = False
    try:
        outcome = _commit_in(parent.fd, name, plan, transform, cancelled)
        done = outcome.status is None
        return outcome
    except OSError as exc:
        return Outcome(Status.FILE_WRITE_ERROR, errno.errorcode.get(exc.errno or 0, "EIO"))
    finally:
        if not done:
            parent.rollback()
        parent.close()


def _commit_in(pfd: int, name: str, plan: WritePlan, transform: Transform,
               cancelled: Callable[[], None]) -> Outcome:
    before = _lstat(pfd, name)
    old: str | None = None
    mode: int | None = None
    if before is None:
        if plan.must_exist:
            return Outcome(Status.FILE_DOES_NOT_EXIST, "ENOENT")
    elif stat_mod.S_ISLNK(before.st_mode):
        return Outcome(Status.FILE_CHANGED_SINCE_READ, "became a symlink")
    elif not stat_mod.S_ISREG(before.st_mode):
        return Outcome(Status.NOT_A_FILE, "not a regular file")
    else:
        read = _read_existing(pfd, name, plan)
        if isinstance(read, Outcome):
            return read
        st, data = read
        if not _same(st, before):
            return Outcome(Status.FILE_CHANGED_SINCE_READ, "changed during the check")
        refused = _check_version(plan, Version.of(st, data))
        if refused is not None:
            return refused
        if plan.must_exist:
            old = _decode(data)
            if old is None:
                return Outcome(Status.BINARY_FILE)
        elif plan.want_old:  # a guarded file (.gitignore, pyproject.toml): judged on its text
            old = _decode(data)
            if old is None:
                return Outcome(Status.BINARY_FILE)
        mode = stat_mod.S_IMODE(st.st_mode)
    text, replacements = transform(old)
    new = text.encode("utf-8")
    if len(new) > plan.write_limit:
        return Outcome(Status.FILE_TOO_LARGE, "content", size=len(new), limit=plan.write_limit)
    cancelled()
    tmp, tst = _write_temp(pfd, new, mode)
    try:
        cancelled()
        if before is None:
            if not _publish_new(pfd, tmp, name, replace_ok=not plan.check_version):
                _unlink(pfd, tmp)
                return Outcome(Status.FILE_NOT_READ, "created meanwhile")
        else:
            now = _lstat(pfd, name)
            if now is None or not _same(now, before):
                _unlink(pfd, tmp)
                return Outcome(Status.FILE_CHANGED_SINCE_READ, "changed during the write")
            os.replace(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
    except BaseException:
        _unlink(pfd, tmp)
        raise
    try:
        os.fsync(pfd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the rename is done
    return Outcome(created=before is None, size=len(new), replacements=replacements,
                   version=Version.of(tst, new))
