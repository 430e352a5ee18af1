"""What an agent may never write, decided without the write pipeline's machinery.

Shared by the runtime's write gates (``_write_gates.py``) and ``pathgate hook`` (which
judges the write tools of other agent CLIs without an event loop, so this module imports
nothing heavy):

* git directories not named ``.git`` (:func:`in_linked_gitdir`), and a write that would
  make a directory one (:func:`makes_gitdir`), whatever order its files are written in;
* pathgate's own policy files: ``pathgate.toml``, the agent ignore files, and the root
  ``pyproject.toml`` while it declares pathgate settings (:func:`declares_pathgate`);
* the agent CLIs' hook settings and MCP server lists (:data:`AGENT_SETTINGS`) and the
  files they run (:mod:`._agent_commands`), the host's config files, and whatever steers
  git (its config files and ``[include]`` targets, the excludes file, ``core.hooksPath``,
  ``core.attributesFile``, git's user-level defaults and ``~/.claude.json``:
  :func:`steers_guard`) — writing any of them could switch the guard off or make git or
  the agent CLI run the agent's commands;
* a ``.gitignore`` edit that could un-ignore anything (:func:`loosening_change`): only
  exclusion lines may be added and negation lines removed. A deeper ``.gitignore`` is read
  after the agent ignore files above it, so its ``!`` lines could re-include what they hide,
  and a removed or reordered rule re-includes what it excluded; an agent may not make such
  an edit (a person may).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathgate.runtime.ignore import IgnoreIndex
    from pathgate.runtime.tools._guard_read import Judge

__all__ = ["AGENT_SETTINGS", "CONFIG_FILE", "GITIGNORE_RULE", "MAX_READ", "declares_pathgate", "in_linked_gitdir",
           "is_agent_settings", "is_root_pyproject", "loosening_change", "makes_gitdir", "mentions_pathgate",
           "read_small", "steers", "steers_guard"]

#: The agent CLIs' own settings and MCP server lists (project-relative, normalised): writing
#: them could switch a hook off (``pathgate hook install``), grant the agent permissions or
#: add a server, so no agent may write them.
#: Cursor CLI's ``cli.json`` grants permissions (``Shell(**)``), its ``environment.json``
#: holds the background agent's install and start commands; VS Code's workspace
#: ``settings.json`` can switch Copilot's tool approval off (``chat.tools.autoApprove``).
AGENT_SETTINGS = frozenset({".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json",
                            ".cursor/mcp.json", ".cursor/cli.json", ".cursor/environment.json",
                            ".gemini/settings.json", ".mcp.json", ".vscode/mcp.json", ".vscode/settings.json",
                            ".lsp.json",
                            # what an editor runs commands from (red team 14 F11): a dev container's
                            # `initializeCommand` runs on the host, a launch configuration its tasks;
                            # `.devcontainer/<name>/devcontainer.json` too (:func:`is_agent_settings`)
                            ".vscode/launch.json", ".vscode/tasks.json", ".devcontainer/devcontainer.json",
                            ".devcontainer.json",
                            # other MCP hosts' project servers and commands (red team 20 L6):
                            # Roo Code, Kiro, Amazon Q, opencode, Zed (context servers, tasks),
                            # aider (`test-cmd`/`lint-cmd` run after each edit), Codex
                            ".roo/mcp.json", ".kiro/settings/mcp.json", ".amazonq/mcp.json", "opencode.json",
                            "opencode.jsonc", ".zed/settings.json", ".zed/tasks.json", ".aider.conf.yml",
                            ".codex/config.toml",
                            # Cursor runs `setup-worktree` commands in every agent worktree; Gemini's
                            # custom seatbelt profile confines the agent, its Dockerfile builds the
                            # sandbox (red team 20 L13); names as normalised (casefolded)
                            ".cursor/worktrees.json", ".gemini/sandbox-macos-custom.sb",
                            ".gemini/sandbox.dockerfile"})
_SETTINGS_NAMES = frozenset(s.rsplit("/", 1)[-1] for s in AGENT_SETTINGS)


def is_agent_settings(normalized: str) -> bool:
    """Is the project-relative path ``normalized`` (each component through
    :func:`~pathgate.runtime.gates.secrets.normalize_name`) one of :data:`AGENT_SETTINGS`,
    in the root or in any directory of the project (an agent CLI started in ``pkg/`` loads
    ``pkg/.claude/settings.json``; Cursor CLI merges every ``.cursor/cli.json`` from the
    git root down to where it runs)?"""
    path = normalized.strip("/")
    if path.rsplit("/", 1)[-1] not in _SETTINGS_NAMES:
        return False
    parts = path.split("/")
    if len(parts) >= 3 and parts[-3] == ".devcontainer" and parts[-1] == "devcontainer.json":
        return True
    return any(path == s or path.endswith("/" + s) for s in AGENT_SETTINGS)


def steers_guard(real: str, index: IgnoreIndex, judge: Judge | None = None) -> bool:
    """Is the absolute real path ``real`` one of the host's config files, something that
    steers git for ``index``'s root (:func:`steers`; git's user-level files too, whether
    configured or not), Claude Code's user-level ``~/.claude.json``, a file the agent
    CLIs' settings run (:func:`~._agent_commands.runs`), one git's hook scripts run in
    turn (:func:`~._git_hooks.hook_runs`: husky's ``.husky/``, ``.pre-commit-config.yaml``
    …) or one git's configuration runs (:func:`~._git_commands.config_runs`:
    ``core.fsmonitor``, filters, ``!``-aliases, ``core.pager`` …)? With ``judge`` (the
    read gates', :func:`~._guard_read.guard_judge`), a symbolic link to a file they would
    serve is read through (:func:`~._guard_read.read_guarded`). Blocking."""
    from pathgate.runtime.tools._guard_read import judging

    with judging(judge):
        return _steers_guard(real, index)


def _steers_guard(real: str, index: IgnoreIndex) -> bool:
    """:func:`steers_guard` under its judge."""
    from pathgate.config import _host_config_files
    from pathgate.runtime.tools._agent_commands import runs
    from pathgate.runtime.tools._git_commands import config_runs
    from pathgate.runtime.tools._git_hooks import hook_runs

    if steers(real, (*_host_config_files(), *_user_files(), *index.git_steering())) or runs(real, index.root):
        return True
    top = index.git_top()
    if config_runs(real, index.root, index.git_config(), top):
        return True
    hooks = index.git_hooks()
    return hooks is not None and hook_runs(real, index.root, (hooks,), top)


def _user_files() -> tuple[str, ...]:
    """The user-level files that steer git or an agent CLI whether they are configured or
    not: git's defaults below ``$XDG_CONFIG_HOME/git`` (``attributes`` is the default
    ``core.attributesFile``, ``ignore`` the default excludes file, ``config`` the global
    configuration; ``~/.config/git`` too, for a git started without ``XDG_CONFIG_HOME``),
    ``~/.gitconfig``, and Claude Code's ``~/.claude.json`` (its user and local MCP servers)."""
    home = os.path.expanduser("~")
    if home == "~":
        return ()
    bases = [os.path.join(home, ".config")]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        bases.insert(0, xdg)
    git = tuple(os.path.join(b, "git", n) for b in dict.fromkeys(bases) for n in ("attributes", "ignore", "config"))
    return (*git, os.path.join(home, ".gitconfig"), os.path.join(home, ".claude.json"))


