"""A cheaper exact check that the repository-wide ignore sources are unchanged.

The exact check (:meth:`IgnoreIndex._current_globals`) compares the ``GIT_*``/``HOME``
environment and the ``stat`` of every file git's layout and configuration resolution looked
at (``/etc/gitconfig``, ``~/.gitconfig``, ``~/.config/git/config``, ``.git/config``,
``.git/commondir``, ``core.excludesFile``, ``.git/info/exclude`` …). Most of those files do
not exist, and each missing one costs a raised ``FileNotFoundError``. A :class:`Probe`
answers the same question with fewer, cheaper calls:

* the environment by one C-level lookup per variable in ``os.environ``'s own byte mapping
  (:func:`env_fingerprint`; ``None`` when that mapping is not there, or when
  ``GIT_CONFIG_COUNT`` is set and ``GIT_CONFIG_KEY_n``/``_VALUE_n`` matter too: then the
  exact check runs);
* a file that exists is ``stat``-ed as before (its signature must equal the one recorded);
* a file that is missing is proven still missing by its nearest existing ancestor directory
  (the *anchor*): the anchor was ``stat``-ed first, then the child on the way to the file was
  found absent (``lstat``: not even a dangling symlink). Creating, removing or renaming an
  entry of a directory changes its ``mtime`` and ``ctime``, so while the anchor's device,
  inode, mode, link count, size, ``mtime`` and ``ctime`` are all unchanged, the child is still
  absent and so is the file. One anchor serves every missing file below it (``~`` for both
  global config files and the global excludes file; ``.git`` for ``commondir``).

Two limits, the same as git's "racily clean" rule, make it safe to rely on timestamps:

* **racy timestamps**: a change in the same clock tick as the anchor's last change leaves
  its timestamps equal. An anchor is only trusted when its ``mtime`` and ``ctime`` are more
  than :data:`RACY_NS` older than the clock read before it was ``stat``-ed; a younger one
  keeps its missing files on the per-file ``stat`` and the probe is rebuilt after
  :data:`RACY_NS` has passed;
* **filesystems that keep timestamps**: the index's ``trusts_dir`` says which anchors may be
  used (by default: the real filesystem and a local one — ext4, xfs, btrfs, tmpfs,
  overlay …, :func:`~pathgate.runtime.fs.is_local_tree`; never NFS, FUSE or an unknown type,
  whose directory timestamps may be cached or not kept).
"""

from __future__ import annotations

import errno
import os
import stat as _stat
from collections.abc import Callable, ItemsView, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathgate.runtime.ignore._index import IgnoreIndex

__all__ = ["RACY_NS", "Probe", "build_probe", "env_fingerprint"]

#: An anchor directory changed less than this long (ns) before it was ``stat``-ed is not
#: trusted yet (covers coarse kernel clock ticks and filesystems with 1-2 s timestamps).
RACY_NS = 3_000_000_000

_ENV_KEYS_B: tuple[bytes, ...] = ()
_COUNT_B = b"GIT_CONFIG_COUNT"

_Sig = tuple[int, ...] | str | None


def env_fingerprint(keys: tuple[str, ...]) -> tuple[bytes | None, ...] | None:
    """The values of ``keys`` straight from ``os.environ``'s byte mapping (equal exactly
    when :func:`_gitconfig.env_key` is), or ``None``: no such mapping (the exact key is
    needed), or ``GIT_CONFIG_COUNT`` set (the numbered variables matter too)."""
    global _ENV_KEYS_B
    data = getattr(os.environ, "_data", None)
    if type(data) is not dict:
        return None
    if len(_ENV_KEYS_B) != len(keys):
        _ENV_KEYS_B = tuple(os.fsencode(k) for k in keys)
    if data.get(_COUNT_B):
        return None
    return tuple(map(data.get, _ENV_KEYS_B))


def _full_sig(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_size, st.st_mtime_ns,
            st.st_ctime_ns)


