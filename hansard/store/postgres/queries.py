"""The team store's reads, by facet: :class:`TeamTables` is a
:class:`~hansard.store.interfaces.Store` over the team tables, whatever runs the SQL.

The same SQL serves the server (PostgreSQL, through psycopg) and the offline copy that
``hansard team pull`` keeps (SQLite, :mod:`hansard.store.sqlite.team_copy`): both hold the
tables of :mod:`hansard.store.postgres.migrations` and only the placeholder differs. Every
query leaves out one member-machine (``me``): this machine's own sessions are answered from
the local store, never twice. Rows are dicts; ids are the team store's own, and so is a
repository's row (``repos.id``): a caller finds it by identity, ``repos.id_by_identity(root
commit, remote)``, as it finds a local one.
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hansard.store.absent import (
    NoArchive,
    NoAudit,
    NoCommitDiffs,
    NoCommitFacts,
    NoGitSources,
    NoItems,
    NoOwnCommits,
    NoStats,
    NoSymbols,
    NoWebChats,
    NoWhyCache,
    no_shared_hits,
)
from hansard.store.types import Candidate, SearchFilters, split_at

Run = Callable[[str, Sequence[Any]], list[dict[str, Any]]]

# Hashes per `IN (...)`: one statement for any file a person would blame, and under SQLite's
# variable limit for the offline copy.
CHUNK = 5000

_SESSION_COLS = (
    "s.id, s.session_id, s.provider, s.cwd, s.started_at, s.last_at, s.title, s.first_prompt, s.parent_session_id,"
    " s.resumed_from, s.git_branch, s.version, s.message_count, r.root_commit, mb.email AS member,"
    " mb.name AS member_name, mb.machine AS member_machine, s.origin, s.origin_ref, s.claimed_id"
)
_FROM_SESSIONS = " FROM sessions s JOIN members mb ON mb.id=s.member_id JOIN repos r ON r.id=s.repo_id"
_NOT_ME = " NOT (mb.email=%s AND mb.machine=%s)"


def _marks(n: int) -> str:
    return ",".join(["%s"] * n)


def _same_repo(n: int) -> str:
    """``(...)`` of every repository row with the identity of one of ``n`` given rows: a row
    stands for its repository (a store where each member writes its own rows holds one per
    member and root commit)."""
    return (f"(SELECT x.id FROM repos x WHERE x.root_commit IN (SELECT y.root_commit FROM repos y"
            f" WHERE y.id IN ({_marks(n)})))")


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


def _like_prefix(ref: str) -> str:
    """The LIKE pattern of ids starting with ``ref`` literally (backslash escapes)."""
    from hansard.store.sqlite.db import like_escape

    return like_escape(ref) + "%"


_EDIT_LINE_COLS = ("SELECT el.hash, el.exact, el.trivial, e.id, e.rel_path, e.timestamp, e.call_id, s.provider,"
                   " e.user_modified, e.tool, s.session_id, e.message_index, s.id AS srow"
                   " FROM edit_lines el JOIN edits e ON e.id=el.edit_id JOIN sessions s ON s.id=e.session_row"
                   " JOIN members mb ON mb.id=s.member_id")


class TeamEvidence:
    """:class:`~hansard.store.interfaces.EvidenceIndex` over the team tables. A repository is
    this store's own row (``repos.id``, found by identity through ``repos.id_by_identity``);
    every row is another member's."""

    def __init__(self, run: Run, me: tuple[str, str], *, combined: bool = False) -> None:
        self.run = run
        self.me = me
        self.combined = combined  # PostgreSQL: edit_lines_with_sessions answers in one round trip

    # -- edits --------------------------------------------------------------------------

    def edit_lines(self, repo_id: int, hashes: Iterable[int], side: str = "+") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        hl = list(hashes)
        for i in range(0, len(hl), CHUNK):
            part = hl[i:i + CHUNK]
            out += self.run(
                f"{_EDIT_LINE_COLS} WHERE el.side=%s AND el.hash IN ({_marks(len(part))})"
                f" AND e.repo_id IN {_same_repo(1)} AND{_NOT_ME}",
                (side, *part, repo_id, *self.me),
            )
        return out

    def edit_lines_with_sessions(self, repo_id: int, hashes: Iterable[int], side: str = "+"
                                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """``edit_lines``, the sessions of those edits and their typed prompts: from PostgreSQL
        in one round trip (a question about a file is one query to the server); from the
        offline copy, three cheap local queries."""
        hl = list(hashes)
        if not self.combined:
            lines = self.edit_lines(repo_id, hl, side)
            ids = sorted({r["session_id"] for r in lines})
            return lines, self.sessions_named(ids), self.prompts(ids)
        sql = f"{_EDIT_LINE_COLS} WHERE el.side=%s AND el.hash = ANY(%s::bigint[]) AND e.repo_id IN {_same_repo(1)} AND{_NOT_ME}"
        rows = self.run(
            f"WITH l AS ({sql})"
            " SELECT (SELECT COALESCE(json_agg(l), '[]') FROM l) AS lines,"
            f" (SELECT COALESCE(json_agg(x), '[]') FROM (SELECT {_SESSION_COLS}{_FROM_SESSIONS}"
            "   WHERE s.id IN (SELECT srow FROM l)) x) AS sessions,"
            " (SELECT COALESCE(json_agg(p ORDER BY p.message_index), '[]') FROM (SELECT s.session_id, m.message_index,"
            "   m.text FROM messages m JOIN sessions s ON s.id=m.session_row WHERE m.session_row IN (SELECT srow FROM l)"
            "   AND m.role='user' AND m.kind='text') p) AS prompts",
            (side, hl, repo_id, *self.me),
        )
        r = rows[0]
        return r["lines"], r["sessions"], r["prompts"]

    def edit_lines_at(self, repo_id: int, hashes: Iterable[int], paths: Collection[str], side: str = "+", *,
                      others: bool = True) -> tuple[list[dict[str, Any]], list[tuple[int, str | None, str | None]]]:
        """``edit_lines`` of the edits of ``paths``, and (hash, rel_path, timestamp) of the other
        edits' matching non-trivial lines, once per edit and hash."""
        return split_at(self.edit_lines(repo_id, hashes, side), paths, others=others)

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

    def has_applied_edits(self, repo_id: int, paths: Collection[str]) -> bool:
        if not paths:
            return False
        return bool(self.run(
            "SELECT 1 AS one FROM edits e JOIN sessions s ON s.id=e.session_row JOIN members mb ON mb.id=s.member_id"
            f" WHERE e.repo_id IN {_same_repo(1)} AND e.rel_path IN ({_marks(len(paths))}) AND{_NOT_ME} LIMIT 1",
            (repo_id, *paths, *self.me),
        ))

    def unlinked_hashes(self, hashes: Iterable[int], basename: str) -> set[int]:
        """None: every pushed edit belongs to a repository (a push sends linked edits only)."""
        return set()

    def added_anywhere(self, hashes: Iterable[int]) -> set[int]:
        hl = sorted(set(hashes))
        if not hl:
            return set()
        return {int(r["hash"]) for r in self.run(
            "SELECT DISTINCT hash FROM edit_lines WHERE side='+' AND hash = ANY(%s::bigint[])", (hl,))}

    def applied_edits(self, repo_id: int, paths: Collection[str]) -> list[dict[str, Any]]:
        if not paths:
            return []
        return self.run(
            "SELECT e.id, e.call_id, e.tool, e.kind, e.rel_path, e.timestamp, e.hunks, 'applied' AS status,"
            " s.session_id, s.provider, s.title, s.first_prompt, s.started_at, s.last_at, s.parent_session_id,"
            " s.id AS srow, e.message_index, mb.email AS member, mb.name AS member_name, s.origin, s.origin_ref,"
            " s.claimed_id FROM edits e JOIN sessions s ON s.id=e.session_row JOIN members mb ON mb.id=s.member_id"
            f" WHERE e.repo_id IN {_same_repo(1)} AND e.rel_path IN ({_marks(len(paths))}) AND{_NOT_ME}",
            (repo_id, *paths, *self.me),
        )

    def session_edits(self, session_row: int) -> list[dict[str, Any]]:
        return self.run("SELECT id, rel_path, timestamp FROM edits WHERE session_row=%s", (session_row,))

    def sessions_editing_repo(self, repo_id: int, except_row: int) -> list[int]:
        return [r["id"] for r in self.run(
            "SELECT DISTINCT s.id FROM edits e JOIN sessions s ON s.id=e.session_row JOIN members mb ON"
            f" mb.id=s.member_id WHERE e.repo_id IN {_same_repo(1)} AND s.id<>%s AND{_NOT_ME}",
            (repo_id, except_row, *self.me),
        )]

    # -- tool calls -------------------------------------------------------------------------

    def repo_shell_calls(self, repo_id: int, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        """(session id, timestamp, input JSON, output) of calls to ``tools`` in the repository
        whose input mentions ``needle``."""
        if not tools:
            return []
        rows = self.run(
            "SELECT s.session_id, t.timestamp, t.input, t.output FROM tool_calls t JOIN sessions s ON s.id=t.session_row"
            " JOIN members mb ON mb.id=s.member_id"
            f" WHERE s.repo_id IN {_same_repo(1)} AND t.name IN ({_marks(len(tools))})"
            f" AND t.input LIKE %s ESCAPE '\\' AND{_NOT_ME}",
            (repo_id, *tools, contains(needle), *self.me),
        )
        return [(r["session_id"], r["timestamp"], r["input"], r["output"]) for r in rows]

    def repo_tool_inputs(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        return [(ts, inp) for _, ts, inp, _ in self.repo_shell_calls(repo_id, tools, needle)]

    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> list[dict[str, Any]]:
        if not tools:
            return []
        return self.run(
            "SELECT call_id, name, input, output, exit_code, status, timestamp, cwd, message_index FROM tool_calls"
            f" WHERE session_row=%s AND name IN ({_marks(len(tools))}) ORDER BY timestamp, id",
            (session_row, *tools),
        )

    def steps(self, session_rows: Collection[int]) -> list[dict[str, Any]]:
        """None: step snapshots are not pushed."""
        return []

    # -- sessions -----------------------------------------------------------------------------

    def sessions_named(self, session_ids: Collection[str]) -> list[dict[str, Any]]:
        """Other members' sessions with these ids (with ``root_commit`` and the member)."""
        if not session_ids:
            return []
        return self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id IN ({_marks(len(session_ids))}) AND{_NOT_ME}",
            (*session_ids, *self.me),
        )

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

    def user_prompts(self, session_id: str) -> list[tuple[int, str]]:
        return [(r["message_index"], r["text"]) for r in self.prompts([session_id])]

    def session(self, session_id: str) -> dict[str, Any] | None:
        rows = self.sessions_named([session_id])
        return rows[0] if rows else None

    def session_at(self, session_row: int) -> dict[str, Any] | None:
        rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.id=%s", (session_row,))
        return rows[0] if rows else None

    def top_sessions_in_repo(self, repo_id: int) -> list[dict[str, Any]]:
        return self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.repo_id IN {_same_repo(1)} AND s.parent_session_id IS NULL"
            f" AND{_NOT_ME} ORDER BY s.last_at DESC",
            (repo_id, *self.me),
        )

    def sessions_resuming(self, session_id: str) -> list[dict[str, Any]]:
        return self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.resumed_from=%s AND{_NOT_ME}",
                        (session_id, *self.me))

    def sessions_summarised_by(self, session_id: str) -> list[dict[str, Any]]:
        """None: the summary links (leaf ids) are not pushed."""
        return []

    def sessions_summarising(self, session_row: int) -> list[dict[str, Any]]:
        """None, as for ``sessions_summarised_by``."""
        return []

    def compactions(self, session_row: int) -> int:
        rows = self.run("SELECT COUNT(*) AS n FROM messages WHERE session_row=%s AND kind='compaction_summary'",
                        (session_row,))
        return int(rows[0]["n"]) if rows else 0

    def subagents(self, session_id: str) -> list[dict[str, Any]]:
        return self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.parent_session_id=%s AND{_NOT_ME}",
                        (session_id, *self.me))

    def session_sources(self) -> list[dict[str, Any]]:
        """None: a teammate's transcript files stay on their machine."""
        return []


