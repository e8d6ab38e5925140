"""Gemini CLI: chats under ``<GEMINI_CLI_HOME or ~>/.gemini/tmp``, read by
:mod:`hansard.agents.gemini.chats` (JSONL logs and the legacy whole-file JSON)."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, McpConfig, MemoryFile, user_home


def home() -> str:
    base = os.environ.get("GEMINI_CLI_HOME")
    return os.path.join(os.path.expanduser(base) if base else user_home(), ".gemini")


def project_key(root: str) -> str:
    """Gemini hashes the project root as it saw it: sha256 of the path."""
    import hashlib

    return hashlib.sha256(root.encode()).hexdigest()


AGENT = Agent(
    name="gemini",
    display="Gemini CLI",
    home=home,
    home_env=("GEMINI_CLI_HOME",),
    transcript_dirs=("tmp",),
    readers=("hansard.agents.gemini.chats:PROVIDER", "hansard.agents.gemini.chats:PROVIDER_JSON"),
    aliases=("gemini-cli", "gemini_cli"),
    install_name="gemini",
    mcp=McpConfig(lambda: os.path.join(home(), "settings.json"), "json"),
    shell_tools=frozenset({"run_shell_command", "shell"}),
    edit_tools=frozenset({"replace", "edit", "smart_edit", "write_file"}),
    read_tools=frozenset({"read_file", "read_many_files"}),
    search_tools=frozenset({"search_file_content", "glob"}),
    web_tools=frozenset({"web_fetch", "google_web_search"}),
    plan_tools=frozenset({"write_todos"}),
    session_env=("GEMINI_SESSION_ID",),
    memory_files=(MemoryFile("gemini_md", home_globs=("GEMINI.md",), project_names=("GEMINI.md",)),),
    project_key=project_key,
    project_key_field="projectHash",
)
