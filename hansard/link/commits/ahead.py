"""Commit diffs worked out ahead: while a large index run's reading workers still parse, a thread
of the writer's process reads the new commit diffs of each repository its sessions so far ran in
(one `git log -p`, parsed and screened for secrets: ``kept.new_diffs``), so that the link after
the scan only stores them instead of working them out alone, with the other CPUs idle.

Always true: rows are handed out only for the work tree, HEAD and starting commit they were
worked out for, and once; anything else, or a failure, leaves the link to work the diffs out
itself, as without this. The thread reads git alone, never the store: the repositories, their
HEADs and the commits their kept diffs reach are read by the caller's thread (``notice``).
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hansard.link.repos import Resolver
    from hansard.store.interfaces import Store

Key = tuple[str, str, "str | None"]  # (main work tree, HEAD, the commit the kept diffs reach or None)
Rows = list[tuple[str, str, "str | None", "list[Any] | None"]]


class DiffsAhead:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._resolver: Resolver | None = None
        self._seen_sessions = 0  # the highest session row looked at
        self._tops: set[str] = set()
        self._todo: queue.SimpleQueue[Key | None] = queue.SimpleQueue()
        self._got: dict[Key, Rows] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def notice(self) -> None:
        """After a commit of the scan: the repositories of the sessions written since the last
        call (their working directories through the path maps, as the link will place them)
        have their new diffs worked out in the thread. Sessions a repository carries are left
        to the link."""
        from hansard.git.refs import head_commit
        from hansard.link.carried import is_carried
        from hansard.link.repos import Resolver

        if self._closed:
            return
        if self._resolver is None:
            self._resolver = Resolver(self.store)
        r = self._resolver
        for row in self.store.repos.unresolved_sessions(self._seen_sessions):
            self._seen_sessions = max(self._seen_sessions, row["id"])
            if is_carried(row):
                continue
            tops = r.tops_of_dir(row["cwd"])
            if tops is None or tops[1] in self._tops:
                continue
            top = tops[1]
            self._tops.add(top)
            head = head_commit(top)
            rid = self.store.repos.id_by_path(top)
            state = self.store.commit_facts.state(rid) if rid is not None else None
            old = state["diffs_head"] if state is not None else None
            if head is None or head == old:
                continue
            self._todo.put((top, head, old))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="hansard-diffs-ahead")
                self._thread.start()

    def _run(self) -> None:
        from hansard.link.commits.kept import new_diffs

        while (key := self._todo.get()) is not None:
            try:
                self._got[key] = new_diffs(*key)
            except Exception:  # the link works them out again, and meets the error itself
                continue

    def take(self, top: str, head: str, old_head: str | None) -> Rows | None:
        """The rows worked out for exactly this (work tree, HEAD, starting commit), once; None
        when there are none."""
        self._finish()
        return self._got.pop((top, head, old_head), None)

    def _finish(self) -> None:
        if not self._closed:
            self._closed = True
            self._todo.put(None)
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        """No more work: the thread stops after what it is doing (a `git log -p` not waited for
        ends with this process)."""
        if not self._closed:
            self._closed = True
            self._todo.put(None)
        self._got.clear()
