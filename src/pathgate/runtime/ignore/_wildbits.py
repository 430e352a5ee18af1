"""git's ``wildmatch`` read the other way round: a few fixed texts, many pattern lines, no compile.

:mod:`._wildnfa` compiles one pattern and reads texts with it. A one-shot command (``pathgate
hook``) asks a few texts of an ignore file whose lines it cannot narrow (60,000 lines like
``*[ab]x*q*z*``, each holding only literal runs the path holds too): compiling every line (a
rule, an automaton) cost seconds and hundreds of megabytes, where git runs its C ``wildmatch``
line by line. :class:`Texts` holds the texts instead, all at once: they are joined by NUL (a
character no pattern holds: :func:`._rules.clean_line` cuts a line there) and a pattern's
state is one integer, bit ``i`` set when the pattern read so far can match the text up to
position ``i`` (:meth:`Texts.run`). A literal character or a ``?``, a bracket, a run of
literals shifts it by the masks of the text positions they accept; a ``*`` fills each set
bit rightwards up to the next ``/`` or NUL (one addition: ``s | ((s & A) + A) ^ A``, carries run
through the ones of ``A``); ``**/`` adds the position after every ``/`` to the right of a set
bit. The pattern matches a text when the bit of that text's end is set at the end. The
tokens are :func:`._wildnfa.compile_nfa`'s (same ``**`` rules, brackets parsed by
:func:`._wildmatch.bracket_members`, escapes never folded), so the decisions are the
automaton's, which equal the regex translation's and git's (tests compare them with the
compiled rules on generated lines and with ``git check-ignore``).

A line is classified as :func:`._rules.compile_pattern` classifies it (:func:`matching_lines`:
basename rules on the names, path rules on the paths after their literal head). The runs of
literals, ``?`` and brackets between the stars of a line (its *pieces*) are remembered per text
set (up to :data:`MEMO` of them), so a file of many lines built of few pieces costs a dictionary
look-up per piece. Lines are read last first (git's last match wins), a window of the file's
bytes at a time, or only those a scan found (:mod:`._lazy`'s candidate lines). Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from pathgate.runtime.ignore._rules import clean_line
from pathgate.runtime.ignore._wildmatch import _simple_length, bracket_members

__all__ = ["MEMO", "Texts", "matching_lines"]

#: Pieces (and brackets) remembered per text set; past that they are worked out each time.
MEMO = 1 << 16
#: Bytes of the file read (decoded, split into lines) at a time.
WINDOW = 1 << 18

#: A bracket expression git's parser reads up to its first ``]`` after its first member (a
#: ``!``/``^`` first is the negation, taken atomically as git takes it; a ``]`` first is a
#: member): no ``[`` (character class) or ``\\`` inside. Others are parsed by
#: :func:`._wildmatch.bracket_members` from where they start.
_SIMPLE_BRACKET = re.compile(r"\[(?>[!^]?)(?>\]?)[^\]\[\\]*\]")
#: A piece :meth:`Texts._piece` could not read alone (a bracket going on past a ``*``): the
#: line is then read token by token.
_UNREAD = (0, 0)
_FOLD_TABLE = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Texts:
    """Texts (latin-1 views, folded when ``fold``) tested together against patterns.

    ``pathname`` is ``WM_PATHNAME``: the paths, which path rules are tested on; the basenames
    are tested without it (as :func:`._rules.compile_pattern`'s basename globs are; they hold
    no ``/``). :meth:`run` gives a pattern's final state from start bits (:attr:`starts`),
    :attr:`accept` the bits of the texts' ends."""

    __slots__ = ("_anyq", "_brackets", "_chars", "_nsep", "_nslash", "_pieces", "_slash", "accept", "ends", "fold",
                 "pathname", "starts", "texts")

    def __init__(self, texts: Sequence[str], pathname: bool, fold: bool) -> None:
        self.texts = tuple(texts)
        self.pathname = pathname
        self.fold = fold
        joined = "\0".join(self.texts)
        n = len(joined)
        rev = joined[::-1].encode("latin-1")  # (a mask's digits, most significant first)
        table = bytearray(b"0" * 256)

        def mask(c: str) -> int:
            table[ord(c)] = 49  # "1"
            got = int(rev.translate(table), 2) if n else 0
            table[ord(c)] = 48
            return got

        self._chars = {c: mask(c) for c in set(joined) - {"\0"}}
        self._nsep = ((1 << n) - 1) & ~mask("\0")  # every text position
        self._slash = self._chars.get("/", 0)
        self._nslash = self._nsep & ~self._slash
        self._anyq = self._nslash if pathname else self._nsep  # what ``?`` takes
        self.starts: list[int] = []
        self.ends: list[int] = []
        pos = 0
        for text in self.texts:
            self.starts.append(1 << pos)
            pos += len(text)
            self.ends.append(1 << pos)
            pos += 1
        self.accept = sum(self.ends)
        self._pieces: dict[str, tuple[int, int]] = {"": (-1, 0)}  # (an empty piece: every state as it is)
        self._brackets: dict[str, int] = {}

    def hits(self, s: int) -> int:
        """The texts (bit ``k`` for text ``k``) whose end is set in the final state ``s``."""
        return sum(1 << k for k, end in enumerate(self.ends) if s & end)

    def run(self, glob: str, s: int) -> int:
        """The final state of wildmatch pattern ``glob`` (its start a component boundary,
        as for git's ``wildmatch`` after a literal prefix) from the state ``s``: the pieces
        between its stars remembered, or token by token (:meth:`_slow`) when it holds a
        backslash or a bracket that does not end before the next star (then a piece before
        the last is :data:`_UNREAD`: the stars split it wrongly)."""
        if "\\" in glob:
            return self._slow(glob, s)
        parts = glob.split("*")
        get, piece = self._pieces.get, self._piece
        s0 = s
        got = get(parts[0]) or piece(parts[0])
        s = (s & got[0]) << got[1]
        if not s:
            return self._slow(glob, s0) if got is _UNREAD else 0
        if len(parts) == 1:
            return s
        last = parts[-1]
        if last and last[0] != "/" and _ends_split(glob, len(glob) - len(last) - 1):
            got = get(last) or piece(last)  # (it must end where a text ends: tested first)
            if got is not _UNREAD and not (got[0] << got[1]) & self.accept:
                return 0
        if self.pathname:
            gots = [get(part) or piece(part) for part in parts]
            if _UNREAD in gots:
                return self._slow(glob, s0)
            return self._path(parts, gots, s0)
        a = self._nsep  # every run of stars takes anything (an empty piece: no change)
        for nxt in parts[1:]:
            s |= ((s & a) + a) ^ a
            got = get(nxt) or piece(nxt)
            s = (s & got[0]) << got[1]
            if not s:
                return self._slow(glob, s0) if got is _UNREAD else 0
        return s

    def _path(self, parts: list[str], gots: list[tuple[int, int]], s: int) -> int:
        """:meth:`run` with ``WM_PATHNAME`` (``parts``: the pattern split at its stars;
        ``gots``: their pieces, all read)."""
        nsep, nslash = self._nsep, self._nslash
        got = gots[0]
        s = (s & got[0]) << got[1]
        if not s:
            return 0
        first = parts[0]
        np_ = len(parts)
        k = 1
        while k < np_:  # a run of stars, then the piece after it
            j = k
            while j < np_ - 1 and not parts[j]:
                j += 1
            got = gots[j]
            if j == k or not ((k == 1 and not first) or parts[k - 1].endswith("/")):
                s |= ((s & nslash) + nslash) ^ nslash  # ``*``, or ``**`` not at a boundary
            elif j == np_ - 1 and not parts[j]:
                s |= ((s & nsep) + nsep) ^ nsep  # a trailing ``**``: anything
            elif parts[j].startswith("/"):  # ``**/``: zero or more directories
                s |= ((s | ((s & nsep) + nsep) ^ nsep) & self._slash) << 1
                got = self._pieces.get(parts[j][1:]) or self._piece(parts[j][1:])
            else:
                s |= ((s & nslash) + nslash) ^ nslash
            s = (s & got[0]) << got[1]
            if not s:
                return 0
            k = j + 1
        return s

    def _piece(self, piece: str) -> tuple[int, int]:
        """``(starts, length)``: the text positions where ``piece`` (literals, ``?`` and
        brackets, no ``*`` or ``\\``) matches, and how many characters it takes;
        :data:`_UNREAD` when a bracket in it does not end inside it (it may go on past a
        ``*``: the line is then read token by token, :meth:`_slow`). Remembered."""
        chars = self._chars
        folded = piece.translate(_FOLD_TABLE) if self.fold else piece
        starts = -1
        i = j = 0
        m = len(piece)
        got: tuple[int, int] = _UNREAD
        while i < m:
            c = folded[i]
            if c == "?":
                mask = self._anyq
                i += 1
            elif c == "[":
                br = self._bracket(piece, i)
                if br is None:
                    break
                mask, i = br
            else:
                mask = chars.get(c, 0)
                i += 1
            starts &= mask >> j
            j += 1
        else:
            got = (starts, j)
        if len(self._pieces) < MEMO:
            self._pieces[piece] = got
        return got

    def _bracket(self, p: str, i: int) -> tuple[int, int] | None:
        """The text positions the bracket expression at ``p[i] == '['`` accepts and the
        index after it; ``None`` when git's parser does not find its end in ``p``."""
        simple = _SIMPLE_BRACKET.match(p, i)
        if simple is None:
            res = bracket_members(p, i, self.pathname, self.fold)
            if res is None:
                return None
            members, end = res
            inside = set(members)
            return sum(bits for c, bits in self._chars.items() if ord(c) in inside), end
        key = simple.group()
        got = self._brackets.get(key)
        if got is None:
            got = self._simple(key)
            if len(self._brackets) < MEMO:
                self._brackets[key] = got
        return got, simple.end()

    def _simple(self, key: str) -> int:
        """The text positions bracket expression ``key`` (:data:`_SIMPLE_BRACKET`) accepts,
        parsed as :func:`._wildmatch.bracket_members` parses it (members, ``a-z`` ranges; a
        negation; with ``fold`` an upper-case letter never a member and a lower-case one
        also when a range holds its upper case; never ``/`` with ``WM_PATHNAME``) but only
        for the texts' own characters (a negated bracket's 256 values are never listed)."""
        negated = key[1] in "!^"
        content = key[2:-1] if negated else key[1:-1]
        singles: set[str] = set()
        ranges: list[tuple[int, int]] = []
        prev = ""
        k, n = 0, len(content)
        while k < n:
            ch = content[k]
            if ch == "-" and prev and k + 1 < n:  # (a ``-`` first, or last, is a member)
                ranges.append((ord(prev), ord(content[k + 1])))
                prev = ""
                k += 2
            else:
                singles.add(ch)
                prev = ch
                k += 1
        fold, pathname = self.fold, self.pathname
        mask = 0
        for c, bits in self._chars.items():
            o = ord(c)
            hit = c in singles
            if not hit and ranges:
                hit = any(lo <= o <= hi for lo, hi in ranges) or (
                    fold and 97 <= o <= 122 and any(lo <= o - 32 <= hi for lo, hi in ranges))
            if hit != negated and not (pathname and o == 47) and not (fold and 65 <= o <= 90):
                mask |= bits
        return mask

    def _slow(self, glob: str, s: int) -> int:
        """:meth:`run`, token by token as :func:`._wildnfa.compile_nfa` reads the pattern
        (escapes taken unfolded; a trailing ``\\`` or a malformed bracket: no match)."""
        p, n, i = glob, len(glob), 0
        pathname, fold, chars = self.pathname, self.fold, self._chars
        nsep, nslash = self._nsep, self._nslash
        while i < n:
            c = p[i]
            if c == "\\":
                if i + 1 >= n:
                    return 0
                s = (s & chars.get(p[i + 1], 0)) << 1
                i += 2
            elif c == "?":
                s = (s & self._anyq) << 1
                i += 1
            elif c == "[":
                got = self._bracket(p, i)
                if got is None:
                    return 0
                mask, i = got
                s = (s & mask) << 1
            elif c == "*":
                j = i
                while j < n and p[j] == "*":
                    j += 1
                if not pathname:
                    s |= ((s & nsep) + nsep) ^ nsep
                elif j - i == 1 or not (i == 0 or p[i - 1] == "/"):
                    s |= ((s & nslash) + nslash) ^ nslash
                elif j == n:
                    s |= ((s & nsep) + nsep) ^ nsep
                elif p[j] == "/":
                    s |= ((s | ((s & nsep) + nsep) ^ nsep) & self._slash) << 1
                    j += 1  # (the slash is the directories' own)
                elif p[j] == "\\" and j + 1 < n and p[j + 1] == "/":
                    s |= ((s & nsep) + nsep) ^ nsep  # (no zero-directory branch before an escaped slash)
                else:
                    s |= ((s & nslash) + nslash) ^ nslash
                i = j
            else:
                if fold and "A" <= c <= "Z":
                    c = c.lower()
                s = (s & chars.get(c, 0)) << 1
                i += 1
            if not s:
                return 0  # (matches nothing, whatever follows)
        return s


