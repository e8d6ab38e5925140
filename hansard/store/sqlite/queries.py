"""Read-side queries over the store: session lists, one session's messages, store status.

Results are plain dicts ready for JSON. Message numbering is always ``message_index``.
"""

from __future__ import annotations

import sqlite3
from typing import Any


from hansard.errors import NotFound


def status(db: sqlite3.Connection) -> dict[str, Any]:
    one = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    sources = [
        dict(r) for r in db.execute(
            "SELECT provider, COUNT(*) AS files, SUM(missing) AS missing FROM sources WHERE provider IS NOT NULL"
            " GROUP BY provider ORDER BY provider"
        )
    ]
    last = db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    skips = {r[0]: r[1] for r in db.execute("SELECT reason, COUNT(*) FROM skips GROUP BY reason ORDER BY 2 DESC")}
    return {
        "sources": sources,
        "counts": {
            "sessions": one("SELECT COUNT(*) FROM sessions"),
            "messages": one("SELECT COUNT(*) FROM messages"),
            "tool_calls": one("SELECT COUNT(*) FROM tool_calls"),
            "edits": one("SELECT COUNT(*) FROM edits"),
            "applied_edits": one("SELECT COUNT(*) FROM edits WHERE status='applied'"),
            "raw_records": one("SELECT COUNT(*) FROM raw_records"),
            # Secrets withheld from everything above (the archive keeps them): hansard/ingest/redact.py
            "redactions": one("SELECT COALESCE(SUM(MAX(redactions, 0)), 0) FROM sources"),
            "repos": one("SELECT COUNT(*) FROM repos"),
        },
        "skipped": skips,
        "indexed_from": one("SELECT MIN(timestamp) FROM messages"),
        "indexed_through": one("SELECT MAX(timestamp) FROM messages"),
        "last_run": dict(last) if last else None,
    }


def list_sessions(db: sqlite3.Connection, *, repo_id: int | None = None, provider: str | None = None,
                  since: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    where, args = ["1=1"], []
    if repo_id is not None:
        where.append("s.repo_id=?")
        args.append(repo_id)
    if provider:
        where.append("s.provider=?")
        args.append(provider)
    if since:
        where.append("s.last_at>=?")
        args.append(since)
    rows = db.execute(
        "SELECT s.session_id, s.provider, s.title, s.first_prompt, s.started_at, s.last_at, s.cwd,"
        " s.message_count, s.parent_session_id, r.path AS repo"
        f" FROM sessions s LEFT JOIN repos r ON r.id=s.repo_id WHERE {' AND '.join(where)}"
        " ORDER BY s.last_at DESC LIMIT ?",
        (*args, limit),
    ).fetchall()
    return [dict(r) for r in rows]


def find_session(db: sqlite3.Connection, ref: str) -> sqlite3.Row:
    """A session by id, or by a unique prefix of it."""
    row = db.execute("SELECT * FROM sessions WHERE session_id=?", (ref,)).fetchone()
    if row is None and len(ref) >= 4:
        rows = db.execute("SELECT * FROM sessions WHERE session_id LIKE ? || '%' LIMIT 2", (ref,)).fetchall()
        if len(rows) == 1:
            row = rows[0]
        elif len(rows) > 1:
            raise NotFound(f"session prefix {ref!r} is ambiguous")
    if row is None:
        raise NotFound(f"no session {ref!r}")
    return row
