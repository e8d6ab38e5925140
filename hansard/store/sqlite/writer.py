"""Applying parser items to the derived tables.

Always true after ``apply``: a fact read twice is stored once. Every text stored here has
passed through the writer's redactor (secrets become ``[REDACTED:<rule>]``; the raw archive
keeps the original), except the line hashes in ``edit_lines``, which are computed from the original
lines so that matching agent edits to committed code still works. Messages are unique per
(provider, key), tool calls per (provider, call_id), edits per (provider, call_id, seq). A
message that already belongs to another session is a replayed prefix: it is not copied, and
the replaying session records ``resumed_from``. message_index is assigned here, in arrival
order, from ``sessions.message_count``.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

import orjson

from hansard import textnorm
from hansard.diffs import hunks_to_json
from hansard.models import (
    EditItem,
    Item,
    LeafTitle,
    MessageItem,
    Rewind,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)
from hansard.store.sqlite.codec import pack

if TYPE_CHECKING:
    from hansard.store.interfaces import Redactor

# Title ranks: a summary record names the session it points into.
SUMMARY_RANK = 2
# Prompts longer than this are cut in the sessions table (the message keeps all of it).
PROMPT_CHARS = 2000

_KEEP_FIRST = ("cwd", "started_at", "parent_session_id", "agent_id", "spawn_call_id", "git_commit",
               "git_remote", "resumed_from")
_KEEP_LAST = ("git_branch", "version")
_INT64 = 1 << 63


def _int64(v: int | None) -> int | None:
    """An integer SQLite can store, else None: a transcript can state any number (an exit
    code of 20 digits, a u64 line number), and one bad value must not fail the whole file."""
    return v if v is None or -_INT64 <= v < _INT64 else None


def _json(value: Any) -> str:
    """JSON text for a tool input, steps or hunks. orjson refuses nesting deeper than 255 and
    integers over 64 bits, both legal in a transcript: the stdlib writes those, and a value
    nested deeper than Python can recurse becomes a marker (the archive keeps the bytes)."""
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        import json

        try:
            return json.dumps(value, default=str, ensure_ascii=False)
        except (RecursionError, ValueError) as exc:
            return orjson.dumps({"_unserialisable": type(exc).__name__}).decode()


class Writer:
    """Writes the items of one source file. The caller owns the transaction."""

    def __init__(self, db: sqlite3.Connection, source_id: int, provider: str, redactor: Redactor) -> None:
        self.db = db
        self.source_id = source_id
        self.provider = provider
        self._redact = redactor.redact
        self._redact_lines = redactor.redact_lines
        self._redact_value = redactor.redact_value
        self._sessions: dict[str, int] = {}
        self.counts = {"messages": 0, "edits": 0, "tool_calls": 0, "skipped": 0, "redactions": 0}
        self.skip_reasons: dict[str, int] = {}
        self.touched_sessions: set[int] = set()

    # -- redaction ------------------------------------------------------------------

    def _clean(self, text: str | None) -> tuple[str | None, int]:
        """``text`` with its secrets withheld, and how many."""
        return self._redact(text) if text and isinstance(text, str) else (text, 0)

    def _clean_value(self, value: Any) -> tuple[Any, int]:
        return self._redact_value(value)

    # -- sessions -------------------------------------------------------------------

    def _session_row(self, session_id: str) -> int:
        sid = self._sessions.get(session_id)
        if sid is not None:
            return sid
        row = self.db.execute("SELECT id FROM sessions WHERE session_id=?", (session_id,)).fetchone()
        if row is None:
            cur = self.db.execute(
                "INSERT INTO sessions (session_id, provider, source_id) VALUES (?,?,?)",
                (session_id, self.provider, self.source_id),
            )
            sid = int(cur.lastrowid or 0)
        else:
            sid = row[0]
        self._sessions[session_id] = sid
        self.touched_sessions.add(sid)
        return sid

    def _session_info(self, it: SessionInfo) -> None:
        sid = self._session_row(it.session_id)
        cur = self.db.execute(
            "SELECT cwd, started_at, parent_session_id, agent_id, spawn_call_id, git_commit, git_remote,"
            " resumed_from, git_branch, version, title, title_rank, extra FROM sessions WHERE id=?",
            (sid,),
        ).fetchone()
        sets: dict[str, Any] = {}
        red = 0
        for f in _KEEP_FIRST:
            v = getattr(it, f)
            if f == "git_remote" and v is not None and cur[f] is None:
                v, n = self._clean(v)  # https://user:token@host/...
                red += n
            if v is not None and cur[f] is None and not (f == "resumed_from" and v == it.session_id):
                sets[f] = v
        for f in _KEEP_LAST:
            v = getattr(it, f)
            if v is not None and v != cur[f]:
                sets[f] = v
        if it.title and (it.title_rank >= (cur["title_rank"] or 0) or cur["title"] is None):
            title, n = self._clean(it.title)
            if title != cur["title"]:
                sets["title"] = title
                sets["title_rank"] = it.title_rank
                red += n
        if it.extra:
            merged = orjson.loads(cur["extra"]) if cur["extra"] else {}
            extra, n = self._clean_value(it.extra)
            new = {**merged, **extra}
            if new != merged:
                sets["extra"] = orjson.dumps(new).decode()
                red += n
        self.counts["redactions"] += red
        if sets:
            cols = ", ".join(f"{k}=?" for k in sets)
            self.db.execute(f"UPDATE sessions SET {cols} WHERE id=?", (*sets.values(), sid))

    # -- messages -------------------------------------------------------------------

    def _message(self, it: MessageItem, offset: int) -> None:
        sid = self._session_row(it.session_id)
        row = self.db.execute(
            "SELECT id, session_id FROM messages WHERE provider=? AND key=?", (self.provider, it.key)
        ).fetchone()
        if row is not None:
            if row["session_id"] == sid:
                if it.replace:
                    text, red = self._clean(it.text)
                    self.db.execute(
                        "UPDATE messages SET text=?, role=?, kind=?, timestamp=COALESCE(?, timestamp), model=COALESCE(?, model)"
                        " WHERE id=?",
                        (text, it.role, it.kind, it.timestamp, it.model, row["id"]),
                    )
                    self.counts["redactions"] += red
            else:
                other = self.db.execute("SELECT session_id FROM sessions WHERE id=?", (row["session_id"],)).fetchone()
                self.db.execute(
                    "UPDATE sessions SET resumed_from=? WHERE id=? AND resumed_from IS NULL", (other[0], sid)
                )
            return
        text, red = self._clean(it.text)  # only what is stored: a replayed prefix is not
        idx = self.db.execute("SELECT message_count FROM sessions WHERE id=?", (sid,)).fetchone()[0]
        self.db.execute(
            "INSERT INTO messages (session_id, message_index, provider, key, role, kind, text, timestamp, cwd, model,"
            " source_id, \"offset\") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (sid, idx, self.provider, it.key, it.role, it.kind, text, it.timestamp, it.cwd, it.model,
             self.source_id, offset),
        )
        first_prompt = text[:PROMPT_CHARS] if it.role == "user" and it.kind == "text" and text.strip() else None
        self.db.execute(
            "UPDATE sessions SET message_count=message_count+1,"
            " last_at=CASE WHEN ? IS NOT NULL AND (last_at IS NULL OR ? > last_at) THEN ? ELSE last_at END,"
            " started_at=COALESCE(started_at, ?),"
            " first_prompt=COALESCE(first_prompt, ?) WHERE id=?",
            (it.timestamp, it.timestamp, it.timestamp, it.timestamp, first_prompt, sid),
        )
        self.counts["messages"] += 1
        self.counts["redactions"] += red
        title = self.db.execute("SELECT title FROM leaf_titles WHERE leaf_uuid=? LIMIT 1", (it.key,)).fetchone()
        if title is not None:
            self._title(sid, title[0], SUMMARY_RANK)

    def _title(self, sid: int, title: str, rank: int) -> None:
        self.db.execute(
            "UPDATE sessions SET title=?, title_rank=? WHERE id=? AND (title IS NULL OR title_rank <= ?)",
            (title, rank, sid, rank),
        )

    def _message_id(self, key: str | None) -> int | None:
        if key is None:
            return None
        row = self.db.execute("SELECT id FROM messages WHERE provider=? AND key=?", (self.provider, key)).fetchone()
        return row[0] if row else None

    # -- tools and edits ------------------------------------------------------------

    def _tool_call(self, it: ToolCallItem) -> None:
        sid = self._session_row(it.session_id)
        tool_input, red = self._clean_value(it.input)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO tool_calls (session_id, message_id, provider, call_id, name, input, timestamp, cwd,"
            " source_id) VALUES (?,?,?,?,?,?,?,?,?)",
            (sid, self._message_id(it.message_key), self.provider, it.call_id, it.name,
             _json(tool_input), it.timestamp, it.cwd, self.source_id),
        )
        self.counts["tool_calls"] += cur.rowcount
        self.counts["redactions"] += red * cur.rowcount

    def _tool_result(self, it: ToolResultItem) -> None:
        output, red = self._clean(it.output)
        cur = self.db.execute(
            "UPDATE tool_calls SET status=?, output=?, exit_code=?, result_timestamp=? WHERE provider=? AND call_id=?",
            (it.status, output, _int64(it.exit_code), it.timestamp, self.provider, it.call_id),
        )
        self.counts["redactions"] += red if cur.rowcount else 0
        if cur.rowcount == 0:
            self._skip(Skip("orphan_tool_result", 0, it.call_id), 0)

    def _edit(self, it: EditItem) -> None:
        sid = self._session_row(it.session_id)
        # Stored for display: redacted. The line hashes below come from ``it``, unredacted.
        hunks = hunks_to_json(it.hunks)
        red = 0
        for h in hunks:
            h[4], n = self._redact_lines(h[4], prefix=1)
            red += n
        # Whole-file texts are kept only where nothing else says what the edit added (a Write
        # of a new file, an edit without a patch): a multi-MB `originalFile` repeated on every
        # edit would otherwise be redacted and compressed twice per edit. The archive keeps
        # them all, verbatim.
        before = None
        after = None
        if it.after is not None and not any(ln.startswith("+") for h in it.hunks for ln in h.lines):
            after, n = self._clean(it.after)
            red += n
        cur = self.db.execute(
            "INSERT OR IGNORE INTO edits (session_id, message_id, provider, call_id, seq, tool, kind, status, path, cwd,"
            " move_to, timestamp, user_modified, hunks, before_text, after_text, source_id)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (sid, self._message_id(it.message_key), self.provider, it.call_id, it.seq, it.tool, it.kind, it.status,
             it.path, it.cwd, it.move_to, it.timestamp, int(it.user_modified), _json(hunks),
             pack(before), pack(after), self.source_id),
        )
        if cur.rowcount == 0:
            return
        edit_id = cur.lastrowid
        self.counts["edits"] += 1
        self.counts["redactions"] += red
        self.db.executemany(
            "INSERT OR IGNORE INTO edit_lines (edit_id, side, ordinal, new_lineno, hash, exact, trivial)"
            " VALUES (?,?,?,?,?,?,?)",
            [(edit_id, side, i, _int64(ln), *_facts(text)) for side, i, ln, text in edit_line_rows(it)],
        )

    def _steps(self, it: StepsItem) -> None:
        sid = self._session_row(it.session_id)
        steps, red = self._clean_value(list(it.steps))
        self.counts["redactions"] += red
        self.db.execute(
            "INSERT INTO steps (session_id, call_id, snapshot, steps, timestamp, source_id) VALUES (?,?,?,?,?,?)",
            (sid, it.call_id, int(it.snapshot), _json(steps), it.timestamp,
             self.source_id),
        )

    def _leaf_title(self, it: LeafTitle) -> None:
        title, red = self._clean(it.title)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO leaf_titles (leaf_uuid, title, from_session, source_id) VALUES (?,?,?,?)",
            (it.leaf_uuid, title, it.session_id, self.source_id),
        )
        self.counts["redactions"] += red * cur.rowcount
        row = self.db.execute(
            "SELECT session_id FROM messages WHERE provider=? AND key=?", (self.provider, it.leaf_uuid)
        ).fetchone()
        if row is not None:
            self._title(row[0], title, SUMMARY_RANK)

    def _rewind(self, it: Rewind) -> None:
        sid = self._session_row(it.session_id)
        row = self.db.execute(
            "SELECT message_index FROM messages WHERE session_id=? AND key=? AND provider=?",
            (sid, it.message_key, self.provider),
        ).fetchone()
        if row is None:
            return
        cut = row[0]
        gone = "SELECT id FROM messages WHERE session_id=? AND message_index>=?"
        self.db.execute(f"DELETE FROM edit_lines WHERE edit_id IN (SELECT id FROM edits WHERE message_id IN ({gone}))",
                        (sid, cut))
        self.db.execute(f"DELETE FROM edits WHERE message_id IN ({gone})", (sid, cut))
        self.db.execute(f"DELETE FROM tool_calls WHERE message_id IN ({gone})", (sid, cut))
        self.db.execute("DELETE FROM messages WHERE session_id=? AND message_index>=?", (sid, cut))
        self.db.execute("UPDATE sessions SET message_count=? WHERE id=?", (cut, sid))

    def _skip(self, it: Skip, offset: int) -> None:
        self.db.execute(
            "INSERT INTO skips (source_id, \"offset\", reason, detail) VALUES (?,?,?,?)",
            (self.source_id, it.offset or offset, it.reason, self._redact(it.detail[:4000])[0][:500]),
        )
        self.counts["skipped"] += 1
        self.skip_reasons[it.reason] = self.skip_reasons.get(it.reason, 0) + 1

    # -- dispatch -------------------------------------------------------------------

    def apply(self, items: list[Item], offset: int) -> None:
        for it in items:
            if isinstance(it, MessageItem):
                self._message(it, offset)
            elif isinstance(it, ToolCallItem):
                self._tool_call(it)
            elif isinstance(it, ToolResultItem):
                self._tool_result(it)
            elif isinstance(it, EditItem):
                self._edit(it)
            elif isinstance(it, SessionInfo):
                self._session_info(it)
            elif isinstance(it, StepsItem):
                self._steps(it)
            elif isinstance(it, LeafTitle):
                self._leaf_title(it)
            elif isinstance(it, Rewind):
                self._rewind(it)
            elif isinstance(it, Skip):
                self._skip(it, offset)


def _facts(text: str) -> tuple[int, int, int]:
    h, e, trivial = textnorm.line_facts(text)
    return h, e, int(trivial)


def edit_line_rows(it: EditItem) -> list[tuple[str, int, int | None, str]]:
    """(side, ordinal, post-edit line number or None, text) for every added and removed line.
    Line numbers come from hunks that carry them; otherwise the plain added/removed lists."""
    rows: list[tuple[str, int, int | None, str]] = []
    numbered = [h for h in it.hunks if h.new_start is not None]
    if numbered and len(numbered) == len(it.hunks):
        plus = minus = 0
        for h in numbered:
            ln = h.new_start or 1
            for raw in h.lines:
                tag, text = raw[:1], raw[1:]
                if tag == "+":
                    rows.append(("+", plus, ln, text))
                    plus += 1
                    ln += 1
                elif tag == "-":
                    rows.append(("-", minus, None, text))
                    minus += 1
                else:
                    ln += 1
        if plus == len(it.added):
            return rows
        rows = []
    rows += [("+", i, None, t) for i, t in enumerate(it.added)]
    rows += [("-", i, None, t) for i, t in enumerate(it.removed)]
    return rows
