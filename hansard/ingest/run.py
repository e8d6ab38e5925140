"""One `hansard index` run: take the indexer lock, scan, link to repositories, record the run."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from hansard.ingest.scanner import Scanner, ScanSummary, index_lock
from hansard.ingest.memory_files import refresh_memories
from hansard.store.sqlite.db import transaction
from hansard.link.repos import resolve_pending


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def index(db: sqlite3.Connection, paths: Iterable[Path] | None = None, *, wait: bool = True,
          progress: Callable[[int, int, str], None] | None = None) -> ScanSummary | None:
    """Scan and link. Returns None when ``wait`` is off and another indexer is running."""
    with index_lock(wait=wait) as got:
        if not got:
            return None
        started = _now()
        if db.execute("SELECT 1 FROM sources WHERE redactions < 0 LIMIT 1").fetchone():
            # Derived rows written before secret redaction existed (migration m021): rebuild
            # them from the archive once, so that no command serves what they hold.
            from hansard.ingest.scanner import reindex

            reindex(db)
        summary = Scanner(db, progress).scan(list(paths) if paths else None)
        with transaction(db):
            resolve_pending(db)
            if summary.changed or not db.execute("SELECT 1 FROM runs LIMIT 1").fetchone():
                db.execute(
                    "INSERT INTO runs (started_at, finished_at, files, records, bytes, skipped, sessions, messages,"
                    " edits, kind, redactions) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (started, _now(), summary.files, summary.records, summary.bytes, sum(summary.skipped.values()),
                     summary.sessions, summary.messages, summary.edits, "index", summary.redactions),
                )
        refresh_memories(db)  # memory files (CLAUDE.md, AGENTS.md, ...): hansard/answers/memories.py
        return summary


def rebuild(db: sqlite3.Connection) -> ScanSummary:
    """`hansard reindex`: every derived table again from the archive alone, then linked."""
    from hansard.ingest.scanner import reindex

    with index_lock():
        summary = reindex(db)
        with transaction(db):
            resolve_pending(db)
        return summary
