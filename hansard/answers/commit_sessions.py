"""The commit-level pass of `why`: which sessions made each commit that blame names.

Two kinds of evidence, strongest first:

* **ties**: a session's own shell output names the commit (``[branch abc1234] summary``), or
  its ``git commit --fixup``/``--squash`` printed ``fixup! <the commit's summary>`` while the
  commit was being written (between its author and committer times), or it ran ``git commit
  --amend``, ``git rebase``, ``git cherry-pick`` within moments of the commit's committer time;
  a printed commit that a rebase rewrote is followed by its patch-id.
* **weights**: the sessions whose edits account for the commit's distinctive lines in this
  file (lines only one session wrote; when a commit has none, lines at most a few sessions
  wrote, shared between them), weighted by how many lines they explain. An edit made before
  the commit was authored explains a line first; edits made after it (a rebase moves the
  committer time) only where no earlier edit wrote that line.

Everything here reads through the store's ``evidence`` facet and git; nothing is written.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from hansard.answers.evidence import CLOCK_SLACK_S, parse_ts

if TYPE_CHECKING:
    from collections.abc import Callable

    from hansard.answers.evidence import EditRef
    from hansard.git.blame import Blame

# A line written by at most this many sessions still says who made a commit, when the commit
# has no line that one session alone wrote.
FEW = 3
# A rebase, an amend or a cherry-pick gives the commits it writes a committer time within
# this many seconds of the shell call that ran it.
REWRITE_WINDOW_S = 600.0

_COMMIT_LINE = re.compile(r"^\[([^\]\s]+)(?: \([^)]*\))? ([0-9a-f]{7,40})\] (.*)$", re.M)
_REWRITE = re.compile(r"\bgit\b[^|;&]*\b(?:commit\b[^|;&]*--amend|rebase|cherry-pick)\b")
_FIXUP = re.compile(r"^(?:fixup|squash|amend)! (.*)$")


class CommitSessions:
    """Per blamed commit: the sessions tied to it and the sessions weighted by its lines."""

    def __init__(self, store, top: str, repo_id: int, bl: Blame) -> None:
        self.store = store
        self.top = top
        self.repo_id = repo_id
        self.bl = bl
        self._ties: dict[str, set[str]] | None = None
        self._weights: dict[str, dict[str, float]] = {}

    # -- ties from shell output ---------------------------------------------------------------

    def tied(self, sha: str) -> set[str]:
        if self._ties is None:
            self._ties = self._load_ties()
        return self._ties.get(sha, set())

    def _load_ties(self) -> dict[str, set[str]]:
        from hansard.facts.shell import SHELL_TOOLS, shell_command

        commits = {sha: c for sha, c in self.bl.commits.items() if sha != "0" * 40}
        out: dict[str, set[str]] = {}
        if not commits:
            return out
        printed: list[tuple[str, str]] = []  # (short sha, session) not naming a blamed commit
        for session_id, ts, raw_in, output in self.store.evidence.repo_shell_calls(self.repo_id, SHELL_TOOLS, "git"):
            try:
                inp = json.loads(raw_in or "{}")
            except ValueError:
                continue
            cmd = shell_command(inp) if isinstance(inp, dict) else None
            if not cmd or "git" not in cmd:
                continue
            t = parse_ts(ts)
            for m in _COMMIT_LINE.finditer(output or ""):
                short, summary = m.group(2), m.group(3).strip()
                hits = [sha for sha in commits if sha.startswith(short)]
                for sha in hits:
                    out.setdefault(sha, set()).add(session_id)
                if not hits:
                    printed.append((short, session_id))
                fx = _FIXUP.match(summary)
                if fx and t is not None:
                    for sha, c in commits.items():
                        if c.summary == fx.group(1).strip() and c.author_time - CLOCK_SLACK_S <= t <= c.committer_time + CLOCK_SLACK_S:
                            out.setdefault(sha, set()).add(session_id)
            if t is not None and _REWRITE.search(cmd):
                for sha, c in commits.items():
                    if c.author_time < c.committer_time and -CLOCK_SLACK_S <= c.committer_time - t <= REWRITE_WINDOW_S:
                        out.setdefault(sha, set()).add(session_id)
        if printed:
            self._follow_patch_ids(printed, commits, out)
        return out

    def _follow_patch_ids(self, printed: list[tuple[str, str]], commits: dict, out: dict[str, set[str]]) -> None:
        """A printed commit that a rebase rewrote: the blamed commit with the same patch-id."""
        from hansard.git.history import patch_ids

        rewritten = [sha for sha, c in commits.items() if c.author_time != c.committer_time]
        if not rewritten:
            return
        ids = patch_ids(self.top, rewritten + sorted({s for s, _ in printed}))
        by_pid: dict[str, list[str]] = {}
        for sha in rewritten:
            if sha in ids:
                by_pid.setdefault(ids[sha], []).append(sha)
        for short, session_id in printed:
            for sha in by_pid.get(ids.get(short, ""), ()):
                out.setdefault(sha, set()).add(session_id)

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
