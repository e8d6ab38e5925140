"""capture_subagent_messages: record one delivery between agents, exactly once.

The delivery is archived verbatim (a record of source ``capture://<session>``) and indexed at
once, so it is searchable as part of the capturing session's history. A second capture of
the same delivery (same session, type, sender, recipient and text) is recognised by its
content hash and not stored again. The receipt never repeats the text; its ``session_id`` is
the session the delivery is bound to (the MCP server finds the calling session through
hansard.agents.caller). With no calling session the capture is refused (``session_not_bound``,
naming how to bind the server), never stored under a made-up session.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from hansard.agents.capture import PROVIDER, ROLES, SCHEME, companion_id
from hansard.errors import InvalidArgument, SessionNotBound
from hansard.ingest.pipeline import ingest
from hansard.store import as_store
from hansard.values.models import RawRecord
from hansard.values.timebounds import utc_stamp

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

MAX_TEXT = 1_000_000


def capture(store: Store, session_id: str | None, message_type: str, sender: str, recipient_path: str,
            text: str) -> dict[str, Any]:
    if not session_id:
        raise SessionNotBound(
            "capture_subagent_messages stores a delivery in the calling session's history, and this server knows no "
            "calling session: start it with `hansard mcp serve --session SESSION_ID`, or set HANSARD_SESSION_ID in its "
            "environment (an agent that exposes its session, such as Codex's CODEX_THREAD_ID, is found on its own)")
    if message_type not in ROLES:
        raise InvalidArgument(f"message_type must be one of {', '.join(ROLES)}")
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument("text is empty")
    if len(text) > MAX_TEXT:
        raise InvalidArgument(f"text is longer than {MAX_TEXT} characters")
    store = as_store(store)
    archive = store.archive
    bound = session_id
    digest = hashlib.sha256(
        json.dumps([bound, message_type, sender, recipient_path, text], ensure_ascii=False).encode()
    ).hexdigest()
    cap_id = "cap_" + digest[:24]
    path = SCHEME + bound
    with archive.transaction():
        row = archive.source(path)
        if row is None:
            source_id, offset, generation = archive.add_source(path, PROVIDER.name), 0, 0
        else:
            source_id, offset, generation = row["id"], row["offset"], row["generation"]
        idx = store.items.message_index(PROVIDER.name, cap_id)
        dup = idx is not None
        if not dup:
            rec = {"id": cap_id, "message_type": message_type, "sender": sender, "recipient_path": recipient_path,
                   "text": text, "captured_at": utc_stamp(), "content_sha256": digest}
            raw = RawRecord(path, offset, json.dumps(rec, ensure_ascii=False).encode())
            parser = PROVIDER.new_parser(path, archive.parser_state(source_id))
            done = ingest(store, source_id=source_id, generation=generation, provider=PROVIDER.name, parser=parser,
                          records=[raw])
            archive.advance(source_id, offset=offset + len(raw.data) + 1, parser_state=done.state,
                            redactions=done.writer.counts["redactions"])
            idx = store.items.message_index(PROVIDER.name, cap_id)
    return {"receipt_id": cap_id, "content_sha256": digest, "session_id": session_id,
            "stored_in": companion_id(bound), "message_index": idx, "duplicate": dup}
