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

pathgate's own options: ``--root DIR`` (the project top; default: the work tree git would
find from the current directory, ``GIT_DIR``/``GIT_WORK_TREE`` honoured; outside any
repository: exit 128 like git), ``--git-only`` (git's sources only: no built-in defaults, no
agent ignore files — comparable with git), ``--excludes-file F`` (``core.excludesFile``),
``--ignore-case`` (``core.ignoreCase``).

Paths are taken as git's ``parse_pathspec`` takes them (:mod:`pathgate._pathspec`): every
argument is checked before any output; ``:/``/``:(top)`` resolve, other magic is fatal.
Configuration and layout errors git dies on (:class:`GitFatal`) exit 128 with git's message;
messages go to stderr as git's ``vreportf`` writes them. Like git, an ignore file that cannot
be read only warns and counts as empty: this command mirrors git; the gates fail closed
instead. The index is never consulted (``--no-index`` is implied; ``--index`` is accepted).

A run asking a few paths (at most :data:`LAZY_PATHS`: its arguments, or ``--stdin``'s first
read and until that many were answered) reads a huge ignore file line by line, as ``pathgate
hook`` does (:mod:`pathgate.runtime.ignore._lazy`); a long list compiles it whole up front
(:class:`_Laziness`). The answers are the same either way.
"""

from __future__ import annotations

import contextlib
import gc
import io
import itertools
import os
import re
import stat as _stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

from pathgate._check_ignore_opts import _Fatal, _parse
from pathgate._pathspec import PathspecError, Resolver
from pathgate.runtime.ignore import DirNode, IgnoreConfig, IgnoreIndex, IgnoreSession, Match
from pathgate.runtime.ignore._gitconfig import GitFatal, GitSettings, discover, resolve

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
    --end-of-options      the rest are paths

    --root <dir>          project root (default: the work tree git finds from .)
    --git-only            git's ignore sources only (no built-in defaults, no agent files)
    --excludes-file <f>   use <f> as core.excludesFile
    --ignore-case         ASCII case-insensitive matching (core.ignoreCase)
"""



# ---------------------------------------------------------------------------------------
# quoting (quote.c)
# ---------------------------------------------------------------------------------------

_CQ_NAMED = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r",
             0x22: b'"', 0x5C: b"\\"}


def _must_quote(c: int, full: bool = True) -> bool:
    return c < 0x20 or c == 0x22 or c == 0x5C or c == 0x7F or (full and c > 0x7F)


_NEEDS_QUOTE = re.compile(rb'[\x00-\x1f"\\\x7f-\xff]')
_NEEDS_QUOTE_ASCII = re.compile(rb'[\x00-\x1f"\\\x7f]')


def quote_c_style(name: bytes, full: bool = True) -> bytes:
    """git's ``quote_c_style``; ``full`` is ``core.quotePath`` (bytes >= 0x80 as octal
    escapes; control characters, ``"`` and ``\\`` are always escaped)."""
    if (_NEEDS_QUOTE if full else _NEEDS_QUOTE_ASCII).search(name) is None:
        return name
    out = bytearray(b'"')
    for c in name:
        if not _must_quote(c, full):
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
# output
# ---------------------------------------------------------------------------------------


