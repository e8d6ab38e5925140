"""Team sessions: this member's opted-in repositories shared through a PostgreSQL server.

``wrap(store)`` is all answer commands call: with no team configured it returns the store
untouched after one stat (psycopg is never imported); with one, a :class:`TeamView`, the
local ``Store`` and the team's composed into one, whose evidence, sessions and memories also
read other members' rows, from the server, or from the offline copy of
``hansard team pull`` when the server does not answer within the team timeout (or when the
copy is fresher than ``HANSARD_TEAM_FRESH`` seconds: then the server is not asked).
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
    memory only) instead of the config's and its password file. A reader's schema check also
    brings the opted-in repositories' rows (one round trip)."""
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
            server.check_schema([r["root_commit"] for r in cfg.get("repos", []) if r.get("root_commit")],
                                current=current)
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


def _fresh_copy(cfg: dict[str, Any]) -> Any | None:
    """The offline copy when it was pulled less than ``HANSARD_TEAM_FRESH`` seconds ago (or the
    config's ``fresh_seconds``; default 0: always ask the server). A member who pulls on a
    schedule trades that much staleness for answers with no round trip to the server."""
    import os

    limit = float(os.environ.get("HANSARD_TEAM_FRESH") or cfg.get("fresh_seconds") or 0)
    if limit <= 0:
        return None
    copy = open_offline(cfg)
    if copy is None:
        return None
    from datetime import UTC, datetime

    at = copy.pulled_at()
    if at and (datetime.now(UTC) - datetime.fromisoformat(at)).total_seconds() < limit:
        return copy
    copy.close()
    return None


def wrap(store: Store) -> Store:
    """``store``, or, when a team is configured and has opted-in repositories, the store
    composed with the team's (a :class:`~hansard.team.view.TeamView`)."""
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
    fresh = _fresh_copy(cfg)
    if fresh is not None:  # pulled recently enough for this member's taste: no connection at all
        return TeamView(store, TeamQueries(fresh.run, me(cfg), closer=fresh.close), roots, source="offline copy",
                        paths=paths, pulled_at=fresh.pulled_at())
    try:
        server = open_server(cfg)
    except TeamUnreachable:
        copy = open_offline(cfg)
        if copy is None:
            return store
        return TeamView(store, TeamQueries(copy.run, me(cfg), closer=copy.close), roots, source="offline copy",
                        paths=paths, pulled_at=copy.pulled_at())
    return TeamView(store, server, roots, source="server", paths=paths)


__all__ = ["configured", "wrap"]
