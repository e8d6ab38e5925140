"""What this store shares with its team and what it holds from it (`hansard team`).

A push reads this machine's own rows: repository identities, the sessions that ran in given
repositories with their derived rows (messages, tool calls, applied edits with their line
hashes) and the current text of those repositories' project memories. Only derived rows are
read, redacted when they were written; the raw archive never is.

A pull writes the team's rows into the store's own tables, as the member's role read them from
the server (row-level security decided what that is), so that every question answers from
them as from this machine's. Always true of the rows held from the team:

- a row of id below zero in ``sessions``, ``messages``, ``tool_calls``, ``edits`` (and the
  ``edit_lines`` of such an edit), ``memories`` and ``memory_versions`` is the team's, its id
  there negated; every other row is this machine's, and a push reads only those;
- a team session carries ``member`` (the email the owner registered for its role) and
  ``member_name`` (what it calls itself); its edits are applied and linked to this store's
  repository row of the same root commit;
- a session this store records itself stays its own: the team's copy of a session of that id
  is left out (``team_sessions.kept`` = 0) and dropped when this machine records it later;
- the team's messages and tool calls are in the full-text indexes, whatever the indexes'
  watermarks say (those count this machine's rows, above zero);
- ``team_state`` names the team, server, member and machine the rows came from: rows of
  another are dropped before a pull writes, never mixed;
- every pull that writes moves the store's generation, so no cached answer outlives it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hansard.store.sqlite.codec import pack, unpack
from hansard.store.sqlite.db import OUTPUT_SQL, impatient, marks, transaction

if TYPE_CHECKING:
    from hansard.store.types import TeamPull

# The tables that hold the team's rows, with the column that says whose a row is.
TEAM_TABLES = (("sessions", "id"), ("messages", "id"), ("tool_calls", "id"), ("edits", "id"),
               ("edit_lines", "edit_id"), ("passage_vectors", "message_id"))


class SqliteTeam:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    # -- what a push sends: this machine's rows (ids above zero) --------------------------------

    def repo_ids_with_root(self, root_commit: str) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM repos WHERE root_commit=?", (root_commit,))]

    def sessions_in(self, repo_ids: Sequence[int]) -> list[dict[str, Any]]:
        """Every session of this machine's that ran in, or edited files of, these repositories."""
        if not repo_ids:
            return []
        m = marks(len(repo_ids))
        return [dict(r) for r in self.db.execute(
            "SELECT id, session_id, provider, cwd, started_at, last_at, title, first_prompt, parent_session_id,"
            " resumed_from, git_branch, version, message_count, repo_id, origin, origin_ref, claimed_id FROM sessions"
            f" WHERE id > 0 AND (repo_id IN ({m})"
            f" OR id IN (SELECT session_id FROM edits WHERE repo_id IN ({m}) AND status='applied'))"
            " ORDER BY id",
            (*repo_ids, *repo_ids),
        )]

    def session_rows(self, session_row: int, repo_ids: Sequence[int]) -> dict[str, list[dict[str, Any]]]:
        """messages, tool_calls and edits (each with ``lines``: side, ordinal, hash, exact,
        trivial) of one session; edits only those applied in ``repo_ids``."""
        db = self.db
        if session_row <= 0:
            return {"messages": [], "tool_calls": [], "edits": []}
        messages = [dict(r) for r in db.execute(
            "SELECT message_index, role, kind, text, timestamp FROM messages WHERE session_id=? ORDER BY message_index",
            (session_row,),
        )]
        tool_calls = [dict(r) for r in db.execute(
            f"SELECT m.message_index, t.call_id, t.name, t.input, {OUTPUT_SQL} AS output, t.exit_code, t.status,"
            " t.timestamp, t.cwd"
            " FROM tool_calls t LEFT JOIN messages m ON m.id=t.message_id WHERE t.session_id=? ORDER BY t.id",
            (session_row,),
        )]
        edits = []
        for r in db.execute(
            "SELECT e.id, e.repo_id, m.message_index, e.call_id, e.seq, e.tool, e.kind, e.rel_path, e.timestamp,"
            " e.user_modified, e.hunks, e.after_text FROM edits e LEFT JOIN messages m ON m.id=e.message_id"
            f" WHERE e.session_id=? AND e.status='applied' AND e.rel_path IS NOT NULL"
            f" AND e.repo_id IN ({marks(len(repo_ids)) or 'NULL'}) ORDER BY e.id",
            (session_row, *repo_ids),
        ):
            d = dict(r)
            d["after_text"] = unpack(d["after_text"]) if d["after_text"] is not None else None
            d["lines"] = [tuple(x) for x in db.execute(
                "SELECT side, ordinal, hash, exact, trivial FROM edit_lines WHERE edit_id=? ORDER BY side, ordinal",
                (d["id"],),
            )]
            edits.append(d)
        return {"messages": messages, "tool_calls": tool_calls, "edits": edits}

    def memories_in(self, repo_ids: Sequence[int]) -> list[dict[str, Any]]:
        """This machine's present project memories of these repositories with their current
        text (global ones are a person's own and never leave the machine)."""
        if not repo_ids:
            return []
        return [dict(r) for r in self.db.execute(
            "SELECT m.memory_id, m.kind, m.source, m.rel_path, m.title, v.text, v.seen_at FROM memories m"
            " JOIN memory_versions v ON v.id=m.version_id"
            f" WHERE m.id > 0 AND m.missing=0 AND m.scope='project' AND m.repo_id IN ({marks(len(repo_ids))})"
            " ORDER BY m.memory_id",
            list(repo_ids),
        )]

    # -- what a pull keeps ----------------------------------------------------------------------

    def state(self) -> dict[str, Any] | None:
        """The team the held rows are from (team, url, member, machine, and the opted-in ``roots``
        pulled, sorted and comma-joined), when they were pulled
        (``pulled_at``), the last attempt (``tried_at``, ``error``) and what is held
        (``sessions``, ``memories``); None when nothing was ever pulled."""
        row = self.db.execute("SELECT team, url, member, machine, roots, pulled_at, tried_at, error FROM team_state"
                              ).fetchone()
        if row is None:
            return None
        held = self.db.execute("SELECT (SELECT COUNT(*) FROM team_sessions WHERE kept=1),"
                               " (SELECT COUNT(*) FROM memories WHERE id < 0)").fetchone()
        return {**dict(row), "sessions": held[0], "memories": held[1]}

    def wanted(self, seen: Mapping[int, tuple[str, str, str, str | None]]) -> list[int]:
        """Of the sessions the team shares now (team row -> session id, digest, member, member
        name), those whose rows a pull must fetch: new, changed, or left out before for a
        session this store no longer has."""
        have = {r[0]: (r[1], r[2], r[3], r[4], r[5]) for r in self.db.execute(
            "SELECT t.team_row, t.content_hash, t.member, t.member_name, t.kept,"
            " t.kept = 0 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session_id=t.session_id)"
            " FROM team_sessions t")}
        out = []
        for team_row, (_sid, digest, member, name) in seen.items():
            h = have.get(team_row)
            if h is None or (h[0], h[1], h[2]) != (digest, member, name) or h[4]:
                out.append(team_row)
        return sorted(out)

    def memory_digests(self) -> dict[int, str]:
        """The team's memories held: team row -> sha256 of the text."""
        return {-r[0]: r[1] for r in self.db.execute(
            "SELECT m.id, v.sha256 FROM memories m JOIN memory_versions v ON v.id=m.version_id WHERE m.id < 0")}

    def apply(self, pull: TeamPull) -> dict[str, int]:
        """One pull kept, in one transaction: rows of another team, server or member dropped;
        the sessions the team no longer shares, and those fetched again, dropped; the fetched
        ones written (each left out when this store has a session of its id); the memories
        made what the team shares now; the text indexes and the generation moved. Returns what
        was written and dropped, per kind."""
        db = self.db
        counts = {"sessions": 0, "dropped": 0, "left_out": 0, "messages": 0, "tool_calls": 0, "edits": 0,
                  "edit_lines": 0, "passages": 0, "memories": 0, "skipped_rows": 0}
        with transaction(db):
            old = db.execute("SELECT url, member, machine FROM team_state").fetchone()
            if old is not None and tuple(old) != (pull.url, pull.member, pull.machine):
                counts["dropped"] += self._drop_all()
            fetched = {s["id"] for s in pull.rows.get("sessions") or []}
            gone = [r[0] for r in db.execute("SELECT team_row FROM team_sessions")
                    if r[0] not in pull.seen or r[0] in fetched]
            for team_row in gone:
                counts["dropped"] += self._drop_session(team_row)
            repos = self._write_sessions(pull, counts)
            counts["memories"] = self._write_memories(pull.memories, pull.repos, pull.paths)
            db.execute("UPDATE fts_watermark SET last_id=0 WHERE last_id < 0")
            db.execute(
                "INSERT INTO team_state (one, team, url, member, machine, roots, pulled_at, tried_at, error)"
                " VALUES (1, ?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT (one) DO UPDATE SET team=excluded.team,"
                " url=excluded.url, member=excluded.member, machine=excluded.machine, roots=excluded.roots,"
                " pulled_at=excluded.pulled_at, tried_at=excluded.tried_at, error=NULL",
                (pull.team, pull.url, pull.member, pull.machine, ",".join(sorted(pull.paths)), pull.at, pull.at))
            if counts["sessions"] or counts["dropped"] or counts["memories"]:
                db.execute("UPDATE store_generation SET n = n + 1")
                # Commit facts read teammates' shell calls too: the repositories' are worked out again.
                touched = repos | {r[0] for r in db.execute("SELECT DISTINCT repo_id FROM commit_facts")} \
                    if counts["dropped"] else repos
                for table in ("commit_prints", "commit_ties", "commit_facts", "shell_writes", "shell_write_state"):
                    db.execute(f"DELETE FROM {table} WHERE repo_id IN ({marks(len(touched)) or 'NULL'})",
                               sorted(touched))
        return counts

    def tried(self, *, team: str | None, url: str, member: str, machine: str, roots: Sequence[str], at: str,
              error: str) -> None:
        """A pull that failed (the server did not answer): when, and why, so that the answers say
        how old the rows are and the next attempt waits its turn. The rows held stay another
        team's, server's or member's when they are (the next pull that answers drops them). Best
        effort: a busy or read-only store keeps nothing."""
        from hansard.errors import HansardError

        try:
            with impatient(self.db, 200), transaction(self.db):
                self.db.execute(
                    "INSERT INTO team_state (one, team, url, member, machine, roots, pulled_at, tried_at, error)"
                    " VALUES (1, ?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (one) DO UPDATE SET roots=excluded.roots,"
                    " tried_at=excluded.tried_at, error=excluded.error WHERE team_state.url=excluded.url"
                    " AND team_state.member=excluded.member AND team_state.machine=excluded.machine",
                    (team, url, member, machine, ",".join(sorted(roots)), at, error))
        except (HansardError, sqlite3.Error):  # a store that cannot keep the attempt tries again at the next question
            pass

    def forget(self) -> int:
        """Every row held from the team dropped (no team is configured any more); how many
        sessions went."""
        with transaction(self.db):
            n = self._drop_all()
            self.db.execute("UPDATE fts_watermark SET last_id=0 WHERE last_id < 0")
            self.db.execute("UPDATE store_generation SET n = n + 1")
        return n

    # -- inside the pull's transaction ----------------------------------------------------------

    def _drop_all(self) -> int:
        n = 0
        for (team_row,) in self.db.execute("SELECT team_row FROM team_sessions").fetchall():
            n += self._drop_session(team_row)
        self.db.execute("DELETE FROM memory_versions WHERE id < 0")
        self.db.execute("DELETE FROM memories WHERE id < 0")
        self.db.execute("DELETE FROM team_state")
        return n

    def _drop_session(self, team_row: int) -> int:
        """One team session's rows gone (its text-index entries and vectors with them, by the
        tables' triggers); 1 when it was kept here."""
        db = self.db
        row = -team_row
        db.execute("DELETE FROM team_sessions WHERE team_row=?", (team_row,))
        if db.execute("SELECT 1 FROM sessions WHERE id=?", (row,)).fetchone() is None:
            return 0
        drop_session_rows(db, row)
        return 1

    def _write_sessions(self, pull: TeamPull, counts: dict[str, int]) -> set[int]:
        """The fetched sessions and their rows, ids negated; the repository rows they were
        linked to."""
        db = self.db
        rows = pull.rows
        mine = {r[0] for r in db.execute(
            f"SELECT session_id FROM sessions WHERE session_id IN ({marks(len(rows.get('sessions') or []))})",
            [s["session_id"] for s in rows.get("sessions") or []])} if rows.get("sessions") else set()
        kept: dict[int, dict[str, Any]] = {}
        for s in sorted(rows.get("sessions") or [], key=lambda s: s["id"]):
            keep = s["session_id"] not in mine and pull.repos.get(s["root_commit"]) is not None
            db.execute("INSERT OR REPLACE INTO team_sessions (team_row, session_id, content_hash, member, member_name,"
                       " kept) VALUES (?,?,?,?,?,?)",
                       (s["id"], s["session_id"], s["content_hash"], s["member"], s["member_name"], int(keep)))
            if not keep:
                counts["left_out"] += 1
                continue
            mine.add(s["session_id"])
            kept[s["id"]] = s
            origin = s.get("origin")
            db.execute(
                "INSERT INTO sessions (id, session_id, provider, cwd, started_at, last_at, title, parent_session_id,"
                " git_branch, version, resumed_from, repo_id, message_count, first_prompt, resolved, origin,"
                " origin_repo, origin_ref, claimed_id, member, member_name)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,1,?,?,?,?,?,?)",
                (-s["id"], s["session_id"], s["provider"], s.get("cwd"), s.get("started_at"), s.get("last_at"),
                 s.get("title"), s.get("parent_session_id"), s.get("git_branch"), s.get("version"),
                 s.get("resumed_from"), pull.repos[s["root_commit"]], s.get("message_count") or 0,
                 s.get("first_prompt"), origin, s["root_commit"] if origin == "repository" else None,
                 s.get("origin_ref"), s.get("claimed_id"), s["member"], s.get("member_name")))
        counts["sessions"] += len(kept)
        provider = {k: s["provider"] for k, s in kept.items()}
        messages = [m for m in rows.get("messages") or [] if m["session_row"] in kept]
        message_id = {(m["session_row"], m["message_index"]): -m["id"] for m in messages}
        db.executemany(
            'INSERT INTO messages (id, session_id, message_index, provider, key, role, kind, text, timestamp,'
            ' source_id, "offset") VALUES (?,?,?,?,?,?,?,?,?,0,0)',
            [(-m["id"], -m["session_row"], m["message_index"], provider[m["session_row"]], f"team:{m['id']}",
              m["role"], m["kind"], m["text"], m["timestamp"]) for m in messages])
        counts["messages"] += len(messages)
        for c in rows.get("tool_calls") or []:
            if c["session_row"] not in kept:
                continue
            cur = db.execute(
                "INSERT OR IGNORE INTO tool_calls (id, session_id, message_id, provider, call_id, name, input, status,"
                " output, exit_code, timestamp, cwd, source_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0)",
                (-c["id"], -c["session_row"], message_id.get((c["session_row"], c["message_index"])),
                 provider[c["session_row"]], c["call_id"], c["name"], c["input"], c["status"], c["output"],
                 c["exit_code"], c["timestamp"], c["cwd"]))
            counts["tool_calls" if cur.rowcount else "skipped_rows"] += 1
        team_repo_root = {r["id"]: r["root_commit"] for r in rows.get("repos") or []}
        written: set[int] = set()
        repos: set[int] = set()
        for e in rows.get("edits") or []:
            repo = pull.repos.get(team_repo_root.get(e["repo_id"]) or "")
            if e["session_row"] not in kept or repo is None:
                continue
            # A call this store already holds (one id, read on two machines) stays the row it is.
            cur = db.execute(
                "INSERT OR IGNORE INTO edits (id, session_id, message_id, provider, call_id, seq, tool, kind, status,"
                " path, timestamp, user_modified, hunks, after_text, repo_id, rel_path, resolved, source_id)"
                " VALUES (?,?,?,?,?,?,?,?,'applied',?,?,?,?,?,?,?,1,0)",
                (-e["id"], -e["session_row"], message_id.get((e["session_row"], e["message_index"])),
                 provider[e["session_row"]], e["call_id"], e["seq"], e["tool"], e["kind"], e["rel_path"],
                 e["timestamp"], int(bool(e["user_modified"])), e["hunks"], pack(e["after_text"]), repo,
                 e["rel_path"]))
            if cur.rowcount:
                written.add(e["id"])
                repos.add(repo)
            else:
                counts["skipped_rows"] += 1
        counts["edits"] += len(written)
        lines = [(-x["edit_id"], x["side"], x["ordinal"], x["hash"], x["exact"], int(bool(x["trivial"])))
                 for x in rows.get("edit_lines") or [] if x["edit_id"] in written]
        db.executemany("INSERT INTO edit_lines (edit_id, side, ordinal, hash, exact, trivial) VALUES (?,?,?,?,?,?)",
                       lines)
        counts["edit_lines"] += len(lines)
        counts["passages"] += self._write_passages(rows.get("passages") or [], {-m["id"]: m["text"] for m in messages},
                                                   pull.at)
        index_text(db, [-m["id"] for m in messages], [-c["id"] for c in rows.get("tool_calls") or []
                                                      if c["session_row"] in kept])
        return repos

    def _write_passages(self, passages: Iterable[Mapping[str, Any]], texts: Mapping[int, str], at: str) -> int:
        """The passage vectors pushed with the fetched messages, under the pushing machine's
        embedder: meaning search reads them when this machine's embedder is the same one."""
        from hansard.store.types import text_hash

        rows = [(-p["message_id"], p["model"], p["start"], p["end"], bytes(p["vector"])) for p in passages
                if -p["message_id"] in texts]
        if not rows:
            return 0
        db = self.db
        hashed = [(mid, model, a, b, text_hash(texts[mid][a:b]), v) for mid, model, a, b, v in rows]
        db.executemany("INSERT OR IGNORE INTO vectors (model, text_hash, vector) VALUES (?,?,?)",
                       [(model, h, v) for _, model, _, _, h, v in hashed])
        db.executemany('INSERT OR IGNORE INTO passage_vectors (message_id, start, "end", text_hash) VALUES (?,?,?,?)',
                       [(mid, a, b, h) for mid, _, a, b, h, _ in hashed])
        # A meaning search's loaded vectors stand for a stamp: moving it makes them load again.
        db.executemany("INSERT INTO vector_progress (model, through_id, updated_at) VALUES (?, 0, ?)"
                       " ON CONFLICT (model) DO UPDATE SET updated_at=excluded.updated_at",
                       [(m, at) for m in sorted({model for _, model, *_ in rows})])
        return len(hashed)

    def _write_memories(self, memories: Sequence[Mapping[str, Any]], repos: Mapping[str, int],
                        paths: Mapping[str, str]) -> int:
        """The team's project memories made the ones the team shares now; how many changed."""
        db = self.db
        have = self.memory_digests()
        now = {m["id"]: m for m in memories if repos.get(m["root_commit"]) is not None}
        changed = [i for i in have if i not in now or now[i]["sha256"] != have[i]]
        for i in changed:
            db.execute("DELETE FROM memory_versions WHERE memory=?", (-i,))
            db.execute("DELETE FROM memories WHERE id=?", (-i,))
        new = [m for i, m in now.items() if i not in have or i in changed]
        for m in new:
            seen = m.get("seen_at") or ""
            db.execute(
                "INSERT INTO memories (id, memory_id, path, kind, source, scope, repo_id, root, rel_path, title,"
                " version_id, missing, first_seen, last_seen, member, member_name)"
                " VALUES (?,?,?,?,?,'project',?,?,?,?,?,0,?,?,?,?)",
                (-m["id"], f"team-{m['id']}", f"team-{m['id']}:{m.get('rel_path') or ''}", m["kind"], m["source"],
                 repos[m["root_commit"]], paths.get(m["root_commit"]), m.get("rel_path"), m.get("title"), -m["id"],
                 seen or None, seen or None, m["member"], m.get("member_name")))
            db.execute("INSERT INTO memory_versions (id, memory, sha256, text, seen_at) VALUES (?,?,?,?,?)",
                       (-m["id"], -m["id"], m["sha256"], m["text"], seen))
        return len(changed) + len([m for m in new if m["id"] not in have])


