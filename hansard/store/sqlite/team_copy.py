"""The offline copy of the team's sessions (``hansard team pull``): the team store's tables,
for the opted-in repositories only, in one SQLite file beside the local store
(``team/offline.db``). Answers read it through the same queries as the server
(:class:`hansard.store.postgres.queries.TeamQueries`) when the server cannot be reached.

A pull replaces the whole copy in one transaction: it is always one consistent snapshot.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS members (id INTEGER PRIMARY KEY, email TEXT NOT NULL, machine TEXT NOT NULL, name TEXT);
CREATE TABLE IF NOT EXISTS repos (id INTEGER PRIMARY KEY, root_commit TEXT NOT NULL, remote TEXT, name TEXT);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL, repo_id INTEGER NOT NULL, session_id TEXT NOT NULL,
    provider TEXT NOT NULL, cwd TEXT, started_at TEXT, last_at TEXT, title TEXT, first_prompt TEXT,
    parent_session_id TEXT, resumed_from TEXT, git_branch TEXT, version TEXT, message_count INTEGER,
    content_hash TEXT, redactions INTEGER, origin TEXT, origin_ref TEXT, claimed_id TEXT);
CREATE INDEX IF NOT EXISTS sessions_sid ON sessions(session_id);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY, session_row INTEGER NOT NULL, message_index INTEGER,
    role TEXT, kind TEXT, text TEXT, timestamp TEXT);
CREATE INDEX IF NOT EXISTS messages_session ON messages(session_row, message_index);
CREATE TABLE IF NOT EXISTS tool_calls (id INTEGER PRIMARY KEY, session_row INTEGER NOT NULL, message_index INTEGER,
    call_id TEXT, name TEXT, input TEXT, output TEXT, exit_code INTEGER, status TEXT, timestamp TEXT, cwd TEXT);
CREATE INDEX IF NOT EXISTS tool_calls_session ON tool_calls(session_row);
CREATE TABLE IF NOT EXISTS edits (id INTEGER PRIMARY KEY, session_row INTEGER NOT NULL, repo_id INTEGER NOT NULL,
    message_index INTEGER, call_id TEXT, seq INTEGER, tool TEXT, kind TEXT, rel_path TEXT, timestamp TEXT,
    user_modified INTEGER, hunks TEXT, after_text TEXT);
CREATE INDEX IF NOT EXISTS edits_path ON edits(repo_id, rel_path);
CREATE TABLE IF NOT EXISTS edit_lines (edit_id INTEGER NOT NULL, side TEXT NOT NULL, ordinal INTEGER NOT NULL,
    hash INTEGER NOT NULL, exact INTEGER NOT NULL, trivial INTEGER NOT NULL, PRIMARY KEY (edit_id, side, ordinal))
    WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edit_lines_hash ON edit_lines(hash, side, trivial, exact);
CREATE TABLE IF NOT EXISTS memories (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL, repo_id INTEGER NOT NULL,
    memory_id TEXT NOT NULL, kind TEXT, source TEXT, rel_path TEXT, title TEXT, text TEXT, sha256 TEXT, seen_at TEXT);
CREATE TABLE IF NOT EXISTS pulled (at TEXT NOT NULL);
"""

TABLES = ("members", "repos", "sessions", "messages", "tool_calls", "edits", "edit_lines", "memories")
# Columns later hansards added to a table of the copy: (table, column, type).
_LATER = (("sessions", "origin", "TEXT"), ("sessions", "origin_ref", "TEXT"), ("sessions", "claimed_id", "TEXT"))


def _has_columns(db: sqlite3.Connection) -> bool:
    have = {(t, r[1]) for t in {t for t, _c, _k in _LATER} for r in db.execute(f"PRAGMA table_info({t})")}
    return all((t, c) in have for t, c, _k in _LATER) or not have


def _add_columns(db: sqlite3.Connection) -> None:
    with db:
        for t, c, kind in _LATER:
            if c not in {r[1] for r in db.execute(f"PRAGMA table_info({t})")}:
                db.execute(f"ALTER TABLE {t} ADD COLUMN {c} {kind}")


class SqliteTeamCopy:
    def __init__(self, path: str, *, readonly: bool = False) -> None:
        self.path = path
        if not readonly:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.db = sqlite3.connect(path)
            os.chmod(path, 0o600)
            self.db.executescript(_SCHEMA)
            _add_columns(self.db)
        else:
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            if not _has_columns(self.db):  # pulled by an older hansard: the columns it lacks, empty
                self.db.close()
                rw = sqlite3.connect(path)
                try:
                    _add_columns(rw)
                finally:
                    rw.close()
                self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        self.db.row_factory = sqlite3.Row

    def close(self) -> None:
        self.db.close()

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        try:
            return [dict(r) for r in self.db.execute(sql.replace("%s", "?"), list(params))]
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []  # a copy pulled by an older hansard: pulling again brings the table
            raise

    def replace(self, tables: dict[str, list[dict[str, Any]]], at: str) -> dict[str, int]:
        """The whole copy becomes ``tables``; returns rows per table."""
        with self.db:
            for t in TABLES:
                self.db.execute(f"DELETE FROM {t}")
                rows = tables.get(t) or []
                if rows:
                    cols = list(rows[0])
                    self.db.executemany(
                        f"INSERT INTO {t}({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        [tuple(r[c] for c in cols) for r in rows],
                    )
            self.db.execute("DELETE FROM pulled")
            self.db.execute("INSERT INTO pulled(at) VALUES (?)", (at,))
        return {t: len(tables.get(t) or []) for t in TABLES}

    def pulled_at(self) -> str | None:
        row = self.db.execute("SELECT at FROM pulled").fetchone()
        return row[0] if row else None

    def sessions_count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])
