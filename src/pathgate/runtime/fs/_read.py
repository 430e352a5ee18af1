"""Reading through one descriptor, anchored at the root.

Reading (:func:`open_read`) is the check that decides: walk from the root to the file one
component at a time (``openat`` with ``O_NOFOLLOW``, directories with ``O_DIRECTORY``), so a
directory swapped for a symlink after resolution fails instead of being followed out of the
root; open the file with ``O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC``, ``fstat`` the descriptor,
compare ``(st_dev, st_ino)`` with what resolution approved, and read at most
``max_bytes + 1`` bytes — a file swapped, grown or deleted between check and read never
yields unapproved content.
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
from collections.abc import Callable
from functools import partial

import msgspec

from pathgate.runtime.fs._ops import DIR_FLAGS, FileOps, OsFS
from pathgate.runtime.fs._relink import seen_links
from pathgate.runtime.fs._resolve import PATH_MAX, Resolved, _rel, _within

__all__ = [
    "BINARY_SNIFF",
    "MAX_CONFIG_BYTES",
    "MAX_IGNORE_BYTES",
    "DirFds",
    "Opened",
    "ReadRequest",
    "WouldBlock",
    "decode",
    "open_at",
    "open_read",
    "open_read_in",
    "read_fstated",
    "read_regular",
    "read_rest",
    "resolve_in",
    "resolve_plain",
]

#: Largest ignore file (per-directory, ``info/exclude``, ``core.excludesFile``) pathgate
#: reads; a larger one is unreadable (``EFBIG``) and fails closed.
MAX_IGNORE_BYTES = 64 << 20
#: Largest git config file (``.git/config``, global, system) or ``.git``/``commondir``
#: pointer file read; larger ones are unreadable (``EFBIG``).
MAX_CONFIG_BYTES = 4 << 20


def read_regular(path: str, cap: int, *, follow: bool = False, dir_fd: int | None = None,
                 same: os.stat_result | None = None) -> bytes:
    """Read a whole small regular file, bounded: opened with ``O_NONBLOCK`` (a FIFO never
    hangs) and ``O_NOFOLLOW`` unless ``follow``; the type is checked on the descriptor.
    ``same``: an earlier ``lstat`` the descriptor must still match, a single-link file with
    that ``(st_dev, st_ino)`` (``ESTALE`` otherwise: another file was renamed over it).

    Raises ``OSError``: ``EISDIR`` for a directory, ``EINVAL`` for any other non-regular
    file (FIFO, device, socket: never read), ``EFBIG`` when it holds more than ``cap``
    bytes (checked on ``fstat`` and again while reading, so a growing file or a lying
    size cannot make it read more than ``cap + 1`` bytes)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if stat_mod.S_ISDIR(st.st_mode):
            raise OSError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat_mod.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if same is not None and (st.st_nlink != 1 or (st.st_dev, st.st_ino) != (same.st_dev, same.st_ino)):
            raise OSError(errno.ESTALE, "not the file checked", path)
        if st.st_size > cap:
            raise OSError(errno.EFBIG, f"larger than {cap} bytes", path)
        chunks: list[bytes] = []
        left = cap + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise OSError(errno.EFBIG, f"larger than {cap} bytes", path)
        return b"".join(chunks)
    finally:
        os.close(fd)

#: ``OsFS.open_dir`` as one C call.
_OPEN_DIR = partial(os.open, flags=DIR_FLAGS)

#: Bytes inspected for a NUL to call content binary.
BINARY_SNIFF = 8192
_READ_CHUNK = 1 << 20


# not tracked by the garbage collector: its fields (strings, numbers, bytes, a stat result)
# cannot lead back to it, and a batch read makes a few per file
class ReadRequest(msgspec.Struct, frozen=True, gc=False):
    """Open ``path`` (a real path the gates approved), expecting ``identity``; read at most
    ``max_bytes + 1`` bytes, and nothing when ``fstat`` shows more than ``max_bytes``.

    With ``root`` (``path`` inside it), the open walks from ``root`` component by component
    without following any symlink."""

    path: str
    max_bytes: int
    identity: tuple[int, int] | None
    root: str | None = None