def drop_session_rows(db: sqlite3.Connection, session_row: int) -> None:
    """A team session's rows gone (inside the caller's transaction); its ``team_sessions``
    entry, if any, says it is left out."""
    db.execute("DELETE FROM edit_lines WHERE edit_id IN (SELECT id FROM edits WHERE session_id=?)", (session_row,))
    for table in ("edits", "tool_calls", "messages"):
        db.execute(f"DELETE FROM {table} WHERE session_id=?", (session_row,))
    db.execute("DELETE FROM sessions WHERE id=?", (session_row,))
    db.execute("UPDATE team_sessions SET kept=0 WHERE team_row=?", (-session_row,))


def index_text(db: sqlite3.Connection, messages: Collection[int] | None = None,
               tool_calls: Collection[int] | None = None) -> None:
    """The team's messages and tool calls (all of them, or these ids) in the full-text
    indexes, as ``fts.catch_up`` indexes this machine's (the same conditions)."""
    def where(ids: Collection[int] | None) -> tuple[str, list[int]]:
        if ids is None:
            return "id < 0", []
        return f"id IN ({marks(len(ids)) or 'NULL'})", list(ids)

    for ids in _chunks(messages):
        w, a = where(ids)
        db.execute(f"INSERT INTO messages_fts(rowid, text) SELECT id, text FROM messages WHERE {w}", a)
        db.execute(f"INSERT INTO messages_tri(rowid, text) SELECT id, text FROM messages WHERE {w}"
                   " AND length(text) <= 32768 AND role <> 'tool' AND NOT (role = 'system' AND kind = 'meta')", a)
    for ids in _chunks(tool_calls):
        w, a = where(ids)
        db.execute(f"INSERT INTO tool_calls_fts(rowid, name, input) SELECT id, name, input FROM tool_calls WHERE {w}",
                   a)


