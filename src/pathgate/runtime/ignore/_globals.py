"""The repository-wide ignore sources of an :class:`~._index.IgnoreIndex`.

git's layout and configuration (:mod:`._gitconfig`), ``core.excludesFile`` and
``.git/info/exclude``: resolved and read once per change, then validated in every session
(or within the index's ``globals_ttl``) by the probe (:mod:`._probe`) or, when it cannot
answer, by the exact check (the ``GIT_*``/``HOME`` environment and a ``stat`` of every file
the last resolution read). Functions of the index, whose state they read and update.
"""

from __future__ import annotations

import errno
import os
import stat as _stat
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from pathgate.runtime.fs import OsFS
from pathgate.runtime.ignore import _gitconfig, _upper
from pathgate.runtime.ignore._rules import IgnoreList, Match
from pathgate.runtime.ignore._secret_sources import spellings
from pathgate.verdicts import BUILTIN_SOURCE

if TYPE_CHECKING:
    from pathgate.runtime.ignore._index import DirNode, IgnoreIndex, SourceInfo, _Sig
    from pathgate.runtime.ignore._probe import Probe

__all__ = ["Globals", "current_globals", "make_probe"]


class Globals:
    """Repository-wide state resolved once per change: git layout, config, global lists."""

    __slots__ = ("config", "fold", "hooks", "key", "names", "node", "paths", "steering", "top", "upper",
                 "warnings")

    def __init__(self, key: object, fold: bool, node: DirNode, warnings: tuple[str, ...],
                 paths: tuple[str, ...], steering: tuple[str, ...] = (),
                 upper: tuple[tuple[str, _Sig], ...] = (), hooks: str | None = None,
                 config: tuple[tuple[str, str | None], ...] = (), top: str | None = None) -> None:
        self.key = key
        #: the top of the work tree when the root lies below it (git runs hooks there), else ``None``
        self.top = top
        #: every ``(key, value)`` of git's configuration, in order (:meth:`IgnoreIndex.git_config`)
        self.config = config
        #: the directory git runs hooks from (``core.hooksPath`` or the repository's
        #: ``hooks/``), ``None`` without a repository: what its scripts run is never writable
        self.hooks = hooks
        self.paths = paths
        #: a root below the top of its work tree: each ``.gitignore`` above it looked at, with
        #: its ``lstat`` signature (``None``: missing), validated with the others (:mod:`._upper`)
        self.upper = upper
        #: every file git's configuration was (or would be) read from, the excludes file,
        #: ``core.hooksPath`` and ``core.attributesFile``: what a write could loosen git with
        self.steering = steering
        self.fold = fold
        self.node = node
        self.warnings = warnings
        #: each repository-wide source's label -> its absolute spellings (as written,
        #: normalised, real target): what the host filter is asked about it
        #: (:func:`._secret_sources.source_names`)
        self.names: dict[str, tuple[str, ...]] = {}


def config_key(ix: IgnoreIndex) -> tuple[object, ...]:
    """The exact check's key: the environment, and the files git's layout and config
    resolution read last time with their signatures."""
    cfg = ix.config
    if not cfg.git_sources and cfg.ignore_case is not None:
        return ()
    # the environment, and the files git's layout/config resolution looked at last time
    return (_gitconfig.env_key(),
            *((p, ix._stat_sig(p, follow=True)) for p in ix._git_watch))


