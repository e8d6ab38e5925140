"""``PostgresTeamStore``: the team's shared store on a PostgreSQL server, through psycopg 3 (one
connection, or a psycopg_pool pool for a long-lived process). It is the exchange, not a store
questions read: a push writes a member's sessions, a pull reads the team's (what the member's
role may read, row-level security deciding) into each member's local store.

Every failure to reach the server, or a statement past its deadline, is raised as
``TeamUnreachable`` (retryable); a server migrated by a newer hansard is refused with
``StoreTooNew``. A push writes sessions in batches, one transaction each, so a push that
fails half-way leaves whole sessions or none, and pushing again finishes it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

from hansard.errors import StoreTooNew, TeamForbidden, TeamUnreachable
from hansard.store.postgres.migrations import MIGRATIONS

# Any key works as long as every hansard uses the same one: migrations run one at a time.
_MIGRATE_LOCK = 0x68616E73


def _unreachable(exc: BaseException) -> TeamUnreachable:
    text = str(exc).strip()
    return TeamUnreachable(f"the team server cannot be reached: {text.splitlines()[0] if text else type(exc).__name__}")


def _forbidden(exc: BaseException) -> TeamForbidden:
    text = str(exc).strip()
    return TeamForbidden("the team server refused it: " + (text.splitlines()[0] if text else type(exc).__name__))


class _Watchdog:
    """Shuts the connection's socket down once ``seconds`` pass without a ``kick``: a statement
    waiting on it then fails at once (the server-side statement timeout cannot help when the
    server itself does not run). A block of many statements kicks before each, so the bound
    is per statement: a server that stops answering is given up on ``seconds`` after its last
    answer, however long the block."""

    def __init__(self, conn: Any, seconds: float) -> None:
        import threading

        self.conn, self.seconds = conn, seconds
        self.timer: threading.Timer | None = None
        self.kick()

    def _sever(self) -> None:
        import socket

        with contextlib.suppress(OSError, ValueError):
            s = socket.socket(fileno=os.dup(self.conn.pgconn.socket))
            try:
                s.shutdown(socket.SHUT_RDWR)
            finally:
                s.close()

    def kick(self) -> None:
        import threading

        self.cancel()
        self.timer = threading.Timer(self.seconds, self._sever)
        self.timer.daemon = True
        self.timer.start()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


@contextlib.contextmanager
def _watchdog(conn: Any, seconds: float) -> Iterator[_Watchdog]:
    dog = _Watchdog(conn, seconds)
    try:
        yield dog
    finally:
        dog.cancel()


class PostgresTeamStore:
    """The team server over one connection (a command: one push or one pull), or, with
    ``pooled``, a psycopg_pool pool. Connections are in autocommit: a reader's query is one
    round trip (no BEGIN, no ROLLBACK on return to the pool); writers open their transactions
    explicitly. ``me`` (email, machine) is the member-machine whose own rows a pull leaves out."""

    def __init__(self, conninfo: str, *, me: tuple[str, str], timeout: float = 5.0, statement_timeout_ms: int = 30000,
                 passfile: str | None = None, max_size: int = 4, pooled: bool = False) -> None:
        import logging

        import psycopg
        from psycopg.rows import dict_row

        # The pool logs each failed attempt; the caller gets TeamUnreachable instead, and a CLI
        # with no logging set up would otherwise print them all.
        logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

        self.me = me
        self._psycopg = psycopg
        kwargs: dict[str, Any] = {"connect_timeout": max(1, int(round(timeout))), "row_factory": dict_row,
                                  "options": f"-c statement_timeout={int(statement_timeout_ms)}",
                                  "application_name": "hansard", "autocommit": True}
        if passfile:
            kwargs["passfile"] = passfile
        self.pool: Any = None
        self.conn: Any = None
        try:
            if pooled:
                from psycopg_pool import ConnectionPool

                self.pool = ConnectionPool(conninfo, min_size=1, max_size=max_size, kwargs=kwargs, timeout=timeout,
                                           open=False, name="hansard-team")
                self.pool.open(wait=True, timeout=timeout)
            else:
                self.conn = psycopg.connect(conninfo, **kwargs)
        except Exception as exc:  # PoolTimeout, OperationalError: the server did not answer
            with contextlib.suppress(Exception):
                if self.pool is not None:
                    self.pool.close(timeout=0)
            raise _unreachable(exc) from None
        # The most any statement waits on the server: its statement timeout, plus the connect
        # timeout for the answer to travel (the documented "about 33 s" at the defaults).
        self.deadline = statement_timeout_ms / 1000 + timeout
        self.dog: _Watchdog | None = None

    def interrupt(self) -> None:
        """Cancel the statement running on the single connection (a pool's are left to their
        statement timeout)."""
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.cancel_safe(timeout=1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close(timeout=1)
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()

    @contextlib.contextmanager
    def connection(self, deadline: float | None = None) -> Iterator[Any]:
        """A connection for one block of statements. A server that stops answering mid-block
        (hung, overloaded, a network that drops packets) never outlasts ``deadline`` seconds
        (default: the statement timeout plus the connect timeout) after its last answer (see
        ``kick``): the socket is shut down under the waiting statement, which fails as
        ``TeamUnreachable``. A statement the server refuses for this member's role (row-level
        security, a row of another member) fails as ``TeamForbidden``."""
        psycopg = self._psycopg
        try:
            if self.conn is not None:
                with _watchdog(self.conn, deadline or self.deadline) as self.dog:
                    yield self.conn
            else:
                with self.pool.connection() as conn, _watchdog(conn, deadline or self.deadline) as self.dog:
                    yield conn
        except (psycopg.OperationalError, psycopg.errors.QueryCanceled) as exc:
            raise _unreachable(exc) from None
        except (psycopg.errors.InsufficientPrivilege, psycopg.errors.ForeignKeyViolation) as exc:
            raise _forbidden(exc) from None
        except Exception as exc:
            if self.pool is not None:
                from psycopg_pool import PoolTimeout

                if isinstance(exc, PoolTimeout):
                    raise _unreachable(exc) from None
            raise
        finally:
            self.dog = None  # a kick after the block must not arm a timer on a pooled connection

    def kick(self) -> None:
        """The block's server answered: its deadline starts again (one statement of many)."""
        if self.dog is not None:
            self.dog.kick()

    def run(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.connection() as conn:
            cur = conn.execute(sql, list(params))
            return cur.fetchall() if cur.description else []

    # -- schema ---------------------------------------------------------------------------

    def migrate(self) -> list[str]:
        """Apply the migrations this server lacks; returns their names."""
        applied: list[str] = []
        with self.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATE_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS hansard_migrations (name TEXT PRIMARY KEY,"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            done = {r["name"] for r in conn.execute("SELECT name FROM hansard_migrations")}
            self._refuse_newer(done)
            for m in MIGRATIONS:
                if m.__name__ in done:
                    continue
                conn.execute(m())
                conn.execute("INSERT INTO hansard_migrations(name) VALUES (%s)", (m.__name__,))
                applied.append(m.__name__)
        return applied

    def check_schema(self, *, current: bool = False) -> None:
        """Readers: the server's schema is one this hansard knows (else ``StoreTooNew``), and
        exists (one round trip). ``current`` (writers, who are members and cannot migrate): it
        also has every migration of this hansard."""
        from hansard.errors import TeamNotConfigured

        try:
            rows = self.run("SELECT name FROM hansard_migrations")
        except self._psycopg.errors.UndefinedTable:
            raise TeamNotConfigured("the team server has no hansard tables yet: the database owner runs"
                                    " `hansard team init URL --name NAME` first") from None
        names = {r["name"] for r in rows}
        self._refuse_newer(names)
        if current and {m.__name__ for m in MIGRATIONS} - names:
            raise TeamNotConfigured("the team server's tables are older than this hansard: the database owner runs"
                                    " `hansard team init` again to upgrade them")

    @staticmethod
    def _refuse_newer(done: set[str]) -> None:
        unknown = sorted(done - {m.__name__ for m in MIGRATIONS})
        if unknown:
            raise StoreTooNew("the team server was migrated by a newer hansard (unknown migrations: "
                              + ", ".join(unknown) + "); upgrade hansard. Nothing was changed.")

    # -- facets ----------------------------------------------------------------------------

    @cached_property
    def uploads(self) -> TeamUploads:
        return TeamUploads(self)

    @cached_property
    def roles(self) -> Any:
        """Teams and members as roles (:mod:`hansard.store.postgres.roles`)."""
        from hansard.store.postgres.roles import TeamRoles

        return TeamRoles(self)


# Rows per INSERT of a push. COPY is what the rows would take without row-level security, but
# PostgreSQL refuses COPY FROM into a table with it: each table's rows go as one INSERT of
# column arrays (unnest), one round trip per this many rows.
INSERT_ROWS = 20000

_SESSION_COLS = (("id", "bigint"), ("member_id", "int"), ("repo_id", "int"), ("session_id", "text"),
                 ("provider", "text"), ("cwd", "text"), ("started_at", "text"), ("last_at", "text"), ("title", "text"),
                 ("first_prompt", "text"), ("parent_session_id", "text"), ("resumed_from", "text"),
                 ("git_branch", "text"), ("version", "text"), ("message_count", "int"), ("content_hash", "text"),
                 ("redactions", "int"), ("origin", "text"), ("origin_ref", "text"), ("claimed_id", "text"))
_MESSAGE_COLS = (("id", "bigint"), ("session_row", "bigint"), ("message_index", "int"), ("role", "text"),
                 ("kind", "text"), ("text", "text"), ("timestamp", "text"))
_CALL_COLS = (("session_row", "bigint"), ("message_index", "int"), ("call_id", "text"), ("name", "text"),
              ("input", "text"), ("output", "text"), ("exit_code", "int"), ("status", "text"), ("timestamp", "text"),
              ("cwd", "text"))
_EDIT_COLS = (("id", "bigint"), ("session_row", "bigint"), ("repo_id", "int"), ("message_index", "int"),
              ("call_id", "text"), ("seq", "int"), ("tool", "text"), ("kind", "text"), ("rel_path", "text"),
              ("timestamp", "text"), ("user_modified", "boolean"), ("hunks", "text"), ("after_text", "text"))
_LINE_COLS = (("edit_id", "bigint"), ("side", "text"), ("ordinal", "int"), ("hash", "bigint"), ("exact", "bigint"),
              ("trivial", "boolean"))
_VECTOR_COLS = (("message_id", "bigint"), ("model", "text"), ("start", "int"), ('"end"', "int"), ("vector", "bytea"))


class TeamUploads:
    """Both sides of the exchange: a push's members, repositories and whole sessions; a pull's
    digests and rows, of other members only (never ``me``'s), as the role's policy lets it read."""

    def __init__(self, store: PostgresTeamStore) -> None:
        self.store = store

    def member(self, email: str, machine: str, name: str | None) -> int:
        rows = self.store.run(
            "INSERT INTO members(email, machine, name) VALUES (%s, %s, %s)"
            " ON CONFLICT (member_role, email, machine) DO UPDATE SET name=EXCLUDED.name RETURNING id",
            (email, machine, name),
        )
        return int(rows[0]["id"])

    def repo(self, root_commit: str, remote: str | None, name: str | None) -> int:
        rows = self.store.run(
            "INSERT INTO repos(root_commit, remote, name) VALUES (%s, %s, %s)"
            " ON CONFLICT (member_role, root_commit) DO UPDATE SET remote=COALESCE(repos.remote, EXCLUDED.remote)"
            " RETURNING id",
            (root_commit, remote, name),
        )
        return int(rows[0]["id"])

    def pushed(self, member_id: int) -> dict[str, str]:
        """session_id -> content hash of every session this member-machine has pushed."""
        return {r["session_id"]: r["content_hash"] for r in self.store.run(
            "SELECT session_id, content_hash FROM sessions WHERE member_id=%s", (member_id,))}

    def put_sessions(self, member_id: int, items: Sequence[tuple[int, dict[str, Any], dict[str, Any], str, int]]) -> None:
        """Replace this member's copy of each session (repo id, session, rows, content hash,
        redactions) with its rows, all in one transaction: row ids are taken from the sequences
        first, so every table is written with one INSERT per ``INSERT_ROWS`` rows, whatever the
        number of sessions."""
        if not items:
            return

        kick = self.store.kick

        def ids(conn: Any, seq: str, n: int) -> list[int]:
            if not n:
                return []
            kick()
            return [r["id"] for r in conn.execute(
                "SELECT nextval(%s) AS id FROM generate_series(1, %s)", (seq, n))]

        # Each statement (each INSERT of up to INSERT_ROWS rows) has the deadline of one statement:
        # a server that stops answering mid-push is given up on within it, as documented.
        with self.store.connection() as conn, conn.transaction():
            conn.execute("DELETE FROM sessions WHERE member_id=%s AND session_id = ANY(%s)",
                         (member_id, [s["session_id"] for _, s, _, _, _ in items]))
            srows = ids(conn, "sessions_id_seq", len(items))
            mids = iter(ids(conn, "messages_id_seq", sum(len(r["messages"]) for _, _, r, _, _ in items)))
            eids = iter(ids(conn, "edits_id_seq", sum(len(r["edits"]) for _, _, r, _, _ in items)))
            sessions, messages, calls, edits, lines, vectors = [], [], [], [], [], []
            for srow, (repo_id, s, rows, digest, redactions) in zip(srows, items, strict=True):
                sessions.append((srow, member_id, repo_id, s["session_id"], s["provider"], s.get("cwd"),
                                 s.get("started_at"), s.get("last_at"), s.get("title"), s.get("first_prompt"),
                                 s.get("parent_session_id"), s.get("resumed_from"), s.get("git_branch"),
                                 s.get("version"), s.get("message_count") or 0, digest, redactions, s.get("origin"),
                                 s.get("origin_ref"), s.get("claimed_id")))
                by_index = {}
                for m in rows["messages"]:
                    mid = next(mids)
                    by_index[m["message_index"]] = mid
                    messages.append((mid, srow, m["message_index"], m["role"], m["kind"], m["text"], m["timestamp"]))
                calls += [(srow, t["message_index"], t["call_id"], t["name"], t["input"], t["output"], t["exit_code"],
                           t["status"], t["timestamp"], t["cwd"]) for t in rows["tool_calls"]]
                for e in rows["edits"]:
                    eid = next(eids)
                    edits.append((eid, srow, repo_id, e["message_index"], e["call_id"], e["seq"], e["tool"], e["kind"],
                                  e["rel_path"], e["timestamp"], bool(e["user_modified"]), e["hunks"], e["after_text"]))
                    lines += [(eid, side, ordinal, h, exact, bool(trivial)) for side, ordinal, h, exact, trivial in e["lines"]]
                vectors += [(by_index[i], rows["model"], a, b, v) for i, a, b, v in rows.get("passages") or ()]
            for table, cols, body in (
                ("sessions", _SESSION_COLS, sessions), ("messages", _MESSAGE_COLS, messages),
                ("tool_calls", _CALL_COLS, calls), ("edits", _EDIT_COLS, edits), ("edit_lines", _LINE_COLS, lines),
                ("passage_vectors", _VECTOR_COLS, vectors),
            ):
                for k in range(0, len(body), INSERT_ROWS):
                    kick()
                    part = body[k:k + INSERT_ROWS]
                    conn.execute(
                        f"INSERT INTO {table}({', '.join(c for c, _ in cols)})"
                        f" SELECT * FROM unnest({', '.join(f'%s::{t}[]' for _, t in cols)})",
                        [list(col) for col in zip(*part, strict=True)])
            kick()
            conn.execute("UPDATE members SET last_push=now() WHERE id=%s", (member_id,))

    def analyze(self) -> None:
        """Fresh planner statistics after a large push (autovacuum would get there later; until
        then a search may join the messages the slow way)."""
        self.store.run("ANALYZE members, repos, sessions, messages, tool_calls, edits, edit_lines")

    def pushed_memories(self, member_id: int) -> dict[str, str]:
        """memory_id -> sha256 of the text this member-machine last pushed."""
        return {r["memory_id"]: r["sha256"] for r in self.store.run(
            "SELECT memory_id, sha256 FROM memories WHERE member_id=%s", (member_id,))}

    def put_memory(self, member_id: int, repo_id: int, m: dict[str, Any]) -> None:
        self.store.run(
            "INSERT INTO memories(member_id, repo_id, memory_id, kind, source, rel_path, title, text, sha256, seen_at)"
            " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (member_id, memory_id) DO UPDATE SET"
            " repo_id=EXCLUDED.repo_id, kind=EXCLUDED.kind, source=EXCLUDED.source, rel_path=EXCLUDED.rel_path,"
            " title=EXCLUDED.title, text=EXCLUDED.text, sha256=EXCLUDED.sha256, seen_at=EXCLUDED.seen_at",
            (member_id, repo_id, m["memory_id"], m["kind"], m["source"], m.get("rel_path"), m.get("title"), m["text"],
             m["sha256"], m.get("seen_at")),
        )

    def counts(self) -> dict[str, Any]:
        one = self.store.run(
            "SELECT (SELECT COUNT(*) FROM members) AS members, (SELECT COUNT(*) FROM repos) AS repos,"
            " (SELECT COUNT(*) FROM memories) AS memories,"
            " (SELECT COUNT(*) FROM sessions) AS sessions, (SELECT COUNT(*) FROM messages) AS messages,"
            " (SELECT COUNT(*) FROM edits) AS edits")[0]
        per = self.store.run(
            "SELECT mb.email, mb.name, mb.machine, mb.last_push, COUNT(s.id) AS sessions FROM members mb"
            " LEFT JOIN sessions s ON s.member_id=mb.id GROUP BY mb.id ORDER BY mb.email, mb.machine")
        return {**one, "members_detail": [{**r, "last_push": r["last_push"].isoformat() if r["last_push"] else None}
                                          for r in per]}

    def _shared(self, roots: Sequence[str]) -> tuple[str, tuple[Any, ...]]:
        """The sessions a pull reads: other members' (not this member-machine's own), in
        repositories of these root commits."""
        return ("SELECT s.id FROM sessions s JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
                " WHERE r.root_commit = ANY(%s) AND NOT (mb.email=%s AND mb.machine=%s)", (list(roots), *self.store.me))

    def digests(self, roots: Sequence[str]) -> list[dict[str, Any]]:
        """Every shared session of these repositories: id, session_id, content_hash, member (the
        email the owner registered for its role) and member_name (one round trip)."""
        if not roots:
            return []
        sel, args = self._shared(roots)
        return self.store.run(
            "SELECT s.id, s.session_id, s.content_hash, mb.email AS member, mb.name AS member_name FROM sessions s"
            f" JOIN members mb ON mb.id=s.member_id WHERE s.id IN ({sel})", args)

    def export(self, roots: Sequence[str], session_rows: Sequence[int]) -> dict[str, list[dict[str, Any]]]:
        """The rows of these shared sessions, table by table: sessions (with root_commit, member
        and member_name), messages, tool_calls, edits, edit_lines, the passage vectors pushed
        with them, and the repositories' rows."""
        if not roots or not session_rows:
            return {k: [] for k in ("sessions", "messages", "tool_calls", "edits", "edit_lines", "passages", "repos")}
        sel, args = self._shared(roots)
        sel = f"SELECT x.id FROM ({sel}) x WHERE x.id = ANY(%s)"
        args = (*args, list(session_rows))
        run = self.store.run
        return {
            "repos": run("SELECT id, root_commit FROM repos WHERE root_commit = ANY(%s)", (list(roots),)),
            "sessions": run("SELECT s.id, s.session_id, s.provider, s.cwd, s.started_at, s.last_at, s.title,"
                            " s.first_prompt, s.parent_session_id, s.resumed_from, s.git_branch, s.version,"
                            " s.message_count, s.content_hash, s.origin, s.origin_ref, s.claimed_id, r.root_commit,"
                            " mb.email AS member, mb.name AS member_name FROM sessions s"
                            " JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
                            f" WHERE s.id IN ({sel})", args),
            "messages": run("SELECT id, session_row, message_index, role, kind, text, timestamp FROM messages"
                            f" WHERE session_row IN ({sel})", args),
            "tool_calls": run("SELECT id, session_row, message_index, call_id, name, input, output, exit_code, status,"
                              f" timestamp, cwd FROM tool_calls WHERE session_row IN ({sel}) ORDER BY id", args),
            "edits": run("SELECT id, session_row, repo_id, message_index, call_id, seq, tool, kind, rel_path, timestamp,"
                         f" user_modified, hunks, after_text FROM edits WHERE session_row IN ({sel}) ORDER BY id", args),
            "edit_lines": run("SELECT edit_id, side, ordinal, hash, exact, trivial FROM edit_lines WHERE edit_id IN"
                              f" (SELECT id FROM edits WHERE session_row IN ({sel}))", args),
            "passages": run('SELECT p.message_id, p.model, p.start, p."end", p.vector FROM passage_vectors p'
                            f" JOIN messages m ON m.id=p.message_id WHERE m.session_row IN ({sel})", args),
        }

    def memories(self, roots: Sequence[str]) -> list[dict[str, Any]]:
        """Every other member's project memory of these repositories, with its text (a handful
        of files per repository and member)."""
        if not roots:
            return []
        return self.store.run(
            "SELECT m.id, m.memory_id, m.kind, m.source, m.rel_path, m.title, m.text, m.sha256, m.seen_at,"
            " r.root_commit, mb.email AS member, mb.name AS member_name FROM memories m"
            " JOIN members mb ON mb.id=m.member_id JOIN repos r ON r.id=m.repo_id"
            " WHERE r.root_commit = ANY(%s) AND NOT (mb.email=%s AND mb.machine=%s) ORDER BY m.id",
            (list(roots), *self.store.me))


def content_hash(session: dict[str, Any], rows: dict[str, list[dict[str, Any]]]) -> str:
    """A digest of everything a push sends for one session: equal digests, nothing to send."""
    import json

    h = hashlib.sha256()
    h.update(json.dumps([session, rows], sort_keys=True, default=str).encode("utf-8", "surrogatepass"))
    return h.hexdigest()
