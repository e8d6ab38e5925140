"""Team sessions in session search and listings, as the recall contract says: left out unless
``include_team_sessions`` is set or ``team`` names this member's team. The search runs in
PostgreSQL (never a copy of the team store on this machine); hits carry ``member`` and
``team``. The repositories searched are the opted-in ones, narrowed by ``repo`` (and so by
the MCP server's ``--scope repo``).
"""

from __future__ import annotations

import os
from typing import Any

NOT_CONFIGURED = "this store holds no team sessions (a team store is not configured)"


def _roots(store: Any, team: str | None, repo: str | None) -> tuple[list[str] | None, str | None]:
    """(root commits to search, or None with the notice saying why not)."""
    from hansard.team.config import load

    if not hasattr(store, "team_roots"):
        return None, NOT_CONFIGURED
    cfg = load()
    if team and team.strip() and team.strip() != cfg.get("name"):
        return None, f"no team named {team.strip()!r} here (this member's team is {cfg.get('name')!r})"
    roots = set(store.team_roots)
    if repo and repo.strip():
        from hansard.git import identity

        tops = identity.find_toplevel(os.path.abspath(repo.strip()))
        if tops is not None:
            roots &= {identity.identify(tops[1]).root_commit}
        else:
            name = repo.strip().rstrip("/").rsplit("/", 1)[-1]
            roots &= {r["root_commit"] for r in cfg.get("repos", []) if r.get("name") == name}
    return sorted(roots), None


def team_hits(store: Any, q: Any, *, team: str | None, repo: str | None, since: str | None, until: str | None,
              limit: int) -> tuple[list[dict[str, Any]], str | None]:
    from hansard.answers.search import text as textmod
    from hansard.timebounds import local_time

    roots, notice = _roots(store, team, repo)
    if roots is None:
        return [], notice
    if store.team_source != "server":
        return [], "team search needs the team server, which did not answer; try again later"
    from hansard.store.postgres.store import TeamSearch

    rows = TeamSearch(store.team_server).messages(q, roots, since, until, limit * 5)
    words = q.highlight_words()
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for r in rows:
        if r["session_id"] in seen:
            continue
        seen.add(r["session_id"])
        title = r["title"] or (" ".join((r["first_prompt"] or "").split())[:100] or None)
        out.append({
            "session_id": r["session_id"], "title": title, "provider": r["provider"], "repo": r["repo"],
            "message_index": r["message_index"], "role": r["role"], "kind": r["kind"],
            "excerpt": textmod.excerpt(r["text"], words), "score": round(float(r["score"] or 0), 4),
            "matched_by": "keyword", "started_at_local": local_time(r["started_at"]),
            "timestamp_local": local_time(r["timestamp"]), "member": r["member"], "member_name": r["member_name"],
            "team": load_name(),
        })
        if len(out) >= limit:
            break
    return out, None


def team_sessions(store: Any, *, team: str | None, repo: str | None, since: str | None,
                  limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """Other members' sessions in the opted-in repositories, newest first (``hansard sessions``)."""
    roots, notice = _roots(store, team, repo)
    if roots is None:
        return [], notice
    rows = store.team.list(roots, since, limit)
    return [{"session_id": r["session_id"], "provider": r["provider"], "title": r["title"],
             "first_prompt": r["first_prompt"], "started_at": r["started_at"], "last_at": r["last_at"], "cwd": r["cwd"],
             "message_count": r["message_count"], "parent_session_id": r["parent_session_id"], "repo": None,
             "member": r["member"], "member_name": r["member_name"], "team": load_name()} for r in rows], None


def load_name() -> str | None:
    from hansard.team.config import load

    return load().get("name")


def with_team_memories(store: Any, *, include: bool, team: str | None) -> tuple[Any, str | None]:
    """The store whose memories also hold teammates' project memories, when the team flags ask
    for them (as for sessions); else the store. With the notice when they cannot be read."""
    if not include and not (team and team.strip()):
        return store, None
    from hansard.team import configured, wrap

    if not configured():
        return store, NOT_CONFIGURED
    if team and team.strip() and team.strip() != load_name():
        return store, f"no team named {team.strip()!r} here (this member's team is {load_name()!r})"
    wrapped = wrap(store)
    return wrapped, None if hasattr(wrapped, "team_roots") else NOT_CONFIGURED
