"""The commit-diff cache (table ``commit_diffs``): what one commit changed in one file.

A row is keyed by (commit id, the file's name in that commit) and holds the hunks as JSON in
the shape of ``edits.hunks``, plus the file's old name when the commit renamed it. A commit
id names its content exactly, so a row is never stale. Filling the cache is worth it only
when cheap: a write waits at most briefly for another writer (an index run), and a busy or
read-only store simply does not remember; no answer depends on the cache. A diff that holds a
secret is kept as *withheld* (hunks NULL in JSON, read back as None): git gives it again, and
nobody redacts it twice to learn that.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from hansard.store.sqlite.db import impatient

# Keys per SELECT: two parameters each, well under SQLite's variable limit.
CHUNK = 400


class SqliteCommitDiffs:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def get(self, sha: str, path: str) -> tuple[str | None, list[Any] | None] | None:
        """(old path, hunks) of one commit's change to one file (hunks None: withheld), or None
        when not cached."""
        row = self.db.execute("SELECT old_path, hunks FROM commit_diffs WHERE sha=? AND path=?", (sha, path)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def get_many(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], list[Any] | None]:
        """Hunks of every cached (sha, path) among ``keys`` (None: withheld)."""
        out: dict[tuple[str, str], list[Any] | None] = {}
        for i in range(0, len(keys), CHUNK):
            part = keys[i:i + CHUNK]
            where = " OR ".join("(sha=? AND path=?)" for _ in part)
            for sha, p, hunks in self.db.execute(f"SELECT sha, path, hunks FROM commit_diffs WHERE {where}",
                                                 [x for k in part for x in k]):
                out[(sha, p)] = json.loads(hunks)
        return out

    def put_many(self, rows: Iterable[tuple[str, str, str | None, list[Any] | None]]) -> None:
        """Remember (sha, path, old path, hunks or None for withheld) rows, if the store can take
        them now."""
        data = [(sha, path, old, json.dumps(hunks)) for sha, path, old, hunks in rows]
        if not data:
            return
        try:
            with impatient(self.db):
                self.db.executemany(
                    "INSERT OR REPLACE INTO commit_diffs (sha, path, old_path, hunks) VALUES (?,?,?,?)", data)
        except sqlite3.OperationalError:
            pass  # a read-only or busy store: the answer does not depend on the cache
