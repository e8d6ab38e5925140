"""The why-result cache (table ``why_cache``): `why` answers as their JSON documents, keyed by a
hash of all they depend on, and the store generation that is part of that key.

A key names its answer exactly (the caller hashes the revision, the file's bytes and the store
generation into it), so a row is never stale, only unused: rows of older generations are
dropped as new answers arrive, and at most ``KEEP`` rows are kept. Writing is best effort, as
for the commit-diff cache: a busy or read-only store simply does not remember.
"""

from __future__ import annotations

import sqlite3
import time
import zlib

from hansard.store.sqlite.db import impatient

KEEP = 200
# A write waits at most this long for another writer (an index run): an answer not remembered
# costs nothing but the next question's time.
WAIT_MS = 20


class SqliteWhyCache:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def generation(self) -> int | None:
        """Bumped, by triggers, in the same transaction as every write that can change an
        answer (see migration m025); None when the store has no cache (an older store opened
        read-only)."""
        try:
            n: int = self.db.execute("SELECT n FROM store_generation").fetchone()[0]
            return n
        except sqlite3.OperationalError:
            return None

    def schema(self) -> int:
        """The store's schema version (migrations applied): part of every answer's key."""
        return int(self.db.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0])

    def get(self, key: str) -> bytes | None:
        """The JSON document remembered under ``key``."""
        row = self.db.execute("SELECT answer FROM why_cache WHERE key=?", (key,)).fetchone()
        return None if row is None else zlib.decompress(row[0])

    def holds_current(self, prefix: str = "") -> bool:
        try:
            return bool(self.db.execute(
                "SELECT EXISTS(SELECT 1 FROM why_cache WHERE generation=(SELECT n FROM store_generation)"
                " AND substr(key, 1, ?)=?)", (len(prefix), prefix)).fetchone()[0])
        except sqlite3.OperationalError:
            return False  # no cache (an older store opened read-only)

    def put(self, key: str, generation: int, document: bytes) -> None:
        """Remember a document computed at ``generation``, unless the store has moved on since
        (then it would never be asked for). Single statements, no transaction held: the
        connection may be shared by threads (the language and MCP servers)."""
        blob = zlib.compress(document, 1)
        try:
            with impatient(self.db, WAIT_MS):
                self.db.execute(
                    "INSERT OR REPLACE INTO why_cache (key, generation, answer, used_at)"
                    " SELECT ?, n, ?, ? FROM store_generation WHERE n=?", (key, blob, int(time.time()), generation))
                self.db.execute("DELETE FROM why_cache WHERE generation<>(SELECT n FROM store_generation)")
                self.db.execute("DELETE FROM why_cache WHERE key IN (SELECT key FROM why_cache"
                                " ORDER BY used_at DESC LIMIT -1 OFFSET ?)", (KEEP,))
        except sqlite3.OperationalError:
            pass  # a read-only or busy store: no answer depends on the cache