def load_globals(ix: IgnoreIndex, key: tuple[object, ...]) -> Globals:
    """Resolve the git layout and config, then read ``core.excludesFile`` and
    ``info/exclude`` (both followed through symlinks, like git)."""
    from pathgate.runtime.ignore._index import DirNode, SourceInfo, _err_name, _stale

    cfg = ix.config
    settings, fatal, key = _resolve_stable(ix, key)
    fold = cfg.ignore_case if cfg.ignore_case is not None else \
        bool(settings is not None and settings.ignore_case)
    lists: list[IgnoreList] = []
    sources: list[SourceInfo] = []
    sigs: list[_Sig] = []
    stop: Match | None = None
    warnings: list[str] = []
    paths: list[str] = []
    names: dict[str, tuple[str, ...]] = {}
    if ix._builtin is not None:
        builtin = ix._builtin
        if fold:
            if ix._builtin_folded is None:
                ix._builtin_folded = IgnoreList.from_strings(
                    BUILTIN_SOURCE, "", cfg.defaults, True)
            builtin = ix._builtin_folded
        lists.append(builtin)
        sources.append(SourceInfo(source=BUILTIN_SOURCE, state="builtin", rules=len(builtin)))
    if fatal is not None:
        # where git exits 128 (a malformed .git file, a bad or unreadable config, an
        # exclude file that is a directory): core.excludesFile and core.ignoreCase are
        # unknown, so every path fails closed (the reason is warned and logged)
        shown = fatal.source or "<git config>"
        warnings.append(str(fatal).splitlines()[-1])
        sources.append(SourceInfo(source=shown, state="unreadable", error="GitFatal"))
        stop = Match(ignored=True, fail_closed=True, unreadable=shown)
    # a root below the top of its work tree (:mod:`._upper`): sources labelled from the root,
    # read here and translated with the .gitignore files above the root
    up = _upper.Upper(settings.top, ix.root) if settings is not None and settings.top is not None \
        and cfg.git_sources else None
    read: list[tuple[str, bytes, _Sig]] = []  # (label, bytes, signature) of each source read
    if cfg.git_sources:
        # the excludes file and info/exclude as _gitconfig resolved them
        cands: list[tuple[str, str]] = []
        if settings is not None and settings.excludes_file:
            cands.append((settings.excludes_display, settings.excludes_file))
        if settings is not None and settings.info_exclude:
            cands.append((settings.info_exclude_display, settings.info_exclude))
        for shown, path in cands:
            if up is not None:
                shown = up.label(shown)
            names[shown] = spellings(path)
            sig = ix._stat_sig(path, follow=True)
            sigs.append(sig)
            paths.append(path)
            if sig is None:
                continue
            try:
                data = ix.fs.read_bytes(os.path.realpath(path))
            except OSError as e:
                if e.errno == errno.EISDIR:
                    continue
                if e.errno == errno.EINVAL:
                    # a special file (``/dev/null``, a FIFO, ``/dev/zero``): never read,
                    # no rules (git reads a device's zero ``st_size`` as empty)
                    sources.append(SourceInfo(source=shown, state="special"))
                    continue
                sigs[-1] = _stale(e.errno)  # read again by the next session
                if e.errno in (errno.ENOENT, errno.ENOTDIR):
                    continue
                warnings.append(f"unable to access '{shown}': {os.strerror(e.errno or 0)}")
                sources.append(SourceInfo(source=shown, state="unreadable",
                                          error=_err_name(e.errno)))
                if cfg.fail_closed and stop is None:
                    stop = Match(ignored=True, fail_closed=True, unreadable=shown)
                continue
            if up is not None:
                read.append((shown, data, sig))
                continue
            lst = IgnoreList.compiled(shown, "", data, fold, sig)
            lists.append(lst)
            sources.append(SourceInfo(source=shown, state="read", rules=len(lst)))
    upper: tuple[tuple[str, _Sig], ...] = ()
    if up is not None and stop is None:
        # a root below the top of its work tree: git's sources above it, translated
        stop, upper = _load_upper(ix, up, fold, read, lists, sources)
    node = DirNode("\0globals", None, stop, tuple(lists), tuple(sigs), tuple(sources))
    for w in warnings:
        ix._warn(w)
    steering = (*ix._git_watch, *paths, *(settings.steering if settings is not None else ()))
    g = Globals(key, fold, node, tuple(warnings), tuple(paths), tuple(dict.fromkeys(steering)), upper,
                settings.hooks if settings is not None else None,
                settings.config if settings is not None else (),
                settings.top if settings is not None else None)
    g.names = names
    return g


