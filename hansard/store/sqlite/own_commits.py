"""Dating the edits of agents that commit each change themselves (Aider): the edits still dated
by their session's start, the commits their sessions named, and the new date of an edit.

Only the link step writes here (``hansard.link.own_commits``); answers read edit times through
the evidence index like any other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from hansard.store.sqlite.db import marks


class SqliteOwnCommits:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def undated_edits(self, providers: Sequence[str]) -> list[dict[str, Any]]:
        """Applied edits of ``providers`` linked to a repository whose time is still their
        session's start: id, repo_id, session_row, message_index, in session order."""
        if not providers:
            return []
        return [dict(r) for r in self.db.execute(
            "SELECT e.id, e.repo_id, e.session_id AS session_row, m.message_index FROM edits e"
            " JOIN sessions s ON s.id=e.session_id LEFT JOIN messages m ON m.id=e.message_id"
            f" WHERE e.provider IN ({marks(len(providers))}) AND e.status='applied'"
            " AND e.repo_id IS NOT NULL AND e.timestamp IS s.started_at"
            " ORDER BY e.session_id, m.message_index, e.id", tuple(providers))]

    def named_commits(self, session_row: int) -> list[tuple[int, str]]:
        """(message_index, commit id as the agent printed it) of a session's calls whose input
        names a ``commit``, in order."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT m.message_index, json_extract(t.input, '$.commit') FROM tool_calls t"
            " JOIN messages m ON m.id=t.message_id WHERE t.session_id=?"
            " AND json_valid(t.input) AND json_type(t.input, '$.commit')='text' ORDER BY m.message_index",
            (session_row,))]

    def set_edit_time(self, edit_id: int, timestamp: str) -> None:
        self.db.execute("UPDATE edits SET timestamp=? WHERE id=?", (timestamp, edit_id))
