"""git-ai (github.com/git-ai-project/git-ai): line-range authorship notes on commits, in
``refs/notes/ai``, parsed by :mod:`hansard.recorders.git_ai.notes`. Its records are *recorded*
evidence: `why` shows them beside hansard's own and says where they disagree
(:mod:`hansard.answers.why.recorded`); they never decide an answer."""

from __future__ import annotations

from hansard.agents.record import Recorder

RECORDER = Recorder(name="git-ai", display="git-ai", notes_ref="refs/notes/ai",
                    reader="hansard.recorders.git_ai.notes:parse_note")
