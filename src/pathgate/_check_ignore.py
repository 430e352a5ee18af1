"""``pathgate check-ignore``: ``git check-ignore --no-index``, byte for byte.

Options, output formats and exit codes are git's (``builtin/check-ignore.c``):

* plain: each ignored path, C-quoted like git (``core.quotePath`` true: bytes >= 0x80 and
  control characters as octal escapes, the whole name in double quotes);
* ``-v``: ``<source>:<line>:<pattern><TAB><path>``; negated matches are printed (and
  count as matches for the exit code), like git; ``-n`` adds ``::<TAB><path>`` for paths
  without a match; ``-z``: NUL-terminated fields, no quoting (only with ``--stdin``);
* ``--stdin``: one path a line (a line starting with ``"`` is C-unquoted), answered and
  flushed line by line so it can run as a coprocess;
* exit 0 when some path matched, 1 when none, 128 on a fatal error (git's messages),
  129 on an unknown option.

pathgate's own options: ``--root DIR`` (the project top; default: the nearest ancestor of
the current directory holding ``.git``, else the current directory), ``--git-only`` (git's
sources only: no built-in defaults, no agent ignore files — comparable with git),
``--excludes-file F`` (``core.excludesFile``), ``--ignore-case`` (``core.ignoreCase``).

Like git, an ignore file that cannot be read only warns (on stderr) and counts as empty:
this command mirrors git; the gates fail closed instead. The index is never consulted
(``--no-index`` is implied and accepted). Pathspec magic (``:(top)``, ``:/``) is not
interpreted.
"""

from __future__ import annotations

import os
import stat as _stat
import sys
from collections.abc import Iterator, Sequence
from typing import BinaryIO

from pathgate.runtime.ignore import IgnoreConfig, IgnoreIndex, Match

__all__ = ["main", "quote_c_style", "unquote_c_style"]

USAGE = """\
usage: pathgate check-ignore [<options>] <pathname>...
   or: pathgate check-ignore [<options>] --stdin

    -q, --quiet           suppress progress reporting
    -v, --verbose         be verbose

    --stdin               read file names from stdin
    -z                    terminate input and output records by a NUL character
    -n, --non-matching    show non-matching input paths
    --no-index            ignore index when checking (always on)

    --root <dir>          project root (default: the enclosing git work tree, else .)
    --git-only            git's ignore sources only (no built-in defaults, no agent files)
    --excludes-file <f>   use <f> as core.excludesFile
    --ignore-case         ASCII case-insensitive matching (core.ignoreCase)
"""

_FLAGS = {"quiet": "q", "verbose": "v", "stdin": "stdin", "non-matching": "n",
          "no-index": "no-index", "git-only": "git-only", "ignore-case": "ignore-case",
          "help": "h"}
_VALUED = ("root", "excludes-file")
_SHORT = {"q": "q", "v": "v", "z": "z", "n": "n", "h": "h"}


class _Fatal(Exception):
    def __init__(self, message: str, code: int = 128) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------
# quoting (quote.c)
# ---------------------------------------------------------------------------------------

_CQ_NAMED = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r",
             0x22: b'"', 0x5C: b"\\"}


def _must_quote(c: int) -> bool:
    return c < 0x20 or c == 0x22 or c == 0x5C or c >= 0x7F


def quote_c_style(name: bytes) -> bytes:
    """git's ``quote_c_style`` with ``core.quotePath=true``."""
    if not any(_must_quote(c) for c in name):
        return name
    out = bytearray(b'"')
    for c in name:
        if not _must_quote(c):
            out.append(c)
            continue
        out.append(0x5C)
        named = _CQ_NAMED.get(c)
        if named is not None:
            out += named
        else:
            out += b"%03o" % c
    out.append(0x22)
    return bytes(out)


