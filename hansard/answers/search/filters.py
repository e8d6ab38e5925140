"""Filter arguments shared by search and transcript reads: roles, limits, repositories, tools.

Time bounds are read by :mod:`hansard.values.timebounds` (one meaning of since/until everywhere).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hansard import agents
from hansard.errors import InvalidArgument

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

ROLES = ("user", "assistant", "tool", "system")


def parse_roles(roles: str | Sequence[str] | None) -> tuple[str, ...] | None:
    """A list, or a comma-separated string. ``user`` means the person's own messages:
    role user, without the injected ``meta`` records (command output, caveats)."""
    if roles is None:
        return None
    items = roles.split(",") if isinstance(roles, str) else list(roles)
    out = tuple(dict.fromkeys(r.strip().lower() for r in items if r and r.strip()))
    if not out:
        return None
    bad = [r for r in out if r not in ROLES]
    if bad:
        raise InvalidArgument(f"unknown role(s) {', '.join(bad)}; use {', '.join(ROLES)}", argument="roles")
    return out


def clamp(value: int | None, default: int, lo: int, hi: int, name: str) -> int:
    if value is None:
        return default
    try:
        v = int(value)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name} must be a whole number, not {value!r}", argument=name) from None
    if v < lo:
        raise InvalidArgument(f"{name} must be at least {lo}", argument=name)
    return min(v, hi)


def resolve_repo(store: Store, repo: str | None) -> list[int] | None:
    """``repo`` -> the repository rows it names: a path inside a checkout (matched by path, then
    by root commit), a folder name, or part of the remote URL. [] when nothing matches.
    Never writes: a repository hansard has not seen simply has no sessions (registering one
    is the link stage's work)."""
    if repo is None or str(repo).strip() == "":
        return None
    r = str(repo).strip()
    p = os.path.abspath(os.path.expanduser(r))
    if os.path.exists(p):
        from hansard.git.identity import find_toplevel

        tops = find_toplevel(p if os.path.isdir(p) else os.path.dirname(p))
        if tops is not None:
            ids = store.sessions.repo_ids_at(list(dict.fromkeys(tops)))
            if not ids:
                try:
                    from hansard.git.identity import identify

                    ident = identify(tops[1])
                except Exception:  # git missing or broken: match by name below
                    ident = None
                if ident is not None and ident.root_commit:
                    ids = store.sessions.repo_ids_with_root(ident.root_commit)
            if ids:
                return sorted(set(ids))
    return sorted(set(store.sessions.repo_ids_named(r.rstrip("/"))))


def shell_tools() -> list[str]:
    """Every agent's shell tools, and the tools that read a running command's output (the
    `command` filter and the `shell` tool word find both)."""
    return list(agents.tools("shell") + agents.tools("shell_output"))


def tool_names(tool: str) -> list[str]:
    """What a `tool` filter word means: a tool role (``shell``/``bash``, ``edit``, ``read``,
    ``search``, ``web``, ``task``) is every agent's tools in that role (hansard.agents); any
    other word is a tool name."""
    t = tool.strip()
    word = t.lower()
    if word in ("shell", "bash"):
        return shell_tools()
    if word in ("edit", "read", "search", "web", "task"):
        return list(agents.tools(word))
    return [t]