def _ends_split(glob: str, cut: int) -> bool:
    """Is the ``*`` at ``glob[cut]`` (no backslash in ``glob``) outside every bracket, so that
    what follows it is the last piece? Yes when no ``[`` precedes it, or (no ``[:`` class
    anywhere) the last ``[`` before it is closed before it: a bracket ends at the first ``]``
    after its first member, and one holding that ``[`` as a member ends there too."""
    b = glob.rfind("[", 0, cut)
    if b < 0:
        return True
    if "[:" in glob:
        return False
    j = b + 1
    if j < cut and glob[j] in "!^":
        j += 1
    return glob.find("]", j + 1, cut) >= 0


def _windows(data: bytes, starts: Sequence[int] | None, first: int
             ) -> Iterator[tuple[int, list[str], Sequence[int] | None, bool]]:
    """The lines of ``data``, last window first: ``(offset, lines, their starts, nul)``.
    Every line from offset ``first`` (past a byte-order mark) when ``starts`` is ``None``,
    :data:`WINDOW` bytes at a time (``lines``: one window's split at its line breaks, the
    first starting at ``offset``; their starts ``None``), else those starting at ``starts``
    (ascending), a few thousand at a time. Latin-1 views; ``nul``: whether one holds a NUL."""
    if starts is not None:
        find, size = data.find, len(data)
        top = len(starts)
        while top > 0:
            group = starts[max(0, top - 4096):top]
            lines = []
            for start in group:
                end = find(b"\n", start)
                lines.append(data[start:end if end >= 0 else size].decode("latin-1"))
            yield -1, lines, group, any("\0" in line for line in lines)
            top -= 4096
        return
    top = len(data)  # the end of the lines still to read (a line break, or the end)
    while top >= first:
        a = data.rfind(b"\n", first, max(first, top - WINDOW)) + 1 or first  # (a line start)
        chunk = data[a:top].decode("latin-1")
        yield a, chunk.split("\n"), None, "\0" in chunk
        top = a - 1


