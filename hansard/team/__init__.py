"""Team sessions: this member's opted-in repositories shared through a PostgreSQL server.

The server is the shared, access-controlled exchange: a push writes this machine's sessions
there, a pull (:mod:`hansard.team.pull`) reads the team's into the local store's own tables,
through this member's role. Questions read the local store alone. ``refresh(store)`` is all a
question calls: with no team configured it costs a stat and a read of the store (psycopg is
never imported); with one, it pulls when the team's rows are older than
``HANSARD_TEAM_FRESH`` seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hansard.team.config import configured

if TYPE_CHECKING:
    from hansard.store.interfaces import Store


def me(cfg: dict[str, Any]) -> tuple[str, str]:
    m = cfg["member"]
    return m["email"], m["machine"]


def open_server(cfg: dict[str, Any], *, migrate: bool = False, current: bool = False,
                conninfo: str | None = None) -> Any:
    """The team server (``PostgresTeamStore``); ``TeamUnreachable`` when it does not answer.
    ``migrate``: the database owner brings the schema up to date; ``current``: a writer
    requires it up to date; ``conninfo``: this connection string (with its password, held in
    memory only) instead of the config's and its password file."""
    from hansard.store.postgres.store import PostgresTeamStore
    from hansard.team.config import connect_kwargs

    kw = connect_kwargs(cfg)
    if conninfo is not None:
        kw["conninfo"], kw["passfile"] = conninfo, None
    server = PostgresTeamStore(kw["conninfo"], me=me(cfg), timeout=kw["timeout"], passfile=kw["passfile"])
    try:
        if migrate:
            server.migrate()
        else:
            server.check_schema(current=current)
    except BaseException:
        server.close()
        raise
    return server


def refresh(store: Store) -> bool:
    """The team's rows in ``store`` brought up to date when they are stale (see
    :func:`hansard.team.pull.refresh`); whether they changed."""
    from hansard.team.pull import refresh as pull_refresh

    return pull_refresh(store)


__all__ = ["configured", "refresh"]
