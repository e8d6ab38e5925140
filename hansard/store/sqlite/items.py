"""The item sink facet on SQLite: parsed items into the derived tables, and their removal.

Always true: every derived row of this machine's names the source it was read from, so one
source's rows can be removed and read again without touching another's; ``index_text`` brings
the full-text indexes level with the rows, and writers call it before their transaction
commits. The team's rows (ids below zero, hansard.store.sqlite.team) name no source and are in
no archive: emptying the derived tables keeps them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from hansard.store.sqlite import fts
from hansard.store.sqlite.db import marks
from hansard.store.sqlite.writer import Writer, prepare

if TYPE_CHECKING:
    from hansard.store.interfaces import Redactor
    from hansard.values.models import Item


class SqliteItems:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def writer(self, source_id: int, provider: str, redactor: Redactor) -> Writer:
        return Writer(self.db, source_id, provider, redactor)

    def preparer(self) -> Callable[[list[Item], Redactor], list[tuple[Any, ...]]]:
        """The pure first half of writing (hansard.store.sqlite.writer.prepare): a module-level
        function, so a worker process can run it while this process writes."""
        return prepare

    def index_text(self) -> None:
        fts.catch_up(self.db)

    def clear_source(self, source_id: int) -> None:
        """Remove every derived row read from one source, leaving sessions consistent."""
        db = self.db
        sessions = {r[0] for r in db.execute("SELECT DISTINCT session_id FROM messages WHERE source_id=?", (source_id,))}
        sessions |= {r[0] for r in db.execute("SELECT id FROM sessions WHERE source_id=?", (source_id,))}
        db.execute("DELETE FROM edit_lines WHERE edit_id IN (SELECT id FROM edits WHERE source_id=?)", (source_id,))
        for table in ("edits", "tool_calls", "steps", "messages", "leaf_titles", "skips"):
            db.execute(f"DELETE FROM {table} WHERE source_id=?", (source_id,))
        for sid in sessions:
            left = db.execute("SELECT MAX(message_index) FROM messages WHERE session_id=?", (sid,)).fetchone()[0]
            if left is None:
                db.execute("DELETE FROM sessions WHERE id=?", (sid,))
            else:
                db.execute("UPDATE sessions SET message_count=? WHERE id=?", (left + 1, sid))

    def clear_all(self) -> None:
        from hansard.store.sqlite import team
        from hansard.store.sqlite.migrations import DERIVED_TABLES

        kept = team.set_aside(self.db)
        # The full-text indexes emptied at once: with the watermark at 0 the delete triggers
        # leave them alone rather than remove every row's terms one by one.
        self.db.execute("UPDATE fts_watermark SET last_id=0")
        for fts_table in ("messages_fts", "messages_tri", "tool_calls_fts"):
            self.db.execute(f"INSERT INTO {fts_table}({fts_table}) VALUES('delete-all')")
        for table in DERIVED_TABLES:
            self._truncate(table)
        # Message ids start again from 1: every vector builder walks them again from the start
        # (each text's vector is kept in `vectors`, so nothing is embedded twice).
        self.db.execute("UPDATE vector_progress SET through_id=0")
        if kept:
            team.put_back(self.db)

    def _truncate(self, table: str) -> None:
        """Every row of ``table`` deleted, inside the caller's transaction. SQLite empties a
        table without visiting its rows only while it has no triggers: when each trigger on it
        is one whose whole-table effect is known (``_EMPTIED``), the triggers are set aside,
        that effect is applied once, and they are put back; otherwise rows go one by one."""
        triggers = self.db.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger' AND tbl_name=?",
                                   (table,)).fetchall()
        if not triggers or any(name not in _EMPTIED for name, _sql in triggers):
            self.db.execute(f"DELETE FROM {table}")
            return
        for name, _sql in triggers:
            self.db.execute(f'DROP TRIGGER "{name}"')
        self.db.execute(f"DELETE FROM {table}")
        for name, sql in triggers:
            for stmt in _EMPTIED[name]:
                self.db.execute(stmt)
            self.db.execute(sql)

    @contextmanager
    def rebuilding(self) -> Iterator[None]:
        """Inside the caller's transaction, around writing every derived row again (after
        ``clear_all``): the tables' non-unique indexes are dropped, and built once over the
        finished tables on the way out, which costs less than keeping them up to date row by
        row. The unique ones stay, as the writer's conflict rules need them. A transaction
        rolled back takes the drop back with it."""
        self.drop_indexes()
        yield
        self.restore_indexes()  # not on an error: the rollback takes the drop back

    def empty(self) -> bool:
        """Whether no derived row of this machine's has been written (a store before its first index)."""
        return all(self.db.execute(f"SELECT 1 FROM {t} WHERE id > 0 LIMIT 1").fetchone() is None
                   for t in ("messages", "tool_calls", "edits", "sessions"))

    def drop_indexes(self) -> None:
        """Inside the caller's transaction: the derived tables' non-unique indexes gone, for a
        run that fills them (a reindex, a first index; ``restore_indexes`` builds them over the
        filled tables, one sort each instead of a B-tree insert per row). The unique ones stay:
        they carry the writer's conflict rules."""
        from hansard.store.sqlite.migrations import DERIVED_TABLES

        for (name,) in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"
            f" AND tbl_name IN ({marks(len(DERIVED_TABLES))})"
            " AND upper(sql) NOT LIKE 'CREATE UNIQUE%'", DERIVED_TABLES).fetchall():
            self.db.execute(f'DROP INDEX "{name}"')
        fts.bulk(self.db, True)

    def restore_indexes(self) -> int:
        """Inside the caller's transaction: every index the migrations define on the derived
        tables that the store lacks, built (a first index stopped before it finished left
        them dropped). How many were built."""
        have = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        todo = [(n, sql) for n, sql in _schema_indexes() if n not in have]
        for _name, sql in todo:
            self.db.execute(sql)
        fts.bulk(self.db, False)
        return len(todo)

    def message_index(self, provider: str, key: str) -> int | None:
        row = self.db.execute("SELECT message_index FROM messages WHERE provider=? AND key=?", (provider, key)).fetchone()
        return None if row is None else row[0]


# What each trigger on a derived table does when every row of it is deleted (after
# ``clear_all`` has emptied the full-text indexes and set their watermarks to 0): the
# full-text ones nothing more, the vector ones empty their tables, update triggers nothing.
_EMPTIED: dict[str, tuple[str, ...]] = {
    "messages_fts_ad": (), "messages_fts_au": (), "tool_calls_fts_ad": (), "tool_calls_fts_au": (),
    "passage_vectors_ad": ("DELETE FROM passage_vectors",), "passage_vectors_au": (),
    "intent_vectors_ad": ("DELETE FROM intent_vectors",), "intent_vectors_au": (),
}

_SCHEMA: list[tuple[str, str]] = []


def _schema_indexes() -> list[tuple[str, str]]:
    """(name, SQL) of the derived tables' indexes as the migrations create them, read from a
    migrated in-memory store (once per process)."""
    if not _SCHEMA:
        from hansard.store.sqlite.db import migrate
        from hansard.store.sqlite.migrations import DERIVED_TABLES

        mem = sqlite3.connect(":memory:", isolation_level=None)
        try:
            migrate(mem)
            _SCHEMA.extend(mem.execute(
                "SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL"
                f" AND tbl_name IN ({marks(len(DERIVED_TABLES))})", DERIVED_TABLES).fetchall())
        finally:
            mem.close()
    return _SCHEMA
