"""The progress line of `hansard index` and `hansard reindex`: bytes read of bytes to read,
rate, time left and the file being read, redrawn at most ten times a second on stderr, and
only when stderr is a terminal (a pipe or a log file gets nothing)."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

from hansard.text.terminal import visible

MB = 1_000_000


def terminal_progress(stream: TextIO | None = None, unit: str | None = None) -> Bytes | None:
    """The progress line on ``stream`` (stderr) when it is a terminal, else None. ``unit``:
    count things of that name (files) rather than bytes."""
    stream = stream or sys.stderr
    return Bytes(stream, unit) if is_terminal(stream) else None


def is_terminal(stream: TextIO | None = None) -> bool:
    stream = stream or sys.stderr
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _unit(n: float) -> tuple[float, str]:
    """The unit that shows ``n`` bytes with a few significant digits (so a small store's
    reindex does not read `0.0 of 0.0 MB`)."""
    for size, name in ((1e9, "GB"), (MB, "MB"), (1e3, "kB")):
        if n >= size:
            return size, name
    return 1, "B"


def _amount(n: float, size: float, name: str) -> str:
    return f"{n:,.0f} {name}" if size == 1 else f"{n / size:,.1f} {name}"


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Bytes:
    """A one-line byte counter (hansard.ingest.pipeline.Progress)."""

    INTERVAL = 0.1

    def __init__(self, stream: TextIO, unit: str | None = None) -> None:
        self.stream = stream
        self.unit = unit
        self.total = 0
        self.done_bytes = 0
        self.path = ""
        self.t0 = time.monotonic()
        self.shown = 0.0
        self.drawn = False

    def start(self, total_bytes: int, files: int) -> None:
        self.total, self.done_bytes, self.t0 = total_bytes, 0, time.monotonic()
        self.shown = 0.0

    def file(self, path: str) -> None:
        self.path = path
        self._draw()

    def advance(self, nbytes: int) -> None:
        self.done_bytes += nbytes
        self._draw()

    def done(self) -> None:
        if self.drawn:
            self._draw(force=True)
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False

    def line(self, width: int = 100) -> str:
        elapsed = max(time.monotonic() - self.t0, 1e-6)
        done = min(self.done_bytes, self.total) if self.total else self.done_bytes
        rate = done / elapsed
        pct = 100.0 * done / self.total if self.total else 100.0
        left = _clock((self.total - done) / rate) if rate > 0 and self.total > done else "0:00"
        if self.unit:
            head = f"{done:,} of {self.total:,} {self.unit} ({pct:3.0f}%)  {rate:.1f}/s  {left} left  "
        else:
            size, name = _unit(self.total or done)
            rsize, rname = _unit(rate)
            amount = _amount(done, size, name).rsplit(" ", 1)[0]
            head = (f"{amount} of {_amount(self.total, size, name)} ({pct:3.0f}%)  {_amount(rate, rsize, rname)}/s  "
                    f"{left} left  ")
        room = max(width - len(head), 10)
        path = visible(self.path)  # a file's name can hold control characters
        name = path if len(path) <= room else "…" + path[-(room - 1):]
        return head + name

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.shown < self.INTERVAL:
            return
        self.shown = now
        try:
            width = os.get_terminal_size(self.stream.fileno()).columns - 1
        except (OSError, ValueError, AttributeError):
            width = 99
        self.stream.write("\r" + self.line(width).ljust(width)[:width])
        self.stream.flush()
        self.drawn = True