def unquote_c_style(quoted: bytes) -> bytes | None:
    """git's ``unquote_c_style``; ``None`` when badly quoted. Text after the closing
    quote is ignored."""
    if not quoted.startswith(b'"'):
        return None
    out = bytearray()
    i = 1
    n = len(quoted)
    esc = {ord("a"): 7, ord("b"): 8, ord("f"): 12, ord("n"): 10, ord("r"): 13,
           ord("t"): 9, ord("v"): 11, 0x5C: 0x5C, 0x22: 0x22}
    while i < n:
        c = quoted[i]
        i += 1
        if c == 0x22:
            return bytes(out)
        if c != 0x5C:
            out.append(c)
            continue
        if i >= n:
            return None
        c = quoted[i]
        i += 1
        if c in esc:
            out.append(esc[c])
        elif 0x30 <= c <= 0x33:
            if i + 1 >= n or not (0x30 <= quoted[i] <= 0x37 and 0x30 <= quoted[i + 1] <= 0x37):
                return None
            out.append(((c - 0x30) << 6) | ((quoted[i] - 0x30) << 3) | (quoted[i + 1] - 0x30))
            i += 2
        else:
            return None
    return None


# ---------------------------------------------------------------------------------------
# option parsing (parse-options: bundled short flags, unique long prefixes, permuted args)
# ---------------------------------------------------------------------------------------


def _parse(argv: Sequence[str]) -> tuple[dict[str, str | bool], list[str]]:
    opts: dict[str, str | bool] = {}
    paths: list[str] = []
    i = 0
    longs = [*_FLAGS, *_VALUED]
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            paths.extend(argv[i:])
            break
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            cands = [x for x in longs if x == name] or [x for x in longs if x.startswith(name)]
            if len(cands) != 1 or not name:
                if len(cands) > 1:
                    raise _Fatal(f"error: ambiguous option: {name} (could be --{cands[0]} or "
                                 f"--{cands[1]})", 129)
                raise _Fatal(f"error: unknown option `{name}'", 129)
            key = cands[0]
            if key in _VALUED:
                if not eq:
                    if i >= len(argv):
                        raise _Fatal(f"error: option `{key}' requires a value", 129)
                    value = argv[i]
                    i += 1
                opts[key] = value
            else:
                if eq:
                    raise _Fatal(f"error: option `{key}' takes no value", 129)
                opts[_FLAGS[key]] = True
            continue
        if a.startswith("-") and len(a) > 1:
            for ch in a[1:]:
                if ch not in _SHORT:
                    raise _Fatal(f"error: unknown switch `{ch}'", 129)
                opts[_SHORT[ch]] = True
            continue
        paths.append(a)
    return opts, paths


def _find_root(cwd: str) -> str:
    d = cwd
    while True:
        if os.path.lexists(os.path.join(d, ".git")):
            return d
        up = os.path.dirname(d)
        if up == d:
            return cwd
        d = up


def _normalize(arg: str, cwd: str, root: str, root_alt: str) -> str:
    """The path relative to ``root`` as git's ``prefix_path`` makes it (trailing ``/``
    kept); raises :class:`_Fatal` when it is outside."""
    if arg == "":
        raise _Fatal("fatal: empty string is not a valid pathspec. please use . instead if "
                     "you meant to match all paths")
    full = arg if arg.startswith("/") else cwd.rstrip("/") + "/" + arg
    parts: list[str] = []
    for comp in full.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if parts:
                parts.pop()
            continue
        parts.append(comp)
    trailing = arg.endswith("/") or arg.endswith("/.") or arg.endswith("/..") \
        or arg in (".", "..")
    for top in (root, root_alt):
        tparts = [c for c in top.split("/") if c]
        if parts[:len(tparts)] == tparts:
            rel = "/".join(parts[len(tparts):])
            return rel + "/" if rel and trailing else rel
    raise _Fatal(f"fatal: {arg}: '{arg}' is outside repository at '{root}'")


def _check_symlink_leading(rel: str, arg: str, root: str) -> None:
    comps = rel.rstrip("/").split("/")[:-1] if rel.rstrip("/") else []
    cur = root
    for c in comps:
        cur = os.path.join(cur, c)
        try:
            st = os.lstat(cur)
        except OSError:
            return
        if _stat.S_ISLNK(st.st_mode):
            raise _Fatal(f"fatal: pathspec '{arg}' is beyond a symbolic link")
        if not _stat.S_ISDIR(st.st_mode):
            return


