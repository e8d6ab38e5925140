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
    from hansard.values.timebounds import utc_stamp

    names = [a.name for a in agents.agents() if a.commits_own_edits]
    rows = store.own_commits.undated_edits(names) if names else []
    if not rows:
        return 0
    commits: dict[int, list[tuple[int, str]]] = {}
    wanted: list[tuple[dict, tuple[int, str]]] = []
    for r in rows:
        named = commits.get(r["session_row"])
        if named is None:
            named = commits[r["session_row"]] = store.own_commits.named_commits(r["session_row"])
        at = r["message_index"]
        sha = next((c for i, c in named if at is not None and i > at), None)
        if sha is not None:
            wanted.append((r, (r["repo_id"], sha)))
    times = _commit_times(store, {key for _, key in wanted})
    dated = 0
    for r, key in wanted:
        if times.get(key) is not None:
            store.own_commits.set_edit_time(r["id"], utc_stamp(times[key]))
            dated += 1
    return dated


def _commit_times(store: Store, keys: set[tuple[int, str]]) -> dict[tuple[int, str], float]:
    """(repository, commit id as printed) -> committer time, for the commits git has: one `git
    cat-file --batch` per repository, whatever the number of commits."""
    from hansard.git.history import read_commits

    by_repo: dict[int, list[str]] = {}
    for repo_id, sha in keys:
        if sha.isalnum():
            by_repo.setdefault(repo_id, []).append(sha)
    out: dict[tuple[int, str], float] = {}
    for repo_id, shas in by_repo.items():
        top = store.repos.path_of(repo_id)
        if not top:
            continue
        try:
            found = read_commits(top, shas)
        except GitError:
            continue
        out.update({(repo_id, sha): float(c.committer_time) for sha, c in found.items()})
    return out