class Probe:
    """What :meth:`check` ``stat``-s (following symlinks, as git does) and the signature each
    must still have. ``of`` is the globals object it was built for; ``env`` the environment
    fingerprint; ``retry_ns`` (wall clock) when a racy anchor may be trusted, 0 if none."""

    __slots__ = ("_keys", "_sets", "env", "items", "of", "retry_ns")

    def __init__(self, of: object, env: object, items: tuple[tuple[str, _Sig], ...],
                 retry_ns: int) -> None:
        self.of = of
        self.env = env
        self.items = items
        self.retry_ns = retry_ns
        # the fingerprint as the variables set (name -> value) and those unset: compared with
        # ``os.environ``'s byte mapping by two C-level set operations (:meth:`_env_same`)
        self._keys: tuple[bytes, ...] = _ENV_KEYS_B
        self._sets: tuple[ItemsView[bytes, bytes], frozenset[bytes]] | None = None
        if type(env) is tuple and len(env) == len(_ENV_KEYS_B):
            pairs = tuple(zip(_ENV_KEYS_B, env, strict=True))
            self._sets = ({k: v for k, v in pairs if v is not None}.items(),
                          frozenset(k for k, v in pairs if v is None))

    def _env_same(self, keys: tuple[str, ...]) -> bool:
        """Is the environment the fingerprint's? Equal to ``env_fingerprint(keys) == env``:
        every variable set has its value (``GIT_CONFIG_COUNT``, set, had a false one: the
        probe is only built when it was unset or empty) and every unset one is still unset."""
        data = getattr(os.environ, "_data", None)
        sets = self._sets
        if type(data) is not dict or sets is None or self._keys is not _ENV_KEYS_B \
                or len(keys) != len(_ENV_KEYS_B):
            env = env_fingerprint(keys)
            return env is not None and env == self.env
        return sets[0] <= data.items() and data.keys().isdisjoint(sets[1])

    def check(self, stat: Callable[[str], os.stat_result], keys: tuple[str, ...]) -> bool:
        """Are the environment (``keys``) and every item's signature unchanged?"""
        if not self._env_same(keys):
            return False
        for path, want in self.items:
            try:
                st = stat(path)
            except OSError as e:  # missing is what a None records; any other error differs
                if want is not None or e.errno not in (errno.ENOENT, errno.ENOTDIR):
                    return False
                continue
            if want is None or want != (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_size,
                                        st.st_mtime_ns, st.st_ctime_ns):  # _full_sig, inline
                return False
        return True


def build_probe(of: object, env: object, recorded: Iterable[tuple[str, _Sig]],
                *, stat: Callable[[str], os.stat_result], lstat: Callable[[str], os.stat_result],
                sig_of: Callable[[os.stat_result], _Sig], trusts_dir: Callable[[str, os.stat_result], bool],
                now_ns: Callable[[], int]) -> Probe | None:
    """A probe equivalent to comparing each ``(path, recorded signature)`` (``sig_of`` of a
    followed ``stat``; ``None``: missing), or ``None`` when one no longer holds (the exact
    check runs and finds what changed)."""
    items: dict[str, _Sig] = {}
    retry = 0
    for path, want in recorded:
        if want is not None:
            try:
                st = stat(path)
            except OSError:
                return None
            if sig_of(st) != want or items.setdefault(path, _full_sig(st)) != _full_sig(st):
                return None  # changed since it was recorded (or since it was an anchor)
            continue
        began = now_ns()
        anchor = _anchor(path, stat, lstat)
        if anchor is None:
            items[path] = None  # stays on its own stat (symlinks, errors, no directory)
            continue
        a_path, a_st = anchor
        if not trusts_dir(a_path, a_st):
            items[path] = None
            continue
        if max(a_st.st_mtime_ns, a_st.st_ctime_ns) > began - RACY_NS:
            items[path] = None  # racily young: trust it later
            retry = max(retry, max(a_st.st_mtime_ns, a_st.st_ctime_ns) + RACY_NS)
            continue
        if items.setdefault(a_path, _full_sig(a_st)) != _full_sig(a_st):
            return None  # the anchor changed while the probe was built
    return Probe(of, env, tuple(items.items()), retry)


