"""Entire (entire.io): sessions kept in git, on the branch ``entire/checkpoints/v1`` (and its
remote-tracking copies) or one ref per checkpoint (``refs/entire/checkpoints/<id>``), read by
:mod:`hansard.agents.entire.checkpoints` and indexed by :mod:`hansard.ingest.git_sources`. Each
session's transcript is parsed by its own agent's reader (Claude Code, Codex, Gemini)."""

from __future__ import annotations

from hansard.agents.record import GitSource

# for-each-ref patterns (prefixes): the branch, its remote-tracking copies, the one-per-checkpoint
# refs (hansard.agents.entire.checkpoints.checkpoint_refs sorts them into stores).
SOURCE = GitSource(
    name="entire",
    display="Entire checkpoints",
    ref_patterns=("refs/heads/entire/checkpoints/", "refs/remotes/", "refs/entire/checkpoints/"),
    scan="hansard.ingest.git_sources:scan_entire",
)
