"""``search_past_sessions``: find earlier conversations by keyword, meaning, or both.

The answer is a plain dict (JSON-ready); the CLI (`hansard history`) and the MCP tool
render the same dict. Argument names are a contract (the MCP tool's parameters).

Shape::

    {"query", "mode", "mode_notice"?, "results": [hit, ...],
     "total", "total_exact", "returned", "truncated", "results_omitted",
     "indexed_from", "indexed_through", "backfill_complete", "index_built_at", "indexing_paused",
     "excluded_session_id"?, "notice"?}

A hit is one conversation, shown by its best-matching message: ``session_id, title, provider,
repo, message_index, role, kind, excerpt, score, matched_by`` (keyword | meaning | both),
``similarity`` (meaning matches: the cosine similarity of the query and the passage of the
message that matched, ``passage`` = [first, last) character of it), ``started_at_local`` (the
session's start on the local clock, with its offset) and ``timestamp_local`` (the message's);
``match_reason`` when secrets in the excerpt were withheld (``[REDACTED:<rule>]``,
hansard/ingest/redact.py). A session is never a result twice: its further matches are listed,
best first, in ``more_hits`` on its hit, the first ``hits_per_session`` - 1 of them with their
excerpt (the fields of a hit less the session's), the rest as ``message_index`` and ``role``.
With ``group_revisions``, near-identical copies of one message fold into one hit that carries
``revisions`` (every copy's message_index) and ``latest_revision``.

``total`` counts the sessions that matched (up to a cap, or estimated for a very common word;
``total_exact`` says which), ``returned`` the results shown, ``results_omitted`` = ``total`` -
``returned`` (sessions left out by ``limit`` or by the answer's size cap), and ``truncated``
is true when anything was left out or the total is not exact.

The calling conversation is left out when its id is known (``exclude_session_id``), with
its subagents, so an agent does not find itself. Teammates' sessions (hansard team) are
searched only with ``include_team_sessions`` or ``team`` (hansard.answers.teammates), ranked
with this machine's; their hits carry ``member``, ``member_name`` and ``team``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import orjson

from hansard import agents
from hansard.agents.origin import source_of
from hansard.answers.index_state import index_state
from hansard.answers.search import text as textmod
from hansard.answers.search.filters import clamp, parse_roles, resolve_repo, shell_tools, tool_names
from hansard.answers.search.query import parse
from hansard.errors import InvalidArgument
from hansard.ingest.redact import withheld_note
from hansard.store.types import Candidate, SearchFilters
from hansard.values.timebounds import local_time, since_text, until_text

if TYPE_CHECKING:
    from hansard.answers.results import SearchResults
    from hansard.ingest.embed import Embedder
    from hansard.store.interfaces import Store
    from hansard.store.types import Query

MODES = ("keyword", "meaning", "hybrid")
MAX_ANSWER_CHARS = 30_000
MAX_HITS_PER_SESSION = 5
MORE_HITS_LISTED = 10


def search_past_sessions(
    store: Store,
    query: str | None,
    repo: str | None = None,
    provider: str | None = None,
    since: str | None = None,
    until: str | None = None,
    roles: str | Sequence[str] | None = None,
    tool: str | None = None,
    command: str | None = None,
    file: str | None = None,
    commit: str | None = None,
    include_subagents: bool = False,
    include_web_chats: bool = False,
    include_team_sessions: bool = False,
    team: str | None = None,
    hits_per_session: int | None = None,
    group_revisions: bool = True,
    mode: str | None = None,
    limit: int | None = None,
    *,
    exclude_session_id: str | None = None,
    embedder: Embedder | None = None,
    intent_encoder: Embedder | None = None,
    start_build: Callable[[], bool] | None = None,
) -> SearchResults:
    """``start_build`` starts the meaning-search vector builder when a meaning search finds the
    vectors missing or behind (the adapters pass hansard/app/jobs.py's; without it, none is started
    and the notice says to run `hansard embed`)."""
    from hansard.answers import teammates

    mode = (mode or "keyword").lower()
    if mode not in MODES:
        raise InvalidArgument(f"mode must be one of {', '.join(MODES)}, not {mode!r}", argument="mode")
    limit = clamp(limit, 5, 1, 20, "limit")
    per = clamp(hits_per_session, 1, 1, MAX_HITS_PER_SESSION, "hits_per_session")
    with_team, team_notice = teammates.wanted(store, include_team_sessions, team)
    index = store.search
    f = SearchFilters(
        repo_ids=resolve_repo(store, repo),
        provider=agents.resolve(provider) if provider else None,
        since=since_text(since, "since"),
        until=until_text(until, "until"),
        roles=parse_roles(roles),
        tool_names=tool_names(tool) if tool and tool.strip() else None,
        shell_tools=shell_tools(),
        command=(command or "").strip() or None,
        file_sessions=file_sessions(store, file) if file and file.strip() else None,
        commit_sessions=commit_sessions(store, commit) if commit and commit.strip() else None,
        include_subagents=bool(include_subagents),
        include_web_chats=bool(include_web_chats),
        include_team=with_team,
        web_providers=list(agents.unsearched_names()),
        exclude_session_ids=[exclude_session_id] if exclude_session_id else [],
    )
    q = parse(query)
    k = max(100, limit * per * 10)
    notice: list[str] = [team_notice] if team_notice else []
    mode_notice = None
    ran = mode

    kw: list[Candidate] = []
    total, exact = 0, True
    if q.empty:
        if query and query.strip():
            notice.append("the query has no searchable words")
        else:
            kw = index.recent_candidates(f, k, MAX_HITS_PER_SESSION + 1)
            exact = False
    elif mode in ("keyword", "hybrid"):
        kw, total, exact = index.keyword_candidates(q, f, k)

    ranked: list[tuple[Candidate, str, float | None]] = [(c, "keyword" if not q.empty else "filter", None) for c in kw]
    passages: dict[int, tuple[int, int]] = {}
    if mode in ("meaning", "hybrid") and not q.empty:
        from hansard.answers.search import meaning

        res = meaning.meaning_candidates(index, query or "", f, k, embedder=embedder,
                                          intent_encoder=intent_encoder, start_build=start_build)
        if res.notice:
            mode_notice = res.notice
            ran = "keyword"
            if mode == "meaning":
                kw, total, exact = index.keyword_candidates(q, f, k)
                ranked = [(c, "keyword", None) for c in kw]
        elif mode == "meaning":
            mode_notice = res.coverage_note
            ranked = [(Candidate(mid, score=sc), "meaning", res.similarity.get(mid)) for mid, sc in res.hits]
            total, exact = 0, len(res.hits) < k
        else:
            mode_notice = res.coverage_note
            from hansard.answers.search.hybrid import fuse

            ranked = [(c, how, res.similarity.get(c.id) if how != "keyword" else None)
                      for c, how, _ in fuse(q, kw, res.hits, parts=res.parts)]
        if not res.notice:
            passages = res.passages
    if f.repo_ids == []:
        notice.append(f"no indexed session ran in a repository matching {repo!r}")

    hits, matched = build_hits(index, ranked, q, limit, per, group_revisions, passages)
    if with_team:
        name = teammates.team_name(store)
        for h in hits:
            if h.get("member"):
                h["team"] = name
    out: dict[str, Any] = {"query": query or "", "mode": ran}
    if mode_notice:
        out["mode_notice"] = mode_notice
    if ran != mode:
        out["requested_mode"] = mode
    out["results"] = hits
    out["total"] = max(total, matched, len(hits))
    out["total_exact"] = exact
    out["returned"] = len(hits)
    out["results_omitted"] = out["total"] - len(hits)
    out["truncated"] = out["results_omitted"] > 0 or not exact
    out.update(index_state(store))
    if exclude_session_id:
        out["excluded_session_id"] = exclude_session_id
    if q.dropped:
        out["ignored_words"] = q.dropped
    if notice:
        out["notice"] = "; ".join(notice)
    return cast("SearchResults", cap_answer(out, MAX_ANSWER_CHARS))


def cap_answer(out: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """Drop the lowest-ranked hits until the JSON fits."""
    size = len(orjson.dumps(out))
    while size > max_chars and out["results"]:
        out["results"].pop()
        out["results_omitted"] += 1
        out["returned"] -= 1
        out["truncated"] = True
        size = len(orjson.dumps(out))
    return out


# -- hits -----------------------------------------------------------------------------


def build_hits(index: Any, ranked: list[tuple[Candidate, str, float | None]], q: Query, limit: int, per: int,
               group_revisions: bool, passages: dict[int, tuple[int, int]] | None = None
               ) -> tuple[list[dict[str, Any]], int]:
    """One hit per session, best first, and the number of sessions among ``ranked``."""
    if not ranked:
        return [], 0
    rows = index.hit_rows([c.id for c, _, _ in ranked])
    words = q.highlight_words()
    passages = passages or {}
    hits: list[dict[str, Any]] = []
    first: dict[int, dict[str, Any]] = {}
    sessions: set[int] = set()
    by_rev: dict[tuple[int, str], dict[str, Any]] = {}
    for cand, matched_by, sim in ranked:
        r = rows.get(cand.id)
        if r is None:
            continue
        sid = r["sid"]
        sessions.add(sid)
        key = textmod.revision_key(r["role"], r["kind"], r["text"], r["n"]) if group_revisions else None
        if key is not None and (sid, key) in by_rev:
            h = by_rev[(sid, key)]
            if "excerpt" in h:
                revs = h.setdefault("revisions", [h["message_index"]])
                revs.append(r["message_index"])
                revs.sort()
                h["latest_revision"] = revs[-1]
            continue
        top = first.get(sid)
        if top is None:
            if len(hits) >= limit:
                continue
            h = _hit(r, cand, matched_by, sim, words, passages.get(cand.id))
            first[sid] = h
            hits.append(h)
        else:
            more = top.setdefault("more_hits", [])
            if sum(1 for m in more if "excerpt" in m) < per - 1:
                h = _hit(r, cand, matched_by, sim, words, passages.get(cand.id), session_fields=False)
            elif len(more) < MORE_HITS_LISTED:
                h = {"message_index": r["message_index"], "role": r["role"]}
            else:
                h = {"message_index": r["message_index"]}  # not listed; later copies fold into it silently
                if key is not None:
                    by_rev[(sid, key)] = h
                continue
            more.append(h)
        if key is not None:
            by_rev[(sid, key)] = h
    for h in hits + [m for x in hits for m in x.get("more_hits", [])]:
        if "revisions" in h and len(h["revisions"]) < 2:
            del h["revisions"]
            h.pop("latest_revision", None)
    return hits, len(sessions)


SESSION_FIELDS = ("session_id", "title", "provider", "repo", "cwd", "started_at_local", "source", "member",
                  "member_name")


def _hit(r: Any, cand: Candidate, matched_by: str, sim: float | None, words: list[str],
         passage: tuple[int, int] | None = None, *, session_fields: bool = True) -> dict[str, Any]:
    title = r["title"] or (textmod._WS.sub(" ", r["first_prompt"]).strip()[:100] if r["first_prompt"] else None)
    h: dict[str, Any] = {
        "session_id": r["session_id"],
        "title": title,
        "provider": r["provider"],
        "repo": r["repo"],
        "cwd": r["cwd"],
        "message_index": r["message_index"],
        "role": r["role"],
        "kind": r["kind"],
        "excerpt": textmod.excerpt(r["text"][passage[0]:passage[1]] if passage else r["text"], words),
        "score": round(cand.score, 4),
        "matched_by": matched_by,
        "started_at_local": local_time(r["started_at"]),
        "timestamp_local": local_time(r["timestamp"]),
    }
    if sim is not None:
        h["similarity"] = round(sim, 4)
        if passage and (passage[0] > 0 or passage[1] < r["n"]):
            h["passage"] = list(passage)
    note = withheld_note(h["excerpt"])  # secrets are redacted at index time (hansard/ingest/redact.py)
    if note:
        h["match_reason"] = f"{h['match_reason']}; {note}" if h.get("match_reason") else note
    if r["repo"] is None:
        del h["repo"]
    if r["cwd"] is None:
        del h["cwd"]
    if r["member"]:  # a teammate's session (hansard team)
        h["member"], h["member_name"] = r["member"], r["member_name"]
    if r["origin"] or r["member"]:  # not this machine's record: where it was read
        h["source"] = source_of(r)
    if not session_fields:
        for k in SESSION_FIELDS:
            h.pop(k, None)
    return h


# -- filters that resolve to sessions ---------------------------------------------------


def file_sessions(store: Store, path: str) -> set[int]:
    """Sessions that edited or read ``path``: edits by repo-relative or recorded path, and
    any tool call whose input names it (reads, greps, shell commands)."""
    p = path.strip().replace("\\", "/")
    forms = {p.lstrip("./") if p.startswith("./") else p}
    if os.path.isabs(p):
        from hansard.git.identity import find_toplevel, relpath_in

        tops = find_toplevel(p)
        if tops:
            rel = relpath_in(tops[0], p)
            if rel:
                forms.add(rel)
    return store.search.file_sessions(sorted(forms))


def commit_sessions(store: Store, commit: str) -> set[int]:
    """Sessions tied to a commit: started on it (HEAD recorded by the agent), or whose
    messages name it (``git commit`` output, ``git show``)."""
    sha = commit.strip().lower()
    if not (4 <= len(sha) <= 64) or any(ch not in "0123456789abcdef" for ch in sha):
        raise InvalidArgument(f"commit must be a hex commit id (4-64 characters), not {commit!r}", argument="commit")
    return store.search.commit_sessions(sha)