def _chunks(ids: Collection[int] | None, size: int = 500) -> Iterable[Collection[int] | None]:
    if ids is None:
        yield None
        return
    seq = sorted(ids)
    for i in range(0, len(seq), size):
        yield seq[i:i + size]


def set_aside(db: sqlite3.Connection) -> bool:
    """Inside a reindex's transaction, before it empties the derived tables: the team's rows
    copied to temporary tables (the archive cannot give them back). Whether there were any."""
    if db.execute("SELECT 1 FROM sessions WHERE id < 0 LIMIT 1").fetchone() is None:
        return False
    for table, col in TEAM_TABLES:
        db.execute(f"DROP TABLE IF EXISTS temp.stash_{table}")
        db.execute(f"CREATE TEMP TABLE stash_{table} AS SELECT * FROM main.{table} WHERE {col} < 0")
    return True


def put_back(db: sqlite3.Connection) -> None:
    """After ``set_aside`` and the emptying: the team's rows back, in the text indexes again,
    less a session this machine's rows, read again, now hold the id of (its own stays)."""
    db.execute("DELETE FROM temp.stash_sessions WHERE session_id IN (SELECT session_id FROM main.sessions)")
    for table in ("messages", "tool_calls", "edits"):
        db.execute(f"DELETE FROM temp.stash_{table} WHERE session_id NOT IN (SELECT id FROM temp.stash_sessions)")
    db.execute("UPDATE main.team_sessions SET kept=0 WHERE kept=1 AND -team_row NOT IN (SELECT id FROM temp.stash_sessions)")
    for table, _col in TEAM_TABLES:
        if table == "edit_lines":
            db.execute("DELETE FROM temp.stash_edit_lines WHERE edit_id NOT IN (SELECT id FROM main.edits)")
        elif table == "passage_vectors":
            db.execute("DELETE FROM temp.stash_passage_vectors WHERE message_id NOT IN (SELECT id FROM main.messages)")
        db.execute(f"INSERT OR IGNORE INTO main.{table} SELECT * FROM temp.stash_{table}")
        db.execute(f"DROP TABLE temp.stash_{table}")
    index_text(db)
