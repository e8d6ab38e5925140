"""Applying parser items to the derived tables, in two phases.

``prepare`` is pure: it redacts an item list and turns it into plain tuples (ops) with every
value the tables store already computed (JSON text, packed whole files, line hashes), so it
can run in another process beside the single SQLite writer. ``Writer.write`` applies ops in
order; ``Writer.apply`` is both at once.

Always true after ``finish`` (and after ``apply``): a fact read twice is stored once. Every text stored here has
passed through the writer's redactor (secrets become ``[REDACTED:<rule>]``; the raw archive
keeps the original), except the line hashes in ``edit_lines``, which are computed from the original
lines so that matching agent edits to committed code still works. Messages are unique per
(provider, key), tool calls per (provider, call_id), edits per (provider, call_id, seq). A
message that already belongs to another session is a replayed prefix: it is not copied, and
the replaying session records ``resumed_from``; so does a session holding an edit call another
session holds (a fork that copied the conversation under new message ids). message_index is
assigned here, in arrival order, from ``sessions.message_count``. A tool call's output equal to the text of its
tool-result message, written by the same source, is that message's text (``output`` NULL,
``output_message_id`` set): read it as ``db.OUTPUT_SQL``.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

import orjson

from hansard.agents import origin
from hansard.store.sqlite.codec import pack
from hansard.store.sqlite.db import first_id
from hansard.text import textnorm
from hansard.text.diffs import hunks_to_json
from hansard.values.models import (
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

if TYPE_CHECKING:
    from hansard.store.interfaces import Redactor

# Title ranks: a summary record names the session it points into.
SUMMARY_RANK = 2
# Prompts longer than this are cut in the sessions table (the message keeps all of it).
PROMPT_CHARS = 2000
# A writer reads every titled leaf once it has looked up this many new messages' keys one by
# one (a power of two; and at each doubling after), if there are at most this many leaves a
# look-up so far.
LEAF_LOOKUPS = 16
LEAVES_A_LOOKUP = 32

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


# A held-back call's result columns (status, output, exit_code, timestamp, output message) before
# its result comes: all NULL, as a call without a result is stored.
_NO_RESULT = (None, None, None, None, None)

# One write, as ``prepare`` makes it: a tag (below) and its values.
Op = tuple[Any, ...]

# Op tags: the first element of every tuple ``prepare`` returns.
MSG, CALL, RESULT, EDIT, INFO, STEPS, LEAF, REWIND, SKIP = range(9)


def prepare(items: list[Item], redactor: Redactor) -> list[Op]:
    """The ops of ``items``: plain, picklable tuples holding redacted values only (the line
    hashes of edits excepted, see the module docstring), and the number of secrets each
    withheld. Depends on nothing but the items and the redactor."""
    redact, redact_value = redactor.redact, redactor.redact_value

    def clean(text: str | None) -> tuple[str | None, int]:
        return redact(text) if text and isinstance(text, str) else (text, 0)

    ops: list[Op] = []
    for it in items:
        if isinstance(it, MessageItem):
            text, red = clean(it.text)
            ops.append((MSG, it.session_id, it.key, it.role, it.kind, text, red, it.timestamp, it.cwd, it.model,
                        it.replace))
        elif isinstance(it, ToolCallItem):
            tool_input, red = redact_value(it.input)
            ops.append((CALL, it.session_id, it.call_id, it.name, _json(tool_input), red, it.message_key, it.timestamp,
                        it.cwd))
        elif isinstance(it, ToolResultItem):
            output, red = clean(it.output)
            ops.append((RESULT, it.call_id, it.status, output, red, _int64(it.exit_code), it.timestamp, it.message_key))
        elif isinstance(it, EditItem):
            ops.append(_prepare_edit(it, redactor, clean))
        elif isinstance(it, SessionInfo):
            remote = clean(it.git_remote) if it.git_remote is not None else (None, 0)  # https://user:token@host/...
            title = clean(it.title) if it.title else (None, 0)
            extra = redact_value(it.extra) if it.extra else (None, 0)
            ops.append((INFO, it, remote, title, extra))
        elif isinstance(it, StepsItem):
            steps, red = redact_value(list(it.steps))
            ops.append((STEPS, it.session_id, it.call_id, int(it.snapshot), _json(steps), red, it.timestamp))
        elif isinstance(it, LeafTitle):
            leaf_title, red = clean(it.title)
            ops.append((LEAF, it.leaf_uuid, leaf_title, red, it.session_id))
        elif isinstance(it, Rewind):
            ops.append((REWIND, it.session_id, it.message_key))
        elif isinstance(it, Skip):
            ops.append((SKIP, it.reason, it.offset, redact(it.detail[:4000])[0][:500]))
    return ops


def _prepare_edit(it: EditItem, redactor: Redactor, clean: Any) -> Op:
    # Stored for display: redacted. The line hashes below come from ``it``, unredacted.
    hunks = hunks_to_json(it.hunks)
    red = 0
    for h in hunks:
        h[4], n = redactor.redact_lines(h[4], prefix=1)
        red += n
    # Whole-file texts are kept only where nothing else says what the edit added (a Write
    # of a new file, an edit without a patch): a multi-MB `originalFile` repeated on every
    # edit would otherwise be redacted and compressed twice per edit. The archive keeps
    # them all, verbatim.
    after = None
    if it.after is not None and not any(ln.startswith("+") for h in it.hunks for ln in h.lines):
        after, n = clean(it.after)
        red += n
    lines = edit_line_rows(it)
    return (EDIT, it.session_id, it.message_key, it.call_id, it.seq, it.tool, it.kind, it.status, it.path, it.cwd,
            it.move_to, it.timestamp, int(it.user_modified), _json(hunks), pack(after), red, lines)


class Writer:
    """Writes the ops of one source file. The caller owns the transaction and calls
    ``finish`` before it commits: a session's message count, times and first prompt, and
    the tool calls with the results that follow them, are kept here between statements and
    written once (``_flush``, ``_flush_calls``), before anything reads them."""

    def __init__(self, db: sqlite3.Connection, source_id: int, provider: str, redactor: Redactor) -> None:
        self.db = db
        self.source_id = source_id
        self.provider = provider
        self.redactor = redactor
        self._sessions: dict[str, int] = {}
        # session row -> [message_count, latest timestamp, first timestamp, first prompt],
        # not yet written to its sessions row.
        self._pending: dict[int, list[Any]] = {}
        self._message_ids: dict[str, int] = {}  # keys of this provider's messages seen here
        # Tool-result messages inserted by the current ``write`` (one record's ops): key ->
        # (id, text), for the result of the same record to point at instead of a second copy.
        self._results: dict[str, tuple[int, str]] = {}
        # Tool calls not written yet, in arrival order: call_id -> [row, redactions, its result
        # (status, output, exit_code, timestamp, id of the message whose text the output is) or
        # None, the result's redactions]. Written by ``_flush_calls`` before anything reads
        # tool_calls (``finish``, a rewind, a message rewritten).
        self._calls: dict[str, list[Any]] = {}
        # Where the source's sessions come from (hansard.agents.origin), written on each new one.
        row = db.execute("SELECT path FROM sources WHERE id=?", (source_id,)).fetchone()
        self.origin = origin.of_source(row[0] if row else "", provider)
        self.counts = {"messages": 0, "edits": 0, "tool_calls": 0, "skipped": 0, "redactions": 0}
        self.skip_reasons: dict[str, int] = {}
        self.touched_sessions: set[int] = set()
        # Whether any summary record has titled a leaf yet: until one has, a new message has
        # no title to look up (most stores hold none, and the look-up ran once a message).
        self._leaf_titles = db.execute("SELECT 1 FROM leaf_titles LIMIT 1").fetchone() is not None
        # Every leaf a title names, once looking each new message up has cost more than
        # reading them all would (``_may_title``); None until then. Read inside the caller's
        # transaction, where only this writer adds titles (``_leaf_title`` adds its own).
        self._leaves: set[str] | None = None
        self._leaf_lookups = 0
        # A table holding only the team's rows (ids below zero) gives this machine's first row an
        # id of its own: SQLite would give it the largest plus one, a team row's.
        self._first_ids = {t: first_id(db, t) for t in ("sessions", "messages", "tool_calls", "edits")}

    def apply(self, items: list[Item], offset: int) -> None:
        self.write(prepare(items, self.redactor), offset)
        self.finish()

    def finish(self) -> None:
        """Everything held back written: call before the transaction commits."""
        self._flush_calls()
        self._flush()

    def _first_id(self, table: str, inserted: int | None) -> int | None:
        """Before an insert into ``table`` (``inserted`` None): the id to give the row, or None
        for SQLite's choice. After it (``inserted``, the rows it wrote): an id given is used."""
        if inserted:
            self._first_ids[table] = None
        return self._first_ids[table]

    # -- sessions -------------------------------------------------------------------

    def _session_row(self, session_id: str) -> int:
        sid = self._sessions.get(session_id)
        if sid is not None:
            return sid
        row = self.db.execute("SELECT id FROM sessions WHERE session_id=?", (session_id,)).fetchone()
        if row is not None and row[0] < 0:
            # The team's copy of a session this machine records: this machine's stands alone.
            from hansard.store.sqlite.team import drop_session_rows

            drop_session_rows(self.db, row[0])
            row = None
        if row is None:
            o = self.origin
            cur = self.db.execute(
                "INSERT INTO sessions (id, session_id, provider, source_id, origin, origin_repo, origin_ref, claimed_id)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (self._first_id("sessions", None), session_id, self.provider, self.source_id,
                 o.kind if o.kind != origin.LOCAL else None, o.repo, o.ref,
                 origin.claimed(session_id, o.ns) if o.carried else None),
            )
            sid = int(cur.lastrowid or 0)
            self._first_id("sessions", cur.rowcount)
        else:
            sid = row[0]
        self._sessions[session_id] = sid
        self.touched_sessions.add(sid)
        return sid

    def _flush(self) -> None:
        for sid, (count, last, first, prompt) in self._pending.items():
            self.db.execute(
                "UPDATE sessions SET message_count=?,"
                " last_at=CASE WHEN ? IS NOT NULL AND (last_at IS NULL OR ? > last_at) THEN ? ELSE last_at END,"
                " started_at=COALESCE(started_at, ?), first_prompt=COALESCE(first_prompt, ?) WHERE id=?",
                (count, last, last, last, first, prompt, sid),
            )
        self._pending.clear()

    def _session_info(self, op: Op) -> None:
        _, it, (remote, remote_red), (title, title_red), (extra, extra_red) = op
        sid = self._session_row(it.session_id)
        self._flush()
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
                v = remote
                red += remote_red
            if v is not None and cur[f] is None and not (f == "resumed_from" and v == it.session_id):
                sets[f] = v
        for f in _KEEP_LAST:
            v = getattr(it, f)
            if v is not None and v != cur[f]:
                sets[f] = v
        if it.title and (it.title_rank >= (cur["title_rank"] or 0) or cur["title"] is None):
            if title != cur["title"]:
                sets["title"] = title
                sets["title_rank"] = it.title_rank
                red += title_red
        if it.extra:
            merged = orjson.loads(cur["extra"]) if cur["extra"] else {}
            new = {**merged, **extra}
            if new != merged:
                sets["extra"] = orjson.dumps(new).decode()
                red += extra_red
        self.counts["redactions"] += red
        if sets:
            cols = ", ".join(f"{k}=?" for k in sets)
            self.db.execute(f"UPDATE sessions SET {cols} WHERE id=?", (*sets.values(), sid))

    # -- messages -------------------------------------------------------------------

    def _message(self, op: Op, offset: int) -> None:
        _, session_id, key, role, kind, text, red, timestamp, cwd, model, replace = op
        sid = self._session_row(session_id)
        pending = self._pending.get(sid)
        if pending is None:
            count = self.db.execute("SELECT message_count FROM sessions WHERE id=?", (sid,)).fetchone()[0]
            pending = self._pending[sid] = [count, None, None, None]
        # Only a new key inserts; the conflict target is the key alone, so any other broken
        # constraint still fails loudly.
        cur = self.db.execute(
            "INSERT INTO messages (id, session_id, message_index, provider, key, role, kind, text, timestamp, cwd,"
            " model, source_id, \"offset\") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (provider, key) DO NOTHING",
            (self._first_id("messages", None), sid, pending[0], self.provider, key, role, kind, text, timestamp, cwd,
             model, self.source_id, offset),
        )
        self._first_id("messages", cur.rowcount)
        if cur.rowcount == 0:
            self._known_message(sid, key, role, kind, text, red, timestamp, model, replace)
            return
        self._message_ids[key] = mid = int(cur.lastrowid or 0)
        if kind == "tool_result" and text:
            self._results[key] = (mid, text)
        pending[0] += 1
        if timestamp is not None:
            if pending[1] is None or timestamp > pending[1]:
                pending[1] = timestamp
            if pending[2] is None:
                pending[2] = timestamp
        if pending[3] is None and role == "user" and kind == "text" and text.strip():
            pending[3] = text[:PROMPT_CHARS]
        self.counts["messages"] += 1
        self.counts["redactions"] += red
        if not self._leaf_titles or not self._may_title(key):
            return
        for title, source_id in self.db.execute("SELECT title, source_id FROM leaf_titles WHERE leaf_uuid=?", (key,)):
            if self._same_folder(source_id):
                self._title(sid, title, SUMMARY_RANK)
                break

    def _may_title(self, key: str) -> bool:
        """Whether a summary record may have titled the leaf ``key`` (False: none has). One
        look-up costs many times what reading one more leaf in a single query does: the leaves
        are read once the look-ups so far cost more than that, and keys are then looked up
        among them."""
        if self._leaves is not None:
            return key in self._leaves
        self._leaf_lookups += 1
        n = self._leaf_lookups
        if n >= LEAF_LOOKUPS and n & (n - 1) == 0:  # at each power of two from LEAF_LOOKUPS
            (rows,) = self.db.execute("SELECT COUNT(*) FROM leaf_titles").fetchone()
            if rows <= n * LEAVES_A_LOOKUP:
                self._leaves = {r[0] for r in self.db.execute("SELECT leaf_uuid FROM leaf_titles")}
                return key in self._leaves
        return True

    def _known_message(self, sid: int, key: str, role: str, kind: str, text: str, red: int, timestamp: str | None,
                       model: str | None, replace: bool) -> None:
        row = self.db.execute(
            "SELECT id, session_id FROM messages WHERE provider=? AND key=?", (self.provider, key)
        ).fetchone()
        self._message_ids[key] = row["id"]
        if row["session_id"] == sid:
            if replace:
                self._own_outputs(f"SELECT {int(row['id'])}")
                self.db.execute(
                    "UPDATE messages SET text=?, role=?, kind=?, timestamp=COALESCE(?, timestamp), model=COALESCE(?, model)"
                    " WHERE id=?",
                    (text, role, kind, timestamp, model, row["id"]),
                )
                self.counts["redactions"] += red
        else:
            # A replayed prefix: not copied; the replaying session names the one it resumes.
            other = self.db.execute("SELECT session_id FROM sessions WHERE id=?", (row["session_id"],)).fetchone()
            self.db.execute(
                "UPDATE sessions SET resumed_from=? WHERE id=? AND resumed_from IS NULL", (other[0], sid)
            )

    def _title(self, sid: int, title: str, rank: int) -> None:
        self.db.execute(
            "UPDATE sessions SET title=?, title_rank=? WHERE id=? AND (title IS NULL OR title_rank <= ?)",
            (title, rank, sid, rank),
        )

    def _message_id(self, key: str | None) -> int | None:
        if key is None:
            return None
        mid = self._message_ids.get(key)
        if mid is not None:
            return mid
        row = self.db.execute("SELECT id FROM messages WHERE provider=? AND key=?", (self.provider, key)).fetchone()
        return row[0] if row else None

    # -- tools and edits ------------------------------------------------------------

    def _tool_call(self, op: Op) -> None:
        _, session_id, call_id, name, tool_input, red, message_key, timestamp, cwd = op
        if call_id in self._calls:
            return  # the first one stands, as INSERT OR IGNORE would have it
        sid = self._session_row(session_id)
        self._calls[call_id] = [(sid, self._message_id(message_key), self.provider, call_id, name, tool_input,
                                 timestamp, cwd, self.source_id), red, None, 0]

    def _tool_result(self, op: Op) -> None:
        _, call_id, status, output, red, exit_code, timestamp, message_key = op
        shared = self._results.pop(message_key, None) if message_key else None  # one call a message
        # Stored once, as the message's text, when the call was written by this source too
        # (a source's rows are removed together; another's call keeps a copy of its own).
        shared_id = shared[0] if shared is not None and shared[1] == output else None
        result = (status, output, exit_code, timestamp, shared_id)
        pending = self._calls.get(call_id)
        if pending is None:
            self._update_result(call_id, result, red)
        else:
            pending[2] = result
            pending[3] += red

    def _update_result(self, call_id: str, result: Op, red: int) -> None:
        status, output, exit_code, timestamp, shared_id = result
        if shared_id is not None:
            cur = self.db.execute(
                "UPDATE tool_calls SET status=?, output=CASE WHEN source_id=? THEN NULL ELSE ? END,"
                " output_message_id=CASE WHEN source_id=? THEN ? END, exit_code=?, result_timestamp=?"
                " WHERE provider=? AND call_id=?",
                (status, self.source_id, output, self.source_id, shared_id, exit_code, timestamp, self.provider,
                 call_id),
            )
        else:
            cur = self.db.execute(
                "UPDATE tool_calls SET status=?, output=?, output_message_id=NULL, exit_code=?, result_timestamp=?"
                " WHERE provider=? AND call_id=?",
                (status, output, exit_code, timestamp, self.provider, call_id),
            )
        self.counts["redactions"] += red if cur.rowcount else 0
        if cur.rowcount == 0:
            self._skip((SKIP, "orphan_tool_result", 0, self.redactor.redact(call_id[:4000])[0][:500]), 0)

    def _flush_calls(self) -> None:
        """The calls held back written, each with the result that came after it, if any: one
        INSERT for a call and its result, not an INSERT and an UPDATE. A call whose row was
        already there (another source's, or an earlier read's) gets its result by an UPDATE."""
        for call_id, (row, red, result, result_red) in self._calls.items():
            status, output, exit_code, result_at, shared_id = result or _NO_RESULT
            cur = self.db.execute(
                "INSERT OR IGNORE INTO tool_calls (id, session_id, message_id, provider, call_id, name, input,"
                " timestamp, cwd, source_id, status, output, output_message_id, exit_code, result_timestamp)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (self._first_id("tool_calls", None), *row, status, output if shared_id is None else None, shared_id,
                 exit_code, result_at))
            self._first_id("tool_calls", cur.rowcount)
            self.counts["tool_calls"] += cur.rowcount
            self.counts["redactions"] += red * cur.rowcount
            if result is not None:
                if cur.rowcount:
                    self.counts["redactions"] += result_red
                else:
                    self._update_result(call_id, result, result_red)
        self._calls.clear()

    def _edit(self, op: Op) -> None:
        (_, session_id, message_key, call_id, seq, tool, kind, status, path, cwd, move_to, timestamp, user_modified,
         hunks, after, red, lines) = op
        sid = self._session_row(session_id)
        cur = self.db.execute(
            "INSERT OR IGNORE INTO edits (id, session_id, message_id, provider, call_id, seq, tool, kind, status, path,"
            " cwd, move_to, timestamp, user_modified, hunks, before_text, after_text, source_id)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (self._first_id("edits", None), sid, self._message_id(message_key), self.provider, call_id, seq, tool,
             kind, status, path, cwd, move_to, timestamp, user_modified, hunks, None, after, self.source_id),
        )
        self._first_id("edits", cur.rowcount)
        if cur.rowcount == 0:
            # The call is another session's already: this one holds a copy of that conversation
            # (resumed or forked; the copy keeps the calls' ids), as a replayed message says.
            other = self.db.execute(
                "SELECT s.session_id FROM edits e JOIN sessions s ON s.id=e.session_id"
                " WHERE e.provider=? AND e.call_id=? AND e.seq=? AND e.session_id<>?",
                (self.provider, call_id, seq, sid)).fetchone()
            if other is not None:
                self.db.execute("UPDATE sessions SET resumed_from=? WHERE id=? AND resumed_from IS NULL", (other[0], sid))
            return
        edit_id = cur.lastrowid
        self.counts["edits"] += 1
        self.counts["redactions"] += red
        self.db.executemany(
            "INSERT OR IGNORE INTO edit_lines (edit_id, side, ordinal, new_lineno, hash, exact, trivial)"
            " VALUES (?,?,?,?,?,?,?)",
            [(edit_id, *row) for row in lines],
        )

    def _steps(self, op: Op) -> None:
        _, session_id, call_id, snapshot, steps, red, timestamp = op
        sid = self._session_row(session_id)
        self.counts["redactions"] += red
        self.db.execute(
            "INSERT INTO steps (session_id, call_id, snapshot, steps, timestamp, source_id) VALUES (?,?,?,?,?,?)",
            (sid, call_id, snapshot, steps, timestamp, self.source_id),
        )

    def _leaf_title(self, op: Op) -> None:
        _, leaf_uuid, title, red, session_id = op
        cur = self.db.execute(
            "INSERT OR IGNORE INTO leaf_titles (leaf_uuid, title, from_session, source_id) VALUES (?,?,?,?)",
            (leaf_uuid, title, session_id, self.source_id),
        )
        self.counts["redactions"] += red * cur.rowcount
        self._leaf_titles = True
        if self._leaves is not None:
            self._leaves.add(leaf_uuid)
        row = self.db.execute(
            "SELECT session_id, source_id FROM messages WHERE provider=? AND key=?", (self.provider, leaf_uuid)
        ).fetchone()
        if row is not None and self._same_folder(row[1]):
            self._title(row[0], title, SUMMARY_RANK)

    def _same_folder(self, source_id: int) -> bool:
        """Whether ``source_id``'s file sits in the folder of the file being written. A summary
        record titles only a session of its own project folder: a file of one repository
        never renames a session of another, whatever leaf it names."""
        if source_id == self.source_id:
            return True
        paths = dict(self.db.execute("SELECT id, path FROM sources WHERE id IN (?,?)", (source_id, self.source_id)))
        a, b = paths.get(source_id), paths.get(self.source_id)
        return a is not None and b is not None and a.rsplit("/", 1)[0] == b.rsplit("/", 1)[0]

    def _rewind(self, op: Op) -> None:
        _, session_id, message_key = op
        sid = self._session_row(session_id)
        self._flush()
        self._flush_calls()
        row = self.db.execute(
            "SELECT message_index FROM messages WHERE session_id=? AND key=? AND provider=?",
            (sid, message_key, self.provider),
        ).fetchone()
        if row is None:
            return
        cut = row[0]
        gone = "SELECT id FROM messages WHERE session_id=? AND message_index>=?"
        self.db.execute(f"DELETE FROM edit_lines WHERE edit_id IN (SELECT id FROM edits WHERE message_id IN ({gone}))",
                        (sid, cut))
        self.db.execute(f"DELETE FROM edits WHERE message_id IN ({gone})", (sid, cut))
        self.db.execute(f"DELETE FROM tool_calls WHERE message_id IN ({gone})", (sid, cut))
        self._own_outputs(gone, (sid, cut))
        self.db.execute("DELETE FROM messages WHERE session_id=? AND message_index>=?", (sid, cut))
        self.db.execute("UPDATE sessions SET message_count=? WHERE id=?", (cut, sid))
        self._message_ids.clear()  # ids of removed messages must not be handed out again

    def _own_outputs(self, messages: str, args: tuple[Any, ...] = ()) -> None:
        """Calls whose output is the text of one of ``messages`` (a SELECT of ids) get a copy of
        their own, before those messages are removed or rewritten."""
        self._flush_calls()
        self.db.execute(
            "UPDATE tool_calls SET output=(SELECT text FROM messages WHERE id=tool_calls.output_message_id),"
            f" output_message_id=NULL WHERE output_message_id IN ({messages})", args)

    def _skip(self, op: Op, offset: int) -> None:
        _, reason, at, detail = op
        self.db.execute(
            "INSERT INTO skips (source_id, \"offset\", reason, detail) VALUES (?,?,?,?)",
            (self.source_id, at or offset, reason, detail),
        )
        self.counts["skipped"] += 1
        self.skip_reasons[reason] = self.skip_reasons.get(reason, 0) + 1

    # -- dispatch -------------------------------------------------------------------

    def write(self, ops: list[Op], offset: int) -> None:
        """Apply ``ops`` (from ``prepare``) read at ``offset``; call ``finish`` before commit."""
        self._results.clear()
        for op in ops:
            tag = op[0]
            if tag == MSG:
                self._message(op, offset)
            elif tag == CALL:
                self._tool_call(op)
            elif tag == RESULT:
                self._tool_result(op)
            elif tag == EDIT:
                self._edit(op)
            elif tag == INFO:
                self._session_info(op)
            elif tag == STEPS:
                self._steps(op)
            elif tag == LEAF:
                self._leaf_title(op)
            elif tag == REWIND:
                self._rewind(op)
            elif tag == SKIP:
                self._skip(op, offset)


