"""Team sessions in session search and listings, as the recall contract says: left out unless
``include_team_sessions`` is set or ``team`` names this member's team. The search runs in
PostgreSQL (the team store is not copied to this machine for it); hits carry ``member`` and
``team``. The repositories searched are the opted-in ones, narrowed by ``repo`` (and so by
the MCP server's ``--scope repo``). When the server does not answer, the offline copy of
``hansard team pull`` is searched instead (keyword only), and the answer says so.
"""

from __future__ import annotations

import os
from typing import Any

NOT_CONFIGURED = "this store holds no team sessions (a team store is not configured)"


def _roots(store: Any, team: str | None, repo: str | None) -> tuple[list[str] | None, str | None]:
    """(root commits to search, or None with the notice saying why not)."""
    from hansard.team.config import load

    if not hasattr(store, "team_roots"):
        from hansard.team.config import configured

        if configured() and load().get("repos"):
            return None, ("team sessions left out: the team server did not answer and there is no offline copy"
                          " (`hansard team pull` keeps one)")
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
              limit: int, mode: str = "keyword", query: str = "") -> tuple[list[dict[str, Any]], str | None]:
    """Team hits, one per session, best first. ``mode`` as for local sessions: keyword in
    PostgreSQL; meaning through the passage vectors pushed with the sessions (when the
    `semantic` extra is on here); hybrid, both (a session both found is ``matched_by``
    ``both``). When the server does not answer, keyword search over the offline copy of
    ``hansard team pull``, saying so."""
    from hansard.timebounds import local_time

    roots, notice = _roots(store, team, repo)
    if roots is None:
        return [], notice
    words = q.highlight_words()
    if store.team_source != "server":
        rows = store.team.search.keyword_messages(q, roots, since, until, limit * 5)
        return _hits(rows, words, "keyword", local_time, limit), (
            f"team sessions from the offline copy (pulled {store.team_pulled_at}): the team server did not answer"
            + ("; keyword search only" if mode != "keyword" else ""))
    kw: list[dict[str, Any]] = []
    if mode in ("keyword", "hybrid"):
        kw = store.team.search.keyword_messages(q, roots, since, until, limit * 5)
    if mode == "keyword":
        return _hits(kw, words, "keyword", local_time, limit), None
    sem, why = _meaning_rows(store, query, roots, since, until, limit * 5)
    if why:
        if mode == "meaning":
            kw = store.team.search.keyword_messages(q, roots, since, until, limit * 5)
        return _hits(kw, words, "keyword", local_time, limit), why
    if mode == "meaning":
        return _hits(sem, words, "meaning", local_time, limit), None
    both = {r["session_id"] for r in kw} & {r["session_id"] for r in sem}
    hits = _hits(kw, words, "keyword", local_time, limit * 2) + _hits(sem, words, "meaning", local_time, limit * 2)
    out, seen = [], set()
    for h in sorted(hits, key=lambda h: (h["session_id"] not in both, -h["score"])):
        if h["session_id"] in seen:
            continue
        seen.add(h["session_id"])
        if h["session_id"] in both:
            h["matched_by"] = "both"
        out.append(h)
    return out[:limit], None


def _meaning_rows(store: Any, query: str, roots: list[str], since: str | None, until: str | None,
                  k: int) -> tuple[list[dict[str, Any]], str | None]:
    import importlib.util

    if importlib.util.find_spec("numpy") is None:
        from hansard.answers.search.meaning import install_hint

        return [], f"team meaning search skipped: {install_hint()}; ran keyword search"
    from hansard.answers.search.meaning import load_embedder

    embedder, why = load_embedder()
    if embedder is None:
        return [], f"team meaning search skipped: {why}; ran keyword search"
    tv = store.team.search
    best = tv.nearest(embedder.id, embedder.embed([query])[0], roots, k * 4)
    if not best:
        return [], ("team meaning search skipped: no team session was pushed with vectors of this model;"
                    " ran keyword search")
    sims = {mid: sim for mid, sim, _, _ in best}
    rows = [r for r in tv.vector_messages(list(sims)) if (not since or (r["timestamp"] or "") >= since)
            and (not until or (r["timestamp"] or "") <= until)]
    for r in rows:
        r["score"] = sims[r["id"]]
    rows.sort(key=lambda r: -r["score"])
    return rows[:k], None


def _hits(rows: list[dict[str, Any]], words: list[str], matched_by: str, local_time: Any,
          limit: int) -> list[dict[str, Any]]:
    from hansard.answers.search import text as textmod

    name = load_name()
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
            "matched_by": matched_by, "started_at_local": local_time(r["started_at"]),
            "timestamp_local": local_time(r["timestamp"]), "member": r["member"], "member_name": r["member_name"],
            "team": name,
        })
        if len(out) >= limit:
            break
    return out


def team_sessions(store: Any, *, team: str | None, repo: str | None, since: str | None,
                  limit: int) -> tuple[list[dict[str, Any]], str | None, int]:
    """Other members' sessions in the opted-in repositories, newest first (``hansard sessions``),
    the notice when they cannot be read, and how many there are in all."""
    roots, notice = _roots(store, team, repo)
    if roots is None:
        return [], notice, 0
    ids = [t for t in (store.repo_map.team_root(c) for c in roots) if t is not None]
    rows = store.team.sessions.list(repo_ids=ids, since=since, limit=limit)
    total = store.team.sessions.list_count(repo_ids=ids, since=since) if len(rows) >= limit else len(rows)
    return [{"session_id": r["session_id"], "provider": r["provider"], "title": r["title"],
             "first_prompt": r["first_prompt"], "started_at": r["started_at"], "last_at": r["last_at"], "cwd": r["cwd"],
             "message_count": r["message_count"], "parent_session_id": r["parent_session_id"], "repo": None,
             "member": r["member"], "member_name": r["member_name"], "team": load_name()} for r in rows], None, total


def load_name() -> str | None:
    from hansard.team.config import load

    return load().get("name")


def team_memories(*, include: bool, team: str | None) -> tuple[bool, str | None]:
    """Whether the team flags ask for teammates' project memories and they can be read (as
    for sessions), else the notice saying why not (None when they were not asked for)."""
    if not include and not (team and team.strip()):
        return False, None
    from hansard.team import configured

    if not configured():
        return False, NOT_CONFIGURED
    if team and team.strip() and team.strip() != load_name():
        return False, f"no team named {team.strip()!r} here (this member's team is {load_name()!r})"
    return True, None


def attached(store: Any) -> str | None:
    """The notice when the team could not be attached to ``store`` (no server and no copy)."""
    return None if hasattr(store, "team_roots") else NOT_CONFIGURED