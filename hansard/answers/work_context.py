"""work_context: one task as its conversations, steps, tests and commits.

A task is a session plus everything tied to it, each tie with its evidence: the sessions it
resumed or that continued it (replayed prefixes), ``summary`` leafUuid links, its compaction
continuations, its subagents (or parent), and other sessions whose edits landed in the same
commits. Commits are the ones the session made through the shell (SHAs printed by ``git
commit``, checked against the repository, since a rebase may have replaced them) and the ones
its edits landed in. ``until`` hides evidence newer than that time.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, cast

from hansard.agents.origin import source_of
from hansard.answers.budget import Render, fit_budget
from hansard.answers.code_history import parse_until
from hansard.answers.evidence import parse_ts
from hansard.answers.session_facts import live_sessions, session_tests, shell_calls
from hansard.errors import GitError, NotFound
from hansard.git import identity
from hansard.git.history import read_commits
from hansard.git.run import git_text
from hansard.link.landing import RepoHistory, edit_hashes, edit_landed_in
from hansard.link.repos import known_repo

if TYPE_CHECKING:
    from hansard.answers.results import WorkContext
    from hansard.store.interfaces import Store
    from hansard.store.types import Row


# `git commit` prints "[main 1a2b3c4] message" or "[main (root-commit) 1a2b3c4] message".
_COMMIT_LINE = re.compile(r"^\[([^\]\s]+)(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.*)$", re.M)


def work_context(store: Store, session_id: str | None = None, *, repo: str | None = None,
                 until: str | None = None, token_budget: int = 4000, cwd: str | None = None,
                 repo_only: str | None = None, render: Render) -> WorkContext:
    """``render`` makes the answer's ``tree`` (the adapters pass hansard/render's
    :func:`~hansard.render.trees.work_context_tree`), counted in the token budget. With
    ``repo_only`` (a repository's path), no session that ran in another repository is
    listed, named or followed, whatever ties it (resume, summary record, parent, subagent)."""
    bound = parse_until(until)
    s, selected_by = _pick_session(store, session_id, repo or cwd or os.getcwd())
    top = _repo_top(store, s)
    history = RepoHistory(store, top) if top is not None else None
    conversations = _conversations(store, s, history, bound, repo_only)
    steps = _steps(store, [c["row"] for c in conversations if c["relation"] in ("self", "subagent")], bound)
    tests = session_tests(store, s["id"], bound)
    commits = _commits(store, s, history, bound)
    for c in conversations:
        c.pop("row")
    result = {
        "session": {"session_id": s["session_id"], "provider": s["provider"], "title": s["title"] or s["first_prompt"],
                    "started_at": s["started_at"], "last_at": s["last_at"], "cwd": s["cwd"],
                    "selected_by": selected_by},
        "until": until,
        "entries": conversations,
        "steps": steps,
        "tests": {"failed_then_fixed": tests["failed_then_fixed"], "still_failing": tests["still_failing"],
                  "runs": len(tests["runs"])},
        "commits": commits,
    }
    from hansard.answers.code_history import served

    # Commit summaries come from git, unredacted (the rest from the store, redacted when indexed).
    return cast("WorkContext", fit_budget(served(result), token_budget, render))


# The evidence text of the session the context is for (its own row among the conversations).
SELF = "the session this context is about"


def _pick_session(store: Store, session_id: str | None, where: str) -> tuple[Row, str]:
    if session_id:
        return store.sessions.find(session_id), "argument"
    tops = identity.find_toplevel(os.path.join(os.path.abspath(where), "."))
    if tops is None:
        raise NotFound("not inside a git repository, and no session id given")
    repo_id = known_repo(store, tops[1])
    rows = store.evidence.top_sessions_in_repo(repo_id) if repo_id >= 0 else []
    if not rows:
        raise NotFound(f"no archived session ran in {tops[1]}; pass a session id")
    live = live_sessions(store)
    for r in rows:
        if r["session_id"] in live:
            return r, "live_in_repo"
    return rows[0], "newest_in_repo"


def _repo_top(store: Store, s: Row) -> str | None:
    path = store.repos.path_of(s["repo_id"])
    return path if path and os.path.isdir(path) else None


def _conv(row: Row, relation: str, evidence: str) -> dict[str, Any]:
    return {"session_id": row["session_id"], "provider": row["provider"], "relation": relation, "evidence": evidence,
            "title": row["title"] or (row["first_prompt"] or "")[:100] or None, "started_at": row["started_at"],
            "last_at": row["last_at"], "message_count": row["message_count"], "row": row["id"],
            "source": source_of(row),
            **({"member": row["member"], "member_name": row["member_name"]} if row["member"] else {})}


def _conversations(store: Store, s: Row, history: RepoHistory | None, bound: float | None,
                   repo_only: str | None = None) -> list[dict[str, Any]]:
    out = [_conv(s, "self", SELF)]
    seen = {s["session_id"]}

    ev = store.evidence
    granted = os.path.realpath(repo_only) if repo_only is not None else None

    def allowed(row: Row | None) -> bool:
        if row is None or granted is None:
            return row is not None
        found, path = store.sessions.repo_path_of(row["session_id"])
        return found and path is not None and os.path.realpath(path) == granted

    def add(row: Row | None, relation: str, evidence: str) -> None:
        if row is None or row["session_id"] in seen or not allowed(row):
            return
        if bound is not None and (parse_ts(row["started_at"]) or 0) > bound:
            return
        seen.add(row["session_id"])
        out.append(_conv(row, relation, evidence))

    # Resumed / continued: replayed prefixes set resumed_from.
    cur: Row | None = s
    while cur is not None and cur["resumed_from"]:
        prev = ev.session(cur["resumed_from"])
        if prev is not None and not allowed(prev):
            break  # the chain is not followed through another repository's session
        add(prev, "resumed", f"{cur['session_id'][:13]} replays or continues its records")
        cur = prev
    for r in ev.sessions_resuming(s["session_id"]):
        add(r, "continued_by", "replays or continues this session's records")
    # Claude summary records: a title for a leaf message of another session.
    for r in ev.sessions_summarised_by(s["session_id"]):
        add(r, "continues", "its file opens with a summary of that session's last message (leafUuid)")
    for r in ev.sessions_summarising(s["id"]):
        add(r, "continued_by", "its file opens with a summary of this session's last message (leafUuid)")
    # Compaction keeps one session id: report it on the session itself.
    n = ev.compactions(s["id"])
    if n:
        out[0]["compactions"] = n
        out[0]["evidence"] += f"; compacted {n} time{'s' if n > 1 else ''} (same session id, continued after each)"
    if s["parent_session_id"]:
        add(ev.session(s["parent_session_id"]), "parent", "spawned this subagent")
    for r in ev.subagents(s["session_id"]):
        add(r, "subagent", f"subagent spawned by this session (tool call {r['spawn_call_id'] or 'unknown'})")
    # Same commits.
    if history is not None:
        mine = _landed(store, s["id"], history, bound)
        if mine:
            for other_id in ev.sessions_editing_repo(s["repo_id"], s["id"]):
                shared = mine & _landed(store, other_id, history, bound)
                if shared:
                    row = ev.session_at(other_id)
                    add(row, "same_commits", "edits landed in the same commit(s): " + ", ".join(x[:7] for x in sorted(shared)))
    return out


def _landed(store: Store, session_row: int, history: RepoHistory, bound: float | None) -> set[str]:
    """Commits a session's applied edits landed in."""
    out: set[str] = set()
    by_path: dict[str, list[Row]] = {}
    for e in store.evidence.session_edits(session_row):
        by_path.setdefault(e["rel_path"], []).append(e)
    for rel, edits in by_path.items():
        commits = history.file_commits(rel, until=bound)
        for e in edits:
            ts = parse_ts(e["timestamp"])
            if ts is None:
                continue
            out.update(edit_landed_in(ts, *edit_hashes(store, e["id"]), commits))
    return out


def _steps(store: Store, session_rows: list[int], bound: float | None) -> dict[str, list[dict[str, Any]]]:
    from dataclasses import asdict

    from hansard.facts.steps import by_state, classify_steps

    rows = [
        r for r in store.evidence.steps(session_rows)
        if bound is None or (parse_ts(r["timestamp"]) or 0) <= bound
    ]
    return {state: [asdict(x) for x in items] for state, items in by_state(classify_steps(rows)).items()}


def _commits(store: Store, s: Row, history: RepoHistory | None, bound: float | None) -> list[dict[str, Any]]:
    """The commits the session's shell printed and those its edits landed in. The printed ids
    are looked up in one `git cat-file --batch`; whether a commit is on a branch or tag, in
    HEAD's history (read once) or one `git rev-list --all`."""
    printed = []
    for c in shell_calls(store, s["id"], bound):
        if "git commit" not in c["command"] and "git" not in c["command"].split()[:1]:
            continue
        printed += [(m, c) for m in _COMMIT_LINE.finditer(c["output"] or "")]
    top = history.top if history is not None else None
    found = read_commits(top, [m.group(2) for m, _ in printed]) if top is not None and printed else {}
    elsewhere = {x.sha for x in found.values()} - set(history.commits if history is not None else ())
    on_refs = _on_refs(top) if top is not None and elsewhere else set()
    out: dict[str, dict[str, Any]] = {}
    for m, c in printed:
        hit = found.get(m.group(2))
        full = hit.sha if hit is not None else None
        key = full or m.group(2)
        out.setdefault(key, {"sha": key, "summary": m.group(3), "branch": m.group(1), "how": "made_by_session",
                             "message_index": c["message_index"], "tool_call_id": c["call_id"],
                             "in_repository": full is not None,
                             "reachable": full is not None and (full not in elsewhere or full in on_refs)})
    if history is not None:
        for sha in sorted(_landed(store, s["id"], history, bound)):
            if sha in out:
                out[sha]["how"] = "made_by_session+edits_landed"
                continue
            logged = history.commits.get(sha)
            out[sha] = {"sha": sha, "summary": logged.summary if logged is not None else "", "how": "edits_landed",
                        "in_repository": True, "reachable": True}
    return list(out.values())


def _on_refs(top: str) -> set[str]:
    """Every commit some branch, tag or other ref points to or contains. An amended or rebased
    commit still exists as an object for a while, but nothing points at it."""
    try:
        return set(git_text(["rev-list", "--all"], top).split())
    except GitError:
        return set()