class TeamSessions:
    """:class:`~hansard.store.interfaces.SessionQueries` over the team tables: other members'
    sessions, read in windows like local ones. No source files, raw records or checkout paths
    (they stay on each machine)."""

    def __init__(self, run: Run, me: tuple[str, str]) -> None:
        self.run = run
        self.me = me

    def _one(self, sql: str, args: Sequence[Any] = ()) -> Any:
        rows = self.run(sql, args)
        return next(iter(rows[0].values())) if rows else None

    def data_version(self) -> int:
        """The newest session row: a push writes a session's rows again under new ids."""
        return int(self._one("SELECT COALESCE(MAX(id), 0) AS n FROM sessions") or 0)

    def status(self) -> dict[str, Any]:
        return {t: int(self._one(f"SELECT COUNT(*) AS n FROM {t}") or 0)
                for t in ("members", "repos", "sessions", "messages", "tool_calls", "edits")}

    def index_state(self) -> dict[str, Any]:
        """As the local store's; a team store is filled by pushes, never by an index run."""
        rows = self.run("SELECT MIN(started_at) AS since, MAX(last_at) AS through FROM sessions", ())
        r = rows[0] if rows else {"since": None, "through": None}
        return {"indexed_from": r["since"], "indexed_through": r["through"], "backfill_complete": True,
                "index_built_at": None}

    def provider_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in self.run(f"SELECT s.provider, COUNT(*) AS n, COALESCE(SUM(s.message_count), 0) AS m{_FROM_SESSIONS}"
                          f" WHERE{_NOT_ME} GROUP BY s.provider", self.me):
            out[r["provider"]] = {"sessions": int(r["n"]), "messages": int(r["m"]), "edits": 0}
        for r in self.run("SELECT s.provider, COUNT(*) AS n FROM edits e JOIN sessions s ON s.id=e.session_row"
                          f" JOIN members mb ON mb.id=s.member_id WHERE{_NOT_ME} GROUP BY s.provider", self.me):
            out.setdefault(r["provider"], {"sessions": 0, "messages": 0, "edits": 0})["edits"] = int(r["n"])
        return out

    def list(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
             since: str | None = None, limit: int = 20, exclude_providers: Sequence[str] = ()) -> list[dict[str, Any]]:
        """Other members' sessions newest first, with the member; ``repo`` is None (no checkout
        path here)."""
        if repo_ids is not None and not repo_ids:
            return []
        where, args = self._listed(repo_ids, provider, since, exclude_providers)
        rows = self.run(
            f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE {where} ORDER BY s.last_at DESC LIMIT %s",
            (*args, limit),
        )
        return [{**r, "repo": None} for r in rows]

    def list_count(self, *, repo_ids: Sequence[int] | None = None, provider: str | None = None,
                   since: str | None = None, exclude_providers: Sequence[str] = ()) -> int:
        """How many sessions ``list`` with the same filters would give without its limit."""
        if repo_ids is not None and not repo_ids:
            return 0
        where, args = self._listed(repo_ids, provider, since, exclude_providers)
        rows = self.run(f"SELECT COUNT(*) AS n{_FROM_SESSIONS} WHERE {where}", tuple(args))
        return int(rows[0]["n"])

    def _listed(self, repo_ids: Sequence[int] | None, provider: str | None, since: str | None,
                exclude_providers: Sequence[str]) -> tuple[str, builtins.list[Any]]:
        where: builtins.list[str] = [_NOT_ME]
        args: builtins.list[Any] = list(self.me)
        if repo_ids is not None:
            where.append(f"s.repo_id IN {_same_repo(len(repo_ids))}")
            args += list(repo_ids)
        if provider:
            where.append("s.provider=%s")
            args.append(provider)
        if exclude_providers:
            where.append(f"s.provider NOT IN ({_marks(len(exclude_providers))})")
            args += list(exclude_providers)
        if since:
            where.append("s.last_at>=%s")
            args.append(since)
        return " AND ".join(where), args

    def matches(self, ref: str) -> builtins.list[dict[str, Any]]:
        """Other members' sessions with this id, else whose id starts with ``ref`` (4 characters
        at least): at most two, so the caller can tell a unique prefix from an ambiguous one."""
        rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id=%s AND{_NOT_ME} LIMIT 2",
                        (ref, *self.me))
        if not rows and len(ref) >= 4:
            rows = self.run(f"SELECT {_SESSION_COLS}{_FROM_SESSIONS} WHERE s.session_id LIKE %s ESCAPE '\\'"
                            f" AND{_NOT_ME} LIMIT 2", (_like_prefix(ref), *self.me))
        return rows

    def find(self, ref: str) -> dict[str, Any]:
        """A session by id, or by a unique prefix of it (``NotFound`` otherwise)."""
        from hansard.errors import NotFound

        rows = self.matches(ref)
        if len(rows) > 1:
            raise NotFound(f"session prefix {ref!r} is ambiguous")
        if not rows:
            raise NotFound(f"no session {ref!r}")
        return rows[0]

    def repo_path_of(self, ref: str) -> tuple[bool, str | None]:
        return bool(self.matches(ref)), None

    def repo_paths_of(self, ref: str) -> builtins.list[tuple[str, str | None]]:
        """Without paths: a teammate's repository is known by its root commit (the team view
        finds this member's checkout of it)."""
        return [(r["session_id"], None) for r in self.matches(ref)]

    def repo_path(self, repo_id: int | None) -> str | None:
        return None

    def repo_ids_at(self, paths: Sequence[str]) -> builtins.list[int]:
        return []

    def repo_ids_with_root(self, root_commit: str) -> builtins.list[int]:
        return [int(r["id"]) for r in self.run("SELECT id FROM repos WHERE root_commit=%s", (root_commit,))]

    def repo_ids_named(self, name: str) -> builtins.list[int]:
        return [int(r["id"]) for r in self.run("SELECT id FROM repos WHERE name=%s", (name,))]

    def subagents(self, session_id: str) -> builtins.list[str]:
        return [r["session_id"] for r in self.run(
            f"SELECT s.session_id{_FROM_SESSIONS} WHERE s.parent_session_id=%s AND{_NOT_ME}", (session_id, *self.me))]

    def indexes_before(self, sid: int, before: int, roles: Iterable[str] | None, limit: int) -> builtins.list[int]:
        rwhere, rargs = _roles(roles)
        return [r["message_index"] for r in self.run(
            f"SELECT message_index FROM messages m WHERE session_row=%s AND message_index<%s{rwhere}"
            " ORDER BY message_index DESC LIMIT %s",
            (sid, before, *rargs, limit),
        )]

    def messages_from(self, sid: int, first: int, roles: Iterable[str] | None, limit: int
                      ) -> builtins.list[dict[str, Any]]:
        """Messages from ``first`` on, in order. A teammate's archive stays on their machine:
        no source file, model or cwd."""
        rwhere, rargs = _roles(roles)
        rows = self.run(
            "SELECT message_index, role, kind, text, timestamp FROM messages m"
            f" WHERE session_row=%s AND message_index>=%s{rwhere} ORDER BY message_index LIMIT %s",
            (sid, first, *rargs, limit),
        )
        return [{**r, "model": None, "cwd": None, "source_path": None, "offset": None, "source_id": None,
                 "generation": None} for r in rows]

    def message_heads(self, sid: int, prefix: int) -> builtins.list[dict[str, Any]]:
        return self.run(
            "SELECT message_index, role, kind, substr(text, 1, %s) AS t, length(text) AS n FROM messages"
            " WHERE session_row=%s ORDER BY message_index",
            (prefix, sid),
        )

    def tool_calls_between(self, sid: int, lo: int, hi: int) -> builtins.list[dict[str, Any]]:
        return self.run(
            "SELECT call_id, name, status, exit_code, message_index FROM tool_calls"
            " WHERE session_row=%s AND message_index>=%s AND message_index<=%s ORDER BY id",
            (sid, lo, hi),
        )

    def call_details(self, sid: int, call_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """None: a teammate's calls are shown without their diffs (the server keeps their
        messages and tool calls, not what `hansard show` renders them with)."""
        return {}

    def closing_message(self, session_id: str) -> tuple[int, str] | None:
        """None: a teammate's session is read through the team view's local questions."""
        return None

    def last_edit_index(self, session_id: str) -> int | None:
        return None

    def redactions(self, session_ids: Sequence[str]) -> dict[str, int]:
        return {}

    def records_between(self, source_id: int, generation: int, lo: int, hi: int) -> int:
        return 0

    def raw_record(self, source_id: int, offset: int) -> str | None:
        return None


class TeamRepos:
    """:class:`~hansard.store.interfaces.RepoRegistry` over the team tables: repositories by
    identity (root commit), written by a push (``uploads.repo``), never by the link stage. No
    checkout paths: they belong to each machine."""

    def __init__(self, run: Run, me: tuple[str, str]) -> None:
        self.run = run
        self.me = me
        self._ids: dict[str, int] = {}

    def _refuse(self) -> Exception:
        from hansard.errors import StoreReadOnly

        return StoreReadOnly("the team store's repositories are written by `hansard team push` only")

    def id_by_path(self, path: str) -> int | None:
        return None

    def know(self, ids: dict[str, int]) -> None:
        """Repository rows by root commit, read with something else (a reader's schema check):
        a row, once there, keeps its id, so they are not asked again."""
        self._ids.update(ids)

    def id_by_identity(self, root_commit: str, remote: str | None) -> int | None:
        """A row of the repository (the first; any stands for all of its identity)."""
        if root_commit in self._ids:
            return self._ids[root_commit]
        rows = self.run("SELECT MIN(id) AS id FROM repos WHERE root_commit=%s HAVING COUNT(*) > 0", (root_commit,))
        if not rows:
            return None  # not remembered: a later push may add it
        self._ids[root_commit] = int(rows[0]["id"])
        return self._ids[root_commit]

    def root_commit(self, repo_id: int) -> str | None:
        rows = self.run("SELECT root_commit FROM repos WHERE id=%s", (repo_id,))
        return rows[0]["root_commit"] if rows else None

    def register(self, root_commit: str | None, remote: str | None, path: str, key_fields: Collection[str] = (),
                 wait: bool = True) -> int:
        raise self._refuse()

    def path_of(self, repo_id: int | None) -> str | None:
        return None

    def paths(self) -> list[str]:
        return []

    def has_sessions(self, repo_id: int) -> bool:
        return bool(self.run(f"SELECT 1 AS one{_FROM_SESSIONS} WHERE s.repo_id IN {_same_repo(1)} AND{_NOT_ME} LIMIT 1",
                             (repo_id, *self.me)))

    def with_sessions(self) -> list[tuple[int, str]]:
        return []

    def path_maps(self) -> list[tuple[str, str]]:
        return []

    def add_path_map(self, old: str, new: str) -> None:
        raise self._refuse()

    def unresolved_sessions(self) -> list[dict[str, Any]]:
        return []

    def unresolved_edits(self) -> list[dict[str, Any]]:
        return []

    def unresolved_project_keys(self, provider: str, field: str) -> list[dict[str, Any]]:
        return []

    def session_paths(self, session_row: int) -> tuple[list[dict[str, Any]], list[str]]:
        return [], []

    def session_repo(self, session_row: int) -> int | None:
        return None

    def ids_by_root(self, root_commit: str) -> list[tuple[int, str]]:
        return []

    def session_cwds(self) -> list[str]:
        return []

    def set_session_cwd(self, session_row: int, cwd: str) -> None:
        raise self._refuse()

    def link_session(self, session_row: int, repo_id: int | None) -> None:
        raise self._refuse()

    def link_edit(self, edit_row: int, repo_id: int | None, rel_path: str | None) -> None:
        raise self._refuse()


class TeamMemories:
    """:class:`~hansard.store.interfaces.MemoryStore` over the team tables: other members'
    project memories (their current text, pushed redacted). A memory's public id is
    ``team-<row>``; ``repo_path`` is None (the asking machine knows its checkout) and
    ``root_commit`` names the repository. A handful of files per repository and member: the
    query's words are matched here, not ranked by the server."""

    def __init__(self, run: Run, me: tuple[str, str]) -> None:
        self.run = run
        self.me = me

    def _refuse(self) -> Exception:
        from hansard.errors import StoreReadOnly

        return StoreReadOnly("the team store's memories are written by `hansard team push` only")

    def _rows(self, where: str, args: Sequence[Any]) -> builtins.list[dict[str, Any]]:
        return [self._row(r) for r in self.run(
            "SELECT m.id, m.memory_id, m.kind, m.source, m.rel_path, m.title, m.text, m.sha256, m.seen_at,"
            " r.root_commit, mb.email AS member, mb.name AS member_name FROM memories m"
            " JOIN members mb ON mb.id=m.member_id JOIN repos r ON r.id=m.repo_id"
            f" WHERE {where} AND{_NOT_ME} ORDER BY m.id",
            (*args, *self.me),
        )]

    @staticmethod
    def _row(r: dict[str, Any]) -> dict[str, Any]:
        return {"id": r["id"], "version_id": r["id"], "memory_id": f"team-{r['id']}", "kind": r["kind"],
                "source": r["source"], "scope": "project", "title": r["title"],
                "path": r["rel_path"] or f"team-{r['id']}", "repo_path": None, "root_commit": r["root_commit"],
                "rel_path": r["rel_path"], "last_seen": r["seen_at"], "first_seen": None, "missing": 0,
                "text": r["text"], "member": r["member"], "member_name": r["member_name"], "sha256": r["sha256"]}

    def transaction(self) -> AbstractContextManager[None]:
        raise self._refuse()

    def project_roots(self) -> builtins.list[tuple[str, int]]:
        return []

    def project_of_folder(self, folder: str) -> tuple[int | None, str | None]:
        return None, None

    def root_scanned_at(self, path: str) -> float | None:
        return None

    def mark_root_scanned(self, path: str, repo_id: int | None, at: float) -> None:
        raise self._refuse()

    def known(self) -> dict[str, dict[str, Any]]:
        return {}

    def mark_missing(self, row_id: int) -> None:
        raise self._refuse()

    def set_scope(self, row_id: int, scope: str, repo_id: int | None) -> None:
        raise self._refuse()

    def save(self, row_id: int | None, *, memory_id: str, path: str, kind: str, source: str, scope: str,
             repo_id: int | None, root: str | None, rel_path: str | None, title: str, sha256: str, text: str,
             mtime_ns: int, size: int, at: str) -> bool:
        raise self._refuse()

    def count(self) -> int:
        rows = self.run(f"SELECT COUNT(*) AS n FROM memories m JOIN members mb ON mb.id=m.member_id WHERE{_NOT_ME}",
                        self.me)
        return int(rows[0]["n"]) if rows else 0

    def current(self, q: Any, *, project: tuple[Sequence[int], str | None] | None = None,
                sources: Sequence[str] = ()) -> builtins.list[dict[str, Any]]:
        """Memories whose text holds a word of any term group of ``q`` (all when it is empty),
        ``relevance`` 0.0 (not ranked); ``project``'s repository rows narrow them (the checkout
        root is not known here)."""
        if project is not None:
            ids = list(project[0] or ())
            if not ids:
                return []
            rows = self._rows(f"m.repo_id IN {_same_repo(len(ids))}", ids)
        else:
            rows = self._rows("1=1", ())
        groups = [[w.casefold() for t in g for w in ([t.text] if t.identifier else t.words)] for g in q.groups]
        excluded = [[w.casefold() for w in t.words] for t in q.exclude]
        out = []
        for r in rows:
            if any(v not in (r["source"], r["kind"]) for v in sources):
                continue
            low = (r["text"] or "").casefold()
            if groups and not any(w in low for g in groups for w in g):
                continue
            if any(ws and all(w in low for w in ws) for ws in excluded):
                continue
            out.append(r | {"relevance": 0.0})
        return out

    def get(self, memory_id: str) -> dict[str, Any] | None:
        if not memory_id.startswith("team-") or not memory_id[5:].isdigit():
            return None
        found = self._rows("m.id=%s", (int(memory_id[5:]),))
        return found[0] if found else None

    def versions(self, row_id: int) -> builtins.list[dict[str, Any]]:
        """The current text alone: a push keeps no history."""
        return [{"id": r["id"], "sha256": r["sha256"], "seen_at": r["last_seen"], "text": r["text"]}
                for r in self._rows("m.id=%s", (row_id,))]


def _filters(f: SearchFilters, me: tuple[str, str]) -> tuple[list[str], list[Any]]:
    """SQL conditions (on ``m``, ``s``, ``mb``) of a search's filters, over other members' rows."""
    where: list[str] = [_NOT_ME]
    args: list[Any] = list(me)
    if f.repo_ids is not None:
        where.append(f"s.repo_id IN {_same_repo(len(f.repo_ids))}" if f.repo_ids else "1=0")
        args += list(f.repo_ids)
    if f.provider:
        where.append("s.provider=%s")
        args.append(f.provider)
    time_bounds(where, args, f.since, None)
    if f.until:
        where.append("m.timestamp<%s")
        args.append(f.until)
    if f.roles:
        rwhere, rargs = _roles(f.roles)
        where.append(rwhere[len(" AND "):])
        args += rargs
    for rows in (f.file_sessions, f.commit_sessions):
        if rows is not None:
            where.append(f"s.id IN ({_marks(len(rows))})" if rows else "1=0")
            args += sorted(rows)
    if f.tool_names is not None:
        where.append("s.id IN (SELECT session_row FROM tool_calls WHERE name IN"
                     f" ({_marks(len(f.tool_names))}))" if f.tool_names else "1=0")
        args += list(f.tool_names)
    if f.command and f.shell_tools:
        where.append(f"s.id IN (SELECT session_row FROM tool_calls WHERE name IN ({_marks(len(f.shell_tools))})"
                     " AND input LIKE %s ESCAPE '\\')")
        args += [*f.shell_tools, contains(f.command)]
    if not f.include_subagents:
        where.append("s.parent_session_id IS NULL")
    if f.exclude_session_ids:
        where.append(f"s.session_id NOT IN ({_marks(len(f.exclude_session_ids))})")
        args += list(f.exclude_session_ids)
    return where, args


_FROM_MESSAGES = (" FROM messages m JOIN sessions s ON s.id=m.session_row JOIN members mb ON mb.id=s.member_id"
                  " JOIN repos r ON r.id=s.repo_id")


class TeamSearchIndex:
    """:class:`~hansard.store.interfaces.SearchIndex` over the team tables: words matched
    literally (LIKE, the same in PostgreSQL and SQLite), newest first, unranked (``bm25`` 0);
    the passage vectors members pushed with their sessions. Vectors are embedded on the pushing
    machine: nothing is embedded here, and the builder's writes are refused.
    :meth:`messages_containing` is the keyword search of team hits over the offline copy."""

    def __init__(self, run: Run, me: tuple[str, str]) -> None:
        self.run = run
        self.me = me

    def _refuse(self) -> Exception:
        from hansard.errors import StoreReadOnly

        return StoreReadOnly("the team store's vectors are written by `hansard team push` only")

    def keyword_candidates(self, q: Any, f: Any, k: int) -> tuple[builtins.list[Any], int, bool]:
        if f.impossible or q.empty:
            return [], 0, True
        where, args = _filters(f, self.me)
        for g in q.groups:
            words = [w for t in g for w in ([t.text] if t.identifier else [t.text])]
            where.append("(" + " OR ".join([_LIKE] * len(words)) + ")")
            args += [contains(w) for w in words]
        for t in q.exclude:
            where.append(f"NOT {_LIKE}")
            args.append(contains(t.text))
        rows = self.run(f"SELECT m.id, s.id AS sid{_FROM_MESSAGES} WHERE {' AND '.join(where)}"
                        " ORDER BY m.timestamp DESC, m.id DESC LIMIT %s", (*args, k + 1))
        out = [Candidate(int(r["id"]), via={"text"}) for r in rows[:k]]
        return out, len({r["sid"] for r in rows[:k]}), len(rows) <= k

    def recent_candidates(self, f: Any, k: int, per_session: int) -> builtins.list[Any]:
        if f.impossible:
            return []
        where, args = _filters(f, self.me)
        rows = self.run(f"SELECT m.id, s.id AS sid{_FROM_MESSAGES} WHERE {' AND '.join(where)}"
                        " ORDER BY s.last_at DESC, m.message_index DESC LIMIT %s", (*args, k * max(per_session, 1)))
        per: dict[int, int] = {}
        out: builtins.list[Any] = []
        for r in rows:
            per[r["sid"]] = per.get(r["sid"], 0) + 1
            if per[r["sid"]] <= per_session:
                out.append(Candidate(int(r["id"])))
            if len(out) >= k:
                break
        return out

    def hit_rows(self, ids: Sequence[int]) -> dict[int, Any]:
        if not ids:
            return {}
        return {r["id"]: r for r in self.run(
            "SELECT m.id, m.message_index, m.role, m.kind, m.timestamp, substr(m.text, 1, 20000) AS text,"
            " length(m.text) AS n, s.id AS sid, s.session_id, s.title, s.first_prompt, s.provider, s.started_at,"
            f" s.cwd, r.name AS repo, mb.email AS member, mb.name AS member_name{_FROM_MESSAGES}"
            f" WHERE m.id IN ({_marks(len(ids))})", list(ids))}

    def file_sessions(self, forms: Iterable[str]) -> set[int]:
        fl = list(forms)
        if not fl:
            return set()
        return {int(r["session_row"]) for r in self.run(
            f"SELECT DISTINCT session_row FROM edits WHERE rel_path IN ({_marks(len(fl))})", fl)}

    def commit_sessions(self, sha: str) -> set[int]:
        """None: commit ties are worked out on each machine, not kept here."""
        return set()

    def passing(self, ids: Sequence[int], f: Any) -> set[int]:
        if not ids or f.impossible:
            return set()
        where, args = _filters(f, self.me)
        return {int(r["id"]) for r in self.run(
            f"SELECT m.id{_FROM_MESSAGES} WHERE m.id IN ({_marks(len(ids))}) AND {' AND '.join(where)}",
            (*ids, *args))}

    def _top(self) -> int:
        rows = self.run("SELECT COALESCE(MAX(id), 0) AS n FROM messages", ())
        return int(rows[0]["n"]) if rows else 0

    def vector_mark(self, model: str) -> tuple[int | None, int]:
        """Every message is passed: vectors come with the push."""
        top = self._top()
        return top, top

    def vector_pending(self, model: str) -> tuple[int, int]:
        rows = self.run("SELECT COUNT(DISTINCT message_id) AS n FROM passage_vectors WHERE model=%s", (model,))
        n = int(rows[0]["n"]) if rows else 0
        return n, n

    def vector_stamp(self, model: str) -> tuple[str, str | None, int, int]:
        rows = self.run("SELECT COALESCE(MAX(message_id), 0) AS n FROM passage_vectors WHERE model=%s", (model,))
        top = int(rows[0]["n"]) if rows else 0
        return "team", None, top, top

    def vectors(self, model: str) -> tuple[builtins.list[tuple[int, int, int]], builtins.list[bytes]]:
        spans, blobs = [], []
        for r in self.run('SELECT message_id, start, "end", vector FROM passage_vectors WHERE model=%s'
                          " ORDER BY message_id, start", (model,)):
            spans.append((int(r["message_id"]), int(r["start"]), int(r["end"])))
            blobs.append(bytes(r["vector"]))
        return spans, blobs

    def snapshot(self) -> AbstractContextManager[None]:
        """Each read is one statement; a push replaces a session in one transaction."""
        return contextlib.nullcontext()

    def passage_count(self) -> int:
        rows = self.run("SELECT COUNT(*) AS n FROM passage_vectors", ())
        return int(rows[0]["n"]) if rows else 0

    def vector_dim(self, model: str) -> int | None:
        rows = self.run("SELECT length(vector) AS n FROM passage_vectors WHERE model=%s LIMIT 1", (model,))
        return int(rows[0]["n"]) // 2 if rows else None

    def passage_keys(self) -> builtins.list[tuple[int, int, int, bytes]]:
        """None: passages are pushed with their vectors, without a text hash."""
        return []

    def passages_with_vectors(self, model: str) -> Iterator[tuple[int, int, int, bytes, bytes | None]]:
        return iter(())

    def vectors_by_hash(self, model: str, hashes: Sequence[bytes]) -> dict[bytes, bytes]:
        return {}

    def to_embed(self, model: str, max_chars: int, batch: int) -> builtins.list[tuple[int, str]]:
        return []

    def known_texts(self, model: str, hashes: Sequence[bytes]) -> set[bytes]:
        return set()

    def add_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                    passages: Sequence[tuple[int, int, int, bytes]], through: int, at: str) -> None:
        raise self._refuse()

    def skip_vectors_to(self, model: str, at: str) -> None:
        raise self._refuse()

    def intent_to_embed(self, model: str, max_chars: int, batch: int) -> builtins.list[tuple[int, int, str]]:
        return []

    def add_intent_vectors(self, model: str, vectors: Sequence[tuple[bytes, bytes]],
                           texts: Sequence[tuple[int, int, bytes]], through: int, at: str) -> None:
        raise self._refuse()

    def intent_stamp(self, model: str) -> tuple[str, int, int]:
        return "team", 0, 0

    def intent_vectors(self, model: str) -> tuple[builtins.list[tuple[int, int, int]], builtins.list[bytes]]:
        """None: intent texts are not pushed."""
        return [], []

    def message_sessions(self, ids: Sequence[int]) -> dict[int, int]:
        if not ids:
            return {}
        return {int(r["id"]): int(r["session_row"]) for r in self.run(
            f"SELECT id, session_row FROM messages WHERE id IN ({_marks(len(ids))})", list(ids))}

    def shared_hits(self, q: Any, *, team: str | None, repo: str | None, since: str | None, until: str | None,
                    limit: int, mode: str, query: str) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """None beside its own: a team store's sessions are the team's (the team view of a
        member's machine asks them as ``shared_hits``)."""
        return no_shared_hits()

    def keyword_messages(self, q: Any, roots: Collection[str], since: str | None, until: str | None,
                         limit: int) -> builtins.list[dict[str, Any]]:
        """Messages of the copy whose text holds a word of every group of ``q`` (and none of an
        excluded term), newest first (no full-text index: words match literally)."""
        groups = [[w for t in g for w in ([t.text] if t.identifier else t.words)] for g in q.groups]
        return self.messages_containing(groups, [t.words for t in q.exclude], roots, since, until, limit)

    def nearest(self, model: str, qv: Any, roots: Collection[str], k: int) -> builtins.list[tuple[int, float, int, int]]:
        """None: the offline copy keeps no passage vectors (the server's search facet finds them)."""
        return []

    def vector_messages(self, ids: Sequence[int]) -> builtins.list[dict[str, Any]]:
        return []

    def messages_containing(self, groups: Sequence[Sequence[str]], excluded: Sequence[Sequence[str]],
                            roots: Collection[str], since: str | None, until: str | None,
                            limit: int) -> builtins.list[dict[str, Any]]:
        """Messages holding a word of every group (and not all words of any excluded group),
        newest first, with their session, in the repositories of these root commits: keyword
        search where no full-text index exists (the offline copy). Words match literally,
        case-insensitively for ASCII."""
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
            f" mb.name AS member_name{_FROM_MESSAGES} WHERE {' AND '.join(where)} AND{_NOT_ME}"
            " ORDER BY m.timestamp DESC LIMIT %s",
            (*args, *self.me, limit),
        )


