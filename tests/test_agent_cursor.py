"""Cursor: agent transcripts and state.vscdb (written fixtures and the real samples)."""

from __future__ import annotations

import shutil
import sqlite3

import orjson
from agent_helpers import AGENT_SAMPLES, edits, kinds, parse_lines, parse_records, skips

from hansard.agents.cursor import transcripts as cursor
from hansard.values.models import MessageItem, SessionInfo, ToolResultItem

TRANSCRIPT = AGENT_SAMPLES / "cursor_transcript.jsonl"


def test_transcript_written_sample(tmp_path):
    d = tmp_path / "projects" / "home-dev-shop" / "agent-transcripts"
    d.mkdir(parents=True)
    f = d / "0d3c2b1a-0000-4000-8000-000000000001.jsonl"
    shutil.copyfile(TRANSCRIPT, f)
    assert cursor.PROVIDER.sniff(f, f.read_bytes())
    items, _ = parse_lines(cursor.PROVIDER, f)
    info = [i for i in items if isinstance(i, SessionInfo)]
    assert {i.session_id for i in info} == {"0d3c2b1a-0000-4000-8000-000000000001"}
    assert any(i.title == "round the cart total to cents" for i in info)
    [e] = edits(items)
    assert (e.tool, e.path, e.status, e.added) == ("StrReplace", "/home/dev/shop/cart.py", "applied",
                                                    ("    total = sum(prices)", "    return round(total, 2)"))
    texts = [m.text for m in items if isinstance(m, MessageItem) and m.kind == "text"]
    assert texts[0] == "round the cart total to cents" and "[REDACTED]" not in " ".join(texts)
    assert not skips(items)


def test_transcript_real_sample(samples):
    f = samples / "cursor" / "gitai_cursor-session-simple.jsonl"
    assert cursor.PROVIDER.sniff(f, f.read_bytes()[:65536])
    items, _ = parse_lines(cursor.PROVIDER, f)
    assert kinds(items)["ToolCallItem"] == 10
    [e] = edits(items)
    assert e.tool == "Write" and e.path.endswith("/hbo-shows-1990s.txt") and e.kind == "create"
    assert e.added[0] == "HBO shows that aired during the 1990s (1990–1999)"


def test_vscdb_real_sample(samples, tmp_path):
    src = samples / "cursor" / "gitai_cursor_test.vscdb"
    db = tmp_path / "state.vscdb"
    shutil.copyfile(src, db)
    assert cursor.PROVIDER_VSCDB.sniff(db, db.read_bytes()[:65536])
    assert not cursor.PROVIDER.sniff(db, db.read_bytes()[:65536])
    recs, cur = cursor.vscdb_records(str(db), None)
    assert len(recs) == 43 and recs[0].data.startswith(b'{"k":"composerData:')
    items, _ = parse_records(cursor.PROVIDER_VSCDB, str(db), recs)
    sid = "00812842-49fe-4699-afae-bb22cda3f6e1"
    assert any(isinstance(i, SessionInfo) and i.title == "Retrieve SQLite cursor queries" for i in items)
    [e] = edits(items)
    assert (e.session_id, e.call_id, e.tool, e.status) == (sid, "call_supJwfBjdTUbdTq4gN943W6J", "apply_patch", "applied")
    assert e.path == "/Users/svarlamov/projects/git-ai/src/commands/checkpoint_agent/agent_preset.rs"
    assert [h.new_start for h in e.hunks] == [382, 406]
    assert e.added[0].strip() == "transcript.add_message(Message::user(trimmed.to_string(), bubble_created_at.clone()));"
    assert kinds(items)["ToolResultItem"] == 19
    first_user = next(i for i in items if isinstance(i, MessageItem) and i.role == "user")
    assert first_user.text == "Give me the queries used in the cursor sqlite storage db"
    # nothing changed: nothing to read
    assert cursor.vscdb_records(str(db), cur) == ([], cur)
    # the source database was never written
    assert db.read_bytes() == src.read_bytes()


def _kv_db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    return con


def _bubble(bid, tf=None, text="", btype=2):
    b = {"_v": 3, "type": btype, "bubbleId": bid, "text": text, "createdAt": "2026-03-05T10:00:00.000Z"}
    if tf:
        b["toolFormerData"] = tf
    return orjson.dumps(b).decode()


def test_vscdb_incremental_and_rejected(tmp_path):
    db = tmp_path / "state.vscdb"
    con = _kv_db(db)
    cid = "c0ffee00-0000-4000-8000-000000000001"
    head = [{"bubbleId": "b1", "type": 1}, {"bubbleId": "b2", "type": 2}, {"bubbleId": "b3", "type": 2}]
    con.execute("INSERT INTO cursorDiskKV VALUES (?,?)", (f"composerData:{cid}", orjson.dumps(
        {"_v": 10, "composerId": cid, "name": "Cents", "createdAt": 1772704800000,
         "fullConversationHeadersOnly": head}).decode()))
    con.execute("INSERT INTO cursorDiskKV VALUES (?,?)", (f"bubbleId:{cid}:b1", _bubble("b1", text="round to cents", btype=1)))
    args = {"file_path": "/home/dev/shop/cart.py", "old_string": "    return sum(prices)",
            "new_string": "    return round(sum(prices), 2)"}
    tf = {"name": "search_replace", "toolCallId": "call_A\nfc_x", "status": "loading", "rawArgs": orjson.dumps(args).decode()}
    con.execute("INSERT INTO cursorDiskKV VALUES (?,?)", (f"bubbleId:{cid}:b2", _bubble("b2", tf)))
    con.commit()
    recs, cur = cursor.vscdb_records(str(db), None)
    items, state = parse_records(cursor.PROVIDER_VSCDB, str(db), recs)
    assert not edits(items)  # still loading
    done = {**tf, "status": "completed", "userDecision": "accepted",
            "result": orjson.dumps({"diff": {"chunks": [{"diffString": "- " + args["old_string"] + "\n+ " + args["new_string"],
                                                         "oldStart": 3, "oldLines": 1, "newStart": 3, "newLines": 1}]}}).decode()}
    rej = {"name": "edit_file", "toolCallId": "call_B", "status": "completed", "userDecision": "rejected",
           "rawArgs": orjson.dumps({"target_file": "/home/dev/shop/x.py", "code_edit": "print('no')"}).decode()}
    con.execute("INSERT INTO cursorDiskKV VALUES (?,?)", (f"bubbleId:{cid}:b2", _bubble("b2", done)))
    con.execute("INSERT INTO cursorDiskKV VALUES (?,?)", (f"bubbleId:{cid}:b3", _bubble("b3", rej)))
    con.commit()
    con.close()
    recs2, cur2 = cursor.vscdb_records(str(db), cur)
    assert len(recs2) == 2 and recs2[0].offset == len(recs)
    items2, _ = parse_records(cursor.PROVIDER_VSCDB, str(db), recs2, state)
    [applied] = edits(items2, "applied")
    assert applied.added == ("    return round(sum(prices), 2)",) and applied.hunks[0].new_start == 3
    assert [e.path for e in edits(items2, "rejected")] == ["/home/dev/shop/x.py"]
    assert {r.call_id: r.status for r in items2 if isinstance(r, ToolResultItem)} == {"call_A": "ok", "call_B": "rejected"}


def test_vscdb_unreadable_is_none(tmp_path):
    bad = tmp_path / "state.vscdb"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
    assert cursor.vscdb_records(str(bad), None) is None