class DirFds:
    """Directory descriptors opened from the root without following symlinks, shared by the
    reads of one chunk (one thread) and closed with it."""

    def __init__(self, ops: FileOps, root: str) -> None:
        self.ops = ops
        self.root = root
        self._fds: dict[str, int] = {}
        # the real filesystem's open without a wrapper frame (a batch opens ~1.3 per file)
        self._open_dir: Callable[..., int] = _OPEN_DIR if type(ops) is OsFS else ops.open_dir

    #: Directories deeper than this are opened on the way down and closed at once (only the
    #: target is kept), so a path thousands of levels deep costs two descriptors, not one per
    #: level.
    CACHE_DEPTH = 32
    #: At most about this many descriptors are kept when the holder :meth:`trim` s between
    #: directories (a batch of thousands of files in as many directories stays below a
    #: 1,024-descriptor limit).
    CACHE_FDS = 256

    def get(self, reldir: str) -> int:
        """The descriptor of ``reldir``, opened level by level from the deepest cached
        ancestor (iteratively: any depth)."""
        fds = self._fds
        fd = fds.get(reldir)
        if fd is not None:
            return fd
        cut = reldir.rfind("/")
        if reldir:  # the common case: the parent is open (a batch in walk order); kept at any depth
            fd = fds.get(reldir[:cut] if cut >= 0 else "")
            if fd is not None:
                fd = fds[reldir] = self._open_dir(reldir[cut + 1:], dir_fd=fd)
                return fd
        _, fd, missing = self.deepest_open(reldir)
        if fd is None:
            fd = fds[""] = self.ops.open_dir(self.root)
            if not reldir:
                return fd
        open_dir = self._open_dir
        depth = reldir.count("/") - len(missing) + 1  # levels below the root of the first missing
        transient: int | None = None
        try:
            for rel in reversed(missing):
                nxt = open_dir(rel[rel.rfind("/") + 1:], dir_fd=fd)
                if transient is not None:
                    self.ops.close(transient)
                    transient = None
                if depth < self.CACHE_DEPTH or rel is reldir:
                    fds[rel] = nxt
                else:
                    transient = nxt
                fd = nxt
                depth += 1
        except BaseException:
            if transient is not None:
                self.ops.close(transient)
            raise
        return fd

    def deepest_open(self, reldir: str) -> tuple[str, int | None, list[str]]:
        """The deepest proper ancestor of ``reldir`` held open (``""``: the root), its
        descriptor (``None``: not even the root's), and the levels from ``reldir`` up to just
        below it, deepest first."""
        fds = self._fds
        missing = [reldir]
        cur = reldir
        while True:
            cut = cur.rfind("/")
            cur = cur[:cut] if cut >= 0 else ""
            fd = fds.get(cur)
            if fd is not None or not cur:
                return cur, fd, missing
            missing.append(cur)

    def trim(self) -> bool:
        """Past :attr:`CACHE_FDS` descriptors, close all but the root's (a batch in walk order
        seldom comes back to a directory it left; one that does is opened again), and say
        whether it did. Only where the caller holds none of them: between directories."""
        fds = self._fds
        if len(fds) < self.CACHE_FDS:
            return False
        root = fds.pop("", None)
        self._fds = {} if root is None else {"": root}
        close = os.close if type(self.ops) is OsFS else self.ops.close
        for fd in fds.values():
            close(fd)
        return True

    def held(self, reldir: str) -> int | None:
        """The descriptor of ``reldir`` if it is open already (the root: opened now), else
        ``None`` (and always for a filesystem seam); never raises. For the ignore session,
        which ``lstat``-s a directory's ignore files relative to it."""
        if type(self.ops) is not OsFS:
            return None
        fd = self._fds.get(reldir)
        if fd is None and not reldir:
            try:
                fd = self.get("")
            except OSError:
                return None
        return fd

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        close = os.close if type(self.ops) is OsFS else self.ops.close  # no wrapper frame per fd
        for fd in fds.values():
            close(fd)

    def __enter__(self) -> DirFds:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_plain(dirs: DirFds, request: str) -> Resolved | None:
    """Resolve a plain spelling through the call's directory descriptors, or ``None``.

    ``request`` must be its own lexical normalisation (relative, no ``.``/``..``/empty
    component). Its parent is opened from the root one component at a time with
    ``O_DIRECTORY | O_NOFOLLOW`` (each directory once per :class:`DirFds`), then the last
    component is ``lstat``-ed relative to that descriptor. When every directory opens and the
    last component is not a symlink, no component is a symlink, so the real path is the
    spelling (what :func:`~pathgate.runtime.fs.resolve_flow` finds with one ``lstat`` per
    component). Anything else -- a symlink, a missing or unreadable component, an
    unencodable name -- returns ``None``: the caller resolves it with ``resolve_flow``, which
    knows every case. Only for the real filesystem (:class:`OsFS` itself): a fault-injecting
    or remote seam keeps its own ``lstat``."""
    if type(dirs.ops) is not OsFS or not request or len(request) > PATH_MAX or dirs.root == "/":
        return None
    parent, _, name = request.rpartition("/")
    try:
        dir_fd = dirs.get(parent)
    except (OSError, ValueError):
        return None
    return resolve_in(dirs.root, request, dir_fd, name)


