"""`hansard index --watch`: keep the store current while transcripts grow.

An index run first; then every change below the watched folders is indexed as it happens:
through the kernel's file notifications (watchfiles: inotify on Linux) when that library is
installed, else by polling the sources' stat every ``POLL_S``. Changes are gathered for at
most ``DEBOUNCE_MS`` (an agent streaming a reply writes many times a second), so a line
written is searchable well within a second. A change to a transcript file indexes that file
alone; any other change (a database's ``-wal``, a file of a folder read as one source, a new
folder, whose first files may come before its notifications do) scans every watched folder,
which costs a stat per unchanged file.

SIGTERM or SIGINT stops it: a run in progress is abandoned at once (its open transaction rolls
back, as after a crash: nothing half-written stays), the index lock is released, and the exit
status is 0.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard import agents
from hansard.errors import StoreBusy
from hansard.ingest.quickcheck import TRANSCRIPT_SUFFIXES

if TYPE_CHECKING:
    from hansard.ingest.pipeline import ScanSummary
    from hansard.store.interfaces import Store

DEBOUNCE_MS = 300  # the longest a change waits for others to join it
STEP_MS = 30  # quiet time that ends a group of changes
POLL_S = 0.25  # without file notifications
ROOTS_S = 5.0  # how often folders that did not exist yet are looked for
TIMEOUT_MS = 250  # the notifications' wait, so that the first one comes soon after they start


class Stopped(BaseException):
    """Raised in the main thread by SIGTERM/SIGINT while a run is in progress (a BaseException,
    so that nothing on the way catches it as an ordinary error)."""


def _roots(paths: list[Path] | None) -> list[str]:
    return [os.path.abspath(p) for p in paths] if paths else [os.path.abspath(p) for p in agents.transcript_dirs()]


def _whole_dirs() -> set[str]:
    return agents.whole_dirs()


def _transcript_file(path: str, whole: set[str]) -> bool:
    if not path.endswith((".jsonl", ".json")) or path.endswith(".meta.json"):
        return False
    return not any(path == w or path.startswith(w + os.sep) for w in whole)


def _relevant(path: str) -> bool:
    return path.endswith(TRANSCRIPT_SUFFIXES) or path.endswith("-wal")


class Watcher:
    def __init__(self, store: Store, paths: Iterable[Path] | None = None,
                 report: Callable[[ScanSummary], None] | None = None, on_ready: Callable[[], None] | None = None
                 ) -> None:
        self.store = store
        self.paths = [Path(p) for p in paths] if paths else None
        self.report = report
        self.on_ready = on_ready  # called once, when every later change will be seen
        self.stop = threading.Event()
        self.busy = False
        self.runs = 0

    # -- stopping -----------------------------------------------------------------------

    def install_signals(self) -> None:
        def handler(signum: int, frame: Any) -> None:
            self.stop.set()
            if self.busy:
                raise Stopped

        signal.signal(signal.SIGTERM, handler)
        signal.signal(signal.SIGINT, handler)

    # -- runs ---------------------------------------------------------------------------

    def index(self, files: list[str] | None = None) -> ScanSummary | None:
        """One run: these transcript files, or every watched folder."""
        from hansard.ingest.run import index

        if self.stop.is_set():
            return None
        self.busy = True
        try:
            summary = index(self.store, [Path(f) for f in files] if files else self.paths)
        except StoreBusy:
            return None  # another indexer held the store too long: the next change tries again
        finally:
            self.busy = False
        self.runs += 1
        if summary is not None and self.report is not None and summary.changed:
            self.report(summary)
        return summary

    def changed(self, paths: set[str]) -> None:
        whole = _whole_dirs()
        paths = {p for p in paths if _relevant(p)}
        if not paths:
            return
        files = sorted(p for p in paths if _transcript_file(p, whole) and os.path.isfile(p))
        if len(files) == len(paths):
            self.index(files)
        else:
            self.index(None)

    # -- the loop -----------------------------------------------------------------------

    def run(self) -> None:
        """Until stopped: watch with file notifications where possible, else poll."""
        watchfiles: types.ModuleType | None
        try:
            import watchfiles
        except ImportError:
            watchfiles = None
        while not self.stop.is_set():
            roots = [r for r in _roots(self.paths) if os.path.exists(r)]
            if watchfiles is not None and roots:
                self._notified(watchfiles, roots)
            else:
                self._polled()

    def _notified(self, watchfiles: Any, roots: list[str]) -> None:
        wanted = set(_roots(self.paths))
        first = True
        looked = time.monotonic()
        for changes in watchfiles.watch(*roots, watch_filter=None, debounce=DEBOUNCE_MS, step=STEP_MS,
                                        stop_event=self.stop, rust_timeout=TIMEOUT_MS, yield_on_timeout=True,
                                        raise_interrupt=False):
            if self.stop.is_set():
                return
            if first:
                # The notifications are on only now: what was written while they were being
                # set up is found by one scan.
                first = False
                self.index(None)
                self._ready()
            elif any(change == watchfiles.Change.added and os.path.isdir(p) for change, p in changes):
                # A new folder is watched only from when the notification of its creation is
                # read: a file written into it before then has no notification of its own (7 of
                # 20 files written right after their folders were seen). One scan finds them.
                self.index(None)
            elif changes:
                self.changed({p for _change, p in changes})
            if time.monotonic() - looked >= ROOTS_S:
                looked = time.monotonic()
                if {r for r in wanted if os.path.exists(r)} != set(roots):
                    self.index(None)  # a folder appeared (an agent's first run) or went: watch anew
                    return

    def _polled(self) -> None:
        from hansard.ingest.quickcheck import anything_changed

        roots = _roots(self.paths)
        self._ready()
        while not self.stop.wait(POLL_S):
            if anything_changed(self.store, roots):
                self.index(None)
            if self.paths is None and any(os.path.exists(r) for r in roots) and self._has_notifications():
                return  # a folder appeared: notifications can take over

    def _ready(self) -> None:
        if self.on_ready is not None:
            self.on_ready()
            self.on_ready = None

    @staticmethod
    def _has_notifications() -> bool:
        try:
            import watchfiles  # noqa: F401
        except ImportError:
            return False
        return True


def serve(store: Store, paths: Iterable[Path] | None = None, *, quiet: bool = False) -> int:
    """`hansard index --watch`: index, then keep indexing as transcripts change, until
    SIGTERM/SIGINT. Exit status 0 on a signal."""
    from hansard.ingest.scanner import stderr_progress

    def report(summary: ScanSummary) -> None:
        if not quiet:
            sys.stderr.write(f"hansard: indexed {summary.records} records of {summary.changed} files"
                             f" ({summary.messages} messages)\n")
            sys.stderr.flush()

    def ready() -> None:
        if not quiet:
            n = len([r for r in _roots(watcher.paths) if os.path.exists(r)])
            sys.stderr.write(f"hansard: watching {n} folders for new transcript lines (SIGTERM stops)\n")
            sys.stderr.flush()

    watcher = Watcher(store, paths, report, ready)
    watcher.install_signals()
    try:
        from hansard.ingest.run import index

        watcher.busy = True
        try:
            index(store, watcher.paths, progress=None if quiet else stderr_progress())
        finally:
            watcher.busy = False
        watcher.run()
    except Stopped:
        pass
    return 0
