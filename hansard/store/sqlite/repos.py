"""The repository registry (tables ``repos`` and ``path_maps``) and the link columns of
sessions and edits (``repo_id``, ``rel_path``, ``resolved``).

A repository row is identified by its root commit and remote, and remembers the newest known
checkout path. ``resolved=0`` marks a session or edit the link stage has yet to look at; the
link stage (``hansard.link.repos``) decides what to write here, this module only stores it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from contextlib import nullcontext

from hansard.store.sqlite.db import impatient, marks, transaction


class SqliteRepos:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- repositories ------------------------------------------------------------------

    def id_by_path(self, path: str) -> int | None:
        row = self.db.execute("SELECT id FROM repos WHERE path=?", (path,)).fetchone()
        return row[0] if row else None

    def id_by_identity(self, root_commit: str, remote: str | None) -> int | None:
        """A repository with this root commit and the same remote (or none recorded)."""
        row = self.db.execute(
            "SELECT id FROM repos WHERE root_commit=? AND (remote IS ? OR remote IS NULL OR ? IS NULL)",
            (root_commit, remote, remote),
        ).fetchone()
        return row[0] if row else None

    def root_commit(self, repo_id: int) -> str | None:
        row = self.db.execute("SELECT root_commit FROM repos WHERE id=?", (repo_id,)).fetchone()
        return row[0] if row else None

    def register(self, root_commit: str | None, remote: str | None, path: str, key_fields: Collection[str] = (),
                 wait: bool = True) -> int:
        """A new repository row. Sessions with no cwd that name their project only by a key of
        its root (in one of ``key_fields`` of ``sessions.extra``), and their edits, are marked
        for another look, since this root may be theirs. A store that cannot be written now
        raises ``StoreReadOnly`` or ``StoreBusy`` (without ``wait``, after 100 ms: an index run
        holds its write transactions one after another, and a waiting writer may not get in
        until the run ends)."""
        try:
            with impatient(self.db) if not wait else nullcontext():
                if self.db.in_transaction:
                    return self._register(root_commit, remote, path, key_fields)
                with transaction(self.db):  # the row and the marks together
                    return self._register(root_commit, remote, path, key_fields)
        except sqlite3.OperationalError as exc:
            from hansard.errors import HansardError, StoreReadOnly
            from hansard.store.sqlite.db import translate

            err = translate(exc)
            raise (err if isinstance(err, HansardError) else StoreReadOnly(str(exc))) from exc

    def _register(self, root_commit: str | None, remote: str | None, path: str, key_fields: Collection[str]) -> int:
        cur = self.db.execute("INSERT INTO repos (root_commit, remote, path) VALUES (?,?,?)"
                              " ON CONFLICT(path) DO NOTHING", (root_commit, remote, path))
        if cur.rowcount == 0:
            # Another process (an index run, beside a `why`) registered this path since the
            # caller looked: its row is the one, and it has marked the waiting sessions itself.
            return int(self.db.execute("SELECT id FROM repos WHERE path=?", (path,)).fetchone()[0])
        for field in key_fields:
            self.db.execute(
                "UPDATE sessions SET resolved=0 WHERE resolved<>0 AND repo_id IS NULL AND cwd IS NULL"
                " AND json_extract(extra, ?) IS NOT NULL", ("$." + field,)
            )
        # Rows already marked are left alone: rewriting an edit rewrites its hunks too, and while
        # a first index links, every edit is still unmarked.
        self.db.execute(
            "UPDATE edits SET resolved=0 WHERE resolved<>0 AND repo_id IS NULL"
            " AND session_id IN (SELECT id FROM sessions WHERE resolved=0)"
        )
        return int(cur.lastrowid or 0)

    def path_of(self, repo_id: int | None) -> str | None:
        """The checkout path recorded for a repository."""
        if repo_id is None:
            return None
        row = self.db.execute("SELECT path FROM repos WHERE id=?", (repo_id,)).fetchone()
        return row[0] if row else None

    def paths(self) -> list[str]:
        return [p for (p,) in self.db.execute("SELECT path FROM repos")]

    def has_sessions(self, repo_id: int) -> bool:
        """Some archived session ran in this repository, or edited a file of it (a session that
        records no folder, such as a Cursor agent transcript, is known by its edits alone)."""
        return bool(self.db.execute("SELECT EXISTS (SELECT 1 FROM sessions WHERE repo_id=?)"
                                    " OR EXISTS (SELECT 1 FROM edits WHERE repo_id=?)", (repo_id, repo_id)).fetchone()[0] == 1)

    def with_sessions(self, session_rows: Collection[int] | None = None) -> list[tuple[int, str]]:
        """(id, checkout path) of the repositories that some session ran in (with
        ``session_rows``: one of those sessions)."""
        if session_rows is None:
            return [(r[0], r[1]) for r in self.db.execute(
                "SELECT r.id, r.path FROM repos r WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.repo_id=r.id)"
                " ORDER BY r.id")]
        rows = sorted(set(session_rows))
        ids: set[int] = set()
        for i in range(0, len(rows), 500):
            part = rows[i:i + 500]
            ids.update(r[0] for r in self.db.execute(
                f"SELECT DISTINCT repo_id FROM sessions WHERE repo_id IS NOT NULL AND id IN ({marks(len(part))})", part))
        return [(rid, top) for rid, top in self.with_sessions() if rid in ids]

    # -- path maps -----------------------------------------------------------------------

    def path_maps(self) -> list[tuple[str, str]]:
        """(old prefix, new prefix), ordered by old prefix."""
        return [(r[0], r[1]) for r in self.db.execute("SELECT old_prefix, new_prefix FROM path_maps ORDER BY old_prefix")]

    def add_path_map(self, old: str, new: str) -> None:
        """Add a prefix map; every session and edit then gets another look under it. One
        transaction (the caller's, if it holds one)."""
        if self.db.in_transaction:
            self._add_path_map(old, new)
            return
        with transaction(self.db):
            self._add_path_map(old, new)

    def _add_path_map(self, old: str, new: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO path_maps (old_prefix, new_prefix) VALUES (?,?)", (old, new))
        self.db.execute("UPDATE sessions SET resolved=0")
        self.db.execute("UPDATE edits SET resolved=0")

    # -- what is waiting to be linked -------------------------------------------------------

    def unresolved_sessions(self, after: int | None = None) -> list[sqlite3.Row]:
        """Rows (id, cwd, origin, origin_repo) of sessions not yet linked (with ``after``: of
        those whose row id is larger)."""
        if after is None:
            return self.db.execute("SELECT id, cwd, origin, origin_repo FROM sessions WHERE resolved=0").fetchall()
        return self.db.execute("SELECT id, cwd, origin, origin_repo FROM sessions WHERE id > ? AND resolved=0",
                               (after,)).fetchall()

    def unresolved_edits(self) -> list[sqlite3.Row]:
        """Rows (id, path, cwd, srow, origin) of edits not yet linked; cwd is the edit's, else its
        session's; srow and origin are its session's row and origin."""
        return self.db.execute(
            "SELECT e.id, e.path, COALESCE(e.cwd, s.cwd) AS cwd, s.id AS srow, s.origin FROM edits e"
            " JOIN sessions s ON s.id=e.session_id WHERE e.resolved=0"
        ).fetchall()

    def session_paths(self, session_row: int) -> tuple[list[sqlite3.Row], list[str]]:
        """(every edit of a session: id, path, cwd (the edit's, else the session's); every working
        folder the session recorded: its own, its messages' and its edits')."""
        edits = self.db.execute(
            "SELECT e.id, e.path, COALESCE(e.cwd, s.cwd) AS cwd FROM edits e JOIN sessions s ON s.id=e.session_id"
            " WHERE e.session_id=? ORDER BY e.id", (session_row,)).fetchall()
        cwds = [r[0] for r in self.db.execute(
            "SELECT cwd FROM sessions WHERE id=? AND cwd IS NOT NULL UNION SELECT DISTINCT cwd FROM messages"
            " WHERE session_id=? AND cwd IS NOT NULL UNION SELECT DISTINCT cwd FROM edits WHERE session_id=?"
            " AND cwd IS NOT NULL", (session_row, session_row, session_row))]
        return edits, cwds

    def session_repo(self, session_row: int) -> int | None:
        """The repository a session is linked to (None: none, or not linked yet)."""
        row = self.db.execute("SELECT repo_id FROM sessions WHERE id=?", (session_row,)).fetchone()
        return row[0] if row else None

    def ids_by_root(self, root_commit: str) -> list[tuple[int, str]]:
        """(id, checkout path) of the repositories with this root commit, oldest row first."""
        return [(r[0], r[1]) for r in self.db.execute("SELECT id, path FROM repos WHERE root_commit=? ORDER BY id",
                                                      (root_commit,))]

    def unresolved_project_keys(self, provider: str, field: str) -> list[sqlite3.Row]:
        """Rows (id, h) of unlinked sessions of ``provider`` with no cwd, only a key of their
        project root in ``sessions.extra[field]``."""
        path = "$." + field
        return self.db.execute(
            "SELECT id, json_extract(extra, ?) AS h FROM sessions"
            " WHERE resolved=0 AND cwd IS NULL AND provider=? AND json_extract(extra, ?) IS NOT NULL",
            (path, provider, path),
        ).fetchall()

    def session_cwds(self) -> list[str]:
        """Every distinct working directory a session recorded."""
        return [p for (p,) in self.db.execute("SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL")]

    def set_session_cwd(self, session_row: int, cwd: str) -> None:
        self.db.execute("UPDATE sessions SET cwd=? WHERE id=?", (cwd, session_row))

    def link_session(self, session_row: int, repo_id: int | None) -> None:
        """Record a session's repository (None: none found); the session is then resolved."""
        self.db.execute("UPDATE sessions SET repo_id=?, resolved=1 WHERE id=?", (repo_id, session_row))

    def link_edits(self, links: list[tuple[int | None, str | None, int]]) -> None:
        """Record edits' repositories and repository-relative paths, (repo_id, rel_path, edit
        row) each; the edits are then resolved."""
        # OR FAIL: no constraint on these columns can fail, and a statement that cannot abort
        # half-way needs no statement journal, where each of these (its trigger makes it a
        # write of two tables) copied every page it touched to one first.
        self.db.executemany("UPDATE OR FAIL edits SET repo_id=?, rel_path=?, resolved=1 WHERE id=?", links)
