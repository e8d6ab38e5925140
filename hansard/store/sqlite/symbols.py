"""The symbol cache (table ``symbol_cache``, migration m010_symbol_cache).

A row holds what the analyzers found in one blob: symbols and imports as JSON, keyed by
(git blob id, language, analyzer version). Blob ids name content exactly, so a row is never
stale; a new analyzer version simply reads and writes new rows. Every failure here (a
read-only store, a store opened without the migration) degrades to "no cache".
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson


class SqliteSymbolCache:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def get(self, blob_id: str, lang: str, version: int) -> tuple[list[Any], list[Any], str | None] | None:
        """(symbols, imports, reason) as stored, or None when not cached."""
        try:
            row = self.db.execute(
                "SELECT symbols, imports, reason FROM symbol_cache WHERE blob_id=? AND lang=? AND analyzer_version=?",
                (blob_id, lang, version),
            ).fetchone()
        except sqlite3.Error:
            return None
        if row is None:
            return None
        return orjson.loads(row[0]), orjson.loads(row[1]), row[2]

    def put(self, blob_id: str, lang: str, version: int, symbols: list[Any], imports: list[Any],
            reason: str | None) -> None:
        try:
            self.db.execute(
                "INSERT OR REPLACE INTO symbol_cache (blob_id, lang, analyzer_version, symbols, imports, reason)"
                " VALUES (?,?,?,?,?,?)",
                (blob_id, lang, version, orjson.dumps(symbols).decode(), orjson.dumps(imports).decode(), reason),
            )
        except sqlite3.Error:
            pass  # read-only or busy store: the answer is still right, only not remembered

    def prune(self, version: int) -> int:
        """Delete rows written by other analyzer versions; returns how many."""
        return self.db.execute("DELETE FROM symbol_cache WHERE analyzer_version != ?", (version,)).rowcount
