"""Every agent hansard reads, for `hansard status`: where it looks (homes honouring their
environment variables), whether anything is there, and what the store holds of it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hansard.answers.results import AgentStatus
    from hansard.store.interfaces import Store


def agent_status(store: Store) -> list[AgentStatus]:
    """One dict per agent in registry order: name, display, homes, found, sessions, messages,
    edits (applied). ``found``: one of its homes exists, or (an agent that keeps its log in
    repositories) a known repository holds one, or (a web chat) an export was imported."""
    from hansard import agents
    from hansard.ingest.quickcheck import repo_transcripts

    counts = store.sessions.provider_counts()
    repo_paths = store.repos.paths()
    out: list[AgentStatus] = []
    for a in agents.agents():
        homes = a.homes()
        c = counts.get(a.name, {})
        found = any(os.path.exists(h) for h in homes)
        if not found and a.repo_files:
            found = any(os.path.basename(p) in a.repo_files for p in repo_transcripts(repo_paths))
        if not found and (a.web or a.repo_dirs):  # imported, or kept in a repository (SpecStory)
            found = bool(c.get("sessions"))
        out.append({"name": a.name, "display": a.display, "homes": homes, "found": found,
                    "sessions": c.get("sessions", 0), "messages": c.get("messages", 0), "edits": c.get("edits", 0)})
    return out
