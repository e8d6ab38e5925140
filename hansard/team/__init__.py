"""Team sessions: this member's opted-in repositories shared through a PostgreSQL server.

``wrap(store)`` is all answer commands call: with no team configured it returns the store
untouched after one stat (psycopg is never imported); with one, a :class:`TeamView` whose
evidence also reads other members' sessions, from the server, or from the offline copy of
``hansard team pull`` when the server does not answer within the team timeout.
"""

from __future__ import annotations

from typing import Any

from hansard.team.config import configured


def me(cfg: dict[str, Any]) -> tuple[str, str]:
    m = cfg["member"]
    return m["email"], m["machine"]


def open_server(cfg: dict[str, Any], *, migrate: bool = False) -> Any:
    """The team server (``PostgresTeamStore``); ``TeamUnreachable`` when it does not answer."""
    from hansard.store.postgres.store import PostgresTeamStore
    from hansard.team.config import connect_kwargs

    kw = connect_kwargs(cfg)
    server = PostgresTeamStore(kw["conninfo"], me=me(cfg), timeout=kw["timeout"], passfile=kw["passfile"])
    try:
        if migrate:
            server.migrate()
        else:
            server.check_schema()
    except BaseException:
        server.close()
        raise
    return server


def open_offline(cfg: dict[str, Any]) -> Any | None:
    import os

    from hansard.store.sqlite.team_copy import SqliteTeamCopy
    from hansard.team.config import offline_path

    path = offline_path()
    if not os.path.exists(path):
        return None
    return SqliteTeamCopy(path, readonly=True)


def wrap(store: Any) -> Any:
    """``store``, or, when a team is configured and has opted-in repositories, the store with
    the team's evidence beside it."""
    if not configured():
        return store
    from hansard.errors import TeamUnreachable
    from hansard.store.postgres.queries import TeamQueries
    from hansard.team.config import load
    from hansard.team.view import TeamView

    cfg = load()
    roots = [r["root_commit"] for r in cfg.get("repos", []) if r.get("root_commit")]
    if not roots:
        return store
    paths = {r["root_commit"]: r["path"] for r in cfg.get("repos", []) if r.get("root_commit") and r.get("path")}
    try:
        server = open_server(cfg)
    except TeamUnreachable:
        copy = open_offline(cfg)
        if copy is None:
            return store
        return TeamView(store, TeamQueries(copy.run, me(cfg)), roots, source="offline copy", closer=copy.close,
                        paths=paths)
    return TeamView(store, server.evidence, roots, source="server", closer=server.close, server=server,
                    paths=paths)


__all__ = ["configured", "wrap"]
