"""Claude Code: JSONL transcripts under ``<CLAUDE_CONFIG_DIR or ~/.claude>/projects``,
read by :mod:`hansard.agents.claude_code.transcript`."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, McpConfig, MemoryFile, env_home, user_home

home = env_home("CLAUDE_CONFIG_DIR", ".claude")


def _mcp_config() -> str:
    # User-scope MCP servers live in ~/.claude.json (inside CLAUDE_CONFIG_DIR when it is set).
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return os.path.join(home(), ".claude.json")
    return os.path.join(user_home(), ".claude.json")


AGENT = Agent(
    name="claude_code",
    display="Claude Code",
    home=home,
    home_env=("CLAUDE_CONFIG_DIR",),
    transcript_dirs=("projects",),
    readers=("hansard.agents.claude_code.transcript:PROVIDER",),
    aliases=("claude", "claude-code", "cc"),
    install_name="claude-code",
    mcp=McpConfig(_mcp_config, "json"),
    shell_tools=frozenset({"Bash", "PowerShell"}),
    shell_output_tools=frozenset({"BashOutput"}),
    edit_tools=frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"}),
    read_tools=frozenset({"Read", "NotebookRead"}),
    search_tools=frozenset({"Grep", "Glob"}),
    web_tools=frozenset({"WebFetch", "WebSearch"}),
    task_tools=frozenset({"Task", "Agent"}),
    plan_tools=frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"}),
    session_env=("CLAUDE_SESSION_ID", "CLAUDE_CODE_SESSION_ID"),
    memory_files=(
        MemoryFile("claude_md", home_globs=("CLAUDE.md",), project_names=("CLAUDE.md",),
                   project_paths=(".claude/CLAUDE.md",), aliases=("claude_md",)),
        MemoryFile("claude_rules", home_globs=("rules/*.md",), project_globs=(".claude/rules/*.md",),
                   aliases=("rules",)),
        MemoryFile("claude_local", project_names=("CLAUDE.local.md",)),
        MemoryFile("claude_auto_memory", session_folder_globs=("projects/*/memory/*.md",),
                   aliases=("auto_memory", "auto")),
    ),
)
