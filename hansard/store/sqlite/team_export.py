"""What this machine shares with its team, read from the local store: repository identities,
the sessions that ran in given repositories, and each session's derived rows (messages, tool
calls, applied edits with their line hashes), and the current text of the project guidance
files (memories) of those repositories.

Only derived rows are read, and they were redacted when they were written (the raw archive is
never read here). Edits are the applied ones linked to a path in the repository: nothing else
is evidence for a teammate either.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from hansard.store.sqlite.codec import unpack
from hansard.store.sqlite.db import OUTPUT_SQL


class SqliteTeamExport:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def repo_ids_with_root(self, root_commit: str) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM repos WHERE root_commit=?", (root_commit,))]

    def sessions_in(self, repo_ids: Sequence[int]) -> list[dict[str, Any]]:
        """Every session that ran in, or edited files of, these repositories."""
        if not repo_ids:
            return []
        marks = ",".join("?" * len(repo_ids))
        return [dict(r) for r in self.db.execute(
            "SELECT id, session_id, provider, cwd, started_at, last_at, title, first_prompt, parent_session_id,"
            " resumed_from, git_branch, version, message_count, repo_id, origin, origin_ref, claimed_id FROM sessions"
            f" WHERE repo_id IN ({marks})"
            f" OR id IN (SELECT session_id FROM edits WHERE repo_id IN ({marks}) AND status='applied')"
            " ORDER BY id",
            (*repo_ids, *repo_ids),
        )]

    def session_rows(self, session_row: int, repo_ids: Sequence[int]) -> dict[str, list[dict[str, Any]]]:
        """messages, tool_calls and edits (each with ``lines``: side, ordinal, hash, exact,
        trivial) of one session; edits only those applied in ``repo_ids``."""
        db = self.db
        messages = [dict(r) for r in db.execute(
            "SELECT message_index, role, kind, text, timestamp FROM messages WHERE session_id=? ORDER BY message_index",
            (session_row,),
        )]
        tool_calls = [dict(r) for r in db.execute(
            f"SELECT m.message_index, t.call_id, t.name, t.input, {OUTPUT_SQL} AS output, t.exit_code, t.status,"
            " t.timestamp, t.cwd"
            " FROM tool_calls t LEFT JOIN messages m ON m.id=t.message_id WHERE t.session_id=? ORDER BY t.id",
            (session_row,),
        )]
        marks = ",".join("?" * len(repo_ids)) or "NULL"
        edits = []
        for r in db.execute(
            "SELECT e.id, e.repo_id, m.message_index, e.call_id, e.seq, e.tool, e.kind, e.rel_path, e.timestamp,"
            " e.user_modified, e.hunks, e.after_text FROM edits e LEFT JOIN messages m ON m.id=e.message_id"
            f" WHERE e.session_id=? AND e.status='applied' AND e.rel_path IS NOT NULL AND e.repo_id IN ({marks})"
            " ORDER BY e.id",
            (session_row, *repo_ids),
        ):
            d = dict(r)
            d["after_text"] = unpack(d["after_text"]) if d["after_text"] is not None else None
            d["lines"] = [tuple(x) for x in db.execute(
                "SELECT side, ordinal, hash, exact, trivial FROM edit_lines WHERE edit_id=? ORDER BY side, ordinal",
                (d["id"],),
            )]
            edits.append(d)
        return {"messages": messages, "tool_calls": tool_calls, "edits": edits}

    def memories_in(self, repo_ids: Sequence[int]) -> list[dict[str, Any]]:
        """Present project memories of these repositories with their current text (global ones
        are a person's own and never leave the machine)."""
        if not repo_ids:
            return []
        return [dict(r) for r in self.db.execute(
            "SELECT m.memory_id, m.kind, m.source, m.rel_path, m.title, v.text, v.seen_at FROM memories m"
            " JOIN memory_versions v ON v.id=m.version_id"
            f" WHERE m.missing=0 AND m.scope='project' AND m.repo_id IN ({','.join('?' * len(repo_ids))})"
            " ORDER BY m.memory_id",
            list(repo_ids),
        )]
