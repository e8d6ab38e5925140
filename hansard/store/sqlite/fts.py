"""Bringing the full-text indexes up to date with the rows written since the last time.

Always true after ``catch_up`` inside a write transaction: every message and tool call is in
its full-text indexes (the trigram index: prose under 32 KiB only, without the agents' own
system instructions: the condition of the triggers of migration m029), and the watermark is the
largest id indexed. Writers call it once at the end of each transaction that inserts rows, so
a reader never sees rows without their index entries.
"""

from __future__ import annotations

import sqlite3

TABLES = ("messages_fts", "messages_tri", "tool_calls_fts")
# While a run fills the empty tables (a first index, a reindex: ``bulk(db, True)``), each level of
# segments is merged once it holds more of them, and leaves are larger pages: the index's
# merges rewrite each term's entries fewer times. Its contents, and so every match, are the
# same; the defaults (SQLite's) come back when the run ends, and later writes merge what it left.
# (A first index commits a segment per group of files, hansard.ingest.scanner.GROUP_BYTES: a
# level merged at 8 leaves a large corpus's index in a few segments, which a search reads
# fewer of.)
BULK = {"automerge": 8, "crisismerge": 64, "pgsz": 16000}
DEFAULT = {"automerge": 4, "crisismerge": 16, "pgsz": 4050}


def bulk(db: sqlite3.Connection, on: bool) -> None:
    """Inside the caller's transaction: the full-text indexes' settings for filling empty tables
    (``on``), or back to the defaults when they were changed."""
    want = BULK if on else DEFAULT
    row = db.execute("SELECT v FROM messages_fts_config WHERE k='automerge'").fetchone()
    if not on and (row is None or row[0] == DEFAULT["automerge"]):
        return  # not changed
    for t in TABLES:
        for k, v in want.items():
            db.execute(f"INSERT INTO {t}({t}, rank) VALUES (?, ?)", (k, v))


def catch_up(db: sqlite3.Connection) -> None:
    (m,) = db.execute("SELECT last_id FROM fts_watermark WHERE name='messages'").fetchone()
    top = db.execute("SELECT MAX(id) FROM messages").fetchone()[0] or 0
    if top > m:
        db.execute("INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages WHERE id > ?", (m,))
        db.execute("INSERT INTO messages_tri(rowid, text) SELECT id, text FROM messages"
                   " WHERE id > ? AND length(text) <= 32768 AND role <> 'tool'"
                   " AND NOT (role = 'system' AND kind = 'meta')", (m,))
        db.execute("UPDATE fts_watermark SET last_id=? WHERE name='messages'", (top,))
    (t,) = db.execute("SELECT last_id FROM fts_watermark WHERE name='tool_calls'").fetchone()
    top = db.execute("SELECT MAX(id) FROM tool_calls").fetchone()[0] or 0
    if top > t:
        db.execute("INSERT INTO tool_calls_fts(rowid, name, input) SELECT id, name, input FROM tool_calls WHERE id > ?",
                   (t,))
        db.execute("UPDATE fts_watermark SET last_id=? WHERE name='tool_calls'", (top,))
