"""Commits and the sessions that made them, in SQL. ``SqliteCommitFacts``: per-repository
commit facts (tables ``commit_prints``, ``commit_ties``, ``commit_facts``, ``patch_ids``;
migration m030; and the shell calls that could write a file, ``shell_writes``, m035): which
sessions made which commit, kept so that `why` reads them. ``SqliteOwnCommits``: the edits of
agents that commit each change themselves (Aider) still dated by their session's start, the
commits their sessions named, and the new date of an edit.

The prints of a repository are those of its sessions' shell calls (teammates' too, pulled from
the team: hansard.store.sqlite.team) up to ``calls_upto``; its ties
join them to the commits of the history of ``head``. Only the link step writes
(``hansard.link.commits``); a reader that finds the state behind HEAD or the shell calls
works the missing ties out itself and leaves the tables alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from hansard.errors import StoreBusy, StoreReadOnly
from hansard.store.sqlite.db import OUTPUT_SQL, impatient, marks, transaction


def _below(after: int | None) -> int:
    """The id a read of calls "past ``after``" starts above; every id when None."""
    return -(2 ** 63) if after is None else after


class SqliteCommitFacts:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def state(self, repo_id: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM commit_facts WHERE repo_id=?", (repo_id,)).fetchone()
        return dict(row) if row is not None else None

    def shell_key(self, repo_id: int, tools: Collection[str], upto: int = 0) -> tuple[int, int, int]:
        """(highest id, count, the count of those up to ``upto``) of the shell calls in the
        repository's sessions that mention git, each counted once more when its result is in."""
        row = self.db.execute(
            "SELECT COALESCE(MAX(t.id), 0), COUNT(*) + COUNT(t.status),"
            " COALESCE(SUM(CASE WHEN t.id <= ? THEN 1 + (t.status IS NOT NULL) ELSE 0 END), 0)"
            " FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.name IN ({marks(len(tools))}) AND instr(t.input, 'git') > 0",
            (upto, repo_id, *tools)).fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def shell_calls(self, repo_id: int, tools: Collection[str], after: int | None = None
                    ) -> list[tuple[int, str, str | None, str | None, str | None]]:
        """(row id, session id, timestamp, input JSON, output) of those calls past ``after`` (all
        of them when None: teammates' too, whose ids are below zero)."""
        return [(r[0], r[1], r[2], r[3], r[4]) for r in self.db.execute(
            f"SELECT t.id, s.session_id, t.timestamp, t.input, {OUTPUT_SQL} FROM tool_calls t"
            " JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.id > ? AND t.name IN ({marks(len(tools))}) AND instr(t.input, 'git') > 0"
            " ORDER BY t.id", (repo_id, _below(after), *tools))]

    def prints(self, repo_id: int) -> list[tuple[str, float | None, str, str, str]]:
        """(session id, ts, kind, short, summary) of the kept prints."""
        return [(r[0], r[1], r[2], r[3], r[4]) for r in self.db.execute(
            "SELECT session_id, ts, kind, short, summary FROM commit_prints WHERE repo_id=? ORDER BY call_row",
            (repo_id,))]

    def ties(self, repo_id: int, shas: Collection[str]) -> dict[str, set[str]]:
        """commit -> sessions tied to it, for the kept commits among ``shas``."""
        out: dict[str, set[str]] = {}
        shas = list(shas)
        for i in range(0, len(shas), 500):
            part = shas[i:i + 500]
            for sha, session_id in self.db.execute(
                    f"SELECT sha, session_id FROM commit_ties WHERE repo_id=? AND sha IN ({marks(len(part))})",
                    (repo_id, *part)):
                out.setdefault(sha, set()).add(session_id)
        return out

    def patch_ids(self, shas: Collection[str]) -> dict[str, str | None]:
        """Kept patch-ids of ``shas`` (None: the commit has no change of its own)."""
        out: dict[str, str | None] = {}
        shas = list(shas)
        for i in range(0, len(shas), 500):
            part = shas[i:i + 500]
            for sha, pid in self.db.execute(f"SELECT sha, patch_id FROM patch_ids WHERE sha IN ({marks(len(part))})",
                                            part):
                out[sha] = pid
        return out

    # -- the link step's writes, in one transaction ------------------------------------------------

    def save(self, repo_id: int, state: dict[str, Any], prints: Iterable[tuple[int, str, float | None, str, str, str]],
             ties: Iterable[tuple[str, str, str]], patch_ids: Iterable[tuple[str, str | None]], *,
             keep_prints: bool, dropped: Collection[str] | None = None, wait_ms: int | None = None) -> bool:
        """Keep a refresh, in one transaction: its new prints (call row, session, ts, kind,
        short, summary), the repository's ties (sha, session, rule) in place of the old (with
        ``dropped``, beside them, but for the ties of the commits ``dropped`` names), new
        patch-ids, and the state they now stand for. Without ``keep_prints`` the repository's
        old prints are dropped first (its shell calls were rewritten and read again). With
        ``wait_ms`` (a question's upkeep, not the index), another writer is waited for at most
        that long and a busy or read-only store keeps nothing: False."""
        def write() -> None:
            if not keep_prints:
                self.db.execute("DELETE FROM commit_prints WHERE repo_id=?", (repo_id,))
            if dropped is None:
                self.db.execute("DELETE FROM commit_ties WHERE repo_id=?", (repo_id,))
            else:
                gone = list(dropped)
                for i in range(0, len(gone), 500):
                    part = gone[i:i + 500]
                    self.db.execute(f"DELETE FROM commit_ties WHERE repo_id=? AND sha IN ({marks(len(part))})",
                                    (repo_id, *part))
            self.db.executemany("INSERT INTO commit_prints (repo_id, call_row, session_id, ts, kind, short, summary)"
                                " VALUES (?, ?, ?, ?, ?, ?, ?)", ((repo_id, *p) for p in prints))
            self.db.executemany("INSERT OR IGNORE INTO commit_ties (repo_id, sha, session_id, rule) VALUES (?, ?, ?, ?)",
                                ((repo_id, *t) for t in ties))
            self.db.executemany("INSERT OR REPLACE INTO patch_ids (sha, patch_id) VALUES (?, ?)", patch_ids)
            self.db.execute(
                "INSERT OR REPLACE INTO commit_facts (repo_id, head, calls_upto, calls, commits, seconds, computed_at,"
                " diffs_head, generation) VALUES (:repo_id, :head, :calls_upto, :calls, :commits, :seconds,"
                " :computed_at, :diffs_head, (SELECT n FROM store_generation))",
                {"repo_id": repo_id, "diffs_head": None, **state})

        return self._keep(write, wait_ms)

    def _keep(self, write: Callable[[], None], wait_ms: int | None) -> bool:
        """Run ``write`` in one transaction (the index's, when it runs inside one). With
        ``wait_ms`` (a question's upkeep, not the index), another writer is waited for at most
        that long, and a busy or read-only store keeps nothing: False."""
        if wait_ms is not None and not self.db.in_transaction:
            try:
                with impatient(self.db, wait_ms), transaction(self.db):
                    write()
            except (sqlite3.OperationalError, StoreBusy, StoreReadOnly):
                return False
            return True
        with self._writing():
            write()
        return True

    def generation(self) -> int | None:
        """The store generation (bumped by every write that can change evidence, shell calls
        included): while it stands, the shell calls need not be counted again."""
        try:
            n: int | None = self.db.execute("SELECT n FROM store_generation").fetchone()[0]
            return n
        except sqlite3.OperationalError:
            return None

    def set_generation(self, repo_id: int, wait_ms: int | None = None) -> None:
        """The shell calls were counted again and had not changed: remember at which generation."""
        try:
            with impatient(self.db, wait_ms if wait_ms is not None else 5000), self._writing():
                self.db.execute("UPDATE commit_facts SET generation=(SELECT n FROM store_generation) WHERE repo_id=?",
                                (repo_id,))
        except (sqlite3.OperationalError, StoreBusy, StoreReadOnly):
            pass  # counted again next time

    def restamp(self, generation: int) -> None:
        """The store generation moved on from ``generation`` by a write that changes no shell
        call and no repository (the index's record of its run): the commit facts and writing
        calls counted at ``generation`` stand at the new one too."""
        with self._writing():
            for table in ("commit_facts", "shell_write_state"):
                self.db.execute(f"UPDATE {table} SET generation=(SELECT n FROM store_generation) WHERE generation=?",
                                (generation,))

    def set_diffs_head(self, repo_id: int, head: str) -> None:
        """The index put the diffs of ``head``'s history in the commit-diff cache."""
        with self._writing():
            self.db.execute("UPDATE commit_facts SET diffs_head=? WHERE repo_id=?", (head, repo_id))

    def _writing(self) -> AbstractContextManager[object]:
        """Inside the index's transaction, its part; alone, a transaction of its own."""
        return nullcontext() if self.db.in_transaction else transaction(self.db)

    # -- shell calls that could write a file (table shell_writes) ------------------------------

    def shell_write_state(self, repo_id: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM shell_write_state WHERE repo_id=?", (repo_id,)).fetchone()
        return dict(row) if row is not None else None

    def all_shell_key(self, repo_id: int, tools: Collection[str]) -> tuple[int, int]:
        """(highest id, count) of every shell call in the repository's sessions."""
        row = self.db.execute(
            "SELECT COALESCE(MAX(t.id), 0), COUNT(*) FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.name IN ({marks(len(tools))})", (repo_id, *tools)).fetchone()
        return int(row[0]), int(row[1])

    def all_shell_calls(self, repo_id: int, tools: Collection[str], after: int | None = None
                        ) -> list[tuple[int, str | None, str | None]]:
        """(row id, timestamp, input JSON) of every shell call past ``after`` (all when None)."""
        return [(r[0], r[1], r[2]) for r in self.db.execute(
            "SELECT t.id, t.timestamp, t.input FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.id > ? AND t.name IN ({marks(len(tools))}) ORDER BY t.id",
            (repo_id, _below(after), *tools))]

    def shell_writes(self, repo_id: int, name: str) -> list[tuple[float, str, bool]]:
        """(ts, command, parsed) of the kept writing calls whose command mentions ``name``."""
        return [(r[0], r[1], bool(r[2])) for r in self.db.execute(
            "SELECT ts, command, parsed FROM shell_writes WHERE repo_id=? AND instr(command, ?) > 0",
            (repo_id, name))]

    def save_shell_writes(self, repo_id: int, upto: int, count: int, rows: Iterable[tuple[int, float, str, bool]], *,
                          replace: bool, wait_ms: int | None = None) -> bool:
        """Keep writing calls (call row, ts, command, parsed) and the calls they were read from,
        in one transaction; with ``replace``, in place of the repository's old ones."""
        def write() -> None:
            if replace:
                self.db.execute("DELETE FROM shell_writes WHERE repo_id=?", (repo_id,))
            self.db.executemany("INSERT OR REPLACE INTO shell_writes (repo_id, call_row, ts, command, parsed)"
                                " VALUES (?, ?, ?, ?, ?)", ((repo_id, row, ts, cmd, int(p)) for row, ts, cmd, p in rows))
            self.db.execute("INSERT OR REPLACE INTO shell_write_state (repo_id, calls_upto, calls, generation)"
                            " VALUES (?, ?, ?, (SELECT n FROM store_generation))", (repo_id, upto, count))

        return self._keep(write, wait_ms)

    def forget(self, repo_ids: Sequence[int] | None = None) -> None:
        """Drop kept facts (a reindex rebuilds the calls they were read from)."""
        with self._writing():
            for table in ("commit_prints", "commit_ties", "commit_facts", "shell_writes", "shell_write_state"):
                if repo_ids is None:
                    self.db.execute(f"DELETE FROM {table}")
                else:
                    self.db.execute(f"DELETE FROM {table} WHERE repo_id IN ({marks(len(repo_ids))})", tuple(repo_ids))


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
