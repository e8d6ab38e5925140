"""claude.ai's data export (``conversations.json``, or the zip holding it), imported by
``hansard import``."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, user_home

AGENT = Agent(
    name="claude_web",
    display="claude.ai",
    home=lambda: os.path.join(user_home(), "Downloads"),  # where an export usually arrives; never scanned
    transcript_dirs=(),
    readers=("hansard.agents.webchat.exports:PROVIDER_CLAUDE_WEB",),
    aliases=("claude.ai", "claude-web", "claude-ai"),
    web=True,
)