def matching_lines(data: bytes, starts: Sequence[int] | None, first: int, names: Texts, rels: Texts,
                   want: list[int]) -> Iterator[tuple[int, int, bool, int]]:
    """The lines of ``data`` (those starting at ``starts``, or all: :func:`_windows`), last
    first, whose rule -- as :func:`._rules.clean_line` and :func:`._rules.compile_pattern`
    make it -- matches one of the texts asked: ``(start, end, dir-only, bits)``, bit ``k`` of
    ``bits`` set when it matches text ``k`` (basename ``names.texts[k]``, path
    ``rels.texts[k]``). ``want`` is ``[any, files]``: the texts (bits) any rule may decide
    and those only a rule that is not dir-only may; re-read after each line given (the caller
    drops the texts it has its answer for), the lines end when both are empty."""
    n_run, p_run = names.run, rels.run
    n_accept, p_accept = names.accept, rels.accept
    ua, uf = want
    if not ua | uf:
        return
    n_dir, n_all = _bits(names.starts, ua), _bits(names.starts, ua | uf)  # (start states)
    p_dir, p_all = _bits(rels.starts, ua), _bits(rels.starts, ua | uf)
    for offset, lines, at, nul in _windows(data, starts, first):
        for idx in range(len(lines) - 1, -1, -1):
            line = lines[idx]
            if not line or line[0] == "#":
                continue
            last = line[-1]
            if last == " " or last == "\r" or (nul and "\0" in line):
                cleaned = clean_line(line.encode("latin-1"))
                if cleaned is None:
                    continue
                p = cleaned.decode("latin-1")
            else:
                p = line
            if p[:1] == "!":  # (compile_pattern's negation ...
                p = p[1:]
            dir_only = p[-1:] == "/"
            if dir_only:  # ... and dir-only mark)
                p = p[:-1]
            if "/" in p:  # a path rule: the leading slash dropped, the literal head compared first
                s = p_dir if dir_only else p_all
                if not s:
                    continue
                if p[0] == "/":
                    p = p[1:]
                head = _simple_length(p)
                if head:
                    s = p_run(p[:head], s)
                    p = p[head:]
                if p and s:
                    s = p_run(p, s)
                s &= p_accept
                tx = rels
            else:
                s = n_dir if dir_only else n_all
                if not s:
                    continue
                s = n_run(p, s) & n_accept
                tx = names
            if s:
                hit = tx.hits(s) & (ua if dir_only else ua | uf)
                if hit:
                    if at is not None:
                        start = at[idx]
                    else:
                        start = offset + sum(map(len, lines[:idx])) + idx
                    yield start, start + len(line), dir_only, hit
                    ua, uf = want
                    if not ua | uf:
                        return
                    n_dir, n_all = _bits(names.starts, ua), _bits(names.starts, ua | uf)
                    p_dir, p_all = _bits(rels.starts, ua), _bits(rels.starts, ua | uf)


def _bits(starts: list[int], texts: int) -> int:
    """The start bits of ``texts`` (bit ``k``: text ``k``)."""
    return sum(b for k, b in enumerate(starts) if texts >> k & 1)
