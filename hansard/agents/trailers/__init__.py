"""Commit trailers that name a coding agent: ``Claude-Session:`` (Claude Code on the web links
the session that made the commit, ``https://claude.ai/code/session_…``) and ``Co-authored-by:``
lines whose name or address is an agent's (the table in :mod:`.coauthors`, from commits seen in
public repositories). Read with git's own trailer parser (``%(trailers:…)``), in the one `git
log` a question or the link step already runs; parsed by :mod:`hansard.agents.trailers.coauthors`.

A trailer is *recorded* evidence about a whole commit, never about a line: `why` shows it
beside a line's answer (``recorded: {"by": "trailer", "agent": …}``) and never makes a line an
agent's, nor names a session, on its strength alone. A ``Claude-Session:`` id ties its commit to
a session only when this machine has a session of that very id (the link step's rule
``trailer``, as strong as a session's own print of the commit); hansard never invents one."""

from __future__ import annotations

from hansard.agents.record import Recorder

RECORDER = Recorder(name="trailer", display="commit trailers", reader="hansard.agents.trailers.coauthors:parse")

# The keys asked of git's trailer parser (matched case-insensitively by git); the `git log`
# placeholder asking for them is hansard.git.history.AGENT_TRAILERS.
KEYS = ("Claude-Session", "Co-authored-by")
