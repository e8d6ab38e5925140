"""The web page's only door into hansard's core, holding the page to one repository with the
same rules as `hansard mcp serve --scope repo` (``hansard.mcp.scope``).

Always true of what these functions return: a path is answered only when its real location
is a file of the served repository (``..``, absolute paths and symlinks out of it are refused
before anything is read); a session is read only when it ran in the served repository, and an
id of another repository's session is refused word for word as an id of none; a `why` answer or
a stats breakdown names no session of another repository (it says "another repository's
session"); web chats are left out of lists and search unless asked for; and every text is the
redacted text the store keeps (file lines and commit summaries are redacted here, as `why` does).

Every function is synchronous and may block (git, SQLite): the server runs them on its
worker threads, each in a request of its own (``hansard.app.house``: its store, its quick index
run once, the team's rows pulled when stale).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from hansard.errors import InvalidArgument, NotFound, ScopeNotGranted
from hansard.mcp import scope

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hansard.answers.results import RepoStats, SearchResults, SessionCommit, Transcript, WhyAnswer
    from hansard.app.house import Hansard, Request
    from hansard.store.interfaces import Store

# Messages on one page of a transcript: a 50 MB session is read a page at a time.
PAGE_MESSAGES = 40
PAGE_CHARS = 120_000
# Tool output beyond this is cut (the page links to the rest, as `hansard show` does).
MESSAGE_CHARS = 4_000
# Messages shown around the one whose tool call wrote a line.
WINDOW = 7
WHAT = "hansard ui"


def application() -> Hansard:
    """The page's application: a request brings the store up to date with the agents' homes
    first (so a reload shows sessions written since the server started) and reads teammates'
    sessions of the repository when a team is set up."""
    from hansard.app.house import Hansard

    return Hansard()


def repo_top(path: str) -> str:
    """The real path of the git repository holding ``path`` (the served repository)."""
    from hansard.errors import NotARepository
    from hansard.git.identity import find_toplevel

    tops = find_toplevel(os.path.join(os.path.abspath(path), "."))
    if tops is None:
        raise NotARepository(f"{path} is not inside a git repository")
    return scope.real(tops[1])


def check_rel(top: str, rel: str) -> str:
    """``rel`` as a repository-relative path of a file of the served repository, or a refusal:
    an absolute path, a ``..`` step, or a path whose real location (through symlinks) is
    outside the repository is ScopeNotGranted; a path of nothing is NotFound."""
    p = rel.replace("\\", "/").strip()
    if not p or "\0" in p or p.startswith("/") or os.path.isabs(p) or p.startswith("~") \
            or {"..", ".git"} & set(p.split("/")):
        raise _outside(top)
    _check_path(top, p)
    full = os.path.join(top, p)
    if not os.path.isfile(full):
        raise NotFound(f"no file {p!r} in {top}")
    return os.path.relpath(scope.real(full), top).replace(os.sep, "/") if os.path.islink(full) else p


def _outside(top: str) -> ScopeNotGranted:
    return ScopeNotGranted(f"{WHAT} serves the files of {top} only, by their path inside it")


def _check_path(top: str, path: str) -> None:
    """``hansard.mcp.scope``'s rule (the real path must be in the repository and no other one
    nested in it), refused in this page's words."""
    try:
        scope.check_path(top, path, top, WHAT)
    except ScopeNotGranted:
        raise _outside(top) from None


def session_in_scope(store: Store, top: str, session_id: str) -> None:
    """The session (id or prefix) ran in the served repository, or ScopeNotGranted; another
    repository's session and no session at all get the same words."""
    found, path = store.sessions.repo_path_of(session_id)
    if not found or path is None or scope.real(path) != top:
        raise ScopeNotGranted(f"no session {session_id!r} of {top}: {WHAT} shows the sessions of this repository only")


# -- files --------------------------------------------------------------------------------------


def file_answer(rq: Request, top: str, rel: str) -> WhyAnswer:
    """The `why` answer for every line of ``rel`` (the JSON contract), with no session of
    another repository named. Cached by the why-result cache like the editor's answers."""
    from hansard.answers.code_history import unnamed_elsewhere

    ans = rq.why_answer(rel, cwd=top)  # with teammates' sessions (why pulls them when stale)
    return unnamed_elsewhere(rq.store, ans, top)


