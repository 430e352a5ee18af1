"""Links an open descriptor's inode had while it was being opened (:func:`seen_links`).

A tool opens a file by name, then ``fstat``-s the descriptor: the link count it sees is
the inode's *after* the open. A hard-link alias of a secret renamed away (or replaced) in
between leaves the descriptor on the secret's inode with one link, and a registry snapshot
taken before the secret was re-saved under a new inode does not know that inode: read as a
single-link file, the secret would be served under the alias's name. Every read route asks
:func:`seen_links` right after its ``fstat`` (the read tools' direct and general routes,
the aiofiles backend, code_search's scan). A descriptor whose inode has no link left was
unlinked since the open (an alias, and the secret re-saved under a new inode): the routes
answer it as a file that changed while it was read (the scan: gone), never its bytes.
Blocking, standard library only.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

__all__ = ["RELINK_MARGIN_NS", "links_moved", "seen_links"]

#: How long before an open a link-count change must have been for :func:`seen_links` to
#: trust the descriptor's ``st_nlink`` without a look at the name (far above the coarse
#: clock's tick that stamps ``st_ctime`` on a local filesystem).
RELINK_MARGIN_NS = 1_000_000_000


def seen_links(st: os.stat_result, name: str | bytes, dir_fd: int | None = None,
               since_ns: int | None = None,
               lstat: Callable[[str], os.stat_result] | None = None) -> os.stat_result:
    """``st`` (the ``fstat`` of a descriptor opened by ``name``, relative to ``dir_fd``) with
    the links its inode had while it was being opened. A single-link regular file whose
    name no longer leads to it had another link when it was opened: an alias of a secret
    renamed away (or replaced) between the ``open`` and the ``fstat`` shows one link but
    still reads the secret, and a registry snapshot taken before the secret was re-saved
    under a new inode does not know it. Then ``st`` is returned with two links, so the
    linked-secret test validates the registry and asks it.

    ``since_ns``: a ``time.time_ns()`` taken before the open minus
    :data:`RELINK_MARGIN_NS`, on a local filesystem only (a link-count change stamps the
    inode's ``st_ctime`` with the kernel's clock): an inode whose status is older has had
    the link count it shows since before the open, and no system call is made. ``lstat``:
    the filesystem seam's own (``name`` then an absolute path, no ``dir_fd``)."""
    if st.st_nlink != 1 or not stat.S_ISREG(st.st_mode):
        return st
    if since_ns is not None and st.st_ctime_ns < since_ns:
        return st
    try:
        if lstat is not None and isinstance(name, str):
            now = lstat(name)
        else:
            now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        now = None
    if now is not None and now.st_ino == st.st_ino and now.st_dev == st.st_dev and now.st_nlink == 1:
        return st
    seq = list(st)
    seq[stat.ST_NLINK] = 2
    return os.stat_result(seq, {k: getattr(st, k) for k in _STAT_EXTRA})


_STAT_EXTRA = ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_blksize",
               "st_blocks", "st_rdev")


def links_moved(before: os.stat_result, now: os.stat_result) -> bool:
    """Did a multi-linked file's links change between two looks at it (its link count or
    status time moved): while the registry was asked about ``before``, say? Then the answer
    may describe links the inode no longer had — an alias whose secret was re-saved under a
    new inode meanwhile."""
    return before.st_nlink > 1 and (now.st_nlink != before.st_nlink or now.st_ctime_ns != before.st_ctime_ns)
