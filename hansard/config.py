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