def line_view(rq: Request, top: str, ans: Mapping[str, Any], line: int) -> dict[str, Any]:
    """What the page shows beside a line: its answer, the request that asked for its edit (with
    the person's last turn after it, and the session's first request where it has no title), the
    messages around the one whose tool call wrote it (with that call's diff), and its commit."""
    from hansard.lsp.marks import prompt_for

    lines = ans["lines"]
    if not 1 <= line <= len(lines):
        raise InvalidArgument(f"line {line} is not a line of {ans['path']} (1-{len(lines)})", argument="line")
    ln = lines[line - 1]
    out: dict[str, Any] = {"line": ln, "session": None, "prompt": None, "messages": [], "call": None,
                           "commit": None}
    sha = ln.get("commit")
    if sha:
        out["commit"] = {"sha": sha, **(ans.get("commits") or {}).get(sha, {})}
    sid = ln.get("session_id")
    if not sid:
        return out
    out["session"] = {"session_id": sid, **(ans.get("sessions") or {}).get(sid, {})}
    asked = prompt_for(ans, ln)
    if asked is not None:
        out["prompt"], out["then"], out["first"] = asked.request, asked.then, asked.first
    mi = ln.get("message_index")
    try:
        page = transcript_page(rq, top, sid, around=mi, limit=WINDOW)
    except (NotFound, ScopeNotGranted):
        return out  # a teammate's session not pulled here: the answer alone
    out["messages"] = page["messages"]
    for m in page["messages"]:
        for c in m.get("tool_calls") or ():
            if c.get("call_id") == ln.get("tool_call_id"):
                out["call"] = {**c, "message_index": m["message_index"]}
    return out


# -- sessions -----------------------------------------------------------------------------------


def transcript_page(rq: Request, top: str, session_id: str, *, around: int | None = None, cursor: str | None = None,
                    limit: int = PAGE_MESSAGES, offset: int | None = None) -> Transcript:
    """One page of a session of the served repository (`hansard show` with its diffs and test
    runs), a teammate's when it is not a local one. With ``offset``, message ``around`` alone,
    from that character (the rest of a message a page cut)."""
    if offset is not None:
        around, limit = around or 0, 1
    from hansard.answers.transcript import get_past_session

    if not rq.store.sessions.repo_path_of(session_id)[0]:
        rq.team()  # a teammate's session, when a team is configured
    store = rq.store
    session_in_scope(store, top, session_id)
    return get_past_session(store, session_id, around=around, next=cursor, limit=limit, max_chars=PAGE_CHARS,
                            max_message_chars=MESSAGE_CHARS, content_offset=offset, details=True)


def session_commits(store: Store, top: str, session_id: str) -> list[SessionCommit]:
    """The commits a session's work landed in (work_context's evidence; its answer is served
    redacted, git's commit summaries too)."""
    from hansard.answers.work_context import work_context
    from hansard.render.trees import work_context_tree

    out = work_context(store, session_id, repo=top, token_budget=4000, repo_only=top, render=work_context_tree)
    return list(out.get("commits") or [])


def alive_lines(rq: Request, top: str, session_id: str, files: list[str], limit: int = 20) -> list[dict[str, Any]]:
    """For each file the session edited (the first ``limit``): how many of its lines at HEAD
    `why` gives to this session, and the first of them; a file gone since is said so."""
    from hansard.errors import HansardError

    out: list[dict[str, Any]] = []
    for rel in files[:limit]:
        try:
            ans = file_answer(rq, top, check_rel(top, rel))
        except HansardError:
            out.append({"path": rel, "alive": 0, "first": None, "gone": True})
            continue
        mine = [ln["line"] for ln in ans["lines"] if ln.get("session_id") == session_id]
        out.append({"path": ans["path"], "alive": len(mine), "first": mine[0] if mine else None, "gone": False})
    return out


