"""The audit log: one row per MCP call (tool, caller, outcome, error code, duration, result count,
and the query text only when the server was started with ``--audit-queries``)."""

from __future__ import annotations

import sqlite3
from typing import Any

from hansard.store.sqlite.db import _typed, impatient


class SqliteAuditLog:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def record(self, *, at: str, tool: str, caller: str | None, outcome: str, error_code: str | None,
               duration_ms: float, result_count: int | None, query: str | None, wait_ms: int = 500) -> None:
        """Write one row. An index run may hold the write lock for a while: the row waits at
        most ``wait_ms`` for it, then fails with ``store_busy`` (the caller decides to drop it)."""
        try:
            with impatient(self.db, wait_ms):
                self.db.execute(
                    "INSERT INTO audit (at, tool, caller, outcome, error_code, duration_ms, result_count, query)"
                    " VALUES (?,?,?,?,?,?,?,?)",
                    (at, tool, caller, outcome, error_code, duration_ms, result_count, query),
                )
        except sqlite3.Error as exc:
            raise _typed(exc) from None

    def recent(self, limit: int) -> list[dict[str, Any]]:
        """The newest rows first."""
        return [dict(r) for r in self.db.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))]
