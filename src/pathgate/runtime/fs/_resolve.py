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


def drive_sync(flow: Flow, ops: FileOps) -> Resolved:
    """Run a resolution flow with blocking calls."""
    try:
        op = next(flow)
        while True:
            kind, path = op
            result: os.stat_result | str | OSError
            try:
                result = ops.lstat(path) if kind == "lstat" else ops.readlink(path)
            except OSError as exc:
                result = exc
            op = flow.send(result)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


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