def session_files(store: Store, session_id: str) -> list[str]:
    """The repository-relative paths a session's applied edits changed, sorted."""
    row = store.evidence.session(session_id)
    if row is None:
        return []
    return sorted({str(e["rel_path"]) for e in store.evidence.session_edits(row["id"])})


def recent_sessions(store: Store, top: str, limit: int = 15, web_chats: bool = False) -> list[dict[str, Any]]:
    from hansard import agents
    from hansard.answers.search.filters import resolve_repo

    ids = resolve_repo(store, top)
    if ids == []:
        return []
    return store.sessions.list(repo_ids=ids, limit=limit, exclude_providers=() if web_chats else agents.web_names())


def session_count(store: Store, top: str, web_chats: bool = False) -> int:
    """How many sessions ``recent_sessions`` chooses from."""
    from hansard import agents
    from hansard.answers.search.filters import resolve_repo

    ids = resolve_repo(store, top)
    if ids == []:
        return 0
    return store.sessions.list_count(repo_ids=ids, exclude_providers=() if web_chats else agents.web_names())


def default_target(store: Store, top: str) -> str | None:
    """The file the newest session of this repository edited last (what `hansard ui --open`
    shows when no file is named), or None."""
    for s in recent_sessions(store, top, limit=5):
        row = store.evidence.session(s["session_id"])
        if row is None:
            continue
        edits = sorted(store.evidence.session_edits(row["id"]), key=lambda e: e["timestamp"] or "", reverse=True)
        for e in edits:
            if os.path.isfile(os.path.join(top, e["rel_path"])):
                return str(e["rel_path"])
    return None


# -- search and stats ---------------------------------------------------------------------------


SEARCH_FILTERS = ("provider", "since", "until", "roles", "tool", "command", "file", "commit")


def search(store: Store, top: str, query: str, mode: str, filters: dict[str, str], web_chats: bool) -> SearchResults:
    """search_past_sessions held to the served repository; a file or commit filter must be of it."""
    from hansard.answers.search.sessions import search_past_sessions

    kw = {k: (filters.get(k) or "").strip() or None for k in SEARCH_FILTERS}
    if kw["file"]:
        _check_path(top, kw["file"])
    if kw["commit"]:
        try:
            scope.check_commit(top, kw["commit"], WHAT)
        except ScopeNotGranted:
            raise ScopeNotGranted(f"commit {kw['commit']} is not a commit of {top}") from None
    out = search_past_sessions(store, query, repo=top, mode=mode, limit=20, include_web_chats=web_chats,
                               **kw)  # type: ignore[arg-type]
    out["results"] = scope.filter_sessions(top, out.get("results") or [], store.sessions.repo_path_of)
    return out


def stats(rq: Request, top: str, path: str | None = None) -> RepoStats:
    """repo_stats of the served repository, or of one folder of it (``path``), by agent and
    session, its tree one level down (the page's folders and files, each opening its own page),
    the 200 largest files listed (``files_shown`` says of how many); sessions of other
    repositories folded into one unnamed row."""
    from hansard.answers.stats import repo_stats

    rel = check_folder(top, path) if path else None
    rq.fresh(top)  # with teammates' sessions of this repository
    store = rq.store
    out = repo_stats(store, [rel] if rel else None, by=("agent", "session"), cwd=top, max_files=200,
                     cache=rq.app.cache, depth=1)
    if (out.get("by") or {}).get("session"):
        out["by"]["session"] = scope.unname_sessions(top, out["by"]["session"], store.sessions.repo_path_of)
    return out


def check_folder(top: str, rel: str) -> str:
    """``rel`` as a repository-relative folder of the served repository (its real location in
    it, as ``check_rel`` holds a file to), or a refusal; the repository itself is ""."""
    p = rel.replace("\\", "/").strip().rstrip("/")
    if not p:
        return ""
    if "\0" in p or p.startswith("/") or os.path.isabs(p) or p.startswith("~") or {"..", ".git"} & set(p.split("/")):
        raise _outside(top)
    _check_path(top, p)
    if not os.path.isdir(os.path.join(top, p)):
        raise NotFound(f"no folder {p!r} in {top}")
    return p
