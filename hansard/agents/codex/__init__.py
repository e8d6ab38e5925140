"""OpenAI Codex CLI, IDE and Desktop: rollouts under ``<CODEX_HOME or ~/.codex>``,
read by :mod:`hansard.agents.codex.rollout`; those Codex compressed (``.jsonl.zst``) by
:mod:`hansard.agents.codex.archived`."""

from __future__ import annotations

import os
import re

from hansard.agents.record import Agent, McpConfig, MemoryFile, env_home

home = env_home("CODEX_HOME", ".codex")
_ROLLOUT = re.compile(r"rollout-[^/]*?-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def rollout_session(path: str) -> str | None:
    """The session id in a rollout's file name (``rollout-<time>-<id>.jsonl``, the id its
    ``session_meta`` records), when the file lies under the Codex home."""
    m = _ROLLOUT.search(path)
    if m is None or not path.startswith(os.path.realpath(home()) + os.sep):
        return None
    return m.group(1)


AGENT = Agent(
    name="codex",
    display="Codex",
    home=home,
    home_env=("CODEX_HOME",),
    transcript_dirs=("sessions", "archived_sessions"),
    # Plain rollouts first (the reader asked for by name); then the ones Codex compressed.
    readers=("hansard.agents.codex.rollout:PROVIDER", "hansard.agents.codex.archived:PROVIDER"),
    aliases=("openai",),
    install_name="codex",
    mcp=McpConfig(lambda: os.path.join(home(), "config.toml"), "toml"),
    # Every name a command-running call has carried: ``local_shell`` is how the parser names a
    # ``local_shell_call`` item; the item type itself is kept for older stores.
    shell_tools=frozenset({"shell", "shell_command", "exec_command", "local_shell", "local_shell_call",
                           "container.exec", "unified_exec"}),
    edit_tools=frozenset({"apply_patch", "applypatch"}),
    web_tools=frozenset({"web_search"}),
    plan_tools=frozenset({"update_plan"}),
    # CODEX_THREAD_ID: set for the commands Codex runs (not, today, for the MCP servers it
    # starts: those find the session from the rollout file Codex holds open).
    session_env=("CODEX_THREAD_ID", "CODEX_SESSION_ID"),
    session_file=rollout_session,
    memory_files=(
        # The override is listed first: where both exist, Codex reads the override.
        MemoryFile("agents_override", home_globs=("AGENTS.override.md",), project_names=("AGENTS.override.md",)),
        MemoryFile("agents_md", home_globs=("AGENTS.md",), project_names=("AGENTS.md",), aliases=("agents",)),
    ),
)
