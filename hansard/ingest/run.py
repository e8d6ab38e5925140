"""One `hansard index` run: under the store's indexer lock, scan (the ingest pipeline), link
to repositories (hansard.link), refresh the memory-file mirror, record the run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hansard.ingest import collector
from hansard.ingest.pipeline import Progress, ScanSummary, reindex
from hansard.ingest.scanner import Scanner
from hansard.store import as_store
from hansard.values.timebounds import utc_stamp

if TYPE_CHECKING:
    from hansard.link.commits.ahead import DiffsAhead
    from hansard.store.interfaces import Store


def index(store: Store, paths: Iterable[Path] | None = None, *, wait: bool = True,
          progress: Progress | None = None, relink_all: bool = True) -> ScanSummary | None:
    """Scan and link. Returns None when ``wait`` is off and another indexer is running.
    Without ``relink_all`` (the quick index before a question), the commit facts kept are
    brought up to date only for the repositories of the sessions this run wrote: the others'
    are each brought up to date by the next question about them (``hansard.app``'s upkeep)."""
    store = as_store(store)
    archive = store.archive
    with archive.index_lock(wait=wait) as got, archive.bulk(), collector.fewer_sweeps():
        if not got:
            return None
        started = utc_stamp()
        if archive.needs_rebuild():
            # Derived rows written before secret redaction existed (migration m021): rebuild
            # them from the archive once, so that no command serves what they hold.
            reindex(store)
        listed = list(paths) if paths else None
        unregistered = _register_work_trees(store, listed)
        ahead = _diffs_ahead(store) if relink_all else None
        try:
            summary = Scanner(store, progress, on_commit=ahead.notice if ahead is not None else None).scan(listed)
            if unregistered:
                summary.skip("git_unreadable", unregistered)
            with archive.transaction():
                for reason, n in _link(store, None if relink_all else summary.session_rows, ahead).items():
                    summary.skip(reason, n)
                linked = store.commit_facts.generation()
                if summary.changed or not archive.has_runs():
                    archive.record_run({
                        "started_at": started, "finished_at": utc_stamp(), "files": summary.files,
                        "records": summary.records, "bytes": summary.bytes, "skipped": sum(summary.skipped.values()),
                        "sessions": summary.sessions, "messages": summary.messages, "edits": summary.edits,
                        "kind": "index", "redactions": summary.redactions,
                        "skip_reasons": json.dumps(dict(sorted(summary.skipped.items()))) if summary.skipped else None,
                    })
                    if linked is not None:  # the run's record changes none of the facts kept just now
                        store.commit_facts.restamp(linked)
        finally:
            if ahead is not None:
                ahead.close()
        _refresh_memories(store)
        return summary


def _register_work_trees(store: Store, paths: list[Path] | None) -> int:
    """The repositories this run reads whether or not a session names them yet: each work tree
    given to `hansard index`, or, without paths, the one the command runs in, when it carries
    sessions of its own (checkpoint refs, history files). Their refs and files are then read like
    those of every known repository, and what they carry belongs to them. A work tree given
    whose repository git cannot identify now stops the run with git's error (what it carries
    would be read for a repository not kept); the one the command runs in is then left for the
    next run (unregistered, its refs are not read). Returns how many were left so."""
    import os

    from hansard.errors import GitError
    from hansard.git.identity import find_toplevel
    from hansard.ingest.git_sources import carries_sessions, work_tree_tops
    from hansard.link.repos import register_repo

    if paths:
        tops = work_tree_tops(paths)
    else:
        try:
            here = find_toplevel(os.getcwd())
        except OSError:
            here = None
        tops = [here[0]] if here else []
    left = 0
    for top in tops:
        found = find_toplevel(top)
        if found is not None and carries_sessions(top):
            try:
                register_repo(store, found[1])
            except GitError:
                if paths:
                    raise
                left += 1
    return left


def rebuild(store: Store, progress: Progress | None = None) -> ScanSummary:
    """`hansard reindex` (and `hansard doctor --rebuild`): every derived table again from the
    archive alone, then linked."""
    store = as_store(store)
    with store.archive.index_lock(), store.archive.bulk(), collector.fewer_sweeps():
        summary = reindex(store, progress=progress)
        with store.archive.transaction():
            _link(store)
        return summary


def _link(store: Store, session_rows: set[int] | None = None, ahead: DiffsAhead | None = None) -> Counter[str]:
    """Link what is unresolved, and keep the commit facts of every repository with sessions
    (with ``session_rows``: of those these sessions ran in); what was left for the next run,
    by reason. ``ahead``: commit diffs worked out during the scan."""
    from hansard.link.commits.kept import refresh_all
    from hansard.link.repos import resolve_pending

    skipped: Counter[str] = Counter()
    resolve_pending(store, skipped)
    refresh_all(store, store.repos.with_sessions(session_rows), ahead)
    return skipped


def _diffs_ahead(store: Store) -> DiffsAhead:
    from hansard.link.commits.ahead import DiffsAhead

    return DiffsAhead(store)


def _refresh_memories(store: Store) -> None:
    from hansard.ingest.memory_files import refresh_memories

    refresh_memories(store)


def repair(path: str | None = None) -> dict[str, Any]:
    """`hansard doctor --rebuild`: salvage the archive of a damaged store into a fresh one,
    reindex it, and report on the result."""
    from hansard.store import open_store
    from hansard.store.sqlite import doctor

    copied, lost = doctor.salvage(path)
    store = open_store(path)
    try:
        summary = rebuild(store)
    finally:
        store.close()
    return doctor.rebuilt_report(path, copied, lost, summary.sessions, summary.messages)
