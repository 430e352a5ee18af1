"""``read_files``' fused step for a batch in a worker thread, with the built-in gates alone.

:func:`batch_chunk` makes the chunk function :meth:`ReadFacts._make_chunk
<pathgate.runtime.tools._read_facts.ReadFacts._make_chunk>` would make, for the case a batch
of thousands of small files takes: a worker thread (no inline bound), the real filesystem, the
gates built in alone (:class:`~pathgate.runtime.tools._read_checks._KnownGates`). Its direct
route is :meth:`ReadFacts._plain_route <pathgate.runtime.tools._read_facts.ReadFacts._plain_route>`'s,
written as one function per file (:func:`_direct_route`) -- the same checks in the same order,
the same system calls (the parent's descriptor, ``openat`` with ``O_NOFOLLOW``, ``fstat``, the
relink look, one read sized by ``fstat``, ``close``), the same facts -- without the frames of
``read_fstated``, ``decode`` and the linked-secret gate's helper per file, and the directory step
fused with the ignore session's proof (``IgnoreSession.held_dir``). Any other spelling or
outcome takes the general route exactly as there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from stat import S_ISDIR, S_ISREG
from time import time_ns

from pathgate.runtime.fs import (
    BINARY_SNIFF,
    OPEN_FLAGS,
    PATH_MAX,
    RELINK_MARGIN_NS,
    DirFds,
    FileOps,
    Opened,
    Resolved,
    seen_links,
)
from pathgate.runtime.fs._read import _SHORT_READS_CAP, read_rest
from pathgate.runtime.gates import GateContext, PathFacts
from pathgate.runtime.gates.path import is_git_internal, is_git_name
from pathgate.runtime.ignore import DirNode, IgnoreIndex, IgnoreSession, Match
from pathgate.runtime.tools._read_checks import _Check, _ChunkState, _discard, _KnownGates, _tail_passed

__all__ = ["batch_chunk"]

#: The general route of one spelling (``ReadFacts._general_route``).
General = Callable[[PathFacts, IgnoreSession, DirFds, _ChunkState, int, str], None]


def batch_chunk(*, root: str, ops: FileOps, index: IgnoreIndex, ctx: GateContext, known: _KnownGates,
                cleared: int, tail_checks: tuple[_Check, ...], is_secret: Callable[[PathFacts, str | None], bool],
                general: General, cancelled: Callable[[], None], relink_local: bool, short_is_end: bool
                ) -> Callable[[Sequence[PathFacts]], list[None]]:
    """The chunk function (``ReadFacts._make_chunk``'s, ``on_loop=None``, ``OsFS``, a root
    other than ``/``) with the direct route of :func:`_direct_route`. ``cleared``: the inline
    gates' count; ``relink_local``: the tree is local (``seen_links`` trusts an old
    ``st_ctime``); ``short_is_end``: ``read_fstated``'s."""
    direct = _direct_route(root=root, ctx=ctx, known=known, cleared=cleared, tail_checks=tail_checks,
                           is_secret=is_secret, short_is_end=short_is_end)
    git_dirs = known.git_dirs

    def chunk(items: Sequence[PathFacts]) -> list[None]:
        state = _ChunkState(time_ns() - RELINK_MARGIN_NS if relink_local else 0)
        with DirFds(ops, root) as dirs:
            session = IgnoreSession(index, dir_fd=dirs.held)
            held_dir, file_memo = session.held_dir, session.file_memo
            memo: Mapping[str, Match] | None = None
            last: str | None = None  # the parent of the last plain spelling, its fd and node
            dir_fd = -1
            node = None
            dir_git = False
            for k, f in enumerate(items):
                if not k & 15:
                    cancelled()  # a cancelled call stops within 16 files
                request = f.request
                if request != f.name or not request or len(request) > PATH_MAX:
                    if dirs.trim():  # (between directories: the general route holds none either)
                        last = None  # the direct route's parent was closed: opened again when needed
                    general(f, session, dirs, state, -1, "")
                    continue
                parent, _, name = request.rpartition("/")
                if parent != last:
                    last = parent
                    dir_fd, node = held_dir(parent, dirs)  # trim, open and validate, one walk
                    memo = None if node is None else file_memo(node)  # (``decide_entry``'s own)
                    # ``is_git_internal(request, git_dirs)``, per directory: its components and
                    # git directories, then the name alone (``request == g``: the only way a path
                    # of this directory is a git directory when the directory itself is not)
                    dir_git = bool(parent) and is_git_internal(parent, git_dirs)
                if node is None or not direct(f, request, name, dir_fd, node, session, memo, dir_git, state):
                    general(f, session, dirs, state, dir_fd, name)
        return [None]  # one per chunk: ``_fused`` counts the chunks

    return chunk


