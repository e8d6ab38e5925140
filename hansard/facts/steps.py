"""A session's steps (its todo list or tasks), classified as open, done or dropped.

Input is the session's StepsItem-like rows in time order: a *snapshot* is a whole list
(Claude TodoWrite, Codex update_plan, Gemini write_todos); a non-snapshot row changes one
task (Claude TaskCreate/TaskUpdate). Rows may be ``StepsItem`` objects, mappings or
``steps`` table rows (``steps`` as JSON text).

Invariants:
- pending and in_progress are *open*; completed is *done*; cancelled is *dropped*.
- A step that a later snapshot no longer lists, and that had not completed, is *dropped*
  at that snapshot. A completed step that disappears stays done (lists are cleared when
  finished). A dropped step that comes back is open (or done) again.
- Tasks (non-snapshot rows) never disappear; only their status moves them.
- Steps are matched across rows by ``id`` when the row gives one, else by normalised text
  (case and whitespace ignored); two equal texts in one snapshot are the 1st and 2nd such.
- Every step keeps the timestamps and call ids where it was first and last seen, and where
  it reached its final state, as evidence.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_STATUS = {
    "pending": "pending", "todo": "pending", "not_started": "pending", "open": "pending",
    "in_progress": "in_progress", "in-progress": "in_progress", "inprogress": "in_progress", "active": "in_progress",
    "completed": "completed", "complete": "completed", "done": "completed",
    "cancelled": "cancelled", "canceled": "cancelled", "deleted": "cancelled", "dropped": "cancelled",
}
_STATE = {"pending": "open", "in_progress": "open", "completed": "done", "cancelled": "dropped"}
_TEXT_KEYS = ("text", "content", "step", "description", "subject", "title")


@dataclass(frozen=True, slots=True)
class Step:
    text: str
    state: str  # open | done | dropped
    status: str  # last status seen: pending, in_progress, completed, cancelled
    id: str | None
    first_seen: str | None  # timestamp
    first_call_id: str | None
    last_seen: str | None  # the last row that listed or changed it
    last_call_id: str | None
    closed_at: str | None = None  # when it became done or dropped
    closed_call_id: str | None = None
    source: str = "snapshot"  # snapshot (a list) or task (TaskCreate/TaskUpdate)


def _norm_text(text: str) -> str:
    return " ".join(text.split()).casefold()


def _status(v: Any) -> str | None:
    return _STATUS.get(v.strip().lower().replace(" ", "_")) if isinstance(v, str) else None


def _text(step: Mapping[str, Any]) -> str:
    for k in _TEXT_KEYS:
        v = step.get(k)
        if isinstance(v, str) and v.strip():
            return v.strip()
    return ""


def _field(row: Any, name: str) -> Any:
    if isinstance(row, Mapping):
        return row.get(name)
    try:
        return row[name]  # sqlite3.Row
    except (KeyError, IndexError, TypeError):
        return getattr(row, name, None)


def _row_steps(row: Any) -> list[Mapping[str, Any]] | None:
    """The row's steps; None when they cannot be read (the row is then ignored: an
    unreadable snapshot must not drop every step)."""
    steps = _field(row, "steps")
    if isinstance(steps, (str, bytes)):
        try:
            steps = json.loads(steps)
        except ValueError:
            return None
    if not isinstance(steps, (list, tuple)):
        return None
    return [s for s in steps if isinstance(s, Mapping)]


@dataclass
class _Track:
    text: str
    status: str
    id: str | None
    first_seen: str | None
    first_call_id: str | None
    last_seen: str | None
    last_call_id: str | None
    source: str
    dropped: bool = False
    closed_at: str | None = None
    closed_call_id: str | None = None

    def set_status(self, status: str, ts: str | None, call_id: str | None) -> None:
        was = "dropped" if self.dropped else _STATE[self.status]
        self.status = status
        self.dropped = False
        now = _STATE[status]
        if now == "open":
            self.closed_at = self.closed_call_id = None
        elif now != was:
            self.closed_at, self.closed_call_id = ts, call_id

    def drop(self, ts: str | None, call_id: str | None) -> None:
        if not self.dropped:
            self.dropped = True
            self.closed_at, self.closed_call_id = ts, call_id

    @property
    def state(self) -> str:
        return "dropped" if self.dropped else _STATE[self.status]


def classify_steps(rows: Iterable[Any]) -> list[Step]:
    """The session's steps with their final state, in the order first seen."""
    tracks: dict[str, _Track] = {}
    by_id: dict[str, str] = {}
    by_text: dict[str, str] = {}

    def key_for(step: Mapping[str, Any], text: str, seen_text: dict[str, int]) -> str:
        sid = step.get("id")
        if isinstance(sid, (str, int)) and str(sid) != "":
            sid = str(sid)
            if sid in by_id:
                return by_id[sid]
            k = by_id[sid] = f"id:{sid}"
            return k
        n = _norm_text(text)
        seen_text[n] = seen_text.get(n, 0) + 1
        tk = n if seen_text[n] == 1 else f"{n}#{seen_text[n]}"
        if tk not in by_text:
            by_text[tk] = f"text:{tk}"
        return by_text[tk]

    for row in rows:
        row_steps = _row_steps(row)
        if row_steps is None:
            continue
        ts = _field(row, "timestamp")
        call_id = _field(row, "call_id")
        snapshot = bool(_field(row, "snapshot"))
        present: set[str] = set()
        seen_text: dict[str, int] = {}
        for step in row_steps:
            text = _text(step)
            status = _status(step.get("status"))
            sid = step.get("id")
            if not text and not (isinstance(sid, (str, int)) and str(sid)):
                continue
            key = key_for(step, text, seen_text)
            present.add(key)
            t = tracks.get(key)
            if t is None:
                t = tracks[key] = _Track(
                    text or f"(task {sid})", "pending", str(sid) if isinstance(sid, (str, int)) else None,
                    ts, call_id, ts, call_id, "snapshot" if snapshot else "task",
                )
                t.set_status(status or "pending", ts, call_id)
            else:
                if text:
                    t.text = text
                t.last_seen, t.last_call_id = ts, call_id
                if status is not None:
                    t.set_status(status, ts, call_id)
                elif t.dropped and snapshot:
                    t.set_status(t.status, ts, call_id)  # listed again: back from the dead
        if snapshot:
            for key, t in tracks.items():
                if key not in present and t.source == "snapshot" and t.state == "open":
                    t.drop(ts, call_id)
    return [
        Step(t.text, t.state, t.status, t.id, t.first_seen, t.first_call_id, t.last_seen, t.last_call_id,
             t.closed_at, t.closed_call_id, t.source)
        for t in tracks.values()
    ]


def by_state(steps: Iterable[Step]) -> dict[str, list[Step]]:
    """Steps grouped as {"open": [...], "done": [...], "dropped": [...]}, order kept."""
    out: dict[str, list[Step]] = {"open": [], "done": [], "dropped": []}
    for s in steps:
        out[s.state].append(s)
    return out
