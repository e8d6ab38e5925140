"""Aider: the ``.aider.chat.history.md`` log it appends to at the top of the repository it works
in, read by :mod:`hansard.agents.aider.history`. Found in every repository hansard knows, and at
``AIDER_CHAT_HISTORY_FILE`` (aider's own variable for the log's path) when that is set."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, MemoryFile, user_home


def home() -> str:
    return os.path.join(user_home(), ".aider")  # caches and analytics; the logs live in repositories


def _history_file() -> list[str]:
    named = os.environ.get("AIDER_CHAT_HISTORY_FILE")
    return [os.path.expanduser(named)] if named and os.path.isabs(os.path.expanduser(named)) else []


AGENT = Agent(
    name="aider",
    display="Aider",
    home=home,
    home_env=("AIDER_CHAT_HISTORY_FILE",),
    transcript_dirs=(),
    readers=("hansard.agents.aider.history:PROVIDER",),
    aliases=("aider-chat",),
    # One synthetic call per file a reply changed, named after the edit: ``aider_edit``.
    edit_tools=frozenset({"aider_edit"}),
    memory_files=(MemoryFile("aider_conventions", project_paths=("CONVENTIONS.md",), aliases=("conventions",)),),
    other_roots=_history_file,
    repo_files=(".aider.chat.history.md",),
    commits_own_edits=True,
)
