"""What hansard read of sessions other tools keep in git (tables ``git_source_refs`` and
``checkpoint_sessions``; migration m031): the refs each repository's stores were read at, and
which sessions each Entire checkpoint kept. Only the scanner (hansard.ingest.git_sources) writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable

from hansard.store.sqlite.db import marks
from hansard.values.timebounds import utc_stamp


class SqliteGitSources:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def tips(self, repo_root: str) -> dict[str, str]:
        """store -> the tips it was last read at."""
        return dict(self.db.execute("SELECT store, tips FROM git_source_refs WHERE repo_root=?", (repo_root,)).fetchall())

    def set_tips(self, repo_root: str, store: str, tips: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO git_source_refs (repo_root, store, tips, read_at) VALUES (?, ?, ?, ?)",
                        (repo_root, store, tips, utc_stamp()))

    def add_checkpoint_sessions(self, repo_root: str, pairs: Iterable[tuple[str, str]]) -> None:
        """Keep (checkpoint, session id) pairs of a repository."""
        self.db.executemany("INSERT OR IGNORE INTO checkpoint_sessions (repo_root, checkpoint, session_id) VALUES (?, ?, ?)",
                            ((repo_root, c, s) for c, s in pairs))

    def checkpoint_sessions(self, repo_root: str, checkpoints: Collection[str] | None = None) -> dict[str, set[str]]:
        """checkpoint -> the sessions it kept, for ``checkpoints`` (all when None)."""
        out: dict[str, set[str]] = {}
        if checkpoints is None:
            rows = self.db.execute("SELECT checkpoint, session_id FROM checkpoint_sessions WHERE repo_root=?",
                                   (repo_root,)).fetchall()
        else:
            ids = list(checkpoints)
            rows = []
            for i in range(0, len(ids), 500):
                part = ids[i:i + 500]
                rows += self.db.execute("SELECT checkpoint, session_id FROM checkpoint_sessions WHERE repo_root=?"
                                        f" AND checkpoint IN ({marks(len(part))})", (repo_root, *part)).fetchall()
        for cid, sid in rows:
            out.setdefault(cid, set()).add(sid)
        return out

    def local_twins(self, session_ids: Collection[str]) -> dict[str, str]:
        """Of these sessions read from checkpoints, each that this machine recorded too: its
        local session's id (the same agent, under the id the checkpoint claims)."""
        ids = list(session_ids)
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            part = ids[i:i + 500]
            out.update((c, mine) for c, mine in self.db.execute(
                "SELECT c.session_id, l.session_id FROM sessions c JOIN sessions l ON l.session_id=c.claimed_id"
                f" AND l.provider=c.provider AND l.origin IS NULL WHERE c.session_id IN ({marks(len(part))})", part))
        return out

    def key(self, repo_root: str) -> tuple[int, str]:
        """(how many pairs, their newest store read) of a repository: changes when a checkpoint is read."""
        row = self.db.execute("SELECT COUNT(*) FROM checkpoint_sessions WHERE repo_root=?", (repo_root,)).fetchone()
        last = self.db.execute("SELECT COALESCE(MAX(read_at), '') FROM git_source_refs WHERE repo_root=?",
                               (repo_root,)).fetchone()
        return int(row[0]), str(last[0])

    def repos_of(self, repo_root: str) -> list[int]:
        return [int(r[0]) for r in self.db.execute("SELECT id FROM repos WHERE root_commit=?", (repo_root,))]

    def root_of(self, repo_id: int) -> str | None:
        row = self.db.execute("SELECT root_commit FROM repos WHERE id=?", (repo_id,)).fetchone()
        return row[0] if row is not None else None
