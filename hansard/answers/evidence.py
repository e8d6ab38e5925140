"""The edit side of the evidence: which archived edits added (or removed) a line, by hash.

Only applied edits are ever loaded. Candidates are limited to one repository, so a session
in another repository that wrote the same text at the same relative path is never seen.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime

from hansard.store.sqlite.codec import unpack
from hansard.textnorm import split_lines

CHUNK = 500


def parse_ts(ts: str | None) -> float | None:
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class EditRef:
    """One applied edit seen as evidence. ``added`` maps a line's normal-form hash to the
    exact hashes of the lines this edit added with that form. (A plain class: dataclasses
    cost ~10 ms of import on the `why` path.)"""

    __slots__ = ("edit_id", "session_id", "provider", "call_id", "message_index", "rel_path", "ts", "timestamp",
                 "user_modified", "tool", "added", "trivial")

    def __init__(self, edit_id: int, session_id: str, provider: str, call_id: str, message_index: int | None,
                 rel_path: str, ts: float, timestamp: str, user_modified: bool, tool: str | None) -> None:
        self.edit_id = edit_id
        self.session_id = session_id
        self.provider = provider
        self.call_id = call_id
        self.message_index = message_index
        self.rel_path = rel_path
        self.ts = ts
        self.timestamp = timestamp
        self.user_modified = user_modified
        self.tool = tool
        self.added: dict[int, set[int]] = {}
        self.trivial: set[int] = set()


def load_candidates(db: sqlite3.Connection, repo_id: int, hashes: set[int], side: str = "+"
                    ) -> tuple[dict[int, EditRef], dict[int, list[int]]]:
    """(edits by id, edit ids by line hash) for applied edits in ``repo_id`` that added
    (side '+') or removed (side '-') any of ``hashes``."""
    edits: dict[int, EditRef] = {}
    by_hash: dict[int, list[int]] = {}
    hl = list(hashes)
    for i in range(0, len(hl), CHUNK):
        part = hl[i:i + CHUNK]
        rows = db.execute(
            "SELECT el.hash, el.exact, el.trivial, e.id, e.rel_path, e.timestamp, e.call_id, e.provider,"
            " e.user_modified, e.tool, s.session_id, m.message_index"
            " FROM edit_lines el JOIN edits e ON e.id=el.edit_id JOIN sessions s ON s.id=e.session_id"
            " LEFT JOIN messages m ON m.id=e.message_id"
            f" WHERE el.side=? AND el.hash IN ({','.join('?' * len(part))}) AND e.repo_id=? AND e.status='applied'",
            (side, *part, repo_id),
        ).fetchall()
        for r in rows:
            ts = parse_ts(r["timestamp"])
            if ts is None:
                continue  # an edit with no time can never be placed before a commit
            ref = edits.get(r["id"])
            if ref is None:
                ref = edits[r["id"]] = EditRef(
                    r["id"], r["session_id"], r["provider"], r["call_id"], r["message_index"], r["rel_path"], ts,
                    r["timestamp"], bool(r["user_modified"]), r["tool"],
                )
            ref.added.setdefault(r["hash"], set()).add(r["exact"])
            if r["trivial"]:
                ref.trivial.add(r["hash"])
            lst = by_hash.setdefault(r["hash"], [])
            if not lst or lst[-1] != r["id"]:
                lst.append(r["id"])
    return edits, by_hash


def added_texts(db: sqlite3.Connection, edit_id: int) -> list[str]:
    """The text of the lines an edit added: from its hunks, else its whole-file result."""
    row = db.execute("SELECT hunks, after_text, kind FROM edits WHERE id=?", (edit_id,)).fetchone()
    if row is None:
        return []
    hunks = json.loads(row["hunks"]) if row["hunks"] else []
    out = [ln[1:] for h in hunks for ln in h[4] if ln.startswith("+")]
    if not out and row["after_text"] is not None:
        out = split_lines(unpack(row["after_text"]) or "")
    return out


def repo_has_edits(db: sqlite3.Connection, repo_id: int, paths: set[str]) -> bool:
    marks = ",".join("?" * len(paths))
    return db.execute(
        f"SELECT 1 FROM edits WHERE repo_id=? AND rel_path IN ({marks}) AND status='applied' LIMIT 1",
        (repo_id, *paths),
    ).fetchone() is not None


def prompt_for(db: sqlite3.Connection, session_id: str, message_index: int | None) -> tuple[int, str] | None:
    """The user's request that led to a message: the newest typed prompt at or before it."""
    if message_index is None:
        return None
    row = db.execute(
        "SELECT m.message_index, m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
        " WHERE s.session_id=? AND m.message_index<=? AND m.role='user' AND m.kind='text'"
        " ORDER BY m.message_index DESC LIMIT 1",
        (session_id, message_index),
    ).fetchone()
    return (row[0], row[1]) if row else None


def first_shell_write(db: sqlite3.Connection, repo_id: int, basename: str) -> float | None:
    """When a session in this repository first ran a shell command that could have written
    this file (sed -i, cat >, a script naming it), or None. Such edits are invisible to
    structured patches, so a line committed after that may still be an agent's: unknown, not
    human."""
    from hansard.facts.shell import SHELL_TOOLS, may_write, shell_command

    first: float | None = None
    for ts, raw in db.execute(
        "SELECT t.timestamp, t.input FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
        f" WHERE s.repo_id=? AND t.name IN ({','.join('?' * len(SHELL_TOOLS))}) AND instr(t.input, ?) > 0",
        (repo_id, *SHELL_TOOLS, basename),
    ):
        t = parse_ts(ts)
        if t is None or (first is not None and t >= first):
            continue
        try:
            inp = json.loads(raw or "{}")
        except ValueError:
            inp = None
        cmd = shell_command(inp) if isinstance(inp, dict) else None
        if cmd is None or may_write(cmd, basename):
            first = t
    return first


def unlinked_hashes(db: sqlite3.Connection, hashes: set[int], basename: str) -> set[int]:
    """Hashes among ``hashes`` that an applied edit of a file with this name added, where the
    edit could not be placed in any repository (a deleted worktree, a path from another
    machine with no `config map`). Such a line may be an agent's: unknown, not human."""
    out: set[int] = set()
    hl = list(hashes)
    for i in range(0, len(hl), CHUNK):
        part = hl[i:i + CHUNK]
        for (h,) in db.execute(
            "SELECT DISTINCT el.hash FROM edit_lines el JOIN edits e ON e.id=el.edit_id"
            f" WHERE el.side='+' AND el.hash IN ({','.join('?' * len(part))}) AND e.repo_id IS NULL"
            " AND e.status='applied' AND (e.path=? OR e.path LIKE ?)",
            (*part, basename, "%/" + basename),
        ):
            out.add(h)
    return out
