"""SpecStory (specstory.com): the Markdown histories its editor extension and CLI write of a
Cursor, Claude Code, Codex or Gemini session, one file per session, and that people commit
under ``.specstory/history/`` in their repository. Read by :mod:`.history` from every
repository hansard knows (and from a folder given to `hansard index`), as sessions of provider
``specstory``.

A history is a copy of a session another agent ran, often on another machine, and this
machine may hold the same session under that agent. So its sessions stay out of search and
session lists unless asked for (``--provider specstory``, ``--include-web-chats``), as web
chats do, and its tool-use blocks are tool calls only: it makes no edit, prints no commit and
runs no shell command that `why` would count as evidence (a copy cannot say an edit was
applied)."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, user_home

HISTORY_DIR = ".specstory/history"


def home() -> str:
    return os.path.join(user_home(), ".specstory")  # the CLI's settings; histories live in repositories


AGENT = Agent(
    name="specstory",
    display="SpecStory",
    home=home,
    transcript_dirs=(),
    readers=("hansard.agents.specstory.history:PROVIDER",),
    repo_dirs=(HISTORY_DIR,),
    searched=False,
)
