"""Teams and members as PostgreSQL roles: what the database owner runs (`hansard team init`,
`hansard team add-member`) and what a member asks about itself (`whoami`).

A team is a NOLOGIN group role recorded in ``teams``; a member is a LOGIN role granted that
group and recorded in ``team_members`` with its email. The group holds the table privileges;
row-level security (migration ``t005_members_are_roles``) decides which rows a member reads
(its own and its teammates') and writes (its own). A member's password never reaches the
server in clear: the role is created with a SCRAM-SHA-256 verifier made here.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import Any

from hansard.errors import InvalidArgument, TeamForbidden
from hansard.store.postgres.migrations import MEMBER_TABLES, SEARCH_FUNCTIONS

# Tables a member reads but never writes.
_READ_ONLY = ("hansard_migrations", "teams", "team_members")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


def group_role(team: str) -> str:
    return ("hansard_team_" + slug(team))[:63]


def member_role(team: str, email: str) -> str:
    return (slug(team)[:24] + "_" + slug(email.split("@", 1)[0]))[:63]


def scram_verifier(password: str, *, iterations: int = 4096) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for ``password`` (RFC 5802/7677), so the
    statement that creates the role, and any log of it, holds no password."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
    stored_key = hashlib.sha256(client_key).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()

    def b64(b: bytes) -> str:
        return base64.b64encode(b).decode("ascii")

    return f"SCRAM-SHA-256${iterations}:{b64(salt)}${b64(stored_key)}:{b64(server_key)}"


def _sql() -> Any:
    from psycopg import sql

    return sql


def create_team(store: Any, team: str) -> str:
    """The team's group role (made when missing), recorded, with the table privileges; again
    for every recorded team, so tables a later migration added are granted too. Its name."""
    sql = _sql()
    grp = group_role(team)
    with store.connection() as conn, conn.transaction():
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname=%s", (grp,)).fetchall():
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(grp)))
        conn.execute("INSERT INTO teams(name, grp) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING", (team, grp))
        schema = conn.execute("SELECT current_schema() AS s").fetchall()[0]["s"]
        for (g,) in [(r["grp"],) for r in conn.execute("SELECT grp FROM teams")]:
            who = sql.Identifier(g)
            conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), who))
            conn.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier(t) for t in MEMBER_TABLES), who))
            conn.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(
                sql.SQL(", ").join(sql.Identifier(t) for t in _READ_ONLY), who))
            conn.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(sql.Identifier(schema), who))
            # The searches run with the owner's rights (t006): a team's members only, never PUBLIC.
            conn.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(
                sql.SQL(", ").join(sql.SQL(f) for f in SEARCH_FUNCTIONS), who))
    return grp


def add_member(store: Any, team: str, email: str, role: str | None = None) -> dict[str, Any]:
    """A login role for ``email`` in ``team`` with a new random password (the role again, with
    a new password, when this email already has it here: lost credentials). Returns role and
    password: the only time the password exists outside the member's machine."""
    sql = _sql()
    if "@" not in email or any(c.isspace() for c in email):
        raise InvalidArgument(f"not an email address: {email!r}")
    role = role or member_role(team, email)
    grp = group_role(team)
    password = secrets.token_urlsafe(24)
    with store.connection() as conn, conn.transaction():
        if not conn.execute("SELECT 1 FROM teams WHERE name=%s", (team,)).fetchall():
            raise InvalidArgument(f"no team named {team!r} in this database: run `hansard team init URL --name {team}`")
        mine = conn.execute("SELECT email FROM team_members WHERE role=%s", (role,)).fetchall()
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname=%s", (role,)).fetchall()
        if mine and mine[0]["email"] != email:
            raise InvalidArgument(f"role {role} is already {mine[0]['email']}'s: pass --role NAME")
        if exists and not mine and not conn.execute(
                "SELECT pg_has_role(%s, %s, 'MEMBER') AS m", (role, grp)).fetchall()[0]["m"]:
            raise InvalidArgument(f"a role named {role} exists and is not this team's: pass --role NAME")
        verifier = sql.Literal(scram_verifier(password))
        if exists:
            conn.execute(sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), verifier))
        else:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), verifier))
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(grp), sql.Identifier(role)))
        conn.execute("INSERT INTO team_members(role, team, email) VALUES (%s, %s, %s)"
                     " ON CONFLICT (role) DO UPDATE SET team=EXCLUDED.team", (role, team, email))
    return {"role": role, "password": password, "team": team, "email": email, "rotated": bool(exists)}


def whoami(store: Any) -> dict[str, Any]:
    """This connection's role and, when it is a member, its team and registered email."""
    rows = store.run("SELECT current_user AS role, m.team, m.email FROM (SELECT 1) one"
                     " LEFT JOIN team_members m ON m.role = current_user")
    return dict(rows[0])


def require_member(store: Any, email: str) -> dict[str, Any]:
    """This connection's registration; ``TeamForbidden`` when the role is not a member, or is
    registered with another email than ``email`` (the server would refuse the rows anyway)."""
    me = whoami(store)
    if me["team"] is None:
        raise TeamForbidden(f"role {me['role']} is not a member of any team here: the database owner runs"
                            " `hansard team add-member EMAIL` and the member `hansard team join DSN`")
    if me["email"] != email:
        raise TeamForbidden(f"role {me['role']} is registered as {me['email']}, not {email}: a member pushes"
                            " only as itself")
    return me


class TeamRoles:
    """The facet of a ``PostgresTeamStore`` for teams and members (``server.roles``)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def create_team(self, team: str) -> str:
        return create_team(self.store, team)

    def add_member(self, team: str, email: str, role: str | None = None) -> dict[str, Any]:
        return add_member(self.store, team, email, role)

    def whoami(self) -> dict[str, Any]:
        return whoami(self.store)

    def require_member(self, email: str) -> dict[str, Any]:
        return require_member(self.store, email)