def resolve_in(root: str, request: str, dir_fd: int, name: str) -> Resolved | None:
    """:func:`resolve_plain` once the parent is open: ``request`` (its own lexical
    normalisation, at most ``PATH_MAX`` long, ``root`` not ``/``, the real filesystem) is
    ``name`` in the directory ``dir_fd``, a :class:`DirFds` descriptor of its parent."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    if stat_mod.S_ISLNK(st.st_mode):
        return None
    return Resolved(request, root + "/" + request, request, st=st)


def open_at(ops: FileOps, req: ReadRequest, dirs: DirFds | None = None) -> int:
    """Open the file of ``req``: by path, or walked from ``req.root`` (through ``dirs``)."""
    root = req.root
    if root is None or not _within(req.path, root) or req.path == root:
        return ops.open_fd(req.path)
    parent, _, name = _rel(req.path, root).rpartition("/")
    if dirs is not None and dirs.root == root:
        return ops.open_fd(name, dir_fd=dirs.get(parent))
    with DirFds(ops, root) as own:
        return ops.open_fd(name, dir_fd=own.get(parent))


# not tracked by the garbage collector: its fields (strings, numbers, bytes, a stat result)
# cannot lead back to it, and a batch read makes a few per file
class Opened(msgspec.Struct, frozen=True, gc=False):
    """What the descriptor said. Facts only; the existence/size/read gates decide.

    * ``error``: errno of ``open``/``fstat``/``read`` (``ELOOP``: the last component became a
      symlink after the check).
    * ``st``: ``fstat`` of the descriptor.
    * ``changed``: the descriptor is not the file resolution approved (nothing was read).
    * ``data``: the bytes read (at most ``max_bytes + 1``), ``None`` when not read.
    * ``text``: ``data`` decoded as UTF-8 when it is text; ``binary``: NUL in the first
      8 KiB or invalid UTF-8.
    """

    error: int | None = None
    st: os.stat_result | None = None
    changed: bool = False
    data: bytes | None = None
    text: str | None = None
    binary: bool = False

    @property
    def size(self) -> int | None:
        if self.data is not None:
            return max(len(self.data), self.st.st_size if self.st else 0)
        return None if self.st is None else self.st.st_size


def decode(data: bytes, max_bytes: int, st: os.stat_result | None = None) -> Opened:
    """Classify bytes read within the limit (helper of :func:`open_read` and backends);
    ``st``: the descriptor's ``fstat``, kept in the result."""
    if len(data) > max_bytes:
        return Opened(st=st, data=data)
    if data.find(b"\x00", 0, BINARY_SNIFF) >= 0:  # no copy of the first 8 KiB
        return Opened(st=st, data=data, binary=True)
    try:
        return Opened(st=st, data=data, text=data.decode("utf-8"))
    except UnicodeDecodeError:
        return Opened(st=st, data=data, binary=True)


def _checked(st: os.stat_result, req: ReadRequest) -> Opened | None:
    """The decision-free part of the descriptor check: ``None`` means go on and read."""
    if not stat_mod.S_ISREG(st.st_mode):
        return Opened(st=st)
    if (req.identity is not None and (st.st_dev, st.st_ino) != req.identity) or not st.st_nlink:
        return Opened(st=st, changed=True)  # swapped, or unlinked since the open
    if st.st_size > req.max_bytes:
        return Opened(st=st)
    return None


