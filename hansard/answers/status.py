"""`hansard status`: what the store holds (sources, counts, what was skipped, the last index
run), every agent with its homes, and where the store is."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from hansard.answers.results import Status
    from hansard.store.interfaces import Store


def status(store: Store) -> Status:
    from hansard.answers.agents_status import agent_status
    from hansard.config import store_path

    data = store.sessions.status()
    data["agents"] = agent_status(store)
    data["store"] = str(store_path())
    return cast("Status", data)
