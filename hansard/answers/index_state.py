"""How complete the index is, so that an empty answer can be read as "not indexed yet"
rather than "never happened"."""

from __future__ import annotations

import sqlite3
from typing import Any

from hansard import config

# `hansard index` skips its work while this file exists in HANSARD_HOME (see `indexing_paused`).
PAUSE_FILE = "indexing.paused"


def indexing_paused() -> bool:
    return (config.hansard_home() / PAUSE_FILE).exists()


def index_state(db: sqlite3.Connection) -> dict[str, Any]:
    """- ``indexed_through``: the newest message time held (UTC);
    - ``indexed_from``: the oldest session start held;
    - ``backfill_complete``: an index run has finished and no known transcript has unread bytes;
    - ``index_built_at``: when the last index run finished;
    - ``indexing_paused``."""
    through = db.execute("SELECT MAX(last_at) FROM sessions").fetchone()[0]
    since = db.execute("SELECT MIN(started_at) FROM sessions").fetchone()[0]
    last = db.execute("SELECT finished_at FROM runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
    pending = db.execute(
        "SELECT COUNT(*) FROM sources WHERE provider IS NOT NULL AND missing=0 AND size > \"offset\""
    ).fetchone()[0]
    return {
        "indexed_from": since,
        "indexed_through": through,
        "backfill_complete": bool(last) and pending == 0,
        "index_built_at": last[0] if last else None,
        "indexing_paused": indexing_paused(),
    }
