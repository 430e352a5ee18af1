"""The secret-inode registry: which ``(st_dev, st_ino)`` belong to secret-named files.

Secrets are decided by name, but a hard link gives a secret's bytes a second, innocent name
(``settings.txt`` sharing ``.env``'s inode). A regular file with more than one link is
served only when no secret-named link to the same inode exists in the project; this module
answers that question.

* Built on first need (a multi-linked file was opened): one walk of the project that follows
  no symlink, skips ``.git`` and enters every other directory (ignored ones too: an ignored
  ``build/.env`` is still a secret), keeping the inodes of secret-named regular files
  (whatever their link count: see :func:`_note`). Only secret-named entries are
  ``lstat``-ed; directories are ``lstat``-ed for their signature.
* Kept current like the ignore cache: every later question first re-``lstat``s the walked
  directories (``st_ino``, ``st_mtime_ns``, ``st_ctime_ns``: creating, renaming or removing
  a link changes its directory) and every secret-named regular file (``st_ino``,
  ``st_nlink``, ``st_ctime_ns``: a new link to a secret made from another directory changes
  the secret's link count, not its directory); any change rebuilds the snapshot. Cost per
  question: one ``lstat`` per directory and per secret; a rebuild: one ``scandir`` per
  directory.
* Once per tool call: a call that has had a snapshot validated (or built) is answered from
  it for the rest of the call, without I/O (the call's :data:`~pathgate.runtime.fs._calls.VIEW`,
  fresh for every call scope, nested ones included, inherited by its worker threads): one
  call sees one state of the project's hard links, as of its first question. Asked per
  opened file, a search of 1,300 multi-linked files in a 45,000-directory project
  validated ~18 times a call (~850,000 ``lstat`` s, seconds of CPU with the interpreter
  lock held); a question outside any call validates as before.
* A rebuild is validated like any snapshot before it is used (a link or rename landing
  while it walked is seen); one that never holds still (:data:`_BUILD_TRIES`) fails closed
  for that question and is rebuilt by the next.
* Bounded: a walk past :data:`MAX_ENTRIES` entries stops and the snapshot *fails closed*
  (every multi-linked file is treated as linked to a secret). A live index that holds a
  project's entries in memory raises the bound by what it holds (:meth:`SecretInodes.scale_to`):
  a rebuild then costs at most that index's own scan plus :data:`MAX_ENTRIES`.
* Concurrency-safe: snapshots are immutable; one lock serialises validation and rebuilds,
  so many agents on one runtime share one walk.

The residual: a hard link to a file *outside* the project is indistinguishable from a local
file (its other names cannot be found without walking the whole device).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import cast, overload

from pathgate.runtime.fs._calls import VIEW, View

__all__ = ["MAX_ENTRIES", "SECRET_MEMO", "SecretInodes", "secret_memo"]

#: Entries one rebuild may visit before it gives up and fails closed.
MAX_ENTRIES = 1_000_000


#: Builds one question may make while the tree keeps changing under them, before it fails
#: closed for that question.
_BUILD_TRIES = 3

_Sig = tuple[int, int, int]

#: Relpaths whose secret decision is kept per secret matcher across calls (cleared when full).
SECRET_MEMO = 1 << 18
_decided: weakref.WeakKeyDictionary[object, dict[str, bool]] = weakref.WeakKeyDictionary()
_decided_lock = threading.Lock()


def secret_memo(matcher: object, decide: Callable[[str], bool]) -> Callable[[str], bool]:
    """``decide`` (the secret test of relpaths by ``matcher``: a pure function of the
    relpath and the matcher's fixed patterns) with its answers kept for the matcher's
    lifetime, so a warm walk looks names up instead of deciding them again. Bounded
    (:data:`SECRET_MEMO`, cleared when full); dict operations are atomic, so concurrent
    calls share it."""
    with _decided_lock:
        known = _decided.get(matcher)
        if known is None:
            known = _decided[matcher] = {}
    get = known.get

    def memo(rel: str) -> bool:
        hit = get(rel)
        if hit is None:
            hit = decide(rel)
            if len(known) >= SECRET_MEMO:
                known.clear()
            known[rel] = hit
        return hit

    return memo


def _sig(st: os.stat_result) -> _Sig:
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _secret_sig(st: os.stat_result) -> _Sig:
    return (st.st_ino, st.st_nlink, st.st_ctime_ns)


class _Snapshot:
    """One immutable answer of the registry. (A plain slotted class, not a frozen
    dataclass: defining one costs about a millisecond and a half of every command's start.)"""

    __slots__ = ("dirs", "inodes", "linked", "overflow", "secrets", "unstable")

    inodes: frozenset[tuple[int, int]]
    dirs: dict[str, _Sig]
    overflow: bool
    #: every secret-named regular file met, by relpath: its inode, link count and ctime
    secrets: dict[str, _Sig]
    #: the tree changed under every build of one question: valid for that question only
    unstable: bool
    #: some secret had more than one link when it was looked at (else no file aliases one)
    linked: bool

    def __init__(self, inodes: frozenset[tuple[int, int]], dirs: dict[str, _Sig] | None = None,
                 overflow: bool = False, secrets: dict[str, _Sig] | None = None, unstable: bool = False,
                 linked: bool = False) -> None:
        put = object.__setattr__
        put(self, "inodes", inodes)
        put(self, "dirs", {} if dirs is None else dirs)
        put(self, "overflow", overflow)
        put(self, "secrets", {} if secrets is None else secrets)
        put(self, "unstable", unstable)
        put(self, "linked", linked)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __repr__(self) -> str:
        return (f"_Snapshot(inodes={self.inodes!r}, dirs={self.dirs!r}, overflow={self.overflow!r}, "
                f"secrets={self.secrets!r}, unstable={self.unstable!r}, linked={self.linked!r})")


class SecretInodes:
    """The registry of one project root. ``is_secret(relpath)`` is the secret matcher."""

    def __init__(self, root: str, is_secret: Callable[[str], bool], *, max_entries: int = MAX_ENTRIES) -> None:
        self.root = root
        self.is_secret = is_secret
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._snap: _Snapshot | None = None
        #: The tool calls that have had :attr:`_snap` validated (emptied with every new one).
        self._checked: weakref.WeakSet[View] = weakref.WeakSet()
        #: Rebuilds so far (for tests and operators).
        self.builds = 0
        #: Regular files the last discovery walk met (its choice of how to find aliases).
        self.walk_files: int | None = None

    def scale_to(self, held: int) -> None:
        """Let a rebuild visit :data:`MAX_ENTRIES` entries beyond ``held``, the entries of
        this project a live index holds (it listed them all: a walk of the same tree costs
        no more); never lowered. Every snapshot stays exact: complete or failed closed."""
        with self._lock:
            self.max_entries = max(self.max_entries, MAX_ENTRIES + held)

    @property
    def dirs(self) -> int | None:
        """Directories one validation ``lstat``-s (``None``: not built yet)."""
        snap = self._snap
        return None if snap is None else len(snap.dirs)

    def linked_secret(self, st: os.stat_result) -> bool:
        """Is this (``fstat`` of an open descriptor) a regular file sharing its inode with a
        secret-named file of the project? Asked about every regular file a tool opens: one
        with a single link is decided with no I/O unless the last snapshot knows its inode
        (a descriptor opened on an alias that was renamed away before the ``fstat`` now
        shows one link, and still reads the secret). Sync and blocking (one ``lstat`` per
        project directory and per secret when it must validate): call it from a worker
        thread."""
        if not stat.S_ISREG(st.st_mode) or (st.st_nlink <= 1 and not self.known(st)):
            return False
        snap = self.current()
        return (st.st_dev, st.st_ino) in snap.inodes or (snap.overflow and st.st_nlink > 1)

    def known(self, st: os.stat_result) -> bool:
        """Is ``st``'s inode a secret's in the last snapshot (validated or not)? No I/O, no
        lock: the cheap first question for files with a single link."""
        snap = self._snap
        return snap is not None and (st.st_dev, st.st_ino) in snap.inodes

    def checker(self) -> Callable[[os.stat_result], bool] | None:
        """``linked_secret`` bound to one validated snapshot: for many entries of one walk
        step (one validation, then set lookups); ``None`` when no secret was multi-linked
        when validated (nothing could alias one: a walk need not look at link counts; a
        file opened later is asked about through :meth:`linked_secret`, which validates
        again). Sync and blocking: call it in a worker thread."""
        snap = self.current()
        if not snap.linked and not snap.overflow:
            return None

        def check(st: os.stat_result) -> bool:
            if not stat.S_ISREG(st.st_mode) or st.st_nlink <= 1:
                return False
            return snap.overflow or (st.st_dev, st.st_ino) in snap.inodes

        return check

    def current(self) -> _Snapshot:
        """The validated snapshot (rebuilt when a walked directory or a secret changed; a
        rebuild is itself validated before it is used); within one tool call, validated at
        most once (the module doc)."""
        call = VIEW.get()
        with self._lock:
            snap = self._snap
            if snap is not None and call is not None and call in self._checked:
                return snap
            if snap is not None and self._valid(snap):
                if call is not None:
                    self._checked.add(call)
                return snap
            self._checked = weakref.WeakSet()
            snap = self._build()
            self.builds += 1
            tries = 1
            while not (snap.overflow or self._valid(snap)):
                if tries == _BUILD_TRIES:
                    # links or renames landed during every build: fail closed for this
                    # question, build again for the next
                    snap = _Snapshot(snap.inodes, snap.dirs, overflow=True, unstable=True)
                    break
                snap = self._build()
                self.builds += 1
                tries += 1
            self._snap = snap
            if call is not None and not snap.unstable:
                self._checked.add(call)
            return snap

    def _valid(self, snap: _Snapshot) -> bool:
        if snap.unstable:
            return False
        root = self.root
        prefix = root.rstrip("/") + "/"
        lstat = os.lstat
        try:
            for rel, (ino, mtime, ctime) in snap.dirs.items():
                st = lstat(prefix + rel if rel else root)
                if st.st_ino != ino or st.st_mtime_ns != mtime or st.st_ctime_ns != ctime:
                    return False
            for rel, sig in snap.secrets.items():
                if _secret_sig(lstat(prefix + rel)) != sig:
                    return False
        except OSError:
            return False
        return True

    def _secret_in(self, head: str) -> Callable[[str], bool]:
        """``is_secret(head/name)`` as a function of ``name``: the matcher's own per-directory
        form when it has one (``in_dir``: the directory's part decided once)."""
        in_dir = getattr(getattr(self.is_secret, "__self__", None), "in_dir", None)
        if in_dir is not None:
            return cast("Callable[[str], bool]", in_dir(head))
        is_secret = self.is_secret
        prefix = head + "/" if head else ""
        return lambda name: is_secret(prefix + name)

    def seed(self, dirs: dict[str, _Sig], files: Iterable[tuple[str, Iterable[str]]],
             tops: list[str], seen: int, *,
             cancelled: Callable[[], bool] | None = None) -> _Snapshot | None:
        """Build the first snapshot from a walk someone else made (the live index's first
        scan, issue 15), when none exists yet: ``dirs`` the signatures of the directories it
        listed, each taken *before* listing it (as :meth:`_build` does); ``files`` the
        names of the non-directory entries each holds, by directory (``.git`` left out); ``tops`` the
        subdirectories of theirs it did not list (ignored, unlistable), walked here as
        :meth:`_build` would; ``seen`` the entries it listed. The result is the snapshot a
        build would have taken: the same directories with the same signatures, the same
        secret-named files ``lstat``-ed (near :attr:`max_entries`, a build of its own).
        ``None`` (nothing done): a snapshot exists already, or ``cancelled()`` turned true
        while it worked (asked once per directory; the live index's watch thread is being
        stopped: the registry builds its own snapshot when next asked)."""
        with self._lock:
            if self._snap is not None:
                return None
            inodes: set[tuple[int, int]] = set()
            secrets: dict[str, _Sig] = {}
            root = self.root.rstrip("/") + "/"
            for head, names in files:
                if cancelled is not None and cancelled():
                    return None
                secret = self._secret_in(head)
                prefix = root + head + "/" if head else root
                for name in names:
                    if not secret(name):
                        continue
                    try:
                        st = os.lstat(prefix + name)
                    except OSError:
                        continue
                    _note(st, f"{head}/{name}" if head else name, inodes, secrets)
            # each listed directory may also have held a ".git" (not in ``seen``): near the
            # entry bound, the build itself decides
            snap = self._build(dict(dirs), tops, seen, inodes, slack=len(dirs), secrets=secrets,
                               cancelled=cancelled)
            if cancelled is not None and cancelled():
                return None
            snap = self._snap = snap if snap is not None else self._build()
            self._checked = weakref.WeakSet()
            self.builds += 1
            return snap

    @overload
    def _build(self) -> _Snapshot: ...

    @overload
    def _build(self, dirs: dict[str, _Sig], stack: list[str], seen: int,
               inodes: set[tuple[int, int]], *, slack: int, secrets: dict[str, _Sig],
               cancelled: Callable[[], bool] | None = None) -> _Snapshot | None: ...

    def _build(self, dirs: dict[str, _Sig] | None = None, stack: list[str] | None = None,
               seen: int = 0, inodes: set[tuple[int, int]] | None = None, *,
               slack: int = 0, secrets: dict[str, _Sig] | None = None,
               cancelled: Callable[[], bool] | None = None) -> _Snapshot | None:
        """Walk below ``stack`` (the root), adding to ``dirs``, ``inodes``, ``secrets`` and
        ``seen``; ``None`` when ``seen`` might pass the bound by ``slack`` (entries not
        counted) or ``cancelled()`` turned true (asked once per directory)."""
        if slack and seen + slack > self.max_entries:
            return None
        inodes = set() if inodes is None else inodes
        secrets = {} if secrets is None else secrets
        dirs = {} if dirs is None else dirs
        stack = [""] if stack is None else stack
        failed = False  # a directory that could not be listed: its secrets are unknown
        while stack:
            if cancelled is not None and cancelled():
                return None
            rel = stack.pop()
            path = os.path.join(self.root, rel) if rel else self.root
            try:
                dirs[rel] = _sig(os.lstat(path))
                with os.scandir(path) as it:
                    entries = list(it)
            except OSError as exc:
                # unlistable (EACCES, ENAMETOOLONG, EMFILE...): its secrets are unknown, so
                # every multi-linked file counts as one (fail closed); a directory that
                # vanished is re-checked through its parent's signature
                failed = failed or exc.errno not in (errno.ENOENT, errno.ENOTDIR)
                continue
            seen += len(entries)
            if seen + slack > self.max_entries:
                return _Snapshot(frozenset(), dirs, overflow=True, secrets=secrets) if not slack else None
            secret: Callable[[str], bool] | None = None
            for e in entries:
                if e.name == ".git":
                    continue
                try:
                    if e.is_dir(follow_symlinks=False):
                        stack.append(f"{rel}/{e.name}" if rel else e.name)
                        continue
                    if secret is None:
                        secret = self._secret_in(rel)
                    if secret(e.name):
                        _note(e.stat(follow_symlinks=False), f"{rel}/{e.name}" if rel else e.name,
                              inodes, secrets)
                except OSError:
                    continue
        return _Snapshot(frozenset(inodes), dirs, overflow=failed, secrets=secrets,
                         linked=any(sig[1] > 1 for sig in secrets.values()))


def _note(st: os.stat_result, rel: str, inodes: set[tuple[int, int]], secrets: dict[str, _Sig]) -> None:
    """Record the secret-named entry ``rel`` (``lstat`` ``st``): a regular file's inode,
    whatever its link count now (a descriptor opened on an alias a moment ago still holds
    the secret's inode after the alias is renamed away), and its signature, validated later."""
    if not stat.S_ISREG(st.st_mode):
        return
    secrets[rel] = _secret_sig(st)
    inodes.add((st.st_dev, st.st_ino))
