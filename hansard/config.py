"""Where things live. Every location can be moved by an environment variable, so tests and
odd setups never touch the real home folders. Nothing here reads or writes files."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

STORE_NAME = "hansard.db"


def _home() -> Path:
    from pathlib import Path

    return Path(os.environ.get("HOME") or Path.home())


def hansard_home() -> Path:
    from pathlib import Path

    if v := os.environ.get("HANSARD_HOME"):
        return Path(v).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(_home() / ".local" / "share")
    return Path(xdg).expanduser() / "hansard"


def store_path_str() -> str:
    """The store's path without importing pathlib (the `why` start-up path)."""
    if v := os.environ.get("HANSARD_HOME"):
        return os.path.join(os.path.expanduser(v), STORE_NAME)
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    return os.path.join(os.path.expanduser(xdg), "hansard", STORE_NAME)


def store_path() -> Path:
    return hansard_home() / STORE_NAME


def claude_home() -> Path:
    from pathlib import Path

    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or _home() / ".claude").expanduser()


def codex_home() -> Path:
    from pathlib import Path

    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex").expanduser()


def gemini_home() -> Path:
    """Gemini keeps its data in ``<GEMINI_CLI_HOME or ~>/.gemini``."""
    from pathlib import Path

    base = os.environ.get("GEMINI_CLI_HOME")
    return (Path(base).expanduser() if base else _home()) / ".gemini"


def default_sources() -> list[tuple[str, Path]]:
    """(agent, folder) pairs scanned by a bare ``hansard index``."""
    return [
        ("claude_code", claude_home() / "projects"),
        ("codex", codex_home() / "sessions"),
        ("codex", codex_home() / "archived_sessions"),
        ("gemini", gemini_home() / "tmp"),
    ]


def default_source_dirs() -> list[str]:
    """The folders of ``default_sources`` as strings, for the start-up path (no pathlib)."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    claude = os.path.expanduser(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"))
    codex = os.path.expanduser(os.environ.get("CODEX_HOME") or os.path.join(home, ".codex"))
    gemini = os.path.join(os.path.expanduser(os.environ.get("GEMINI_CLI_HOME") or home), ".gemini")
    return [os.path.join(claude, "projects"), os.path.join(codex, "sessions"), os.path.join(codex, "archived_sessions"),
            os.path.join(gemini, "tmp")]
