"""git-oracle: repository layout, configuration and path spellings of ``check-ignore``.

Each case builds a small repository in a tmp dir, then runs ``git check-ignore --no-index``
(subprocess) and ``pathgate check-ignore --git-only`` (in-process, no ``--root``: the
repository is discovered like git) with the same environment, current directory, args
and stdin. stdout bytes and the exit code must be equal; stderr too where git's message is
stable (``"all"``), or its last line (``"last"``), or its first line for usage errors.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pathgate._check_ignore import main as check_ignore_main
from pathgate.runtime.ignore import _gitconfig

BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}


@dataclass
class Case:
    """What to run in a prepared tree."""

    args: list[str]
    cwd: str = "r"
    stdin: bytes = b""
    env: dict[str, str] = field(default_factory=dict)
    stderr: str = "all"  # "all" | "last" | "first" | "none"


def _git(git_bin: str, *args: str, cwd: Path, env: Mapping[str, str]) -> None:
    subprocess.run([git_bin, *args], cwd=cwd, env=dict(env), check=True, capture_output=True)


def _env(tmp: Path, extra: Mapping[str, str]) -> dict[str, str]:
    return {**BASE_ENV, "HOME": str(tmp / "home"), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null", "LC_ALL": "C", **extra}


@contextlib.contextmanager
def _process(env: Mapping[str, str], cwd: Path, stdin: bytes) -> Iterator[tuple[io.BytesIO,
                                                                                io.BytesIO]]:
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd(), dict(os.environ)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    sys.stdout = io.TextIOWrapper(out, write_through=True)
    sys.stderr = io.TextIOWrapper(err, write_through=True)
    assert isinstance(sys.stdin, io.TextIOWrapper)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield out, err
    finally:
        for stream in (sys.stdin, sys.stdout, sys.stderr):
            stream.flush()
            stream.detach()  # keep the BytesIO open for the caller
        sys.stdin, sys.stdout, sys.stderr = saved[0], saved[1], saved[2]
        os.chdir(saved[3])
        os.environ.clear()
        os.environ.update(saved[4])


def run_both(git_bin: str, tmp: Path, case: Case) -> tuple[tuple[int, bytes, bytes],
                                                            tuple[int, bytes, bytes]]:
    """``(git's (rc, stdout, stderr), pathgate's)``."""
    env = _env(tmp, case.env)
    cwd = tmp / case.cwd
    proc = subprocess.run([git_bin, "check-ignore", "--no-index", *case.args], cwd=cwd,
                          env=env, input=case.stdin, capture_output=True, check=False)
    with _process(env, cwd, case.stdin) as (out, err):
        rc = check_ignore_main(["--git-only", *case.args])
    return (proc.returncode, proc.stdout, proc.stderr), (rc, out.getvalue(), err.getvalue())


def assert_same(git_bin: str, tmp: Path, case: Case) -> tuple[int, bytes, bytes]:
    want, got = run_both(git_bin, tmp, case)
    if case.stderr == "first":  # usage errors: git's usage text names git, ours pathgate
        assert (got[0], bool(got[1])) == (want[0], bool(want[1])), (got, want)
    else:
        assert got[:2] == want[:2], (got, want)
    w, g = want[2].rstrip(b"\n").split(b"\n"), got[2].rstrip(b"\n").split(b"\n")
    if case.stderr == "all":
        assert got[2] == want[2]
    elif case.stderr == "last":
        assert g[-1] == w[-1]
    elif case.stderr == "first":
        assert g[0] == w[0]
    return want


# ---------------------------------------------------------------------------------------
# trees
# ---------------------------------------------------------------------------------------

Builder = Callable[[str, Path], Case]


def _repo(git_bin: str, tmp: Path, gitignore: bytes = b"a\n*.x\n") -> Path:
    (tmp / "home").mkdir(exist_ok=True)
    r = tmp / "r"
    _git(git_bin, "init", "-q", "-b", "main", str(r), cwd=tmp, env=_env(tmp, {}))
    (r / ".gitignore").write_bytes(gitignore)
    (r / ".git" / "info" / "exclude").write_bytes(b"b\n")
    return r


def _append_config(r: Path, text: str, name: str = "config") -> None:
    with open(r / ".git" / name, "a") as fh:
        fh.write(text)


def c_excl_empty(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "home" / ".config" / "git").mkdir(parents=True)
    (tmp / "home" / ".config" / "git" / "ignore").write_text("c\n")
    _append_config(r, "[core]\n\texcludesFile =\n")
    return Case(["-v", "-n", "a", "b", "c"])


def c_excl_default(git: str, tmp: Path) -> Case:
    c_excl_empty(git, tmp)
    (tmp / "r" / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return Case(["-v", "-n", "a", "b", "c"])


def c_excl_bare(git: str, tmp: Path) -> Case:
    _append_config(_repo(git, tmp), "[core]\n\texcludesFile\n")
    return Case(["a"])


def _bool_case(value: str) -> Builder:
    def build(git: str, tmp: Path) -> Case:
        _append_config(_repo(git, tmp), f"[core]\n\tignoreCase = {value}\n")
        return Case(["-v", "-n", "A", "a"])
    return build


def c_quotepath_bad(git: str, tmp: Path) -> Case:
    _append_config(_repo(git, tmp), "[core]\n\tquotePath = maybe\n")
    return Case(["a"])


def c_info_exclude_dir(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / ".git" / "info" / "exclude").unlink()
    (r / ".git" / "info" / "exclude").mkdir()
    return Case(["a"])


def c_excludes_dir(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "exdir").mkdir()
    _append_config(r, f"[core]\n\texcludesFile = {tmp / 'exdir'}\n")
    return Case(["a"])


def c_config_dir(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / ".git" / "config").rename(r / ".git" / "config.bak")
    (r / ".git" / "config").mkdir()
    return Case(["a"], stderr="last")  # git warns once per read, pathgate once


def c_bad_line(git: str, tmp: Path) -> Case:
    _append_config(_repo(git, tmp), "[core]\n\tignoreCase = \"true\n")
    return Case(["a"])


def c_bad_escape(git: str, tmp: Path) -> Case:
    _append_config(_repo(git, tmp), "[core]\n\tx = a\\qb\n")
    return Case(["a"])


def c_no_section(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    text = (r / ".git" / "config").read_text()
    (r / ".git" / "config").write_text("foo = bar\n" + text)
    return Case(["a"])


def c_dotgit_symlink(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "store").mkdir()
    (r / ".git").rename(tmp / "store" / "gd")
    (r / ".git").symlink_to("../store/gd")
    return Case(["-v", "-n", "a", "b", "c"])


def _gitfile(content: bytes) -> Builder:
    def build(git: str, tmp: Path) -> Case:
        r = _repo(git, tmp)
        (tmp / "store").mkdir()
        (r / ".git").rename(tmp / "store" / "gd")
        (r / ".git").write_bytes(content)
        return Case(["-v", "-n", "a", "b"])
    return build


def c_gitfile_symlinked_dir(git: str, tmp: Path) -> Case:
    case = _gitfile(b"gitdir: ../link/gd\n")(git, tmp)
    (tmp / "link").symlink_to(tmp / "store")
    return case


def c_outside(git: str, tmp: Path) -> Case:
    (tmp / "home").mkdir()
    (tmp / "plain").mkdir()
    return Case(["a"], cwd="plain")


def c_worktree_config(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "ex").write_text("c\n")
    _append_config(r, "[extensions]\n\tworktreeConfig = true\n")
    (r / ".git" / "config.worktree").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n")
    return Case(["-v", "-n", "a", "c"])


def c_include(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "ex").write_text("c\n")
    (r / ".git" / "inc.cfg").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n")
    _append_config(r, "[include]\n\tpath = inc.cfg\n")
    return Case(["-v", "-n", "a", "c"])


def _include_if(cond: str) -> Builder:
    def build(git: str, tmp: Path) -> Case:
        r = _repo(git, tmp)
        (tmp / "ex").write_text("c\n")
        (tmp / "inc.cfg").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n")
        _append_config(r, f"[includeIf \"{cond.replace('TMP', str(tmp))}\"]\n"
                          f"\tpath = {tmp / 'inc.cfg'}\n")
        return Case(["-v", "-n", "a", "c"])
    return build


def _hasconfig(repo_cfg: str, inc: str = "", global_cfg: str | None = None) -> Builder:
    """``includeIf "hasconfig:remote.*.url:…"`` (git ≥ 2.36): ``repo_cfg`` appended to the
    repository's config, ``inc`` to the file the condition includes (which also sets
    ``core.excludesFile``), ``global_cfg`` as the global file (TMP: the temporary dir)."""

    def build(git: str, tmp: Path) -> Case:
        r = _repo(git, tmp)
        (tmp / "ex").write_text("c\n")
        (tmp / "inc.cfg").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n" + inc)
        (tmp / "other.cfg").write_text('[remote "o2"]\n\turl = https://example.com/work/two.git\n')
        _append_config(r, repo_cfg.replace("TMP", str(tmp)))
        env = {}
        if global_cfg is not None:
            (tmp / "g.cfg").write_text(global_cfg.replace("TMP", str(tmp)))
            env["GIT_CONFIG_GLOBAL"] = str(tmp / "g.cfg")
        return Case(["-v", "-n", "a", "c"], env=env)
    return build


_HC = '[includeIf "hasconfig:remote.*.url:{}"]\n\tpath = TMP/inc.cfg\n'
_ORIGIN = '[remote "origin"]\n\turl = https://example.com/work/app.git\n'


def c_worktree(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    env = _env(tmp, {})
    _git(git, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
         "-m", "x", cwd=r, env=env)
    _git(git, "worktree", "add", "-q", str(tmp / "wt"), cwd=r, env=env)
    (tmp / "wt" / ".gitignore").write_text("a\n")
    return Case(["-v", "-n", "a", "b", "c"], cwd="wt")


def _env_case(extra: dict[str, str], args: list[str] | None = None) -> Builder:
    def build(git: str, tmp: Path) -> Case:
        _repo(git, tmp)
        (tmp / "ex").write_text("c\n")
        env = {k: v.replace("TMP", str(tmp)) for k, v in extra.items()}
        return Case(args or ["-v", "-n", "a", "c"], env=env)
    return build


def c_git_dir(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / "s").mkdir()
    return Case(["-v", "-n", "a", "b", "../a"], cwd="r/s", env={"GIT_DIR": str(r / ".git")})


def c_git_dir_work_tree(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / "s").mkdir()
    return Case(["-v", "-n", "a", "b", "../a"], cwd="r/s",
                env={"GIT_DIR": "../.git", "GIT_WORK_TREE": ".."})


def c_in_git_dir(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    return Case(["a"], cwd="r/.git")


def c_in_git_dir_sub(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    return Case(["a"], cwd="r/.git/info")


def c_invalid_dotgit_dir(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / "sub" / ".git").mkdir(parents=True)
    return Case(["-v", "-n", "a", "b", "../a"], cwd="r/sub")


def c_nested_repo(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    _git(git, "init", "-q", str(r / "n"), cwd=tmp, env=_env(tmp, {}))
    return Case(["-v", "-n", "a", "b", "x.x"], cwd="r/n")


def c_excl_relative(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / "s").mkdir()
    (r / "ex").write_text("c\n")
    _append_config(r, "[core]\n\texcludesFile = ex\n")
    return Case(["-v", "-n", "c", "../c"], cwd="r/s")


def c_excl_tilde(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "home" / "ex").write_text("c\n")
    _append_config(r, "[core]\n\texcludesFile = ~/ex\n")
    return Case(["-v", "-n", "a", "c"])


def c_include_tilde(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "ex").write_text("c\n")
    (tmp / "home" / "inc.cfg").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n")
    _append_config(r, "[include]\n\tpath = ~/inc.cfg\n")
    return Case(["-v", "-n", "a", "c"])


def c_include_missing(git: str, tmp: Path) -> Case:
    _append_config(_repo(git, tmp), "[include]\n\tpath = nope.cfg\n")
    return Case(["-v", "-n", "a", "c"])


def c_include_bad_file(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (r / ".git" / "inc.cfg").write_text("[core\n")
    _append_config(r, "[include]\n\tpath = inc.cfg\n")
    return Case(["a"])


def c_global_config(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    (tmp / "ex").write_text("c\n")
    (tmp / "g.cfg").write_text(f"[core]\n\texcludesFile = {tmp / 'ex'}\n")
    return Case(["-v", "-n", "a", "c"], env={"GIT_CONFIG_GLOBAL": str(tmp / "g.cfg")})


def c_global_bad(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    (tmp / "g.cfg").write_text("[core]\n\tignoreCase = perhaps\n")
    return Case(["a"], env={"GIT_CONFIG_GLOBAL": str(tmp / "g.cfg")})


def c_xdg_ignore(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    (tmp / "xdg" / "git").mkdir(parents=True)
    (tmp / "xdg" / "git" / "ignore").write_text("c\n")
    return Case(["-v", "-n", "a", "c"], env={"XDG_CONFIG_HOME": str(tmp / "xdg")})


def c_xdg_ignore_dir(git: str, tmp: Path) -> Case:
    _repo(git, tmp)
    (tmp / "xdg" / "git" / "ignore").mkdir(parents=True)
    return Case(["a"], env={"XDG_CONFIG_HOME": str(tmp / "xdg")})


def c_config_crlf_bom(git: str, tmp: Path) -> Case:
    r = _repo(git, tmp)
    (tmp / "ex").write_text("c\n")
    data = (r / ".git" / "config").read_text().replace("\n", "\r\n")
    (r / ".git" / "config").write_text("\ufeff" + data + f"[core]\r\n\texcludesFile = \"{tmp}/e\\\n"
                                       f"x\" ; comment\r\n")
    return Case(["-v", "-n", "a", "c"])


LAYOUT: dict[str, Builder] = {
    "cwd-in-git-dir": c_in_git_dir,
    "cwd-in-git-dir-sub": c_in_git_dir_sub,
    "invalid-dotgit-dir": c_invalid_dotgit_dir,
    "nested-repo": c_nested_repo,
    "excludesfile-relative": c_excl_relative,
    "excludesfile-tilde": c_excl_tilde,
    "include-tilde": c_include_tilde,
    "include-missing": c_include_missing,
    "include-bad-file": c_include_bad_file,
    "includeif-gitdir-dot": _include_if("gitdir:./"),
    "includeif-gitdir-dot-star": _include_if("gitdir:./**"),
    "includeif-gitdir-tilde": _include_if("gitdir:~/"),
    "includeif-onbranch-glob": _include_if("onbranch:ma*"),
    "global-config": c_global_config,
    "global-config-bad": c_global_bad,
    "xdg-ignore": c_xdg_ignore,
    "xdg-ignore-dir": c_xdg_ignore_dir,
    "config-crlf-bom-continuation": c_config_crlf_bom,
    "excludesfile-empty": c_excl_empty,
    "excludesfile-default": c_excl_default,
    "excludesfile-bare": c_excl_bare,
    "ignorecase-maybe": _bool_case("maybe"),
    "ignorecase-quoted-space": _bool_case('" on "'),
    "ignorecase-hex": _bool_case("0x10"),
    "ignorecase-unit": _bool_case("1k"),
    "ignorecase-octal-zero": _bool_case("000"),
    "ignorecase-empty": _bool_case('""'),
    "ignorecase-bare": _bool_case(""),
    "quotepath-bad": c_quotepath_bad,
    "info-exclude-dir": c_info_exclude_dir,
    "excludesfile-dir": c_excludes_dir,
    "config-dir": c_config_dir,
    "config-bad-line": c_bad_line,
    "config-bad-escape": c_bad_escape,
    "config-key-without-section": c_no_section,
    "dotgit-symlink": c_dotgit_symlink,
    "gitfile-no-space": _gitfile(b"gitdir:../store/gd\n"),
    "gitfile-two-spaces": _gitfile(b"gitdir:  ../store/gd\n"),
    "gitfile-second-line": _gitfile(b"gitdir: ../store/gd\nfoo\n"),
    "gitfile-garbage": _gitfile(b"garbage\n"),
    "gitfile-missing-target": _gitfile(b"gitdir: ../nope\n"),
    "gitfile-empty-path": _gitfile(b"gitdir: \n"),
    "gitfile-ok-crlf": _gitfile(b"gitdir: ../store/gd\r\n"),
    "gitfile-symlinked-dir": c_gitfile_symlinked_dir,
    "outside-repository": c_outside,
    "worktree-config": c_worktree_config,
    "include-path": c_include,
    "includeif-gitdir": _include_if("gitdir:TMP/r/"),
    "includeif-gitdir-glob": _include_if("gitdir:r/.git"),
    "includeif-gitdir-nomatch": _include_if("gitdir:TMP/q/"),
    "includeif-gitdir-i": _include_if("gitdir/i:TMP/R/"),
    "includeif-gitdir-case": _include_if("gitdir:TMP/R/"),
    "includeif-onbranch": _include_if("onbranch:main"),
    "includeif-onbranch-other": _include_if("onbranch:dev"),
    "includeif-hasconfig": _include_if("hasconfig:remote.*.url:x"),
    "hasconfig-match": _hasconfig(_ORIGIN + _HC.format("https://example.com/work/**")),
    "hasconfig-remote-after": _hasconfig(_HC.format("https://example.com/work/**") + _ORIGIN),
    "hasconfig-star-stops-at-slash": _hasconfig(_ORIGIN + _HC.format("https://example.com/*")),
    "hasconfig-exact": _hasconfig(_ORIGIN + _HC.format("https://example.com/work/app.git")),
    "hasconfig-nomatch": _hasconfig(_ORIGIN + _HC.format("https://example.org/**")),
    "hasconfig-global-remote": _hasconfig(_HC.format("https://example.com/work/**"), global_cfg=_ORIGIN),
    "hasconfig-in-global": _hasconfig(_ORIGIN, global_cfg=_HC.format("https://example.com/**")),
    "hasconfig-remote-from-include": _hasconfig("[include]\n\tpath = TMP/other.cfg\n"
                                                + _HC.format("**/two.git")),
    "hasconfig-empty-remote-name": _hasconfig('[remote ""]\n\turl = https://example.com/e.git\n'
                                              + _HC.format("https://example.com/e.git")),
    "hasconfig-no-remote-name": _hasconfig('[remote]\n\turl = https://example.com/e.git\n'
                                           + _HC.format("https://example.com/e.git")),
    "hasconfig-pushurl-only": _hasconfig('[remote "o"]\n\tpushurl = https://example.com/p.git\n'
                                         + _HC.format("https://example.com/p.git")),
    "hasconfig-other-key": _hasconfig(_ORIGIN + '[includeIf "hasconfig:remote.*.pushurl:**"]\n'
                                      "\tpath = TMP/inc.cfg\n"),
    "hasconfig-included-file-has-url": _hasconfig(_ORIGIN + _HC.format("https://example.com/work/**"),
                                                  inc='[remote "x"]\n\turl = https://example.com/x.git\n'),
    "hasconfig-gitdir-file-has-url": _hasconfig(
        _ORIGIN + '[includeIf "gitdir:TMP/r/"]\n\tpath = TMP/other.cfg\n' + _HC.format("nomatch")),
    "hasconfig-case-sensitive": _hasconfig(_ORIGIN + _HC.format("https://EXAMPLE.com/work/**")),
    "worktree-add": c_worktree,
    "config-parameters": _env_case({"GIT_CONFIG_PARAMETERS": "'core.excludesfile'='TMP/ex'"}),
    "config-parameters-old": _env_case({"GIT_CONFIG_PARAMETERS": "'core.excludesfile=TMP/ex'"}),
    "config-parameters-bare": _env_case({"GIT_CONFIG_PARAMETERS": "'core.excludesfile'"}),
    "config-parameters-bogus": _env_case({"GIT_CONFIG_PARAMETERS": "bogus"}),
    "config-parameters-icase": _env_case({"GIT_CONFIG_PARAMETERS": "'core.ignorecase'='maybe'"}),
    "config-count": _env_case({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.excludesFile",
                               "GIT_CONFIG_VALUE_0": "TMP/ex"}),
    "config-count-bogus": _env_case({"GIT_CONFIG_COUNT": "x"}),
    "config-count-no-key": _env_case({"GIT_CONFIG_COUNT": "1"}),
    "config-count-no-value": _env_case({"GIT_CONFIG_COUNT": "1",
                                        "GIT_CONFIG_KEY_0": "core.excludesFile"}),
    "git-dir": c_git_dir,
    "git-dir-work-tree": c_git_dir_work_tree,
}


@pytest.mark.parametrize("name", sorted(LAYOUT))
def test_layout_and_config_equal_git(name: str, git_bin: str, tmp_path: Path) -> None:
    assert_same(git_bin, tmp_path, LAYOUT[name](git_bin, tmp_path))


# ---------------------------------------------------------------------------------------
# paths
# ---------------------------------------------------------------------------------------


def _paths_tree(git: str, tmp: Path) -> Path:
    r = _repo(git, tmp, b"a\nl\n*.x\nd/\n")
    for d in ("s", "d", "u"):
        (r / d).mkdir()
    (r / "l").symlink_to("d")
    (tmp / "top").symlink_to(r)
    (r / "s" / "a").write_text("")
    return r


LONG = "n" * 300
PATHS: dict[str, Case] = {
    "reenter": Case(["../../r/a"], cwd="r/s"),
    "up-one": Case(["-v", "../a", "a", "../s/../a"], cwd="r/s"),
    "abs-symlinked-top": Case(["-v", "TMP/top/a", "TMP/top/s/a", "TMP/top"]),
    "abs-inside": Case(["-v", "TMP/r/a", "TMP/r/s/../a"]),
    "abs-outside": Case(["TMP/a"]),
    "abs-dotdot-root": Case(["/../x"]),
    "later-path-outside": Case(["a", "../x"]),
    "empty-later": Case(["a", ""]),
    "beyond-symlink-slash": Case(["l/"]),
    "beyond-symlink": Case(["l/a"]),
    "symlink-itself": Case(["-v", "l"]),
    "beyond-symlink-stdin": Case(["-v", "-n", "--stdin"], stdin=b"a\nl/\n"),
    "dir-trailing": Case(["-v", "-n", "d/", "d", "d/.", "d/x/..", "s//a", "./a"]),
    "stdin-cr": Case(["-v", "-n", "--stdin"], stdin=b"a\r\nb\n"),
    "stdin-nul": Case(["-v", "-n", "--stdin"], stdin=b"a\0b\nc.x\n"),
    "stdin-quoted": Case(["-v", "-n", "--stdin"], stdin=b'"a"\n"\\141\\000b"\n"x.x\n'),
    "stdin-empty-line": Case(["-v", "-n", "--stdin"], stdin=b"a\n\nb\n"),
    "stdin-z": Case(["-v", "-n", "-z", "--stdin"], stdin=b"a\r\0b\nc\0a.x"),
    "quotepath-false": Case(["-v", "-n", "\xe9.x", "b\x01.x", "\udcff.x", "q\x7f.x"],
                            env={"GIT_CONFIG_PARAMETERS": "'core.quotepath'='false'"}),
    "quotepath-true": Case(["-v", "-n", "\xe9.x", "b\x01.x", "\udcff.x", "q\x7f.x"]),
    "magic-top": Case(["-v", "-n", ":/a", ":(top)a", ":a", ":/s/a", ":x"], cwd="r/s"),
    "magic-top-root": Case(["-v", "-n", ":/a", ":(top)a", ":a", "::a"]),
    "magic-icase": Case([":(icase)a"]),
    "magic-exclude": Case([":!a"]),
    "magic-caret": Case([":^a"]),
    "magic-glob": Case([":(glob)a"]),
    "magic-literal": Case([":(literal)a"]),
    "magic-attr": Case([":(attr:x)a"]),
    "magic-two": Case([":(top,icase,exclude)a"]),
    "magic-bogus": Case([":(bogus)a"]),
    "magic-unclosed": Case([":(top"]),
    "magic-unimplemented": Case([":#a"]),
    "magic-outside-first": Case([":(icase)../x"]),
    "literal-pathspecs": Case(["a"], env={"GIT_LITERAL_PATHSPECS": "1"}),
    "literal-pathspecs-magic": Case([":(icase)a"], env={"GIT_LITERAL_PATHSPECS": "1"}),
    "glob-pathspecs": Case(["a"], env={"GIT_GLOB_PATHSPECS": "1"}),
    "icase-pathspecs": Case(["a"], env={"GIT_ICASE_PATHSPECS": "1"}),
    "noglob-pathspecs": Case(["a"], env={"GIT_NOGLOB_PATHSPECS": "1"}),
    "glob-noglob": Case(["a"], env={"GIT_GLOB_PATHSPECS": "1", "GIT_NOGLOB_PATHSPECS": "1"}),
    "opt-no-verbose": Case(["-v", "--no-verbose", "a"]),
    "opt-no-quiet": Case(["-q", "--no-quiet", "-v", "a"]),
    "opt-no-stdin": Case(["--stdin", "--no-stdin", "a"]),
    "opt-index": Case(["--index", "a"]),
    "opt-no-no-index": Case(["--no-no-index", "a"]),
    "opt-end-of-options": Case(["--end-of-options", "-v", "a"]),
    "opt-dashdash": Case(["--", "-v", "a"]),
    "opt-stdin-value": Case(["--stdin=1"], stderr="first"),
    "opt-verbose-value": Case(["--verbose=1", "a"], stderr="first"),
    "opt-no-z": Case(["--no-z", "a"], stderr="first"),
    "opt-abbrev": Case(["--ver", "--non", "a", "b"]),
    "opt-abbrev-negated": Case(["-v", "--no-v", "--ind", "--no-ind", "a"]),
    "opt-ambiguous": Case(["--no", "a"], stderr="first"),
    "opt-unknown": Case(["--bogus", "a"], stderr="first"),
    "opt-quiet-verbose": Case(["-vq", "a"]),
    "opt-qq": Case(["-qq", "a"]),
    "long-name": Case(["-v", "-n", f"u/{LONG}/x", f"{LONG}.x"]),
    "control-chars-in-error": Case(["\x01\udcff/../../x"]),
    "outside-from-sub-prefix": Case([":(top)../x", "../../x"], cwd="r/s"),
    "up-info-exclude": Case(["-v", "-n", "../b", "b"], cwd="r/s"),
    "dots": Case(["-v", "-n", ".", "./", "s/..", ":/", "d/x/../"]),
    "dots-sub": Case(["-v", "-n", "..", ".", "../d/"], cwd="r/s"),
    "file-trailing-slash": Case(["-v", "-n", "s/a/", "a/"]),
}


@pytest.mark.parametrize("name", sorted(PATHS))
def test_paths_equal_git(name: str, git_bin: str, tmp_path: Path) -> None:
    _paths_tree(git_bin, tmp_path)
    case = PATHS[name]
    case = Case([a.replace("TMP", str(tmp_path)) for a in case.args], case.cwd, case.stdin,
                case.env, case.stderr)
    assert_same(git_bin, tmp_path, case)


# ---------------------------------------------------------------------------------------
# cases git cannot show as root, through the seam
# ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run git as another user")
def test_unreadable_repo_config_equals_git(git_bin: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """git (run as ``nobody``) and pathgate (``access`` denied through the seam) agree."""
    base = Path("/tmp") / f"pathgate-i17-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(mode=0o755)
    try:
        r = _repo(git_bin, base)
        subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
        (r / ".git" / "config").chmod(0o600)
        env = _env(base, {"GIT_CONFIG_PARAMETERS": "'safe.directory'='*'"})
        proc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               git_bin, "check-ignore", "--no-index", "a"], cwd=r, env=env,
                              capture_output=True, check=False)
        cfg = str(r / ".git" / "config")
        real_access = os.access
        monkeypatch.setattr(_gitconfig, "_access",
                            lambda p, m: False if str(p) == cfg else real_access(p, m))
        with _process(env, r, b"") as (out, err):
            rc = check_ignore_main(["--git-only", "a"])
        assert (rc, out.getvalue(), err.getvalue()) == \
            (proc.returncode, proc.stdout, proc.stderr)
        assert rc == 128 and b"Permission denied" in err.getvalue()
    finally:
        shutil.rmtree(base, ignore_errors=True)
