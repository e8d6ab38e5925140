"""The team configuration of this member: ``$HANSARD_HOME/team/config.json`` (owner-only).

It holds the server's connection string *without* a password, the team's name, this member
(the email the database owner registered for its role, and a machine id made once), the
connect timeout, and the repositories opted in. A password given in the connection string at
``team join`` or ``team init`` (a URL's user part, ``?password=``, or a key=value
``password=``) moves to a libpq password file (``$HANSARD_HOME/team/pgpass``, ``0600``) that
libpq reads through its ``passfile`` parameter; a ``PGPASSFILE``, ``~/.pgpass`` or a
``service=`` entry of the service file work unchanged, as for any libpq client. No file here
ever holds a password that another user could read, and both files are written only once the
server has accepted the connection.
"""

from __future__ import annotations

import os
from typing import Any

CONFIG_NAME = "config.json"

# Seconds to connect (libpq's connect_timeout); with the 30 s statement timeout, the most a
# command waits on a server that stops answering: about 33 s (see docs/team.md).
TIMEOUT = 3.0


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
    from hansard.files.privfile import write_private

    write_private(path, text.encode("utf-8"))


def _params(dsn: str) -> dict[str, str]:
    """libpq's own reading of a connection string (URL or key=value); ``InvalidArgument`` when
    it is not one."""
    from psycopg import conninfo

    from hansard.errors import InvalidArgument

    try:
        return conninfo.conninfo_to_dict(dsn)  # type: ignore[return-value]
    except Exception as exc:  # psycopg.ProgrammingError: libpq could not parse it
        raise InvalidArgument(f"not a PostgreSQL connection string: {str(exc).splitlines()[0] if str(exc) else exc}"
                              ) from None


def split_password(url: str) -> tuple[str, str | None]:
    """(the connection string without its password, the password or None). A URL keeps its
    form when the password is in its user part; any other place a password can be (a
    ``password=`` of a key=value string, a URL's ``?password=``) is read as libpq reads it and
    the string comes back as key=value without it."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    query = url.split("?", 1)[1] if "?" in url else ""
    if "://" in url and "password=" not in query:
        parts = urlsplit(url)
        if parts.password is None:
            return url, None
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = (parts.username or "") + "@" + host + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), unquote(parts.password)
    params = _params(url)
    password = params.pop("password", None)
    if password is None:
        return url, None
    from psycopg import conninfo

    return conninfo.make_conninfo(**params), password


def shown(url: str) -> str:
    """The connection string as printed: never with a password (a config written by an older
    hansard may still hold one)."""
    try:
        return split_password(url)[0]
    except Exception:  # unparseable: print nothing of it that could be a secret
        return "(a connection string hansard cannot read)"


def with_password(url: str, password: str) -> str:
    """``url`` (without a password) with ``password``, as libpq reads it: for connecting once
    before anything is written down."""
    from psycopg import conninfo

    return conninfo.make_conninfo(url, password=password)


def pgpass_lines(url: str, password: str) -> list[str]:
    """The ``hostname:port:database:username:password`` lines for ``url`` (libpq's format), as
    libpq looks them up. Over TCP the host is the host. A Unix socket's folder
    (``host=/var/run/postgresql``, ``postgresql:///db?host=...``) is looked up as that path,
    but as ``localhost`` when it is the folder libpq was built to use by default, which this
    process cannot ask libpq for: so a socket gets both lines (only a connection to this
    server's socket folder ever reads the file, through ``passfile``). No host at all is
    libpq's default socket: ``localhost``."""
    import getpass

    p = _params(url)

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace(":", "\\:")

    host = (p.get("host") or "localhost").split(",")[0]
    hosts = [host, "localhost"] if host.startswith("/") else [host]
    port = (p.get("port") or "5432").split(",")[0]
    user = p.get("user") or ""
    db = p.get("dbname") or user or "*"
    if not user:
        try:
            user = getpass.getuser()
        except Exception:
            user = "*"
    return [":".join(esc(x) for x in (h, port, db, user)) + ":" + esc(password) + "\n" for h in hosts]


def passfile() -> str:
    return os.path.join(team_dir(), "pgpass")


def store_password(url: str, password: str) -> str:
    """Add (or replace) the URL's line in the member's private password file; its path."""
    path = passfile()
    os.makedirs(team_dir(), mode=0o700, exist_ok=True)
    lines = pgpass_lines(url, password)
    keys = {_key(ln) for ln in lines}
    old = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            old = [ln for ln in fh if _key(ln) not in keys]
    _write_private(path, "".join(old + lines))
    return path


def _key(line: str) -> tuple[str, ...]:
    """A password file line's host, port, database and user (libpq's ``\\:`` and ``\\\\``
    escapes read): what its password is for."""
    fields: list[str] = []
    cur: list[str] = []
    i = 0
    text = line.rstrip("\n")
    while i < len(text) and len(fields) < 4:
        if text[i] == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if text[i] == ":":
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(text[i])
        i += 1
    return tuple(fields)


def connect_kwargs(cfg: dict[str, Any]) -> dict[str, Any]:
    """How to reach the server: conninfo, and our password file when one was written (an
    explicit PGPASSFILE wins, as libpq would have it)."""
    pf = passfile()
    use_pf = os.path.exists(pf) and not os.environ.get("PGPASSFILE")
    return {"conninfo": cfg["url"], "passfile": pf if use_pf else None,
            "timeout": float(os.environ.get("HANSARD_TEAM_TIMEOUT") or cfg.get("timeout") or TIMEOUT)}

