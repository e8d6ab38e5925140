"""The team configuration of this member: ``$HANSARD_HOME/team/config.json`` (owner-only).

It holds the server's connection string *without* a password, the team's name, this member
(git identity and a machine id made once) and the repositories opted in. A password given in
the URL at ``team init`` moves to a libpq password file (``$HANSARD_HOME/team/pgpass``,
``0600``) that libpq reads through its ``passfile`` parameter; a ``PGPASSFILE``, ``~/.pgpass``
or a ``service=`` entry of the service file work unchanged, as for any libpq client. No file
here ever holds a password that another user could read.
"""

from __future__ import annotations

import os
from typing import Any

CONFIG_NAME = "config.json"


def team_dir() -> str:
    from hansard import config

    return os.path.join(os.path.dirname(config.store_path_str()), "team")


def config_path() -> str:
    return os.path.join(team_dir(), CONFIG_NAME)


def configured() -> bool:
    """Cheap: one stat, no import beyond os (on every `hansard why`)."""
    return os.path.exists(config_path())


def load() -> dict[str, Any]:
    import json

    from hansard.errors import TeamNotConfigured

    try:
        with open(config_path(), encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise TeamNotConfigured("no team is configured here: run `hansard team init URL --name NAME`") from None


def save(cfg: dict[str, Any]) -> None:
    import json

    os.makedirs(team_dir(), mode=0o700, exist_ok=True)
    _write_private(config_path(), json.dumps(cfg, indent=2) + "\n")


def _write_private(path: str, text: str) -> None:
    from hansard.privfile import write_private

    write_private(path, text.encode("utf-8"))


def split_password(url: str) -> tuple[str, str | None]:
    """(the URL without its password, the password or None). Key-value conninfo strings and
    service names pass through unchanged."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    if "://" not in url:
        return url, None
    parts = urlsplit(url)
    if parts.password is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = (parts.username or "") + "@" + host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), unquote(parts.password)


def pgpass_line(url: str, password: str) -> str:
    """One ``hostname:port:database:username:password`` line for ``url`` (libpq's format)."""
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace(":", "\\:")

    host = parts.hostname or "localhost"
    port = str(parts.port or 5432)
    db = unquote(parts.path.lstrip("/")) or "*"
    user = unquote(parts.username or "") or "*"
    return ":".join(esc(x) for x in (host, port, db, user)) + ":" + esc(password) + "\n"


def passfile() -> str:
    return os.path.join(team_dir(), "pgpass")


def store_password(url: str, password: str) -> str:
    """Add (or replace) the URL's line in the member's private password file; its path."""
    path = passfile()
    os.makedirs(team_dir(), mode=0o700, exist_ok=True)
    line = pgpass_line(url, password)
    key = line.rsplit(":", 1)[0]
    old = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            old = [ln for ln in fh if ln.rsplit(":", 1)[0] != key]
    _write_private(path, "".join(old) + line)
    return path


def connect_kwargs(cfg: dict[str, Any]) -> dict[str, Any]:
    """How to reach the server: conninfo, and our password file when one was written (an
    explicit PGPASSFILE wins, as libpq would have it)."""
    pf = passfile()
    use_pf = os.path.exists(pf) and not os.environ.get("PGPASSFILE")
    return {"conninfo": cfg["url"], "passfile": pf if use_pf else None,
            "timeout": float(os.environ.get("HANSARD_TEAM_TIMEOUT") or cfg.get("timeout") or 3.0)}


def offline_path() -> str:
    return os.path.join(team_dir(), "offline.db")
