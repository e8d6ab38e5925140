"""OpenAI Codex CLI, IDE and Desktop: rollouts under ``<CODEX_HOME or ~/.codex>``,
read by :mod:`hansard.agents.codex.rollout`."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, McpConfig, MemoryFile, env_home

home = env_home("CODEX_HOME", ".codex")

AGENT = Agent(
    name="codex",
    display="Codex",
    home=home,
    transcript_dirs=("sessions", "archived_sessions"),
    readers=("hansard.agents.codex.rollout:PROVIDER",),
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
    memory_files=(
        # The override is listed first: where both exist, Codex reads the override.
        MemoryFile("agents_override", home_globs=("AGENTS.override.md",), project_names=("AGENTS.override.md",)),
        MemoryFile("agents_md", home_globs=("AGENTS.md",), project_names=("AGENTS.md",), aliases=("agents",)),
    ),
)
