"""Keeping each repository's commit facts (which sessions made which commit) up to date.

The facts of a repository stand for two things, both in its state row: the commit HEAD named
and the shell calls read (highest row id, count, each call counted once more when its result
is in); reading a new Entire checkpoint of the repository drops its state
(hansard.ingest.git_sources), so its trailers are joined again. ``refresh`` brings them up to
date when either moved: new shell calls are read for their prints (a call is read once; calls
that were rewritten or removed, or whose result came after they were read, make it read them
all again), and
the ties are joined anew from all prints and HEAD's history, in one `git log`, one `git
cat-file --batch` for printed ids that are no longer in the history and, for those git still
has, one `git diff-tree --stdin` and one `git patch-id` (patch-ids are kept, so a commit's is
computed once). When HEAD moved and the shell calls did not, and no rule can join the commits
it left or reached otherwise than alone, the ties of the commits it left are dropped and those
of the commits it reached added instead (``_ties_moved``: one `git log` of those). When the
index links the repository, the commits new since its last refresh also have their diffs put
in the commit-diff cache (one `git log -p`), so that a question about any file finds its
history's diffs there. Nothing here runs per commit or per print.

``ties_for`` is the reader: the kept ties when they are current, else the same join worked out
for the commits asked about, without writing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hansard.link.commits import ties
from hansard.values.timebounds import utc_stamp

if TYPE_CHECKING:
    from hansard.link.commits.ahead import DiffsAhead
    from hansard.store.interfaces import Store

ZERO_SHA = "0" * 40  # blame's id of lines not committed yet


def _tools() -> frozenset[str]:
    from hansard.facts.shell import SHELL_TOOLS

    return frozenset(SHELL_TOOLS)


def refresh(store: Store, top: str, repo_id: int, *, wait_ms: int | None = None, diffs: bool = False,
            ahead: DiffsAhead | None = None) -> dict[str, Any] | None:
    """Bring the repository's kept facts up to date with HEAD and its sessions' shell calls.
    Returns the state now kept (with ``refreshed`` saying whether anything was computed, and
    ``kept`` whether the store took it), or None when there is nothing to keep (no HEAD, no
    repository). ``wait_ms``: as for a question's upkeep (see the facet's save).
    With ``diffs`` (the index), the diffs of the commits new since the last such refresh go into
    the commit-diff cache too: one `git log -p`, seconds on a history of thousands of commits,
    so a question never waits for it (its files' diffs are read as it needs them); ``ahead`` may
    hold them worked out already, beside the index run's scan."""
    from hansard.git.refs import head_commit

    facts = store.commit_facts
    head = head_commit(top)
    if head is None or repo_id is None or repo_id < 0:
        return None
    _refresh_shell_writes(facts, repo_id, wait_ms)
    state = facts.state(repo_id)
    if diffs and (state is None or state["diffs_head"] != head):
        _fill_diffs(store, top, head, state["diffs_head"] if state is not None else None, ahead)
        if state is not None:
            facts.set_diffs_head(repo_id, head)
    generation = facts.generation()
    if state is not None and state["head"] == head and generation is not None and state["generation"] == generation:
        return {**state, "refreshed": False}  # nothing written since: not even counted again
    tools = _tools()
    if state is not None and generation is not None and state["generation"] == generation:
        # Nothing written since they were counted (a new commit, the common case): the calls
        # are those the facts stand for, and need not be counted again.
        upto, count, before = state["calls_upto"], state["calls"], state["calls"]
    else:
        # A call's result (which prints the commit it made) may be read after the call itself:
        # the key counts it, and calls read before their result are read again with it.
        upto, count, before = facts.shell_key(repo_id, tools, state["calls_upto"] if state is not None else 0)
    if state is not None and state["head"] == head and (state["calls_upto"], state["calls"]) == (upto, count):
        facts.set_generation(repo_id, wait_ms)
        return {**state, "refreshed": False}
    started = time.perf_counter()
    if state is not None and state["head"] != head and (state["calls_upto"], state["calls"]) == (upto, count):
        moved = _ties_moved(store, top, repo_id, state["head"], head)
        if moved is not None:  # HEAD moved, the shell calls did not: only the commits it left or reached
            dropped, n, added = moved
            new_state = {"head": head, "calls_upto": upto, "calls": count,
                         "commits": state["commits"] - len(dropped) + n,
                         "seconds": round(time.perf_counter() - started, 4), "computed_at": utc_stamp(),
                         "diffs_head": head if diffs else state["diffs_head"]}
            kept = facts.save(repo_id, new_state, prints=[], ties=added, patch_ids=[], keep_prints=True,
                              dropped=dropped, wait_ms=wait_ms)
            return {**new_state, "refreshed": True, "kept": kept}
    incremental = state is not None and state["calls_upto"] <= upto and before == state["calls"]
    new_calls = facts.shell_calls(repo_id, tools, state["calls_upto"] if state is not None and incremental else None)
    new_prints = [(row, p) for row, sid, ts, inp, out in new_calls for p in ties.prints_of([(sid, ts, inp, out)])]
    prints = [ties.Print(*p) for p in facts.prints(repo_id)] if incremental else []
    prints += [p for _, p in new_prints]
    from hansard.git.history import commit_log

    trailers: dict[str, str] = {}
    commits, named = commit_log(top, head, trailers)
    tied, pids = _join(store, top, prints, _history(prints, commits))
    for sha, session_id in _trailer_ties(store, repo_id, named) + _session_trailer_ties(store, trailers):
        tied.setdefault(sha, set()).add((session_id, "trailer"))
    diffs_head = head if diffs else (state["diffs_head"] if state is not None else None)
    new_state = {"head": head, "calls_upto": upto, "calls": count, "commits": len(commits),
                 "seconds": round(time.perf_counter() - started, 4), "computed_at": utc_stamp(),
                 "diffs_head": diffs_head}
    kept = facts.save(repo_id, new_state,
                      prints=[(row, p.session_id, p.ts, p.kind, p.short, p.summary) for row, p in new_prints],
                      ties=[(sha, s, rule) for sha, pairs in tied.items() for s, rule in pairs],
                      patch_ids=list(pids.items()), keep_prints=incremental, wait_ms=wait_ms)
    return {**new_state, "refreshed": True, "kept": kept}


def _ties_moved(store: Store, top: str, repo_id: int, old: str, head: str
                ) -> tuple[set[str], int, list[tuple[str, str, str]]] | None:
    """(the commits of ``old``'s history that ``head``'s lacks, how many ``head``'s has that
    ``old``'s lacks, the ties of those) when the kept ties of ``old``'s history stand for the
    commits both share: no print names a commit of either kind (a printed id naming no commit
    of the history has ``patch_id`` ties; one that names a commit has none) and none of the new
    commits is rewritten (author and committer times differ: ``rewrite`` and ``patch_id`` ties
    name such commits). The rules then join each print to each commit alone
    (``hansard.link.commits.ties``): ``head``'s ties are the kept ones but the first kind's, and
    the new commits'. None otherwise: everything is joined again."""
    from hansard.git.history import commits_between

    trailers: dict[str, str] = {}
    got = commits_between(top, old, head, trailers)
    if got is None:
        return None
    dropped, commits, named = got
    if any(c.author_time != c.committer_time for c in commits):
        return None
    prints = [ties.Print(*p) for p in store.commit_facts.prints(repo_id)]
    history = _history(prints, commits)
    gone = ties.History(ties.CommitRow(sha, 0, 0, "") for sha in dropped)
    if any(p.kind == "printed" and (history.named(p.short) or gone.named(p.short)) for p in prints):
        return None
    tied = ties.ties(prints, history)
    for sha, session_id in _trailer_ties(store, repo_id, named) + _session_trailer_ties(store, trailers):
        tied.setdefault(sha, set()).add((session_id, "trailer"))
    return dropped, len(commits), [(sha, s, rule) for sha, pairs in tied.items() for s, rule in pairs]


# How long a question's upkeep waits for another writer before it keeps nothing (the answer
# works the facts out for itself then).
UPKEEP_WAIT_MS = 50


def _refresh_shell_writes(facts: Any, repo_id: int, wait_ms: int | None) -> None:
    """Keep the repository's shell calls that could write a file (``hansard.facts.shell.
    writing_call``; `why` asks which of them name its file) up to date with its shell calls:
    new calls are read once; calls rewritten or removed make them all read again."""
    from hansard.facts.shell import writing_call

    state = facts.shell_write_state(repo_id)
    generation = facts.generation()
    if state is not None and generation is not None and state["generation"] == generation:
        return  # nothing written since they were counted
    tools = _tools()
    upto, count = facts.all_shell_key(repo_id, tools)
    incremental = state is not None and state["calls_upto"] <= upto
    if state is not None and (state["calls_upto"], state["calls"]) == (upto, count):
        facts.save_shell_writes(repo_id, upto, count, [], replace=False, wait_ms=wait_ms)  # (counted at this generation)
        return
    calls = facts.all_shell_calls(repo_id, tools, state["calls_upto"] if incremental else None)
    if incremental and state["calls"] + len(calls) != count:
        incremental, calls = False, facts.all_shell_calls(repo_id, tools)
    rows = [(row, *w) for row, ts, raw in calls if (w := writing_call(ts, raw)) is not None]
    facts.save_shell_writes(repo_id, upto, count, rows, replace=not incremental, wait_ms=wait_ms)


def _fill_diffs(store: Store, top: str, head: str, old_head: str | None, ahead: DiffsAhead | None = None) -> None:
    """The commit diffs of the commits new since ``old_head`` (all of HEAD's history at first)
    into the commit-diff cache."""
    rows = ahead.take(top, head, old_head) if ahead is not None else None
    store.commit_diffs.put_many(rows if rows is not None else new_diffs(top, head, old_head))


def new_diffs(top: str, head: str, old_head: str | None) -> list[tuple[str, str, str | None, list[Any] | None]]:
    """The commit-diff cache's rows of the commits of ``head``'s history new since ``old_head``
    (all of it without one, or when git no longer has it). Reads git alone."""
    from hansard.errors import GitError
    from hansard.link.landing import commit_diff_rows

    try:
        return commit_diff_rows(top, [head, f"^{old_head}"] if old_head else [head])
    except GitError:  # the old HEAD is gone (a gc after a rebase): all of it again
        return commit_diff_rows(top, [head])


def _history(prints: list[ties.Print], commits: list[Any]) -> ties.History:
    """The commits the prints are joined to. A printed summary was redacted when its session
    was stored, so where a ``fixup!`` must find its commit by summary, git's summaries are
    redacted the same way first."""
    if ties.has_fixups(prints):
        from hansard.ingest.redact import redact

        commits = [c._replace(summary=redact(c.summary)[0]) for c in commits]
    return ties.History(commits)


def _join(store: Store, top: str, prints: list[ties.Print], history: ties.History
          ) -> tuple[dict[str, set[tuple[str, str]]], dict[str, str | None]]:
    """(ties, patch-ids newly computed) of ``prints`` to ``history``'s commits."""
    from hansard.git.history import patch_ids, read_commits

    shorts = ties.unknown_shorts(prints, history)
    elsewhere = read_commits(top, shorts) if shorts else {}
    need = ties.patch_id_candidates(elsewhere, history)
    facts = store.commit_facts
    known: dict[str, str | None] = facts.patch_ids(need) if need else {}
    todo = sorted(need - set(known))
    computed = patch_ids(top, todo) if todo else {}
    fresh: dict[str, str | None] = {sha: computed.get(sha) for sha in todo}
    pids = {sha: pid for sha, pid in {**known, **fresh}.items() if pid is not None}
    return ties.ties(prints, history, elsewhere, pids), fresh


def repo_prints(store: Store, repo_id: int) -> list[ties.Print]:
    """The prints of every shell call of ``repo_id``'s sessions that mentions git: the same for
    every commit asked, whatever the file."""
    from hansard.facts.shell import SHELL_TOOLS

    return ties.prints_of(store.evidence.repo_shell_calls(repo_id, SHELL_TOOLS, "git"))


def ties_for(store: Store, top: str, repo_id: int, commits: Mapping[str, Any], *, at_head: bool,
             prints_from: Callable[[], list[ties.Print]] | None = None) -> dict[str, set[str]]:
    """commit -> the sessions tied to it, for ``commits`` (sha -> a commit with author_time,
    committer_time and summary, as blame gives them). With ``at_head`` (the commits are of
    HEAD's history) and current kept facts, read from the store; otherwise joined here, from
    the repository's shell calls (``repo_prints``, or ``prints_from()`` when given: the same, as
    a caller that asks for many files keeps it), for these commits alone."""
    shas = [sha for sha in commits if sha != ZERO_SHA]
    if not shas:
        return {}
    facts = store.commit_facts
    if at_head and _current(store, facts, top, repo_id):
        return facts.ties(repo_id, shas)
    prints = prints_from() if prints_from is not None else repo_prints(store, repo_id)
    out: dict[str, set[str]] = {}
    if prints:
        history = _history(prints, [ties.CommitRow(sha, c.author_time, c.committer_time, c.summary)
                                    for sha, c in commits.items() if sha != ZERO_SHA])
        tied, _ = _join(store, top, prints, history)
        out = {sha: {s for s, _ in pairs} for sha, pairs in tied.items()}
    if _has_checkpoints(store, repo_id):
        from hansard.git.history import commit_checkpoints

        for sha, session_id in _trailer_ties(store, repo_id, commit_checkpoints(top, shas)):
            out.setdefault(sha, set()).add(session_id)
    return out


def _has_checkpoints(store: Store, repo_id: int) -> bool:
    facet = store.git_sources
    root = facet.root_of(repo_id)
    return root is not None and facet.key(root)[0] > 0


def _trailer_ties(store: Store, repo_id: int, named: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """(commit, session) for each ``Entire-Checkpoint:`` line of a commit's message whose
    checkpoint kept that session (hansard.ingest.git_sources): the rule ``trailer``, as strong
    as a session's own print of the commit. A squash merge's body naming several checkpoints
    ties the merge to all their sessions."""
    facet = store.git_sources
    if not named:
        return []
    root = facet.root_of(repo_id)
    if root is None:
        return []
    kept = facet.checkpoint_sessions(root, {c for ids in named.values() for c in ids})
    # A session this machine recorded is the one its edits are answered by (the checkpoint's copy
    # of it is left out of the evidence, hansard.answers.evidence): the trailer ties it too.
    twins = facet.local_twins({s for ss in kept.values() for s in ss})
    for ss in kept.values():
        ss.update(twins[s] for s in list(ss) if s in twins)
    return [(sha, s) for sha, ids in named.items() for c in ids for s in sorted(kept.get(c, ()))]


def _session_trailer_ties(store: Store, trailers: Mapping[str, str]) -> list[tuple[str, str]]:
    """(commit, session) for each ``Claude-Session:`` trailer naming a session this store has
    under that very id (hansard.agents.trailers): the rule ``trailer``. A session the store does
    not have ties nothing (its commit keeps only what the trailer records, shown by `why`)."""
    if not trailers:
        return []
    from hansard.agents.trailers.coauthors import parse

    named = {sha: t.sessions for sha, f in trailers.items() if (t := parse(f)) is not None and t.sessions}
    ids = {s for ss in named.values() for s in ss}
    have = {s for s in ids if store.evidence.session(s) is not None}
    return [(sha, s) for sha, ss in named.items() for s in ss if s in have]


def _current(store: Store, facts: Any, top: str, repo_id: int) -> bool:
    from hansard.git.refs import head_commit

    state = facts.state(repo_id)
    if state is None or state["head"] != head_commit(top):
        return False
    if state["generation"] is not None and state["generation"] == facts.generation():
        return True
    return (state["calls_upto"], state["calls"]) == facts.shell_key(repo_id, _tools())[:2]


def refresh_all(store: Store, repos: Iterable[tuple[int, str]], ahead: DiffsAhead | None = None
                ) -> list[dict[str, Any]]:
    """``refresh`` for each (repo id, work tree) whose work tree is there; a repository git
    cannot read is skipped (its facts are worked out per question instead). ``ahead``: commit
    diffs worked out beside the scan."""
    import os

    from hansard.errors import GitError

    out = []
    for repo_id, top in repos:
        if not top or not os.path.isdir(top):
            continue
        try:
            state = refresh(store, top, repo_id, diffs=True, ahead=ahead)
        except GitError:
            continue
        if state is not None:
            out.append({"repo_id": repo_id, **state})
    return out
