"""Agent Trace records other tools wrote (tables ``agent_trace_records`` and
``agent_trace_ranges``; migration m034), as `hansard trace import` keeps them: one row per
record, keyed by the record's own id, and its line ranges keyed by (revision, path) for `why`.

Always true: a record's ranges are written and replaced with it in one transaction; the same
record read again (same id, same digest) writes nothing; every string was redacted by the
caller (hansard.trace.read).
"""

from __future__ import annotations

import sqlite3
import zlib
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from hansard.store.sqlite.db import marks, transaction
from hansard.values.timebounds import utc_stamp

RANGE_COLS = "path, start_line, end_line, type, model, url, session_id"


class SqliteAgentTraces:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def put_many(self, items: Iterable[tuple[dict[str, Any], Sequence[tuple[Any, ...]], bytes, str | None]]
                 ) -> Counter[str]:
        """Keep records, in one transaction: each as (``rec``: id, digest, revision, tool,
        tool_version, recorded_at; its ranges as (path, start_line, end_line, type, model, url,
        session_id); its JSON document; the file it came from). How many were "added",
        "unchanged" (the same id and digest are kept already) and "replaced" (the id was kept
        with another digest)."""
        out: Counter[str] = Counter()
        now = utc_stamp()
        with transaction(self.db):
            for rec, ranges, document, source in items:
                row = self.db.execute("SELECT digest FROM agent_trace_records WHERE id=?", (rec["id"],)).fetchone()
                if row is not None and row[0] == rec["digest"]:
                    out["unchanged"] += 1
                    continue
                if row is not None:
                    self.db.execute("DELETE FROM agent_trace_ranges WHERE record_id=?", (rec["id"],))
                    self.db.execute("DELETE FROM agent_trace_records WHERE id=?", (rec["id"],))
                self.db.execute(
                    "INSERT INTO agent_trace_records (id, digest, revision, tool, tool_version, recorded_at, source,"
                    " imported_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (rec["id"], rec["digest"], rec["revision"], rec.get("tool"), rec.get("tool_version"),
                     rec["recorded_at"], source, now, zlib.compress(document, 6)))
                self.db.executemany(
                    f"INSERT INTO agent_trace_ranges (record_id, revision, {RANGE_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(rec["id"], rec["revision"], *r) for r in ranges])
                out["added" if row is None else "replaced"] += 1
        return out

    def any(self) -> bool:
        """Whether any record is kept (`why` looks no further when none is)."""
        try:
            return self.db.execute("SELECT 1 FROM agent_trace_records LIMIT 1").fetchone() is not None
        except sqlite3.OperationalError:  # an older store opened read-only: no such table yet
            return False

    def ranges_at(self, revisions: Collection[str]) -> list[dict[str, Any]]:
        """The ranges of records about ``revisions``, each with its record's id, tool and
        timestamp (newest record first, then by id)."""
        revs = list(revisions)
        out: list[dict[str, Any]] = []
        for i in range(0, len(revs), 500):
            part = revs[i:i + 500]
            cur = self.db.execute(
                f"SELECT g.revision, {', '.join('g.' + c for c in RANGE_COLS.split(', '))}, r.id, r.tool, r.recorded_at"
                " FROM agent_trace_ranges g JOIN agent_trace_records r ON r.id = g.record_id"
                f" WHERE g.revision IN ({marks(len(part))})", part)
            names = [d[0] for d in cur.description]
            out += [dict(zip(names, row, strict=True)) for row in cur]
        out.sort(key=lambda r: (r["recorded_at"] or "", r["id"]), reverse=True)
        return out

    def record(self, record_id: str) -> bytes | None:
        """A kept record's JSON, as stored (redacted)."""
        row = self.db.execute("SELECT record FROM agent_trace_records WHERE id=?", (record_id,)).fetchone()
        return None if row is None else zlib.decompress(row[0])

    def counts(self) -> tuple[int, int]:
        """(records, ranges) kept."""
        a = self.db.execute("SELECT COUNT(*) FROM agent_trace_records").fetchone()[0]
        b = self.db.execute("SELECT COUNT(*) FROM agent_trace_ranges").fetchone()[0]
        return int(a), int(b)
