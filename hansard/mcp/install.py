"""`hansard mcp install AGENT [--write]`: the configuration that starts hansard's MCP server
from Claude Code, Codex CLI or Gemini CLI, printed, or added to the agent's own config file.

Writing is idempotent (an identical entry is left alone) and takes a backup of the file first.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from hansard import config
from hansard.errors import InvalidArgument

AGENTS = ("claude-code", "codex", "gemini")


def server_command() -> tuple[str, list[str]]:
    exe = shutil.which("hansard")
    if exe:
        return exe, ["mcp", "serve"]
    return sys.executable, ["-m", "hansard", "mcp", "serve"]


def config_file(agent: str) -> Path:
    if agent == "claude-code":
        # User-scope MCP servers live in ~/.claude.json (inside CLAUDE_CONFIG_DIR when it is set).
        if os.environ.get("CLAUDE_CONFIG_DIR"):
            return config.claude_home() / ".claude.json"
        return Path(os.environ.get("HOME") or Path.home()) / ".claude.json"
    if agent == "codex":
        return config.codex_home() / "config.toml"
    if agent == "gemini":
        return config.gemini_home() / "settings.json"
    raise InvalidArgument(f"agent must be one of {', '.join(AGENTS)}")


def snippet(agent: str) -> str:
    cmd, args = server_command()
    if agent == "codex":
        return f'[mcp_servers.hansard]\ncommand = {json.dumps(cmd)}\nargs = {json.dumps(args)}\n'
    if agent in ("claude-code", "gemini"):
        return json.dumps({"mcpServers": {"hansard": {"command": cmd, "args": args}}}, indent=2) + "\n"
    raise InvalidArgument(f"agent must be one of {', '.join(AGENTS)}")


def install(agent: str, write: bool) -> dict[str, Any]:
    path = config_file(agent)
    text = snippet(agent)
    if not write:
        return {"agent": agent, "config_file": str(path), "snippet": text, "written": False}
    cmd, args = server_command()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if agent == "codex":
        new = _merge_toml(old, text)
    else:
        new = _merge_json(old, {"command": cmd, "args": args})
    if new == old:
        return {"agent": agent, "config_file": str(path), "snippet": text, "written": False, "already_installed": True}
    backup = None
    if old is not None:
        backup = f"{path}.hansard-backup-{time.strftime('%Y%m%d%H%M%S')}"
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".hansard-tmp")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, path)
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
