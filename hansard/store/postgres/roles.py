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
    """Lower-case letters and digits, runs of anything else one ``_``, none at either end: never
    two underscores in a row."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "x"


# Group and member roles cannot share a name, by construction: a new team's group role holds
# "__" (GROUP_MARK), which no member role does (a default one joins two slugs with one "_", and
# add_member refuses a --role with "__"). Groups made before this naming are read from `teams`.
GROUP_MARK = "__"


def group_role(team: str) -> str:
    """The group role a new team gets."""
    return ("hansard_team" + GROUP_MARK + slug(team))[:63]


def member_role(team: str, email: str) -> str:
    return (slug(team)[:24].rstrip("_") + "_" + slug(email.split("@", 1)[0]))[:63]


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


def _recorded_group(conn: Any, team: str) -> str | None:
    rows = conn.execute("SELECT grp FROM teams WHERE name=%s", (team,)).fetchall()
    return str(rows[0]["grp"]) if rows else None


def _group_note(conn: Any) -> str:
    """The comment a group role hansard makes carries: which database's team it is."""
    return "hansard team group role of database " + str(conn.execute("SELECT current_database() AS d").fetchall()[0]["d"])


def create_team(store: Any, team: str) -> str:
    """The team's group role, recorded, with the table privileges; again for every recorded
    team, so tables a later migration added are granted too. Its name.

    A new team's group is made here: NOLOGIN, with a comment naming this database
    (``_group_note``). A role of that name that exists already is taken only when it is such a
    group (this database's tables dropped and made again); any other (a member's login role,
    another database's team, anyone's role) is refused, never adopted: whoever holds it would
    read the team's rows. A recorded team keeps its group, which must still be NOLOGIN."""
    sql = _sql()
    with store.connection() as conn, conn.transaction():
        grp = _recorded_group(conn, team)
        new = grp is None
        if grp is None:
            grp = group_role(team)
            other = conn.execute("SELECT name FROM teams WHERE grp=%s", (grp,)).fetchall()
            if other:
                raise InvalidArgument(f"group role {grp} is team {other[0]['name']!r}'s here: pick another --name")
        note = _group_note(conn)
        role = conn.execute("SELECT rolcanlogin, shobj_description(oid, 'pg_authid') AS note FROM pg_roles"
                            " WHERE rolname=%s", (grp,)).fetchall()
        if not role:
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(grp)))
            conn.execute(sql.SQL("COMMENT ON ROLE {} IS {}").format(sql.Identifier(grp), sql.Literal(note)))
        elif role[0]["rolcanlogin"]:
            raise InvalidArgument(f"a role named {grp} exists and can log in: a team's group role is NOLOGIN, and"
                                  " whoever logs in as it would read the team's rows" + (
                                      "; pick another --name" if new else f" (ALTER ROLE {grp} NOLOGIN)"))
        elif new and role[0]["note"] != note:
            raise InvalidArgument(f"a role named {grp} exists and is not a group hansard made for this database:"
                                  " it is not adopted (whoever holds it would read the team's rows); pick another --name")
        if new:
            conn.execute("INSERT INTO teams(name, grp) VALUES (%s, %s)", (team, grp))
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
    if role is not None and GROUP_MARK in role:
        raise InvalidArgument(f"a member's role name holds no {GROUP_MARK!r} (team group roles do): {role!r}")
    role = role or member_role(team, email)
    password = secrets.token_urlsafe(24)
    with store.connection() as conn, conn.transaction():
        grp = _recorded_group(conn, team)
        if grp is None:
            raise InvalidArgument(f"no team named {team!r} in this database: run `hansard team init URL --name {team}`")
        if conn.execute("SELECT 1 FROM teams WHERE grp=%s", (role,)).fetchall():
            raise InvalidArgument(f"{role} is a team's group role, not a name for a member: pass --role NAME")
        mine = conn.execute("SELECT email, team FROM team_members WHERE role=%s", (role,)).fetchall()
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname=%s", (role,)).fetchall()
        if mine and mine[0]["email"] != email:
            raise InvalidArgument(f"role {role} is already {mine[0]['email']}'s: pass --role NAME")
        if mine and mine[0]["team"] != team:
            raise InvalidArgument(f"role {role} is a member of team {mine[0]['team']!r}: a role is a member of one team;"
                                  " pass --role NAME")
        if exists and not mine and not conn.execute(
                "SELECT 1 FROM pg_auth_members am JOIN pg_roles g ON g.oid = am.roleid JOIN pg_roles r ON r.oid = am.member"
                " WHERE g.rolname = %s AND r.rolname = %s AND NOT r.rolsuper AND NOT r.rolcreaterole"
                " AND r.rolname <> current_user", (grp, role)).fetchall():
            # Neither registered nor a plain login role granted this team's group (as a member is
            # when the tables were made again): the owner's own role, a group, anyone's. Taking
            # it would reset its password and hand it the team's rows.
            raise InvalidArgument(f"a role named {role} exists and is not a member of this team: pass --role NAME")
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