def steers(real: str, guarded: tuple[str, ...]) -> bool:
    """Is the absolute real path ``real`` one of ``guarded`` (files that configure git or the
    host: :meth:`IgnoreIndex.git_steering`, the host's config files), or below one of them
    (``core.hooksPath`` is a directory), compared as written and through symlinks? Blocking
    (``realpath``)."""
    from pathgate.runtime.tools._agent_commands import fold_path

    real_f = fold_path(real)  # a case-insensitive filesystem opens `.GitHooks/x` as `.githooks/x`
    for path in guarded:
        try:
            resolved = os.path.realpath(path)
        except (OSError, ValueError):  # a link swapped mid-resolution: refuse rather than guess
            return True
        for spelling in dict.fromkeys((os.path.abspath(path), resolved)):
            sp = fold_path(spelling)
            if real_f == sp or real_f.startswith(sp.rstrip("/") + "/"):
                return True
    return False

#: pathgate's own configuration file, never writable by an agent (with the agent ignore files).
CONFIG_FILE = "pathgate.toml"
#: The project file that may hold pathgate settings (``[tool.pathgate]``).
PYPROJECT = "pyproject.toml"
_GIT = ".git"
_GITFILE_MAX = 4096
_PYPROJECT_MAX = 4 * 1024 * 1024
#: The most of a file :func:`read_small` reads by default.
MAX_READ = _PYPROJECT_MAX