def _fs(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _output(out: BinaryIO, arg: str, m: Match | None, verbose: bool, nul: bool) -> None:
    path = _fs(arg)
    rule = m.rule if m is not None else None
    if not nul:
        if not verbose:
            out.write(quote_c_style(path) + b"\n")
        elif rule is not None:
            out.write(quote_c_style(_fs(rule.source)) + b":%d:" % rule.line + _fs(rule.pattern)
                      + b"\t" + quote_c_style(path) + b"\n")
        else:
            out.write(b"::\t" + quote_c_style(path) + b"\n")
    else:
        if not verbose:
            out.write(path + b"\0")
        elif rule is not None:
            out.write(_fs(rule.source) + b"\0%d\0" % rule.line + _fs(rule.pattern) + b"\0"
                      + path + b"\0")
        else:
            out.write(b"\0\0\0" + path + b"\0")


def _stdin_records(stream: BinaryIO, nul: bool) -> Iterator[bytes]:
    if nul:
        buf = b""
        while True:
            chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not chunk:
                break
            buf += chunk
            *recs, buf = buf.split(b"\0")
            yield from recs
        if buf:
            yield buf
        return
    while True:
        line = stream.readline()
        if not line:
            return
        if line.endswith(b"\n"):
            line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
        if line.startswith(b'"'):
            unq = unquote_c_style(line)
            if unq is None:
                raise _Fatal("fatal: line is badly quoted")
            line = unq
        yield line


def main(argv: Sequence[str]) -> int:
    """Run ``pathgate check-ignore``; returns the exit code."""
    out = sys.stdout.buffer
    try:
        return _run(argv, out)
    except _Fatal as e:
        out.flush()
        print(str(e), file=sys.stderr)
        if e.code == 129:
            sys.stderr.write(USAGE)
        return e.code
    except BrokenPipeError:
        return 0


def _run(argv: Sequence[str], out: BinaryIO) -> int:
    opts, paths = _parse(argv)
    if opts.get("h"):
        sys.stdout.write(USAGE)
        return 129
    quiet = bool(opts.get("q"))
    verbose = bool(opts.get("v"))
    nul = bool(opts.get("z"))
    use_stdin = bool(opts.get("stdin"))
    non_matching = bool(opts.get("n"))
    if use_stdin:
        if paths:
            raise _Fatal("fatal: cannot specify pathnames with --stdin")
    else:
        if nul:
            raise _Fatal("fatal: -z only makes sense with --stdin")
        if not paths:
            raise _Fatal("fatal: no path specified")
    if quiet:
        if len(paths) > 1:
            raise _Fatal("fatal: --quiet is only valid with a single pathname")
        if verbose:
            raise _Fatal("fatal: cannot have both --quiet and --verbose")
    if non_matching and not verbose:
        raise _Fatal("fatal: --non-matching is only valid with --verbose")

    cwd = os.getcwd()
    root_opt = opts.get("root")
    root_given = os.path.abspath(root_opt) if isinstance(root_opt, str) else _find_root(cwd)
    if not os.path.isdir(root_given):
        raise _Fatal(f"fatal: cannot change to '{root_given}': No such file or directory")
    overrides: dict[str, object] = {"fail_closed": False}
    excl = opts.get("excludes-file")
    if isinstance(excl, str):
        overrides["excludes_file"] = excl
    if opts.get("ignore-case"):
        overrides["ignore_case"] = True
    if opts.get("git-only"):
        config = IgnoreConfig.git_only(**overrides)
    else:
        import msgspec

        config = msgspec.structs.replace(IgnoreConfig(), **overrides)
    index = IgnoreIndex(root_given, config)
    index.on_warning = lambda msg: print(f"warning: {msg}", file=sys.stderr)
    session = index.session()
    root = index.root

    num = 0

    def one(arg: str) -> None:
        nonlocal num
        rel = _normalize(arg, cwd, root, root_given)
        _check_symlink_leading(rel, arg, root)
        m: Match | None = session.match_pathspec(rel)
        if m is not None and m.rule is None:
            m = None
        if m is not None and not verbose and m.rule is not None and m.rule.negated:
            m = None
        if not quiet and (m is not None or non_matching):
            _output(out, arg, m, verbose, nul)
        if m is not None:
            num += 1

    if use_stdin:
        for rec in _stdin_records(sys.stdin.buffer, nul):
            one(rec.decode("utf-8", "surrogateescape"))
            out.flush()
    else:
        for arg in paths:
            one(arg)
    out.flush()
    return 0 if num else 1
