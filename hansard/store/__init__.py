"""The store: the archive of raw transcript records and every table derived from it.

Only this package speaks SQL. Code above it (ingest, link, answers, the CLI, the MCP and
language servers) receives a :class:`~hansard.store.interfaces.Store` and works through its
facets (``store.archive``, ``store.items``, ``store.evidence``, ...), each a small protocol
defined in :mod:`hansard.store.interfaces`. The embedded SQLite implementation lives in
:mod:`hansard.store.sqlite`; another engine (PostgreSQL for a team) implements the same
protocols beside it without touching answer code.
"""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.store.interfaces import Store


def open_store(path: str | os.PathLike[str] | None = None, *, readonly: bool = False) -> Store:
    """The local store, migrated (created on first use, owner-only permissions)."""
    from hansard.store.sqlite.store import SqliteStore

    return SqliteStore.open(path, readonly=readonly)


def open_for_reading(path: str | os.PathLike[str] | None = None) -> Store:
    """For commands that only read: the store as usual, or, when it cannot be written (a
    read-only disk), the same store opened immutable."""
    from hansard.store.sqlite.store import SqliteStore

    return SqliteStore.open_for_reading(path)


def as_store(store_or_db: Store | sqlite3.Connection) -> Store:
    """A Store as it is, or a bare SQLite connection wrapped in one. Only tests still hand a
    connection to ``ingest.run.index`` and the answers (a shim to remove with them)."""
    if not isinstance(store_or_db, sqlite3.Connection):
        return store_or_db
    from hansard.store.sqlite.store import SqliteStore

    db = store_or_db
    path = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main"), "")
    return SqliteStore(db, path)
