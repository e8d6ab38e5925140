"""`hansard mcp install AGENT [--write]`: the configuration that starts hansard's MCP server
from a coding agent, printed, or added to the agent's own config file (where and in which
format is the agent's record in hansard.agents).

Writing is idempotent (an identical entry is left alone) and takes a backup of the file first.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import time
from pathlib import Path
from typing import Any

from hansard import agents
from hansard.agents.record import McpConfig
from hansard.errors import InvalidArgument
from hansard.files.privfile import write_file, write_private


def server_command() -> tuple[str, list[str]]:
    exe = shutil.which("hansard")
    if exe:
        return exe, ["mcp", "serve"]
    return sys.executable, ["-m", "hansard", "mcp", "serve"]


def _mcp(agent: str) -> McpConfig:
    a = agents.by_install_name(agent)
    if a is None or a.mcp is None:
        raise InvalidArgument(f"agent must be one of {', '.join(agents.install_names())}")
    return a.mcp


def config_file(agent: str) -> Path:
    return Path(_mcp(agent).path())


def snippet(agent: str) -> str:
    fmt = _mcp(agent).format
    cmd, args = server_command()
    if fmt == "toml":
        return f'[mcp_servers.hansard]\ncommand = {json.dumps(cmd)}\nargs = {json.dumps(args)}\n'
    return json.dumps({"mcpServers": {"hansard": {"command": cmd, "args": args}}}, indent=2) + "\n"


def install(agent: str, write: bool) -> dict[str, Any]:
    path = config_file(agent)
    text = snippet(agent)
    if not write:
        return {"agent": agent, "config_file": str(path), "snippet": text, "written": False}
    cmd, args = server_command()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if _mcp(agent).format == "toml":
        new = _merge_toml(old, text)
    else:
        new = _merge_json(old, {"command": cmd, "args": args})
    if new == old:
        return {"agent": agent, "config_file": str(path), "snippet": text, "written": False, "already_installed": True}
    # The agent's folder may hold names hansard did not put there: the backup and the new
    # file are written fresh (hansard.files.privfile), never through a link; the backup owner-only,
    # the file with the mode it had.
    backup = None
    mode = 0o600
    if old is not None:
        backup = f"{path}.hansard-backup-{time.strftime('%Y%m%d%H%M%S')}"
        write_private(backup, old.encode("utf-8"))
        mode = stat.S_IMODE(os.stat(path).st_mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, new.encode("utf-8"), mode)
    return {"agent": agent, "config_file": str(path), "snippet": text, "written": True, "backup": backup}


def _merge_json(old: str | None, entry: dict[str, Any]) -> str:
    data = json.loads(old) if old and old.strip() else {}
    if not isinstance(data, dict):
        raise InvalidArgument("the agent's config file is not a JSON object; not touching it")
    servers = data.setdefault("mcpServers", {})
    if servers.get("hansard") == entry:
        return old or ""
    servers["hansard"] = entry
    return json.dumps(data, indent=2) + "\n"


def _merge_toml(old: str | None, section: str) -> str:
    import tomllib

    current = tomllib.loads(old) if old else {}
    want = tomllib.loads(section)["mcp_servers"]["hansard"]
    have = current.get("mcp_servers", {}).get("hansard")
    if have == want:
        return old or ""
    if have is not None:
        raise InvalidArgument("config.toml already has a different [mcp_servers.hansard]; edit it by hand")
    sep = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    return (old or "") + sep + section