#: The direct route of one plain spelling: ``(facts, request, name, the parent's descriptor, its
#: validated node, the session, the node's file memo, the parent is git internals, the chunk's
#: state) -> every fact filled in``.
Direct = Callable[[PathFacts, str, str, int, DirNode, IgnoreSession, Mapping[str, Match] | None, bool,
                   _ChunkState], bool]


def _direct_route(*, root: str, ctx: GateContext, known: _KnownGates, cleared: int, tail_checks: tuple[_Check, ...],
                  is_secret: Callable[[PathFacts, str | None], bool], short_is_end: bool) -> Direct:
    """``ReadFacts._plain_route`` with the built-in gates (``known``) in a worker: ``True`` when
    it filled in every fact, ``False`` (the facts as they were) when the general route must."""
    croot = ctx.root
    size_limit = ctx.size_limit
    git_dirs = known.git_dirs
    linked = known.linked
    # the linked-secret gate on a file of one link, without its frame: its own test (the
    # registry of ``croot``, when made, knows the inode?), or the gate itself without a root
    ask = linked is not None and not croot
    regs = None if linked is None or ask else known.registries
    everything = cleared + len(tail_checks)
    prefix = root + "/"
    open_, fstat, close = os.open, os.fstat, os.close

    def direct(f: PathFacts, request: str, name: str, dir_fd: int, node: DirNode, session: IgnoreSession,
               memo: Mapping[str, Match] | None, dir_git: bool, state: _ChunkState) -> bool:
        match = node.stop
        if match is None and memo is not None and request.isascii():
            match = memo.get(name)
        if match is None:
            try:
                match = session.decide_entry(node, request, name, False)
            except ValueError:  # an unencodable name: the general route says what it is
                return False
        if match.ignored:
            return False  # blocked (or a directory's rule): the general route, with its remedy
        secret = f.plain_secret
        if secret is None:
            secret = is_secret(f, croot)
        if secret or dir_git or (git_dirs and request in git_dirs) or (
                "git" in name.casefold() and is_git_name(name)):
            return False
        try:
            fd = open_(name, OPEN_FLAGS, dir_fd=dir_fd)
        except OSError:  # a symlink (ELOOP), missing, unreadable: the general route's answer
            return False
        try:
            st = fstat(fd)
            if st.st_nlink == 1 and st.st_ctime_ns >= state.relink_since:
                st = seen_links(st, name, dir_fd)  # an alias renamed away since the open
            mode = st.st_mode
            if S_ISREG(mode) and st.st_nlink:
                opened = _whole(fd, st, size_limit, short_is_end)
            elif not S_ISDIR(mode) and st.st_nlink:
                opened = Opened(st=st)
            else:
                return False  # a directory, or unlinked since the open: the general route decides it
        except OSError:
            return False
        finally:
            close(fd)
        real = prefix + request
        f.resolved = Resolved(request, real, request, None, st)
        f.match = match
        f.secret = secret  # what ``is_secret_facts`` keeps once the real path is known
        f.opened = state.opened[real] = opened
        if opened.text is not None and st.st_nlink == 1:
            if ask:
                verdict = linked(f, ctx)  # type: ignore[misc]  # (``ask``: not None)
                if verdict is None:
                    f.cleared = everything
                    return True
                _discard(verdict)
            else:
                reg = None if regs is None else regs.get(croot)  # type: ignore[arg-type]
                if reg is None or not reg.known(st):  # (``LinkedSecretGate.check``'s pass)
                    f.cleared = everything
                    return True
        f.cleared = cleared + _tail_passed(tail_checks, f, ctx)  # the pipeline skips these
        return True

    return direct


def _whole(fd: int, st: os.stat_result, size_limit: int, short_is_end: bool) -> Opened:
    """``read_fstated(fd, st, size_limit, None, short_is_end)`` of a regular file: the whole
    file in one ``read`` decoded here, anything else through ``fs.read_rest``."""
    want = st.st_size + 1
    if want > size_limit + 1:
        return Opened(st=st)  # over the size limit: not read
    data = os.read(fd, want)
    if short_is_end and len(data) < want < _SHORT_READS_CAP and data.find(b"\x00", 0, BINARY_SNIFF) < 0:
        try:  # the whole file, text
            return Opened(st=st, data=data, text=data.decode("utf-8"))
        except UnicodeDecodeError:
            return Opened(st=st, data=data, binary=True)
    return read_rest(fd, st, data, size_limit, short_is_end)
