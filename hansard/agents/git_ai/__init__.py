"""git-ai (github.com/git-ai-project/git-ai): line-range authorship notes on commits, in
``refs/notes/ai``, parsed by :mod:`hansard.agents.git_ai.notes`. Its records are *recorded*
evidence: `why` shows them beside hansard's own and says where they disagree
(:mod:`hansard.answers.why.recorded`); they never decide an answer."""

from __future__ import annotations

from typing import NamedTuple


class Recorder(NamedTuple):
    """A tool that records in git who wrote which lines of a commit (not whole sessions)."""

    name: str  # as `recorded.by` names it in the why contract
    display: str
    notes_ref: str  # the notes ref it writes; read, never written or fetched


RECORDER = Recorder(name="git-ai", display="git-ai", notes_ref="refs/notes/ai")