def is_root_pyproject(relpath: str) -> bool:
    """Is the root-relative ``relpath`` the root ``pyproject.toml`` as a case-insensitive (or
    NTFS) filesystem would open it (``PyProject.toml``, ``pyproject.toml.``)? Judged so
    everywhere: guarding another spelling on a case-sensitive one costs nothing."""
    from pathgate.runtime.gates.secrets import normalize_name

    return "/" not in relpath.strip("/") and normalize_name(relpath.strip("/")) == PYPROJECT


def read_small(path: str, limit: int = _PYPROJECT_MAX) -> bytes | None:
    """Up to ``limit`` bytes of the regular file at ``path``, not following a final
    symlink; ``None`` when it is missing, not a regular file or unreadable. Blocking."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return _read_fd(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of the open file ``fd``."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def mentions_pathgate(text: str | bytes) -> bool:
    """Could this ``pyproject.toml`` text hold pathgate settings? The configuration
    loader's own quick test (``config.py``): a table spelled with escapes counts too."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return b"pathgate" in raw or b"\\u" in raw or b"\\U" in raw


def declares_pathgate(root: str, linked: Callable[[os.stat_result], bool] | None = None) -> bool:
    """Does ``<root>/pyproject.toml`` mention pathgate (so it may hold ``[tool.pathgate]``,
    which the configuration loader reads)? Read without following a symlink; a file that
    exists but cannot be read counts as declaring (fail closed). Blocking.

    A multi-linked file is never read (red team 14 F8: a ``pyproject.toml`` hard-linked to
    ``.env`` made the answer depend on what the secret holds): with ``linked`` (the
    secret-inode registry's test) saying it shares a secret's inode it does not declare (the
    secret gates answer for it, opaquely); any other multi-linked one declares, whatever it
    holds."""
    path = os.path.join(root, PYPROJECT)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return os.path.lexists(path) and not os.path.islink(path) and not os.path.isdir(path)
    try:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            return linked is None or not linked(st)
        raw = _read_fd(fd, _PYPROJECT_MAX) if stat.S_ISREG(st.st_mode) else None
    except OSError:
        raw = None
    finally:
        os.close(fd)
    if raw is None:
        return not os.path.islink(path) and not os.path.isdir(path)
    return mentions_pathgate(raw)


def _lines(text: str) -> list[str]:
    """The lines of ignore-file text as git reads them: a leading byte-order mark dropped,
    split at ``\n`` only (``\r``, form feeds, U+2028 … are part of a line to git: splitting
    there would read ``x\r#`` as the rule ``x`` plus a comment, where git reads one other
    rule); :func:`_rule_key` drops a final ``\r``, as git does."""
    return text.removeprefix("\ufeff").split("\n")


#: Why :func:`loosening_change` refuses, for the messages of the runtime and the hook.
GITIGNORE_RULE = ("an agent may only add exclusion rules to a .gitignore or remove its `!` rules "
                  "(any other edit could re-include what the ignore rules hide)")


