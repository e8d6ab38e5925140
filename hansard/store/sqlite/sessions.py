"""Session queries: session lists, one session's messages and tool calls, what is indexed.

Message numbering is always ``message_index``. Time bounds arrive as stored-time text
(:mod:`hansard.values.timebounds` makes them). Rows are ``sqlite3.Row`` (indexable by column
name) or plain dicts ready for JSON. A teammate's session (id below zero, ``member`` set:
hansard.store.sqlite.team) is found by its id like any other, listed only when asked for, and
counted in none of what this machine indexed (``status``, ``index_state``).
"""

from __future__ import annotations

import builtins
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from hansard.agents.origin import source_of
from hansard.errors import NotFound
from hansard.store.sqlite.db import like_escape, marks


def roles_sql(roles: Iterable[str] | None, alias: str = "m") -> tuple[str, list[str]]:
    """A condition on messages ``alias`` for a set of roles. ``user`` means the person's own
    messages: role user, without the injected ``meta`` records (command output, caveats)."""
    if not roles:
        return "", []
    parts = []
    args: list[str] = []
    for r in roles:
        if r == "user":
            parts.append(f"({alias}.role='user' AND {alias}.kind!='meta')")
        else:
            parts.append(f"{alias}.role=?")
            args.append(r)
    return "(" + " OR ".join(parts) + ")", args


_ORIGIN = ("origin", "origin_repo", "origin_ref", "claimed_id")
_MEMBER = ("member", "member_name")


class SqliteSessionQueries:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- the store as a whole ----------------------------------------------------------

    def data_version(self) -> int:
        """Changes whenever another connection committed to the store (an index run, a
        `config map`): SQLite's data_version, one cheap pragma."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def status(self) -> dict[str, Any]:
        db = self.db

        def one(sql: str) -> Any:
            return db.execute(sql).fetchone()[0]
        sources = [
            dict(r) for r in db.execute(
                "SELECT provider, COUNT(*) AS files, SUM(missing) AS missing FROM sources WHERE provider IS NOT NULL"
                " GROUP BY provider ORDER BY provider"
            )
        ]
        # This machine's rows: ids above zero (the team's, pulled, are below).
        last = db.execute("SELECT * FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        skips = {r[0]: r[1] for r in db.execute("SELECT reason, COUNT(*) FROM skips GROUP BY reason ORDER BY 2 DESC")}
        return {
            "sources": sources,
            "counts": {
                "sessions": one("SELECT COUNT(*) FROM sessions WHERE id > 0"),
                "messages": one("SELECT COUNT(*) FROM messages WHERE id > 0"),
                "tool_calls": one("SELECT COUNT(*) FROM tool_calls WHERE id > 0"),
                "edits": one("SELECT COUNT(*) FROM edits WHERE id > 0"),
                "applied_edits": one("SELECT COUNT(*) FROM edits WHERE id > 0 AND status='applied'"),
                "raw_records": one("SELECT COUNT(*) FROM raw_records"),
                # Secrets withheld from everything above (the archive keeps them): hansard/ingest/redact.py
                "redactions": one("SELECT COALESCE(SUM(MAX(redactions, 0)), 0) FROM sources"),
                "repos": one("SELECT COUNT(*) FROM repos"),
            },
            "skipped": skips,
            "indexed_from": one("SELECT MIN(timestamp) FROM messages WHERE id > 0"),
            "indexed_through": one("SELECT MAX(timestamp) FROM messages WHERE id > 0"),
            "last_run": _run(last),
        }

    def index_state(self) -> dict[str, Any]:
        """- ``indexed_through``: the newest message time held (UTC);
        - ``indexed_from``: the oldest session start held;
        - ``backfill_complete``: an index run has finished and no known transcript has unread bytes;
        - ``index_built_at``: when the last index run finished."""
        db = self.db
        through = db.execute("SELECT MAX(last_at) FROM sessions WHERE id > 0").fetchone()[0]
        since = db.execute("SELECT MIN(started_at) FROM sessions WHERE id > 0").fetchone()[0]
        last = db.execute("SELECT finished_at FROM runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1").fetchone()
        pending = db.execute(
            "SELECT COUNT(*) FROM sources WHERE provider IS NOT NULL AND missing=0 AND size > \"offset\""
        ).fetchone()[0]
        return {
            "indexed_from": since,
            "indexed_through": through,
            "backfill_complete": bool(last) and pending == 0,
            "index_built_at": last[0] if last else None,
        }

    # -- sessions ----------------------------------------------------------------------

    def provider_counts(self) -> dict[str, dict[str, int]]:
        """Per provider: this machine's sessions, messages and applied edits held."""
        out: dict[str, dict[str, int]] = {}
        for r in self.db.execute("SELECT provider, COUNT(*), COALESCE(SUM(message_count), 0) FROM sessions"
                                 " WHERE id > 0 GROUP BY provider"):
            out[r[0]] = {"sessions": r[1], "messages": r[2], "edits": 0}
        for r in self.db.execute("SELECT provider, COUNT(*) FROM edits WHERE id > 0 AND status='applied'"
                                 " GROUP BY provider"):
            out.setdefault(r[0], {"sessions": 0, "messages": 0, "edits": 0})["edits"] = r[1]
        return out

    def list(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
             since: str | None = None, limit: int = 20, exclude_providers: Sequence[str] = (),
             include_team: bool = False) -> list[dict[str, Any]]:
        """Sessions newest first; ``since`` (stored-time text) bounds their last message;
        sessions of ``exclude_providers`` are left out, and teammates' unless ``include_team``
        (theirs carry ``member`` and ``member_name``)."""
        where, args = _listed(repo_ids, provider, since, exclude_providers, include_team)
        rows = self.db.execute(
            "SELECT s.session_id, s.provider, s.title, s.first_prompt, s.started_at, s.last_at, s.cwd,"
            " s.message_count, s.parent_session_id, r.path AS repo, s.member, s.member_name,"
            " s.origin, s.origin_repo, s.origin_ref, s.claimed_id"
            f" FROM sessions s LEFT JOIN repos r ON r.id=s.repo_id WHERE {where}"
            " ORDER BY s.last_at DESC LIMIT ?",
            (*args, limit),
        ).fetchall()
        out = []
        for r in rows:
            d = {k: r[k] for k in r.keys() if k not in _ORIGIN and not (k in _MEMBER and r["member"] is None)}
            d["source"] = source_of(r)  # where it was read (hansard.agents.origin)
            out.append(d)
        return out

    def list_count(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
                   since: str | None = None, exclude_providers: Sequence[str] = (), include_team: bool = False) -> int:
        """How many sessions ``list`` with the same filters would give without its limit."""
        where, args = _listed(repo_ids, provider, since, exclude_providers, include_team)
        return int(self.db.execute(f"SELECT COUNT(*) FROM sessions s WHERE {where}", args).fetchone()[0])

    def find(self, ref: str) -> sqlite3.Row:
        """A session by id, or by a unique prefix of it."""
        db = self.db
        row: sqlite3.Row | None = db.execute("SELECT * FROM sessions WHERE session_id=?", (ref,)).fetchone()
        if row is None and len(ref) >= 4:
            rows = db.execute("SELECT * FROM sessions WHERE session_id LIKE ? ESCAPE '\\' LIMIT 2",
                              (like_escape(ref) + "%",)).fetchall()
            if len(rows) == 1:
                row = rows[0]
            elif len(rows) > 1:
                raise NotFound(f"session prefix {ref!r} is ambiguous")
        if row is None:
            raise NotFound(f"no session {ref!r}")
        return row

    def repo_path_of(self, ref: str) -> tuple[bool, str | None]:
        """(whether a session with this id or prefix exists, the path of its repository)."""
        row = self.db.execute(
            "SELECT r.path FROM sessions s LEFT JOIN repos r ON r.id=s.repo_id"
            " WHERE s.session_id=? OR s.session_id LIKE ? ESCAPE '\\'",
            (ref, like_escape(ref) + "%"),
        ).fetchone()
        return (row is not None, row[0] if row is not None else None)

    def repo_paths_of(self, ref: str) -> builtins.list[tuple[str, str | None]]:
        sql = "SELECT s.session_id, r.path FROM sessions s LEFT JOIN repos r ON r.id=s.repo_id WHERE "
        rows = self.db.execute(sql + "s.session_id=?", (ref,)).fetchall()
        if not rows and len(ref) >= 4:
            rows = self.db.execute(sql + "s.session_id LIKE ? ESCAPE '\\'", (like_escape(ref) + "%",)).fetchall()
        return [(r[0], r[1]) for r in rows]

    def repo_path(self, repo_id: int | None) -> str | None:
        if not repo_id:
            return None
        row = self.db.execute("SELECT path FROM repos WHERE id=?", (repo_id,)).fetchone()
        return row[0] if row else None

    def repo_ids_at(self, paths: Sequence[str]) -> builtins.list[int]:
        """Repository rows registered at any of these checkout paths."""
        return [r[0] for p in paths for r in self.db.execute("SELECT id FROM repos WHERE path=?", (p,))]

    def repo_ids_with_root(self, root_commit: str) -> builtins.list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM repos WHERE root_commit=?", (root_commit,))]

    def repo_ids_named(self, name: str) -> builtins.list[int]:
        """Repository rows whose path or remote is ``name`` or ends in ``/name``."""
        like = "%/" + like_escape(name)
        return [r[0] for r in self.db.execute(
            "SELECT id FROM repos WHERE path=? OR path LIKE ? ESCAPE '\\' OR remote=? OR remote LIKE ? ESCAPE '\\'",
            (name, like, name, like),
        )]

    def subagents(self, session_id: str) -> builtins.list[str]:
        return [r[0] for r in self.db.execute("SELECT session_id FROM sessions WHERE parent_session_id=?", (session_id,))]

    # -- one session's messages ----------------------------------------------------------

    def indexes_before(self, sid: int, before: int, roles: Iterable[str] | None, limit: int) -> builtins.list[int]:
        """``message_index`` values below ``before`` that pass ``roles``, nearest first."""
        rwhere, rargs = roles_sql(roles)
        rfilter = f" AND {rwhere}" if rwhere else ""
        return [r[0] for r in self.db.execute(
            f"SELECT m.message_index FROM messages m WHERE m.session_id=? AND m.message_index<?{rfilter}"
            " ORDER BY m.message_index DESC LIMIT ?",
            (sid, before, *rargs, limit),
        )]

    def messages_from(self, sid: int, first: int, roles: Iterable[str] | None, limit: int) -> builtins.list[sqlite3.Row]:
        """Messages from ``message_index`` ``first`` on, in order, with their archived file
        (``source_path``) and its ``generation`` (None for a teammate's: no file here)."""
        rwhere, rargs = roles_sql(roles)
        rfilter = f" AND {rwhere}" if rwhere else ""
        return self.db.execute(
            "SELECT m.*, src.path AS source_path, src.generation AS generation FROM messages m"
            f" LEFT JOIN sources src ON src.id=m.source_id WHERE m.session_id=? AND m.message_index>=?{rfilter}"
            " ORDER BY m.message_index LIMIT ?",
            (sid, first, *rargs, limit),
        ).fetchall()

    def message_heads(self, sid: int, prefix: int) -> builtins.list[sqlite3.Row]:
        """Every message's index, role, kind, first ``prefix`` characters (``t``) and length (``n``)."""
        return self.db.execute(
            "SELECT message_index, role, kind, substr(text, 1, ?) AS t, length(text) AS n FROM messages"
            " WHERE session_id=? ORDER BY message_index",
            (prefix, sid),
        ).fetchall()

    def tool_calls_between(self, sid: int, lo: int, hi: int) -> builtins.list[sqlite3.Row]:
        """Tool calls made by messages ``lo``..``hi`` (inclusive), with their ``message_index``."""
        return self.db.execute(
            "SELECT t.call_id, t.name, t.status, t.exit_code, m.message_index FROM tool_calls t"
            " JOIN messages m ON m.id=t.message_id WHERE t.session_id=? AND m.message_index>=? AND m.message_index<=?",
            (sid, lo, hi),
        ).fetchall()

    def call_details(self, sid: int, call_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """For `hansard show`: each call's input and output text, and the edits it made (path,
        kind, status, move_to, hunks as in ``edits.hunks``, before and after text when kept),
        by call id."""
        import json

        from hansard.store.sqlite.codec import unpack
        from hansard.store.sqlite.db import OUTPUT_SQL

        out: dict[str, dict[str, Any]] = {}
        ids = list(dict.fromkeys(call_ids))
        for i in range(0, len(ids), 500):
            part = ids[i:i + 500]
            for r in self.db.execute(f"SELECT t.call_id, t.input, {OUTPUT_SQL} AS output FROM tool_calls t"
                                     f" WHERE t.session_id=? AND t.call_id IN ({marks(len(part))})", (sid, *part)):
                out.setdefault(r["call_id"], {"edits": []}).update(input=r["input"], output=r["output"])
            for r in self.db.execute("SELECT call_id, seq, tool, kind, status, path, rel_path, move_to, hunks, before_text,"
                                     f" after_text FROM edits WHERE session_id=? AND call_id IN ({marks(len(part))})"
                                     " ORDER BY call_id, seq", (sid, *part)):
                out.setdefault(r["call_id"], {"edits": []})["edits"].append({
                    "path": r["rel_path"] or r["path"], "kind": r["kind"], "status": r["status"], "tool": r["tool"],
                    "move_to": r["move_to"], "hunks": json.loads(r["hunks"]) if r["hunks"] else None,
                    "before_text": unpack(r["before_text"]) if r["before_text"] is not None else None,
                    "after_text": unpack(r["after_text"]) if r["after_text"] is not None else None})
        return out

    def closing_message(self, session_id: str) -> tuple[int, str] | None:
        """(index, text) of the session's last text message from its agent: what it said when it
        finished (or stopped), None when it said nothing."""
        row = self.db.execute(
            "SELECT m.message_index, m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
            " WHERE s.session_id=? AND m.role='assistant' AND m.kind='text' AND m.text<>''"
            " ORDER BY m.message_index DESC LIMIT 1", (session_id,),
        ).fetchone()
        return (row[0], row[1]) if row else None

    def last_edit_index(self, session_id: str) -> int | None:
        """The message index of the session's last applied edit (None: it made none, or none
        of its edits is tied to a message)."""
        row = self.db.execute(
            "SELECT max(m.message_index) FROM edits e JOIN sessions s ON s.id=e.session_id"
            " JOIN messages m ON m.id=e.message_id WHERE s.session_id=? AND e.status='applied'", (session_id,),
        ).fetchone()
        return row[0] if row else None

    def redactions(self, session_ids: Sequence[str]) -> dict[str, int]:
        """Per session: the secrets redacted from its messages and tool calls' inputs and
        outputs (each ``[REDACTED:<rule>]`` mark they hold)."""
        if not session_ids:
            return {}
        count = "coalesce(sum((length({0}) - length(replace({0}, '[REDACTED:', ''))) / 10), 0)"
        calls = "coalesce(t.input, '') || coalesce(t.output, '')"
        rows = self.db.execute(
            f"SELECT s.session_id, (SELECT {count.format('m.text')} FROM messages m"
            "  WHERE m.session_id=s.id AND instr(m.text, '[REDACTED:') > 0)"
            f" + (SELECT {count.format(calls)} FROM tool_calls t WHERE t.session_id=s.id"
            "  AND (instr(t.input, '[REDACTED:') > 0 OR instr(t.output, '[REDACTED:') > 0))"
            f" FROM sessions s WHERE s.session_id IN ({marks(len(session_ids))})", tuple(session_ids),
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def records_between(self, source_id: int, generation: int, lo: int, hi: int) -> int:
        """How many archived records of one file generation start at byte ``lo`` <= offset < ``hi``."""
        return int(self.db.execute(
            "SELECT COUNT(*) FROM raw_records WHERE source_id=? AND generation=? AND \"offset\">=? AND \"offset\"<?",
            (source_id, generation, lo, hi),
        ).fetchone()[0])

    def raw_record(self, source_id: int, offset: int) -> str | None:
        """The archived record at a byte offset (newest generation), verbatim."""
        rec = self.db.execute(
            "SELECT data FROM raw_records WHERE source_id=? AND \"offset\"=? ORDER BY generation DESC LIMIT 1",
            (source_id, offset),
        ).fetchone()
        from hansard.store.sqlite.codec import unpack_record

        return unpack_record(rec[0]).decode("utf-8", "replace") if rec else None


def _listed(repo_ids: Sequence[int] | None, provider: str | None, since: str | None,
            exclude_providers: Sequence[str], include_team: bool) -> tuple[str, list[Any]]:
    """The WHERE clause (over ``sessions s``) and its arguments of a sessions listing."""
    where: list[str] = ["1=1" if include_team else "s.id > 0"]
    args: list[Any] = []
    if repo_ids is not None:
        where.append(f"s.repo_id IN ({marks(len(repo_ids))})")
        args += list(repo_ids)
    if provider:
        where.append("s.provider=?")
        args.append(provider)
    if exclude_providers:
        where.append(f"s.provider NOT IN ({marks(len(exclude_providers))})")
        args += list(exclude_providers)
    if since:
        where.append("s.last_at>=?")
        args.append(since)
    return " AND ".join(where), args


def _run(row: sqlite3.Row | None) -> dict[str, Any] | None:
    """A runs row as `status` gives it, its skip reasons decoded."""
    if row is None:
        return None
    out = dict(row)
    raw = out.get("skip_reasons")
    out["skip_reasons"] = json.loads(raw) if raw else {}
    return out
