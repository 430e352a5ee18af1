"""git's configuration files read with their includes, as ``config.c`` reads them.

``[include] path`` is followed unconditionally; ``[includeIf "<condition>"] path`` when the
condition holds: ``gitdir:``/``gitdir/i:`` (the git directory matches the pattern),
``onbranch:`` (``HEAD`` names a matching branch), ``hasconfig:remote.*.url:`` (some
``remote.<name>.url`` value anywhere in the configuration matches the pattern, with
``WM_PATHNAME``). For the last, git first reads every file with each ``hasconfig`` condition
taken as true to collect the URLs, and dies when a file included by an ``includeIf`` holds a
remote URL in that pass (``forbid_remote_url``): pathgate does the same. Unknown conditions
are false.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from pathgate.runtime.ignore import _gitconfig
from pathgate.runtime.ignore._gitconfig import (
    _MAX_INCLUDE_DEPTH,
    GitLayout,
    config_files,
    expand_path,
    parse_bool,
)
from pathgate.runtime.ignore._gitconfig_parse import ConfigEntry, GitFatal, parse_config, parse_env_parameters
from pathgate.runtime.ignore._wildmatch import Wildmatch

__all__ = ["load_config"]

_HASCONFIG = "hasconfig:remote.*.url:"
_FORBIDDEN = ("fatal: remote URLs cannot be configured in file directly or indirectly included by "
              "includeIf.hasconfig:remote.*.url")


class _Loader:
    """Reads config files with their includes, recording every path it looked at."""

    def __init__(self, layout: GitLayout | None, watched: list[str],
                 absent: Callable[[str], bool] | None = None, env: Mapping[str, str] | None = None,
                 unconditional: bool = False) -> None:
        self.layout = layout
        self.watched = watched
        self.errors: list[str] = []
        #: a config file or include target this says is a secret is read as missing (never
        #: parsed: its errors or its mere existence would reach the model through a
        #: fail-closed answer)
        self.absent = absent
        self.env: Mapping[str, str] = {} if env is None else env
        #: git's ``unconditional_remote_url`` pass: every ``hasconfig`` condition holds, and
        #: a file an ``includeIf`` includes may hold no remote URL
        self.unconditional = unconditional
        self.remote_urls: list[str] | None = None

    def file(self, path: str, shown: str, eacces_fatal: bool, depth: int = 0, forbid: bool = False
             ) -> list[ConfigEntry]:
        self.watched.append(path)
        if self.absent is not None and self.absent(path):
            return []  # read as missing: `.git/config -> ../.env` (red team 18 J1), any config file
        try:
            if not _gitconfig._access(path, os.R_OK):
                err = OSError(13, os.strerror(13)) if os.path.lexists(path) else None
                if err is None or not eacces_fatal:
                    return []
                raise err
            data = _gitconfig._read_small(path)
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            return []
        except OSError as exc:
            if exc.errno == 21:
                raise GitFatal(f"warning: unable to access '{shown}': {os.strerror(21)}\n"
                               "fatal: unknown error occurred while reading the configuration "
                               "files", shown) from None
            msg = f"unable to access '{shown}': {os.strerror(exc.errno or 5)}"
            if self.layout is not None and path == os.path.join(self.layout.common_dir, "config"):
                msg = f"warning: {msg}\nfatal: {msg}"  # git's repository-format check warned
            else:
                msg = f"fatal: {msg}"
            raise GitFatal(msg, shown) from None
        text = data.decode("utf-8", "surrogateescape")
        out: list[ConfigEntry] = []
        for e in parse_config(text, shown, path, self.errors):
            if forbid and _is_remote_url(e):
                raise GitFatal(_FORBIDDEN, shown)
            out.append(e)
            inc = self._include_target(e)
            if inc is not None:
                if depth >= _MAX_INCLUDE_DEPTH:
                    raise GitFatal(f"fatal: exceeded maximum include depth "
                                   f"({_MAX_INCLUDE_DEPTH}) while including\n\t{inc[1]}\n"
                                   f"from\n\t{shown}", shown)
                if self.absent is not None and self.absent(inc[0]):
                    self.watched.append(inc[0])
                    continue
                out.extend(self.file(inc[0], inc[1], False, depth + 1, forbid or self.forbids(e)))
        return out

    def forbids(self, e: ConfigEntry) -> bool:
        """Does the file ``e`` includes (and all it includes) forbid remote URLs?"""
        return self.unconditional and e.key.startswith("includeif.")

    def _include_target(self, e: ConfigEntry) -> tuple[str, str] | None:
        """The file an ``include.path``/``includeIf.*.path`` entry names, if it applies:
        ``(path, how git names it)``."""
        if e.value is None or not e.key.endswith(".path"):
            return None
        if e.key == "include.path":
            pass
        elif e.key.startswith("includeif.") and e.key.count(".") >= 2:
            cond = e.key[len("includeif."):-len(".path")]
            if not self._condition(cond, e):
                return None
        else:
            return None
        target = expand_path(e.value)
        if target.startswith("/"):
            return target, target
        if e.path is None or e.origin is None:
            raise GitFatal("fatal: relative config includes must come from files")
        shown_dir = os.path.dirname(e.origin)
        return (os.path.join(os.path.dirname(e.path), target),
                shown_dir + "/" + target if shown_dir else target)

    def _condition(self, cond: str, e: ConfigEntry) -> bool:
        if cond.startswith(_HASCONFIG):
            return self._by_remote_url(cond[len(_HASCONFIG):])
        if self.layout is None:
            return False
        if cond.startswith("gitdir:"):
            return self._by_gitdir(cond[7:], e, False)
        if cond.startswith("gitdir/i:"):
            return self._by_gitdir(cond[9:], e, True)
        if cond.startswith("onbranch:"):
            return self._by_branch(cond[9:])
        return False

    def _by_gitdir(self, pat: str, e: ConfigEntry, icase: bool) -> bool:
        pat = expand_path(pat)
        prefix = 0
        if pat.startswith("./"):
            if e.path is None:
                raise GitFatal("fatal: relative config include conditionals must come from "
                               "files")
            base = os.path.dirname(os.path.realpath(e.path)) + "/"
            pat = base + pat[2:]
            prefix = len(base)
        elif not pat.startswith("/"):
            pat = "**/" + pat
        if pat.endswith("/"):
            pat += "**"
        assert self.layout is not None
        real = os.path.realpath(self.layout.git_dir)
        for text in (real, os.path.abspath(self.layout.git_dir)):
            if prefix:
                a, b = pat[:prefix], text[:prefix]
                if len(text) < prefix or (a.lower() != b.lower() if icase else a != b):
                    continue
            if Wildmatch(pat[prefix:], True, icase)(text[prefix:]):
                return True
        return False

    def _by_remote_url(self, pat: str) -> bool:
        """git's ``include_by_remote_url``: true in the collecting pass; else some remote
        URL of the whole configuration (collected once, lazily, as git does) matches."""
        if self.unconditional:
            return True
        if self.remote_urls is None:
            sub = _Loader(self.layout, self.watched, self.absent, self.env, unconditional=True)
            self.remote_urls = [e.value for e in _load_all(sub) if e.value is not None and _is_remote_url(e)]
        match = Wildmatch(pat, True, False)
        return any(match(url) for url in self.remote_urls)

    def _by_branch(self, pat: str) -> bool:
        assert self.layout is not None
        head = os.path.join(self.layout.git_dir, "HEAD")
        self.watched.append(head)
        try:
            data = _gitconfig._read_small(head).decode("utf-8", "surrogateescape")
        except OSError:
            return False
        if not data.startswith("ref: refs/heads/"):
            return False
        branch = data[len("ref: refs/heads/"):].rstrip("\n")
        if pat.endswith("/"):
            pat += "**"
        return Wildmatch(pat, True, False)(branch)


def load_config(layout: GitLayout | None, env: Mapping[str, str], watched: list[str],
                absent: Callable[[str], bool] | None = None) -> tuple[list[ConfigEntry], list[str]]:
    """Every config entry git would see, in order, and git's non-fatal ``error:`` lines
    (a config file or include target ``absent`` names is read as missing)."""
    loader = _Loader(layout, watched, absent, env)
    return _load_all(loader), loader.errors


def _load_all(loader: _Loader) -> list[ConfigEntry]:
    layout, env, absent = loader.layout, loader.env, loader.absent
    entries: list[ConfigEntry] = []
    for path, shown, eacces_fatal in config_files(layout, env):
        entries.extend(loader.file(path, shown, eacces_fatal))
    if layout is not None:
        local = [e for e in entries if e.origin == layout.common_display + "/config"]
        wt = [e for e in local if e.key == "extensions.worktreeconfig"]
        if wt and parse_bool(wt[-1].value):
            entries.extend(loader.file(os.path.join(layout.git_dir, "config.worktree"),
                                       layout.git_display + "/config.worktree", True))
    for e in parse_env_parameters(env):
        entries.append(e)
        inc = loader._include_target(e)
        if inc is not None and not (absent is not None and absent(inc[0])):
            entries.extend(loader.file(inc[0], inc[1], False, 1, loader.forbids(e)))
    return entries


def _is_remote_url(e: ConfigEntry) -> bool:
    """Is ``e`` a ``remote.<name>.url`` (``parse_config_key`` with a subsection, maybe
    empty)?"""
    section, _, rest = e.key.partition(".")
    return section == "remote" and "." in rest and rest.rsplit(".", 1)[1] == "url"