def _rule_key(line: str) -> str:
    """A rule line as git reads it, for telling lines apart: a final ``\\r`` and trailing
    spaces dropped unless a backslash escapes the last one (then the line is kept as
    written, so ``foo\\ `` and ``foo\\`` stay different rules)."""
    s = line.removesuffix("\r")
    t = s.rstrip(" ")
    return s if t != s and t.endswith("\\") else t


def _rules(text: str) -> list[str]:
    """The rule lines of ignore-file text (blank lines and ``#`` comments dropped), keyed
    by :func:`_rule_key`, in order."""
    keys = (_rule_key(line) for line in _lines(text))
    return [k for k in keys if k and not k.startswith("#")]


def loosening_change(old: str | None, new: str) -> str | None:
    """Why replacing ignore-file text ``old`` (``None``: no file) with ``new`` could
    un-ignore a path, or ``None`` when it cannot.

    ``new`` is accepted when it is ``old`` with exclusion lines inserted anywhere and
    negation (``!``) lines removed: under git's last-match-wins rule each such step only
    ignores more (an inserted exclusion either is a path's last match, ignoring it, or
    changes nothing; a removed negation hands its paths back to an earlier rule). Anything
    else — a rule removed or moved, a negation added or moved — may re-include a path, and
    is refused. A quick greedy alignment accepts the usual edits in linear time; what it
    refuses is decided exactly (:func:`_aligns`) on the lines between the common start and
    end, up to :data:`_EXACT_CELLS` (beyond that a refusal stands: sound, not complete)."""
    before, after = _rules(old or ""), _rules(new)
    why = _greedy(before, after)
    if why is None:
        return None
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while (tail < min(len(before), len(after)) - head
           and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]):
        tail += 1
    mid_before, mid_after = before[head:len(before) - tail], after[head:len(after) - tail]
    if len(mid_before) * len(mid_after) <= _EXACT_CELLS and _aligns(mid_before, mid_after):
        return None
    return why


#: The most cells (old lines × new lines between the common start and end) the exact
#: alignment fills; a bigger rewrite refused by the greedy one stays refused.
_EXACT_CELLS = 1 << 18


def _greedy(before: list[str], after: list[str]) -> str | None:
    """A sound, incomplete alignment (see :func:`loosening_change`): ``None`` when it found
    one, else the first line in the way."""
    i = 0
    for line in after:
        if i < len(before) and before[i] == line:
            i += 1
            continue
        # drop removed negations up to an equal line, if a run of them is all that is between
        k = i
        while k < len(before) and before[k].startswith("!") and before[k] != line:
            k += 1
        if k < len(before) and before[k] == line:
            i = k + 1
            continue
        if line.startswith("!"):
            if line in before[i:]:  # kept, but an exclusion before it is gone
                lost = next(b for b in before[i:before.index(line, i)] if not b.startswith("!"))
                return f"would lose the rule `{lost}`"
            return f"would add or move the negation rule `{line}`"
        # an inserted exclusion: ``before[i]`` still waits for its match
    for line in before[i:]:
        if not line.startswith("!"):
            return f"would lose the rule `{line}`"
    return None


def _aligns(before: list[str], after: list[str]) -> bool:
    """Is ``after`` exactly ``before`` with exclusions inserted and negations removed?
    (Dynamic programming over the two rule lists: ``row[j]`` says ``before[:i]`` can become
    ``after[:j]``.)"""
    insertable = [not line.startswith("!") for line in after]
    row = [True] * (len(after) + 1)
    for j, ok in enumerate(insertable):
        row[j + 1] = row[j] and ok
    for line in before:
        droppable = line.startswith("!")
        nxt = [row[0] and droppable] + [False] * len(after)
        for j, other in enumerate(after):
            nxt[j + 1] = ((row[j + 1] and droppable) or (row[j] and line == other)
                          or (nxt[j] and insertable[j]))
        row = nxt
    return row[-1]