class TeamTables:
    """A :class:`~hansard.store.interfaces.Store` over the team tables, whatever runs the SQL
    (PostgreSQL, or the offline copy's SQLite): the facets a team store holds read them, and
    those it keeps nothing of are the empty ones of :mod:`hansard.store.absent`. ``me`` (email,
    machine) is left out of every answer."""

    me: tuple[str, str]
    combined = False  # one round trip for a file's edit lines with their sessions (PostgreSQL)
    readonly = True  # through the protocols: only a push (``uploads``) writes a team store

    def run(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[dict[str, Any]]:
        raise NotImplementedError

    def interrupt(self) -> None:
        return None

    def close(self) -> None:
        return None

    @cached_property
    def archive(self) -> NoArchive:
        return NoArchive()

    @cached_property
    def items(self) -> NoItems:
        return NoItems()

    @cached_property
    def evidence(self) -> TeamEvidence:
        return TeamEvidence(self.run, self.me, combined=self.combined)

    @cached_property
    def commit_diffs(self) -> NoCommitDiffs:
        return NoCommitDiffs()

    @cached_property
    def why_cache(self) -> NoWhyCache:
        return NoWhyCache()

    @cached_property
    def stats(self) -> NoStats:
        return NoStats()

    @cached_property
    def commit_facts(self) -> NoCommitFacts:
        return NoCommitFacts()

    @cached_property
    def repos(self) -> TeamRepos:
        return TeamRepos(self.run, self.me)

    @cached_property
    def sessions(self) -> TeamSessions:
        return TeamSessions(self.run, self.me)

    @cached_property
    def search(self) -> TeamSearchIndex:
        return TeamSearchIndex(self.run, self.me)

    @cached_property
    def audit(self) -> NoAudit:
        return NoAudit()

    @cached_property
    def memories(self) -> TeamMemories:
        return TeamMemories(self.run, self.me)

    @cached_property
    def symbols(self) -> NoSymbols:
        return NoSymbols()

    @cached_property
    def own_commits(self) -> NoOwnCommits:
        return NoOwnCommits()

    @cached_property
    def web_chats(self) -> NoWebChats:
        return NoWebChats()

    @cached_property
    def git_sources(self) -> NoGitSources:
        return NoGitSources()


class TeamQueries(TeamTables):
    """The team store over a function that runs its SQL: the offline copy
    (``SqliteTeamCopy.run``), or any connection a caller holds."""

    def __init__(self, run: Run, me: tuple[str, str], *, combined: bool = False,
                 closer: Callable[[], None] | None = None) -> None:
        self._run = run
        self.me = me
        self.combined = combined
        self._closer = closer

    def close(self) -> None:
        if self._closer is not None:
            self._closer()
            self._closer = None

    def run(self, sql: str, params: Sequence[Any] = ()) -> builtins.list[dict[str, Any]]:
        return self._run(sql, params)


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


if TYPE_CHECKING:
    from hansard.store.interfaces import Store, TeamStore

    def _a_store(store: TeamTables) -> Store:
        """mypy holds the team store to every protocol of the Store (issue 26)."""
        return store

    def _a_team_store(store: TeamTables) -> TeamStore:
        return store