class WouldBlock(Exception):
    """An inline read (``open_read(..., inline=N)``) would wait for the disk or read more
    than ``N`` bytes: nothing was returned; do it again in a worker thread."""


_NOWAIT = getattr(os, "RWF_NOWAIT", 0)
#: Reads at least this large may be cut by the kernel's per-call cap (``MAX_RW_COUNT``, just
#: under 2 GiB): a short one is not taken for the end of the file.
_SHORT_READS_CAP = 1 << 30


def _read_cached(fd: int, cap: int, size: int = 0, short_is_end: bool = False) -> bytes:
    """Up to ``cap + 1`` bytes of ``fd`` from the page cache only (``preadv`` with
    ``RWF_NOWAIT``): :class:`WouldBlock` when a byte is not cached (``EAGAIN``) or the
    kernel or filesystem cannot tell (``EOPNOTSUPP``). ``size`` (the ``fstat`` size) sizes
    the buffer: one byte more than that, grown (doubling, to ``cap + 1`` at most) if the
    file has grown, so a small file costs no 64 KiB allocation.

    ``short_is_end`` (a local filesystem, as :func:`read_fstated`): a read that returned
    fewer bytes than asked and has by then all ``size`` bytes the ``fstat`` showed is the
    end of the file, without one more call to find it. (Under ``RWF_NOWAIT`` a short read
    alone is no end: the bytes after it may only be out of the page cache; but every byte
    the file held when it was ``fstat``-ed has been read.)"""
    if not _NOWAIT:
        raise WouldBlock
    buf = bytearray(min(cap, max(size, 0)) + 1)
    if short_is_end:  # the common case, one read of the whole file: no view, no loop
        try:
            n = os.preadv(fd, [buf], 0, _NOWAIT)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EOPNOTSUPP, errno.EINVAL):
                raise WouldBlock from None
            raise
        if size <= n < len(buf) or n == 0:
            del buf[n:]
            return bytes(buf)
        got = n  # more to read (short of the fstat size, or grown): the loop below
    else:
        got = 0
    while True:
        if got == len(buf):
            if got > cap:
                break
            buf.extend(bytes(min(got, cap + 1 - got)))
        with memoryview(buf) as view:
            try:
                n = os.preadv(fd, [view[got:]], got, _NOWAIT)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EOPNOTSUPP, errno.EINVAL):
                    raise WouldBlock from None
                raise
        if n == 0:
            break
        got += n
        if short_is_end and size <= got < len(buf):
            break
    del buf[got:]
    return bytes(buf)


def open_read(ops: FileOps, req: ReadRequest, dirs: DirFds | None = None, *,
              inline: int | None = None) -> Opened:
    """Open, fstat, confirm and read one file with blocking calls.

    ``inline`` (bytes; the real filesystem only): the call runs on the event loop, so a file
    larger than that, or whose bytes are not all in the page cache, raises
    :class:`WouldBlock` instead of being read (the descriptor is closed)."""
    try:
        fd = open_at(ops, req, dirs)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    return _read_open(ops, fd, req, inline)


def open_read_in(ops: FileOps, req: ReadRequest, dir_fd: int, name: str, *,
                 inline: int | None = None) -> Opened:
    """:func:`open_read` of ``req``, whose file is ``name`` in the directory open as ``dir_fd``
    (a :class:`DirFds` descriptor of its parent, walked from ``req.root``: what
    :func:`open_at` opens it relative to)."""
    try:
        fd = ops.open_fd(name, dir_fd=dir_fd)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    return _read_open(ops, fd, req, inline)


def _read_open(ops: FileOps, fd: int, req: ReadRequest, inline: int | None) -> Opened:
    """The rest of :func:`open_read` on the file's descriptor ``fd`` (closed here)."""
    if type(ops) is OsFS and inline is None:
        return _read_open_os(fd, req)
    try:
        st = ops.fstat(fd)
        if st.st_nlink == 1:  # an alias renamed away since the open: seen_links
            st = seen_links(st, req.path, lstat=ops.lstat)
        early = _checked(st, req)
        if early is not None:
            return early
        if inline is not None:
            if st.st_size > inline:
                raise WouldBlock
            data = _read_cached(fd, min(req.max_bytes, inline), st.st_size)
            if len(data) > inline:
                raise WouldBlock  # grew past the inline bound since fstat
            return decode(data, req.max_bytes, st)
        remaining = req.max_bytes + 1
        chunks: list[bytes] = []
        want = st.st_size + 1  # the first read sized by fstat (no limit-sized buffer per file)
        while remaining > 0:
            chunk = ops.read_fd(fd, min(remaining, want))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            want = _READ_CHUNK
        return decode(chunks[0] if len(chunks) == 1 else b"".join(chunks), req.max_bytes, st)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    finally:
        ops.close(fd)



