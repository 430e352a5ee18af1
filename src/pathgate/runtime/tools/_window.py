"""A line window of a file over the size limit, streamed from its descriptor.

``read_files`` with ``offset``/``limit`` on a file the size gate refused: the file is opened
again through the same descriptor-anchored route (walked from the root, no symlink
followed), confirmed to be the inode the gates approved, and read in chunks only as far as
the window needs — never the whole file into memory:

* lines are ``\\n``-separated (as ``sed -n``); bytes before the window are only counted;
* at most ``max_out`` bytes of window are kept (the caller's bound on output), cut at a line
  end when it stops there;
* at most :data:`MAX_SCAN` bytes are read before the window begins (``scan_capped``);
* a NUL in the file's first 8 KiB or in the window, or invalid UTF-8, is binary.

``total_lines`` is known only when the read reached the end of the file.
"""

from __future__ import annotations

import errno
import stat
from dataclasses import dataclass

from pathgate.runtime.fs import BINARY_SNIFF, FileOps, ReadRequest, open_at

__all__ = ["MAX_SCAN", "Window", "read_window"]

#: Bytes a window read may pass over before its first line (a window deeper in a larger
#: file is refused with ``[FILE_TOO_LARGE]``).
MAX_SCAN = 1 << 30
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Window:
    """What a window read found (facts; ``read_files`` turns them into a result)."""

    text: str | None = None
    total_lines: int | None = None
    error: int | None = None
    changed: bool = False
    binary: bool = False
    scan_capped: bool = False


class _Taker:
    """Collects the window's bytes from successive chunks."""

    def __init__(self, skip: int, limit: int | None, max_out: int) -> None:
        self.skip = skip
        self.left = limit
        self.max_out = max_out
        self.out = bytearray()
        self.newlines = 0
        self.done = False

    def feed(self, chunk: bytes) -> None:
        pos = 0
        if self.skip:
            n = chunk.count(b"\n")
            if n < self.skip:
                self.skip -= n
                self.newlines += n
                return
            for _ in range(self.skip):
                pos = chunk.index(b"\n", pos) + 1
            self.newlines += self.skip
            self.skip = 0
        end = len(chunk)
        if self.left is not None:
            p = pos
            while self.left > 0:
                nl = chunk.find(b"\n", p)
                if nl < 0:
                    break
                p = nl + 1
                self.left -= 1
            if self.left == 0:
                end, self.done = p, True
        self.newlines += chunk.count(b"\n", pos, end)
        self.out += chunk[pos:end]
        if len(self.out) > self.max_out:
            cut = self.out.rfind(b"\n", 0, self.max_out)
            del self.out[cut + 1 if cut >= 0 else self.max_out :]
            self.done = True


def read_window(ops: FileOps, req: ReadRequest, offset: int, limit: int | None, max_out: int) -> Window:
    """Lines ``offset .. offset + limit - 1`` (1-based) of ``req``'s file, streamed."""
    try:
        fd = open_at(ops, req)
    except OSError as exc:
        return Window(error=exc.errno or errno.EIO)
    try:
        st = ops.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (
            req.identity is not None and (st.st_dev, st.st_ino) != req.identity
        ):
            return Window(changed=True)
        taker = _Taker(offset - 1, limit, max_out)
        scanned = 0
        first = True
        last = b"\n"
        while not taker.done:
            chunk = ops.read_fd(fd, _CHUNK)
            if not chunk:
                break
            if first and b"\x00" in chunk[:BINARY_SNIFF]:
                return Window(binary=True)
            first = False
            last = chunk[-1:]
            scanned += len(chunk)
            taker.feed(chunk)
            if taker.skip and scanned > MAX_SCAN:
                return Window(scan_capped=True)
        eof = not taker.done
        data = bytes(taker.out)
        if b"\x00" in data:
            return Window(binary=True)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return Window(binary=True)
        total = None
        if eof:  # every byte was counted (a window reaching the end keeps no partial count)
            total = taker.newlines + (1 if last != b"\n" else 0)
        return Window(text=text, total_lines=total)
    except OSError as exc:
        return Window(error=exc.errno or errno.EIO)
    finally:
        ops.close(fd)