def _load_upper(ix: IgnoreIndex, up: _upper.Upper, fold: bool, read: list[tuple[str, bytes, _Sig]],
                lists: list[IgnoreList], sources: list[SourceInfo]
                ) -> tuple[Match | None, tuple[tuple[str, _Sig], ...]]:
    """Append the translated repository-wide lists and the ``.gitignore`` files above the
    root (:mod:`._upper`) to ``lists``/``sources``: ``(the decision that stops everything
    under the root or None, each upper ignore file with its lstat signature)``."""
    from pathgate.runtime.ignore._index import SourceInfo

    repo_wide = read
    for label, data, sig in repo_wide:
        lst = _upper.translated(label, data, up.views, fold, sig)
        if lst is None:
            return _untranslatable(ix, label, sources), ()
        lists.append(lst)
        sources.append(SourceInfo(source=label, state="read", rules=len(lst)))
    got = _upper.read_upper(ix, up, fold, repo_wide)
    lists.extend(got.lists)
    sources.extend(got.sources)
    if got.stop is not None and got.sources and got.sources[-1].error == "untranslatable":
        _untranslatable(ix, got.stop.unreadable or "", None)
    return got.stop, tuple(got.sigs)


def _untranslatable(ix: IgnoreIndex, label: str, sources: list[SourceInfo] | None) -> Match:
    """A line above the root that :func:`_upper.derive` does not translate: fail closed."""
    from pathgate.runtime.ignore._index import SourceInfo

    if sources is not None:
        sources.append(SourceInfo(source=label, state="unreadable", error="untranslatable"))
    _gitconfig.warn("%s: a line of %s cannot be applied below the top of the work tree "
                    "(an escaped slash, or ** right after a name): every path is blocked "
                    "(fail closed); root the runtime at the top", ix.root, label)
    return Match(ignored=True, fail_closed=True, unreadable=label)


#: Resolutions of git's layout and config one load may make before it settles for a key
#: that matches nothing (the next session resolves again).
_RESOLVE_TRIES = 4


def _resolve_stable(ix: IgnoreIndex, before: tuple[object, ...]) -> tuple[
        _gitconfig.GitSettings | None, _gitconfig.GitFatal | None, tuple[object, ...]]:
    """:func:`resolve_git` and the key it is valid under. The files a resolution read are
    ``stat``-ed after it read them, so an edit landing between the read and the ``stat``
    would key the old settings on the new file's signature, unnoticed for ever; a
    resolution is kept only when the key taken before it (``before``: the previous
    resolution's files, as :func:`current_globals` took it) equals the one taken after it
    (every file had the same signature on both sides of its read). After
    :data:`_RESOLVE_TRIES` disagreements (files edited without pause) the settings are used
    for this session under a key no ``stat`` matches, so the next session resolves again."""
    for _ in range(_RESOLVE_TRIES):
        settings, fatal = resolve_git(ix)
        after = config_key(ix)  # keyed on the files this resolution read
        if after == before:
            break
        before = after
    else:
        from pathgate.runtime.ignore._index import _stale

        files = cast("tuple[tuple[str, object], ...]", after[1:])
        after = (after[0], *((path, _stale(None)) for path, _sig in files)) if after else after
    if fatal is not None:
        _gitconfig.warn("%s: every path is blocked (fail closed): %s", ix.root,
                        str(fatal).replace("\n", " / "))
    return settings, fatal, after


def resolve_git(ix: IgnoreIndex) -> tuple[_gitconfig.GitSettings | None, _gitconfig.GitFatal | None]:
    """git's layout and configuration for the root (:func:`_gitconfig.resolve`), or the
    :class:`~_gitconfig.GitFatal` git would exit 128 on (the caller logs it and fails
    closed). Records the files looked at, for :func:`config_key`."""
    cfg = ix.config
    settings: _gitconfig.GitSettings | None = None
    fatal: _gitconfig.GitFatal | None = None
    watched: list[str] = []
    if cfg.git_sources or cfg.ignore_case is None:
        try:
            top, layout = _top_of(ix, watched)
            settings = _gitconfig.resolve(top, excludes_file=cfg.excludes_file,
                                          ignore_case=cfg.ignore_case, watched=watched,
                                          layout=layout, absent=_secret_judge(ix))
            if top != ix.root:
                settings.top = top
        except _gitconfig.GitFatal as e:
            fatal = e
    ix._git_watch = tuple(dict.fromkeys(watched))
    if len(_WATCH_HINTS) >= _WATCH_HINTS_CAP:
        _WATCH_HINTS.clear()
    _WATCH_HINTS[ix.root] = ix._git_watch
    return settings, fatal


