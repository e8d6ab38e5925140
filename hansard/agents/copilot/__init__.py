"""GitHub Copilot CLI: session event logs under ``<COPILOT_HOME or ~/.copilot>/session-state``,
read by :mod:`hansard.agents.copilot.events`."""

from __future__ import annotations

from hansard.agents.record import Agent, MemoryFile, env_home

home = env_home("COPILOT_HOME", ".copilot")

AGENT = Agent(
    name="copilot",
    display="Copilot CLI",
    home=home,
    home_env=("COPILOT_HOME",),
    transcript_dirs=("session-state",),
    readers=("hansard.agents.copilot.events:PROVIDER",),
    aliases=("copilot-cli", "github-copilot", "gh-copilot"),
    shell_tools=frozenset({"bash", "powershell", "shell"}),
    edit_tools=frozenset({"edit", "create", "apply_patch", "str_replace_editor", "write"}),
    read_tools=frozenset({"view", "read"}),
    search_tools=frozenset({"grep", "glob"}),
    task_tools=frozenset({"task"}),
    plan_tools=frozenset({"update_todo", "todo_write"}),
    memory_files=(
        MemoryFile("copilot_instructions", home_globs=("copilot-instructions.md",),
                   project_paths=(".github/copilot-instructions.md",),
                   project_globs=(".github/instructions/*.instructions.md",), aliases=("copilot",)),
    ),
)
