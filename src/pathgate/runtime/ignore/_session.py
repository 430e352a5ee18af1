"""One call's view of the index, and the walker's named interface to it.

:class:`IgnoreSession` validates each directory at most once per call and answers
decisions; the walker uses :meth:`IgnoreSession.enter_child`, :meth:`IgnoreSession.decide_entry`
and :attr:`IgnoreSession.ignore_names` instead of reaching into the index's nodes.
"""

from __future__ import annotations

import os
import stat as _stat
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from pathgate.runtime.fs import DIR_FLAGS, DirFds, OsFS
from pathgate.runtime.ignore import _descent
from pathgate.runtime.ignore._globals import current_globals as _current_globals
from pathgate.runtime.ignore._index import DirNode, IgnoreIndex, SourceInfo
from pathgate.runtime.ignore._probe import DirAnchors, _lstat_sig
from pathgate.runtime.ignore._rules import NO_MATCH, Match, decide
from pathgate.runtime.ignore._upper import is_above
from pathgate.verdicts import Rule

__all__ = ["Explanation", "IgnoreSession"]

_NONE: frozenset[str] = frozenset()

class Explanation(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the CLI's ``explain`` shows for one path.

    ``match`` is the decision; ``sources`` every ignore source consulted, lowest precedence
    first; ``matching`` every rule of those sources that matches the path itself, in
    precedence order (the first one decided unless an ancestor did); ``ancestors`` the
    decision made for each ancestor directory, top down, until one was excluded.
    """

    relpath: str
    match: Match
    sources: tuple[SourceInfo, ...]
    matching: tuple[Rule, ...]
    ancestors: tuple[tuple[str, Match], ...]


class IgnoreSession:
    """One call's view of an :class:`IgnoreIndex` (not shared between threads)."""

    def __init__(self, index: IgnoreIndex, *, extra: Mapping[str, Sequence[str]] | None = None,
                 private: bool = False, dir_fd: Callable[[str], int | None] | None = None) -> None:
        """``private``: the nodes this session builds are neither taken from nor stored in
        the index's shared cache (a one-shot run such as ``check-ignore``, whose session
        holds every directory it saw anyway: no second copy, no lock per directory).
        ``dir_fd``: the caller's open descriptor of a directory by relpath, or ``None``."""
        self._index = index
        self._dir_fd = dir_fd
        self._extra = extra
        self._shared = extra is None and not private
        g = _current_globals(index)  # (IgnoreIndex._current_globals, one frame less)
        self._globals = g
        self._fold = g.fold
        self._dirs: dict[str, DirNode] = {}
        self._fs = index.fs
        self._root = index.root
        self._isdir_of = self._lstat_isdir
        # the directories a caller holds open, proven unchanged by their own ``fstat``
        # (:meth:`_down_held`): the real filesystem, the shared cache, its anchors made
        anchors = index._anchors
        fast = self._anchors = (anchors, dir_fd) if (
            dir_fd is not None and self._shared and anchors is not None and type(index.fs) is OsFS) else None
        top = g.node
        if top.stop is not None:  # every path fails closed
            self._dirs[""] = DirNode("", top, top.stop, (), (), ())
        elif fast is not None:
            self._down_held([""], top, *fast)
        else:
            self._dir("")

    # -- public ------------------------------------------------------------------------

    @property
    def index(self) -> IgnoreIndex:
        return self._index

    @property
    def ignore_case(self) -> bool:
        return self._fold

    @property
    def global_sources(self) -> frozenset[str]:
        """The repository-wide sources as their rules name them (the built-in list,
        ``core.excludesFile`` as configured, ``.git/info/exclude``): not per-directory files,
        whatever their spelling (a relative excludes file reads like one)."""
        return frozenset(s.source for s in self._globals.node.sources)

    def match(self, relpath: str, is_dir: bool | None = None) -> Match:
        """Decide one path. ``is_dir=None``: lstat it (a symlink is not a directory)."""
        if not relpath:
            return NO_MATCH
        parent_rel, _, name = relpath.rpartition("/")
        node = self._dirs.get(parent_rel)
        if node is None:
            node = self._dir(parent_rel)
        if node.stop is not None:
            return node.stop
        return self._match_in(node, relpath, name, is_dir)

    def match_pathspec(self, path: str) -> Match:
        """``git check-ignore``'s decision for a normalized path that may be ``""`` or end
        with ``/`` (then every component is tested as a directory and the final test runs
        with an empty basename, exactly as git's ``last_matching_pattern``)."""
        if not path.endswith("/"):
            return self.match(path)
        dirpart = path[:-1]
        node = self._dir(dirpart)
        if node.stop is not None:
            return node.stop
        if not node.chain:
            return NO_MATCH
        path_v, _ = self._views(path, "")
        pt = decide(node.chain, path_v, "", None, self._isdir_of, path)
        return NO_MATCH if pt is None else pt.match

    def match_with_extra(self, relpath: str, extra: Mapping[str, Sequence[str]],
                         is_dir: bool | None = None) -> Match:
        """Decide as if ``extra[d]`` lines were appended to directory ``d``'s last agent
        ignore file (in memory; nothing written). Used to verify remedies."""
        return IgnoreSession(self._index, extra=dict(extra)).match(relpath, is_dir)

    def sources(self, relpath: str) -> list[str]:
        """The ignore sources consulted for ``relpath``, lowest precedence first."""
        return [s.source for s in self.source_infos(relpath)]

    def source_infos(self, relpath: str) -> list[SourceInfo]:
        """Like :meth:`sources`, with each source's state (read, unreadable, symlink)."""
        parent_rel = relpath.rpartition("/")[0] if relpath else ""
        nodes: list[DirNode] = []
        node: DirNode | None = self._dir(parent_rel)
        if node is not None and node.stop is not None and node.stop.ancestor is not None \
                and not is_above(node.stop.ancestor):
            node = self._dir(node.stop.ancestor).parent
        while node is not None:
            nodes.append(node)
            node = node.parent
        out: list[SourceInfo] = []
        for n in reversed(nodes):
            out.extend(n.sources)
        return out

    def is_dir_excluded(self, reldir: str) -> Match | None:
        """The excluded-directory match covering ``reldir`` (itself or an ancestor), or
        ``None`` when walking into it is allowed."""
        node = self._dir(reldir)
        if node.stop is not None:
            return node.stop
        return None

    def explain(self, relpath: str, is_dir: bool | None = None) -> Explanation:
        """The decision plus every source consulted and every rule that matches."""
        m = self.match(relpath, is_dir)
        ancestors: list[tuple[str, Match]] = []
        parts = relpath.split("/")[:-1] if relpath else []
        cur = ""
        for part in parts:
            cur = f"{cur}/{part}" if cur else part
            am = self._dir(cur).stop
            if am is not None and am.ancestor == cur:
                ancestors.append((cur, am))
                break
            if am is not None:
                break
            parent_rel = cur.rpartition("/")[0]
            pm = self._match_in(self._dir(parent_rel), cur, part, True)
            ancestors.append((cur, pm))
        matching: list[Rule] = []
        parent_rel, _, name = relpath.rpartition("/")
        node = self._dir(parent_rel)
        if node.stop is None:
            path_v, name_v = self._views(relpath, name)
            isd = is_dir
            if isd is None:
                isd = self._lstat_isdir(relpath)
            for lst in node.chain:
                rel = path_v[len(lst.base):] if lst.base else path_v
                matching.extend(pt.rule for pt in lst.matching(name_v, rel, not isd))
        return Explanation(relpath=relpath, match=m,
                           sources=tuple(self.source_infos(relpath)),
                           matching=tuple(matching), ancestors=tuple(ancestors))

    # -- the walker's interface -----------------------------------------------------------

    @property
    def ignore_names(self) -> frozenset[str]:
        """The per-directory ignore file names (``.gitignore`` and the agent files)."""
        return self._index.ignore_names

    def dir_node(self, reldir: str) -> DirNode:
        """The validated node of directory ``reldir`` (or the node that stops above it):
        where a walk starts. ``node.stop`` is set when nothing below may be entered."""
        return self._dir(reldir)

    def held_dir(self, rel: str, dirs: DirFds) -> tuple[int, DirNode | None]:
        """The read route's step into directory ``rel`` (``""`` is the root): what
        ``dirs.trim()``, then ``dirs.get(rel)`` and -- when it opened -- :meth:`dir_node`
        give, as ``(descriptor, node)``; ``(-1, None)`` when ``dirs.get`` raises
        ``OSError``/``ValueError``. ``dirs`` must be the descriptors this session was made
        with (``dir_fd=dirs.held``).

        Fused for a batch in walk order: from the deepest level ``dirs`` holds open (whose
        node this session has validated), each missing level is opened from its parent's
        descriptor (``O_DIRECTORY | O_NOFOLLOW``, kept in ``dirs`` as ``dirs.get`` keeps it)
        and, unless this session validated it already, validated by :meth:`_down_held`'s
        proof on that very descriptor -- the same system calls and the same nodes as the two
        calls made one after the other, in one walk instead of two. Anything else (the root,
        a level deeper than ``DirFds.CACHE_DEPTH``, a filesystem seam, no proofs) is the two
        calls themselves."""
        if len(dirs._fds) >= dirs.CACHE_FDS:
            dirs.trim()  # (none of its descriptors is held by the caller here)
        fds = dirs._fds  # DirFds' own bookkeeping, kept exactly as ``DirFds.get`` keeps it
        fast = self._anchors
        if fast is not None and rel and type(dirs.ops) is OsFS and rel.count("/") < dirs.CACHE_DEPTH - 1:
            sdirs = self._dirs
            fd = fds.get(rel)
            if fd is not None:
                node = sdirs.get(rel)
                if node is not None:
                    return fd, node
            else:
                cur, fd, missing = dirs.deepest_open(rel)
                parent = sdirs.get(cur)
                if fd is not None and parent is not None:
                    return self._open_down(missing, fd, parent, fds, dirs._open_dir, fast)
        try:
            fd = dirs.get(rel)
        except (OSError, ValueError):
            return -1, None
        return fd, self._dir(rel)

    def held_walk(self, dirs: DirFds) -> Callable[[str], tuple[int, DirNode | None]]:
        """``lambda rel: self.held_dir(rel, dirs)`` for a batch's many directories: the same
        answers, system calls and nodes, with what does not change during the batch (the
        session's anchors, ``dirs``' seam and limits) looked up once, and the common step --
        each missing level opened from its open parent and proven by one ``fstat`` of its
        new descriptor (:func:`_still_proved`) -- written out without a frame per level.
        Anything else is :meth:`held_dir` itself."""
        held_dir = self.held_dir
        fast = self._anchors
        if fast is None or type(dirs.ops) is not OsFS:
            return lambda rel: held_dir(rel, dirs)
        sdirs = self._dirs
        nodes = self._index._nodes
        move_to_end = nodes.move_to_end
        record = fast[0].record
        anchors = fast[0]
        open_, flags = os.open, DIR_FLAGS  # (``dirs._open_dir`` on the real filesystem, without its partial)
        cap_fds, max_cut = dirs.CACHE_FDS, dirs.CACHE_DEPTH - 1
        proved_child = self._proved_child

        def step(rel: str) -> tuple[int, DirNode | None]:
            fds = dirs._fds
            if len(fds) >= cap_fds or not rel or rel in fds or rel.count("/") >= max_cut:
                return held_dir(rel, dirs)  # (open already: its node, else the general way)
            up, _, name = rel.rpartition("/")  # (``""``: the root)
            fd = fds.get(up)
            if fd is not None:  # walk order: the parent is open (one level)
                levels: Sequence[tuple[str, str]] = ((rel, name),)
            else:  # (``dirs.deepest_open``, each level with its name)
                todo = [(rel, name)]
                while up:
                    cur = up
                    up, _, name = cur.rpartition("/")
                    todo.append((cur, name))
                    fd = fds.get(up)
                    if fd is not None:
                        break
                if fd is None:
                    return held_dir(rel, dirs)
                todo.reverse()  # (top down)
                levels = todo
            parent = sdirs.get(up)
            if parent is None:
                return held_dir(rel, dirs)
            fstat = anchors.fstat  # (a seam for tests: read per step, as ``_open_down`` does)
            for r, name in levels:
                try:
                    fd = fds[r] = open_(name, flags, dir_fd=fd)
                except (OSError, ValueError):
                    return -1, None
                node = sdirs.get(r)
                if node is None:
                    if parent.stop is not None:
                        node = sdirs[r] = parent  # excluded or fail-closed above (as ``_down_held``)
                    else:
                        cached = nodes.get(r)
                        proof = None if cached is None or cached.parent is not parent else cached.proof
                        if proof is not None:  # ``_still_proved``, written out
                            st = fstat(fd)
                            if proof[0] == (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_size,
                                            st.st_mtime_ns, st.st_ctime_ns) and (
                                    not proof[1] or all(_lstat_sig(n, fd) == sig for n, sig in proof[1])):
                                try:
                                    move_to_end(r)
                                except KeyError:
                                    pass
                                node = cached
                        if node is None:  # no proof, or it failed: ``_down_held``'s own way
                            node = proved_child(parent, r, record)
                        sdirs[r] = node
                parent = node
            return fd, parent

        return step

    def _open_down(self, missing: list[str], fd: int, parent: DirNode, fds: dict[str, int],
                   open_dir: Callable[..., int], fast: tuple[DirAnchors, Callable[[str], int | None]]
                   ) -> tuple[int, DirNode | None]:
        """:meth:`held_dir`'s walk down ``missing`` (deepest first) from the open, validated
        level ``fd``/``parent``: open each level from its parent (kept in ``fds``), then its
        node -- this session's own, or the one :meth:`_down_held` proves on the new descriptor
        (inline for a cached node whose proof holds)."""
        sdirs = self._dirs
        nodes = self._index._nodes
        fstat = fast[0].fstat
        for r in reversed(missing):
            try:
                fd = fds[r] = open_dir(r[r.rfind("/") + 1:], dir_fd=fd)
            except (OSError, ValueError):
                return -1, None
            node = sdirs.get(r)
            if node is None:
                if parent.stop is not None:
                    node = sdirs[r] = parent  # excluded or fail-closed above (as ``_down_held``)
                else:
                    cached = nodes.get(r)
                    if cached is not None and cached.parent is parent and _still_proved(nodes, r, cached, fd, fstat):
                        node = cached
                    if node is None:  # no proof, or it failed: ``_down_held``'s own way
                        node = self._proved_child(parent, r, fast[0].record)
                    sdirs[r] = node
            parent = node
        return fd, parent

    def enter_child(self, parent: DirNode, rel: str, name: str, decided: Match,
                    present: frozenset[str] | None) -> DirNode:
        """The node of an allowed child directory ``rel`` of ``parent`` whose own decision
        (``decided``) the walker already made; ``present`` names the ignore files its
        listing showed (absent ones then cost no ``lstat``)."""
        node = self._dirs.get(rel)
        if node is None:
            if present is not None and not present and self._extra is None and not decided.ignored:
                node = self._plain_child(parent, rel, name, decided)
            else:
                node = self._child(parent, rel, name, decided, present)
            self._dirs[rel] = node
        return node

    def _plain_child(self, parent: DirNode, rel: str, name: str, decided: Match) -> DirNode:
        """:meth:`_child` of an allowed directory whose listing shows no ignore file (most
        of them), without extra lines: its cached node when that is valid (same parent, no
        stop, no ignore file when cached), else a new node with no lists of its own."""
        index = self._index
        none = index._no_sigs
        if self._shared:
            cached = index._lookup(rel)
            if cached is not None and cached.parent is parent:
                if cached.stop is not None:
                    return self._child(parent, rel, name, decided, _NONE)
                if cached.sigs == none:
                    return cached
            node = DirNode(rel, parent, None, (), none, ())
            index._store(node)
            return node
        return DirNode(rel, parent, None, (), none, ())

    # -- internals -------------------------------------------------------------------------

    def _views(self, path: str, name: str) -> tuple[str, str]:
        if path.isascii():
            if self._fold:
                return path.lower(), name.lower()
            return path, name
        pv = os.fsencode(path)
        nv = os.fsencode(name)
        if self._fold:
            pv = pv.lower()
            nv = nv.lower()
        return pv.decode("latin-1"), nv.decode("latin-1")

    def _lstat_isdir(self, relpath: str) -> bool:
        try:
            st = self._fs.lstat(os.path.join(self._root, relpath))
        except OSError:
            return False
        return _stat.S_ISDIR(st.st_mode)

    def decide_entry(self, node: DirNode, relpath: str, name: str, is_dir: bool | None) -> Match:
        """Decide an entry (``relpath``, basename ``name``) of allowed directory ``node``
        (the walker's per-entry call)."""
        chain = node.chain
        if not chain:
            return NO_MATCH
        if relpath.isascii() and not self._fold:
            path_v, name_v = relpath, name
        else:
            path_v, name_v = self._views(relpath, name)
        plan = node.plan
        if plan is not None and is_dir is not None:
            memo = plan.memo  # a basename-only chain: its decision per name, remembered
            if memo is not None:
                got = memo[is_dir].get(name_v)
                if got is not None:
                    return got
            return plan.decide(path_v, name_v, is_dir)
        pt = decide(chain, path_v, name_v, is_dir, self._isdir_of, relpath)
        return NO_MATCH if pt is None else pt.match

    def file_memo(self, node: DirNode) -> Mapping[str, Match] | None:
        """The decisions :meth:`decide_entry` remembers for non-directory entries of allowed
        directory ``node`` by name, valid for an ASCII relpath (``decide_entry(node, relpath,
        name, False)`` is ``memo[name]`` where it holds ``name``), or ``None`` (no such
        memory yet, or names are case-folded): a batch looks names up there first."""
        if not node.chain or self._fold:
            return None
        plan = node.plan
        memo = None if plan is None else plan.memo
        return None if memo is None else memo[False]

    def _dir(self, rel: str, present: frozenset[str] | None = None) -> DirNode:
        """The validated node of directory ``rel`` (or the node that stops above it).

        Iterative, so any depth works: find the deepest ancestor this session already
        validated, then validate or build the missing directories top down. ``present``
        (which ignore files exist) describes ``rel`` itself only.
        """
        dirs = self._dirs
        node = dirs.get(rel)
        if node is not None:
            return node
        fast = self._anchors
        parent = None
        if fast is not None and present is None and rel:  # the parent validated already (walk order)
            cut = rel.rfind("/")
            parent = dirs.get(rel[:cut] if cut >= 0 else "")
            if parent is not None:
                return self._down_held((rel,), parent, *fast)
        missing = [rel]
        cur = rel
        while cur:
            cut = cur.rfind("/")
            cur = cur[:cut] if cut >= 0 else ""
            parent = dirs.get(cur)
            if parent is not None:
                break
            missing.append(cur)
        if parent is None:  # not even the root yet (only while the session starts)
            parent = self._globals.node
        if rel.count("/") >= _descent.DEEP - 1 and type(self._fs) is OsFS:
            return self._deep(rel, missing, parent, present)
        return self._down(rel, missing, parent, present)

    def _deep(self, rel: str, missing: list[str], parent: DirNode,
              present: frozenset[str] | None) -> DirNode:
        """:meth:`_down` with each level past :data:`._descent.DEEP` reached from its parent's
        descriptor (:class:`._descent.Descent`): linear in the depth, not quadratic."""
        held, fast = self._dir_fd, self._anchors
        descent = _descent.Descent(self._root, held, self._index._longest_name, missing[::-1])
        anchors = self._index._anchors
        self._dir_fd = descent
        if self._shared and anchors is not None:
            self._anchors = (anchors, descent)
        try:
            return self._down(rel, missing, parent, present)
        finally:
            self._dir_fd, self._anchors = held, fast
            descent.close()

    def _down(self, rel: str, missing: list[str], parent: DirNode,
              present: frozenset[str] | None) -> DirNode:
        """Validate or build ``missing`` (deepest first) below ``parent``."""
        dirs = self._dirs
        fast = self._anchors
        if fast is not None and present is None:
            return self._down_held(missing, parent, *fast)
        for r in reversed(missing):
            if r and parent.stop is not None:
                dirs[r] = parent  # excluded or fail-closed above: it decides everything below
                continue
            parent = self._child(parent, r, r[r.rfind("/") + 1:], None,
                                 present if r == rel else None)
            dirs[r] = parent
        return parent

    def _down_held(self, missing: Sequence[str], parent: DirNode, anchors: DirAnchors,
                   held: Callable[[str], int | None]) -> DirNode:
        """:meth:`_dir`'s walk down ``missing`` (deepest first) from ``parent`` through
        directories the caller holds open. A directory whose cached node is still below
        ``parent`` and carries a proof (:attr:`DirNode.proof`) costs one ``fstat`` of its
        descriptor: equal to the proof's directory signature, its missing ignore files are
        still missing (an entry created, removed or renamed changes the directory's ``mtime``
        and ``ctime``), and each present one gets its own ``lstat`` (an in-place edit does
        not touch the directory) -- exactly what :meth:`IgnoreIndex._own_sigs` checks through
        :class:`._probe.DirAnchors`. Any other directory is :meth:`_child`'s, and gets a
        proof when the anchors recorded one for what it found."""
        dirs = self._dirs
        nodes = self._index._nodes
        fstat = anchors.fstat
        record = anchors.record
        for r in reversed(missing):
            if r and parent.stop is not None:
                dirs[r] = parent  # excluded or fail-closed above: it decides everything below
                continue
            cached = nodes.get(r)
            if cached is not None and cached.parent is parent and cached.proof is not None:
                fd = held(r)
                if fd is not None and _still_proved(nodes, r, cached, fd, fstat):
                    dirs[r] = parent = cached
                    continue
            dirs[r] = parent = self._proved_child(parent, r, record)
        return parent

    def _proved_child(self, parent: DirNode, r: str,
                      record: dict[str, tuple[tuple[Any, ...], tuple[int, ...], bool]]) -> DirNode:
        """:meth:`_down_held`'s node for a directory its proof did not cover: :meth:`_child`'s,
        with a proof when the anchors recorded one for what it found."""
        node = self._child(parent, r, r[r.rfind("/") + 1:], None, None)
        if node.stop is None and node.proof is None:
            known = record.get(r)
            if known is not None and known[0] == node.sigs:
                # the anchors saw exactly these files right after the directory had this
                # signature (and not racily young): that is the proof
                node.proof = (known[1], tuple((name, sig) for name, sig in
                                              zip(self._index._ignore_names, known[0], strict=True)
                                              if sig is not None))
        return node

    def _child(self, parent: DirNode, rel: str, name: str, decided: Match | None,
               present: frozenset[str] | None) -> DirNode:
        """Validate or build the node of ``rel`` (an entry of allowed ``parent``)."""
        index = self._index
        extra = self._extra
        shared = self._shared
        cached = index._lookup(rel) if shared else None
        if cached is not None and cached.parent is parent:
            if cached.stop is not None and cached.stop.ancestor == rel:
                return cached
            if cached.stop is None or cached.stop.fail_closed:
                sigs = index._own_sigs(rel, present,
                                       None if self._dir_fd is None else self._dir_fd(rel))
                if sigs == cached.sigs:
                    return cached
        # decide the directory itself against its parent's chain
        if rel:
            m = decided if decided is not None else self._match_in(parent, rel, name, True)
            if m.ignored:
                node = DirNode(rel, parent, Match(ignored=True, rule=m.rule, ancestor=rel), (), (), ())
                if shared:
                    index._store(node)
                return node
        sigs = index._own_sigs(rel, present, None if self._dir_fd is None else self._dir_fd(rel))
        node = index._read_own(rel, parent, sigs, self._fold, cached,
                               extra.get(rel) if extra is not None else None)
        if shared:
            index._store(node)
        return node

    _match_in = decide_entry


def _still_proved(nodes: OrderedDict[str, DirNode], r: str, cached: DirNode, fd: int,
                  fstat: Callable[[int], os.stat_result]) -> bool:
    """Does ``cached``'s proof (:attr:`DirNode.proof`) still hold for the directory open at
    ``fd``: one ``fstat`` equal to the proof's directory signature, and each present ignore
    file's own ``lstat`` equal to its? Then the node is the index's most recent (as
    :meth:`IgnoreIndex._lookup` does)."""
    proof = cached.proof
    if proof is None:
        return False
    st = fstat(fd)
    if proof[0] != (st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
        return False
    if proof[1] and not all(_lstat_sig(name, fd) == sig for name, sig in proof[1]):
        return False
    try:
        nodes.move_to_end(r)
    except KeyError:
        pass
    return True