def _gitdir_of(dirpath: str) -> str | None:
    """The real git directory a ``.git`` file in ``dirpath`` names, if there is one."""
    try:
        fd = os.open(os.path.join(dirpath, _GIT), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        head = os.read(fd, _GITFILE_MAX).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    first = head.splitlines()[0] if head else ""
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    if not target:
        return None
    try:
        return os.path.realpath(os.path.join(dirpath, target))
    except (OSError, ValueError):  # a link swapped mid-resolution: the target as written
        return os.path.normpath(os.path.join(dirpath, target))


def _within(path: str, root: str) -> bool:
    return root == "/" or path == root or path.startswith(root + "/")


def _looks_like_gitdir(dirpath: str) -> bool:
    """git's own test (``is_git_directory``), without following links: ``HEAD`` plus either
    ``objects/`` and ``refs/`` (a repository, bare or not) or ``commondir`` (a worktree's)."""

    def kind(name: str) -> int:
        try:
            return stat.S_IFMT(os.lstat(os.path.join(dirpath, name)).st_mode)
        except OSError:
            return 0

    if kind("HEAD") not in (stat.S_IFREG, stat.S_IFLNK):
        return False
    if kind("commondir") == stat.S_IFREG:
        return True
    return kind("objects") == stat.S_IFDIR and kind("refs") == stat.S_IFDIR


def _after_write(dirpath: str, child: str) -> bool:
    """Would ``dirpath`` be a git directory by git's test once a write created ``child`` in
    it (the written file, or a directory on the way to it)? Conservative: a ``HEAD`` that is
    not a directory, ``objects``/``refs`` as any entry at all (git only asks ``access(X_OK)``,
    which an executable file passes and which follows links; a dangling link counts too),
    and the name about to be created counts whatever it becomes, in any case (a
    case-insensitive filesystem would open it so)."""
    from pathgate.runtime.gates.secrets import normalize_name

    made = normalize_name(child)

    def has(name: str, *, directory: bool) -> bool:
        if made == normalize_name(name):
            return True
        path = os.path.join(dirpath, name)
        try:
            st = os.stat(path)
        except OSError:
            return os.path.islink(path)
        # git asks access(X_OK) of objects/ and refs/: an executable file passes it too,
        # so any entry there counts
        return True if directory else not stat.S_ISDIR(st.st_mode)

    if not has("HEAD", directory=False):
        return False
    return has("commondir", directory=False) or (has("objects", directory=True) and has("refs", directory=True))


def makes_gitdir(root: str, relpath: str) -> bool:
    """Would writing the file ``relpath`` (creating its missing parent directories) make the
    root or any directory on the way to it a git directory by git's own test
    (``is_git_directory``: ``HEAD`` plus ``objects/`` and ``refs/``, or plus ``commondir``)?
    git would then read that directory's ``config`` — which the agent could have written
    first — from any directory below it (``core.pager``, ``core.fsmonitor``: commands).
    Judged on each directory as the write would leave it, whatever order the files come in
    (a directory that already is one is :func:`in_linked_gitdir`'s). A directory the write
    creates holds one name only, so it cannot be one. Blocking; worker thread."""
    cur = root
    for part in (p for p in relpath.split("/") if p):
        if _after_write(cur, part):
            return True
        cur = os.path.join(cur, part)
        if not os.path.isdir(cur):
            return False
    return False


def in_linked_gitdir(root: str, relpath: str) -> bool:
    """Is ``relpath`` inside a git directory not named ``.git``: one that a ``.git`` file of
    an ancestor directory names, or an ancestor that is a git directory itself (a bare
    repository, a worktree's or submodule's git directory)? Blocking; worker thread."""
    parts = relpath.split("/")[:-1] if relpath else []
    target = os.path.join(root, relpath)
    cur = root
    for i in range(len(parts) + 1):
        if i:
            cur = os.path.join(cur, parts[i - 1])
            if _looks_like_gitdir(cur):
                return True
        gitdir = _gitdir_of(cur)
        if gitdir is not None and _within(gitdir, root) and _within(target, gitdir):
            return True
    return False
