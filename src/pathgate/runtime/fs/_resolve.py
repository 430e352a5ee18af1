"""Sans-IO path resolution: a generator yields the ``lstat``/``readlink`` it needs.

Path resolution is a plain generator (:func:`resolve_flow`) that yields the ``lstat`` /
``readlink`` operations it needs and receives their results, so the same logic is driven in
a worker thread (:func:`drive_sync`) and by aiofiles (:func:`drive_async`), like httpx's
auth flows. It resolves symlinks component by component the way the kernel does (``..``
after a symlink is taken on the real path), counts link hops to catch loops, and checks
after every requested component that the real path stays inside the root.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import sys
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from pathgate.runtime.fs._ops import FileOps

__all__ = [
    "MAX_SYMLINKS",
    "MISSING_ERRNOS",
    "PATH_MAX",
    "Resolved",
    "drive_async",
    "drive_sync",
    "resolve_flow",
]

#: Symlink hops allowed while resolving one path (Linux's limit); more is a loop.
MAX_SYMLINKS = 40
#: Longest path (bytes) the kernel accepts; longer spellings are ENAMETOOLONG without I/O.
PATH_MAX = 4096

#: Errnos that mean "no such file" (as opposed to "could not look").
MISSING_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.EILSEQ})


# not tracked by the garbage collector: its fields (strings, numbers, bytes, a stat result)
# cannot lead back to it, and a batch read makes a few per file
class Resolved(msgspec.Struct, frozen=True, gc=False):
    """Where one requested spelling leads, with symlinks resolved.

    * ``real``: the absolute real path (``None`` for an empty, NUL or unencodable spelling).
    * ``relpath``: ``real`` relative to the root (``""`` is the root), ``None`` when outside.
    * ``outside``: why the path gate must refuse it, or ``None``: ``"empty"``, ``"nul"``,
      ``"escape"`` (``..`` above the root), ``"absolute"``, ``"symlink"`` (a link leads
      out), ``"loop"`` (too many link hops: cannot be proven inside).
    * ``st``: ``lstat`` of ``real`` (never a symlink) when it exists, else ``None``.
    * ``error``: the errno that stopped resolution (``ENOENT``, ``ENOTDIR``,
      ``ENAMETOOLONG``, ``EILSEQ``, ``EACCES`` …), ``None`` when ``st`` is set.
    """

    request: str
    real: str | None
    relpath: str | None
    outside: str | None = None
    st: os.stat_result | None = None
    error: int | None = None

    @property
    def exists(self) -> bool | None:
        """``True`` when an lstat confirmed it, ``False`` when it cannot exist, else ``None``."""
        if self.st is not None:
            return True
        if self.error in MISSING_ERRNOS:
            return False
        return None

    @property
    def is_dir(self) -> bool:
        return self.st is not None and stat_mod.S_ISDIR(self.st.st_mode)

    @property
    def identity(self) -> tuple[int, int] | None:
        """``(st_dev, st_ino)`` the read must find on its descriptor."""
        return None if self.st is None else (self.st.st_dev, self.st.st_ino)


# A flow yields ("lstat" | "readlink", absolute path) and is sent the result or the OSError.
Op = tuple[str, str]
Flow = Generator[Op, "os.stat_result | str | OSError", Resolved]
_Step = Generator[Op, "os.stat_result | str | OSError", tuple[str, "os.stat_result | None", int | None]]


def _within(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def _rel(path: str, root: str) -> str:
    if path == root:
        return ""
    return path[1:] if root == "/" else path[len(root) + 1 :]


def _parent(path: str) -> str:
    return os.path.dirname(path) or "/"


def _lexical(cur: str, parts: Sequence[str]) -> str:
    for part in parts:
        if part in ("", "."):
            continue
        cur = _parent(cur) if part == ".." else os.path.join(cur, part)
    return cur


def _component(cur: str, name: str, hops: list[int]) -> _Step:
    """Resolve ``cur/name`` (``cur`` real): return (real path, lstat, errno)."""
    path = os.path.join(cur, name)
    res = yield ("lstat", path)
    if isinstance(res, OSError):
        return path, None, res.errno or errno.EIO
    assert isinstance(res, os.stat_result)
    if not stat_mod.S_ISLNK(res.st_mode):
        return path, res, None
    hops[0] += 1
    if hops[0] > MAX_SYMLINKS:
        return path, None, errno.ELOOP
    target = yield ("readlink", path)
    if isinstance(target, OSError):
        return path, None, target.errno or errno.EIO
    assert isinstance(target, str)
    new = "/" if target.startswith("/") else cur
    st: os.stat_result | None = None
    parts = target.split("/")
    for i, part in enumerate(parts):
        if part in ("", "."):
            continue
        if st is not None and not stat_mod.S_ISDIR(st.st_mode):
            return _lexical(new, parts[i:]), None, errno.ENOTDIR
        if part == "..":
            new, st = _parent(new), None
            continue
        new, st, err = yield from _component(new, part, hops)
        if err is not None:
            return _lexical(new, parts[i + 1 :]), None, err
    if st is None:
        res = yield ("lstat", new)
        if isinstance(res, OSError):
            return new, None, res.errno or errno.EIO
        assert isinstance(res, os.stat_result)
        st = res
    return new, st, None


def resolve_flow(root: str, request: str, *, allow_outside: bool = False) -> Flow:
    """Resolve ``request`` (relative to the real ``root``, or absolute) to a :class:`Resolved`.

    Relative spellings must stay inside the root after every component (``../main/a`` is an
    escape even though it comes back); absolute ones are judged by their final real path
    (an alias of the root, e.g. through a symlinked parent, is fine). Once a component is
    missing, the rest is applied lexically and the result does not exist — ``missing/../a``
    is not ``a``, as in the kernel. With ``allow_outside`` the walk goes on after leaving the
    root (``outside`` still says why), so the real path and its ``lstat`` are known.
    """
    if request == "":
        return Resolved(request, None, None, outside="empty")
    if "\x00" in request:
        return Resolved(request, None, None, outside="nul")
    try:
        size = len(os.fsencode(request))
    except UnicodeEncodeError:
        return Resolved(request, None, None, error=errno.EILSEQ)
    relative = True
    body = request
    if request.startswith("/"):
        if _within(request, root):
            body = _rel(request, root)
        else:
            relative = False
    start = root if relative else "/"
    if size > PATH_MAX:
        return Resolved(request, None, None, error=errno.ENAMETOOLONG)

    cur = start
    st: os.stat_result | None = None
    error: int | None = None
    outside: str | None = None
    hops = [0]
    for part in body.split("/"):
        if part in ("", "."):
            continue
        was_link = False
        if error is not None:
            cur = _parent(cur) if part == ".." else os.path.join(cur, part)
        elif st is not None and not stat_mod.S_ISDIR(st.st_mode):
            cur, st, error = _lexical(cur, [part]), None, errno.ENOTDIR
        elif part == "..":
            cur, st = _parent(cur), None
        else:
            before = hops[0]
            cur, st, error = yield from _component(cur, part, hops)
            was_link = hops[0] != before
            if error == errno.ELOOP:
                return Resolved(request, cur, None, outside="loop", error=error)
        if relative and outside is None and not _within(cur, root):
            outside = "symlink" if was_link else "escape"
            if not allow_outside:
                return Resolved(request, cur, None, outside=outside, error=error)
    if error is None and st is None:
        res = yield ("lstat", cur)
        if isinstance(res, OSError):
            error = res.errno or errno.EIO
        else:
            assert isinstance(res, os.stat_result)
            st = res
    if not _within(cur, root):
        return Resolved(request, cur, None, outside=outside or "absolute", st=st, error=error)
    return Resolved(request, cur, _rel(cur, root), outside=outside, st=st, error=error)


#: Paths at least this long are ``lstat``-ed relative to their parent's descriptor when the
#: driver holds it (:class:`_Cursor`); shorter ones by path (through the caller's memo of
#: directories, which a batch of files in one directory hits): the kernel's walk of a
#: shorter path costs less than the cursor's open, ``fstat`` and close per level.
DEEP_CHARS = 1024
_O_PATH: int | None = getattr(os, "O_PATH", None)
_CURSOR_FLAGS = (_O_PATH or 0) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _Cursor:
    """The last directory a deep resolution reached, held open (``O_PATH``): the next
    component's ``lstat`` is one lookup relative to it, not a walk of the whole path from
    ``/`` (which makes a resolution quadratic in the depth: ~0.1 s at 1,000 levels).

    The flow asks for ``cur/name`` right after ``cur`` was found to be a directory; the
    cursor answers only then, with the same ``lstat`` (no symlink followed), and only for a
    path the kernel would take (shorter than :data:`PATH_MAX`). A directory is held only when
    its descriptor is the inode its ``lstat`` saw (opened without following a symlink, its
    ``(st_dev, st_ino)`` compared); anything else goes by path, as before."""

    __slots__ = ("fd", "path")

    def __init__(self) -> None:
        self.path: str | None = None
        self.fd = -1

    def lstat(self, path: str, by_path: Callable[[str], os.stat_result]) -> os.stat_result:
        cur = self.path
        if cur is not None and path.startswith(cur) and path.rfind("/") == len(cur) and (
                len(path) < PATH_MAX if path.isascii() else len(os.fsencode(path)) < PATH_MAX):
            name = path[len(cur) + 1:]
            try:
                st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            except OSError:
                self.drop()
                raise
            self._hold(name, path, st, self.fd)
            return st
        self.drop()
        st = by_path(path)
        if len(path) >= DEEP_CHARS and stat_mod.S_ISDIR(st.st_mode):
            self._hold(path, path, st, None)
        return st

    def _hold(self, name: str, path: str, st: os.stat_result, dir_fd: int | None) -> None:
        old = self.fd
        fd = -1
        if stat_mod.S_ISDIR(st.st_mode):
            try:
                fd = os.open(name, _CURSOR_FLAGS, dir_fd=dir_fd)
            except OSError:
                fd = -1
            else:
                got = os.fstat(fd)
                if (got.st_dev, got.st_ino) != (st.st_dev, st.st_ino):
                    os.close(fd)  # swapped since its lstat: go by path
                    fd = -1
        if old >= 0:
            os.close(old)
        self.fd, self.path = fd, (path if fd >= 0 else None)

    def drop(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
        self.fd, self.path = -1, None


def drive_sync(flow: Flow, ops: FileOps) -> Resolved:
    """Run a resolution flow with blocking calls. On the real filesystem (``ops`` is
    :class:`~pathgate.runtime.fs.OsFS`, or a chunk's ``DirStatMemo`` of it), deep components are
    ``lstat``-ed relative to their parent's descriptor (:class:`_Cursor`): linear in depth."""
    cursor: _Cursor | None = None
    if _O_PATH is not None:
        from pathgate.runtime.fs._ops import OsFS

        # (the memo's class looked up, not imported: its module loads the event loop's
        # libraries, which the hooks' path never loads; not loaded, ``ops`` is none of its)
        memo = getattr(sys.modules.get("pathgate.runtime.fs._backends"), "DirStatMemo", None)
        if type(ops) is OsFS or (memo is not None and type(ops) is memo
                                 and type(ops.ops) is OsFS):  # type: ignore[attr-defined]
            cursor = _Cursor()
    try:
        op = next(flow)
        while True:
            kind, path = op
            result: os.stat_result | str | OSError
            try:
                if kind != "lstat":
                    result = ops.readlink(path)
                elif cursor is not None and (cursor.path is not None or len(path) >= DEEP_CHARS):
                    result = cursor.lstat(path, ops.lstat)
                else:
                    result = ops.lstat(path)
            except OSError as exc:
                result = exc
            op = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    finally:
        if cursor is not None:
            cursor.drop()


async def drive_async(
    flow: Flow,
    lstat: Callable[[str], Awaitable[os.stat_result]],
    readlink: Callable[[str], Awaitable[str]],
) -> Resolved:
    """Run a resolution flow with async calls."""
    try:
        op = next(flow)
        while True:
            kind, path = op
            result: os.stat_result | str | OSError
            try:
                result = await (lstat(path) if kind == "lstat" else readlink(path))
            except OSError as exc:
                result = exc
            op = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]

