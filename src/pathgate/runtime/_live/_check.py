"""The live index's help to the secret-inode registry (issue 15): the first snapshot from
the first scan's listings, and the per-query check of the directories it does not watch."""

from __future__ import annotations

import os
from array import array

from pathgate.runtime._live._records import _DIR_CODE, _Dir

__all__ = ["seed_parts", "unchanged"]

_Sig = tuple[int, int, int]
#: A kind byte's kind alone (the low two bits), and a subdirectory's.
_LOW2 = bytes(i & 3 for i in range(256))
_DIR_BYTE = bytes([_DIR_CODE])


def seed_parts(dirs: dict[str, _Dir], scanned: dict[str, os.stat_result],
               ) -> tuple[dict[str, _Sig], list[tuple[str, tuple[str, ...] | list[str]]], list[str], int]:
    """:meth:`SecretInodes.seed`'s arguments from the records ``dirs`` of a first scan
    and the ``fstat`` ``scanned`` it took before listing each directory: the listed
    directories' signatures, their non-directory names by directory (those holding any), the subdirectories
    not listed (ignored, unlistable, or without a record or signature: the registry walks
    them), and the entries listed."""
    sigs: dict[str, tuple[int, int, int]] = {}
    files: list[tuple[str, tuple[str, ...] | list[str]]] = []
    tops: list[str] = []
    seen = 0
    low, dir_byte = _LOW2, _DIR_BYTE
    for rel, d in dirs.items():
        st = scanned.get(rel)
        if d.error is not None or st is None:
            tops.append(rel)  # walked by the registry itself
            continue
        sigs[rel] = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        seen += len(d.names)
        kinds = d.kinds.translate(low)  # (without the verdict classes a glob may have added)
        if dir_byte not in kinds:
            if kinds:
                files.append((rel, d.names))  # files only: the whole listing
            continue
        prefix = rel + "/" if rel else ""
        ms = d.matches
        names: list[str] = []
        for i, (name, k) in enumerate(zip(d.names, kinds, strict=True)):
            if k != _DIR_CODE:
                names.append(name)
            elif (ms is not None and ms[i] is not None) or prefix + name not in dirs:
                tops.append(prefix + name)
        if names:  # (a directory of subdirectories only asks the registry nothing)
            files.append((rel, names))
    return sigs, files, tops, seen


def unchanged(root: str, rels: list[bytes], inos: array[int], times: array[int]) -> bool:
    """Do these directories (relpaths, encoded) still have these ``st_ino`` and
    ``(st_mtime_ns, st_ctime_ns)`` (two integers each in ``times``)? ``lstat``-ed relative
    to a descriptor of the root opened now (a root moved away meanwhile sends the root's
    watch an event: the next query resets), as bytes: a quarter cheaper than by path."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        for i, rel in enumerate(rels):
            try:
                st = os.stat(rel, dir_fd=fd, follow_symlinks=False)
            except OSError:
                return False
            if st.st_ino != inos[i] or st.st_mtime_ns != times[2 * i] or st.st_ctime_ns != times[2 * i + 1]:
                return False
        return True
    finally:
        os.close(fd)
