"""OpenCode: the flat JSON storage and the SQLite store give the same items."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from agent_helpers import AGENT_SAMPLES, edits, parse_records, skips

from hansard.agents.opencode import storage as opencode
from hansard.values.models import MessageItem, SessionInfo, ToolCallItem, ToolResultItem

STORAGE = AGENT_SAMPLES / "opencode_storage"
SID = "ses_3a1b2c3d4e5fAbCdEfGhIjKlMn"


def _check(items):
    info = [i for i in items if isinstance(i, SessionInfo)]
    assert {i.session_id for i in info} == {SID}
    assert any(i.title == "Discount codes for the cart" and i.cwd == "/home/dev/shop" for i in info)
    [e] = edits(items, "applied")
    assert (e.call_id, e.tool, e.path) == ("toolu_01OpenCodeEdit", "edit", "/home/dev/shop/cart.py")
    assert e.added == ("def cart_total(prices, discount_percent=0):", "    subtotal = sum(prices)",
                       "    return subtotal * (100 - discount_percent) / 100")
    assert e.hunks[0].new_start == 1
    assert [x.path for x in edits(items, "rejected")] == ["/home/dev/shop/README.md"]
    results = {r.call_id: r.status for r in items if isinstance(r, ToolResultItem)}
    assert results == {"toolu_01OpenCodeEdit": "ok", "toolu_02OpenCodeWrite": "rejected"}  # bash still running
    assert "toolu_03OpenCodeBash" in {c.call_id for c in items if isinstance(c, ToolCallItem)}
    msgs = [(m.role, m.text) for m in items if isinstance(m, MessageItem) and m.kind == "text"]
    assert msgs == [("user", "apply a percentage discount code in cart_total"), ("assistant", "I'll add a discount parameter.")]


def test_storage_files(tmp_path):
    root = tmp_path / "storage"
    shutil.copytree(STORAGE, root)
    assert opencode.PROVIDER_STORAGE.sniff(root, b"")
    recs, cur = opencode.storage_records(str(root), None)
    assert len(recs) == 9
    items, state = parse_records(opencode.PROVIDER_STORAGE, str(root), recs)
    _check(items)
    assert skips(items) == {"unused_part": 1}
    # nothing changed → nothing read; the running bash part finishes → only it is read
    assert opencode.storage_records(str(root), cur)[0] == []
    part = root / "part" / "msg_c1a2b3c4d002AbCdEfGhIjKlMn" / "prt_c1a2b3c4e006AbCdEfGhIjKlMn.json"
    d = json.loads(part.read_text())
    d["state"].update(status="completed", output="3 passed", time={"start": 1772620809000, "end": 1772620810000})
    part.write_text(json.dumps(d))
    st = os.stat(part)
    os.utime(part, ns=(st.st_atime_ns, cur["mtime"] + 1_000_000))
    recs2, _ = opencode.storage_records(str(root), cur)
    assert len(recs2) == 1 and recs2[0].offset == 9
    items2, _ = parse_records(opencode.PROVIDER_STORAGE, str(root), recs2, state)
    assert [(r.call_id, r.output) for r in items2 if isinstance(r, ToolResultItem)] == [("toolu_03OpenCodeBash", "3 passed")]


def _sqlite_from_storage(db):
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE `session` (id text PRIMARY KEY, project_id text, parent_id text, directory text, title text,"
        " version text, time_created integer, time_updated integer);"
        "CREATE TABLE `message` (id text PRIMARY KEY, session_id text, time_created integer, time_updated integer, data text);"
        "CREATE TABLE `part` (id text PRIMARY KEY, message_id text, session_id text, time_created integer,"
        " time_updated integer, data text);")
    t = 1772620800000
    for p in sorted(STORAGE.rglob("*.json")):
        d = json.loads(p.read_text())
        kind = p.relative_to(STORAGE).parts[0]
        t += 1
        if kind == "session":
            con.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?,?)", (d["id"], d["projectID"], None, d["directory"],
                        d["title"], d["version"], d["time"]["created"], t))
        elif kind == "message":
            data = {k: v for k, v in d.items() if k not in ("id", "sessionID")}
            con.execute("INSERT INTO message VALUES (?,?,?,?,?)", (d["id"], d["sessionID"], t, t, json.dumps(data)))
        else:
            data = {k: v for k, v in d.items() if k not in ("id", "sessionID", "messageID")}
            con.execute("INSERT INTO part VALUES (?,?,?,?,?,?)",
                        (d["id"], d["messageID"], d["sessionID"], t, t, json.dumps(data)))
    con.commit()
    con.close()


def test_sqlite_store(tmp_path):
    db = tmp_path / "opencode.db"
    _sqlite_from_storage(db)
    assert opencode.PROVIDER.sniff(db, db.read_bytes()[:65536])
    recs, cur = opencode.db_records(str(db), None)
    assert len(recs) == 9
    items, _ = parse_records(opencode.PROVIDER, str(db), recs)
    _check(items)
    assert opencode.db_records(str(db), cur)[0] == []


def test_scanner_reads_both_shapes_from_the_default_home(tmp_path):
    """A bare index finds ``storage/`` (one source) and ``opencode.db`` under OPENCODE_DATA_DIR;
    the same session in both is stored once; nothing changed, nothing read."""
    from hansard.ingest.run import index
    from hansard.store import open_store

    home = Path(os.environ["OPENCODE_DATA_DIR"])
    shutil.copytree(STORAGE, home / "storage")
    _sqlite_from_storage(home / "opencode.db")
    store = open_store()
    try:
        first = index(store)
        again = index(store)
        counts = store.sessions.provider_counts()
        sources = sorted(store.archive.sources())
    finally:
        store.close()
    assert sources == [str(home / "opencode.db"), str(home / "storage")]
    assert first.changed == 2 and again.changed == 0
    assert counts["opencode"]["sessions"] == 1 and counts["opencode"]["edits"] >= 1


def _export() -> dict:
    """The sample session as ``opencode export`` writes it: the session, then each message
    with its parts."""
    session = json.loads(next((STORAGE / "session").rglob("*.json")).read_text())
    messages = []
    for m in sorted((STORAGE / "message").rglob("*.json")):
        info = json.loads(m.read_text())
        parts = [json.loads(p.read_text()) for p in sorted((STORAGE / "part" / info["id"]).glob("*.json"))]
        messages.append({"info": info, "parts": parts})
    return {"info": session, "messages": messages}


def test_an_export_reads_as_the_stores_do(tmp_path):
    from hansard.values.models import RawRecord

    f = tmp_path / "full.jsonl"  # Entire keeps an OpenCode session's export under this name
    f.write_text(json.dumps(_export(), indent=2))
    data = f.read_bytes()
    assert opencode.PROVIDER_EXPORT.sniff(f, data[:65536])
    assert not opencode.PROVIDER_EXPORT.sniff(f, next((STORAGE / "session").rglob("*.json")).read_bytes())
    items, _ = parse_records(opencode.PROVIDER_EXPORT, str(f), [RawRecord(str(f), 0, data)])
    _check(items)
    assert skips(items) == {"unused_part": 1}
    # an export that leaves out the ids nested objects share with their parents reads the same
    doc = _export()
    for m in doc["messages"]:
        m["info"].pop("sessionID")
        for p in m["parts"]:
            p.pop("sessionID"), p.pop("messageID")
    bare, _ = parse_records(opencode.PROVIDER_EXPORT, str(f), [RawRecord(str(f), 0, json.dumps(doc).encode())])
    _check(bare)
    # a part without an id of its own is named by its place, the same at every reading
    doc["messages"][0]["parts"][0].pop("id")
    once, _ = parse_records(opencode.PROVIDER_EXPORT, str(f), [RawRecord(str(f), 0, json.dumps(doc).encode())])
    again, _ = parse_records(opencode.PROVIDER_EXPORT, str(f), [RawRecord(str(f), 0, json.dumps(doc).encode())])
    first_prompt = [m for m in once if isinstance(m, MessageItem) and m.role == "user"]
    assert [m.key for m in first_prompt] == ["msg_c1a2b3c4d001AbCdEfGhIjKlMn#0"]
    assert [m.key for m in again if isinstance(m, MessageItem) and m.role == "user"] == ["msg_c1a2b3c4d001AbCdEfGhIjKlMn#0"]
    # not an export: a counted skip, no crash
    odd, _ = parse_records(opencode.PROVIDER_EXPORT, str(f), [RawRecord(str(f), 0, b'{"info": {"id": "ses_x"}, "messages": 3}')])
    assert skips(odd) == {"not_a_transcript": 1}


def test_index_reads_an_export_named_on_the_command_line(tmp_path):
    from hansard.ingest.run import index
    from hansard.store import open_store

    f = tmp_path / "exports" / "ses_3a1b2c3d4e5fAbCdEfGhIjKlMn.json"
    f.parent.mkdir()
    f.write_text(json.dumps(_export(), indent=2))
    store = open_store()
    try:
        first = index(store, [f.parent])
        again = index(store, [f.parent])
        counts = store.sessions.provider_counts()
    finally:
        store.close()
    assert first.changed == 1 and again.changed == 0
    assert counts["opencode"]["sessions"] == 1 and counts["opencode"]["edits"] == 1  # applied; the write was refused
