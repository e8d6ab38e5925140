"""How complete the index is, so that an empty answer can be read as "not indexed yet"
rather than "never happened"."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from hansard.answers.results import IndexState
    from hansard.store.interfaces import Store


def index_state(store: Store) -> IndexState:
    """- ``indexed_through``: the newest message time held (UTC);
    - ``indexed_from``: the oldest session start held;
    - ``backfill_complete``: an index run has finished and no known transcript has unread bytes;
    - ``index_built_at``: when the last index run finished;
    - ``indexing_paused``: always false: indexing has no pause (the field stays for clients
      that read it)."""
    return cast("IndexState", {**store.sessions.index_state(), "indexing_paused": False})
