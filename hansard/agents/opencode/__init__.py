"""OpenCode: its session store under ``<OPENCODE_DATA_DIR or $XDG_DATA_HOME/opencode>``, the
JSON files of ``storage/`` (up to 1.1, one source for the whole folder) and ``opencode.db``
(1.2 on), and a session's ``opencode export`` document, read by :mod:`hansard.agents.opencode.storage`."""

from __future__ import annotations

import os

from hansard.agents.record import Agent, user_home


def home() -> str:
    if os.environ.get("OPENCODE_DATA_DIR"):
        return os.path.expanduser(os.environ["OPENCODE_DATA_DIR"])
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(user_home(), ".local", "share")
    return os.path.join(data, "opencode")


AGENT = Agent(
    name="opencode",
    display="OpenCode",
    home=home,
    home_env=("OPENCODE_DATA_DIR",),
    transcript_dirs=("opencode.db",),
    readers=("hansard.agents.opencode.storage:PROVIDER", "hansard.agents.opencode.storage:PROVIDER_STORAGE",
             "hansard.agents.opencode.storage:PROVIDER_EXPORT"),
    aliases=("sst-opencode",),
    shell_tools=frozenset({"bash"}),
    edit_tools=frozenset({"edit", "write", "multiedit", "patch", "apply_patch"}),
    read_tools=frozenset({"read", "list"}),
    search_tools=frozenset({"grep", "glob"}),
    web_tools=frozenset({"webfetch"}),
    task_tools=frozenset({"task"}),
    plan_tools=frozenset({"todowrite"}),
    source_dirs=("storage",),
)
