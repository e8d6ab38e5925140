"""Cursor: the agent transcripts under ``<CURSOR_HOME or ~/.cursor>/projects`` and the editor's
``state.vscdb`` in its user folder (``CURSOR_CONFIG_DIR``, else the platform's ``Cursor/User``),
read by :mod:`hansard.agents.cursor.transcripts`."""

from __future__ import annotations

import os
import sys

from hansard.agents.record import Agent, McpConfig, MemoryFile, env_home, user_home

home = env_home("CURSOR_HOME", ".cursor")


def user_dir() -> str:
    """The editor's ``User`` folder (settings and ``globalStorage/state.vscdb``)."""
    if os.environ.get("CURSOR_CONFIG_DIR"):
        return os.path.expanduser(os.environ["CURSOR_CONFIG_DIR"])
    if sys.platform == "darwin":
        return os.path.join(user_home(), "Library", "Application Support", "Cursor", "User")
    if sys.platform == "win32":
        return os.path.join(os.environ.get("APPDATA") or user_home(), "Cursor", "User")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(user_home(), ".config")
    return os.path.join(config, "Cursor", "User")


def _editor_storage() -> list[str]:
    return [os.path.join(user_dir(), "globalStorage")]


AGENT = Agent(
    name="cursor",
    display="Cursor",
    home=home,
    home_env=("CURSOR_HOME", "CURSOR_CONFIG_DIR", "APPDATA"),
    transcript_dirs=("projects",),
    readers=("hansard.agents.cursor.transcripts:PROVIDER", "hansard.agents.cursor.transcripts:PROVIDER_VSCDB"),
    aliases=("cursor-agent", "cursor-cli"),
    install_name="cursor",
    # Cursor reads MCP servers from ~/.cursor/mcp.json, an ``mcpServers`` object.
    mcp=McpConfig(lambda: os.path.join(home(), "mcp.json"), "json"),
    shell_tools=frozenset({"Shell", "run_terminal_cmd", "run_terminal_command_v2"}),
    edit_tools=frozenset({"Write", "StrReplace", "MultiStrReplace", "Delete", "ApplyPatch", "MultiEdit", "Edit",
                          "edit_file", "edit_file_v2", "search_replace", "apply_patch", "write", "delete_file"}),
    read_tools=frozenset({"Read", "read_file", "LS", "list_dir"}),
    search_tools=frozenset({"Grep", "grep", "Glob", "codebase_search", "file_search", "glob_file_search"}),
    web_tools=frozenset({"web_search", "WebSearch", "WebFetch"}),
    task_tools=frozenset({"Task"}),
    plan_tools=frozenset({"TodoWrite", "UpdateTodos", "todo_write"}),
    memory_files=(
        MemoryFile("cursor_rules", project_globs=(".cursor/rules/*.mdc", ".cursor/rules/*.md"),
                   aliases=("cursor",)),
        MemoryFile("cursorrules", project_paths=(".cursorrules",)),
    ),
    other_roots=_editor_storage,
)
