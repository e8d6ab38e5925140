"""Web-chat messages that hold code (the ``pasted`` rule of `why`): assistant messages of
imported chats containing a fenced block. Read only."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from hansard.store.sqlite.db import marks


class SqliteWebChats:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def any(self, providers: Sequence[str]) -> bool:
        if not providers:
            return False
        return self.db.execute(
            f"SELECT 1 FROM sessions WHERE provider IN ({marks(len(providers))}) LIMIT 1",
            tuple(providers)).fetchone() is not None

    def code_messages(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        """Assistant messages with a code fence in sessions of ``providers``: session_id,
        provider, message_index, timestamp (the message's, else the session's start), text;
        oldest first."""
        if not providers:
            return []
        return [dict(r) for r in self.db.execute(
            "SELECT s.session_id, s.provider, m.message_index, COALESCE(m.timestamp, s.started_at) AS timestamp,"
            " m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
            f" WHERE s.provider IN ({marks(len(providers))}) AND m.role='assistant'"
            " AND instr(m.text, '```') > 0 ORDER BY 4, s.session_id, m.message_index", tuple(providers))]
