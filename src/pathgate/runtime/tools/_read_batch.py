"""``read_files``' fused step for a batch in a worker thread, with the built-in gates alone.

:func:`batch_chunk` makes the chunk function :meth:`ReadFacts._make_chunk
<pathgate.runtime.tools._read_facts.ReadFacts._make_chunk>` would make, for the case a batch
of thousands of small files takes: a worker thread (no inline bound), the real filesystem, the
gates built in alone (:class:`~pathgate.runtime.tools._read_checks._KnownGates`). Its direct
route is :meth:`ReadFacts._plain_route <pathgate.runtime.tools._read_facts.ReadFacts._plain_route>`'s,
written out in the chunk's loop -- the same checks in the same order, the same system calls (the
parent's descriptor, ``openat`` with ``O_NOFOLLOW``, ``fstat``, the relink look, one read sized
by ``fstat``, ``close``), the same facts -- without a frame per file (nor those of
``read_fstated``, ``decode`` and the linked-secret gate's helper), and the directory step fused
with the ignore session's proof (``IgnoreSession.held_walk``: ``held_dir`` for many
directories). Any other spelling or outcome takes the general route exactly as there.
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
    other than ``/``) with the direct route written out in its loop (:func:`_direct_route`'s
    steps, no frame per file). ``cleared``: the inline gates' count; ``relink_local``: the tree
    is local (``seen_links`` trusts an old ``st_ctime``); ``short_is_end``: ``read_fstated``'s."""
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
    open_, fstat, close, read = os.open, os.fstat, os.close, os.read
    big = size_limit + 1

    def chunk(items: Sequence[PathFacts]) -> list[None]:
        state = _ChunkState(time_ns() - RELINK_MARGIN_NS if relink_local else 0)
        relink_since = state.relink_since
        opened_of = state.opened
        with DirFds(ops, root) as dirs:
            session = IgnoreSession(index, dir_fd=dirs.held)
            step, file_memo, decide_entry = session.held_walk(dirs), session.file_memo, session.decide_entry
            memo: Mapping[str, Match] | None = None
            last: str | None = None  # the parent of the last plain spelling, its fd and node
            dir_fd = -1
            node: DirNode | None = None
            stop: Match | None = None
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
                    dir_fd, node = step(parent)  # trim, open and validate, one walk
                    if node is None:
                        general(f, session, dirs, state, dir_fd, name)
                        continue
                    stop = node.stop
                    memo = file_memo(node)  # (``decide_entry``'s own)
                    # ``is_git_internal(request, git_dirs)``, per directory: its components and
                    # git directories, then the name alone (``request == g``: the only way a path
                    # of this directory is a git directory when the directory itself is not)
                    dir_git = bool(parent) and is_git_internal(parent, git_dirs)
                elif node is None:
                    general(f, session, dirs, state, dir_fd, name)
                    continue
                # -- the direct route (``ReadFacts._plain_route``'s steps): every fact, or the general route
                match = stop
                if match is None:
                    if memo is not None and request.isascii():
                        match = memo.get(name)
                    if match is None:
                        try:
                            match = decide_entry(node, request, name, False)
                        except ValueError:  # an unencodable name: the general route says what it is
                            match = _UNDECIDED
                if match.ignored:  # blocked (or a directory's rule): the general route, with its remedy
                    general(f, session, dirs, state, dir_fd, name)
                    continue
                secret = f.plain_secret
                if secret is None:
                    secret = is_secret(f, croot)
                if secret or dir_git or (git_dirs and request in git_dirs) or (
                        "git" in name.casefold() and is_git_name(name)):
                    general(f, session, dirs, state, dir_fd, name)
                    continue
                try:
                    fd = open_(name, OPEN_FLAGS, dir_fd=dir_fd)
                except OSError:  # a symlink (ELOOP), missing, unreadable: the general route's answer
                    general(f, session, dirs, state, dir_fd, name)
                    continue
                opened = None
                try:
                    st = fstat(fd)
                    nlink = st.st_nlink
                    if nlink == 1 and st.st_ctime_ns >= relink_since:
                        st = seen_links(st, name, dir_fd)  # an alias renamed away since the open
                        nlink = st.st_nlink
                    mode = st.st_mode
                    if S_ISREG(mode) and nlink:
                        want = st.st_size + 1  # ``_whole``, written out
                        if want > big:
                            opened = Opened(None, st)  # over the size limit: not read
                        else:
                            data = read(fd, want)
                            got = len(data)
                            if short_is_end and got < want < _SHORT_READS_CAP and (
                                    0 not in data if got <= BINARY_SNIFF
                                    else data.find(b"\x00", 0, BINARY_SNIFF) < 0):
                                try:  # the whole file, text
                                    opened = Opened(None, st, False, data, data.decode("utf-8"))
                                except UnicodeDecodeError:
                                    opened = Opened(None, st, False, data, None, True)
                            else:
                                opened = read_rest(fd, st, data, size_limit, short_is_end)
                    elif not S_ISDIR(mode) and nlink:
                        opened = Opened(None, st)
                    # else a directory, or unlinked since the open: the general route decides it
                except OSError:
                    opened = None
                finally:
                    close(fd)
                if opened is None:
                    general(f, session, dirs, state, dir_fd, name)
                    continue
                real = prefix + request
                f.resolved = Resolved(request, real, request, None, st)
                f.match = match
                f.secret = secret  # what ``is_secret_facts`` keeps once the real path is known
                f.opened = opened_of[real] = opened
                if opened.text is not None and nlink == 1:
                    if ask:
                        verdict = linked(f, ctx)  # type: ignore[misc]  # (``ask``: not None)
                        if verdict is None:
                            f.cleared = everything
                            continue
                        _discard(verdict)
                    else:
                        reg = None if regs is None else regs.get(croot)  # type: ignore[arg-type]
                        if reg is None or not reg.known(st):  # (``LinkedSecretGate.check``'s pass)
                            f.cleared = everything
                            continue
                f.cleared = cleared + _tail_passed(tail_checks, f, ctx)  # the pipeline skips these
        return [None]  # one per chunk: ``_fused`` counts the chunks

    return chunk


#: ``decide_entry`` raised (an unencodable name): ignored as far as the direct route is
#: concerned -- the general route says what it is.
_UNDECIDED = Match(ignored=True)
