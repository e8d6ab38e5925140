"""`hansard stats`' store facet: the per-file summary cache (table ``stats_cache``, migration
m032_stats_cache) and the counts of a repository's sessions, tied commits and lines their
edits added (the funnel). Writing is best effort, as for the why-result cache: a busy or
read-only store simply does not remember."""

from __future__ import annotations

import sqlite3
import time
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

from hansard.store.sqlite.db import impatient

WAIT_MS = 20
# Summaries kept at most (the oldest written go first): one a file version, so a repository's
# files at many revisions fit, and the table stays a few tens of MB at most.
KEEP = 100_000


def _under(column: str, prefixes: Sequence[str]) -> tuple[str, list[str]]:
    """SQL that keeps rows whose ``column`` is one of ``prefixes`` or inside one as a folder."""
    if not prefixes:
        return "", []
    parts, args = [], []
    for p in prefixes:
        parts.append(f"({column}=? OR substr({column}, 1, length(?)+1)=?||'/')")
        args += [p, p, p]
    return " AND (" + " OR ".join(parts) + ")", args


class SqliteStats:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def get_many(self, keys: Sequence[str], generation: int) -> dict[str, bytes]:
        """key -> the summary's JSON remembered at ``generation``."""
        out: dict[str, bytes] = {}
        try:
            for i in range(0, len(keys), 500):
                chunk = list(keys[i:i + 500])
                for key, blob in self.db.execute(
                        f"SELECT key, summary FROM stats_cache WHERE generation=? AND key IN ({','.join('?' * len(chunk))})",
                        [generation, *chunk]):
                    out[key] = zlib.decompress(blob)
        except sqlite3.OperationalError:
            return {}  # a store without the table (opened read-only by an older version)
        return out

    def put_many(self, rows: Iterable[tuple[str, str, str, bytes]], generation: int) -> int:
        """Remember (key, path, blob id, summary JSON) rows computed at ``generation``, unless the
        store has moved on since; rows of other generations go. How many were written."""
        data = [(k, p, b, zlib.compress(s, 1), int(time.time()), generation) for k, p, b, s in rows]
        if not data:
            return 0
        try:
            with impatient(self.db, WAIT_MS):
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    n = 0
                    for row in data:
                        n += self.db.execute(
                            "INSERT OR REPLACE INTO stats_cache (key, path, blob, summary, used_at, generation)"
                            " SELECT ?, ?, ?, ?, ?, n FROM store_generation WHERE n=?", row).rowcount
                    self.db.execute("DELETE FROM stats_cache WHERE generation<>(SELECT n FROM store_generation)")
                    self.db.execute("DELETE FROM stats_cache WHERE key IN (SELECT key FROM stats_cache"
                                    " ORDER BY used_at DESC LIMIT -1 OFFSET ?)", (KEEP,))
                    self.db.execute("COMMIT")
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
        except sqlite3.OperationalError:
            return 0  # a read-only or busy store: nothing depends on the cache
        return n

    def cached_paths(self) -> list[tuple[str, str]]:
        """(path, blob id) of every remembered summary."""
        try:
            return [(r[0], r[1]) for r in self.db.execute("SELECT path, blob FROM stats_cache ORDER BY path, blob")]
        except sqlite3.OperationalError:
            return []

    def funnel(self, repo_id: int, *, since: str | None = None, until: str | None = None,
               paths: Sequence[str] = ()) -> dict[str, Any]:
        """The repository's sessions (started within the bounds), the commits tied to them, and
        the lines their applied edits added (of files under ``paths`` when given), in all and as
        (edit's timestamp, lines) pairs."""
        bounds, bargs = "", []
        if since:
            bounds += " AND s.started_at>=?"
            bargs.append(since)
        if until:
            bounds += " AND s.started_at<?"
            bargs.append(until)
        sessions = self.db.execute(f"SELECT COUNT(*) FROM sessions s WHERE s.repo_id=?{bounds}",
                                   [repo_id, *bargs]).fetchone()[0]
        tied = [r[0] for r in self.db.execute(
            "SELECT DISTINCT t.sha FROM commit_ties t JOIN sessions s ON s.session_id=t.session_id"
            f" WHERE t.repo_id=? AND s.repo_id=?{bounds}", [repo_id, repo_id, *bargs])]
        under, uargs = _under("e.rel_path", paths)
        added_at = [(r[0], r[1]) for r in self.db.execute(
            "SELECT e.timestamp, COUNT(*) FROM edit_lines l JOIN edits e ON e.id=l.edit_id"
            " JOIN sessions s ON s.id=e.session_id"
            f" WHERE e.repo_id=? AND e.status='applied' AND l.side='+'{bounds}{under} GROUP BY e.id",
            [repo_id, *bargs, *uargs])]
        return {"sessions": sessions, "tied_commits": tied, "lines_added": sum(n for _t, n in added_at),
                "lines_added_at": added_at}

    def models(self, pairs: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """(session id, message index) -> the model its message names, where it names one."""
        out: dict[tuple[str, int], str] = {}
        for sid, idx in set(pairs):
            row = self.db.execute(
                "SELECT m.model FROM messages m JOIN sessions s ON s.id=m.session_id"
                " WHERE s.session_id=? AND m.message_index=?", (sid, idx)).fetchone()
            if row is not None and row[0]:
                out[(sid, idx)] = row[0]
        return out
