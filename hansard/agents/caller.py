"""The conversation a hansard process runs inside, found the way each agent exposes it.

In order: ``HANSARD_SESSION_ID`` (set by hand or by an `mcp install` configuration), then each
agent's ``session_env`` variables (the ids agents hand to the commands they run), then the
transcript files held open by the processes above this one, read through each agent's
``session_file`` (Codex keeps its rollout open for the whole session and starts its MCP
servers without any session variable). Linux only for the last step (``/proc``); elsewhere it
finds nothing. Never raises: an unknown caller is None.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

MAX_ANCESTORS = 6


def caller_session(environ: Mapping[str, str] | None = None, pid: int | None = None) -> str | None:
    """The calling session's id, or None. ``pid``: the first process whose open files are
    read (default: this process's parent; never this process, whose own reads of transcripts
    say nothing about who called it)."""
    from hansard import agents

    env = os.environ if environ is None else environ
    if env.get("HANSARD_SESSION_ID"):
        return env["HANSARD_SESSION_ID"]
    records = agents.agents()
    for a in records:
        for var in a.session_env:
            if env.get(var):
                return env[var]
    readers = [a.session_file for a in records if a.session_file]
    if not readers:
        return None
    for p in _ancestors(os.getppid() if pid is None else pid):
        for path in _open_files(p):
            for read in readers:
                sid = read(path)
                if sid:
                    return sid
    return None


def _ancestors(pid: int) -> list[int]:
    out: list[int] = []
    while pid > 1 and len(out) < MAX_ANCESTORS:
        out.append(pid)
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
            pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state letter
        except (OSError, ValueError, IndexError):
            break
    return out


def _open_files(pid: int) -> list[str]:
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for n in names:
        try:
            target = os.readlink(os.path.join(folder, n))
        except OSError:
            continue
        if target.startswith("/"):
            out.append(target)
    return out