def _anchor(path: str, stat: Callable[[str], os.stat_result],
            lstat: Callable[[str], os.stat_result]) -> tuple[str, os.stat_result] | None:
    """The nearest existing ancestor directory of the missing ``path`` (``stat``-ed first)
    whose child on the way to ``path`` is then found absent, or ``None``."""
    child = path
    parent = os.path.dirname(path)
    while True:
        if not parent or parent == child:
            return None
        try:
            st = stat(parent)
        except OSError as e:
            if e.errno not in (errno.ENOENT, errno.ENOTDIR):
                return None
            child, parent = parent, os.path.dirname(parent)
            continue
        if not _stat.S_ISDIR(st.st_mode):
            return None
        try:
            lstat(child)
        except OSError as e:
            if e.errno == errno.ENOENT:
                return parent, st
        return None  # the child is there (a dangling symlink, say) or cannot be told


class DirAnchors:
    """The same rule for the per-directory ignore files of directories a call holds open:
    one ``fstat`` of the directory stands for every candidate ignore file that was missing.

    ``record[rel] = (sigs, dir signature, every sig None)``: right after the directory had that
    signature (``fstat`` first), its ignore files had ``sigs`` (``None``: missing). While the directory's
    signature is unchanged, those missing are still missing (no entry added, removed or
    renamed), so only the present ones need their ``lstat``. Recorded only for a directory on a
    device of a local filesystem (``local(dev, rel)``) and not racily young; dropped on any
    other outcome. Entries are immutable tuples (threads may race: each is self-consistent)."""

    __slots__ = ("_local", "_now_ns", "cap", "fstat", "record")

    def __init__(self, local: Callable[[int, str], bool], now_ns: Callable[[], int], cap: int) -> None:
        self.record: dict[str, tuple[tuple[Any, ...], tuple[int, ...], bool]] = {}
        self._local = local
        self._now_ns = now_ns
        self.cap = cap
        self.fstat: Callable[[int], os.stat_result] = os.fstat  # a seam for tests

    def sigs(self, rel: str, dir_fd: int, names: tuple[str, ...],
             lstat_all: Callable[[], tuple[Any, ...]]) -> tuple[Any, ...]:
        """The signatures of ``names`` in directory ``rel`` (open as ``dir_fd``): from the
        record when the directory is unchanged (present names ``lstat``-ed again: any
        difference there and all are, by ``lstat_all``), else all ``lstat``-ed (``lstat_all``)
        and recorded."""
        known = self.record.get(rel)
        if known is not None:  # the clock is only needed to record: not read on a hit
            st = self.fstat(dir_fd)
            if known[1] == (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_size, st.st_mtime_ns,
                            st.st_ctime_ns):
                old = known[0]
                if known[2]:  # every candidate was missing
                    return old
                for k, s in enumerate(old):
                    if s is not None and _lstat_sig(names[k], dir_fd) != s:
                        break
                else:
                    return old
        began = self._now_ns()
        st = self.fstat(dir_fd)
        dsig = _full_sig(st)
        sigs = lstat_all()
        if max(st.st_mtime_ns, st.st_ctime_ns) <= began - RACY_NS and self._local(st.st_dev, rel):
            if len(self.record) >= self.cap:
                self.record.clear()
            self.record[rel] = (sigs, dsig, all(s is None for s in sigs))
        else:
            self.record.pop(rel, None)
        return sigs


def _lstat_sig(name: str, dir_fd: int) -> object:
    """A present ignore file's signature as ``IgnoreIndex._own_sigs`` makes it, or a value
    equal to no signature (missing, an error: the caller then ``lstat``-s them all)."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return ()
    return (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def make_anchors(index: IgnoreIndex) -> DirAnchors:
    """The index's per-directory anchors; a device is judged local once
    (:func:`~pathgate.runtime.fs.is_local_tree` of the first directory seen on it)."""
    from pathgate.runtime.fs import is_local_tree

    devs: dict[int, bool] = {}

    def local(dev: int, rel: str) -> bool:
        known = devs.get(dev)
        if known is None:
            known = devs[dev] = is_local_tree(os.path.realpath(index._abs(rel)))
        return known

    anchors = index._anchors = DirAnchors(local, index._wall_ns, max(1, index.config.cache_dirs))
    return anchors