def _fs(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _err(message: str) -> None:
    """Write one message to stderr as git's ``vreportf`` does: raw bytes, control
    characters other than TAB and LF shown as ``?``."""
    text = "".join("?" if (ord(c) < 0x20 and c not in "\t\n") or c == "\x7f" else c
                   for c in message) + "\n"
    buf = getattr(sys.stderr, "buffer", None)
    if buf is not None:
        sys.stderr.flush()
        buf.write(_fs(text))
        buf.flush()
    else:
        sys.stderr.write(text)


def _output(out: BinaryIO, path: bytes, m: Match | None, verbose: bool, nul: bool,
            full: bool = True) -> None:
    """Write one answer (``path``: the argument's bytes) as git does."""
    rule = m.rule if m is not None else None
    if not nul:
        if not verbose:
            out.write(quote_c_style(path, full) + b"\n")
        elif rule is not None:
            out.write(quote_c_style(_fs(rule.source), full) + b":%d:" % rule.line
                      + _fs(rule.pattern) + b"\t" + quote_c_style(path, full) + b"\n")
        else:
            out.write(b"::\t" + quote_c_style(path, full) + b"\n")
    else:
        if not verbose:
            out.write(path + b"\0")
        elif rule is not None:
            out.write(_fs(rule.source) + b"\0%d\0" % rule.line + _fs(rule.pattern) + b"\0"
                      + path + b"\0")
        else:
            out.write(b"\0\0\0" + path + b"\0")


def _stdin_batches(stream: BinaryIO, nul: bool) -> Iterator[list[bytes]]:
    """The records of stdin (git's ``strbuf_getline_lf``/``_nul``: a CR before the LF is
    kept), in batches: each batch holds the complete records the input had ready, since
    ``read1`` blocks only when nothing is buffered. The caller answers a batch and flushes
    before asking for the next, so a coprocess that writes one path and waits gets its
    answer, while a long list is answered in a few large writes."""
    sep = b"\0" if nul else b"\n"
    read = getattr(stream, "read1", stream.read)
    pending: list[bytes] = []  # the start of an unfinished record
    while True:
        chunk = read(65536)
        if not chunk:
            break
        if sep not in chunk:
            pending.append(chunk)
            continue
        if pending:
            pending.append(chunk)
            chunk = b"".join(pending)
            pending.clear()
        recs = chunk.split(sep)
        tail = recs.pop()
        if tail:
            pending.append(tail)
        yield recs
    if pending:
        yield [b"".join(pending)]


def _line_path(line: bytes) -> bytes:
    """The path of one ``--stdin`` line without ``-z``: it ends at a NUL (a C string), and a
    line starting with ``"`` is C-unquoted."""
    if b"\0" in line:
        line = line.split(b"\0", 1)[0]
    if line.startswith(b'"'):
        unq = unquote_c_style(line)
        if unq is None:
            raise _Fatal("fatal: line is badly quoted")
        line = unq.split(b"\0", 1)[0]
    return line


# ---------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------


def main(argv: Sequence[str]) -> int:
    """Run ``pathgate check-ignore``; returns the exit code."""
    out = sys.stdout.buffer
    if isinstance(out, io.RawIOBase):  # PYTHONUNBUFFERED / -u: buffer the answers anyway
        out = io.BufferedWriter(out)
    try:
        return _run(argv, out)
    except _Fatal as e:
        out.flush()
        if e.code == -1:
            sys.stdout.write(USAGE)
            sys.stdout.flush()
            return 129
        _err(str(e))
        if e.code == 129:
            sys.stderr.write(USAGE)
        elif e.code == 130:  # git shows the usage on stdout after an ambiguous option
            sys.stdout.write(USAGE)
            sys.stdout.flush()
            return 129
        return e.code
    except (GitFatal, PathspecError) as e:
        out.flush()
        _err(str(e))
        return 128
    except BrokenPipeError:
        return 0


def _setup(opts: dict[str, object]) -> tuple[IgnoreIndex, str, GitSettings]:
    """Find the work tree (``--root`` or git's discovery) and check its configuration
    as git does at start-up; ``(index, cwd, settings)``."""
    cwd = os.getcwd()
    root_opt = opts.get("root")
    layout = None
    if isinstance(root_opt, str):
        root_given = os.path.abspath(root_opt)
        if not os.path.isdir(root_given):
            raise _Fatal(f"fatal: cannot change to '{root_given}': No such file or directory")
    else:
        root_given, layout = discover(cwd)
    excl = opts.get("excludes-file")
    settings = resolve(os.path.realpath(root_given), layout=layout,
                       excludes_file=excl if isinstance(excl, str) else None,
                       ignore_case=True if opts.get("ignore-case") else None)
    overrides: dict[str, object] = {"fail_closed": False}
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
    index.git_layout = layout
    index.find_top = False  # --root names the top; discovery already found it
    index.on_warning = lambda msg: _err(f"warning: {msg}")
    return index, cwd, settings


def _check_options(opts: dict[str, object], paths: list[str]
                   ) -> tuple[bool, bool, bool, bool, bool]:
    """git's option combination checks: ``(quiet, verbose, nul, stdin, non_matching)``."""
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
    return quiet, verbose, nul, use_stdin, non_matching


def _run(argv: Sequence[str], out: BinaryIO) -> int:
    try:
        opts, paths = _parse(argv)
        deferred: _Fatal | None = None
    except _Fatal as e:  # git reads its configuration before it parses the options
        if e.code == -1:
            raise
        opts, paths, deferred = {}, [], e
    index, cwd, settings = _setup(opts)
    quote_path = settings.quote_path
    for line in settings.errors:
        _err(line)
    if deferred is not None:
        raise deferred
    quiet, verbose, nul, use_stdin, non_matching = _check_options(opts, paths)
    with _Laziness() as lazy:
        if use_stdin:
            # the first records read before the session is made: few of them, and huge ignore
            # files are read line by line for them (:class:`_Laziness`)
            batches = _stdin_batches(sys.stdin.buffer, nul)
            first = next(batches, [])
            lazy.start(len(first))
        else:
            lazy.start(len(paths))
        answers = _Answers(IgnoreSession(index, private=True), Resolver(index.root, cwd), out,
                           verbose=verbose, nul=nul, quiet=quiet, non_matching=non_matching,
                           full=quote_path)
        if use_stdin:
            with _few_collections():
                answers.stdin(itertools.chain((first,), batches), _flush_each_answer(out), lazy)
        else:
            if "" in paths:
                raise _Fatal(_EMPTY)
            rels = [answers.specs.resolve(arg) for arg in paths]  # git checks every path first
            with lazy.expecting(rels):
                for arg, rel in zip(paths, rels, strict=True):
                    answers.emit(_fs(arg), answers.session.match_pathspec(rel))
    out.flush()
    return 0 if answers.num else 1


#: Paths a run asks at most while huge ignore files (``_rules.LAZY_MIN_BYTES`` and more) are
#: read line by line (:mod:`pathgate.runtime.ignore._lazy`); past them, compiled whole.
LAZY_PATHS = 64


class _Laziness:
    """Whether huge ignore files are lazy lists for this run: when it asks at most
    :data:`LAZY_PATHS` paths (its arguments; with ``--stdin``, the records of the first
    read, then until that many were answered). A lazy list decides exactly as the whole
    compile does (``_lazy``): the choice is one of cost only. Many paths -- a list piped
    in -- compile every list whole up front, as before (its per-directory plans are the fast
    route); a stream that goes past the bound leaves lazy mode: lists read from then on are
    compiled whole, and those read lazily compile whole at their next scan
    (``_lazy.settled``)."""

    def __init__(self) -> None:
        self.lazy = False
        self.left = 0  # paths that may still be asked lazily
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> _Laziness:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def start(self, count: int) -> None:
        """The run asks ``count`` paths first: lazy lists when they are few."""
        if 0 < count <= LAZY_PATHS:
            from pathgate.runtime.ignore._lazy import one_shot

            self.lazy, self.left = True, LAZY_PATHS
            self._stack.enter_context(one_shot())

    def expecting(self, relpaths: Sequence[str]) -> contextlib.AbstractContextManager[None]:
        """Announce the paths about to be decided (a lazy list scans once for them all)."""
        if not self.lazy:
            return contextlib.nullcontext()
        from pathgate.runtime.ignore._lazy import expecting

        return expecting(relpaths)

    def fits(self, count: int) -> bool:
        """Are ``count`` more paths still asked lazily? Past the bound, lists are compiled
        whole from now on."""
        if not self.lazy:
            return False
        self.left -= count
        if self.left >= 0:
            return True
        from pathgate.runtime.ignore._lazy import settled

        self.lazy = False
        self._stack.close()  # (leaves one_shot: lists read from now on are compiled whole)
        self._stack.enter_context(settled())
        return False


_DOTS = frozenset(("", ".", ".."))  # names that never take the last-directory shortcut


class _Answers:
    """Answers paths in order as git does and counts the matches (the exit code)."""

    def __init__(self, session: IgnoreSession, specs: Resolver, out: BinaryIO, *,
                 verbose: bool, nul: bool, quiet: bool, non_matching: bool, full: bool
                 ) -> None:
        self.session = session
        self.specs = specs
        self.out = out
        self.verbose, self.nul, self.quiet, self.non_matching = verbose, nul, quiet, non_matching
        self.full = full
        self.num = 0
        # The last directory answered, as spelled in the input ("a/b/"), and its node: a
        # path that continues it needs no resolution (git keeps its last directory too).
        # Set only when the path resolved to itself: no magic, nothing to normalise, no
        # symbolic link leading to it, so any other name in it resolves to itself too.
        self._last_dir: str | None = None
        self._last_node: DirNode | None = None

    def emit(self, path: bytes, m: Match) -> None:
        """Output one decision (``path``: the argument's bytes) as git does."""
        rule = m.rule
        if rule is None or (rule.negated and not self.verbose):
            if self.non_matching and not self.quiet:
                _output(self.out, path, None, self.verbose, self.nul, self.full)
            return
        self.num += 1
        if not self.quiet:
            _output(self.out, path, m, self.verbose, self.nul, self.full)

    def answer(self, path: bytes, arg: str) -> None:
        """Resolve and answer one argument; remember its directory when it may be reused."""
        rel = self.specs.resolve(arg)
        session = self.session
        cut = rel.rfind("/")
        name = rel[cut + 1:]
        if name in _DOTS:  # "" (the top, or a trailing "/"): git's own path
            self.emit(path, session.match_pathspec(rel))
            return
        node = session.dir_node(rel[:cut] if cut > 0 else "")
        stop = node.stop
        self.emit(path, stop if stop is not None else session.decide_entry(node, rel, name, None))
        prefix = self.specs.prefix
        if prefix is not None and cut > 0 and (rel == arg if not prefix else rel == prefix + arg):
            self._last_dir = arg[:cut + 1 - len(prefix)]
            self._last_node = node

    def stdin(self, batches: Iterable[list[bytes]], flush: bool, lazy: _Laziness) -> None:
        """Answer every ``--stdin`` record (:func:`_stdin_batches`); ``flush``: after each
        batch (git: each answer)."""
        for batch in batches:
            if lazy.fits(len(batch)):  # (a few records: huge ignore files scanned once for them all)
                prefix = self.specs.prefix or ""
                with lazy.expecting([prefix + rec.decode("utf-8", "surrogateescape") for rec in batch]):
                    self._batch(batch)
            else:
                self._batch(batch)
            if flush:
                self.out.flush()  # git flushes each answer; here each batch (_stdin_batches)

    def _batch(self, batch: list[bytes]) -> None:
        quoted = not self.nul
        decide = self.session.decide_entry
        prefix = self.specs.prefix or ""
        quiet_misses = not self.non_matching
        # (operators rather than method calls below: this loop runs once per path)
        for rec in batch:
            if not rec:
                raise _Fatal(_EMPTY)
            if quoted and (rec[0] == 0x22 or 0 in rec):  # '"' or a NUL
                rec = _line_path(rec)
                if not rec:
                    raise _Fatal(_EMPTY)
            try:
                arg = rec.decode()
            except UnicodeDecodeError:
                arg = rec.decode("utf-8", "surrogateescape")
            last = self._last_dir
            if last is not None and arg[:len(last)] == last:
                cut = len(last)
                name = arg[cut:]
                node = self._last_node
                if "/" not in name and name not in _DOTS and node is not None:
                    stop = node.stop
                    m = stop if stop is not None else decide(
                        node, prefix + arg if prefix else arg, name, None)
                    if m.rule is not None or not quiet_misses:
                        self.emit(rec, m)
                    continue
            self.answer(rec, arg)


@contextlib.contextmanager
def _few_collections() -> Iterator[None]:
    """Fewer cyclic garbage collections while a long list is answered: the loop makes no
    cycles (reference counting frees everything), but each collection would walk every
    directory node built so far. Restored afterwards (``main`` also runs in-process)."""
    thresholds = gc.get_threshold()
    gc.freeze()  # what start-up built is never garbage: no collection walks it again
    gc.set_threshold(50_000, 50, 50)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def _flush_each_answer(out: BinaryIO) -> bool:
    """git's ``maybe_flush_or_die``: flush after each answer (a coprocess reads them)
    unless ``GIT_FLUSH=0`` or stdout is a regular file."""
    env = os.environ.get("GIT_FLUSH")
    if env is not None:
        try:
            return int(env.strip() or "0") != 0
        except ValueError:
            return False
    try:
        return not _stat.S_ISREG(os.fstat(out.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return True


_EMPTY = ("fatal: empty string is not a valid pathspec. please use . instead if you meant "
          "to match all paths")
