"""Fuzzing the parsers of the other agents (Cursor, Aider, Copilot, ...): mutated records never raise, every
result is an item, and every state is JSON that a new parser resumes from.

``HANSARD_AGENT_FUZZ=100000 pytest tests/test_agent_fuzz.py`` runs the long campaign."""

from __future__ import annotations

import copy
import os
import random
import shutil
from pathlib import Path
from typing import Any

import orjson
from agent_helpers import AGENT_SAMPLES

from hansard.agents.aider import history as aider
from hansard.agents.copilot import events as copilot
from hansard.agents.cursor import transcripts as cursor
from hansard.agents.opencode import storage as opencode
from hansard.agents.webchat import exports as webchat
from hansard.ingest.reader import iter_jsonl
from hansard.values.models import (
    EditItem,
    LeafTitle,
    MessageItem,
    RawRecord,
    Rewind,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

ITEMS = (SessionInfo, MessageItem, ToolCallItem, ToolResultItem, EditItem, StepsItem, LeafTitle, Rewind, Skip)
N = int(os.environ.get("HANSARD_AGENT_FUZZ", "3000"))
WEIRD: list[Any] = [None, True, 0, -1, 2**63 - 1, 1.5, "", "x", "\x00", "\u202e", [], {}, [None], {"": None},
                    "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch", "@@ -1,9 +1,9 @@\n+x",
                    "completed", "rejected", "call_x\nfc_y", '{"diff":{"chunks":[{"diffString":"+ a"}]}}', "9" * 40]


def _weird(rnd: random.Random) -> Any:
    return copy.deepcopy(rnd.choice(WEIRD))  # never share a mutable value between mutations


def _corpus(tmp: Path) -> dict[str, tuple[Any, list[RawRecord]]]:
    out: dict[str, tuple[Any, list[RawRecord]]] = {}
    for name, prov, f in (("aider", aider.PROVIDER, AGENT_SAMPLES / "aider.chat.history.md"),
                          ("copilot", copilot.PROVIDER, AGENT_SAMPLES / "copilot_events.jsonl"),
                          ("cursor", cursor.PROVIDER, AGENT_SAMPLES / "cursor_transcript.jsonl")):
        out[name] = (prov, list(iter_jsonl(str(f))))
    root = tmp / "storage"
    shutil.copytree(AGENT_SAMPLES / "opencode_storage", root)
    out["opencode"] = (opencode.PROVIDER_STORAGE, opencode.storage_records(str(root), None)[0])
    recs = webchat.records(str(AGENT_SAMPLES / "chatgpt_conversations.json"))[0]
    recs += webchat.records(str(AGENT_SAMPLES / "claude_web_conversations.json"))[0]
    out["webchat"] = (webchat.PROVIDER_CHATGPT, recs)
    vs = [RawRecord("s", 0, orjson.dumps({"k": "composerData:c", "v": orjson.dumps(
              {"name": "t", "createdAt": 1, "fullConversationHeadersOnly": [{"bubbleId": "b", "type": 2}]}).decode()})),
          RawRecord("s", 1, orjson.dumps({"k": "bubbleId:c:b", "v": orjson.dumps(
              {"type": 2, "text": "x", "toolFormerData": {"name": "search_replace", "toolCallId": "c1", "status": "completed",
               "rawArgs": '{"file_path":"/a","old_string":"a","new_string":"b"}',
               "result": '{"diff":{"chunks":[{"diffString":"- a\\n+ b","newStart":1}]}}'}}).decode()}))]
    out["cursor_vscdb"] = (cursor.PROVIDER_VSCDB, vs)
    return out


def _mutate_obj(obj: Any, rnd: random.Random, depth: int = 0) -> Any:
    if isinstance(obj, dict) and obj:
        k = rnd.choice(list(obj))
        op = rnd.random()
        if op < 0.3:
            obj.pop(k)
        elif op < 0.6 or depth > 6:
            obj[k] = _weird(rnd)
        else:
            obj[k] = _mutate_obj(obj[k], rnd, depth + 1)
    elif isinstance(obj, list) and obj:
        i = rnd.randrange(len(obj))
        obj[i] = _mutate_obj(obj[i], rnd, depth + 1) if rnd.random() < 0.5 else _weird(rnd)
    elif isinstance(obj, str) and obj.startswith("{"):
        try:  # JSON text inside JSON (Cursor rawArgs/result, the archive records)
            return orjson.dumps(_mutate_obj(orjson.loads(obj), rnd, depth + 1)).decode()
        except orjson.JSONDecodeError:
            return obj[: rnd.randrange(len(obj) + 1)]
    else:
        return _weird(rnd)
    return obj


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    r = rnd.random()
    if r < 0.15:
        return data[: rnd.randrange(len(data) + 1)]
    if r < 0.3:
        b = bytearray(data)
        for _ in range(rnd.randint(1, 4)):
            if b:
                b[rnd.randrange(len(b))] = rnd.randrange(256)
        return bytes(b)
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        lines = [b"#### ", b"> Applied edit to net/retry.py", b"<<<<<<< SEARCH", b"=======", b">>>>>>> REPLACE",
                 b"```", b"# aider chat started at 2026-01-01 00:00:00", b"> Commit abcdef1 x", b"\xff"]
        return rnd.choice(lines) + data[rnd.randrange(len(data) + 1):]
    for _ in range(rnd.randint(1, 3)):
        obj = _mutate_obj(obj, rnd)
    out = orjson.dumps(obj)
    return out.replace("\u202e".encode(), b"\xed\xa0\x80") if rnd.random() < 0.2 else out  # a lone surrogate


def test_fuzz_new_parsers(tmp_path):
    rnd = random.Random(11)
    corpus = _corpus(tmp_path)
    names = sorted(corpus)
    done = 0
    while done < N:
        name = names[done % len(names)]
        prov, recs = corpus[name]
        parser = prov.new_parser("/tmp/x/.aider.chat.history.md" if name == "aider" else "/tmp/x/s.jsonl", None)
        for rec in recs:
            data = _mutate(rec.data, rnd) if rnd.random() < 0.5 else rec.data
            items = parser.feed(RawRecord(rec.source_path, rec.offset, data))
            assert all(isinstance(i, ITEMS) for i in items), name
            done += 1
            if rnd.random() < 0.1:  # resume from the saved state, as the scanner does
                parser = prov.new_parser(rec.source_path, orjson.loads(orjson.dumps(parser.state())))
        assert all(isinstance(i, ITEMS) for i in parser.finish())
        orjson.dumps(parser.state())