def _read_open_os(fd: int, req: ReadRequest) -> Opened:
    """:func:`_read_open` on the real filesystem, in a worker thread: the same calls (``fstat``,
    the descriptor check, reads sized by ``fstat`` up to end of file or the limit, ``close``)
    without a wrapper frame per call (a batch reads thousands of files)."""
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            return Opened(st=st)
        if (req.identity is not None and (st.st_dev, st.st_ino) != req.identity) or not st.st_nlink:
            return Opened(st=st, changed=True)  # swapped, or unlinked since the open
        if st.st_nlink == 1:  # an alias renamed away since the open: seen_links
            st = seen_links(st, req.path)
        return read_fstated(fd, st, req.max_bytes)
    except OSError as exc:
        return Opened(error=exc.errno or errno.EIO)
    finally:
        os.close(fd)


def read_fstated(fd: int, st: os.stat_result, max_bytes: int, inline: int | None = None,
                 short_is_end: bool = False) -> Opened:
    """The read of :func:`_read_open` once the descriptor ``fd`` of a regular file is
    ``fstat``-ed (``st``) and confirmed, on the real filesystem: nothing when ``st`` shows more
    than ``max_bytes``; else reads sized by ``fstat`` on to end of file or the limit, decoded
    (``inline``: from the page cache only, as :func:`open_read` ``inline=``, raising
    :class:`WouldBlock`). ``fd`` is left open; ``OSError`` propagates.

    ``short_is_end``: the file is on a local filesystem (:func:`~pathgate.runtime.fs.is_local_tree`),
    where a read of a regular file returns fewer bytes than asked only at its end (a page-cache
    copy is not cut short by a signal; only a fatal one, or an error, stops it): a first read
    shorter than asked is the whole file, without a second read to find the end."""
    if st.st_size > max_bytes:
        return Opened(st=st)
    if inline is not None:
        if st.st_size > inline:
            raise WouldBlock
        data = _read_cached(fd, min(max_bytes, inline), st.st_size, short_is_end)
        if len(data) > inline:
            raise WouldBlock  # grew past the inline bound since fstat
        return decode(data, max_bytes, st)
    remaining = max_bytes + 1
    want = min(remaining, st.st_size + 1)
    data = os.read(fd, want)
    got = len(data)
    if short_is_end and got < want < _SHORT_READS_CAP:  # the whole file, one read: ``decode`` inline
        if got > max_bytes:
            return Opened(st=st, data=data)
        if data.find(b"\x00", 0, BINARY_SNIFF) >= 0:
            return Opened(st=st, data=data, binary=True)
        try:
            return Opened(st=st, data=data, text=data.decode("utf-8"))
        except UnicodeDecodeError:
            return Opened(st=st, data=data, binary=True)
    return read_rest(fd, st, data, max_bytes, short_is_end)


def read_rest(fd: int, st: os.stat_result, data: bytes, max_bytes: int, short_is_end: bool = False) -> Opened:
    """:func:`read_fstated` (no ``inline``) after its first read, ``os.read(fd, min(max_bytes
    + 1, st.st_size + 1))``, gave ``data``: on to end of file or the limit, decoded."""
    remaining = max_bytes + 1
    want = min(remaining, st.st_size + 1)
    got = len(data)
    remaining -= got
    if data and remaining > 0 and not (short_is_end and got < want < _SHORT_READS_CAP):
        more = os.read(fd, min(remaining, _READ_CHUNK))
        if more:  # grew since fstat: on to end of file or the limit, as _read_open
            chunks = [data, more]
            remaining -= len(more)
            while remaining > 0:
                chunk = os.read(fd, min(remaining, _READ_CHUNK))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
    return decode(data, max_bytes, st)
