"""A pull: the team's sessions and project memories of the opted-in repositories, read from the
server through this member's role and kept in the local store's own tables (``store.team``),
where every question reads them as it reads this machine's.

What reaches this machine is what the member's role may read, decided by the server's
row-level security at each pull: a member of another team pulls nothing, whatever root commit
it opts in. A pull asks first for every shared session's digest (one round trip) and then only
for the sessions that are new or changed; sessions the team no longer shares are dropped. The
server is never asked during a question otherwise: ``refresh`` pulls when the rows are older
than ``HANSARD_TEAM_FRESH`` seconds (default 60; 0: at every question), and a server that does
not answer leaves the last pull's rows in place, which the answers say.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

# Seconds the team's rows are taken as current before a question pulls again.
FRESH = 60.0


def _now() -> str:
    from hansard.values.timebounds import utc_stamp

    return utc_stamp()


def period(cfg: dict[str, Any]) -> float:
    """``HANSARD_TEAM_FRESH`` seconds, else the config's ``fresh_seconds``, else ``FRESH``."""
    raw = os.environ.get("HANSARD_TEAM_FRESH")
    if raw is None or raw.strip() == "":
        raw = cfg.get("fresh_seconds")
    try:
        return max(0.0, float(raw)) if raw is not None else FRESH
    except ValueError:
        return FRESH


def _identity(cfg: dict[str, Any]) -> tuple[str, str, str]:
    from hansard.team.config import shown

    return shown(cfg["url"]), cfg["member"]["email"] or "", cfg["member"]["machine"]


def _roots(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in cfg.get("repos", []) if r.get("root_commit")]


def stale(store: Store, cfg: dict[str, Any]) -> bool:
    """The rows held are not this configuration's (another team, server, member or set of
    repositories), or were pulled (or last tried) longer ago than the period."""
    state = store.team.state()
    if state is None:
        return True
    url, member, machine = _identity(cfg)
    roots = ",".join(sorted(r["root_commit"] for r in _roots(cfg)))
    if (state["url"], state["member"], state["machine"], state["roots"]) != (url, member, machine, roots):
        return True
    from hansard.values.timebounds import parse_ts

    tried = parse_ts(state["tried_at"])
    import time

    return tried is None or time.time() - tried >= period(cfg)


def refresh(store: Store) -> bool:
    """The freshness step of a question that reads teammates' rows (``hansard.app.house``'s
    ``Request.team``, which skips it for a store that cannot be written): with a team
    configured, a pull when the rows are stale (a server that does not answer, or a store busy
    with an index run, leaves the last pull's rows as they are: a failed attempt is remembered,
    so the next one waits its turn); with none configured any more, the rows held are dropped.
    Whether the rows changed."""
    from hansard.team.config import configured

    if not configured():
        if store.readonly or store.team.state() is None:
            return False
        from hansard.errors import HansardError

        try:
            return store.team.forget() > 0
        except HansardError:  # a busy store drops them at the next question
            return False
    from hansard.team.config import load

    cfg = load()
    if not _roots(cfg) or not (cfg.get("member") or {}).get("email") or not stale(store, cfg):
        return False
    from hansard.errors import HansardError

    try:
        counts = pull(store, cfg)
    except HansardError as exc:
        if exc.code in ("store_busy", "store_read_only"):
            return False  # an index run holds the store: the next question pulls
        # The server did not answer, refused this member, or is newer than this hansard: the
        # question answers from the last pull, and the attempt is remembered with its reason.
        url, member, machine = _identity(cfg)
        store.team.tried(team=cfg.get("name"), url=url, member=member, machine=machine,
                         roots=[r["root_commit"] for r in _roots(cfg)], at=_now(), error=exc.message)
        return False
    return bool(counts["sessions"] or counts["dropped"] or counts["memories"])


def pull(store: Store, cfg: dict[str, Any]) -> dict[str, int]:
    """Pull now: what the team shares in the opted-in repositories, kept in ``store``; what was
    written and dropped, per kind. ``TeamUnreachable`` when the server does not answer (nothing
    changes then)."""
    from hansard.link.repos import repo_for
    from hansard.store.types import TeamPull
    from hansard.team import open_server

    opted = _roots(cfg)
    roots = sorted(r["root_commit"] for r in opted)
    server = open_server(cfg)
    try:
        up = server.uploads
        digests = up.digests(roots)
        seen = {int(d["id"]): (d["session_id"], d["content_hash"], d["member"], d["member_name"]) for d in digests}
        want = store.team.wanted(seen)
        rows = up.export(roots, want) if want else {}
        memories = up.memories(roots)
    finally:
        server.close()
    repos: dict[str, int] = {}
    paths: dict[str, str] = {}
    for r in opted:
        paths[r["root_commit"]] = r.get("path") or ""
        found = store.sessions.repo_ids_with_root(r["root_commit"])
        mine = [i for i in found if store.sessions.repo_path(i) == r.get("path")]
        repo = (mine or found)[0] if found else -1
        if repo < 0 and r.get("path") and os.path.isdir(r["path"]):
            repo = repo_for(store, r["path"])  # this member's checkout, registered
        if repo >= 0:
            repos[r["root_commit"]] = repo
    url, member, machine = _identity(cfg)
    return store.team.apply(TeamPull(team=cfg.get("name"), url=url, member=member, machine=machine, at=_now(),
                                     seen=seen, rows=rows, memories=memories, repos=repos, paths=paths))