# Line facts already computed: edits repeat lines (blank lines, braces, the lines an edit
# touches again). Emptied when full, so it stays a few MB.
_FACTS: dict[str, tuple[int, int, int]] = {}
_FACTS_MAX = 100_000


def _facts(text: str) -> tuple[int, int, int]:
    got = _FACTS.get(text)
    if got is None:
        h, e, trivial = textnorm.line_facts(text)
        got = (h, e, int(trivial))
        if len(_FACTS) >= _FACTS_MAX:
            _FACTS.clear()
        if len(text) <= 200:
            _FACTS[text] = got
    return got


def edit_line_rows(it: EditItem) -> list[tuple[str, int, int | None, int, int, int]]:
    """(side, ordinal, post-edit line number or None, line hash, exact hash, trivial) for every
    added and removed line: ``edit_lines`` rows but for the edit's id. Line numbers come from
    hunks that carry them; otherwise the plain added/removed lists. A number SQLite cannot
    store is None. (A million lines an index on the bench corpus: the loops are written out,
    and facts come from the cache before any call.)"""
    get = _FACTS.get
    rows: list[tuple[str, int, int | None, int, int, int]] = []
    numbered = [h for h in it.hunks if h.new_start is not None]
    if numbered and len(numbered) == len(it.hunks):
        plus = minus = 0
        for h in numbered:
            ln = h.new_start or 1
            for raw in h.lines:
                tag = raw[:1]
                if tag == "+":
                    text = raw[1:]
                    rows.append(("+", plus, ln if -_INT64 <= ln < _INT64 else None) + (get(text) or _facts(text)))
                    plus += 1
                    ln += 1
                elif tag == "-":
                    text = raw[1:]
                    rows.append(("-", minus, None) + (get(text) or _facts(text)))
                    minus += 1
                else:
                    ln += 1
        if plus == len(it.added):
            return rows
        rows = []
    for side, texts in (("+", it.added), ("-", it.removed)):
        for i, text in enumerate(texts):
            rows.append((side, i, None) + (get(text) or _facts(text)))
    return rows