#: The files the last resolution for each root read (at most :data:`_WATCH_HINTS_CAP` roots):
#: a new index of the same root takes them as its "files read last time"
#: (:func:`watch_hint`), so its first :func:`_resolve_stable` finds the key taken before the
#: resolution equal to the one after it and resolves once, not twice. Only a hint: the key
#: proves what it always proves (each file the resolution read had the same signature before
#: and after); a wrong hint is one more resolution, as without it.
_WATCH_HINTS: dict[str, tuple[str, ...]] = {}
_WATCH_HINTS_CAP = 256


def watch_hint(root: str) -> tuple[str, ...]:
    """The files the last resolution of git's layout and config for ``root`` read."""
    return _WATCH_HINTS.get(root, ())


def _top_of(ix: IgnoreIndex, watched: list[str]) -> tuple[str, _gitconfig.GitLayout | None]:
    """The work tree top git would use and its layout (``None``: found as before). The root is
    the top when it has a ``.git`` directory or file (or the layout was given, as
    ``check-ignore`` gives it); otherwise git's discovery runs upwards (:func:`_upper.find_top`)."""
    if ix.git_layout is not None or not ix.find_top:
        return ix.root, ix.git_layout
    dotgit = os.path.join(ix.root, ".git")
    try:
        st = os.stat(dotgit)
    except OSError:
        st = None
    judge = _secret_judge(ix)
    if st is not None and judge is not None and judge(dotgit):
        st = None  # a .git that is (a link to) a secret is missing, as find_git_layout reads it
    if st is not None and (_stat.S_ISDIR(st.st_mode) or _stat.S_ISREG(st.st_mode)):
        return ix.root, None
    watched.append(os.path.join(ix.root, ".git"))  # a `git init` in the root makes it a top
    found = _upper.find_top(ix.root, watched, judge)
    return found if found is not None else (ix.root, None)


def _secret_judge(ix: IgnoreIndex) -> Callable[[str], bool] | None:
    """An exclude file that is a secret is read as absent (:mod:`._secret_sources`), where
    the index knows secrets (the runtime, the hooks; never ``check-ignore``)."""
    if ix.secret_source is None:
        return None
    from pathgate.runtime.ignore._secret_sources import is_secret_source

    return partial(is_secret_source, ix)


def current_globals(ix: IgnoreIndex) -> Globals:
    """The repository-wide sources for a new session: the ones held while the probe or the
    exact check finds them unchanged, else read again (and a new probe built)."""
    g = ix._globals
    began = ix._clock()
    if g is not None and g.node.stop is None and began - ix._globals_checked < ix.globals_ttl:
        return g  # validated less than ``globals_ttl`` ago (0: never; fail-closed: never)
    pr = ix._probe
    if (g is not None and pr is not None and pr.of is g and (not pr.retry_ns or ix._wall_ns() < pr.retry_ns)
            and pr.check(os.stat if type(ix.fs) is OsFS else ix.fs.stat, _gitconfig.ENV_KEYS)):
        ix._globals_checked = began
        return g
    key = config_key(ix)
    if (g is not None and g.key == key
            and all(ix._stat_sig(p, follow=True) == s
                    for p, s in zip(g.paths, g.node.sigs, strict=True))
            and all(ix._stat_sig(p) == s for p, s in g.upper)):
        ix._globals_checked = began
        ix._probe = make_probe(ix, g)
        return g
    g = load_globals(ix, key)
    with ix._lock:
        ix._globals = g
        ix._globals_checked = began
    ix._probe = make_probe(ix, g)
    return g


def make_probe(ix: IgnoreIndex, g: Globals) -> Probe | None:
    """A probe for ``g`` (:mod:`._probe`), when the environment still matches its key."""
    from pathgate.runtime.ignore import _probe
    from pathgate.runtime.ignore._index import _sig_of

    key = g.key
    if not isinstance(key, tuple) or not key:
        return None
    env = _probe.env_fingerprint(_gitconfig.ENV_KEYS)
    if env is None or tuple(None if v is None else os.fsdecode(v) for v in env) != key[0]:
        return None
    recorded: list[tuple[str, _Sig]] = [*key[1:], *zip(g.paths, g.node.sigs, strict=True), *g.upper]
    return _probe.build_probe(g, env, recorded, stat=ix.fs.stat, lstat=ix.fs.lstat,
                              sig_of=_sig_of, trusts_dir=ix.trusts_dir, now_ns=ix._wall_ns)
