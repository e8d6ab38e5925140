"""capture_subagent_messages: record one delivery between agents, exactly once.

The delivery is archived verbatim (a record of source ``capture://<session>``) and indexed at
once, so it is searchable as part of the capturing session's history. A second capture of
the same delivery (same session, type, sender, recipient and text) is recognised by its
content hash and not stored again. The receipt never repeats the text.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from typing import Any

from hansard.errors import InvalidArgument
from hansard.agents.capture import ROLES, SCHEME, PROVIDER, companion_id
from hansard.ingest.scanner import archive
from hansard.models import RawRecord
from hansard.store.sqlite import fts
from hansard.store.sqlite.db import transaction
from hansard.store.sqlite.writer import Writer

MAX_TEXT = 1_000_000


def capture(db: sqlite3.Connection, session_id: str | None, message_type: str, sender: str, recipient_path: str,
            text: str) -> dict[str, Any]:
    if message_type not in ROLES:
        raise InvalidArgument(f"message_type must be one of {', '.join(ROLES)}")
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("text is empty")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"text is longer than {MAX_TEXT} characters")
    bound = session_id or "unbound"
    digest = hashlib.sha256(
        json.dumps([bound, message_type, sender, recipient_path, text], ensure_ascii=False).encode()
    ).hexdigest()
    cap_id = "cap_" + digest[:24]
    path = SCHEME + bound
    with transaction(db):
        row = db.execute("SELECT id, \"offset\", generation FROM sources WHERE path=?", (path,)).fetchone()
        if row is None:
            cur = db.execute("INSERT INTO sources (path, provider, first_seen) VALUES (?, 'capture', ?)",
                             (path, _now()))
            source_id, offset, generation = int(cur.lastrowid or 0), 0, 0
        else:
            source_id, offset, generation = row["id"], row["offset"], row["generation"]
        dup = db.execute("SELECT message_index FROM messages m JOIN sessions s ON s.id=m.session_id"
                         " WHERE m.provider='capture' AND m.key=?", (cap_id,)).fetchone()
        if dup is None:
            rec = {"id": cap_id, "message_type": message_type, "sender": sender, "recipient_path": recipient_path,
                   "text": text, "captured_at": _now(), "content_sha256": digest}
            raw = RawRecord(path, offset, json.dumps(rec, ensure_ascii=False).encode())
            archive(db, source_id, generation, raw)
            state_row = db.execute("SELECT parser_state FROM sources WHERE id=?", (source_id,)).fetchone()
            parser = PROVIDER.new_parser(path, json.loads(state_row[0]) if state_row[0] else None)
            writer = Writer(db, source_id, "capture")
            writer.apply(parser.feed(raw), offset)
            fts.catch_up(db)
            db.execute("UPDATE sources SET \"offset\"=?, parser_state=?, redactions=redactions+? WHERE id=?",
                       (offset + len(raw.data) + 1, json.dumps(parser.state()), writer.counts["redactions"], source_id))
            idx = db.execute("SELECT message_index FROM messages WHERE provider='capture' AND key=?", (cap_id,)).fetchone()[0]
        else:
            idx = dup[0]
    return {"receipt_id": cap_id, "content_sha256": digest, "session_id": session_id,
            "stored_in": companion_id(bound), "message_index": idx, "duplicate": dup is not None}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
