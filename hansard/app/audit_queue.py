"""Audit rows that could not be written at once (an index run holding the store's write
lock), written later by one background thread.

Always true: a row handed to ``later`` is written exactly once, retried with a growing pause
for as long as the store stays busy; ``flush`` waits until every queued row is written (the
server calls it before it exits), so `hansard audit` lists every call.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Any

from hansard.errors import HansardError

_Q: queue.Queue[dict[str, Any]] = queue.Queue()
_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"thread": None}


def _write(row: dict[str, Any]) -> None:
    from hansard.store import open_store

    store = open_store()
    try:
        store.audit.record(**row, wait_ms=5000)
    finally:
        store.close()


def _worker() -> None:
    while True:
        row = _Q.get()
        pause = 0.05
        while True:
            try:
                _write(row)
                break
            except Exception as exc:
                from hansard.store.errors import is_engine_error

                if not (isinstance(exc, HansardError) or is_engine_error(exc)):
                    raise
                # An engine error the store did not type (no ``retryable``) is retried.
                if not getattr(exc, "retryable", True):
                    print(f"hansard: audit row for {row.get('tool')} not written: {exc}", file=sys.stderr)
                    break
                time.sleep(pause)
                pause = min(pause * 2, 1.0)
        _Q.task_done()


def later(row: dict[str, Any]) -> None:
    """Queue ``row`` (the keyword arguments of ``AuditLog.record`` but ``wait_ms``)."""
    with _LOCK:
        if _STATE["thread"] is None:
            t = threading.Thread(target=_worker, name="hansard-audit", daemon=True)
            t.start()
            _STATE["thread"] = t
    _Q.put(row)


def flush(timeout: float = 30.0) -> bool:
    """Wait until every queued row is written; False when ``timeout`` passed first."""
    end = time.monotonic() + timeout
    while _Q.unfinished_tasks:
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True
