"""Reading source files as raw records.

A JSONL file is read from a byte offset in large blocks and split on ``\\n``; a record is
the exact bytes of one line. A last line without its newline is *not* returned unless it is
already a whole JSON object: the agent may still be writing it, and the next scan reads it
once it is complete. Lines of any
length are accepted (multi-MB tool results are common).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import orjson

from hansard.files import safeopen
from hansard.values.models import RawRecord

BLOCK = 1 << 20


@dataclass
class ReadResult:
    """Where reading stopped: ``end`` is the offset just past the last complete line."""

    end: int
    partial_tail: int = 0  # bytes after ``end`` that form an unfinished line


def iter_jsonl(path: str, start: int = 0, result: ReadResult | None = None, stop_at: int | None = None,
               within: Iterable[str] | None = None) -> Iterator[RawRecord]:
    """Complete lines of ``path`` from byte ``start``. ``result.end`` is updated as lines are
    yielded, so a caller can persist the resume offset even if it stops early. The file is
    opened without blocking, and must be a regular file inside ``within`` (hansard.files.safeopen)."""
    res = result if result is not None else ReadResult(start)
    res.end = start
    with safeopen.open_file(path, follow=True, within=within) as fh:
        fh.seek(start)
        pos = start
        # Lines are cut from each block as it is read, each copied once; only a line that spans
        # blocks is gathered in ``pending`` (from ``pending_start``) first.
        pending = bytearray()
        pending_start = start
        while True:
            want = BLOCK if stop_at is None else min(BLOCK, stop_at - pos)
            if want <= 0:
                break
            block = fh.read(want)
            if not block:
                break
            at = pos  # the offset of block[0]
            pos += len(block)
            nl = block.find(b"\n")
            if nl < 0:
                pending += block
                continue
            if pending:
                pending += memoryview(block)[:nl]
                line = bytes(pending)
                pending.clear()
            else:
                line = block[:nl]
            offset = pending_start
            cut = 0
            while True:
                cut = nl + 1
                res.end = at + cut
                if line.endswith(b"\r"):
                    line = line[:-1]
                if line and not line.isspace():
                    yield RawRecord(path, offset, line)
                nl = block.find(b"\n", cut)
                if nl < 0:
                    break
                line = block[cut:nl]
                offset = at + cut
            pending += memoryview(block)[cut:]
            pending_start = at + cut
        if pending and _complete_object(bytes(pending)):
            # The last line has no newline but is a whole JSON object: a finished file
            # (Entire's copies end this way), not a line still being written.
            line = bytes(pending).rstrip(b"\r")
            res.end = pending_start + len(pending)
            yield RawRecord(path, pending_start, line)
            pending.clear()
        res.partial_tail = len(pending)


def _complete_object(data: bytes) -> bool:
    s = data.strip()
    if not s.startswith(b"{") or not s.endswith(b"}"):
        return False
    try:
        return isinstance(orjson.loads(s), dict)
    except orjson.JSONDecodeError:
        return False


def read_whole(path: str, within: Iterable[str] | None = None) -> RawRecord:
    with safeopen.open_file(path, follow=True, within=within) as fh:
        return RawRecord(path, 0, fh.read())


def file_identity(path: str) -> tuple[int, int, int]:
    """(inode, size, mtime_ns): what the scanner compares to decide if a file changed."""
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns
