"""The team's evidence, read by repository identity: applied edits and their line hashes,
the sessions that made them, their prompts and tool calls.

The same SQL serves the server (PostgreSQL, through psycopg) and the offline copy that
``hansard team pull`` keeps (SQLite, :mod:`hansard.store.sqlite.team_copy`): both hold the
tables of :mod:`hansard.store.postgres.migrations` and only the placeholder differs. Every
query leaves out one member-machine (``me``): this machine's own sessions are answered from
the local store, never twice. Rows are dicts; ids are the team store's own.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

Run = Callable[[str, Sequence[Any]], list[dict[str, Any]]]

# Hashes per `IN (...)`: one statement for any file a person would blame, and under SQLite's
# variable limit for the offline copy.
CHUNK = 5000

_SESSION_COLS = (
    "s.id, s.session_id, s.provider, s.cwd, s.started_at, s.last_at, s.title, s.first_prompt, s.parent_session_id,"
    " s.resumed_from, s.git_branch, s.version, s.message_count, r.root_commit, mb.email AS member,"
    " mb.name AS member_name, mb.machine AS member_machine"
)
_FROM_SESSIONS = " FROM sessions s JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
_NOT_ME = " NOT (mb.email=%s AND mb.machine=%s)"


def _marks(n: int) -> str:
    return ",".join(["%s"] * n)


# A literal substring test that reads the same in PostgreSQL and SQLite (whose LIKE has no
# default escape character).
_LIKE = "m.text LIKE %s ESCAPE '\\'"


def contains(word: str) -> str:
    """The LIKE pattern of messages holding ``word`` literally (backslash escapes)."""
    from hansard.store.sqlite.db import like_escape

    return "%" + like_escape(word) + "%"


def time_bounds(where: list[str], args: list[Any], since: str | None, until: str | None) -> None:
    """Adds ``since``/``until`` (UTC stamps, inclusive) on the message's timestamp."""
    if since:
        where.append("m.timestamp>=%s")
        args.append(since)
    if until:
        where.append("m.timestamp<=%s")
        args.append(until)


class TeamQueries:
    def __init__(self, run: Run, me: tuple[str, str], *, combined: bool = False) -> None:
        self.run = run
        self.me = me
        self.combined = combined  # PostgreSQL: edit_lines_with_sessions answers in one round trip

    # -- edits --------------------------------------------------------------------------

    def edit_lines(self, root_commit: str, hashes: Iterable[int], side: str = "+") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        hl = list(hashes)
        for i in range(0, len(hl), CHUNK):
            part = hl[i:i + CHUNK]
            out += self.run(
                "SELECT el.hash, el.exact, el.trivial, e.id, e.rel_path, e.timestamp, e.call_id, s.provider,"
                " e.user_modified, e.tool, s.session_id, e.message_index, s.id AS srow"
                " FROM edit_lines el JOIN edits e ON e.id=el.edit_id JOIN sessions s ON s.id=e.session_row"
                " JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=e.repo_id"
                f" WHERE el.side=%s AND el.hash IN ({_marks(len(part))}) AND r.root_commit=%s AND{_NOT_ME}",
                (side, *part, root_commit, *self.me),
            )
        return out

    def edit_lines_with_sessions(self, root_commit: str, hashes: Iterable[int], side: str = "+"
                                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """PostgreSQL only: ``edit_lines``, the sessions of those edits and their typed prompts,
        in one round trip (a question about a file is one query to the server)."""
        hl = list(hashes)
        lines = ("SELECT el.hash, el.exact, el.trivial, e.id, e.rel_path, e.timestamp, e.call_id, s.provider,"
                 " e.user_modified, e.tool, s.session_id, e.message_index, s.id AS srow"
                 " FROM edit_lines el JOIN edits e ON e.id=el.edit_id JOIN sessions s ON s.id=e.session_row"
                 " JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=e.repo_id"
                 f" WHERE el.side=%s AND el.hash = ANY(%s::bigint[]) AND r.root_commit=%s AND{_NOT_ME}")
        rows = self.run(
            f"WITH l AS ({lines})"
            " SELECT (SELECT COALESCE(json_agg(l), '[]') FROM l) AS lines,"
            f" (SELECT COALESCE(json_agg(x), '[]') FROM (SELECT {_SESSION_COLS}{_FROM_SESSIONS}"
            "   WHERE s.id IN (SELECT srow FROM l)) x) AS sessions,"
            " (SELECT COALESCE(json_agg(p ORDER BY p.message_index), '[]') FROM (SELECT s.session_id, m.message_index,"
            "   m.text FROM messages m JOIN sessions s ON s.id=m.session_row WHERE m.session_row IN (SELECT srow FROM l)"
            "   AND m.role='user' AND m.kind='text') p) AS prompts",
            (side, hl, root_commit, *self.me),
        )
        r = rows[0]
        return r["lines"], r["sessions"], r["prompts"]

    def removed_lines(self, edit_ids: Collection[int]) -> list[tuple[int, int]]:
        if not edit_ids:
            return []
        rows = self.run(
            f"SELECT edit_id, hash FROM edit_lines WHERE side='-' AND NOT trivial AND edit_id IN ({_marks(len(edit_ids))})",
            list(edit_ids),
        )
        return [(r["edit_id"], r["hash"]) for r in rows]

    def edit_hashes(self, edit_id: int) -> tuple[set[int], set[int]]:
        added: set[int] = set()
        removed: set[int] = set()
        for r in self.run("SELECT side, hash FROM edit_lines WHERE edit_id=%s AND NOT trivial", (edit_id,)):
            (added if r["side"] == "+" else removed).add(r["hash"])
        return added, removed

    def edit_content(self, edit_id: int) -> dict[str, Any] | None:
        rows = self.run("SELECT hunks, after_text, kind FROM edits WHERE id=%s", (edit_id,))
        if not rows:
            return None
        import json

        r = rows[0]
        return {"hunks": json.loads(r["hunks"]) if r["hunks"] else [], "kind": r["kind"], "after_text": r["after_text"]}

    def has_applied_edits(self, root_commit: str, paths: Collection[str]) -> bool:
        if not paths:
            return False
        return bool(self.run(
            "SELECT 1 AS one FROM edits e JOIN repos r ON r.id=e.repo_id JOIN sessions s ON s.id=e.session_row"
            f" JOIN members mb ON mb.id=s.member_id WHERE r.root_commit=%s AND e.rel_path IN ({_marks(len(paths))})"
            f" AND{_NOT_ME} LIMIT 1",
            (root_commit, *paths, *self.me),
        ))

    def applied_edits(self, root_commit: str, paths: Collection[str]) -> list[dict[str, Any]]:
        if not paths:
            return []
        return self.run(
            "SELECT e.id, e.call_id, e.tool, e.kind, e.rel_path, e.timestamp, e.hunks, 'applied' AS status,"
            " s.session_id, s.provider, s.title, s.first_prompt, s.started_at, s.last_at, s.parent_session_id,"
            " s.id AS srow, e.message_index, mb.email AS member, mb.name AS member_name"
            " FROM edits e JOIN sessions s ON s.id=e.session_row JOIN members mb ON mb.id=s.member_id"
            f" JOIN repos r ON r.id=e.repo_id WHERE r.root_commit=%s AND e.rel_path IN ({_marks(len(paths))})"
            f" AND{_NOT_ME}",
            (root_commit, *paths, *self.me),
        )

    def session_edits(self, session_row: int) -> list[dict[str, Any]]:
        return self.run("SELECT id, rel_path, timestamp FROM edits WHERE session_row=%s", (session_row,))

    def sessions_editing_repo(self, root_commit: str, except_row: int) -> list[int]:
        return [r["id"] for r in self.run(
            "SELECT DISTINCT s.id FROM edits e JOIN sessions s ON s.id=e.session_row JOIN members mb ON"
            f" mb.id=s.member_id JOIN repos r ON r.id=e.repo_id WHERE r.root_commit=%s AND s.id<>%s AND{_NOT_ME}",
            (root_commit, except_row, *self.me),
        )]

    # -- tool calls -------------------------------------------------------------------------

    def repo_shell_calls(self, root_commit: str, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        """(session id, timestamp, input JSON, output) of calls to ``tools`` in the repository
        whose input mentions ``needle``."""
        if not tools:
            return []
        rows = self.run(
            "SELECT s.session_id, t.timestamp, t.input, t.output FROM tool_calls t JOIN sessions s ON s.id=t.session_row"
            " JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
            f" WHERE r.root_commit=%s AND t.name IN ({_marks(len(tools))}) AND t.input LIKE %s ESCAPE '\\' AND{_NOT_ME}",
            (root_commit, *tools, "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",
             *self.me),
        )
        return [(r["session_id"], r["timestamp"], r["input"], r["output"]) for r in rows]

    def repo_tool_inputs(self, root_commit: str, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        return [(ts, inp) for _, ts, inp, _ in self.repo_shell_calls(root_commit, tools, needle)]

    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> list[dict[str, Any]]:
        if not tools:
            return []
        return self.run(
            "SELECT call_id, name, input, output, exit_code, status, timestamp, cwd, message_index FROM tool_calls"
            f" WHERE session_row=%s AND name IN ({_marks(len(tools))}) ORDER BY timestamp, id",
            (session_row, *tools),
        )

    # -- sessions -----------------------------------------------------------------------------

    def sessions(self, session_ids: Collection[str]) -> list[dict[str, Any]]:
        if not session_ids:
            return []
        return self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id IN ({_marks(len(session_ids))}) AND{_NOT_ME}",
            (*session_ids, *self.me),
        )

    def session_at(self, session_row: int) -> dict[str, Any] | None:
        rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.id=%s", (session_row,))
        return rows[0] if rows else None

    def prompts(self, session_ids: Collection[str]) -> list[dict[str, Any]]:
        """session_id, message_index, text of every typed user prompt of these sessions."""
        if not session_ids:
            return []
        return self.run(
            "SELECT s.session_id, m.message_index, m.text FROM messages m JOIN sessions s ON s.id=m.session_row"
            f" JOIN members mb ON mb.id=s.member_id WHERE s.session_id IN ({_marks(len(session_ids))})"
            f" AND m.role='user' AND m.kind='text' AND{_NOT_ME} ORDER BY m.message_index",
            (*session_ids, *self.me),
        )

    def top_sessions_in_repo(self, root_commit: str) -> list[dict[str, Any]]:
        return self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE r.root_commit=%s AND s.parent_session_id IS NULL"
            f" AND{_NOT_ME} ORDER BY s.last_at DESC",
            (root_commit, *self.me),
        )

    def list(self, roots: Collection[str] | None, since: str | None, limit: int) -> list[dict[str, Any]]:
        where, args = [_NOT_ME], list(self.me)
        if roots is not None:
            if not roots:
                return []
            where.append(f"r.root_commit IN ({_marks(len(roots))})")
            args += list(roots)
        if since:
            where.append("s.last_at>=%s")
            args.append(since)
        return self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE {' AND '.join(where)} ORDER BY s.last_at DESC LIMIT %s",
            (*args, limit),
        )

    def messages_containing(self, groups: Sequence[Sequence[str]], excluded: Sequence[Sequence[str]],
                            roots: Collection[str], since: str | None, until: str | None,
                            limit: int) -> builtins.list[dict[str, Any]]:
        """Messages holding a word of every group (and not all words of any excluded group),
        newest first, with their session: keyword search where no full-text index exists
        (the offline copy). Words match literally, case-insensitively for ASCII."""
        if not groups or not roots:
            return []
        where, args = [f"r.root_commit IN ({_marks(len(roots))})"], list(roots)
        for g in groups:
            where.append("(" + " OR ".join([_LIKE] * len(g)) + ")")
            args += [contains(w) for w in g]
        for words in excluded:
            if words:
                where.append("NOT (" + " AND ".join([_LIKE] * len(words)) + ")")
                args += [contains(w) for w in words]
        time_bounds(where, args, since, until)
        return self.run(
            "SELECT m.message_index, m.role, m.kind, substr(m.text, 1, 4000) AS text, m.timestamp, 0.0 AS score,"
            " s.session_id, s.provider, s.title, s.first_prompt, s.started_at, r.name AS repo, mb.email AS member,"
            " mb.name AS member_name FROM messages m JOIN sessions s ON s.id=m.session_row"
            " JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
            f" WHERE {' AND '.join(where)} AND{_NOT_ME} ORDER BY m.timestamp DESC LIMIT %s",
            (*args, *self.me, limit),
        )

    def messages(self, session_row: int) -> builtins.list[dict[str, Any]]:
        return self.run(
            "SELECT message_index, role, kind, text, timestamp FROM messages WHERE session_row=%s ORDER BY message_index",
            (session_row,),
        )

    # -- memories ---------------------------------------------------------------------------

    def memories(self, roots: Collection[str], memory_row: int | None = None) -> builtins.list[dict[str, Any]]:
        """Other members' project memories of these repositories (or the one row), with their
        text. A handful of files per repository and member: matched by the caller."""
        if not roots and memory_row is None:
            return []
        where = f"r.root_commit IN ({_marks(len(roots))})" if memory_row is None else "m.id=%s"
        args = list(roots) if memory_row is None else [memory_row]
        return self.run(
            "SELECT m.id, m.memory_id, m.kind, m.source, m.rel_path, m.title, m.text, m.sha256, m.seen_at,"
            " r.root_commit, mb.email AS member, mb.name AS member_name FROM memories m"
            " JOIN members mb ON mb.id=m.member_id JOIN repos r ON r.id=m.repo_id"
            f" WHERE {where} AND{_NOT_ME} ORDER BY m.id",
            (*args, *self.me),
        )

    # -- one session, read in windows (get_past_session) ----------------------------------------

    def find(self, ref: str) -> builtins.list[dict[str, Any]]:
        """Other members' sessions with this id, else whose id starts with ``ref`` (4 characters
        at least): at most two, so the caller can tell a unique prefix from an ambiguous one."""
        rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id=%s AND{_NOT_ME} LIMIT 2",
                        (ref, *self.me))
        if not rows and len(ref) >= 4:
            like = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id LIKE %s ESCAPE '\\'"
                            f" AND{_NOT_ME} LIMIT 2", (like, *self.me))
        return rows

    def indexes_before(self, session_row: int, before: int, roles: Iterable[str] | None, limit: int) -> builtins.list[int]:
        rwhere, rargs = _roles(roles)
        return [r["message_index"] for r in self.run(
            f"SELECT message_index FROM messages m WHERE session_row=%s AND message_index<%s{rwhere}"
            " ORDER BY message_index DESC LIMIT %s",
            (session_row, before, *rargs, limit),
        )]

    def messages_from(self, session_row: int, first: int, roles: Iterable[str] | None, limit: int
                      ) -> builtins.list[dict[str, Any]]:
        """Messages from ``first`` on, in order. A teammate's archive stays on their machine:
        no source file, model or cwd."""
        rwhere, rargs = _roles(roles)
        rows = self.run(
            "SELECT message_index, role, kind, text, timestamp FROM messages m"
            f" WHERE session_row=%s AND message_index>=%s{rwhere} ORDER BY message_index LIMIT %s",
            (session_row, first, *rargs, limit),
        )
        return [{**r, "model": None, "cwd": None, "source_path": None, "offset": None, "source_id": None,
                 "generation": None} for r in rows]

    def message_heads(self, session_row: int, prefix: int) -> builtins.list[dict[str, Any]]:
        return self.run(
            "SELECT message_index, role, kind, substr(text, 1, %s) AS t, length(text) AS n FROM messages"
            " WHERE session_row=%s ORDER BY message_index",
            (prefix, session_row),
        )

    def tool_calls_between(self, session_row: int, lo: int, hi: int) -> builtins.list[dict[str, Any]]:
        return self.run(
            "SELECT call_id, name, status, exit_code, message_index FROM tool_calls"
            " WHERE session_row=%s AND message_index>=%s AND message_index<=%s ORDER BY id",
            (session_row, lo, hi),
        )


def _roles(roles: Iterable[str] | None) -> tuple[str, list[str]]:
    """`` AND (...)`` for a set of roles, as the local store reads them (``user`` = the
    person's own messages, without injected ``meta`` records)."""
    if not roles:
        return "", []
    parts, args = [], []
    for r in roles:
        if r == "user":
            parts.append("(m.role='user' AND m.kind<>'meta')")
        else:
            parts.append("m.role=%s")
            args.append(r)
    return " AND (" + " OR ".join(parts) + ")", args
