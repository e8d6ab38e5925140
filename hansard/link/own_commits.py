"""Edits of agents that commit each change themselves, dated by those commits (Aider).

Aider's log has no time per message: the parser dates every edit by the session's start, which
is only a lower bound, so an edit could wrongly pass as written before a commit a person made
during the session. Aider prints ``Commit <sha> <message>`` right after applying a reply's
edits; the first such commit after an edit's message holds that edit. Always true afterwards:
an edit of such an agent whose commit is found in its repository is dated by that commit's
committer time (the edit happened no later, and it reached the repository then); an edit whose
commit is not found (auto-commits off, or the commit rewritten away) keeps its session's start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.errors import GitError

if TYPE_CHECKING:
    from hansard.store.interfaces import Store


def date_by_own_commits(store: Store) -> int:
    """Date the undated edits of every agent that commits its own edits. Returns how many."""
    from hansard import agents
    from hansard.timebounds import utc_stamp

    names = [a.name for a in agents.agents() if a.commits_own_edits]
    rows = store.own_commits.undated_edits(names) if names else []
    if not rows:
        return 0
    commits: dict[int, list[tuple[int, str]]] = {}
    times: dict[tuple[int, str], float | None] = {}
    dated = 0
    for r in rows:
        named = commits.get(r["session_row"])
        if named is None:
            named = commits[r["session_row"]] = store.own_commits.named_commits(r["session_row"])
        at = r["message_index"]
        sha = next((c for i, c in named if at is not None and i > at), None)
        if sha is None:
            continue
        key = (r["repo_id"], sha)
        if key not in times:
            times[key] = _commit_time(store.repos.path_of(r["repo_id"]), sha)
        if times[key] is not None:
            store.own_commits.set_edit_time(r["id"], utc_stamp(times[key]))
            dated += 1
    return dated


def _commit_time(top: str | None, sha: str) -> float | None:
    from hansard.git.run import git_text

    if not top or not sha.isalnum():
        return None
    try:
        return float(git_text(["show", "-s", "--format=%ct", f"{sha}^{{commit}}", "--"], top).strip())
    except (GitError, ValueError):
        return None
