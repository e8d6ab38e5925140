"""The evidence index: applied edits and their normalised line hashes (tables ``edits`` and
``edit_lines``), and the session facts that why, code_history and work_context tie to them
(prompts, shell tool calls, steps, session relations).

Only what the archive says is returned; deciding what it means (which edit wrote a line,
where it landed) is the answer code's business. Large hash sets are asked for in chunks, so
one call stays one pass over the index whatever the size of a file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import Any

from hansard.store.sqlite.codec import unpack
from hansard.store.sqlite.db import OUTPUT_SQL, like_escape, marks

# Hashes per `IN (...)`: well under SQLite's variable limit.
CHUNK = 500
# An edit's facts, as ``edit_lines`` gives them beside each line.
_FACTS = ("SELECT e.id, e.rel_path, e.timestamp, e.call_id, e.provider, e.user_modified, e.tool, s.session_id,"
          " m.message_index, s.claimed_id FROM edits e JOIN sessions s ON s.id=e.session_id"
          " LEFT JOIN messages m ON m.id=e.message_id")


# A subagent call that ran (or has no result yet) ...
_STARTED = "(t.status IS NULL OR t.status NOT IN ('error', 'rejected'))"
# ... whose subagent's transcript was not read: no session it spawned holds a message (a reader
# may know the subagent from its parent's record alone).
_UNREAD = ("t.call_id NOT IN (SELECT c.spawn_call_id FROM sessions c WHERE c.spawn_call_id IS NOT NULL"
           " AND c.message_count > 0)")  # a list SQLite builds once per query

class _LinesAhead:
    """What ``read_lines_ahead`` read: the hashes asked; by hash, the matching non-trivial lines
    of one side (in the hash index's order), the edits holding them, and, once per edit in its
    first line's order, (hash, rel_path, timestamp) of those applied in one repository."""

    __slots__ = ("repo_id", "side", "hashes", "by_hash", "edits_of", "placed")

    def __init__(self, repo_id: int, side: str, hashes: set[int]) -> None:
        self.repo_id, self.side, self.hashes = repo_id, side, hashes
        self.by_hash: dict[int, list[tuple[int, int, int, int, int]]] = {}
        self.edits_of: dict[int, set[int]] = {}
        self.placed: dict[int, list[tuple[int, tuple[int, str | None, str | None]]]] = {}


class SqliteEvidence:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._ahead: _LinesAhead | None = None

    def read_lines_ahead(self, repo_id: int | None, hashes: Iterable[int] = (), side: str = "+") -> None:
        """Read now what ``edit_lines_at`` looks up among other files' edits for any of
        ``hashes`` (many files' lines asked at once: a line many of them share is read once):
        the non-trivial lines of ``side`` holding them, and where and when each of their edits
        in ``repo_id`` was applied. A later question all of whose hashes are among them is
        answered from them, row for row as its own lookups give it; None drops them."""
        if repo_id is None:
            self._ahead = None
            return
        hl = sorted(set(hashes))
        got = _LinesAhead(repo_id, side, set(hl))
        for i in range(0, len(hl), CHUNK):
            part = hl[i:i + CHUNK]
            for r in self.db.execute(
                    "SELECT hash, exact, trivial, edit_id, ordinal FROM edit_lines"
                    f" WHERE side=? AND hash IN ({marks(len(part))}) AND trivial=0", (side, *part)):
                got.by_hash.setdefault(r[0], []).append(tuple(r))
        ids = sorted({r[3] for rows in got.by_hash.values() for r in rows})
        applied = {eid: (rel_path, timestamp) for eid, rel_path, timestamp in self._chunked(
            "SELECT e.id, e.rel_path, e.timestamp FROM edits e WHERE e.id IN ({}) AND e.repo_id=?"
            " AND e.status='applied'", ids, repo_id)}
        for h, rows in got.by_hash.items():
            eids = got.edits_of[h] = {r[3] for r in rows}
            got.placed[h] = [(eid, (h, *applied[eid])) for eid in dict.fromkeys(r[3] for r in rows)
                             if eid in applied] if eids & applied.keys() else []
        self._ahead = got

    def lines_ahead_hold(self, repo_id: int, hashes: Collection[int], side: str = "+") -> bool:
        """Whether what ``read_lines_ahead`` read answers ``edit_lines_at`` for these hashes."""
        a = self._ahead
        return a is not None and a.repo_id == repo_id and a.side == side and a.hashes.issuperset(hashes)

    # -- edits and their lines ---------------------------------------------------------------

    def edit_lines(self, repo_id: int, hashes: Iterable[int], side: str = "+") -> list[dict[str, Any]]:
        """Lines of applied edits in ``repo_id`` that added (side '+') or removed (side '-') any
        of ``hashes``: rows (hash, exact, trivial, id, rel_path, timestamp, call_id, provider,
        user_modified, tool, session_id, message_index), one per matching line.

        Two passes: the matching lines, by the hash index (never a scan of every line of the
        repository's edits), then each edit's facts once, in this repository and applied (a
        common line matches hundreds of lines of the same few edits). Per chunk of hashes the
        rows come in the order SQLite's plan for a join of both tables gives (one hash: by edit
        and position; more: by path, edit and position), so the answers built on them keep
        their order."""
        hl = list(hashes)
        lines = self._matching(hl, side)
        facts = {r[0]: dict(r) for r in self._chunked(
            _FACTS + " WHERE e.id IN ({}) AND e.repo_id=? AND e.status='applied'", list({r[4] for r in lines}), repo_id)}
        single = {i for i in range(0, len(hl), CHUNK) if len(hl) - i == 1}

        def order(r: tuple[int, int, int, int, int, int]) -> tuple[Any, ...]:
            if r[0] in single:
                return (r[0], r[4], r[5])
            path = facts[r[4]]["rel_path"]
            return (r[0], path is not None, path or "", r[4], r[5])

        kept = sorted((r for r in lines if r[4] in facts), key=order)
        return [{"hash": h, "exact": x, "trivial": t, **facts[eid]} for _, h, x, t, eid, _ in kept]

    def edit_lines_at(self, repo_id: int, hashes: Iterable[int], paths: Collection[str], side: str = "+", *,
                      others: bool = True) -> tuple[list[dict[str, Any]], list[tuple[int, str | None, str | None]]]:
        """``edit_lines`` split by path: (the rows ``edit_lines`` gives, for the edits of
        ``paths`` only; (hash, rel_path, timestamp) of the other edits' matching non-trivial
        lines, once per edit and hash). A common line matches hundreds of lines of other files'
        edits: they are looked up by the same hash index, but only their path and time are read.
        A trivial line (``}``, a blank) matches nearly every edit of the store and is evidence
        only within its own file, so it is looked up among the edits of ``paths`` alone. Without
        ``others``, the other edits are not looked at at all (and every line of the edits of
        ``paths`` comes from their own rows)."""
        hl = list(hashes)
        wanted = set(paths)
        mine: list[int] = [r[0] for r in self._chunked(
            "SELECT id FROM edits WHERE rel_path IN ({}) AND repo_id=? AND status='applied'", sorted(wanted), repo_id)]
        mine_set = set(mine)
        ahead = self._ahead if others and self.lines_ahead_hold(repo_id, hl, side) else None
        if ahead is not None:
            lines, elsewhere = self._ahead_at(ahead, hl, mine_set)
        else:
            lines = self._matching(hl, side, trivial=False) if others else []
        other: dict[int, tuple[str | None, str | None]] = {}
        for eid, rel_path, timestamp in self._chunked(
                "SELECT e.id, e.rel_path, e.timestamp FROM edits e WHERE e.id IN ({}) AND e.repo_id=?"
                " AND e.status='applied'", list({r[4] for r in lines if r[4] not in mine_set}) if ahead is None else [],
                repo_id):
            other[eid] = (rel_path, timestamp)
        # the hashes filtered by SQLite, not here: a file's edits add thousands of '}' lines
        asked = sorted(set(hl))
        for i in range(0, len(mine), CHUNK):
            part = mine[i:i + CHUNK]
            for j in range(0, len(asked), 8 * CHUNK):
                hashes = asked[j:j + 8 * CHUNK]
                lines += [(0, *r) for r in self.db.execute(
                    "SELECT hash, exact, trivial, edit_id, ordinal FROM edit_lines"
                    f" WHERE edit_id IN ({marks(len(part))}) AND side=?{' AND trivial=1' if others else ''}"
                    f" AND hash IN ({marks(len(hashes))})", (*part, side, *hashes))]
        facts = {r[0]: dict(r) for r in self._chunked(_FACTS + " WHERE e.id IN ({})", mine)}
        rows = [{"hash": h, "exact": x, "trivial": t, **f} for _, h, x, t, eid, _ in lines if (f := facts.get(eid))]
        if ahead is not None:
            return rows, elsewhere
        seen: set[tuple[int, int]] = set()
        elsewhere = []
        for _, h, _, _, eid, _ in lines:
            o = other.get(eid)
            if o is not None and (h, eid) not in seen:
                seen.add((h, eid))
                elsewhere.append((h, *o))
        return rows, elsewhere

    @staticmethod
    def _ahead_at(ahead: _LinesAhead, hashes: list[int], mine: set[int]
                  ) -> tuple[list[tuple[int, int, int, int, int, int]], list[tuple[int, str | None, str | None]]]:
        """What ``edit_lines_at`` finds by the hash index for ``hashes``, from what was read
        ahead, in the order the index gives each chunk of them (by hash, then exact hash, edit
        and position): the lines of the edits ``mine``, and the other applied edits' (hash,
        rel_path, timestamp), once per edit and hash."""
        lines: list[tuple[int, int, int, int, int, int]] = []
        elsewhere: list[tuple[int, str | None, str | None]] = []
        for i in range(0, len(hashes), CHUNK):
            for h in sorted(hashes[i:i + CHUNK]):
                eids = ahead.edits_of.get(h)
                if eids is None:
                    continue
                if not mine.isdisjoint(eids):
                    lines += [(i, *r) for r in ahead.by_hash[h] if r[3] in mine]
                elsewhere += [placed for eid, placed in ahead.placed[h] if eid not in mine]
        return lines, elsewhere

    def _matching(self, hashes: list[int], side: str, *, trivial: bool = True
                  ) -> list[tuple[int, int, int, int, int, int]]:
        """(chunk start, hash, exact, trivial, edit id, ordinal) of the edit lines of ``side``
        holding any of ``hashes`` (without ``trivial``: the non-trivial ones), by the hash index,
        a chunk of hashes at a time."""
        lines: list[tuple[int, int, int, int, int, int]] = []
        only = "" if trivial else " AND trivial=0"
        for i in range(0, len(hashes), CHUNK):
            part = hashes[i:i + CHUNK]
            lines += [(i, *r) for r in self.db.execute(
                "SELECT hash, exact, trivial, edit_id, ordinal FROM edit_lines"
                f" WHERE side=? AND hash IN ({marks(len(part))}){only}", (side, *part),
            )]
        return lines

    def _chunked(self, sql: str, ids: Sequence[int | str], *args: Any) -> Iterator[sqlite3.Row]:
        """The rows of ``sql`` (whose ``{}`` is an id list) for ``ids``, a chunk at a time; ``args``
        follow the ids."""
        for i in range(0, len(ids), CHUNK):
            part = ids[i:i + CHUNK]
            yield from self.db.execute(sql.format(marks(len(part))), (*part, *args))

    def removed_lines(self, edit_ids: Collection[int]) -> list[tuple[int, int]]:
        """(edit id, hash) of every non-trivial line these edits removed."""
        ids = list(edit_ids)
        return [(r[0], r[1]) for r in self.db.execute(
            f"SELECT edit_id, hash FROM edit_lines WHERE side='-' AND trivial=0 AND edit_id IN ({marks(len(ids))})",
            ids,
        )]

    def edit_hashes(self, edit_id: int) -> tuple[set[int], set[int]]:
        """(added, removed) normal-form hashes of an edit's non-trivial lines."""
        added: set[int] = set()
        removed: set[int] = set()
        for side, h in self.db.execute("SELECT side, hash FROM edit_lines WHERE edit_id=? AND trivial=0", (edit_id,)):
            (added if side == "+" else removed).add(h)
        return added, removed

    def edit_content(self, edit_id: int) -> dict[str, Any] | None:
        """An edit's hunks (as in ``edits.hunks``, a list) and the whole file after it (text,
        or None when not kept), or None for no such edit."""
        row = self.db.execute("SELECT hunks, after_text, kind FROM edits WHERE id=?", (edit_id,)).fetchone()
        if row is None:
            return None
        return {"hunks": json.loads(row["hunks"]) if row["hunks"] else [], "kind": row["kind"],
                "after_text": unpack(row["after_text"]) if row["after_text"] is not None else None}

    def has_applied_edits(self, repo_id: int, paths: Collection[str]) -> bool:
        """Did any applied edit in ``repo_id`` touch one of these repository-relative paths?"""
        return self.db.execute(
            f"SELECT 1 FROM edits WHERE repo_id=? AND rel_path IN ({marks(len(paths))}) AND status='applied' LIMIT 1",
            (repo_id, *paths),
        ).fetchone() is not None

    def any_unlinked(self) -> bool:
        """Whether any applied edit is linked to no repository (``unlinked_hashes`` finds
        nothing for any file when none is)."""
        return self.db.execute(
            "SELECT 1 FROM edits e JOIN sessions s ON s.id=e.session_id WHERE e.repo_id IS NULL"
            " AND e.status='applied' AND s.origin IS NULL LIMIT 1").fetchone() is not None

    def unlinked_hashes(self, hashes: Iterable[int], basename: str) -> set[int]:
        """Hashes among ``hashes`` that an applied edit of a file named ``basename`` (written in
        either slash) added, where the edit is linked to no repository. A session a repository
        carries is that repository's alone: its edits are never evidence here."""
        # The few unplaced edits of that name first: matching the hashes over every edit line
        # and joining each match to its edit read thousands of rows for a common line.
        ids = [r[0] for r in self.db.execute(
            "SELECT e.id FROM edits e JOIN sessions s ON s.id=e.session_id WHERE e.repo_id IS NULL"
            " AND e.status='applied' AND s.origin IS NULL"
            " AND (e.path=? OR e.path LIKE ? ESCAPE '\\' OR e.path LIKE ? ESCAPE '\\')",
            (basename, "%/" + like_escape(basename), "%" + like_escape("\\" + basename)))]
        out: set[int] = set()
        hl = sorted(set(hashes))
        for i in range(0, len(ids), CHUNK):
            part = ids[i:i + CHUNK]
            for j in range(0, len(hl), 8 * CHUNK):
                asked = hl[j:j + 8 * CHUNK]
                out.update(h for (h,) in self.db.execute(
                    f"SELECT hash FROM edit_lines WHERE edit_id IN ({marks(len(part))}) AND side='+'"
                    f" AND hash IN ({marks(len(asked))})", (*part, *asked)))
        return out

    def added_anywhere(self, hashes: Iterable[int]) -> set[int]:
        hl = sorted(set(hashes))
        out: set[int] = set()
        for i in range(0, len(hl), CHUNK):
            part = hl[i:i + CHUNK]
            out.update(h for (h,) in self.db.execute(
                f"SELECT DISTINCT hash FROM edit_lines WHERE side='+' AND hash IN ({marks(len(part))})", part))
        return out

    def applied_edits(self, repo_id: int, paths: Collection[str]) -> list[sqlite3.Row]:
        """Applied edits in ``repo_id`` to any of ``paths``, with their session: rows (id,
        call_id, tool, kind, rel_path, timestamp, hunks, status, session_id, provider, title,
        first_prompt, started_at, last_at, parent_session_id, srow, message_index, and the session's
        origin, origin_repo, origin_ref, claimed_id, member, member_name)."""
        return self.db.execute(
            "SELECT e.id, e.call_id, e.tool, e.kind, e.rel_path, e.timestamp, e.hunks, e.status, s.session_id,"
            " s.provider, s.title, s.first_prompt, s.started_at, s.last_at, s.parent_session_id, s.id AS srow,"
            " m.message_index, s.origin, s.origin_repo, s.origin_ref, s.claimed_id, s.member, s.member_name"
            " FROM edits e JOIN sessions s ON s.id=e.session_id LEFT JOIN messages m ON m.id=e.message_id"
            f" WHERE e.repo_id=? AND e.rel_path IN ({marks(len(paths))}) AND e.status='applied'",
            (repo_id, *paths),
        ).fetchall()

    def session_edits(self, session_row: int) -> list[sqlite3.Row]:
        """Rows (id, rel_path, timestamp) of a session's applied edits linked to a path."""
        return self.db.execute(
            "SELECT id, rel_path, timestamp FROM edits WHERE session_id=? AND status='applied' AND rel_path IS NOT NULL",
            (session_row,),
        ).fetchall()

    def sessions_editing_repo(self, repo_id: int, except_row: int) -> list[int]:
        """Rows of the other sessions with applied edits in ``repo_id``."""
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT s2.id FROM edits e JOIN sessions s2 ON s2.id=e.session_id"
            " WHERE e.repo_id=? AND s2.id<>? AND e.status='applied'", (repo_id, except_row),
        )]

    # -- tool calls and steps --------------------------------------------------------------

    def repo_shell_calls(self, repo_id: int, tools: Collection[str], needle: str
                         ) -> list[tuple[str, str | None, str | None, str | None]]:
        """(session id, timestamp, input JSON, output) of calls to ``tools`` in sessions of
        ``repo_id`` whose input mentions ``needle``."""
        return [(r[0], r[1], r[2], r[3]) for r in self.db.execute(
            f"SELECT s.session_id, t.timestamp, t.input, {OUTPUT_SQL} FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.name IN ({marks(len(tools))}) AND instr(t.input, ?) > 0",
            (repo_id, *tools, needle),
        )]

    def repo_tool_inputs(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str | None, str | None]]:
        """(timestamp, input JSON) of calls to ``tools`` in sessions of ``repo_id`` whose input
        mentions ``needle``."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT t.timestamp, t.input FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.name IN ({marks(len(tools))}) AND instr(t.input, ?) > 0",
            (repo_id, *tools, needle),
        )]

    def session_tool_calls(self, session_row: int, tools: Collection[str]) -> list[sqlite3.Row]:
        """A session's calls to ``tools`` in order: rows (call_id, name, input, output,
        exit_code, status, timestamp, cwd, message_index)."""
        return self.db.execute(
            f"SELECT t.call_id, t.name, t.input, {OUTPUT_SQL} AS output, t.exit_code, t.status, t.timestamp, t.cwd,"
            " m.message_index"
            " FROM tool_calls t LEFT JOIN messages m ON m.id=t.message_id"
            f" WHERE t.session_id=? AND t.name IN ({marks(len(tools))}) ORDER BY t.timestamp, t.id",
            (session_row, *tools),
        ).fetchall()

    def steps(self, session_rows: Collection[int]) -> list[dict[str, Any]]:
        """Step snapshots (call_id, snapshot, steps, timestamp) of these sessions, in order."""
        return [dict(r) for r in self.db.execute(
            f"SELECT call_id, snapshot, steps, timestamp FROM steps WHERE session_id IN ({marks(len(session_rows))})"
            " ORDER BY timestamp, id",
            list(session_rows),
        )]

    # -- sessions -----------------------------------------------------------------------------

    def user_prompts(self, session_id: str) -> list[tuple[int, str]]:
        """(index, text) of every typed user prompt of the session, in order."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT m.message_index, m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
            " WHERE s.session_id=? AND m.role='user' AND m.kind='text' ORDER BY m.message_index",
            (session_id,),
        )]

    def session(self, session_id: str) -> sqlite3.Row | None:
        """The whole sessions row for an exact session id."""
        row: sqlite3.Row | None = self.db.execute("SELECT * FROM sessions WHERE session_id=?", (session_id,)).fetchone()
        return row

    def session_at(self, session_row: int) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.db.execute("SELECT * FROM sessions WHERE id=?", (session_row,)).fetchone()
        return row

    def top_sessions_in_repo(self, repo_id: int) -> list[sqlite3.Row]:
        """Sessions (not subagents) that ran in ``repo_id``, newest activity first."""
        return self.db.execute(
            "SELECT * FROM sessions WHERE repo_id=? AND parent_session_id IS NULL ORDER BY last_at DESC", (repo_id,)
        ).fetchall()

    def sessions_resuming(self, session_id: str) -> list[sqlite3.Row]:
        """Sessions whose records replay or continue ``session_id``'s."""
        return self.db.execute("SELECT * FROM sessions WHERE resumed_from=?", (session_id,)).fetchall()

    def sessions_summarised_by(self, session_id: str) -> list[sqlite3.Row]:
        """Sessions whose last message ``session_id``'s file opens with a summary of (leafUuid)."""
        return self.db.execute(
            "SELECT DISTINCT s2.* FROM leaf_titles lt JOIN messages m ON m.key=lt.leaf_uuid"
            " JOIN sessions s2 ON s2.id=m.session_id WHERE lt.from_session=?", (session_id,)
        ).fetchall()

    def sessions_summarising(self, session_row: int) -> list[sqlite3.Row]:
        """Sessions whose file opens with a summary of one of this session's messages."""
        return self.db.execute(
            "SELECT DISTINCT s2.* FROM messages m JOIN leaf_titles lt ON lt.leaf_uuid=m.key JOIN sessions s2"
            " ON s2.session_id=lt.from_session WHERE m.session_id=?", (session_row,)
        ).fetchall()

    def compactions(self, session_row: int) -> int:
        return int(self.db.execute(
            "SELECT COUNT(*) FROM messages WHERE session_id=? AND kind='compaction_summary'", (session_row,)
        ).fetchone()[0])

    def subagents(self, session_id: str) -> list[sqlite3.Row]:
        return self.db.execute("SELECT * FROM sessions WHERE parent_session_id=?", (session_id,)).fetchall()

    def unread_delegations(self, session_ids: Collection[str], tools: Collection[str]) -> list[tuple[str, str]]:
        """(session id, timestamp) of these sessions' calls to ``tools`` (a subagent's start)
        that did not fail and whose subagent's own transcript the store does not hold: what that
        subagent wrote is nowhere here."""
        if not session_ids or not tools:
            return []
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT s.session_id, t.timestamp FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.session_id IN ({marks(len(session_ids))}) AND t.name IN ({marks(len(tools))})"
            f" AND t.timestamp IS NOT NULL AND {_STARTED} AND {_UNREAD}",
            (*session_ids, *tools))]

    def repo_unread_delegations(self, repo_id: int, tools: Collection[str], needle: str) -> list[tuple[str, str]]:
        """(session id, timestamp) of the calls of ``repo_id``'s sessions to ``tools`` (a
        subagent's start) that did not fail, whose subagent's own transcript the store does not
        hold, and whose input or output (the task given, the subagent's report) mentions
        ``needle``."""
        return [(r[0], r[1]) for r in self.db.execute(
            "SELECT s.session_id, t.timestamp FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            f" WHERE s.repo_id=? AND t.name IN ({marks(len(tools))}) AND t.timestamp IS NOT NULL AND {_STARTED}"
            f" AND {_UNREAD} AND (instr(t.input, ?) > 0 OR instr({OUTPUT_SQL}, ?) > 0)",
            (repo_id, *tools, needle, needle))]

    def repo_unread_delegation_texts(self, repo_id: int, tools: Collection[str]
                                     ) -> list[tuple[str, str, str | None, str | None]]:
        """(session id, timestamp, input, output) of the calls ``repo_unread_delegations`` reads,
        whatever they mention: a caller asking for many files reads them once and looks for each
        file's name itself."""
        return [(r[0], r[1], r[2], r[3]) for r in self.db.execute(
            f"SELECT s.session_id, t.timestamp, t.input, {OUTPUT_SQL} FROM tool_calls t JOIN sessions s"
            f" ON s.id=t.session_id WHERE s.repo_id=? AND t.name IN ({marks(len(tools))}) AND t.timestamp IS NOT NULL"
            f" AND {_STARTED} AND {_UNREAD}", (repo_id, *tools))]

    def session_sources(self) -> list[sqlite3.Row]:
        """Rows (session_id, last_at, path, size) of every session whose source file is present."""
        return self.db.execute(
            "SELECT s.session_id, s.last_at, src.path, src.size FROM sessions s JOIN sources src ON src.id=s.source_id"
            " WHERE src.missing=0"
        ).fetchall()
