"""The commit-level pass of `why`: which sessions made each commit that blame names.

Two kinds of evidence, strongest first:

* **ties**: a session's own shell output names the commit (``[branch abc1234] summary``), or
  its ``git commit --fixup``/``--squash`` printed ``fixup! <the commit's summary>`` while the
  commit was being written (between its author and committer times), or it ran ``git commit
  --amend``, ``git rebase``, ``git cherry-pick`` within moments of the commit's committer time;
  a printed commit that a rebase rewrote is followed by its patch-id; or an
  ``Entire-Checkpoint:`` line of its message names a checkpoint that kept the session. The rules
  are ``hansard.link.commits.ties``; the ties of HEAD's history are kept per repository
  (``hansard.link.commits.kept``) and read here, or joined for blame's commits alone when they are
  not current.
* **weights**: the sessions whose edits account for the commit's distinctive lines in this
  file (lines only one session wrote; when a commit has none, lines at most a few sessions
  wrote, shared between them), weighted by how many lines they explain. An edit made before
  the commit was authored explains a line first; edits made after it (a rebase moves the
  committer time) only where no earlier edit wrote that line.

Everything here reads through the store (its ``commit_facts`` and ``evidence`` facets) and git;
nothing is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.values.timebounds import CLOCK_SLACK_S

if TYPE_CHECKING:
    from collections.abc import Callable

    from hansard.answers.evidence import EditRef
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store

# A line written by at most this many sessions still says who made a commit, when the commit
# has no line that one session alone wrote.
FEW = 3


class CommitSessions:
    """Per blamed commit: the sessions tied to it and the sessions weighted by its lines."""

    def __init__(self, store: Store, top: str, repo_id: int, bl: Blame, *, at_head: bool = True) -> None:
        self.store = store
        self.at_head = at_head  # blame's commits are of HEAD's history (no other revision asked)
        self.top = top
        self.repo_id = repo_id
        self.bl = bl
        self._ties: dict[str, set[str]] | None = None
        self._weights: dict[str, dict[str, float]] = {}

    # -- ties from shell output ---------------------------------------------------------------

    def tied(self, sha: str) -> set[str]:
        if self._ties is None:
            from hansard.answers.why.together import once
            from hansard.link.commits.kept import repo_prints, ties_for

            store, repo_id = self.store, self.repo_id
            self._ties = ties_for(store, self.top, repo_id, self.bl.commits, at_head=self.at_head,
                                  prints_from=lambda: once(("prints", id(store), repo_id),
                                                           lambda: repo_prints(store, repo_id)))
        return self._ties.get(sha, set())

    # -- weights from distinctive lines ---------------------------------------------------------

    def weights(self, sha: str, lines: list[int], loose: Callable[[int], list[EditRef]], trivial: list[bool]
                ) -> dict[str, float]:
        """Sessions weighted by the commit's distinctive lines among ``lines`` (``loose(i)``:
        the edits that could have written line i by the commit's committer time)."""
        w = self._weights.get(sha)
        if w is not None:
            return w
        c = self.bl.commits.get(sha)
        authored = (min(c.author_time, c.committer_time) if c else 0) + CLOCK_SLACK_S
        per_line: list[set[str]] = []
        for i in lines:
            if trivial[i]:
                continue
            edits = loose(i)
            if not edits:
                continue
            early = {e.session_id for e in edits if e.ts <= authored}
            per_line.append(early or {e.session_id for e in edits})
        w = {}
        for sessions in per_line:
            if len(sessions) == 1:
                s = next(iter(sessions))
                w[s] = w.get(s, 0.0) + 1.0
        if not w:
            for sessions in per_line:
                if len(sessions) <= FEW:
                    for s in sessions:
                        w[s] = w.get(s, 0.0) + 1.0 / len(sessions)
        self._weights[sha] = w
        return w
